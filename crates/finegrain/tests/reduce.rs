#![cfg(not(loom))]
//! `phase_reduce` under every registered policy: results equal the serial
//! reference for many seeds and shapes (flat phases, trees of tasks that
//! enqueue tasks, empty phases, nested phases), every task runs exactly once,
//! panics reach the caller after the phase has drained and the pool stays
//! usable. Both reduction methods are checked where the policy has managers.
//!
//! `FINEGRAIN_REDUCE_SEED` replays one seed; a failure names the policy, pool
//! size, method and seed.

use finegrain::{fold_chunks_with, phase_reduce, phase_reduce_with, policies, reduce_with, Pool, ReduceMethod};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering::*};
use std::time::{Duration, Instant};

#[path = "common/quiet.rs"]
mod quiet;
use quiet::quiet_expected_panics;

/// Every registered policy by name, plus variants that change the managers'
/// shape (a three-level tree at 8 workers).
fn specs() -> Vec<String> {
    let mut v: Vec<String> = policies().map(|p| p.name.to_string()).collect();
    v.push("adm-hier:radix=2".into());
    v.push("adm-central:order=fifo,burst=1".into());
    v.push("adm-central:manager=dedicated".into());
    v.push("adm-hier:radix=2,manager=dedicated".into());
    v.push("adm-central:underflow=2".into());
    v.push("adm-hier:radix=2,underflow=4".into());
    v.push("adm-hier:handoff=manager".into());
    v
}

const METHODS: [ReduceMethod; 3] = [ReduceMethod::Auto, ReduceMethod::Piggyback, ReduceMethod::Tree];

/// Seeds per pool; `FINEGRAIN_REDUCE_ROUNDS` multiplies them (soak runs).
fn rounds(release: usize, debug: usize) -> usize {
    let k: usize = std::env::var("FINEGRAIN_REDUCE_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    k * if cfg!(debug_assertions) { debug } else { release }
}

/// SplitMix64.
#[derive(Clone)]
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo)
    }
}

fn seeds(n: usize) -> Vec<u64> {
    if let Ok(s) = std::env::var("FINEGRAIN_REDUCE_SEED") {
        return vec![s.parse().expect("FINEGRAIN_REDUCE_SEED must be an integer")];
    }
    (0..n as u64).map(|i| 0xA5A5_0000 + i * 7919).collect()
}

/// Aborts the process, naming the run, if it takes longer than two minutes
/// (a lost token would otherwise hang the test forever).
struct Watchdog(std::sync::Arc<AtomicBool>);
impl Watchdog {
    fn arm(what: String) -> Watchdog {
        let armed = std::sync::Arc::new(AtomicBool::new(true));
        let flag = armed.clone();
        std::thread::spawn(move || {
            let t0 = Instant::now();
            while t0.elapsed() < Duration::from_secs(120) {
                std::thread::sleep(Duration::from_millis(50));
                if !flag.load(Relaxed) {
                    return;
                }
            }
            eprintln!("HANG: {what}");
            std::process::abort();
        });
        Watchdog(armed)
    }
}
impl Drop for Watchdog {
    fn drop(&mut self) {
        self.0.store(false, Relaxed);
    }
}

