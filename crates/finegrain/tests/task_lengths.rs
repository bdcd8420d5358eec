//! The task characterisation (`Stats`: mean and sampled median task length,
//! share stolen) on tasks of known length, under every policy.

#![cfg(feature = "stats")]

use finegrain::Pool;
use std::time::{Duration, Instant};

fn spin(d: Duration) {
    let t = Instant::now();
    while t.elapsed() < d {
        std::hint::spin_loop();
    }
}

/// 3,000 phase tasks, three short (20 us) for one long (200 us): the median
/// is a short task, the mean is pulled up by the long ones.
#[test]
fn median_and_mean_of_known_tasks() {
    for p in finegrain::policies() {
        let pool = Pool::new(2, p.name).unwrap();
        let ((), s) = pool.measure(|| {
            finegrain::phase(0..3000u32, |_, i| spin(Duration::from_micros(if i % 4 == 3 { 200 } else { 20 })));
        });
        let t = s.total();
        assert!(t.tasks_run >= 3000, "{}: {t:?}", p.name);
        assert!(t.task_samples() >= 100, "{}: {} samples", p.name, t.task_samples());
        let median_ns = t.median_task_ticks().unwrap() / t.ticks_per_ns;
        // Spinning for 20 us takes at least 20 us; preemption on a shared
        // machine only lengthens a few samples, never the median by 5x.
        assert!((18_000.0..100_000.0).contains(&median_ns), "{}: median {median_ns} ns", p.name);
        let mean_ns = t.mean_task_ns().unwrap();
        assert!(mean_ns > median_ns, "{}: mean {mean_ns} ns, median {median_ns} ns", p.name);
        assert!(t.tasks_stolen <= t.tasks_run, "{}: {t:?}", p.name);
    }
}

/// A task that runs others inside it (here: a phase task whose `join` runs
/// its second half inline) is not sampled as a leaf: on one worker, where
/// every half runs inline, no phase task is a sample at all, under every
/// policy; on two, at most the tasks whose half was stolen and finished
/// before the owner needed it can be.
#[test]
fn tasks_that_run_others_are_not_samples() {
    for p in finegrain::policies() {
        for threads in [1, 2] {
            let pool = Pool::new(threads, p.name).unwrap();
            let ((), s) = pool.measure(|| {
                finegrain::phase(0..400u32, |_, _| {
                    let ((), ()) = finegrain::join(|| spin(Duration::from_micros(5)), || spin(Duration::from_micros(5)));
                });
            });
            let t = s.total();
            if threads == 1 {
                assert_eq!(t.task_samples(), 0, "{}: {t:?}", p.name);
            } else {
                assert!(t.task_samples() < 400, "{}: {t:?}", p.name);
            }
        }
    }
}
