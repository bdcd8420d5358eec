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
                    ("flux_approx", TaskSpace::new(dims).flux_approx()),
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

#[test]
fn flux_approx_samples_declared_footprints_and_runs_each_task_once() {
    // A 2-D stencil over a 256 x 256 grid of f64, blocks of 16 x 4 cells
    // with a halo of 1: x-neighbours share 2 columns (within the rows'
    // lines), y-neighbours share 2 whole rows of the block's width.
    let (w, h) = (256usize, 256usize);
    let grid = vec![1.0f64; w * h];
    let (bx, by) = (16usize, 4usize);
    let dims = [w / bx, h / by];
    for p in finegrain::policies() {
        let pool = Pool::new(3, p.name).unwrap();
        let c = counts(dims[0] * dims[1]);
        let mut replay = finegrain::Replay::new();
        for round in 0..2 {
            c.iter().for_each(|x| x.store(0, Ordering::Relaxed));
            let info = pool
                .install(|| {
                    TaskSpace::new(dims).flux_approx().replay(&mut replay).run(|[i, j, _]| {
                        let x0 = (i * bx).saturating_sub(1);
                        let x1 = (i * bx + bx + 1).min(w);
                        for y in (j * by).saturating_sub(1)..(j * by + by + 1).min(h) {
                            finegrain::record::read(&grid[y * w + x0..y * w + x1]);
                        }
                        c[i + dims[0] * j].fetch_add(1, Ordering::Relaxed);
                    })
                })
                .unwrap();
            all_once(&c, &format!("{} round {round}", p.name));
            assert_eq!(info.replayed, round == 1);
            let [sx, sy, sz] = info.sharing.expect("flux reports its vector");
            // Rows of 16 cells + halo (18 f64 = 144 bytes: 3-4 lines): the
            // x step shares one or two lines per row (6 rows), the y step
            // two rows' worth of lines.
            assert!(sy > sx && sx > 0 && sz == 0, "{} sharing {:?}", p.name, [sx, sy, sz]);
        }
    }
}

#[test]
fn a_panic_in_a_flux_approx_sample_propagates_after_the_rest_ran() {
    let pool = Pool::new(2, "ws").unwrap();
    let ran = AtomicUsize::new(0);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            TaskSpace::new([10, 10]).flux_approx().run(|[i, j, _]| {
                ran.fetch_add(1, Ordering::Relaxed);
                if (i, j) == (1, 0) {
                    panic!("sample (1, 0)");
                }
            })
        })
    }));
    assert!(r.is_err());
    assert_eq!(ran.load(Ordering::Relaxed), 100);
}

#[test]
fn the_pool_policy_chooses_the_stealing_scheme_a_section_leaves_open() {
    // A worker busy for the whole section leaves its planned tasks to the
    // others. With `space-steal=recursive` a baseline plan's chunk (one
    // group of 1,024 per worker) moves in L1 pieces of 32
    // (`steal::RECURSIVE_PIECE`); with the default baseline scheme, in
    // steals of at most 8.
    for (spec, recursive) in [("ws", false), ("ws:space-steal=recursive", true)] {
        let pool = Pool::new(4, spec).unwrap();
        let c = counts(4096);
        let busy = std::sync::atomic::AtomicBool::new(true);
        let info = pool
            .install(|| {
                let (_, r) = finegrain::join(
                    || {
                        while busy.load(Ordering::Acquire) {
                            std::hint::spin_loop();
                        }
                    },
                    || {
                        let r = TaskSpace::new([4096]).run(|[i, _, _]| {
                            c[i].fetch_add(1, Ordering::Relaxed);
                        });
                        busy.store(false, Ordering::Release);
                        r
                    },
                );
                r
            })
            .unwrap();
        all_once(&c, spec);
        let what = format!("{spec}: {} tasks in {} steals", info.stolen, info.steals);
        assert!(info.stolen >= 1024, "the busy worker's chunk is stolen: {what}");
        if recursive {
            assert_eq!(info.stolen, 32 * info.steals, "whole L1 pieces only: {what}");
        } else {
            assert!(info.stolen <= 8 * info.steals, "at most 8 per steal: {what}");
        }
    }
}
