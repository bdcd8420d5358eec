//! Locality-aware task management: how the independent tasks of a task space
//! are grouped and ordered before they run (R. Yoo, *Locality-Aware Task
//! Management on Many-Core Processors*, PhD thesis, Stanford University,
//! 2012, chapters 4 and 5).
//!
//! A task space is an index grid of one to three dimensions, one task per
//! point, all independent. A manager turns it, with the program's hint about
//! how its tasks share data, into a [`Plan`]: groups of tasks (boxes of the
//! grid, or lists of task indices), each run consecutively by one worker,
//! and for each worker its groups in order. Consecutive groups go to workers
//! that share a cache (`tiles`), so that what neighbouring groups share
//! stays in that cache. Every manager is a plain function of its inputs:
//!
//! | manager | hint | thesis | file |
//! |---|---|---|---|
//! | baseline | none: one contiguous chunk per worker | §5.4.1 | [`chunked`] |
//! | random | none: a random partition, random order | §4.4.1 | [`chunked`] |
//! | flux | sharing vector (lines shared by neighbours along x, y, z) | §5.3.1 | [`flux`] |
//! | flux, approximated | none: sample tasks' shared lines ([`flux_approx`]) | §5.5.1 | [`flux_approx`] |
//! | binning | a map from task to data key, with its range | §5.3.2 | [`binning`] |
//! | signature | a 1,024-bit signature of touched addresses per task | §5.3.3 | [`signature`] |
//! | groups | the locality group (NUMA node) holding each task's data (MapReduce's map phase) | §3.2.1, §3.3.2 | [`groups`] |
//! | reference, mst-only | every task's footprint, offline (`finegrain plan`, in `finegrain-sim`) | §4.3, §4.4.2 | read from a [`plan_file`] |
//!
//! Tasks are numbered by their linear index `i + nx * (j + ny * k)` (x
//! innermost), at most `u32::MAX` of them.

pub mod binning;
pub mod chunked;
pub mod flux;
pub mod flux_approx;
pub mod groups;
pub mod plan_file;
pub mod signature;
pub mod steal;

use std::fmt;
use std::ops::Range;

/// The most tasks a space may have (task indices are `u32`).
pub const MAX_TASKS: usize = u32::MAX as usize;

/// A task space's extent: `[nx, ny, nz]`, unused dimensions 1.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Space {
    dims: [usize; 3],
}

/// Why a space, hint or plan cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// A dimension of zero extent, with its position.
    ZeroDimension(usize),
    /// More tasks than [`MAX_TASKS`].
    TooManyTasks(u128),
    /// A hint with one entry per task has the wrong number of entries.
    WrongLength { what: &'static str, expected: usize, got: usize },
    /// A hint's value is out of its declared range or meaningless.
    BadHint(String),
    /// A plan made for another space, or one that does not run every task once.
    BadPlan(String),
    /// No workers to plan for.
    NoWorkers,
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::ZeroDimension(d) => write!(f, "task space dimension {d} is zero (every dimension needs at least one task)"),
            PlanError::TooManyTasks(n) => write!(f, "task space of {n} tasks is larger than the maximum of {MAX_TASKS}"),
            PlanError::WrongLength { what, expected, got } => write!(f, "{what} has {got} entries, but the task space has {expected} tasks"),
            PlanError::BadHint(s) => write!(f, "bad locality hint: {s}"),
            PlanError::BadPlan(s) => write!(f, "bad plan: {s}"),
            PlanError::NoWorkers => write!(f, "a plan needs at least one worker"),
        }
    }
}

impl std::error::Error for PlanError {}

