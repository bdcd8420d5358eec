#![cfg(not(loom))]
//! Panics in tasks: where they surface, what has run by then, and that the
//! pool keeps working afterwards. Also nesting of pools and deep recursion.
//!
//! The rule under test (see `join`, `scope`, `phase`, `Graph::run`): a panic in
//! any task of a group reaches the caller of the group only after every other
//! task of the group has finished, so nothing still borrows the caller's stack
//! while it unwinds.

use finegrain::{for_each, join, phase, scope, Graph, Pool};
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use std::time::{Duration, Instant};

#[path = "common/quiet.rs"]
mod quiet;
use quiet::{quiet_expected_panics, EXPECTED};

fn message(p: Box<dyn Any + Send>) -> String {
    match p.downcast::<&str>() {
        Ok(s) => s.to_string(),
        Err(p) => match p.downcast::<String>() {
            Ok(s) => *s,
            Err(_) => "<non-string payload>".into(),
        },
    }
}

/// Run `f` in `pool`, expecting it to panic; returns the panic's message.
fn expect_panic<R: Send>(pool: &Pool, f: impl FnOnce() -> R + Send) -> String {
    quiet_expected_panics();
    match catch_unwind(AssertUnwindSafe(|| pool.install(f))) {
        Ok(_) => panic!("expected a panic, got a value"),
        Err(p) => message(p),
    }
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// The pool still runs work on every worker after a panic went through it.
fn assert_usable(pool: &Pool) {
    assert_eq!(pool.install(|| fib(18)), 2584);
    let seen = AtomicUsize::new(0);
    pool.install(|| {
        for_each(0..10_000, |_| {
            seen.fetch_add(1, Relaxed);
        })
    });
    assert_eq!(seen.load(Relaxed), 10_000);
}

/// Slow enough that the panicking side finishes first and a thief can take it.
fn slow_work(done: &AtomicUsize) {
    std::thread::sleep(Duration::from_millis(2));
    done.fetch_add(1, SeqCst);
}

const POLICIES: &[&str] = &["ws", "ws:order=fifo", "adm-central", "adm-hier:radix=2", "carbon", "sw-hier", "pdf"];

#[test]
fn join_first_closure_panics_after_second_finished() {
    for policy in POLICIES {
        let pool = Pool::new(4, policy).unwrap();
        for _ in 0..20 {
            let done = AtomicUsize::new(0);
            let msg = expect_panic(&pool, || join(|| panic!("a {EXPECTED}"), || slow_work(&done)));
            assert!(msg.starts_with("a "), "{msg}");
            assert_eq!(done.load(SeqCst), 1, "{policy}: join unwound before its second closure finished");
        }
        assert_usable(&pool);
    }
}

#[test]
fn join_second_closure_panics_after_first_finished() {
    for policy in POLICIES {
        let pool = Pool::new(4, policy).unwrap();
        for _ in 0..20 {
            let done = AtomicUsize::new(0);
            let msg = expect_panic(&pool, || join(|| slow_work(&done), || panic!("b {EXPECTED}")));
            assert!(msg.starts_with("b "), "{msg}");
            assert_eq!(done.load(SeqCst), 1, "{policy}");
        }
        assert_usable(&pool);
    }
}

#[test]
fn join_both_closures_panic_first_one_wins() {
    let pool = Pool::new(4, "ws").unwrap();
    for _ in 0..20 {
        let msg = expect_panic(&pool, || join(|| panic!("a {EXPECTED}"), || panic!("b {EXPECTED}")));
        assert!(msg.starts_with("a "), "the first closure's panic is the one resumed, got {msg}");
    }
    assert_usable(&pool);
}

/// Panics at the leaves of a big join tree: many of them, concurrently, on
/// every worker. Exactly one surfaces; every non-panicking leaf still ran.
#[test]
fn join_tree_with_many_panicking_leaves() {
    fn tree(lo: usize, hi: usize, ran: &AtomicUsize) {
        if hi - lo == 1 {
            ran.fetch_add(1, Relaxed);
            if lo % 17 == 3 {
                panic!("leaf {lo} {EXPECTED}");
            }
            return;
        }
        let mid = (lo + hi) / 2;
        join(|| tree(lo, mid, ran), || tree(mid, hi, ran));
    }
    for policy in POLICIES {
        let pool = Pool::new(8, policy).unwrap();
        let ran = AtomicUsize::new(0);
        let msg = expect_panic(&pool, || tree(0, 4096, &ran));
        assert!(msg.starts_with("leaf "), "{msg}");
        // A panicking leaf's sibling subtree still runs (join finishes both
        // sides), so every leaf ran.
        assert_eq!(ran.load(Relaxed), 4096, "{policy}");
        assert_usable(&pool);
    }
}

#[test]
fn scope_body_panics_after_spawned_tasks_finished() {
    for policy in POLICIES {
        let pool = Pool::new(4, policy).unwrap();
        let done = AtomicUsize::new(0);
        let msg = expect_panic(&pool, || {
            scope(|s| {
                for _ in 0..50 {
                    s.spawn(|_| slow_work(&done));
                }
                panic!("body {EXPECTED}");
            })
        });
        assert!(msg.starts_with("body "), "{msg}");
        assert_eq!(done.load(SeqCst), 50, "{policy}: scope unwound while its tasks still ran");
        assert_usable(&pool);
    }
}

#[test]
fn scope_spawned_task_panics_others_still_run() {
    for policy in POLICIES {
        let pool = Pool::new(4, policy).unwrap();
        let done = AtomicUsize::new(0);
        let msg = expect_panic(&pool, || {
            scope(|s| {
                for i in 0..100 {
                    let done = &done;
                    s.spawn(move |s| {
                        if i == 37 {
                            panic!("task 37 {EXPECTED}");
                        }
                        // Tasks spawned by tasks also run to completion.
                        s.spawn(move |_| slow_work(done));
                    });
                }
            })
        });
        assert!(msg.starts_with("task 37"), "{msg}");
        assert_eq!(done.load(SeqCst), 99, "{policy}");
        assert_usable(&pool);
    }
}

#[test]
fn scope_every_task_panics_one_reaches_the_caller() {
    let pool = Pool::new(8, "ws").unwrap();
    let ran = AtomicUsize::new(0);
    let msg = expect_panic(&pool, || {
        scope(|s| {
            for i in 0..500 {
                let ran = &ran;
                s.spawn(move |_| {
                    ran.fetch_add(1, Relaxed);
                    panic!("task {i} {EXPECTED}");
                });
            }
        })
    });
    assert!(msg.starts_with("task "), "{msg}");
    assert_eq!(ran.load(Relaxed), 500);
    assert_usable(&pool);
}

#[test]
fn phase_task_panics_every_task_still_runs_once() {
    for policy in POLICIES {
        let pool = Pool::new(4, policy).unwrap();
        let counts: Vec<AtomicUsize> = (0..1023).map(|_| AtomicUsize::new(0)).collect();
        let msg = expect_panic(&pool, || {
            // A complete binary tree of 1023 tasks; two of them panic after
            // enqueueing their children.
            phase([0u32], |ctx, i| {
                counts[i as usize].fetch_add(1, Relaxed);
                if 2 * i + 2 < 1023 {
                    ctx.enqueue(2 * i + 1);
                    ctx.enqueue(2 * i + 2);
                }
                if i == 5 || i == 600 {
                    panic!("phase task {i} {EXPECTED}");
                }
            })
        });
        assert!(msg.starts_with("phase task "), "{msg}");
        assert!(counts.iter().all(|c| c.load(Relaxed) == 1), "{policy}: a task was lost or repeated after a panic");
        assert_usable(&pool);
    }
}

#[test]
fn graph_node_panics_every_node_still_runs() {
    for policy in POLICIES {
        let pool = Pool::new(4, policy).unwrap();
        let ran: Vec<AtomicBool> = (0..64).map(|_| AtomicBool::new(false)).collect();
        let msg = expect_panic(&pool, || {
            let mut g = Graph::new();
            let ids: Vec<_> = (0..64)
                .map(|i| {
                    let ran = &ran;
                    g.add_node(move |_| {
                        ran[i].store(true, SeqCst);
                        if i == 10 {
                            panic!("node 10 {EXPECTED}");
                        }
                    })
                })
                .collect();
            // A chain through the panicking node, plus a fan-out from it.
            for i in 1..64 {
                g.add_edge(ids[if i > 10 && i % 2 == 0 { 10 } else { i - 1 }], ids[i]).unwrap();
            }
            g.run().unwrap();
        });
        assert!(msg.starts_with("node 10"), "{msg}");
        let missing: Vec<usize> = (0..64).filter(|&i| !ran[i].load(SeqCst)).collect();
        assert!(missing.is_empty(), "{policy}: nodes {missing:?} never ran after node 10 panicked");
        assert_usable(&pool);
    }
}

#[test]
fn loop_body_panic_reaches_caller() {
    let pool = Pool::new(4, "ws").unwrap();
    let msg = expect_panic(&pool, || {
        for_each(0..100_000, |i| {
            if i == 77_777 {
                panic!("iteration {i} {EXPECTED}");
            }
        })
    });
    assert!(msg.starts_with("iteration 77777"), "{msg}");
    assert_usable(&pool);
}

/// join inside scope inside phase inside a graph node: the panic crosses every
/// kind of group on its way out, and each waits for its other tasks.
#[test]
fn nested_groups_panic_crosses_every_level() {
    for policy in POLICIES {
        let pool = Pool::new(4, policy).unwrap();
        let finished = AtomicUsize::new(0);
        let msg = expect_panic(&pool, || {
            let mut g = Graph::new();
            let finished = &finished;
            g.add_node(move |_| {
                phase([0u8, 1, 2], |_, t| {
                    scope(|s| {
                        for k in 0..4 {
                            s.spawn(move |_| {
                                join(
                                    || slow_work(finished),
                                    || {
                                        if t == 1 && k == 2 {
                                            panic!("deep {EXPECTED}");
                                        }
                                        slow_work(finished)
                                    },
                                );
                            });
                        }
                    })
                })
            });
            g.add_node(|_| slow_work(finished));
            g.run().unwrap();
        });
        assert!(msg.starts_with("deep "), "{msg}");
        // 3 phase tasks x 4 spawns x 2 join sides, less the one that panicked,
        // plus the graph's second node.
        assert_eq!(finished.load(SeqCst), 3 * 4 * 2 - 1 + 1, "{policy}");
        assert_usable(&pool);
    }
}

/// A pool's task installs into another pool; a panic there comes back
/// through both.
#[test]
fn nested_pools_install_and_panic() {
    quiet_expected_panics();
    let a = Pool::new(2, "ws").unwrap();
    let b = Pool::new(3, "ws:victim=nearest").unwrap();
    let v = a.install(|| {
        let (x, y) = join(|| b.install(|| fib(15)), || fib(15));
        let inner = b.install(finegrain::current_num_threads);
        (x + y, inner, finegrain::current_num_threads())
    });
    assert_eq!(v, (1220, 3, 2));
    let msg = expect_panic(&a, || b.install(|| join(|| 1, || panic!("in b {EXPECTED}"))));
    assert!(msg.starts_with("in b"), "{msg}");
    assert_usable(&a);
    assert_usable(&b);
}

/// Re-run this test binary for one test, with `FINEGRAIN_TEST_CHILD` set, and
/// give it `limit` to finish. Returns (finished in time, exit status, stderr).
fn run_child(test: &str, limit: Duration) -> (bool, Option<std::process::ExitStatus>, String) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--include-ignored", "--nocapture", "--test-threads=1"])
        .env("FINEGRAIN_TEST_CHILD", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            return (true, Some(status), String::from_utf8_lossy(&out.stderr).into_owned());
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            return (false, None, String::from_utf8_lossy(&out.stderr).into_owned());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn in_child() -> bool {
    std::env::var_os("FINEGRAIN_TEST_CHILD").is_some()
}

/// A → B → A: a task of pool A blocks in `B.install`, whose task installs back
/// into A. With one worker in A, that worker is the one blocked, so the inner
/// install can only finish if a blocked worker keeps running its own pool's
/// work while it waits (rayon's `in_worker_cross`). Run in a child process so
/// that a deadlock fails the test instead of hanging the suite.
#[test]
fn nested_pools_round_trip_does_not_deadlock() {
    if in_child() {
        let a = Pool::new(1, "ws").unwrap();
        let b = Pool::new(2, "ws").unwrap();
        let v = a.install(|| b.install(|| a.install(|| fib(10))));
        assert_eq!(v, 55);
        return;
    }
    let (finished, status, err) = run_child("nested_pools_round_trip_does_not_deadlock", Duration::from_secs(20));
    assert!(finished, "A -> B -> A install deadlocked (pool A's only worker waits for B without running A's work)");
    assert!(status.unwrap().success(), "child failed: {err}");
}

fn deep(n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    let (a, _) = join(|| deep(n - 1), || ());
    a + 1
}

/// Stack bytes one level of `join` recursion costs (measured at depth 1000).
fn join_frame_bytes(pool: &Pool) -> usize {
    fn probe(n: usize, top: usize) -> usize {
        let here = &n as *const usize as usize;
        if n == 0 {
            return top - here;
        }
        join(|| probe(n - 1, top), || ()).0
    }
    pool.install(|| {
        let top = 0usize;
        probe(1000, &top as *const usize as usize) / 1000
    })
}

/// The stack limit on `join` recursion, stated as bytes per level: about 130
/// bytes in release builds (so the default 16 MiB stack holds ~130,000 levels)
/// and about 2.7 KB in debug builds (~6,000 levels). Guards against frames
/// growing unnoticed.
#[test]
fn join_recursion_stack_cost_per_level() {
    for policy in ["ws", "adm-central"] {
        let pool = Pool::new(2, policy).unwrap();
        let per_level = join_frame_bytes(&pool);
        let levels = finegrain::DEFAULT_STACK_SIZE / per_level;
        eprintln!("join recursion under {policy}: {per_level} stack bytes per level, ~{levels} levels on the default stack");
        let limit = if cfg!(debug_assertions) { 4096 } else { 512 };
        assert!(per_level < limit, "{policy}: {per_level} bytes per join level (limit {limit})");
    }
}

/// The default worker stack (`DEFAULT_STACK_SIZE`, 16 MiB) holds a `join`
/// recursion 100,000 deep under `adm-central` in an optimised build (80 bytes
/// per level) and 80,000 under `ws` (about 190 bytes: the public-deque path is
/// a call out of the inlined fast path, with its own frame). A debug build
/// spends ~20x more stack per level, so it is checked at 5,000 there: 10,000
/// overflows the default stack in debug builds.
#[test]
fn join_recursion_deep_on_default_stack() {
    for (policy, deepest) in [("ws", 80_000), ("adm-central", 100_000)] {
        let depths: &[usize] = if cfg!(debug_assertions) { &[5_000] } else { &[10_000, deepest] };
        let pool = Pool::new(2, policy).unwrap();
        for &d in depths {
            assert_eq!(pool.install(|| deep(d)), d, "{policy}");
        }
    }
}

/// `.stack_size(..)` buys proportionally deeper recursion.
#[test]
fn join_recursion_deeper_with_bigger_stack() {
    let depth = if cfg!(debug_assertions) { 50_000 } else { 200_000 };
    let pool = Pool::builder().threads(2).stack_size(256 << 20).build().unwrap();
    assert_eq!(pool.install(|| deep(depth)), depth);
}

/// Overflowing a worker's stack is not a panic: Rust aborts the process with
/// "has overflowed its stack". Checked in a child process with a small stack.
#[test]
fn stack_overflow_aborts_the_process() {
    if in_child() {
        let pool = Pool::builder().threads(1).stack_size(256 << 10).thread_name("tiny").build().unwrap();
        pool.install(|| deep(10_000_000));
        return;
    }
    let (finished, status, err) = run_child("stack_overflow_aborts_the_process", Duration::from_secs(60));
    assert!(finished, "the overflowing child did not exit");
    assert!(!status.unwrap().success());
    assert!(err.contains("overflowed its stack"), "unexpected child stderr: {err}");
}

/// Owned data that counts its drops.
struct Token<'a>(&'a AtomicUsize);

impl Drop for Token<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Relaxed);
    }
}

