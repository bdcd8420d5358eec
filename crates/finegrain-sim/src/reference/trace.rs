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