impl Space {
    /// A space of `dims` (one to three extents), each at least 1.
    pub fn new(dims: &[usize]) -> Result<Space, PlanError> {
        if dims.is_empty() || dims.len() > 3 {
            return Err(PlanError::BadHint(format!("a task space has 1 to 3 dimensions, not {}", dims.len())));
        }
        let mut d = [1usize; 3];
        for (i, &x) in dims.iter().enumerate() {
            if x == 0 {
                return Err(PlanError::ZeroDimension(i));
            }
            d[i] = x;
        }
        let n = d.iter().map(|&x| x as u128).product::<u128>();
        if n > MAX_TASKS as u128 {
            return Err(PlanError::TooManyTasks(n));
        }
        Ok(Space { dims: d })
    }

    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }

    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.dims[0] * self.dims[1] * self.dims[2]
    }

    /// Never: a space has at least one task.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The linear index of a point.
    #[inline]
    pub fn index(&self, p: [usize; 3]) -> usize {
        p[0] + self.dims[0] * (p[1] + self.dims[1] * p[2])
    }

    /// The point of a linear index.
    #[inline]
    pub fn point(&self, i: usize) -> [usize; 3] {
        let x = i % self.dims[0];
        let r = i / self.dims[0];
        [x, r % self.dims[1], r / self.dims[1]]
    }
}

/// A box of the grid, `lo[d] <= p[d] < hi[d]`, visited in raster order with
/// `raster[0]` the innermost dimension.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IndexBox {
    pub lo: [usize; 3],
    pub hi: [usize; 3],
    pub raster: [usize; 3],
}

impl IndexBox {
    pub fn len(&self) -> usize {
        (0..3).map(|d| self.hi[d] - self.lo[d]).product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The box's points in its raster order.
    pub fn points(&self) -> impl Iterator<Item = [usize; 3]> + '_ {
        let [a, b, c] = self.raster;
        let ext = |d: usize| self.hi[d] - self.lo[d];
        let n = self.len();
        (0..n).map(move |m| {
            let mut p = self.lo;
            p[a] += m % ext(a);
            p[b] += (m / ext(a)) % ext(b);
            p[c] += m / (ext(a) * ext(b));
            p
        })
    }
}

/// A group: tasks run consecutively by one worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Group {
    /// A run of linear indices (baseline).
    Linear(Range<usize>),
    /// A box of the grid (flux).
    Box(IndexBox),
    /// A run of [`Plan::tasks`] (random, binning, signature, offline plans).
    Tasks(Range<usize>),
}

