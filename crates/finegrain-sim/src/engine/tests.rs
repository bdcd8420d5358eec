//! The engine on small hand-built graphs: every policy finishes every kind of
//! graph, runs every task once, is deterministic, and speeds up.

use super::{simulate, Delivery, SimConfig, SimPolicy};
use crate::machine::preset;
use finegrain::taskgraph::{Builder, Lines, Meta, Step, TaskGraph, TaskId, TaskKind};

pub(super) fn meta() -> Meta {
    Meta::synthetic("hand", "test", 1)
}

/// A binary fork-join tree of `depth` levels with `leaf` cycles per leaf,
/// each leaf writing its own 4 lines.
pub(super) fn tree(depth: u32, leaf: u64) -> TaskGraph {
    fn node(b: &mut Builder, t: TaskId, depth: u32, leaf: u64, next_line: &mut u64) {
        if depth == 0 {
            b.work(t, leaf, &[Lines { first: *next_line, count: 4, write: true }]);
            *next_line += 4;
            return;
        }
        let l = b.latch();
        let child = b.task(TaskKind::Join, Some(l));
        b.push(t, Step::Spawn { task: child });
        node(b, t, depth - 1, leaf, next_line);
        b.push(t, Step::Wait { latch: l });
        node(b, child, depth - 1, leaf, next_line);
    }
    let mut b = Builder::new(meta());
    let mut line = 0;
    node(&mut b, 0, depth, leaf, &mut line);
    b.finish().unwrap()
}

fn a_loop(leaves: u32, leaf: u64) -> TaskGraph {
    let mut b = Builder::new(meta());
    let (id, ts) = b.new_loop(leaves, 1, leaves as u64);
    for (i, t) in ts.enumerate() {
        b.work(t, leaf, &[Lines { first: i as u64 * 2, count: 2, write: false }]);
    }
    b.push(0, Step::Loop { id });
    b.finish().unwrap()
}

/// A wavefront: a `w` x `w` grid of graph nodes, each after its north and west neighbours.
fn wavefront(w: u32, cycles: u64) -> TaskGraph {
    let mut b = Builder::new(meta());
    let l = b.latch();
    let ids: Vec<TaskId> = (0..w * w).map(|_| b.task(TaskKind::Node, Some(l))).collect();
    for i in 0..w {
        for j in 0..w {
            let t = ids[(i * w + j) as usize];
            b.work(t, cycles, &[]);
            if i + 1 < w {
                b.edge(t, ids[((i + 1) * w + j) as usize]);
            }
            if j + 1 < w {
                b.edge(t, ids[(i * w + j + 1) as usize]);
            }
        }
    }
    b.push(0, Step::Spawn { task: ids[0] });
    b.push(0, Step::Wait { latch: l });
    b.finish().unwrap()
}

const POLICIES: [&str; 10] =
    ["ws", "ws:victim=nearest", "adm-central", "adm-hier:radix=4", "adm-hier:radix=4,loops=range", "carbon", "sw-hier", "pdf", "static", "ideal"];

fn run(g: &TaskGraph, policy: &str, threads: usize, delivery: Delivery) -> super::SimResult {
    let mut cfg = SimConfig::new(preset("adm-cmp").unwrap(), threads, SimPolicy::parse(policy).unwrap());
    cfg.delivery = delivery;
    simulate(g, &cfg).unwrap_or_else(|e| panic!("{policy} at {threads}: {e}"))
}

#[test]
fn every_policy_runs_every_task_once() {
    for g in [tree(8, 3000), a_loop(300, 2000), wavefront(12, 1500)] {
        for p in POLICIES {
            for threads in [1, 2, 16] {
                for d in [Delivery::Interrupt, Delivery::Poll] {
                    let r = run(&g, p, threads, d);
                    assert_eq!(r.tasks_run as usize, g.tasks.len(), "{p} at {threads} threads, {d:?}");
                    // (Generated graphs are in the modelled core's cycles.)
                    let work = r.work_cycles;
                    assert!(r.bucket(super::Bucket::Task) >= work * 99 / 100, "{p}: task time below the trace's work");
                    assert!(r.makespan * threads as u64 >= work * 99 / 100, "{p}: faster than the work allows");
                }
            }
        }
    }
}

