//! Every workload records (`finegrain::record`) at the test size: the
//! recorded run's result matches the serial reference, the graph validates,
//! every workload but the pure computations declares a footprint, and every
//! workload marks its measured region (`finegrain::record::region`).

use finegrain::taskgraph::{Clock, LineMap, Meta};
use finegrain_workloads::Size;

/// Workloads whose tasks touch no memory worth declaring.
const PURE: [&str; 2] = ["fib", "sum"];

#[test]
fn every_workload_records_and_declares_its_footprint() {
    for w in finegrain_workloads::all() {
        let inst = w.prepare(Size::Test, 1);
        let reference = inst.serial();
        let meta = Meta {
            workload: w.name().into(),
            size: "test".into(),
            seed: 1,
            clock: Clock::Tsc,
            cycles_per_ns: 0.0,
            line_map: LineMap::PagesByFirstTouch,
            line_cap: 0,
            lines_dropped: 0,
            note: String::new(),
        };
        let (got, g) = finegrain::record::record(meta, || inst.parallel()).unwrap_or_else(|e| panic!("{}: {e}", w.name()));
        inst.check(&reference, &got).unwrap_or_else(|e| panic!("{}: {e}", w.name()));
        g.validate().unwrap();
        assert!(g.tasks.len() > 1, "{}: no tasks", w.name());
        assert!(g.meta.region(), "{}: no measured region (finegrain::record::region) in its parallel()", w.name());
        let lines: u64 = g.lines.iter().map(|l| l.count as u64).sum();
        if PURE.contains(&w.name()) {
            assert_eq!(lines, 0, "{}", w.name());
        } else {
            assert!(lines > 0, "{}: no footprint declared", w.name());
        }
        if w.api() == "mapreduce" {
            map_phase_is_a_space_of_homes(&g, w.name());
        }
        println!("{}: {} tasks, {} loops, {} line runs, {lines} lines", w.name(), g.tasks.len(), g.loops.len(), g.lines.len());
    }
}

/// A MapReduce job's map phase records as a task space hinted with each
/// map task's home, the first line of its chunk, which the task reads.
fn map_phase_is_a_space_of_homes(g: &finegrain::taskgraph::TaskGraph, name: &str) {
    use finegrain::taskgraph::{SpaceHint, Step, NO_HOME};
    assert!(!g.spaces.is_empty(), "{name}: no map phase recorded as a task space");
    for sp in &g.spaces {
        let SpaceHint::Homes(homes) = &sp.hint else { panic!("{name}: a map phase with hint {:?}", sp.hint.manager()) };
        // A chunk that says nothing of its memory (a range of rows) has no home.
        for (&t, &home) in sp.tasks.iter().zip(homes).filter(|(_, &h)| h != NO_HOME) {
            let touched = g.steps_of(t).iter().any(|s| match s {
                Step::Work { lines, .. } => g.lines_of(*lines).iter().any(|l| l.first <= home && home < l.first + l.count as u64),
                _ => false,
            });
            assert!(touched, "{name}: map task {t} does not read its home line {home}");
        }
    }
}
