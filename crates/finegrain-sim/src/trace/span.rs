//! Work and span of a task graph: the bound every schedule is held to.
//!
//! In the terms of Cilkscale (OpenCilk's scalability analyzer, the successor
//! of He, Leiserson, Leiserson, "The Cilkview scalability analyzer", SPAA
//! 2010, section 2): the **work** is the total cost of every task's own steps (the
//! graph at one processor), the **span** is the length of the longest chain
//! of dependent work (the graph at infinitely many processors with zero
//! scheduling cost), and the **parallelism** is their ratio: the speedup no
//! scheduler can exceed, at any thread count. The **root's share** is the
//! part of the work the root task does itself, outside every parallel
//! construct (serial set-up, the code between constructs), which caps the
//! speedup by Amdahl's law.
//!
//! The span is exact over every construct a trace has, computed by running
//! the graph with one processor per ready task and no cost but the steps' own:
//!
//! - a spawned task starts at its spawn point;
//! - a `Wait` ends when every task counted by its latch has ended (or at once
//!   if they have);
//! - a `Loop` runs all its leaves in parallel from the step's start and
//!   continues when the last ends;
//! - a graph node starts when its last predecessor ends;
//! - task spaces are scopes (their tasks are spawned), and so need nothing of
//!   their own.
//!
//! Every task is visited once and every step once, in an order of our
//! choosing (a stack of ready tasks): the times are maxima over
//! predecessors, so the order does not change them.

use finegrain::taskgraph::{LoopId, Step, TaskGraph, TaskId, TaskKind};

/// Work, span and what follows from them (see the module doc). Costs are in
/// the trace's own unit ([`finegrain::taskgraph::Meta::clock`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct WorkSpan {
    /// The sum of every work step.
    pub work: u64,
    /// The longest chain of dependent work.
    pub span: u64,
    /// `work / span` (0 for a graph with no work).
    pub parallelism: f64,
    /// The root task's own work steps.
    pub root_work: u64,
    /// `root_work / work` (0 for a graph with no work).
    pub serial_share: f64,
    /// Tasks that never became ready or never ended (a cycle among graph
    /// edges, a wait on a latch whose tasks never end): 0 for any graph the
    /// simulator can run to its end; otherwise the span covers the rest.
    pub stuck: usize,
}

impl std::fmt::Display for WorkSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "work {:.2} M, span {:.3} M, parallelism {:.0}, root's own work {:.2}% of the work",
            self.work as f64 / 1e6,
            self.span as f64 / 1e6,
            self.parallelism,
            100.0 * self.serial_share
        )?;
        if self.stuck > 0 {
            write!(f, " ({} tasks never end: the span covers the others)", self.stuck)?;
        }
        Ok(())
    }
}

/// A task parked at a step: (task, next step, time).
type Parked = (TaskId, usize, u64);

