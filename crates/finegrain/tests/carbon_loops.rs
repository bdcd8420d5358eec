#![cfg(not(loom))]
//! Carbon's TQ_ENQUEUE_LOOP (`gtu/loops.rs`): under `carbon` and its
//! variants (granularities, a one-task deque that overflows at every
//! enqueue, no prefetch buffer, an unstealable buffer, and `loops=split`
//! for reference), and ADM's loops counted by chunks and cut when a steal
//! asks (`adm-*:loops=range`, `adm/victim.rs`), with more workers than cores: every iteration runs
//! exactly once for every length up to 300 and a spread of larger ones;
//! `for_each_chunk` keeps its chunk bound; reductions combine in iteration
//! order (a non-commutative combine); nested loops, loops inside joins and
//! 2-D loops are complete; a panic in a body reaches the caller after the
//! loop has drained, and the pool stays usable.

use finegrain::{for_each, for_each_2d, for_each_chunk, join, reduce, Pool};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};

#[path = "common/quiet.rs"]
mod quiet;
use quiet::quiet_expected_panics;

const SPECS: &[&str] = &[
    "carbon",
    "carbon:grain=1",
    "carbon:grain=7",
    "carbon:grain=1000",
    "carbon:deque=1,limit=1",
    "carbon:deque=2,limit=1,grain=3",
    "carbon:prefetch=0",
    "carbon:prefetch-steal=no",
    "carbon:loops=split",
    "adm-central:loops=range",
    "adm-hier:radix=2,loops=range",
    "adm-central:loops=range,burst=1,handoff=manager",
];

fn pools() -> Vec<(String, Pool)> {
    let mut v = Vec::new();
    for spec in SPECS {
        for threads in [1, 3, 8] {
            let pool = Pool::new(threads, spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            v.push((format!("{spec} at {threads}"), pool));
        }
    }
    v
}

fn lengths() -> impl Iterator<Item = usize> {
    (0..=300).chain([1023, 1024, 1025, 4096, 10_007, 65_536])
}

#[test]
fn every_iteration_exactly_once() {
    for (name, pool) in pools() {
        for n in lengths() {
            let hits: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
            pool.install(|| {
                for_each(0..n, |i| {
                    hits[i].fetch_add(1, Relaxed);
                })
            });
            for (i, h) in hits.iter().enumerate() {
                assert_eq!(h.load(Relaxed), 1, "{name}: n={n}, iteration {i}");
            }
            // An offset range.
            let hits: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
            pool.install(|| {
                for_each(1000..1000 + n, |i| {
                    hits[i - 1000].fetch_add(1, Relaxed);
                })
            });
            assert!(hits.iter().all(|h| h.load(Relaxed) == 1), "{name}: n={n} at 1000");
        }
    }
}

#[test]
fn chunks_cover_the_range_within_their_bound() {
    for (name, pool) in pools() {
        for (n, g) in [(0, 1), (1, 1), (100, 7), (1000, 16), (999, 1000), (5000, 3)] {
            let hits: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
            pool.install(|| {
                for_each_chunk(0..n, g, |r| {
                    assert!(!r.is_empty() && r.len() <= g, "{name}: chunk {r:?} over {g}");
                    for i in r {
                        hits[i].fetch_add(1, Relaxed);
                    }
                })
            });
            assert!(hits.iter().all(|h| h.load(Relaxed) == 1), "{name}: n={n} g={g}");
        }
    }
}

#[test]
fn reductions_combine_in_iteration_order() {
    for (name, pool) in pools() {
        for n in [0, 1, 2, 17, 255, 1000, 20_000] {
            let sum = pool.install(|| reduce(0..n, || 0u64, |i| i as u64, |a, b| a + b));
            assert_eq!(sum, (0..n as u64).sum::<u64>(), "{name}: n={n}");
            // Not commutative: (first, last) of a run of consecutive
            // integers; combining out of order breaks the run.
            let run = pool.install(|| {
                reduce(
                    0..n,
                    || None::<(usize, usize)>,
                    |i| Some((i, i)),
                    |a, b| match (a, b) {
                        (None, x) | (x, None) => x,
                        (Some((a0, a1)), Some((b0, b1))) => {
                            assert_eq!(a1 + 1, b0, "{name}: out of order");
                            Some((a0, b1))
                        }
                    },
                )
            });
            assert_eq!(run, if n == 0 { None } else { Some((0, n - 1)) }, "{name}: n={n}");
        }
    }
}

#[test]
fn nested_loops_joins_and_2d() {
    for (name, pool) in pools() {
        let count = AtomicUsize::new(0);
        pool.install(|| {
            for_each(0..40, |i| {
                for_each(0..i, |_| {
                    count.fetch_add(1, Relaxed);
                });
            })
        });
        assert_eq!(count.load(Relaxed), (0..40).sum::<usize>(), "{name}: nested");

        let count = AtomicUsize::new(0);
        pool.install(|| {
            join(
                || {
                    for_each(0..3000, |_| {
                        count.fetch_add(1, Relaxed);
                    })
                },
                || {
                    join(
                        || {
                            for_each(0..500, |_| {
                                count.fetch_add(1, Relaxed);
                            })
                        },
                        || {
                            for_each(0..77, |j| {
                                for_each(0..j % 5, |_| {
                                    count.fetch_add(1, Relaxed);
                                })
                            })
                        },
                    )
                },
            )
        });
        let inner: usize = (0..77).map(|j| j % 5).sum();
        assert_eq!(count.load(Relaxed), 3500 + inner, "{name}: loops in joins");

        let hits: Vec<AtomicU32> = (0..37 * 53).map(|_| AtomicU32::new(0)).collect();
        pool.install(|| {
            for_each_2d([0..37, 0..53], |i, j| {
                hits[i * 53 + j].fetch_add(1, Relaxed);
            })
        });
        assert!(hits.iter().all(|h| h.load(Relaxed) == 1), "{name}: 2-D");
    }
}

#[test]
fn a_panic_in_a_body_reaches_the_caller_after_the_loop_drains() {
    quiet_expected_panics();
    for (name, pool) in pools() {
        for n in [1, 10, 1000, 10_000] {
            let ran = AtomicUsize::new(0);
            let r = catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| {
                    for_each(0..n, |i| {
                        ran.fetch_add(1, Relaxed);
                        if i == n / 2 {
                            panic!("body {i} (expected)");
                        }
                    })
                })
            }));
            let msg = r.expect_err("the panic comes back").downcast::<String>().map(|s| *s).unwrap_or_default();
            assert_eq!(msg, format!("body {} (expected)", n / 2), "{name}");
            // The loop's other chunks still ran to the end (at least
            // the iterations of every chunk but the one that panicked).
            assert!(ran.load(Relaxed) >= 1, "{name}");
            // A nested panic, in a reduction.
            let r = catch_unwind(AssertUnwindSafe(|| {
                pool.install(|| reduce(0..n, || 0u64, |i| if i + 1 == n { panic!("last (expected)") } else { i as u64 }, |a, b| a + b))
            }));
            assert!(r.is_err(), "{name}");
            // Still usable.
            assert_eq!(pool.install(|| reduce(0..n, || 0usize, |_| 1, |a, b| a + b)), n, "{name}");
        }
    }
}
