//! The `static` baseline (`policy::fixed`): every loop is cut into one
//! contiguous block per worker, the root's spawns are dealt round-robin,
//! everything else stays where it was made.

use finegrain::*;
use std::sync::atomic::{AtomicUsize, Ordering::*};
use std::sync::Mutex;

/// The worker that ran each iteration of a loop of `len` under `n` workers.
fn owners(pool: &Pool, len: usize) -> Vec<usize> {
    let who: Vec<AtomicUsize> = (0..len).map(|_| AtomicUsize::new(usize::MAX)).collect();
    let runs = AtomicUsize::new(0);
    pool.install(|| {
        for_each(0..len, |i| {
            runs.fetch_add(1, Relaxed);
            let prev = who[i].swap(current_worker_index().unwrap(), Relaxed);
            assert_eq!(prev, usize::MAX, "iteration {i} ran twice");
        })
    });
    assert_eq!(runs.into_inner(), len, "every iteration exactly once");
    who.into_iter().map(|a| a.into_inner()).collect()
}

/// The workers of `who` in order of their blocks, checking that each worker
/// has one contiguous block.
fn blocks(who: &[usize]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &w in who {
        match out.last_mut() {
            Some((v, len)) if *v == w => *len += 1,
            _ => {
                assert!(out.iter().all(|&(v, _)| v != w), "worker {w} has two blocks: {out:?}");
                out.push((w, 1));
            }
        }
    }
    out
}

#[test]
fn each_worker_runs_one_contiguous_block_of_a_loop() {
    for n in [1, 2, 3, 4, 8] {
        let pool = Pool::new(n, "static").unwrap();
        for len in [1, 5, 100, 1000, 12_345] {
            let who = owners(&pool, len);
            let b = blocks(&who);
            assert_eq!(b.len(), n.min(len), "{n} workers, {len} iterations: {b:?}");
            // Block `i` belongs to the `i`-th worker after the loop's own.
            let first = b[0].0;
            for (i, &(w, _)) in b.iter().enumerate() {
                assert_eq!(w, (first + i) % n, "{b:?}");
            }
            let (lo, hi) = (b.iter().map(|x| x.1).min().unwrap(), b.iter().map(|x| x.1).max().unwrap());
            // Leaves of `grain` iterations are dealt evenly by count.
            let grain = (len / (n * 64)).clamp(1, 1024);
            assert!(hi - lo <= grain, "{n} workers, {len} iterations: {b:?}");
        }
    }
}

#[test]
fn reductions_combine_in_order_and_chunks_keep_their_grain() {
    let pool = Pool::new(4, "static").unwrap();
    pool.install(|| {
        let v: Vec<usize> = fold_chunks(
            0..1001,
            7,
            Vec::new,
            |mut acc, r| {
                assert!(r.len() <= 7 && r.start % 7 == 0, "{r:?}");
                acc.extend(r);
                acc
            },
            |mut a, b| {
                a.extend(b);
                a
            },
        );
        assert_eq!(v, (0..1001).collect::<Vec<_>>());
        assert_eq!(reduce(0..100_000, || 0u64, |i| i as u64, |a, b| a + b), 4_999_950_000);
        let c = AtomicUsize::new(0);
        for_each_2d([0..3, 0..1000], |i, j| {
            assert!(i < 3 && j < 1000);
            c.fetch_add(1, Relaxed);
        });
        for_each_3d([0..0, 0..5, 0..5], |_, _, _| panic!("empty"));
        assert_eq!(c.into_inner(), 3000);
    });
}

#[test]
fn the_roots_spawns_are_dealt_round_robin_and_the_rest_stay() {
    let n = 4;
    let pool = Pool::new(n, "static").unwrap();
    let (root, dealt, nested) = pool.install(|| {
        let root = current_worker_index().unwrap();
        let dealt = Mutex::new(vec![usize::MAX; 10]);
        let nested = Mutex::new(Vec::new());
        scope(|s| {
            for i in 0..10 {
                let (dealt, nested) = (&dealt, &nested);
                s.spawn(move |s| {
                    let me = current_worker_index().unwrap();
                    dealt.lock().unwrap()[i] = me;
                    // Not the root: its spawns stay on its worker.
                    for _ in 0..3 {
                        s.spawn(move |_| nested.lock().unwrap().push((me, current_worker_index().unwrap())));
                    }
                });
            }
        });
        (root, dealt.into_inner().unwrap(), nested.into_inner().unwrap())
    });
    let want: Vec<usize> = (0..10).map(|i| (root + 1 + i) % n).collect();
    assert_eq!(dealt, want);
    assert_eq!(nested.len(), 30);
    assert!(nested.iter().all(|(a, b)| a == b), "{nested:?}");
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn fork_join_and_nested_loops_under_more_workers_than_cores() {
    for _ in 0..20 {
        let pool = Pool::new(8, "static").unwrap();
        pool.install(|| {
            assert_eq!(fib(18), 2584);
            let total = AtomicUsize::new(0);
            for_each(0..64, |i| {
                // A loop inside a piece is cut again, over every worker.
                let s = reduce(0..i * 10, || 0usize, |j| j, |a, b| a + b);
                total.fetch_add(s, Relaxed);
                let (x, y) = join(|| fib(10), || fib(11));
                assert_eq!(x + y, 144);
            });
            let want: usize = (0..64usize).map(|i| (0..i * 10).sum::<usize>()).sum();
            assert_eq!(total.into_inner(), want);
        });
    }
}

#[test]
fn a_panicking_piece_is_resumed_after_every_piece_finished() {
    let pool = Pool::new(4, "static").unwrap();
    let ran = AtomicUsize::new(0);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            for_each(0..4000, |i| {
                ran.fetch_add(1, Relaxed);
                if i == 3000 {
                    panic!("iteration 3000");
                }
            })
        })
    }));
    let msg = r.unwrap_err().downcast::<&str>().map(|b| *b).unwrap_or("?");
    assert_eq!(msg, "iteration 3000");
    // Only the panicking piece stops early.
    assert!(ran.load(Relaxed) >= 3001, "{}", ran.load(Relaxed));
    // The pool still works.
    assert_eq!(pool.install(|| reduce(0..1000, || 0u64, |i| i as u64, |a, b| a + b)), 499_500);
}
