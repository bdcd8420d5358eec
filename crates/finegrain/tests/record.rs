//! Recording: every construct maps to the steps `record/mod.rs` documents,
//! results equal the serial run's, footprints do not depend on addresses, and
//! misuse is an error.

use finegrain::record::{self, RecordError};
use finegrain::taskgraph::{LineMap, Meta, SpaceHint, Step, TaskGraph, TaskKind};
use std::sync::atomic::{AtomicU64, Ordering};

fn meta() -> Meta {
    Meta::synthetic("t", "test", 0)
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
    assert!(!g.loops[0].reduce, "a loop for its effects is no reduction");
    assert_eq!(kinds(&g, TaskKind::LoopLeaf), 63);
    let (r, g) = record::record(meta(), || finegrain::reduce(0..1_000_000usize, || 0u64, |i| i as u64, |a, b| a + b)).unwrap();
    assert_eq!(r, 499_999_500_000);
    // The grain of a 256-thread pool: 1e6 / (256 * 64) = 61 iterations.
    assert_eq!(g.loops[0].grain, 61);
    assert!(g.loops[0].reduce, "its leaves' values are combined");
    let method = finegrain::ReduceMethod::Auto;
    let (r, g) = record::record(meta(), || finegrain::reduce_with(method, 0..1000usize, 0u64, |i| i as u64, |a, b| a + b)).unwrap();
    assert_eq!((r, g.loops.len(), g.loops[0].reduce), (499_500, 1, true));
    let n = AtomicU64::new(0);
    let ((), g) = record::record(meta(), || {
        finegrain::for_each_2d([0..30, 0..40], |_, _| {
            n.fetch_add(1, Ordering::Relaxed);
        })
    })
    .unwrap();
    assert_eq!(n.into_inner(), 1200);
    assert_eq!(g.loops.len(), 1);
    assert!(!g.loops[0].reduce);
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

#[test]
fn a_join_spawns_its_second_closure_and_waits_for_it() {
    let ((), g) = record::record(meta(), || {
        finegrain::join(|| (), || ());
    })
    .unwrap();
    let steps: Vec<_> = g.steps_of(0).iter().filter(|s| !matches!(s, Step::Work { .. })).copied().collect();
    assert_eq!(steps, [Step::Spawn { task: 1 }, Step::Wait { latch: 0 }]);
    assert_eq!(g.tasks[1].kind, TaskKind::Join);
    assert_eq!(g.tasks[1].latch, Some(0));
}

#[test]
fn huge_loops_coalesce_into_at_most_max_leaves() {
    let ((), g) = record::record(meta(), || finegrain::for_each_chunk(0..200_000, 1, |_| ())).unwrap();
    assert_eq!(g.loops[0].grain, 4, "ceil(200,000 / 65,536)");
    assert_eq!(g.loops[0].leaves, 50_000);
    assert_eq!(g.loops[0].iterations, 200_000);
    let ((), g) = record::record(meta(), || finegrain::for_each_chunk(0..1_000_000, 1, |_| ())).unwrap();
    assert!(g.loops[0].leaves as usize <= record::MAX_LEAVES);
}

#[test]
fn phases_spawn_from_the_task_that_enqueues() {
    let ((), g) = record::record(meta(), || {
        finegrain::phase([0u32, 0], |ctx, d| {
            if d < 2 {
                ctx.enqueue(d + 1);
                ctx.enqueue(d + 1);
            }
        })
    })
    .unwrap();
    // Two trees of depth 2: 14 tasks; the caller spawns the two roots.
    assert_eq!(kinds(&g, TaskKind::Phase), 14);
    let spawns = |t: u32| g.steps_of(t).iter().filter(|s| matches!(s, Step::Spawn { .. })).count();
    assert_eq!(spawns(0), 2);
    assert!(matches!(g.steps_of(0).iter().rfind(|s| !matches!(s, Step::Work { .. })), Some(Step::Wait { latch: 0 })));
    let inner: usize = (1..g.tasks.len() as u32).map(spawns).sum();
    assert_eq!(inner, 12, "every enqueue is a spawn by the enqueuing task");
}

#[test]
fn graph_edges_become_preds() {
    let ((), g) = record::record(meta(), || {
        let mut gr = finegrain::Graph::new();
        let a = gr.add_node(|_| ());
        let b = gr.add_node(|_| ());
        let c = gr.add_node(|_| ());
        let d = gr.add_node(|_| ());
        gr.add_edge(a, c).unwrap();
        gr.add_edge(b, c).unwrap();
        gr.add_edge(c, d).unwrap();
        gr.run().unwrap();
    })
    .unwrap();
    let preds: Vec<u32> = g.tasks[1..].iter().map(|t| t.preds).collect();
    assert_eq!(preds, [0, 0, 2, 1]);
    assert_eq!(g.succs_of(3), &[4]);
    assert_eq!(g.latch_counts(), vec![4]);
}

#[test]
fn long_footprints_keep_an_evenly_spaced_sample() {
    let data = vec![0u8; 64 * 20_000];
    let ((), g) = record::record(meta(), || {
        // 10,000 separate lines (every other one): more runs than the cap.
        for i in (0..20_000).step_by(2) {
            record::read(&data[i * 64..i * 64 + 1]);
        }
    })
    .unwrap();
    let kept: u64 = g.lines.iter().map(|l| l.count as u64).sum();
    assert!(g.lines.len() <= record::LINE_CAP as usize);
    assert_eq!(kept + g.meta.lines_dropped, 10_000);
    // The sample spans the whole footprint, not just its start.
    let last = g.lines.iter().map(|l| l.first).max().unwrap();
    let first = g.lines.iter().map(|l| l.first).min().unwrap();
    assert!(last - first > 18_000, "{first}..{last}");
}

#[test]
fn recording_twice_gives_the_same_structure() {
    let shape = |g: &TaskGraph| -> Vec<(TaskKind, Vec<Step>)> {
        (0..g.tasks.len() as u32)
            .map(|t| (g.tasks[t as usize].kind, g.steps_of(t).iter().filter(|s| !matches!(s, Step::Work { .. })).copied().collect()))
            .collect()
    };
    let prog =
        || finegrain::scope(|s| s.spawn(|_| assert_eq!(finegrain::reduce(0..10_000usize, || 0u64, |i| i as u64, |a, b| a + b) + fib(8), 49_995_021)));
    let a = record::record(meta(), prog).unwrap().1;
    let b = record::record(meta(), prog).unwrap().1;
    assert_eq!(shape(&a), shape(&b));
    assert_eq!(a.loops, b.loops);
}

#[test]
fn declare_runs_only_while_recording() {
    let ran = std::cell::Cell::new(0);
    record::declare(|| ran.set(ran.get() + 1));
    assert_eq!(ran.get(), 0, "not recording: the block does not run");
    let data = vec![0u64; 1000];
    let ((), g) = record::record(meta(), || {
        record::declare(|| {
            ran.set(ran.get() + 1);
            record::read(&data[..8]);
            // Nested blocks are fine.
            record::declare(|| record::write(&data[500..508]));
        })
    })
    .unwrap();
    assert_eq!(ran.get(), 1);
    // 64 bytes each, one or two lines depending on alignment.
    assert_eq!(g.lines.len(), 2);
    assert!(g.lines[0].count <= 2 && !g.lines[0].write && g.lines[1].write);
    // A panic inside a block leaves the recorder usable.
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| record::record(meta(), || record::declare(|| panic!("boom")))));
    assert!(r.is_err());
    assert_eq!(record::record(meta(), || fib(4)).unwrap().0, 3);
}