/// Run `work(pool, method, seed)` for every policy, 1..=8 workers, method and seed.
fn for_all(name: &str, per: usize, work: impl Fn(&Pool, ReduceMethod, u64) + Sync) {
    let t0 = Instant::now();
    for spec in specs() {
        for threads in 1..=8 {
            let pool = Pool::new(threads, &spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            for method in METHODS {
                for seed in seeds(per) {
                    let what = format!("{name}: policy {spec:?}, {threads} threads, {method:?}, seed {seed}");
                    let _dog = Watchdog::arm(what.clone());
                    if let Err(p) = catch_unwind(AssertUnwindSafe(|| work(&pool, method, seed))) {
                        eprintln!("FAILED {what}");
                        std::panic::resume_unwind(p);
                    }
                }
            }
        }
    }
    eprintln!("{name}: {:.2?}", t0.elapsed());
}

/// Per-task counters: every task must run exactly once.
struct Counts(Vec<AtomicU32>);
impl Counts {
    fn new(n: usize) -> Counts {
        Counts((0..n).map(|_| AtomicU32::new(0)).collect())
    }
    fn hit(&self, i: usize) {
        self.0[i].fetch_add(1, Relaxed);
    }
    fn check(&self) {
        let bad: Vec<(usize, u32)> = self.0.iter().map(|c| c.load(Relaxed)).enumerate().filter(|&(_, c)| c != 1).collect();
        assert!(bad.is_empty(), "{} of {} tasks ran other than once (first: {:?})", bad.len(), self.0.len(), &bad[..bad.len().min(8)]);
    }
}

fn value(seed: u64, i: u64) -> u64 {
    let mut r = Rng(seed ^ i.wrapping_mul(0x2545_F491_4F6C_DD1D));
    r.next() >> 20
}

/// Burn a little time so that tasks spread over workers.
fn spin(n: u64) -> u64 {
    (0..n).fold(0u64, |a, i| a.wrapping_add(std::hint::black_box(i)))
}

#[test]
fn flat_phases_sum_min_max_equal_serial() {
    for_all("flat", rounds(6, 2), |pool, method, seed| {
        let mut rng = Rng(seed);
        let n = rng.range(1, 600);
        let work = rng.range(0, 300);
        let counts = Counts::new(n as usize);
        let (sum, min, max) = pool.install(|| {
            let sum = phase_reduce_with(
                method,
                0..n,
                0u64,
                |a, b| a.wrapping_add(b),
                |_, i| {
                    counts.hit(i as usize);
                    spin(work);
                    value(seed, i)
                },
            );
            let min = phase_reduce_with(method, 0..n, u64::MAX, u64::min, |_, i| value(seed, i));
            let max = phase_reduce_with(method, (0..n).map(|i| i as u32), i64::MIN, i64::max, |_, i| value(seed, i as u64) as i64 - (1 << 40));
            (sum, min, max)
        });
        counts.check();
        let vals: Vec<u64> = (0..n).map(|i| value(seed, i)).collect();
        assert_eq!(sum, vals.iter().fold(0u64, |a, &b| a.wrapping_add(b)));
        assert_eq!(min, *vals.iter().min().unwrap());
        assert_eq!(max, *vals.iter().max().unwrap() as i64 - (1 << 40));
    });
}

/// A random tree: task `i` enqueues children drawn from the seed; the value of
/// a task depends on its id; ids are assigned by the parent so that every task
/// has a known id and the reference is computed serially the same way.
#[test]
fn tasks_that_enqueue_tasks_equal_serial() {
    for_all("tree", rounds(4, 1), |pool, method, seed| {
        let mut rng = Rng(seed);
        let max_nodes = rng.range(1, 3000) as usize;
        let fan = rng.range(1, 5);
        let roots = rng.range(1, 4) as usize;
        // Serial shape: BFS over ids; node i has children c(i) = next ids.
        let mut children: Vec<(u32, u32)> = Vec::new(); // (first child id, count)
        let mut next = roots as u32;
        let mut i = 0;
        while i < next as usize {
            let mut r = Rng(seed ^ (i as u64) << 7);
            let want = if i < roots { fan.max(2) } else { r.range(0, fan + 1) } as u32;
            let k = want.min(max_nodes as u32 - next.min(max_nodes as u32));
            children.push((next, k));
            next += k;
            i += 1;
        }
        let total = next as usize;
        let counts = Counts::new(total);
        let children = &children;
        let got = pool.install(|| {
            phase_reduce_with(
                method,
                0..roots as u32,
                0u64,
                |a, b| a.wrapping_add(b),
                |ctx, id| {
                    counts.hit(id as usize);
                    let (first, k) = children[id as usize];
                    for c in first..first + k {
                        ctx.enqueue(c);
                    }
                    spin(50);
                    value(seed, id as u64)
                },
            )
        });
        counts.check();
        let want = (0..total as u64).fold(0u64, |a, i| a.wrapping_add(value(seed, i)));
        assert_eq!(got, want, "{total} tasks");
    });
}

#[test]
fn empty_phases_return_the_identity() {
    for_all("empty", 1, |pool, method, _| {
        // (The identity must be neutral for the operator; these are, for
        // the values the bodies would return.)
        let r = pool.install(|| phase_reduce_with(method, std::iter::empty::<u8>(), 17u64, u64::max, |_, _| 1));
        assert_eq!(r, 17);
        // Called from outside any pool: the global pool.
        assert_eq!(phase_reduce_with(method, Vec::<u32>::new(), -3i32, i32::min, |_, _| 1), -3);
        assert_eq!(pool.install(|| phase_reduce_with(method, 0..0u32, 0u64, |a, b| a + b, |_, _| 1)), 0);
    });
}

/// Floats, a phase inside a phase's task, and many phases in a row (the same
/// stack address reused by the next phase).
#[test]
fn nested_and_back_to_back_phases() {
    for_all("nested", rounds(2, 1), |pool, method, seed| {
        let inner_runs = AtomicUsize::new(0);
        let got = pool.install(|| {
            phase_reduce_with(
                method,
                0..8u32,
                0u64,
                |a, b| a + b,
                |_, i| {
                    // Each outer task reduces its own inner phase.
                    let inner = phase_reduce_with(
                        method,
                        0..(i + 1) * 10,
                        0u64,
                        |a, b| a + b,
                        |_, j| {
                            inner_runs.fetch_add(1, Relaxed);
                            j as u64 + seed % 3
                        },
                    );
                    inner * (i as u64 + 1)
                },
            )
        });
        let want: u64 = (0..8u64).map(|i| ((0..(i + 1) * 10).sum::<u64>() + (i + 1) * 10 * (seed % 3)) * (i + 1)).sum();
        assert_eq!(got, want);
        assert_eq!(inner_runs.load(Relaxed), (1..=8).map(|i| i * 10).sum::<usize>());
        for k in 0..50u32 {
            let s = pool.install(|| phase_reduce_with(method, 0..k, 0.0f64, |a, b| a + b, |_, i| i as f64 * 0.5));
            assert_eq!(s, (0..k).map(|i| i as f64 * 0.5).sum::<f64>());
        }
    });
}

/// Two phases at once, in the two halves of a join.
#[test]
fn concurrent_phases() {
    for_all("concurrent", rounds(3, 1), |pool, method, seed| {
        let n = 100 + seed % 200;
        let (a, b) = pool.install(|| {
            finegrain::join(
                || phase_reduce_with(method, 0..n, 0u64, |a, b| a + b, |_, i| i),
                || phase_reduce_with(method, 0..n, 1u64, |a, b| a.max(b), |_, i| i * 3),
            )
        });
        assert_eq!((a, b), (n * (n - 1) / 2, 3 * (n - 1)));
    });
}

#[test]
fn panics_propagate_after_every_task_ran_and_pool_stays_usable() {
    quiet_expected_panics();
    for_all("panics", 1, |pool, method, _| {
        let counts = Counts::new(255);
        let r = catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                phase_reduce_with(
                    method,
                    [0u32],
                    0u64,
                    |a, b| a + b,
                    |ctx, i| {
                        counts.hit(i as usize);
                        if 2 * i + 2 < 255 {
                            ctx.enqueue(2 * i + 1);
                            ctx.enqueue(2 * i + 2);
                        }
                        if i == 3 || i == 200 {
                            panic!("task {i} (expected)");
                        }
                        1
                    },
                )
            })
        }));
        let msg = r.expect_err("a task panicked").downcast::<String>().map(|s| *s).unwrap_or_default();
        assert!(msg.starts_with("task ") && msg.contains("(expected)"), "{msg}");
        counts.check();
        // A panicking operator reaches the caller too.
        let r = catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                phase_reduce_with(method, 0..64u32, 0u32, |a, b| if a + b > 1000 { panic!("op (expected)") } else { a + b }, |_, i| i * 10)
            })
        }));
        assert!(r.is_err(), "the operator panicked");
        // The initial iterator panics part-way: the enqueued tasks still run.
        let ran = AtomicUsize::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            pool.install(|| {
                phase_reduce_with(
                    method,
                    (0..10u32).map(|i| if i == 5 { panic!("iterator (expected)") } else { i }),
                    0u32,
                    |a, b| a + b,
                    |_, _| {
                        ran.fetch_add(1, Relaxed);
                        1
                    },
                )
            })
        }));
        assert!(r.is_err());
        assert_eq!(ran.load(Relaxed), 5);
        // Usable afterwards.
        assert_eq!(pool.install(|| phase_reduce_with(method, 0..1000u64, 0u64, |a, b| a + b, |_, i| i)), 499_500);
    });
}

