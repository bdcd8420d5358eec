//! Rayon's task API beyond join and scope (issue 29, items 2 and 3):
//! detached and FIFO spawns, `scope_fifo`, `in_place_scope`, broadcasts,
//! yields, pool hooks, and cancellation (scopes and the short-circuiting
//! iterator consumers), each under every registered policy, some with more
//! workers than this machine has cores.

use finegrain::prelude::*;
use finegrain::{CancelToken, Pool, Yield};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};

fn pool(spec: &str, n: usize) -> Pool {
    Pool::builder().threads(n).policy(spec).build().unwrap()
}

/// Detached spawns from outside and inside the pool, nested ones too, all
/// run before the pool's drop returns.
fn detached(spec: &str, n: usize) {
    let ran = Arc::new(AtomicUsize::new(0));
    let p = pool(spec, n);
    for _ in 0..200 {
        let r = ran.clone();
        p.spawn(move || {
            r.fetch_add(1, SeqCst);
        });
    }
    let r2 = ran.clone();
    p.install(move || {
        for i in 0..200 {
            let r = r2.clone();
            if i % 2 == 0 {
                finegrain::spawn(move || {
                    let r3 = r.clone();
                    finegrain::spawn_fifo(move || {
                        r3.fetch_add(1, SeqCst);
                    });
                    r.fetch_add(1, SeqCst);
                });
            } else {
                finegrain::spawn_fifo(move || {
                    r.fetch_add(1, SeqCst);
                });
            }
        }
    });
    drop(p);
    assert_eq!(ran.load(SeqCst), 200 + 200 + 100, "{spec}");
}

/// A detached panic reaches the handler; the pool goes on.
fn spawn_panics(spec: &str) {
    let caught = Arc::new(Mutex::new(Vec::<String>::new()));
    let c = caught.clone();
    let p = Pool::builder()
        .threads(2)
        .policy(spec)
        .panic_handler(move |e| c.lock().unwrap().push(e.downcast_ref::<&str>().unwrap().to_string()))
        .build()
        .unwrap();
    p.spawn(|| panic!("detached"));
    p.install(|| finegrain::spawn_fifo(|| panic!("fifo")));
    p.spawn_broadcast(|ctx| {
        if ctx.index() == 1 {
            panic!("broadcast")
        }
    });
    assert_eq!(p.install(|| finegrain::join(|| 1, || 2)), (1, 2));
    drop(p);
    let mut got = caught.lock().unwrap().clone();
    got.sort();
    assert_eq!(got, ["broadcast", "detached", "fifo"], "{spec}");
}

/// One worker: FIFO spawns start in the order made, detached or scoped.
fn fifo_order(spec: &str) {
    let p = pool(spec, 1);
    let order = Mutex::new(Vec::new());
    p.install(|| {
        finegrain::scope_fifo(|s| {
            for i in 0..50 {
                let order = &order;
                s.spawn_fifo(move |s| {
                    order.lock().unwrap().push(i);
                    if i == 0 {
                        s.spawn_fifo(move |_| order.lock().unwrap().push(50));
                    }
                });
            }
        })
    });
    assert_eq!(order.into_inner().unwrap(), (0..=50).collect::<Vec<_>>(), "{spec}");
    let order = Arc::new(Mutex::new(Vec::new()));
    let o = order.clone();
    p.install(move || {
        for i in 0..50 {
            let o = o.clone();
            finegrain::spawn_fifo(move || o.lock().unwrap().push(i));
        }
    });
    drop(p);
    assert_eq!(*order.lock().unwrap(), (0..50).collect::<Vec<_>>(), "{spec}");
    // Many workers: every FIFO spawn runs once.
    let p = pool(spec, 6);
    let n = AtomicUsize::new(0);
    p.install(|| {
        finegrain::scope_fifo(|s| {
            (0..1000).for_each(|_| {
                s.spawn_fifo(|_| {
                    n.fetch_add(1, SeqCst);
                })
            })
        })
    });
    assert_eq!(n.into_inner(), 1000, "{spec}");
}

fn in_place(spec: &str) {
    let p = pool(spec, 3);
    let me = std::thread::current().id();
    let v = p.install(|| {
        let w = std::thread::current().id();
        let mut v = vec![0u32; 100];
        finegrain::in_place_scope(|s| {
            assert_eq!(std::thread::current().id(), w);
            for (i, x) in v.iter_mut().enumerate() {
                s.spawn(move |_| *x = i as u32);
            }
        });
        finegrain::in_place_scope_fifo(|s| s.spawn_fifo(|_| ()));
        v
    });
    assert_eq!(me, std::thread::current().id());
    assert_eq!(v, (0..100).collect::<Vec<u32>>(), "{spec}");
}

