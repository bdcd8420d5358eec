//! `task_group`: spawn and wait as often as the body likes (the C API's
//! `fg_spawn`/`fg_sync`), under every policy.

use finegrain::{task_group, Pool};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let x = AtomicU64::new(0);
    task_group(|g| {
        g.spawn(|| x.store(fib(n - 1), Ordering::Relaxed));
        let y = fib(n - 2);
        g.wait();
        x.load(Ordering::Relaxed) + y
    })
}

#[test]
fn fib_under_every_policy() {
    for p in finegrain::policies() {
        for threads in [1, 3] {
            let pool = Pool::new(threads, p.name).unwrap();
            assert_eq!(pool.install(|| fib(18)), 2584, "{} at {threads} threads", p.name);
        }
    }
}

#[test]
fn waits_again_and_again() {
    let pool = Pool::new(2, "adm-central").unwrap();
    let n = AtomicUsize::new(0);
    pool.install(|| {
        task_group(|g| {
            for round in 1..=20 {
                for _ in 0..round {
                    g.spawn(|| {
                        n.fetch_add(1, Ordering::Relaxed);
                    });
                }
                g.wait();
                assert_eq!(n.load(Ordering::Relaxed), round * (round + 1) / 2, "round {round}");
            }
            // Spawns after the last wait are waited for when the group ends.
            g.spawn(|| {
                n.fetch_add(1000, Ordering::Relaxed);
            });
        })
    });
    assert_eq!(n.into_inner(), 210 + 1000);
}

#[test]
fn a_panic_in_a_child_reaches_the_wait_and_the_pool_goes_on() {
    let pool = Pool::new(2, "ws").unwrap();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            task_group(|g| {
                g.spawn(|| panic!("child"));
                g.wait();
            })
        })
    }));
    assert!(r.is_err());
    assert_eq!(pool.install(|| fib(10)), 55);
}

#[test]
fn outside_any_pool_the_global_pool_runs_it() {
    assert_eq!(fib(12), 144);
}