/// The piggybacked phases above did run concurrently: tasks moved between
/// workers and the managers exchanged messages.
#[test]
fn piggybacked_phases_move_tasks_and_messages() {
    for spec in ["adm-central", "adm-hier:radix=2", "adm-central:manager=dedicated", "adm-hier:radix=2,manager=dedicated"] {
        let pool = Pool::new(4, spec).unwrap();
        let mut moved = 0;
        // Whether a task moves depends on thread timing: with the other tests
        // of this file running beside it on two cores, a worker may not get
        // the CPU during a whole phase. So the rounds go on, with pauses,
        // until one moved (or 40 more rounds found none).
        let min = rounds(20, 5);
        for round in 0..min + 40 {
            if round >= min {
                if moved > 0 {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            let (a, st) = pool.measure(|| {
                phase_reduce(
                    0..400u64,
                    0u64,
                    |a, b| a + b,
                    |_, i| {
                        spin(2000);
                        i
                    },
                )
            });
            assert_eq!(a, 79_800);
            moved += st.total().tasks_stolen;
        }
        assert!(moved > 0, "{spec}: no task moved between workers");
    }
}

/// Loop reductions (`reduce_with`, `fold_chunks_with`): under every policy and
/// method, integer sums equal the serial reference exactly, every iteration
/// is folded exactly once, and a float sum is within rounding of the serial
/// one. Under the message policies `Auto` and `Piggyback` run the loop as a
/// piggybacked phase (partials on the termination messages).
#[test]
fn loop_reductions_equal_serial() {
    for_all("loop", rounds(4, 1), |pool, method, seed| {
        let mut rng = Rng(seed);
        let n = rng.range(0, 20_000) as usize;
        let grain = rng.range(1, 200) as usize;
        let work = rng.range(0, 50);
        let counts = Counts::new(n);
        let (sum, folded, max, fsum) = pool.install(|| {
            let sum = reduce_with(method, 0..n, 0u64, |i| value(seed, i as u64), |a, b| a.wrapping_add(b));
            let folded = fold_chunks_with(
                method,
                0..n,
                grain,
                0u64,
                |a, r| {
                    assert!(r.len() <= grain, "chunk {r:?} longer than the grain {grain}");
                    r.fold(a, |a, i| {
                        counts.hit(i);
                        spin(work);
                        a.wrapping_add(value(seed, i as u64))
                    })
                },
                |a, b| a.wrapping_add(b),
            );
            let max = reduce_with(method, 0..n, i64::MIN, |i| value(seed, i as u64) as i64 - (1 << 40), i64::max);
            let fsum = reduce_with(method, 0..n, 0.0f64, |i| (value(seed, i as u64) % 1000) as f64 * 0.001, |a, b| a + b);
            (sum, folded, max, fsum)
        });
        counts.check();
        let vals: Vec<u64> = (0..n as u64).map(|i| value(seed, i)).collect();
        let want = vals.iter().fold(0u64, |a, &b| a.wrapping_add(b));
        assert_eq!(sum, want);
        assert_eq!(folded, want);
        assert_eq!(max, vals.iter().max().map_or(i64::MIN, |&m| m as i64 - (1 << 40)));
        let fwant: f64 = vals.iter().map(|&v| (v % 1000) as f64 * 0.001).sum();
        assert!((fsum - fwant).abs() <= 1e-9 * fwant.abs().max(1.0), "float sum {fsum} against {fwant}");
    });
}

/// Loop reductions inside loop reductions and inside phases (a piggybacked
/// loop started by a task of a piggybacked phase, and by a task of a loop),
/// with more workers than cores.
#[test]
fn nested_loop_reductions() {
    for spec in specs() {
        let pool = Pool::new(8, &spec).unwrap();
        let _dog = Watchdog::arm(format!("nested loops: {spec}"));
        let got = pool.install(|| {
            phase_reduce(
                0..16u64,
                0u64,
                |a, b| a + b,
                |_, t| {
                    reduce_with(ReduceMethod::Auto, 0..(100 * t as usize), 0u64, |i| i as u64 % 7, |a, b| a + b)
                        + reduce_with(
                            ReduceMethod::Auto,
                            0..50,
                            0u64,
                            |j| reduce_with(ReduceMethod::Auto, 0..j, 0u64, |k| k as u64, |a, b| a + b),
                            |a, b| a + b,
                        )
                },
            )
        });
        let inner: u64 = (0..50u64).map(|j| j * j.saturating_sub(1) / 2).sum();
        let want: u64 = (0..16u64).map(|t| (0..100 * t).map(|i| i % 7).sum::<u64>() + inner).sum();
        assert_eq!(got, want, "{spec}");
    }
}

/// Piggybacked loops do split: with slow iterations some chunks run on a
/// worker other than the caller's.
#[test]
fn piggybacked_loops_move_work() {
    for spec in ["adm-central", "adm-hier:radix=2", "adm-central:manager=dedicated"] {
        let pool = Pool::new(4, spec).unwrap();
        let mut moved = 0;
        for round in 0..60 {
            if round >= 5 && moved > 0 {
                break;
            }
            let (s, st) = pool.measure(|| {
                reduce_with(
                    ReduceMethod::Piggyback,
                    0..4000,
                    0u64,
                    |i| {
                        spin(2000);
                        i as u64
                    },
                    |a, b| a + b,
                )
            });
            assert_eq!(s, 3999 * 4000 / 2);
            moved += st.total().tasks_stolen;
            if moved == 0 {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        assert!(moved > 0, "{spec}: no part of the loop moved between workers");
    }
}
