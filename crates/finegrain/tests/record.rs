//! Recording: every construct maps to the steps `record/mod.rs` documents,
//! results equal the serial run's, footprints do not depend on addresses, and
//! misuse is an error.

use finegrain::record::{self, RecordError};
use finegrain::taskgraph::{Clock, LineMap, Meta, Step, TaskGraph, TaskKind};
use std::sync::atomic::{AtomicU64, Ordering};

fn meta() -> Meta {
    Meta {
        workload: "t".into(),
        size: "test".into(),
        seed: 0,
        clock: Clock::Synthetic,
        cycles_per_ns: 0.0,
        line_map: LineMap::Synthetic,
        line_cap: 0,
        lines_dropped: 0,
        note: String::new(),
    }
}

fn kinds(g: &TaskGraph, k: TaskKind) -> usize {
    g.tasks.iter().filter(|t| t.kind == k).count()
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = finegrain::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn fib_records_one_task_per_join() {
    let (v, g) = record::record(meta(), || fib(15)).unwrap();
    assert_eq!(v, 610);
    // fib(n) makes fib(n+1) - 1 joins.
    assert_eq!(kinds(&g, TaskKind::Join), 986);
    assert_eq!(g.tasks.len(), 987);
    assert!(g.total_cycles() > 0);
    assert_eq!(g.meta.line_map, LineMap::PagesByFirstTouch);
    g.validate().unwrap();
}

#[test]
fn loops_keep_their_range_as_leaves() {
    let sum = AtomicU64::new(0);
    let ((), g) = record::record(meta(), || {
        finegrain::for_each_chunk(0..1000, 16, |r| {
            sum.fetch_add(r.map(|i| i as u64).sum(), Ordering::Relaxed);
        })
    })
    .unwrap();
    assert_eq!(sum.into_inner(), 499_500);
    assert_eq!(g.loops.len(), 1);
    assert_eq!(g.loops[0].leaves, 63, "ceil(1000 / 16)");
    assert_eq!(kinds(&g, TaskKind::LoopLeaf), 63);
    let (r, g) = record::record(meta(), || finegrain::reduce(0..1_000_000usize, || 0u64, |i| i as u64, |a, b| a + b)).unwrap();
    assert_eq!(r, 499_999_500_000);
    // The grain of a 256-thread pool: 1e6 / (256 * 64) = 61 iterations.
    assert_eq!(g.loops[0].grain, 61);
    let n = AtomicU64::new(0);
    let ((), g) = record::record(meta(), || {
        finegrain::for_each_2d([0..30, 0..40], |_, _| {
            n.fetch_add(1, Ordering::Relaxed);
        })
    })
    .unwrap();
    assert_eq!(n.into_inner(), 1200);
    assert_eq!(g.loops.len(), 1);
}

#[test]
fn scopes_phases_and_graphs() {
    let hits = AtomicU64::new(0);
    let ((), g) = record::record(meta(), || {
        finegrain::scope(|s| {
            for _ in 0..5 {
                s.spawn(|s| {
                    hits.fetch_add(1, Ordering::Relaxed);
                    s.spawn(|_| {
                        hits.fetch_add(1, Ordering::Relaxed);
                    });
                });
            }
        })
    })
    .unwrap();
    assert_eq!(hits.load(Ordering::Relaxed), 10);
    assert_eq!(kinds(&g, TaskKind::Scope), 10);
    assert_eq!(g.latch_counts(), vec![10], "one latch counts every task of the scope");

    let nodes = AtomicU64::new(0);
    let ((), g) = record::record(meta(), || {
        finegrain::phase([0u32], |ctx, d| {
            nodes.fetch_add(1, Ordering::Relaxed);
            if d < 6 {
                ctx.enqueue(d + 1);
                ctx.enqueue(d + 1);
            }
        })
    })
    .unwrap();
    assert_eq!(nodes.into_inner(), 127);
    assert_eq!(kinds(&g, TaskKind::Phase), 127);
    let (max, _) = record::record(meta(), || finegrain::phase_reduce(0..100u32, 0u32, u32::max, |_, i| i)).unwrap();
    assert_eq!(max, 99);

    let order = std::sync::Mutex::new(Vec::new());
    let ((), g) = record::record(meta(), || {
        let mut gr = finegrain::Graph::new();
        let a = gr.add_node(|_| order.lock().unwrap().push('a'));
        let b = gr.add_node(|_| order.lock().unwrap().push('b'));
        let c = gr.add_node(|_| order.lock().unwrap().push('c'));
        gr.add_edge(a, c).unwrap();
        gr.add_edge(b, c).unwrap();
        gr.run().unwrap();
    })
    .unwrap();
    assert_eq!(*order.lock().unwrap(), ['a', 'b', 'c']);
    assert_eq!(kinds(&g, TaskKind::Node), 3);
    let c = g.tasks.iter().position(|t| t.kind == TaskKind::Node && t.preds == 2).expect("c waits for two");
    assert!(g.steps_of(0).iter().filter(|s| matches!(s, Step::Spawn { .. })).count() == 2 && c > 0);
}

#[test]
fn footprints_do_not_depend_on_addresses() {
    let run = || {
        let data: Vec<u64> = (0..10_000).collect();
        let out: Vec<u64> = vec![0; 10_000];
        record::record(meta(), || {
            finegrain::for_each_chunk(0..data.len(), 1000, |r| {
                record::read(&data[r.clone()]);
                record::write(&out[r]);
            })
        })
        .unwrap()
        .1
    };
    let (a, b) = (run(), run());
    assert_eq!(a.lines, b.lines);
    let lines: u64 = a.lines.iter().map(|l| l.count as u64).sum();
    // 80,000 bytes read and 80,000 written: 1,250 lines each, give or take
    // the chunks' ends sharing lines.
    assert!((2500..2600).contains(&lines), "{lines}");
    // Not recording: the declarations do nothing.
    record::read(&[1u8, 2, 3]);
}

#[test]
fn misuse_is_an_error_and_panics_propagate() {
    let pool = finegrain::Pool::new(2, "ws").unwrap();
    assert_eq!(pool.install(|| record::record(meta(), || ()).map(|_| ())).unwrap_err(), RecordError::InsidePool);
    let nested = record::record(meta(), || record::record(meta(), || ()).map(|_| ()).unwrap_err()).unwrap().0;
    assert_eq!(nested, RecordError::Nested);
    let r = std::panic::catch_unwind(|| record::record(meta(), || finegrain::join(|| (), || panic!("boom"))));
    assert!(r.is_err());
    assert!(!record::active(), "the recorder is cleared after a panic");
    // And recording works again afterwards.
    assert_eq!(record::record(meta(), || fib(5)).unwrap().0, 5);
}