/// `join` leaves a second closure larger than two words in the caller's frame
/// and gives the job a pointer to it (see `join`). Whatever that closure owns
/// must still be dropped exactly once: when it runs here, when it runs on
/// another worker, and when the first closure panics (the second then still
/// runs, and its panic, if any, is dropped).
#[test]
fn join_large_second_closure_drops_its_captures_once() {
    quiet_expected_panics();
    /// A binary join tree over `lo..hi` whose second closures own a `Token`
    /// and some padding (over two words); with `panics`, some leaves panic.
    fn tree(lo: usize, hi: usize, panics: bool, made: &AtomicUsize, dropped: &AtomicUsize) -> usize {
        if hi - lo == 1 {
            if panics && lo % 61 == 7 {
                panic!("leaf {lo} {EXPECTED}");
            }
            return 1;
        }
        let mid = (lo + hi) / 2;
        made.fetch_add(1, Relaxed);
        let (token, pad) = (Token(dropped), [lo as u64; 3]);
        let (a, b) = join(
            || tree(lo, mid, panics, made, dropped),
            move || {
                let _t = token;
                std::hint::black_box(pad);
                tree(mid, hi, panics, made, dropped)
            },
        );
        a + b
    }
    for policy in POLICIES {
        for threads in [1, 4] {
            let pool = Pool::new(threads, policy).unwrap();
            let (made, dropped) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let r = catch_unwind(AssertUnwindSafe(|| pool.install(|| tree(0, 2048, true, &made, &dropped))));
            assert!(r.is_err(), "{policy}: some leaves panic");
            assert_eq!(dropped.load(SeqCst), made.load(SeqCst), "{policy}, {threads} threads: drops of the second closures' captures");
            // Without panics, every leaf is counted.
            let (made, dropped) = (AtomicUsize::new(0), AtomicUsize::new(0));
            assert_eq!(pool.install(|| tree(0, 4096, false, &made, &dropped)), 4096, "{policy}");
            assert_eq!(dropped.load(SeqCst), made.load(SeqCst), "{policy}, {threads} threads");
        }
    }
}
