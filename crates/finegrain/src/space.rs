//! Task spaces: a parallel section of independent tasks over a 1-3
//! dimensional index grid, grouped and ordered for locality by one of the
//! managers of `policy::locality` (R. Yoo, *Locality-Aware Task Management
//! on Many-Core Processors*, PhD thesis, Stanford University, 2012, §4.1 and
//! chapters 5-6; its `taskQEnqueue` / `taskQWait` and hint setters).
//!
//! **Execution.** `run` plans the space for the pool's workers, then puts
//! worker `w`'s planned tasks, in order, in a queue of this section's own:
//! a run of positions with a head and a tail packed in one atomic word.
//! One driver task per worker, scheduled by the pool's policy like any other
//! task (a `scope` spawn), takes tasks one at a time from the head of the
//! queue of the worker it runs on; when that is empty it steals from the tail
//! of other workers' queues, victims and amounts decided by
//! `policy::locality::steal` (the thesis's §6.1 baseline, nearest-neighbour,
//! or §6.5's pattern-specific units), and returns when every queue is empty.
//! The driver, not the policy's own queue, holds the planned order: a
//! policy's deque cannot receive tasks for another worker, and the thesis's
//! runtime likewise pre-fills one queue per thread. Which worker runs a
//! driver is the policy's choice, so a driver finds its queue by the worker
//! it lands on; two drivers on one worker share its queue.
//!
//! **Correctness.** Every position is handed out exactly once: the owner
//! moves the head up and a thief moves the tail down, each by a
//! compare-and-swap on the same word, only while head < tail. A panic in a
//! task is caught; the driver goes on, every other task still runs, and the
//! first panic is resumed by `run` once the section has drained.

use crate::policy::locality::steal::{self, StealUnit, Stealing};
use crate::policy::locality::{binning, chunked, flux, flux_approx, signature, Group, Plan, PlanError, Space};
use crate::rng::XorShift;
use crate::sync::{AtomicU64, Ordering};
use crate::taskgraph::SpaceRecord;
use crossbeam_utils::CachePadded;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;

/// The locality hint of a task space.
enum Hint<'a> {
    None,
    Random(u64),
    Flux([u64; 3]),
    FluxApprox,
    Bins(&'a (dyn Fn([usize; 3]) -> u64 + Sync), u64, u64),
    Signatures(&'a [signature::Signature]),
    Schedule(&'a Plan),
}

/// A parallel section of independent tasks over an index space, with an
/// optional locality hint (Yoo, thesis, §4.1, Table 5.2).
///
/// Without a hint the space is cut into one contiguous chunk per worker (the
/// thesis's baseline). [`TaskSpace::flux`] gives a sharing vector (tasks
/// with affine data access), [`TaskSpace::bins`] a map from task to data key
/// (non-linear access), [`TaskSpace::signatures`] one signature of touched
/// data per task (input-dependent access), [`TaskSpace::schedule`] a plan
/// made elsewhere. Hints never change what runs, only where and when: every
/// task runs exactly once under every policy.
///
/// ```
/// use finegrain::TaskSpace;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// // A 64 x 64 blocked computation whose neighbours along x share 4 lines
/// // and along y 1 line.
/// let sum = AtomicU64::new(0);
/// let info = TaskSpace::new([64, 64])
///     .flux([4, 1, 0])
///     .run(|[i, j, _]| {
///         sum.fetch_add((i * j) as u64, Ordering::Relaxed);
///     })
///     .unwrap();
/// assert_eq!(sum.into_inner(), (0..64u64).sum::<u64>().pow(2));
/// assert_eq!(info.tasks, 4096);
/// // A zero extent is an error, not a panic.
/// assert!(TaskSpace::new([4, 0]).run(|_| {}).is_err());
/// ```
pub struct TaskSpace<'a> {
    space: Result<Space, PlanError>,
    hint: Hint<'a>,
    /// `None`: the pool's policy's `space-steal` option.
    stealing: Option<Stealing>,
    replay: Option<&'a mut Replay>,
}

/// A plan kept from one run of a section for the next runs of it (Yoo,
/// thesis, §5.5.2: a section repeated over the same task and data space with
/// the same hint can build its schedule once). Pass the same `Replay` to
/// every run of the section with [`TaskSpace::replay`]: the first run plans
/// and keeps the plan, later runs with the same space, manager and worker
/// count run it without planning; a run whose space or worker count differs
/// plans again and keeps the new plan. The caller vouches that the hint is
/// unchanged between runs (a key map or signatures that change make a plan
/// that is still correct, only no longer local).
///
/// ```
/// use finegrain::{Replay, TaskSpace};
/// let map = |[i, _, _]: [usize; 3]| (i % 64) as u64;
/// let mut replay = Replay::new();
/// for step in 0..3 {
///     let info = TaskSpace::new([10_000]).bins(&map, 0, 63).replay(&mut replay).run(|_| {}).unwrap();
///     assert_eq!(info.replayed, step > 0);
/// }
/// ```
#[derive(Debug, Default)]
pub struct Replay {
    plan: Option<Plan>,
    /// The sharing vector the kept plan was made with (flux only).
    sharing: Option<[u64; 3]>,
}

impl Replay {
    pub fn new() -> Replay {
        Replay::default()
    }

    /// The kept plan, if any.
    pub fn plan(&self) -> Option<&Plan> {
        self.plan.as_ref()
    }
}

impl std::fmt::Debug for TaskSpace<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskSpace").field("space", &self.space).field("stealing", &self.stealing).finish_non_exhaustive()
    }
}

