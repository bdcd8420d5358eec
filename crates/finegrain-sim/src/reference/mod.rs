//! The graph-based reference scheduler (R. Yoo, *Locality-Aware Task
//! Management on Many-Core Processors*, PhD thesis, Stanford University,
//! 2012, chapter 4): offline, from every task's footprint, it groups and
//! orders a task space's tasks for a cache hierarchy, and writes the result
//! as a [`finegrain::policy::locality::Plan`] that `TaskSpace::schedule`
//! replays.
//!
//! 1. [`SpaceInput`]: the tasks of one space, each with its work and its set
//!    of 64-byte lines ([`input`]).
//! 2. The task sharing graph ([`graph`]): vertex weight = work, edge weight
//!    = lines shared, built from the inverted index line -> tasks, with
//!    sharer sets above [`graph::MAX_CLIQUE`] tasks banded.
//! 3. Recursive scheduling (`recursive.rs`, §4.3 Fig. 4.3): at every branch
//!    of the [`Hierarchy`] a METIS pre-partition per child cache, at every
//!    level METIS groups whose union of footprints fits the cache
//!    (`partition.rs`), groups in maximum-spanning-tree order and the tasks of
//!    an L1 group in maximum-overlap order (`order.rs`).
//! 4. The plan: one [`Group::Tasks`] per L1 group, each thread's groups in
//!    order (manager `reference`); or the thesis's *MST-only* schedule, the
//!    baseline's chunks each in maximum-overlap order (manager `mst-only`).
//!
//! METIS is a C library (built from the `metis` crate's bundled source), so
//! this lives in the simulator crate, not in the runtime: the runtime only
//! reads plans (`finegrain::policy::locality::plan_file`).

pub mod graph;
pub mod hierarchy;
pub mod input;
mod metrics;
mod order;
mod partition;
mod recursive;
#[cfg(test)]
mod tests;
pub mod trace;

pub use graph::SharingGraph;
pub use hierarchy::{Hierarchy, Level};
pub use input::SpaceInput;
pub use trace::plan_trace;

use finegrain::policy::locality::{chunked, Group, Plan, Space};
use input::Footprints;
use partition::Partitioner;
use std::fmt;

/// Why a plan cannot be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceError(pub String);

impl ReferenceError {
    pub fn new(s: impl Into<String>) -> ReferenceError {
        ReferenceError(s.into())
    }
}

impl fmt::Display for ReferenceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "reference scheduler: {}", self.0)
    }
}

impl std::error::Error for ReferenceError {}

impl From<finegrain::policy::locality::PlanError> for ReferenceError {
    fn from(e: finegrain::policy::locality::PlanError) -> Self {
        ReferenceError(e.to_string())
    }
}

/// The recursive schedule of `input` for `h`.
pub fn plan_space(input: &SpaceInput, h: &Hierarchy) -> Result<Plan, ReferenceError> {
    Ok(TaskSharing::new(input).recursive(h)?.plan)
}

/// A recursive plan with what it took.
#[derive(Clone, Debug)]
pub struct Recursive {
    pub plan: Plan,
    /// Groups made at each level of the hierarchy (innermost first).
    pub groups_per_level: Vec<usize>,
    /// METIS calls made.
    pub metis_calls: usize,
}

/// How good a plan is (see `metrics.rs` for the LRU model).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanStats {
    pub manager: &'static str,
    /// Groups in the plan.
    pub groups: usize,
    /// Cut cost between workers' task sets.
    pub worker_cut: u64,
    /// Cut cost between groups.
    pub group_cut: u64,
    /// Mean union of footprint per group, in lines.
    pub group_union: f64,
    /// Mean union of footprint per worker, in lines.
    pub worker_union: f64,
    /// Misses of a fully associative LRU model of each level, innermost first.
    pub lru_misses: Vec<u64>,
}

/// A space's footprints and sharing graph, built once for any number of
/// plans and their metrics.
#[derive(Debug)]
pub struct TaskSharing {
    space: Space,
    fp: Footprints,
    graph: SharingGraph,
}

impl TaskSharing {
    pub fn new(input: &SpaceInput) -> TaskSharing {
        let fp = Footprints::new(input);
        let graph = SharingGraph::new(&fp, &input.work);
        TaskSharing { space: input.space, fp, graph }
    }

    pub fn graph(&self) -> &SharingGraph {
        &self.graph
    }

    /// Distinct lines over all tasks.
    pub fn lines(&self) -> usize {
        self.fp.lines()
    }

    /// The recursive schedule for `h` (thesis §4.3).
    pub fn recursive(&self, h: &Hierarchy) -> Result<Recursive, ReferenceError> {
        let mut p = Partitioner::new(&self.graph, &self.fp);
        let r = recursive::Recursion::run(h, &mut p)?;
        let groups_per_level = r.groups.clone();
        let plan = self.assemble("reference", r.out)?;
        Ok(Recursive { plan, groups_per_level, metis_calls: p.calls })
    }

    /// The thesis's MST-only schedule (§4.4.2): the baseline's contiguous
    /// chunks, one per thread, each in maximum-overlap order.
    pub fn mst_only(&self, threads: usize) -> Result<Plan, ReferenceError> {
        let base = chunked::baseline(self.space, threads)?;
        let out = (0..threads)
            .map(|w| {
                let mut tasks: Vec<u32> = base.worker_tasks(w).map(|t| t as u32).collect();
                tasks.sort_unstable();
                if tasks.is_empty() {
                    Vec::new()
                } else {
                    vec![order::task_order(&self.fp, &tasks)]
                }
            })
            .collect();
        self.assemble("mst-only", out)
    }

    /// One [`Group::Tasks`] per task list, thread by thread; checked.
    fn assemble(&self, manager: &'static str, out: Vec<Vec<Vec<u32>>>) -> Result<Plan, ReferenceError> {
        let mut tasks = Vec::with_capacity(self.space.len());
        let mut groups = Vec::new();
        let mut per_worker = Vec::with_capacity(out.len());
        for lists in out {
            let first = groups.len();
            for l in lists {
                let s = tasks.len();
                tasks.extend_from_slice(&l);
                groups.push(Group::Tasks(s..tasks.len()));
            }
            per_worker.push(first..groups.len());
        }
        let plan = Plan { space: self.space, manager, tasks, groups, per_worker };
        plan.check(self.space)?;
        Ok(plan)
    }

    /// The thesis's metrics and the LRU model for `plan` (made for this space).
    pub fn stats(&self, plan: &Plan, h: &Hierarchy) -> Result<PlanStats, ReferenceError> {
        plan.check(self.space)?;
        Ok(PlanStats {
            manager: plan.manager,
            groups: plan.groups.len(),
            worker_cut: metrics::worker_cut(&self.graph, plan),
            group_cut: metrics::group_cut(&self.graph, plan),
            group_union: metrics::mean_union(&self.fp, plan, false),
            worker_union: metrics::mean_union(&self.fp, plan, true),
            lru_misses: metrics::lru_misses(&self.fp, plan, h),
        })
    }
}