/// A task space records one task per point (a scope spawn each), whatever
/// its hint, each with the footprint it declares; a bad hint is still an error.
#[test]
fn task_spaces_record_one_task_per_point() {
    let data = vec![0u64; 4 * 3 * 64];
    let (info, g) = record::record(meta(), || {
        finegrain::TaskSpace::new([4, 3]).flux([8, 1, 0]).run(|[i, j, _]| record::read(&data[(i + 4 * j) * 64..(i + 4 * j + 1) * 64]))
    })
    .unwrap();
    assert_eq!(info.unwrap().tasks, 12);
    assert_eq!(kinds(&g, TaskKind::Scope), 12);
    assert!(g.lines.iter().map(|l| l.count as u64).sum::<u64>() >= 12 * 8);
    g.validate().unwrap();
    assert_eq!(g.spaces.len(), 1);
    assert_eq!(g.spaces[0].dims, [4, 3, 1]);
    assert_eq!(g.spaces[0].hint, SpaceHint::Flux([8, 1, 0]));
    let (r, g) = record::record(meta(), || finegrain::TaskSpace::new([4, 0]).run(|_| {})).unwrap();
    assert!(r.is_err());
    assert!(g.spaces.is_empty() && g.tasks.len() == 1, "a refused space records nothing");
}

