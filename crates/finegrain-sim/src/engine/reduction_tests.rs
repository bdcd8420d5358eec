//! Reduction loops' ends (`reduction.rs`): costed as each policy combines,
//! counted once per loop, and waited for by the loop's caller.

use super::result::Op;
use super::tests::meta;
use super::{simulate, Delivery, SimConfig, SimPolicy, SimResult};
use crate::machine::preset;
use finegrain::taskgraph::{Builder, Lines, Step, TaskGraph};

/// `loops` loops one after the other, each of `leaves` leaves of `leaf`
/// cycles; reductions if `reduce`.
fn loops(loops: u32, leaves: u32, leaf: u64, reduce: bool) -> TaskGraph {
    let mut b = Builder::new(meta());
    for _ in 0..loops {
        let (id, ts) = b.new_loop(leaves, 1, leaves as u64);
        for (i, t) in ts.enumerate() {
            b.work(t, leaf, &[Lines { first: i as u64, count: 1, write: false }]);
        }
        if reduce {
            b.set_reduce(id);
        }
        b.push(0, Step::Loop { id });
    }
    b.finish().unwrap()
}

fn run(g: &TaskGraph, policy: &str, threads: usize, delivery: Delivery) -> SimResult {
    let mut cfg = SimConfig::new(preset("adm-cmp").unwrap(), threads, SimPolicy::parse(policy).unwrap());
    cfg.delivery = delivery;
    simulate(g, &cfg).unwrap_or_else(|e| panic!("{policy} at {threads}: {e}"))
}

#[test]
fn each_reduction_is_counted_once_and_plain_loops_not_at_all() {
    let (plain, reducing) = (loops(5, 256, 500, false), loops(5, 256, 500, true));
    for p in ["ws", "adm-central", "adm-hier", "adm-hier:loops=range", "carbon", "sw-hier", "pdf", "static", "ideal"] {
        for d in [Delivery::Interrupt, Delivery::Poll] {
            let r = run(&reducing, p, 64, d);
            assert_eq!(r.op(Op::Reduction).count, 5, "{p}");
            assert_eq!(r.tasks_run, 1 + 5 * 256, "{p}");
            assert_eq!(run(&plain, p, 64, d).op(Op::Reduction).count, 0, "{p}");
        }
    }
}

#[test]
fn ideal_reduces_for_free_and_the_others_pay() {
    let g = loops(4, 512, 500, true);
    assert_eq!(run(&g, "ideal", 128, Delivery::Interrupt).op(Op::Reduction).cycles, 0);
    for p in ["ws", "carbon", "adm-central", "adm-hier"] {
        assert!(run(&g, p, 128, Delivery::Interrupt).op(Op::Reduction).mean() > 50.0, "{p}");
    }
}

/// ASPLOS 2010, section 6.1: reductions on the managers' messages beat a
/// tree through shared memory, by more as the chip grows (the tree reads
/// a line per child at every level).
#[test]
fn piggybacked_reductions_beat_the_tree_and_the_tree_grows_with_the_chip() {
    let g = loops(4, 512, 500, true);
    let mean = |p: &str, n: usize| run(&g, p, n, Delivery::Interrupt).op(Op::Reduction).mean();
    for n in [64, 128, 256] {
        let (tree, adm) = (mean("carbon", n), mean("adm-hier", n));
        assert!(tree > 2.0 * adm, "{n} threads: tree {tree:.0}, adm-hier {adm:.0}");
        assert!(mean("ws", n) > 2.0 * mean("adm-central", n), "{n} threads");
    }
    assert!(mean("carbon", 256) > 1.5 * mean("carbon", 16));
}

/// The caller goes on only once the value is there: a tree-reduced loop
/// ends later than the same loop whose values nobody combines. (Under
/// `adm-hier` the caller, host of every level's manager, is busy with the
/// starving reports of the loop's end for longer than the value's trip, and
/// the wait can vanish behind them.)
#[test]
fn the_caller_waits_for_the_value() {
    for p in ["ws", "carbon", "adm-central", "adm-hier"] {
        let plain = run(&loops(8, 256, 300, false), p, 128, Delivery::Interrupt);
        let red = run(&loops(8, 256, 300, true), p, 128, Delivery::Interrupt);
        let per = red.op(Op::Reduction).mean();
        assert!(red.makespan >= plain.makespan, "{p}: {} vs {}", red.makespan, plain.makespan);
        if p != "adm-hier" {
            let late = red.makespan - plain.makespan;
            assert!(late as f64 >= 4.0 * per, "{p}: 8 reductions of {per:.0} cycles delay the caller by {late}");
        }
    }
}