/// Work and span of `g` (see the module doc). Linear in the graph's tasks,
/// steps and edges; never panics on a graph that passes
/// [`TaskGraph::validate`].
pub fn work_span(g: &TaskGraph) -> WorkSpan {
    let n = g.tasks.len();
    let mut latch_left = g.latch_counts();
    let mut latch_end = vec![0u64; latch_left.len()];
    let mut latch_parked: Vec<Vec<Parked>> = vec![Vec::new(); latch_left.len()];
    let mut loop_of = vec![LoopId::MAX; n];
    for l in 0..g.loops.len() {
        for t in g.leaves_of(l as LoopId) {
            if let Some(slot) = loop_of.get_mut(t as usize) {
                *slot = l as LoopId;
            }
        }
    }
    let mut loop_left = vec![0u32; g.loops.len()];
    let mut loop_end = vec![0u64; g.loops.len()];
    let mut loop_parked: Vec<Option<Parked>> = vec![None; g.loops.len()];
    let mut preds_left: Vec<u32> = g.tasks.iter().map(|t| t.preds).collect();
    let mut ready_at = vec![0u64; n];

    let mut stack: Vec<Parked> = Vec::new();
    if n > 0 {
        stack.push((0, 0, 0));
    }
    let (mut finished, mut span) = (0usize, 0u64);
    while let Some((task, mut i, mut t)) = stack.pop() {
        let steps = g.steps_of(task);
        let mut parked = false;
        while i < steps.len() {
            match steps[i] {
                Step::Work { cycles, .. } => t += cycles,
                Step::Spawn { task: c } => stack.push((c, 0, t)),
                Step::Wait { latch } => {
                    let l = latch as usize;
                    if latch_left[l] > 0 {
                        latch_parked[l].push((task, i + 1, t));
                        parked = true;
                        break;
                    }
                    t = t.max(latch_end[l]);
                }
                Step::Loop { id } => {
                    let l = id as usize;
                    loop_left[l] = g.loops[l].leaves;
                    loop_end[l] = t;
                    loop_parked[l] = Some((task, i + 1, t));
                    stack.extend(g.leaves_of(id).map(|leaf| (leaf, 0, t)));
                    parked = true;
                    break;
                }
            }
            i += 1;
        }
        if parked {
            span = span.max(t);
            continue;
        }
        // `task` ends at `t`.
        finished += 1;
        span = span.max(t);
        let me = &g.tasks[task as usize];
        if let Some(l) = me.latch {
            let l = l as usize;
            latch_end[l] = latch_end[l].max(t);
            latch_left[l] -= 1;
            if latch_left[l] == 0 {
                let end = latch_end[l];
                stack.extend(latch_parked[l].drain(..).map(|(p, i, pt)| (p, i, pt.max(end))));
            }
        }
        if me.kind == TaskKind::LoopLeaf && loop_of[task as usize] != LoopId::MAX {
            let l = loop_of[task as usize] as usize;
            loop_end[l] = loop_end[l].max(t);
            loop_left[l] = loop_left[l].saturating_sub(1);
            if loop_left[l] == 0 {
                if let Some((p, i, _)) = loop_parked[l].take() {
                    stack.push((p, i, loop_end[l]));
                }
            }
        }
        for &s in g.succs_of(task) {
            let s = s as usize;
            ready_at[s] = ready_at[s].max(t);
            preds_left[s] -= 1;
            if preds_left[s] == 0 {
                stack.push((s as TaskId, 0, ready_at[s]));
            }
        }
    }

    let work = g.total_cycles();
    let root_work = if n == 0 { 0 } else { g.steps_of(0).iter().map(|s| if let Step::Work { cycles, .. } = s { *cycles } else { 0 }).sum() };
    let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    WorkSpan { work, span, parallelism: ratio(work, span), root_work, serial_share: ratio(root_work, work), stuck: n - finished }
}

#[cfg(test)]
mod tests {
    use super::*;
    use finegrain::taskgraph::{Builder, Meta, TaskKind};

    fn meta() -> Meta {
        Meta::synthetic("t", "test", 0)
    }

    /// A join tree of depth `d` in `task`: 10 cycles, then two halves in
    /// parallel (the second spawned), then 5 cycles; a leaf does 110.
    fn tree(b: &mut Builder, task: TaskId, d: u32) {
        b.work(task, 10, &[]);
        if d == 0 {
            b.work(task, 100, &[]);
            return;
        }
        let l = b.latch();
        let c = b.task(TaskKind::Join, Some(l));
        b.push(task, Step::Spawn { task: c });
        tree(b, c, d - 1);
        tree(b, task, d - 1);
        b.push(task, Step::Wait { latch: l });
        b.work(task, 5, &[]);
    }

    #[test]
    fn a_balanced_tree_has_the_work_and_span_of_its_recurrences() {
        for d in [0u32, 1, 4, 10] {
            let mut b = Builder::new(meta());
            tree(&mut b, 0, d);
            let g = b.finish().unwrap();
            let ws = work_span(&g);
            // W(d) = 2 W(d-1) + 15, W(0) = 110;  S(d) = S(d-1) + 15, S(0) = 110.
            let work = (1u64 << d) * 110 + 15 * ((1u64 << d) - 1);
            let span = 110 + 15 * d as u64;
            assert_eq!((ws.work, ws.span, ws.stuck), (work, span, 0), "depth {d}");
            assert_eq!(ws.root_work, span, "the root runs the leftmost path itself");
            assert!((ws.parallelism - work as f64 / span as f64).abs() < 1e-9);
        }
    }