fn broadcasts(spec: &str, n: usize) {
    let p = pool(spec, n);
    // From outside the pool, and from inside it.
    for inside in [false, true] {
        let f = |ctx: finegrain::BroadcastContext| {
            assert_eq!(finegrain::current_thread_index(), Some(ctx.index()));
            (ctx.index(), ctx.num_threads(), std::thread::current().id())
        };
        let v = if inside { p.install(|| finegrain::broadcast(f)) } else { p.broadcast(f) };
        assert_eq!(v.len(), n, "{spec}");
        let ids: std::collections::HashSet<_> = v.iter().map(|t| t.2).collect();
        assert_eq!(ids.len(), n, "{spec}: one call per worker");
        assert!(v.iter().enumerate().all(|(i, t)| t.0 == i && t.1 == n), "{spec}");
    }
    // While the pool is busy with a scope.
    let sum = p.install(|| {
        finegrain::scope(|s| {
            s.spawn(|_| ());
            finegrain::broadcast(|ctx| ctx.index()).into_iter().sum::<usize>()
        })
    });
    assert_eq!(sum, n * (n - 1) / 2);
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    p.spawn_broadcast(move |_| {
        c.fetch_add(1, SeqCst);
    });
    drop(p);
    assert_eq!(count.load(SeqCst), n, "{spec}");
    // A panic in one call reaches the caller after the others.
    let p = pool(spec, n);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        p.broadcast(|ctx| {
            if ctx.index() == 0 {
                panic!("b")
            }
        })
    }));
    assert!(r.is_err());
    assert_eq!(p.install(|| 3), 3);
}

fn yields(spec: &str) {
    assert_eq!(finegrain::yield_now(), None);
    assert_eq!(finegrain::yield_local(), None);
    let p = pool(spec, 1);
    let (a, b, c) = p.install(|| {
        let ran = AtomicUsize::new(0);
        finegrain::scope(|s| {
            s.spawn(|_| {
                ran.fetch_add(1, SeqCst);
            });
            let a = finegrain::yield_local();
            s.spawn(|_| {
                ran.fetch_add(1, SeqCst);
            });
            let b = finegrain::yield_now();
            let c = finegrain::yield_now();
            assert_eq!(ran.load(SeqCst), 2);
            (a, b, c)
        })
    });
    assert_eq!((a, b, c), (Some(Yield::Executed), Some(Yield::Executed), Some(Yield::Idle)), "{spec}");
    // Busy workers yielding to each other do not lose tasks.
    let p = pool(spec, 4);
    let n = AtomicUsize::new(0);
    p.install(|| {
        finegrain::scope(|s| {
            for _ in 0..200 {
                s.spawn(|_| {
                    finegrain::yield_now();
                    n.fetch_add(1, SeqCst);
                });
            }
        })
    });
    assert_eq!(n.into_inner(), 200);
}

fn hooks(spec: &str, n: usize) {
    let (up, down) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (u, d) = (up.clone(), down.clone());
    let p = Pool::builder()
        .threads(n)
        .policy(spec)
        .thread_name(|i| format!("t{i}"))
        .start_handler(move |i| {
            assert_eq!(finegrain::current_thread_index(), Some(i));
            u.fetch_add(1, SeqCst);
        })
        .exit_handler(move |_| {
            d.fetch_add(1, SeqCst);
        })
        .build()
        .unwrap();
    let names = p.broadcast(|ctx| (ctx.index(), std::thread::current().name().map(String::from)));
    assert!(names.iter().all(|(i, name)| name.as_deref() == Some(format!("t{i}").as_str())), "{spec}");
    assert_eq!(p.install(finegrain::current_num_threads), n);
    drop(p);
    assert_eq!((up.load(SeqCst), down.load(SeqCst)), (n, n), "{spec}");
}

/// Counts drops, to show nothing leaks.
struct Counted<'a>(&'a AtomicUsize);
impl Drop for Counted<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

