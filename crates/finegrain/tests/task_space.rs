//! Task spaces (Yoo's thesis, §4.1 and chapter 5) under every policy: every
//! task runs exactly once with every manager and stealing scheme, with more
//! workers than cores; bad hints and plans are errors; panics propagate
//! after every other task ran.

use finegrain::policy::locality::signature::{mark, Signature};
use finegrain::policy::locality::steal::Stealing;
use finegrain::policy::locality::{chunked, Space};
use finegrain::{Pool, TaskSpace};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

fn counts(n: usize) -> Vec<AtomicU32> {
    (0..n).map(|_| AtomicU32::new(0)).collect()
}

fn all_once(c: &[AtomicU32], what: &str) {
    for (i, x) in c.iter().enumerate() {
        assert_eq!(x.load(Ordering::Relaxed), 1, "{what}: task {i}");
    }
}

#[test]
fn every_task_once_under_every_policy_manager_and_stealing() {
    let dims = [23usize, 17, 5];
    let n = dims.iter().product::<usize>();
    let idx = |[i, j, k]: [usize; 3]| i + dims[0] * (j + dims[1] * k);
    let map = |[i, j, _]: [usize; 3]| ((i * 7 + j * 3) % 50) as u64;
    let sigs: Vec<Signature> = (0..n)
        .map(|t| {
            let mut s = [0; 16];
            mark(&mut s, (t * 31) % 1000, 0, 1000);
            s
        })
        .collect();
    for p in finegrain::policies() {
        for threads in [3, 8] {
            let pool = Pool::new(threads, p.name).unwrap();
            let plan = chunked::random(Space::new(&dims).unwrap(), threads, 9).unwrap();
            for stealing in Stealing::ALL {
                let spaces: Vec<(&str, TaskSpace<'_>)> = vec![
                    ("baseline", TaskSpace::new(dims)),
                    ("random", TaskSpace::new(dims).random(3)),
                    ("flux", TaskSpace::new(dims).flux([4, 2, 1])),
                    ("binning", TaskSpace::new(dims).bins(&map, 0, 49)),
                    ("signature", TaskSpace::new(dims).signatures(&sigs)),
                    ("schedule", TaskSpace::new(dims).schedule(&plan)),
                ];
                for (name, ts) in spaces {
                    let c = counts(n);
                    let info = pool.install(|| {
                        ts.stealing(stealing).run(|p| {
                            c[idx(p)].fetch_add(1, Ordering::Relaxed);
                        })
                    });
                    let info = info.unwrap();
                    all_once(&c, &format!("{} x{threads} {name} {stealing:?}", p.name));
                    assert_eq!(info.tasks, n);
                    assert!(info.stolen <= n);
                }
            }
        }
    }
}

#[test]
fn bad_spaces_hints_and_plans_are_errors() {
    let e = TaskSpace::new([4, 0, 2]).run(|_| {}).unwrap_err();
    assert!(e.to_string().contains("dimension 1 is zero"), "{e}");
    let sigs = vec![[0u64; 16]; 3];
    let e = TaskSpace::new([4]).signatures(&sigs).run(|_| {}).unwrap_err();
    assert!(e.to_string().contains("3 entries") && e.to_string().contains("4 tasks"), "{e}");
    let map = |[i, _, _]: [usize; 3]| i as u64 * 10;
    let e = TaskSpace::new([4]).bins(&map, 0, 20).run(|_| {}).unwrap_err();
    assert!(e.to_string().contains("key 30"), "{e}");
    let other = chunked::baseline(Space::new(&[5]).unwrap(), 2).unwrap();
    let e = TaskSpace::new([4]).schedule(&other).run(|_| {}).unwrap_err();
    assert!(e.to_string().contains("made for"), "{e}");
    assert!(TaskSpace::new([1usize << 20, 1 << 20]).run(|_| {}).is_err());
}

#[test]
fn a_panic_propagates_after_every_other_task_ran() {
    for p in finegrain::policies() {
        let pool = Pool::new(2, p.name).unwrap();
        let ran = AtomicUsize::new(0);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                TaskSpace::new([100]).run(|[i, _, _]| {
                    ran.fetch_add(1, Ordering::Relaxed);
                    if i == 37 {
                        panic!("task 37");
                    }
                })
            })
        }));
        assert!(r.is_err(), "{}", p.name);
        assert_eq!(ran.load(Ordering::Relaxed), 100, "{}", p.name);
    }
}

#[test]
fn a_worker_that_never_dequeues_is_covered_by_stealing() {
    // The thesis's offline-thread experiment in miniature: one worker is
    // busy elsewhere for the whole section, the others steal its tasks.
    for stealing in [Stealing::Baseline, Stealing::Pattern, Stealing::Recursive] {
        let pool = Pool::new(4, "ws").unwrap();
        let c = counts(4096);
        let info = pool
            .install(|| {
                let (_, r) = finegrain::join(
                    || std::thread::sleep(std::time::Duration::from_millis(1)),
                    || {
                        TaskSpace::new([64, 64]).flux([8, 1, 0]).stealing(stealing).run(|[i, j, _]| {
                            c[i + 64 * j].fetch_add(1, Ordering::Relaxed);
                        })
                    },
                );
                r
            })
            .unwrap();
        all_once(&c, &format!("{stealing:?}"));
        assert_eq!(info.manager, "flux");
    }
}