/// What one [`TaskSpace::run`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceRun {
    /// Tasks run (the space's size).
    pub tasks: usize,
    /// Tasks that ran on a worker other than the one they were planned for.
    pub stolen: usize,
    /// Successful steals (each moves one or more tasks).
    pub steals: usize,
    /// The manager that planned the section.
    pub manager: &'static str,
    /// Nanoseconds spent planning (checking, for a given schedule or a
    /// replayed plan).
    pub plan_ns: u64,
    /// Whether the plan came from a [`Replay`] instead of being made.
    pub replayed: bool,
    /// The sharing vector the flux manager used (given, or found by
    /// [`TaskSpace::flux_approx`]'s samples); `None` for other managers.
    pub sharing: Option<[u64; 3]>,
}

/// The extents a task space may be given: `[nx]`, `[nx, ny]`, `[nx, ny, nz]`.
pub trait Extents {
    fn extents(&self) -> &[usize];
}

impl<const N: usize> Extents for [usize; N] {
    fn extents(&self) -> &[usize] {
        self
    }
}

impl Extents for Vec<usize> {
    fn extents(&self) -> &[usize] {
        self
    }
}

impl<'a> TaskSpace<'a> {
    /// A task space of one task per point of `extents` (one to three
    /// dimensions). A zero extent or more than `u32::MAX` tasks is reported
    /// by [`TaskSpace::run`].
    pub fn new(extents: impl Extents) -> TaskSpace<'a> {
        TaskSpace { space: Space::new(extents.extents()), hint: Hint::None, stealing: None, replay: None }
    }

    /// Group tasks at random (the thesis's locality-oblivious reference).
    pub fn random(mut self, seed: u64) -> Self {
        self.hint = Hint::Random(seed);
        self
    }

    /// The sharing vector: how many lines (or elements) two tasks that are
    /// neighbours along x, y and z share (thesis §5.3.1, the flux manager).
    pub fn flux(mut self, sharing: [u64; 3]) -> Self {
        self.hint = Hint::Flux(sharing);
        self
    }

    /// The flux manager with a sharing vector found by sample tasks (thesis
    /// §5.5.1, `LMFlux_ApproxSharingVec`): `run` first runs the tasks
    /// `(0,0,0)`, `(1,0,0)`, `(1,1,0)`, `(1,1,1)` on the calling thread, one
    /// after the other, and takes as the sharing along each dimension the
    /// lines the task that stepped along it shares with the samples before
    /// it, from the footprints the tasks declare with
    /// [`crate::record::read`] / [`crate::record::write`] (the thesis reads
    /// cache-hit counters, which this machine does not offer; see
    /// [`flux_approx`]). The samples then count as run: the section runs the
    /// other tasks. Tasks that declare nothing give `[1, 1, 1]`.
    /// [`SpaceRun::sharing`] reports the vector used. A replayed plan
    /// ([`TaskSpace::replay`]) samples nothing.
    ///
    /// ```
    /// use finegrain::TaskSpace;
    /// // Rows of a 64-row image, 256 f32 per row: task (i, j) reads rows
    /// // j-1..=j+1 of column block i, so y-neighbours share 2 rows.
    /// let img = vec![0f32; 256 * 64];
    /// let info = TaskSpace::new([4, 64])
    ///     .flux_approx()
    ///     .run(|[i, j, _]| {
    ///         for r in j.saturating_sub(1)..=(j + 1).min(63) {
    ///             finegrain::record::read(&img[r * 256 + i * 64..r * 256 + i * 64 + 64]);
    ///         }
    ///     })
    ///     .unwrap();
    /// let [sx, sy, _] = info.sharing.unwrap();
    /// assert!(sy > sx, "{sy} lines shared along y, {sx} along x");
    /// ```
    pub fn flux_approx(mut self) -> Self {
        self.hint = Hint::FluxApprox;
        self
    }

    /// A map from each task to the data it mostly touches, as an integer key
    /// in `[min, max]` (thesis §5.3.2, the binning manager). A key outside
    /// the range is an error of `run`.
    pub fn bins(mut self, map: &'a (dyn Fn([usize; 3]) -> u64 + Sync), min: u64, max: u64) -> Self {
        self.hint = Hint::Bins(map, min, max);
        self
    }

    /// One 1,024-bit signature per task, in linear index order (x innermost),
    /// bit `r` set if the task touches the `r`-th of 1,024 regions of the
    /// shared data (thesis §5.3.3; [`signature::mark`] sets a bit). A slice
    /// of the wrong length is an error of `run`.
    pub fn signatures(mut self, sigs: &'a [signature::Signature]) -> Self {
        self.hint = Hint::Signatures(sigs);
        self
    }

    /// Run a plan made elsewhere (the reference scheduler, or a plan kept
    /// from an earlier run). A plan for another space is an error of `run`.
    pub fn schedule(mut self, plan: &'a Plan) -> Self {
        self.hint = Hint::Schedule(plan);
        self
    }

    /// Keep the plan in `replay` for later runs of this section, or run the
    /// plan it holds (see [`Replay`]).
    pub fn replay(mut self, replay: &'a mut Replay) -> Self {
        self.replay = Some(replay);
        self
    }

    /// How idle workers steal (thesis chapter 6). Default: the pool
    /// policy's `space-steal` option (e.g. `ws:space-steal=recursive`),
    /// whose default is the baseline.
    pub fn stealing(mut self, scheme: Stealing) -> Self {
        self.stealing = Some(scheme);
        self
    }

    /// The plan this section would run with `workers` workers that share no
    /// cache ([`TaskSpace::plan_for`] with no tiles).
    pub fn plan(&self, workers: usize) -> Result<Plan, PlanError> {
        self.plan_for(workers, &[])
    }

    /// The plan this section would run with `workers` workers, `tiles[w]`
    /// naming the cache (an L2) worker `w` shares with others; `run` passes
    /// the pool's ([`crate::topology::Topology::tiles`]).
    pub fn plan_for(&self, workers: usize, tiles: &[usize]) -> Result<Plan, PlanError> {
        let space = self.space.clone()?;
        match &self.hint {
            Hint::None => chunked::baseline(space, workers),
            Hint::Random(seed) => chunked::random(space, workers, *seed),
            Hint::Flux(s) => flux::plan(space, *s, workers, tiles),
            // Without samples (`run` takes them): no preference.
            Hint::FluxApprox => flux::plan(space, [1, 1, 1], workers, tiles),
            Hint::Bins(map, min, max) => {
                let keys: Vec<u64> = (0..space.len()).map(|i| map(space.point(i))).collect();
                binning::plan(space, &keys, *min, *max, workers, tiles)
            }
            Hint::Signatures(sigs) => signature::plan(space, sigs, workers, tiles),
            Hint::Schedule(plan) => {
                plan.check(space)?;
                Ok((*plan).clone())
            }
        }
    }

    /// Run every task, `body([i, j, k])` (unused dimensions 0), in the
    /// current pool (or the global one), and return when all have run.
    pub fn run<F>(mut self, body: F) -> Result<SpaceRun, PlanError>
    where
        F: Fn([usize; 3]) + Sync,
    {
        let workers = crate::current_num_threads();
        let t0 = std::time::Instant::now();
        let space = self.space.clone()?;
        if crate::record::active() {
            return self.record(space, &body);
        }
        let manager = self.manager();
        let first_panic: Mutex<Option<Box<dyn std::any::Any + Send>>> = Mutex::new(None);
        let kept = self.replay.as_deref_mut().and_then(|r| r.plan.take()).filter(|p| p.space == space && p.workers() == workers && p.manager == manager);
        let replayed = kept.is_some();
        let mut sharing = match (&self.hint, &self.replay) {
            (Hint::Flux(s), _) => Some(*s),
            (Hint::FluxApprox, Some(r)) if replayed => r.sharing,
            _ => None,
        };
        // flux_approx: run the samples here, one after the other, and plan
        // with what they share (thesis §5.5.1); they are then skipped.
        let mut skip = Vec::new();
        if matches!(self.hint, Hint::FluxApprox) && !replayed {
            let samples = flux_approx::samples(space);
            let lines: Vec<Vec<u64>> = samples
                .iter()
                .map(|&p| {
                    let (r, lines) = crate::record::probe(|| panic::catch_unwind(AssertUnwindSafe(|| body(p))));
                    if let Err(e) = r {
                        first_panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
                    }
                    lines
                })
                .collect();
            let v = flux_approx::vector(space, &lines);
            self.hint = Hint::Flux(v);
            sharing = Some(v);
            skip = samples.iter().map(|&p| space.index(p)).collect();
        }
        let (tiles, pool_steal) = crate::pool::current_space_setup();
        let plan = match kept {
            Some(p) => p,
            None => self.plan_for(workers, &tiles)?,
        };
        let plan_ns = t0.elapsed().as_nanos() as u64;
        let section = Section::new(&plan, self.stealing.unwrap_or(pool_steal), tiles, skip);
        let drivers = plan.workers().max(1);
        let counts: Mutex<(usize, usize)> = Mutex::new((0, 0));
        let drive = || {
            let (stolen, steals) = section.drive(&body, &first_panic);
            let mut c = counts.lock().unwrap_or_else(|e| e.into_inner());
            c.0 += stolen;
            c.1 += steals;
        };
        crate::scope(|s| {
            for _ in 1..drivers {
                s.spawn(|_| drive());
            }
            drive();
        });
        if let Some(p) = first_panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
            panic::resume_unwind(p);
        }
        let (stolen, steals) = counts.into_inner().unwrap_or_else(|e| e.into_inner());
        let info = SpaceRun { tasks: plan.space.len(), stolen, steals, manager: plan.manager, plan_ns, replayed, sharing };
        drop(section);
        if let Some(r) = self.replay {
            r.plan = Some(plan);
            r.sharing = sharing;
        }
        Ok(info)
    }

    /// `run` while recording (`record/`): one task per point, in index
    /// order, so the trace has every task with its own footprint, and a
    /// [`SpaceRecord`] with the extents and hint so that the simulator can
    /// plan the space; the plan is the simulator's or a later run's to make.
    /// The hint is checked as `run` checks it, its evaluation (a bins map,
    /// once per point) left out of the recorded costs.
    #[cold]
    fn record<F: Fn([usize; 3]) + Sync>(&self, space: Space, body: &F) -> Result<SpaceRun, PlanError> {
        use crate::taskgraph::{SpaceHint, TaskKind};
        let mut hint = Err(PlanError::NoWorkers);
        crate::record::declare(|| hint = self.recorded_hint(space));
        let hint = hint?;
        let latch = crate::record::new_latch();
        let mut tasks = Vec::with_capacity(space.len());
        for t in 0..space.len() {
            let id = crate::record::spawn_task(TaskKind::Scope, latch);
            tasks.push(id);
            crate::record::run_as(id, || body(space.point(t)));
        }
        crate::record::wait(latch);
        let d = space.dims();
        let manager = if matches!(hint, SpaceHint::Plan) { self.manager() } else { hint.manager() };
        // flux_approx: the sharing vector from the sample tasks' recorded
        // footprints (what the runtime's probe of the samples measures).
        let hint = match hint {
            SpaceHint::Flux(_) if matches!(self.hint, Hint::FluxApprox) => {
                let lines: Vec<Vec<u64>> = flux_approx::samples(space).iter().map(|&p| crate::record::task_lines(tasks[space.index(p)])).collect();
                SpaceHint::Flux(flux_approx::vector(space, &lines))
            }
            h => h,
        };
        let sharing = if let SpaceHint::Flux(v) = hint { Some(v) } else { None };
        crate::record::space(SpaceRecord { dims: [d[0] as u32, d[1] as u32, d[2] as u32], hint, tasks });
        Ok(SpaceRun { tasks: space.len(), stolen: 0, steals: 0, manager, plan_ns: 0, replayed: false, sharing })
    }

    /// The hint as a trace records it, checked by planning for one worker.
    fn recorded_hint(&self, space: Space) -> Result<crate::taskgraph::SpaceHint, PlanError> {
        use crate::taskgraph::SpaceHint;
        Ok(match &self.hint {
            Hint::None => SpaceHint::None,
            Hint::Random(seed) => SpaceHint::Random(*seed),
            Hint::Flux(s) => {
                flux::plan(space, *s, 1, &[])?;
                SpaceHint::Flux(*s)
            }
            // Replaced by the vector the samples give once they are recorded.
            Hint::FluxApprox => SpaceHint::Flux([1, 1, 1]),
            Hint::Bins(map, min, max) => {
                let keys: Vec<u64> = (0..space.len()).map(|i| map(space.point(i))).collect();
                binning::plan(space, &keys, *min, *max, 1, &[])?;
                SpaceHint::Bins { keys, min: *min, max: *max }
            }
            Hint::Signatures(sigs) => {
                signature::plan(space, sigs, 1, &[])?;
                SpaceHint::Signatures(sigs.to_vec())
            }
            Hint::Schedule(plan) => {
                plan.check(space)?;
                SpaceHint::Plan
            }
        })
    }

    /// The name of the manager this section's hint selects.
    fn manager(&self) -> &'static str {
        match &self.hint {
            Hint::None => "baseline",
            Hint::Random(_) => "random",
            Hint::Flux(_) | Hint::FluxApprox => "flux",
            Hint::Bins(..) => "binning",
            Hint::Signatures(_) => "signature",
            Hint::Schedule(p) => p.manager,
        }
    }
}

