//! Plans for the task spaces of a recorded trace (`finegrain record`): one
//! [`SpaceInput`] per [`SpaceRecord`], in the order the spaces ran.
//!
//! A task's work is the sum of its work steps' cycles; its lines are the
//! union of its work steps' line runs (reads and writes alike). Only the
//! task's own steps count: what a space's task spawns is its children's.

use super::{Hierarchy, ReferenceError, SpaceInput, TaskSharing};
use finegrain::policy::locality::{Plan, Space};
use finegrain::taskgraph::{SpaceRecord, Step, TaskGraph};

/// The most (task, line) pairs one space may have: beyond it the inverted
/// index would not fit this machine's memory.
pub const MAX_FOOTPRINT: u64 = 1 << 28;

/// The planner's input for a recorded space.
pub fn space_input(g: &TaskGraph, rec: &SpaceRecord) -> Result<SpaceInput, ReferenceError> {
    rec.check().map_err(|e| ReferenceError::new(format!("a recorded task space is malformed: {e}")))?;
    let dims: Vec<usize> = rec.dims.iter().map(|&d| d as usize).collect();
    let space = Space::new(&dims)?;
    let mut total = 0u64;
    let mut work = Vec::with_capacity(rec.tasks.len());
    let mut lines = Vec::with_capacity(rec.tasks.len());
    for &t in &rec.tasks {
        if t as usize >= g.tasks.len() {
            return Err(ReferenceError::new(format!("a recorded task space names task {t}, but the trace has {} tasks", g.tasks.len())));
        }
        let (mut w, mut ls) = (0u64, Vec::new());
        for s in g.steps_of(t) {
            if let Step::Work { cycles, lines: r } = *s {
                w += cycles;
                for run in g.lines_of(r) {
                    total += run.count as u64;
                    if total > MAX_FOOTPRINT {
                        return Err(ReferenceError::new(format!(
                            "a task space of {:?} touches more than {MAX_FOOTPRINT} (task, line) pairs: too large to plan",
                            rec.dims
                        )));
                    }
                    ls.extend(run.first..run.first + run.count as u64);
                }
            }
        }
        work.push(w);
        lines.push(ls);
    }
    SpaceInput::new(space, work, lines)
}

/// The planner's inputs for every recorded space; an error for a trace that
/// recorded none.
pub fn space_inputs(g: &TaskGraph) -> Result<Vec<SpaceInput>, ReferenceError> {
    if g.spaces.is_empty() {
        return Err(ReferenceError::new(format!(
            "the trace of {} ({}) records no task spaces: record a workload that runs `TaskSpace` (conv, mmm, smvm, bprj, barnes, hj)",
            g.meta.workload, g.meta.size
        )));
    }
    g.spaces.iter().map(|r| space_input(g, r)).collect()
}

/// The recursive plan of every recorded space, in order.
pub fn plan_trace(g: &TaskGraph, h: &Hierarchy) -> Result<Vec<Plan>, ReferenceError> {
    space_inputs(g)?.iter().map(|inp| Ok(TaskSharing::new(inp).recursive(h)?.plan)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::preset;
    use finegrain::taskgraph::{Builder, Lines, Meta, SpaceHint, TaskKind};

    #[test]
    fn recorded_spaces_become_inputs_and_plans() {
        let mut b = Builder::new(Meta::synthetic("t", "t", 1));
        let l = b.latch();
        let mut tasks = Vec::new();
        for i in 0..6u64 {
            let t = b.task(TaskKind::Scope, Some(l));
            b.push(0, Step::Spawn { task: t });
            // Two work steps: their cycles add up, their lines merge.
            b.work(t, 10 + i, &[Lines { first: 100 * i, count: 2, write: false }]);
            b.push(t, Step::Wait { latch: l });
            b.work(t, 5, &[Lines { first: 100 * i + 1, count: 2, write: true }, Lines { first: 9999, count: 1, write: false }]);
            tasks.push(t);
        }
        b.space(SpaceRecord { dims: [3, 2, 1], hint: SpaceHint::None, tasks: tasks.clone() });
        let g = b.finish().unwrap();
        let inp = space_inputs(&g).unwrap();
        assert_eq!(inp.len(), 1);
        assert_eq!(inp[0].space.dims(), [3, 2, 1]);
        assert_eq!(inp[0].work, (0..6).map(|i| 15 + i).collect::<Vec<u64>>());
        assert_eq!(inp[0].lines[2], vec![200, 201, 202, 9999]);
        let h = Hierarchy::from_preset(preset("throughput-32").unwrap(), 4).unwrap();
        let plans = plan_trace(&g, &h).unwrap();
        plans[0].check(inp[0].space).unwrap();
        let none = Builder::new(Meta::synthetic("fib", "test", 1)).finish().unwrap();
        assert!(plan_trace(&none, &h).unwrap_err().to_string().contains("records no task spaces"));
    }
}