#[test]
fn a_run_is_deterministic() {
    let g = tree(9, 1000);
    for p in POLICIES {
        let a = run(&g, p, 16, Delivery::Interrupt);
        let b = run(&g, p, 16, Delivery::Interrupt);
        assert_eq!((a.makespan, a.buckets, a.tasks_stolen, a.messages), (b.makespan, b.buckets, b.tasks_stolen, b.messages), "{p}");
    }
}

#[test]
fn coarse_trees_speed_up() {
    let g = tree(10, 20_000);
    // (The static baseline deals only the root's spawns: a binary tree gets two workers.)
    for p in POLICIES.into_iter().filter(|&p| p != "static") {
        let one = run(&g, p, 1, Delivery::Interrupt).makespan as f64;
        let sixteen = run(&g, p, 16, Delivery::Interrupt).makespan as f64;
        eprintln!("{p}: speedup {:.2} at 16 threads", one / sixteen);
        assert!(one / sixteen > 6.0, "{p}: speedup {:.2} at 16 threads", one / sixteen);
    }
}

#[test]
fn polling_delays_a_steal_by_a_whole_task() {
    // Two long leaves at two threads: with interrupts the idle worker gets the
    // second leaf at once; with polling and only the manager's steals (the
    // paper's protocol, `handoff=manager`) it waits until the first one ends.
    let g = a_loop(2, 200_000);
    let int = run(&g, "adm-central", 2, Delivery::Interrupt).makespan;
    let poll = run(&g, "adm-central:handoff=manager", 2, Delivery::Poll).makespan;
    assert!(poll as f64 > 1.6 * int as f64, "poll {poll} vs interrupt {int}");
    assert!(int < 250_000, "interrupts: the two leaves run side by side ({int} cycles)");
}

#[test]
fn a_hand_off_to_an_idle_worker_spares_polling_the_wait() {
    // The runtime's default (`handoff=idle`): the split that offers the second
    // leaf hands it to the sleeping worker in the same step, so polling loses
    // no whole task; `sleeper` does the same here (one sleeper).
    let g = a_loop(2, 200_000);
    let int = run(&g, "adm-central", 2, Delivery::Interrupt).makespan;
    for spec in ["adm-central", "adm-central:handoff=sleeper", "adm-hier:radix=2"] {
        let poll = run(&g, spec, 2, Delivery::Poll).makespan;
        assert!((poll as f64) < 1.25 * int as f64, "{spec}: poll {poll} vs interrupt {int}");
    }
}

#[test]
fn every_worker_time_is_accounted_for() {
    for g in [tree(9, 3000), a_loop(500, 1000), wavefront(10, 2000)] {
        for p in POLICIES {
            for d in [Delivery::Interrupt, Delivery::Poll, Delivery::Uli] {
                let r = run(&g, p, 8, d);
                let total: u64 = r.buckets.iter().sum();
                let expect = 8 * r.makespan;
                let off = (total as f64 - expect as f64).abs() / expect as f64;
                assert!(off < 0.05, "{p} {d:?}: buckets sum to {total}, 8 workers x makespan = {expect}");
            }
        }
    }
}

#[test]
fn a_loop_range_is_cut_for_each_steal() {
    // `loops=range` (ASPLOS 2010, section 4.2): a worker deep in a loop counts
    // its leaves, so one steal moves a share of the range; `split` moves one
    // offered half per steal, and a loop reaches 64 workers only by halves.
    let g = a_loop(2048, 1500);
    for policy in ["adm-hier", "adm-central"] {
        let split = run(&g, policy, 64, Delivery::Interrupt);
        let range = run(&g, &format!("{policy}:loops=range"), 64, Delivery::Interrupt);
        let kinds = |r: &super::SimResult, k: &str| r.message_kinds.iter().find(|m| m.name == k).map_or(0, |m| m.count);
        eprintln!(
            "{policy}: split {} cycles, {} TASKs; range {} cycles, {} TASKs",
            split.makespan,
            kinds(&split, "TASK"),
            range.makespan,
            kinds(&range, "TASK")
        );
        assert_eq!(range.tasks_run, split.tasks_run);
        assert!(kinds(&range, "TASK") < kinds(&split, "TASK"), "{policy}: a cut moves more leaves per message");
        assert!((range.makespan as f64) < 0.9 * split.makespan as f64, "{policy}: {} vs {}", range.makespan, split.makespan);
    }
}

