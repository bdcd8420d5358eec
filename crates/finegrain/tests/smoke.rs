use finegrain::*;
use std::sync::atomic::{AtomicUsize, Ordering::*};

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn smoke_all_apis() {
    for (t, spec) in [1, 2, 8]
        .into_iter()
        .flat_map(|t| ["ws", "adm-central", "adm-hier:radix=2", "adm-hier", "carbon", "sw-hier", "pdf", "static"].map(move |p| (t, p)))
    {
        eprintln!("{spec} x{t}");
        let pool = Pool::new(t, spec).unwrap();
        pool.install(|| {
            assert_eq!(fib(20), 6765);
            let mut v = vec![0usize; 100];
            scope(|s| {
                for (i, x) in v.iter_mut().enumerate() {
                    s.spawn(move |_| *x = i * 2);
                }
            });
            assert!(v.iter().enumerate().all(|(i, x)| *x == i * 2));
            let c = AtomicUsize::new(0);
            for_each(0..10_000, |_| {
                c.fetch_add(1, Relaxed);
            });
            assert_eq!(c.load(Relaxed), 10_000);
            assert_eq!(reduce(0..100_000, || 0u64, |i| i as u64, |a, b| a + b), 4_999_950_000);
            let c = AtomicUsize::new(0);
            for_each_3d([0..7, 0..9, 0..11], |_, _, _| {
                c.fetch_add(1, Relaxed);
            });
            assert_eq!(c.load(Relaxed), 693);
            let c = AtomicUsize::new(0);
            phase([0u32], |ctx, d| {
                c.fetch_add(1, Relaxed);
                if d < 12 {
                    ctx.enqueue(d + 1);
                    ctx.enqueue(d + 1);
                }
            });
            assert_eq!(c.load(Relaxed), (1 << 13) - 1);
            let order = std::sync::Mutex::new(Vec::new());
            let mut g = Graph::new();
            let a = g.add_node(|_| order.lock().unwrap().push(0));
            let b = g.add_node(|ctx| {
                order.lock().unwrap().push(1);
                let n = ctx.add_node(|_| order.lock().unwrap().push(3));
                ctx.add_edge(NodeId(2), n).unwrap();
            });
            let c2 = g.add_node(|_| order.lock().unwrap().push(2));
            g.add_edge(a, b).unwrap();
            g.add_edge(b, c2).unwrap();
            g.run().unwrap();
            assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3]);
        });
        let s = pool.stats();
        let tot = s.total();
        assert_eq!(tot.enqueues, tot.tasks_run, "{s:?}");
    }
}

#[test]
fn panics_propagate() {
    for spec in ["ws", "adm-central", "adm-hier:radix=2", "carbon", "sw-hier", "pdf"] {
        let pool = Pool::new(2, spec).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.install(|| join(|| 1, || panic!("boom")))));
        assert!(r.is_err());
        assert_eq!(pool.install(|| fib(15)), 610);
    }
}
