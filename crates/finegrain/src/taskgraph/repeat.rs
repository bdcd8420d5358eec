//! Costs from repeated recordings: the least of each work step's cycles.
//!
//! A recording's costs are cycles of one serial run on the recording host,
//! and a host shared with other programs preempts the recording thread now
//! and then: the work step that was running when it happened is recorded
//! milliseconds long. One such step on the critical path sets a trace's
//! span, and a task the simulator replays that long stalls its worker. A
//! program whose task structure does not depend on timing records the same
//! graph every time, so recording it `k` times and keeping each step's
//! least cost removes a preemption unless it struck the same step in every
//! run. [`TaskGraph::keep_least_costs`] merges one more recording into a
//! graph after checking that the two have the same structure.

use super::{Step, TaskGraph};

impl TaskGraph {
    /// Keep, for every work step, the lesser of its cycles here and in
    /// `other`, a recording of the same program and input. Fails, leaving
    /// `self` unchanged, if the two differ in structure: tasks, steps,
    /// loops, edges, latches, spaces, or the kind and target of any step.
    /// Footprints may differ (pages are numbered by first touch, and an
    /// allocator may place a run's buffers beside other data in one
    /// recording and not in the next, which also splits or joins line
    /// runs); `self`'s are kept.
    ///
    /// ```
    /// use finegrain::taskgraph::{Builder, Meta, Step, TaskKind};
    /// let graph = |c: [u64; 2]| {
    ///     let mut b = Builder::new(Meta::synthetic("two", "", 1));
    ///     let t = b.task(TaskKind::Scope, None);
    ///     b.push(0, Step::Spawn { task: t });
    ///     b.work(0, c[0], &[]);
    ///     b.work(t, c[1], &[]);
    ///     b.finish().unwrap()
    /// };
    /// let mut g = graph([100, 9_000_000]);
    /// g.keep_least_costs(&graph([120, 900])).unwrap();
    /// assert_eq!(g.total_cycles(), 1_000);
    /// ```
    pub fn keep_least_costs(&mut self, other: &TaskGraph) -> Result<(), String> {
        if self.tasks != other.tasks
            || self.loops != other.loops
            || self.edges != other.edges
            || self.latches != other.latches
            || self.spaces != other.spaces
            || self.steps.len() != other.steps.len()
        {
            return Err(format!(
                "the recordings differ in structure ({} and {} tasks, {} and {} steps)",
                self.tasks.len(),
                other.tasks.len(),
                self.steps.len(),
                other.steps.len()
            ));
        }
        for (i, (a, b)) in self.steps.iter().zip(&other.steps).enumerate() {
            let same = match (a, b) {
                (Step::Work { .. }, Step::Work { .. }) => true,
                _ => a == b,
            };
            if !same {
                return Err(format!("the recordings differ at step {i}"));
            }
        }
        for (a, b) in self.steps.iter_mut().zip(&other.steps) {
            if let (Step::Work { cycles, .. }, Step::Work { cycles: c, .. }) = (a, b) {
                *cycles = (*cycles).min(*c);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::taskgraph::{Builder, Lines, Meta, Step, TaskGraph, TaskKind};

    fn fork(children: usize, cost: u64, first_line: u64) -> TaskGraph {
        let mut b = Builder::new(Meta::synthetic("fork", "", 1));
        let l = b.latch();
        for _ in 0..children {
            let t = b.task(TaskKind::Scope, Some(l));
            b.push(0, Step::Spawn { task: t });
            b.work(t, cost, &[Lines { first: first_line, count: 2, write: false }]);
        }
        b.push(0, Step::Wait { latch: l });
        b.finish().unwrap()
    }

    #[test]
    fn least_costs_are_kept_and_footprints_stay_the_first_recordings() {
        let mut g = fork(3, 500, 10);
        g.keep_least_costs(&fork(3, 400, 99)).unwrap();
        assert_eq!(g.total_cycles(), 3 * 400);
        assert_eq!(g.lines[0].first, 10);
    }

    #[test]
    fn recordings_of_another_structure_are_refused_and_change_nothing() {
        let mut g = fork(3, 500, 10);
        let before = g.clone();
        assert!(g.keep_least_costs(&fork(4, 1, 10)).is_err());
        assert_eq!(g, before);
    }
}
