//! Load balance across repeated loops: every worker must keep getting work.
//!
//! Regression test for a lost starving report under `adm-central`/`adm-hier`:
//! a worker that reported starving while waiting inside a `join`, then resumed
//! the outer task and pushed, believed its manager still knew it was starving,
//! so it parked for good and every later loop ran on one worker (here, 19 of
//! 20 calls under `adm-central` used one worker before the fix, none after).
//!
//! Each call runs several loops in one `install`, as the spmv and cg workloads
//! do. Only whether each worker ran some chunk is checked, not how fast: a
//! worker the OS keeps off the CPU for a whole call only costs that call, so
//! the test asks only that some call after the first 20 of 40 use every
//! worker (the bug never let one do so again). Most calls do on a quiet
//! machine; beside two busy loops on the 2-vCPU VM, `pdf` used both workers
//! in 7 of 20 calls, `carbon` in 10 and `ws` in 11, which the earlier bound
//! (half the calls) failed, and in a release build, where a call takes a
//! fraction of a millisecond, a worker kept off its CPU for a few
//! milliseconds missed all 20 calls of the second half. So the calls go on
//! until one uses every worker, for as long as it takes a preempted worker
//! to run again (a deadline far beyond any time slice), and only a pool that
//! never uses both again within it fails.

use finegrain::Pool;
use std::sync::atomic::{AtomicU64, Ordering};

const POLICIES: &[&str] = &[
    "ws",
    "adm-central",
    "adm-hier",
    "adm-hier:radix=2",
    "adm-central:manager=dedicated",
    "adm-central:underflow=2",
    "adm-hier:radix=2,underflow=4",
    "adm-hier:radix=2,loops=range",
    "carbon",
    "sw-hier",
    "pdf",
];

fn work(v: &[f64]) -> f64 {
    v.iter().map(|x| x.sqrt()).sum()
}

#[test]
fn repeated_loops_use_every_worker() {
    let v: Vec<f64> = (0..200_000).map(|i| (i % 13) as f64).collect();
    let calls = 40;
    for &spec in POLICIES {
        for threads in [2] {
            let pool = Pool::new(threads, spec).unwrap();
            let (mut full, mut late) = (0, 0);
            let start = std::time::Instant::now();
            let mut call = 0;
            while call < calls || (late == 0 && start.elapsed() < std::time::Duration::from_secs(20)) {
                let seen = AtomicU64::new(0);
                let total = AtomicU64::new(0);
                pool.install(|| {
                    for _ in 0..5 {
                        finegrain::for_each_chunk(0..v.len(), 512, |r| {
                            let i = finegrain::current_worker_index().expect("loop bodies run on workers");
                            seen.fetch_or(1 << i, Ordering::Relaxed);
                            total.fetch_add(work(&v[r]) as u64 + 1, Ordering::Relaxed);
                        });
                    }
                });
                assert!(total.into_inner() > 0);
                if seen.into_inner() == (1 << threads) - 1 {
                    full += 1;
                    late += usize::from(call >= calls / 2);
                }
                call += 1;
            }
            eprintln!("{spec} x{threads}: {full} of {call} calls used every worker, {late} after the first {}", calls / 2);
            assert!(late >= 1, "{spec} with {threads} workers: no call after the first {} used every worker ({full} of {call} in all)", calls / 2);
        }
    }
}