fn cancel(spec: &str, n: usize) {
    // One worker, busy in the body: nothing starts before the cancel.
    let p = pool(spec, 1);
    let (ran, dropped) = (AtomicUsize::new(0), AtomicUsize::new(0));
    p.install(|| {
        finegrain::scope(|s| {
            for _ in 0..10_000 {
                let c = Counted(&dropped);
                let ran = &ran;
                s.spawn(move |_| {
                    let _c = c;
                    ran.fetch_add(1, SeqCst);
                });
            }
            s.cancel();
            assert!(s.is_cancelled());
            let c = Counted(&dropped);
            s.spawn(move |_| drop(c)); // after the cancel: dropped at once
        })
    });
    assert_eq!((ran.load(SeqCst), dropped.load(SeqCst)), (0, 10_001), "{spec}");
    // Many workers and a token: running tasks poll, every started one is
    // joined, every closure dropped once. (The body cancels: a task that
    // waited for another task to cancel could wait for ever under the
    // message policies, whose busy workers answer no steal: docs/blocking.md.)
    let p = pool(spec, n);
    let token = CancelToken::new();
    let (started, dropped, polled) = (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
    p.install(|| {
        finegrain::scope_with_cancel(&token, |s| {
            for _ in 0..5_000 {
                let c = Counted(&dropped);
                let (started, polled) = (&started, &polled);
                s.spawn(move |s| {
                    let _c = c;
                    started.fetch_add(1, SeqCst);
                    while !s.is_cancelled() {
                        std::hint::spin_loop();
                    }
                    polled.fetch_add(1, SeqCst);
                });
            }
            token.cancel();
        })
    });
    assert_eq!(started.load(SeqCst), polled.load(SeqCst), "{spec}: every started task was joined");
    assert_eq!(dropped.load(SeqCst), 5_000, "{spec}: a closure leaked or dropped twice");
    assert!(token.is_cancelled());
    // A cancelled FIFO scope and a panic under cancellation.
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        p.install(|| {
            finegrain::scope_fifo(|s| {
                s.spawn_fifo(|s| {
                    s.cancel();
                    panic!("after cancel")
                });
                for _ in 0..100 {
                    s.spawn_fifo(|_| ());
                }
            })
        })
    }));
    assert!(r.is_err(), "{spec}");
}

/// The short-circuiting consumers stop early: over 10^8 items with a hit in
/// the first 1%, none visits them all. (How many they visit depends on when
/// the part holding the hit is scheduled: mostly near 1%, but up to half
/// under some policies when that part runs late; `find_any_figures` below
/// measures it, and issue 29's 5% is not met under every policy yet.)
fn short_circuit(spec: &str, n: usize) {
    short_circuit_within(spec, n, 1);
}

/// [`short_circuit`], failing above `N / divisor` visits; returns the
/// visits of each consumer.
fn short_circuit_within(spec: &str, n: usize, divisor: u64) -> Vec<(&'static str, usize)> {
    let mut out = Vec::new();
    let p = pool(spec, n);
    const N: u64 = 100_000_000;
    let hit = N / 100 - 1;
    let visits = AtomicUsize::new(0);
    let visit = |x: &u64| {
        visits.fetch_add(1, SeqCst);
        *x
    };
    let mut check = |what: &'static str, visits: &AtomicUsize| {
        let v = visits.swap(0, SeqCst);
        assert!(v < (N / divisor) as usize, "{spec}, {n} workers: {what} visited {v} of {N}");
        out.push((what, v));
    };
    let found = p.install(|| (0..N).into_par_iter().map(|x| visit(&x)).find_any(|&x| x == hit));
    assert_eq!(found, Some(hit));
    check("find_any", &visits);
    assert_eq!(p.install(|| (0..N).into_par_iter().map(|x| visit(&x)).find_first(|&x| x >= hit)), Some(hit));
    check("find_first", &visits);
    assert!(p.install(|| (0..N).into_par_iter().any(|x| visit(&x) == hit)));
    check("any", &visits);
    assert!(!p.install(|| (0..N).into_par_iter().all(|x| visit(&x) != hit)));
    check("all", &visits);
    assert_eq!(p.install(|| (0..N).into_par_iter().try_for_each(|x| if visit(&x) == hit { Err(x) } else { Ok(()) })), Err(hit));
    check("try_for_each", &visits);
    let r = p.install(|| (0..N).into_par_iter().map(|x| if visit(&x) == hit { Err(x) } else { Ok(x) }).try_reduce(|| 0, |a, b| Ok(a.max(b))));
    assert_eq!(r, Err(hit));
    check("try_reduce", &visits);
    out
}