impl Group {
    /// Tasks in the group.
    pub fn len(&self) -> usize {
        match self {
            Group::Linear(r) | Group::Tasks(r) => r.len(),
            Group::Box(b) => b.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Groups of tasks and, per worker, which groups it runs, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The space this plan is for.
    pub space: Space,
    /// Which manager made it (`baseline`, `random`, `flux`, ...).
    pub manager: &'static str,
    /// Task indices that [`Group::Tasks`] groups point into.
    pub tasks: Vec<u32>,
    /// Every group, those of worker 0 first, then worker 1's, ...
    pub groups: Vec<Group>,
    /// Worker `w` runs `groups[per_worker[w].clone()]` in order.
    pub per_worker: Vec<Range<usize>>,
}

impl Plan {
    /// Workers the plan was made for.
    pub fn workers(&self) -> usize {
        self.per_worker.len()
    }

    /// The tasks of a group, as linear indices, in order.
    pub fn group_tasks<'a>(&'a self, g: &'a Group) -> Box<dyn Iterator<Item = usize> + 'a> {
        match g {
            Group::Linear(r) => Box::new(r.clone()),
            Group::Box(b) => Box::new(b.points().map(|p| self.space.index(p))),
            Group::Tasks(r) => Box::new(self.tasks[r.clone()].iter().map(|&t| t as usize)),
        }
    }

    /// Tasks in a group.
    pub fn group_len(&self, g: &Group) -> usize {
        g.len()
    }

    /// The tasks of worker `w`, in order.
    pub fn worker_tasks(&self, w: usize) -> impl Iterator<Item = usize> + '_ {
        self.groups[self.per_worker[w].clone()].iter().flat_map(move |g| self.group_tasks(g))
    }

    /// `Ok` if this plan is for `space` and runs every task exactly once.
    pub fn check(&self, space: Space) -> Result<(), PlanError> {
        if self.space != space {
            return Err(PlanError::BadPlan(format!("made for a task space of {:?}, used for one of {:?}", self.space.dims, space.dims)));
        }
        let mut end = 0;
        for (w, r) in self.per_worker.iter().enumerate() {
            if r.start != end || r.end < r.start || r.end > self.groups.len() {
                return Err(PlanError::BadPlan(format!("worker {w}'s groups {r:?} do not follow the previous worker's (which end at {end})")));
            }
            end = r.end;
        }
        if end != self.groups.len() {
            return Err(PlanError::BadPlan(format!("{} groups, but the workers' ranges end at {end}", self.groups.len())));
        }
        let mut seen = vec![false; space.len()];
        for g in &self.groups {
            match g {
                Group::Linear(r) => {
                    if r.start > r.end || r.end > space.len() {
                        return Err(PlanError::BadPlan(format!("index range {r:?} is outside the space of {} tasks", space.len())));
                    }
                }
                Group::Box(b) => {
                    if (0..3).any(|d| b.lo[d] > b.hi[d] || b.hi[d] > space.dims[d]) {
                        return Err(PlanError::BadPlan(format!("box {:?}..{:?} is outside the space {:?}", b.lo, b.hi, space.dims)));
                    }
                    let mut r = b.raster;
                    r.sort_unstable();
                    if r != [0, 1, 2] {
                        return Err(PlanError::BadPlan(format!("raster order {:?} is not a permutation of the dimensions", b.raster)));
                    }
                }
                Group::Tasks(r) => {
                    if r.start > r.end || r.end > self.tasks.len() {
                        return Err(PlanError::BadPlan(format!("group {r:?} is outside the plan's {} task entries", self.tasks.len())));
                    }
                }
            }
            for t in self.group_tasks(g) {
                if t >= seen.len() {
                    return Err(PlanError::BadPlan(format!("task {t} is outside the space of {} tasks", seen.len())));
                }
                if std::mem::replace(&mut seen[t], true) {
                    return Err(PlanError::BadPlan(format!("task {t} is planned twice")));
                }
            }
        }
        if let Some(t) = seen.iter().position(|&s| !s) {
            return Err(PlanError::BadPlan(format!("task {t} is never planned")));
        }
        Ok(())
    }
}

/// The order in which workers receive consecutive groups: by the cache
/// they share (`tiles[w]`, e.g. a tile's L2), then by index, so that
/// consecutive groups land on workers of one tile (thesis §5.3.1 step 4,
/// §5.3.2 step 3). An empty `tiles` means no sharing is known: worker order.
pub fn worker_order(workers: usize, tiles: &[usize]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..workers).collect();
    if tiles.len() == workers {
        order.sort_by_key(|&w| (tiles[w], w));
    }
    order
}

/// Deal `groups` (in their planned order) to `workers` in contiguous runs
/// with task counts as even as whole groups allow, following
/// [`worker_order`]; the result lists each worker's groups in index order of
/// workers, as [`Plan::groups`] requires.
pub(crate) fn deal(space: Space, manager: &'static str, tasks: Vec<u32>, groups: Vec<Group>, workers: usize, tiles: &[usize]) -> Plan {
    let sizes: Vec<usize> = groups.iter().map(Group::len).collect();
    deal_by(space, manager, tasks, groups, &sizes, workers, tiles)
}

/// [`deal`], with the groups weighed equally: each worker gets the same
/// number of consecutive groups, give or take one (binning's and the
/// signature manager's "consecutive bins per thread", thesis §5.3.2-3).
pub(crate) fn deal_even(space: Space, manager: &'static str, tasks: Vec<u32>, groups: Vec<Group>, workers: usize, tiles: &[usize]) -> Plan {
    let sizes = vec![1; groups.len()];
    deal_by(space, manager, tasks, groups, &sizes, workers, tiles)
}