/// One worker's planned tasks: its groups with the positions they start at.
struct WorkerSeq {
    groups: Range<usize>,
    starts: Vec<usize>,
}

/// A running section: the plan, each worker's sequence and cursor.
struct Section<'p> {
    plan: &'p Plan,
    seqs: Vec<WorkerSeq>,
    /// Per worker: head (low 32 bits) and tail (high 32 bits) of its positions.
    cursors: Vec<CachePadded<AtomicU64>>,
    stealing: Stealing,
    /// `tiles[w]`: the shared cache of worker `w` (empty: none known).
    tiles: Vec<usize>,
    /// Tasks already run (flux_approx's samples), by linear index.
    skip: Vec<usize>,
}

fn pack(head: usize, tail: usize) -> u64 {
    head as u64 | (tail as u64) << 32
}

fn unpack(x: u64) -> (usize, usize) {
    ((x & 0xFFFF_FFFF) as usize, (x >> 32) as usize)
}

impl<'p> Section<'p> {
    fn new(plan: &'p Plan, stealing: Stealing, tiles: Vec<usize>, skip: Vec<usize>) -> Section<'p> {
        let seqs: Vec<WorkerSeq> = plan
            .per_worker
            .iter()
            .map(|r| {
                let mut starts = Vec::with_capacity(r.len() + 1);
                let mut at = 0;
                starts.push(0);
                for g in &plan.groups[r.clone()] {
                    at += g.len();
                    starts.push(at);
                }
                WorkerSeq { groups: r.clone(), starts }
            })
            .collect();
        let cursors = seqs.iter().map(|s| CachePadded::new(AtomicU64::new(pack(0, *s.starts.last().expect("starts at 0"))))).collect();
        // Tiles are for the pool's workers; a replayed plan has as many.
        let tiles = if tiles.len() == seqs.len() { tiles } else { Vec::new() };
        Section { plan, seqs, cursors, stealing, tiles, skip }
    }

    /// The group of worker `w` holding position `pos`, and the offset in it.
    fn locate(&self, w: usize, pos: usize) -> (&Group, usize) {
        let s = &self.seqs[w];
        let k = s.starts.partition_point(|&x| x <= pos) - 1;
        (&self.plan.groups[s.groups.start + k], pos - s.starts[k])
    }

    /// The task at position `pos` of worker `w`'s sequence.
    fn task(&self, w: usize, pos: usize) -> [usize; 3] {
        let (g, off) = self.locate(w, pos);
        let space = self.plan.space;
        match g {
            Group::Linear(r) => space.point(r.start + off),
            Group::Tasks(r) => space.point(self.plan.tasks[r.start + off] as usize),
            Group::Box(b) => {
                let [a, bb, c] = b.raster;
                let ext = |d: usize| b.hi[d] - b.lo[d];
                let mut p = b.lo;
                p[a] += off % ext(a);
                p[bb] += (off / ext(a)) % ext(bb);
                p[c] += off / (ext(a) * ext(bb));
                p
            }
        }
    }

    /// The position where the group holding position `pos` of worker `w`
    /// starts.
    fn group_start(&self, w: usize, pos: usize) -> usize {
        let s = &self.seqs[w];
        s.starts[s.starts.partition_point(|&x| x <= pos) - 1]
    }

    /// The pattern scheme's unit at the tail of worker `w`'s sequence.
    fn unit_at_tail(&self, w: usize, tail: usize) -> StealUnit {
        if self.stealing != Stealing::Pattern || tail == 0 {
            return StealUnit(0);
        }
        let (g, _) = self.locate(w, tail - 1);
        steal::pattern_unit(g)
    }

    /// Take the next position of `w`'s own queue.
    fn take_own(&self, w: usize) -> Option<usize> {
        let c = &self.cursors[w];
        let mut cur = c.load(Ordering::Acquire);
        loop {
            let (h, t) = unpack(cur);
            if h >= t {
                return None;
            }
            match c.compare_exchange_weak(cur, pack(h + 1, t), Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some(h),
                Err(now) => cur = now,
            }
        }
    }

    /// Take positions from the tail of `victim`'s queue.
    fn steal_from(&self, victim: usize) -> Option<Range<usize>> {
        let c = &self.cursors[victim];
        let mut cur = c.load(Ordering::Acquire);
        loop {
            let (h, t) = unpack(cur);
            if h >= t {
                return None;
            }
            let unit = match self.stealing {
                Stealing::Recursive => steal::group_unit(h, t, self.group_start(victim, t - 1)),
                _ => self.unit_at_tail(victim, t),
            };
            let n = steal::amount(self.stealing, t - h, unit);
            if n == 0 {
                return None;
            }
            match c.compare_exchange_weak(cur, pack(h, t - n), Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Some(t - n..t),
                Err(now) => cur = now,
            }
        }
    }

    fn run_one<F: Fn([usize; 3]) + Sync>(&self, body: &F, p: [usize; 3], first_panic: &Mutex<Option<Box<dyn std::any::Any + Send>>>) {
        if !self.skip.is_empty() && self.skip.contains(&self.plan.space.index(p)) {
            return;
        }
        if let Err(e) = panic::catch_unwind(AssertUnwindSafe(|| body(p))) {
            let mut slot = first_panic.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(e);
        }
    }

    /// One driver: own queue first, then steal; returns (tasks stolen, steals).
    fn drive<F: Fn([usize; 3]) + Sync>(&self, body: &F, first_panic: &Mutex<Option<Box<dyn std::any::Any + Send>>>) -> (usize, usize) {
        let workers = self.seqs.len();
        let me = crate::current_worker_index().unwrap_or(0) % workers;
        let mut rng = XorShift::new(me as u64 ^ 0x5eed);
        let (mut stolen, mut steals) = (0, 0);
        let mut hint = None;
        loop {
            while let Some(pos) = self.take_own(me) {
                self.run_one(body, self.task(me, pos), first_panic);
            }
            let first = if workers > 1 { rng.below(workers - 1) } else { 0 };
            let mut got = None;
            for v in steal::victims(self.stealing, me, workers, first, hint, &self.tiles) {
                if let Some(r) = self.steal_from(v) {
                    got = Some((v, r));
                    break;
                }
            }
            let Some((v, r)) = got else { return (stolen, steals) };
            hint = Some(v);
            steals += 1;
            stolen += r.len();
            for pos in r {
                self.run_one(body, self.task(v, pos), first_panic);
            }
        }
    }
}
