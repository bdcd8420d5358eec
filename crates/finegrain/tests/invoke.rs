//! `invoke!` and `invoke_all` under every registered policy.

use finegrain::{invoke, invoke_all, policies, Pool};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

#[path = "common/quiet.rs"]
mod quiet;
use quiet::quiet_expected_panics;

fn pools() -> impl Iterator<Item = (String, Pool)> {
    policies().flat_map(|p| [2, 4].map(|n| (format!("{} x{n}", p.name), Pool::new(n, p.name).unwrap())))
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = finegrain::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn every_arity_returns_its_results_in_order() {
    for (name, pool) in pools() {
        pool.install(|| {
            assert_eq!(invoke!(|| 1, || 2), (1, 2), "{name}");
            assert_eq!(invoke!(|| 1, || "two", || 3.0), (1, "two", 3.0), "{name}");
            assert_eq!(invoke!(|| 1, || 2, || 3, || 4), (1, 2, 3, 4), "{name}");
            assert_eq!(invoke!(|| 1, || 2, || 3, || 4, || 5), (1, 2, 3, 4, 5), "{name}");
            assert_eq!(invoke!(|| 1, || 2, || 3, || 4, || 5, || 6,), (1, 2, 3, 4, 5, 6), "{name}");
            assert_eq!(invoke!(|| 1, || 2, || 3, || 4, || 5, || 6, || 7), (1, 2, 3, 4, 5, 6, 7), "{name}");
            let r = invoke!(|| fib(10), || fib(11), || fib(12), || fib(13), || fib(14), || fib(15), || fib(16), || fib(17));
            assert_eq!(r, (55, 89, 144, 233, 377, 610, 987, 1597), "{name}");
            // Each closure may borrow its own part mutably.
            let mut v = [0u64; 3];
            let [x, y, z] = &mut v;
            invoke!(|| *x = fib(15), || *y = fib(16), || *z = fib(17));
            assert_eq!(v, [610, 987, 1597], "{name}");
        });
    }
}

#[test]
fn invoke_all_runs_each_closure_once() {
    for (name, pool) in pools() {
        for n in [0usize, 1, 2, 3, 7, 13, 64] {
            let hits: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            let fs: Vec<Box<dyn Fn() + Sync + '_>> = (0..n)
                .map(|i| {
                    let h = &hits;
                    Box::new(move || {
                        fib(12);
                        h[i].fetch_add(1, Relaxed);
                    }) as Box<dyn Fn() + Sync>
                })
                .collect();
            let refs: Vec<&(dyn Fn() + Sync)> = fs.iter().map(|f| &**f).collect();
            pool.install(|| invoke_all(&refs));
            assert!(hits.iter().all(|h| h.load(Relaxed) == 1), "{name}, {n} closures");
        }
    }
}

#[test]
fn a_panic_in_any_closure_propagates_after_all_ran() {
    quiet_expected_panics();
    for (name, pool) in pools() {
        for bad in 0..5 {
            let ran = AtomicUsize::new(0);
            let f = |i: usize| {
                let ran = &ran;
                move || {
                    fib(10);
                    ran.fetch_add(1, Relaxed);
                    if i == bad {
                        panic!("closure {i} (expected)");
                    }
                    i
                }
            };
            let r = catch_unwind(AssertUnwindSafe(|| pool.install(|| invoke!(f(0), f(1), f(2), f(3), f(4)))));
            let msg = *r.expect_err(&name).downcast::<String>().unwrap();
            assert_eq!(msg, format!("closure {bad} (expected)"), "{name}");
            assert_eq!(ran.load(Relaxed), 5, "{name}: every closure ran");
            let ran = AtomicUsize::new(0);
            let g = |i: usize| {
                let ran = &ran;
                move || {
                    ran.fetch_add(1, Relaxed);
                    assert!(i != bad, "closure {i} (expected)");
                }
            };
            let (g0, g1, g2, g3, g4) = (g(0), g(1), g(2), g(3), g(4));
            let refs: [&(dyn Fn() + Sync); 5] = [&g0, &g1, &g2, &g3, &g4];
            assert!(catch_unwind(AssertUnwindSafe(|| pool.install(|| invoke_all(&refs)))).is_err(), "{name}");
            assert_eq!(ran.load(Relaxed), 5, "{name}");
        }
        // The pool still works.
        assert_eq!(pool.install(|| invoke!(|| 1, || 2, || 3)), (1, 2, 3), "{name}");
    }
}

#[test]
fn outside_any_pool_it_uses_the_global_pool() {
    assert_eq!(invoke!(|| fib(5), || fib(6), || fib(7)), (5, 8, 13));
}
