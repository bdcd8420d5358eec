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
        println!("{}: {} tasks, {} loops, {} line runs, {lines} lines", w.name(), g.tasks.len(), g.loops.len(), g.lines.len());
    }
}