/// Issue 29's figure, release only (the visits depend on how fast the
/// worker holding the hit gets to it while the others search their parts):
/// `cargo test --release -p finegrain --test rayon_api -- --ignored --nocapture --test-threads 1 find_any_figures`.
#[test]
#[ignore = "a measurement: run in release (see the doc comment)"]
fn find_any_figures() {
    for spec in finegrain::policies().map(|p| p.name) {
        for n in [2, 4, 8] {
            let v = short_circuit_within(spec, n, 1);
            let pct: Vec<String> = v.iter().map(|(w, x)| format!("{w} {:.2}%", *x as f64 / 1e6)).collect();
            println!("{spec:>18} {n} workers: {}", pct.join(", "));
        }
    }
}

macro_rules! every_policy {
    ($($m:ident: $spec:literal;)*) => {
        #[test]
        fn every_registered_policy_is_tested() {
            let mut listed: Vec<&str> = vec![$($spec,)*];
            listed.retain(|s| !s.contains(':'));
            listed.sort();
            let mut registered: Vec<&str> = finegrain::policies().map(|p| p.name).collect();
            registered.sort();
            assert_eq!(listed, registered);
        }
        $(
            mod $m {
                #[test]
                fn detached_3_workers() { super::detached($spec, 3) }
                #[test]
                fn detached_9_workers() { super::detached($spec, 9) }
                #[test]
                fn spawn_panics() { super::spawn_panics($spec) }
                #[test]
                fn fifo_order() { super::fifo_order($spec) }
                #[test]
                fn in_place_scope() { super::in_place($spec) }
                #[test]
                fn broadcast_3_workers() { super::broadcasts($spec, 3) }
                #[test]
                fn broadcast_8_workers() { super::broadcasts($spec, 8) }
                #[test]
                fn yields() { super::yields($spec) }
                #[test]
                fn hooks() { super::hooks($spec, 5) }
                #[test]
                fn cancel_4_workers() { super::cancel($spec, 4) }
                #[test]
                fn short_circuit_2_workers() { super::short_circuit($spec, 2) }
                #[test]
                fn short_circuit_4_workers() { super::short_circuit($spec, 4) }
            }
        )*
    };
}

every_policy! {
    ws: "ws";
    ws_paper: "ws-paper";
    adm_central: "adm-central";
    adm_hier: "adm-hier";
    adm_paper_central: "adm-paper-central";
    adm_paper_hier: "adm-paper-hier";
    carbon: "carbon";
    carbon_paper: "carbon-paper";
    pdf: "pdf";
    sw_hier: "sw-hier";
    static_: "static";
}

#[test]
fn in_place_scope_outside_any_pool_runs_here() {
    let me = std::thread::current().id();
    let mut v = [0u8; 64];
    let r = finegrain::in_place_scope(|s| {
        assert_eq!(std::thread::current().id(), me);
        for (i, x) in v.iter_mut().enumerate() {
            s.spawn(move |_| *x = i as u8);
        }
        7
    });
    assert_eq!(r, 7);
    assert!(v.iter().enumerate().all(|(i, &x)| x == i as u8));
    let r = std::panic::catch_unwind(|| finegrain::in_place_scope(|s| s.spawn(|_| panic!("inner"))));
    assert!(r.is_err());
}

#[test]
fn bad_thread_name_is_an_error() {
    let e = Pool::builder().threads(2).thread_name(|i| if i == 1 { "x\0".into() } else { "ok".into() }).build().unwrap_err();
    assert!(matches!(e, finegrain::Error::BadThreadName(_)));
    assert!(Pool::builder().threads(1).thread_name("a\0").build().is_err());
}

/// Issue 29's figure: a cancelled scope of 10^6 pending spawns returns
/// within 10 ms and runs none of them. A timing, so release only:
/// `cargo test --release -p finegrain --test rayon_api -- --ignored --nocapture cancelled_million`.
#[test]
#[ignore = "a timing: run in release (see the doc comment)"]
fn cancelled_million() {
    for spec in finegrain::policies().map(|p| p.name) {
        let p = pool(spec, 1);
        let ran = AtomicUsize::new(0);
        let t = p.install(|| {
            let mut t0 = None;
            finegrain::scope(|s| {
                for _ in 0..1_000_000 {
                    s.spawn(|_| {
                        ran.fetch_add(1, SeqCst);
                    });
                }
                s.cancel();
                t0 = Some(std::time::Instant::now());
            });
            t0.unwrap().elapsed()
        });
        println!("{spec:>18}: cancelled scope of 10^6 pending spawns returned in {:.2} ms, ran {}", t.as_secs_f64() * 1e3, ran.load(SeqCst));
        assert_eq!(ran.load(SeqCst), 0);
    }
}