fn deal_by(space: Space, manager: &'static str, tasks: Vec<u32>, groups: Vec<Group>, sizes: &[usize], workers: usize, tiles: &[usize]) -> Plan {
    let order = worker_order(workers, tiles);
    let total: usize = sizes.iter().sum();
    // Runs: the k-th worker in `order` takes the groups whose running total
    // crosses k/t of the tasks (a group goes to the worker its middle falls in).
    let mut runs: Vec<Range<usize>> = vec![0..0; workers];
    let mut start = 0;
    let mut acc = 0usize;
    let mut k = 0;
    for (i, &s) in sizes.iter().enumerate() {
        // The group's middle (twice, so that unit groups have one).
        let mid2 = 2 * acc + s;
        while k + 1 < workers && mid2 * workers >= 2 * (k + 1) * total {
            runs[order[k]] = start..i;
            start = i;
            k += 1;
        }
        acc += s;
    }
    runs[order[k]] = start..groups.len();
    for &w in &order[k + 1..] {
        runs[w] = groups.len()..groups.len();
    }
    // Reorder the groups so that worker 0's come first, then worker 1's, ...
    let mut out = Vec::with_capacity(groups.len());
    let mut per_worker = Vec::with_capacity(workers);
    let mut slots: Vec<Option<Group>> = groups.into_iter().map(Some).collect();
    for r in &runs {
        let s = out.len();
        for slot in &mut slots[r.clone()] {
            out.push(slot.take().expect("each group dealt once"));
        }
        per_worker.push(s..out.len());
    }
    Plan { space, manager, tasks, groups: out, per_worker }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Every plan a manager makes must pass `check`, and keep tasks balanced:
    /// no worker more than `slack` times the mean (plus one group).
    pub(crate) fn assert_sound(plan: &Plan, space: Space, workers: usize) {
        plan.check(space).unwrap_or_else(|e| panic!("{}: {e}", plan.manager));
        assert_eq!(plan.workers(), workers);
    }

    #[test]
    fn spaces_reject_zero_and_huge_dimensions() {
        assert_eq!(Space::new(&[4, 0]), Err(PlanError::ZeroDimension(1)));
        assert!(matches!(Space::new(&[1 << 20, 1 << 20]), Err(PlanError::TooManyTasks(_))));
        assert!(Space::new(&[]).is_err() && Space::new(&[1, 2, 3, 4]).is_err());
        let s = Space::new(&[3, 4, 5]).unwrap();
        for i in 0..s.len() {
            assert_eq!(s.index(s.point(i)), i);
        }
    }

    #[test]
    fn boxes_visit_their_points_in_raster_order() {
        let b = IndexBox { lo: [1, 2, 0], hi: [3, 5, 1], raster: [1, 0, 2] };
        let pts: Vec<_> = b.points().collect();
        assert_eq!(pts.len(), 6);
        assert_eq!(&pts[..4], &[[1, 2, 0], [1, 3, 0], [1, 4, 0], [2, 2, 0]]);
    }

    #[test]
    fn checks_catch_foreign_duplicate_and_missing_tasks() {
        let s = Space::new(&[4]).unwrap();
        let ok = deal(s, "t", vec![0, 1, 2, 3], vec![Group::Tasks(0..2), Group::Tasks(2..4)], 2, &[]);
        ok.check(s).unwrap();
        assert!(ok.check(Space::new(&[5]).unwrap()).unwrap_err().to_string().contains("made for"));
        let dup = deal(s, "t", vec![0, 1, 1, 3], vec![Group::Tasks(0..4)], 1, &[]);
        assert!(dup.check(s).unwrap_err().to_string().contains("twice"));
        let missing = deal(s, "t", vec![0, 1, 2], vec![Group::Tasks(0..3)], 1, &[]);
        assert!(missing.check(s).unwrap_err().to_string().contains("never planned"));
    }

    #[test]
    fn dealing_keeps_runs_contiguous_balanced_and_tile_ordered() {
        let s = Space::new(&[16]).unwrap();
        let groups: Vec<Group> = (0..8).map(|g| Group::Tasks(2 * g..2 * g + 2)).collect();
        // Workers 0 and 2 share tile 0, 1 and 3 tile 1: groups 0-3 go to 0 and 2.
        let p = deal(s, "t", (0..16).collect(), groups, 4, &[0, 1, 0, 1]);
        p.check(s).unwrap();
        let firsts: Vec<usize> = (0..4).map(|w| p.worker_tasks(w).next().unwrap()).collect();
        assert_eq!(firsts, vec![0, 8, 4, 12]);
        assert!((0..4).all(|w| p.worker_tasks(w).count() == 4));
    }
}