    #[test]
    fn a_chain_of_graph_nodes_is_its_own_span() {
        let mut b = Builder::new(meta());
        let l = b.latch();
        let nodes: Vec<TaskId> = (0..50).map(|_| b.task(TaskKind::Node, Some(l))).collect();
        for (k, w) in nodes.windows(2).enumerate() {
            b.edge(w[0], w[1]);
            b.work(w[0], 10 + k as u64, &[]);
        }
        b.work(nodes[49], 1000, &[]);
        b.work(0, 7, &[]);
        b.push(0, Step::Spawn { task: nodes[0] });
        b.push(0, Step::Wait { latch: l });
        b.work(0, 3, &[]);
        let g = b.finish().unwrap();
        let ws = work_span(&g);
        let chain: u64 = (0..49).map(|k| 10 + k).sum::<u64>() + 1000;
        assert_eq!(ws.work, chain + 10);
        assert_eq!(ws.span, ws.work, "a chain has no parallelism");
        assert_eq!((ws.root_work, ws.stuck), (10, 0));
    }

    #[test]
    fn a_node_starts_when_its_last_predecessor_ends() {
        // Diamond: a (5) -> {b (100), c (1)} -> d (2); span 5 + 100 + 2.
        let mut b = Builder::new(meta());
        let l = b.latch();
        let [na, nb, nc, nd] = [0; 4].map(|_| b.task(TaskKind::Node, Some(l)));
        for (t, w) in [(na, 5), (nb, 100), (nc, 1), (nd, 2)] {
            b.work(t, w, &[]);
        }
        for (x, y) in [(na, nb), (na, nc), (nb, nd), (nc, nd)] {
            b.edge(x, y);
        }
        b.push(0, Step::Spawn { task: na });
        b.push(0, Step::Wait { latch: l });
        let ws = work_span(&b.finish().unwrap());
        assert_eq!((ws.work, ws.span, ws.root_work), (108, 107, 0));
    }

    #[test]
    fn a_loop_of_equal_leaves_has_the_span_of_one_leaf_plus_the_caller() {
        for k in [1u32, 2, 64, 1000] {
            let mut b = Builder::new(meta());
            b.work(0, 20, &[]);
            let (id, leaves) = b.new_loop(k, 1, k as u64);
            for t in leaves {
                b.work(t, 30, &[]);
            }
            b.push(0, Step::Loop { id });
            b.work(0, 3, &[]);
            let ws = work_span(&b.finish().unwrap());
            assert_eq!((ws.work, ws.span, ws.root_work), (23 + 30 * k as u64, 53, 23), "{k} leaves");
            assert!((ws.serial_share - 23.0 / (23.0 + 30.0 * k as f64)).abs() < 1e-12);
        }
    }

    #[test]
    fn a_scope_waits_for_tasks_its_tasks_spawn() {
        // Root spawns s1 (10 cycles, then spawns s2: 50 cycles) into one
        // scope latch and waits: span 10 + 50.
        let mut b = Builder::new(meta());
        let l = b.latch();
        let s1 = b.task(TaskKind::Scope, Some(l));
        let s2 = b.task(TaskKind::Scope, Some(l));
        b.push(0, Step::Spawn { task: s1 });
        b.work(s1, 10, &[]);
        b.push(s1, Step::Spawn { task: s2 });
        b.work(s2, 50, &[]);
        b.push(0, Step::Wait { latch: l });
        b.work(0, 1, &[]);
        let ws = work_span(&b.finish().unwrap());
        assert_eq!((ws.work, ws.span), (61, 61));
    }

    #[test]
    fn a_cycle_is_reported_not_hung() {
        let mut b = Builder::new(meta());
        let l = b.latch();
        let x = b.task(TaskKind::Node, Some(l));
        let y = b.task(TaskKind::Node, Some(l));
        b.edge(x, y);
        b.edge(y, x);
        b.work(x, 4, &[]);
        b.work(0, 9, &[]);
        b.push(0, Step::Wait { latch: l });
        // Built unchecked: a cycle passes validation (the simulator reports
        // it as a deadlock).
        let g = b.finish().unwrap();
        let ws = work_span(&g);
        assert_eq!((ws.stuck, ws.span), (3, 9));
        assert!(ws.to_string().contains("3 tasks never end"));
    }
}