/// Every hint is recorded as the managers plan from it, with the space's
/// tasks in linear-index order: the task at position `i` declared the line
/// of point `i` (so the order is checked against the footprints, not
/// against how the recorder numbers tasks).
#[test]
fn task_spaces_record_their_hints_and_tasks_in_index_order() {
    use finegrain::policy::locality::signature::Signature;
    let buf = vec![0u64; 5 * 4 * 2 * 8 + 16];
    // Line-aligned, so that every point's 8 words are one line.
    let data = &buf[(64 - buf.as_ptr() as usize % 64) % 64 / 8..];
    let sigs: Vec<Signature> = (0..40)
        .map(|i| {
            let mut s = [0u64; 16];
            s[i % 16] = 1 << (i % 64);
            s
        })
        .collect();
    let map = |[i, j, k]: [usize; 3]| (i + j * k) as u64 % 7;
    let plan = finegrain::TaskSpace::new([5, 4, 2]).plan(3).unwrap();
    let (_, g) = record::record(meta(), || {
        let body = |[i, j, k]: [usize; 3]| {
            let p = i + 5 * (j + 4 * k);
            record::read(&data[8 * p..8 * p + 8]);
        };
        finegrain::TaskSpace::new([5, 4, 2]).run(body).unwrap();
        finegrain::TaskSpace::new([5, 4, 2]).random(99).run(body).unwrap();
        finegrain::TaskSpace::new([5, 4, 2]).flux([1, 2, 3]).run(body).unwrap();
        finegrain::TaskSpace::new([5, 4, 2]).bins(&map, 0, 6).run(body).unwrap();
        finegrain::TaskSpace::new([5, 4, 2]).signatures(&sigs).run(body).unwrap();
        finegrain::TaskSpace::new([5, 4, 2]).schedule(&plan).run(body).unwrap();
        // Each task also reads the line of its x-neighbour: x shares 1 line.
        let r = finegrain::TaskSpace::new([5, 4, 2])
            .flux_approx()
            .run(|[i, j, k]| {
                let p = i + 5 * (j + 4 * k);
                record::read(&data[8 * p..8 * p + 16]);
            })
            .unwrap();
        assert_eq!(r.sharing, Some([1, 0, 0]));
        // Bad hints are refused while recording as when running.
        assert!(finegrain::TaskSpace::new([5, 4, 2]).signatures(&sigs[..3]).run(body).is_err());
        assert!(finegrain::TaskSpace::new([5, 4, 2]).bins(&map, 0, 3).run(body).is_err());
    })
    .unwrap();
    g.validate().unwrap();
    let hints: Vec<&str> = g.spaces.iter().map(|s| s.hint.manager()).collect();
    assert_eq!(hints, ["baseline", "random", "flux", "binning", "signature", "plan", "flux"]);
    assert_eq!(g.spaces[6].hint, SpaceHint::Flux([1, 0, 0]), "flux_approx records the vector its samples give");
    assert_eq!(g.spaces[1].hint, SpaceHint::Random(99));
    let keys: Vec<u64> = (0..40).map(|i| map([i % 5, (i / 5) % 4, i / 20])).collect();
    assert_eq!(g.spaces[3].hint, SpaceHint::Bins { keys, min: 0, max: 6 });
    assert_eq!(g.spaces[4].hint, SpaceHint::Signatures(sigs.clone()));
    let first_line = |t: u32| {
        let w = g.steps_of(t).iter().find_map(|s| if let Step::Work { lines, .. } = s { Some(*lines) } else { None }).unwrap();
        g.lines_of(w)[0].first
    };
    for sp in &g.spaces[..6] {
        assert_eq!(sp.dims, [5, 4, 2]);
        assert_eq!(sp.tasks.len(), 40);
        let base = first_line(sp.tasks[0]);
        for (i, &t) in sp.tasks.iter().enumerate() {
            assert_eq!(g.tasks[t as usize].kind, TaskKind::Scope);
            assert_eq!(first_line(t), base + i as u64, "task {i} of {}", sp.hint.manager());
        }
    }
}