#[test]
fn carbon_hands_a_loop_out_from_one_descriptor() {
    // TQ_ENQUEUE_LOOP (ISCA 2007, section 4.2; the runtime's `gtu/loops.rs`):
    // 64 leaves with S = 8 are eight tasks, each found once, by a dequeue, a
    // prefetch or a steal of half a descriptor, and never split further.
    let g = a_loop(64, 10_000);
    let r = run(&g, "carbon:grain=8", 4, Delivery::Interrupt);
    let found = r.op(super::Op::Dequeue).count + r.op(super::Op::Steal).count;
    assert_eq!(found, 8, "eight tasks of eight leaves");
    assert_eq!(r.tasks_run as usize, g.tasks.len());
    // Split in halves instead, the same loop makes more tasks.
    let split = run(&g, "carbon:grain=8,loops=split", 4, Delivery::Interrupt);
    assert!(split.op(super::Op::Dequeue).count + split.op(super::Op::Steal).count != 8);
}

#[test]
fn a_manager_tree_serves_every_partition() {
    // 32 workers under radix 8: two levels of managers. Every worker must get
    // work (a burst into a partition used to leave the root believing a steal
    // for it still in flight, so half the chip idled).
    let g = crate::trace::synth::generate("tree:depth=12,leaf=2000,inline=1", 42).unwrap();
    let cfg = SimConfig::new(preset("adm-cmp").unwrap(), 32, SimPolicy::parse("adm-hier").unwrap());
    let super::SimPolicy::Runtime(p) = cfg.policy.clone() else { unreachable!() };
    let finegrain::policy::PolicyKind::Adm(a) = p.kind else { unreachable!() };
    let mut sim = super::run::Sim::new(&g, &cfg, Some(p), |_| super::mech::adm::AdmMech::new(32, a)).unwrap();
    sim.run().unwrap();
    for (i, w) in sim.cx.w.iter().enumerate() {
        assert!(w.buckets[super::Bucket::Task as usize] > 0, "worker {i} ran nothing");
    }
}

/// A chain of `n` joins: each task works, then spawns the next and waits for
/// it, so at most one task can run at a time.
fn chain(n: u32, cycles: u64) -> TaskGraph {
    let mut b = Builder::new(meta());
    let mut t: TaskId = 0;
    for i in 0..n {
        b.work(t, cycles, &[Lines { first: i as u64 * 4, count: 4, write: true }]);
        if i + 1 < n {
            let l = b.latch();
            let child = b.task(TaskKind::Join, Some(l));
            b.push(t, Step::Spawn { task: child });
            b.push(t, Step::Wait { latch: l });
            t = child;
        }
    }
    b.finish().unwrap()
}

#[test]
fn ideal_bounds_every_policy_on_a_wide_tree() {
    let g = tree(10, 20_000);
    let serial = run(&g, "ideal", 1, Delivery::Interrupt).makespan as f64;
    let ideal = run(&g, "ideal", 16, Delivery::Interrupt).makespan;
    eprintln!("ideal: speedup {:.2} at 16 threads", serial / ideal as f64);
    assert!(serial / ideal as f64 >= 0.9 * 16.0, "ideal: speedup {:.2} at 16 threads", serial / ideal as f64);
    for p in POLICIES {
        let other = run(&g, p, 16, Delivery::Interrupt).makespan;
        eprintln!("{p}: {other} vs ideal {ideal}");
        assert!(ideal <= other, "{p} ({other} cycles) beats ideal ({ideal} cycles)");
    }
}

#[test]
fn ideal_on_a_chain_is_serial() {
    // On a whole-chip preset (adm-cmp grows its tiles with the threads, so
    // its memory differs between 1 and 16 threads).
    let g = chain(200, 3000);
    let on = |threads| {
        let cfg = SimConfig::new(preset("carbon-ring").unwrap(), threads, SimPolicy::parse("ideal").unwrap());
        simulate(&g, &cfg).unwrap()
    };
    let (serial, wide) = (on(1), on(16));
    assert!(serial.makespan > serial.work_cycles);
    assert_eq!(wide.makespan, serial.makespan, "a chain gains nothing from 16 workers, and loses nothing");
    assert_eq!(wide.tasks_stolen, 0);
}
