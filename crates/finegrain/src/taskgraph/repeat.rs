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
    /// `self` unchanged, if the two differ in anything but cycles: tasks,
    /// steps, loops, edges or footprints.
    ///
    /// ```
    /// use finegrain::taskgraph::{Builder, Meta, Step, TaskKind};
    /// let graph = |c: [u64; 2]| {
    ///     let mut b = Builder::new(Meta::synthetic("two", "", 1));
    ///     let t = b.task(TaskKind::Spawned, None);
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
        if self.lines != other.lines {
            return Err("the recordings differ in their footprints".into());
        }
        for (i, (a, b)) in self.steps.iter().zip(&other.steps).enumerate() {
            let same = match (a, b) {
                (Step::Work { lines: x, .. }, Step::Work { lines: y, .. }) => x == y,
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
