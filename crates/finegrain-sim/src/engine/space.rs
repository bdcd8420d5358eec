//! Task spaces in simulation, as the thesis's runtime runs them (Yoo,
//! *Locality-Aware Task Management on Many-Core Processors*, Stanford PhD
//! thesis 2012, §4.4.1 and chapter 6), and as `finegrain::TaskSpace::run`
//! does.
//!
//! **Planning.** Every recorded space ([`finegrain::taskgraph::SpaceRecord`])
//! is planned before the replay starts, for the simulated thread count, by
//! the same `finegrain::policy::locality` manager functions the runtime
//! calls, with `tiles` from the preset (the threads that share an L2:
//! Tiled-32's 8 tiles of 4 cores; every thread its own on Throughput-32).
//! Which manager is the run's option ([`SpaceManager`]): the recorded hint's,
//! the baseline, random, or plans supplied per space (the reference
//! scheduler's). A bad supplied plan is an error before the run.
//!
//! **Locality groups** (a recorded MapReduce map phase, hint
//! [`SpaceHint::Homes`]; Yoo's thesis §3.2.1): each task belongs to the
//! locality group whose memory holds its chunk's first line, as the
//! machine places pages (`Machine::group_of_line`), and each group's tasks
//! are cut over that group's threads (`policy::locality::groups::plan`).
//! With nearest-first stealing a thread takes its own chip's tasks before
//! another chip's, which is the thesis's "local queue first, remote queues
//! last"; one queue per thread stands in for one shared queue per group.
//!
//! **Running.** When a task first spawns a task of a space, the space
//! opens: each thread's queue holds its planned tasks in order, and parked
//! threads wake. The spawner's remaining spawns of that space cost a queue
//! push each ([`costs::LOCAL_PUSH`]) and put nothing anywhere else: the
//! tasks are already queued. A thread looking for work runs the rest of
//! what it stole last, then drains its own queue from the head (a
//! compare-and-swap on its queue word), then steals from the tail of other queues:
//! victims in the order of `steal::victims`, amounts by `steal::amount`
//! with the unit of `steal::pattern_unit` or `steal::group_unit` (the
//! runtime's very calls). A thief runs what it stole itself; stolen tasks
//! are not stealable again. Tasks a space task spawns go through the
//! simulated policy's own mechanism, as in the runtime.
//!
//! **Costs.** Each queue is a head/tail word on its own line, accessed
//! through the cache model: the owner's take writes its word, a thief reads
//! the victim's word and, when it takes something, writes it (so a steal
//! costs the coherence misses of a line the owner keeps writing) and pays
//! [`costs::WS_STEAL_ATTEMPT`]; an owner's take pays [`costs::LOCAL_POP`].
//! Planning itself costs no simulated time (the runtime measures it:
//! `docs/locality.md`).
//!
//! **Offline threads** (thesis §6.4): with `offline = k`, the last `k`
//! threads never take from a space: their planned tasks stay queued until
//! the others steal them all.

use super::context::Ctx;
use super::costs;
use super::item::{Item, Work};
use super::result::{Bucket, Op};
use crate::machine::Machine;
use crate::SimError;
use finegrain::policy::locality::steal::{self, Stealing};
use finegrain::policy::locality::{binning, chunked, flux, groups, signature, Group, Plan, Space};
use finegrain::policy::pdf::SerialPath;
use finegrain::taskgraph::{SpaceHint, SpaceRecord, TaskGraph, TaskId, NO_HOME};
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

pub use super::config::{Locality, SpaceManager};

/// One space's plan as queues: per thread its tasks in planned order, with
/// where each group starts (for the steal units).
#[derive(Debug)]
pub(crate) struct Queues {
    plan: Plan,
    /// Per thread: trace task ids in planned order.
    seq: Vec<Vec<TaskId>>,
    /// Per thread: the start position of each of its groups, ascending.
    starts: Vec<Vec<usize>>,
    head: Vec<usize>,
    tail: Vec<usize>,
    left: usize,
}

impl Queues {
    fn new(rec: &SpaceRecord, plan: Plan) -> Queues {
        let n = plan.workers();
        let mut seq = Vec::with_capacity(n);
        let mut starts = Vec::with_capacity(n);
        for w in 0..n {
            let mut s = Vec::new();
            let mut st = Vec::new();
            for g in &plan.groups[plan.per_worker[w].clone()] {
                st.push(s.len());
                s.extend(plan.group_tasks(g).map(|i| rec.tasks[i]));
            }
            seq.push(s);
            starts.push(st);
        }
        let tail = seq.iter().map(Vec::len).collect();
        Queues { left: rec.tasks.len(), plan, seq, starts, head: vec![0; n], tail }
    }

    /// The group of thread `w` that holds position `pos`: its index in
    /// `plan.groups` and its start position.
    fn group_at(&self, w: usize, pos: usize) -> (&Group, usize) {
        let st = &self.starts[w];
        let k = st.partition_point(|&x| x <= pos) - 1;
        (&self.plan.groups[self.plan.per_worker[w].start + k], st[k])
    }

    /// How many tasks a thief takes from `v` under `scheme`.
    fn steal_amount(&self, scheme: Stealing, v: usize) -> usize {
        let (h, t) = (self.head[v], self.tail[v]);
        if h >= t {
            return 0;
        }
        let (g, gs) = self.group_at(v, t - 1);
        let unit = match scheme {
            Stealing::Recursive => steal::group_unit(h, t, gs),
            Stealing::Pattern => steal::pattern_unit(g),
            Stealing::Baseline | Stealing::Nearest => steal::StealUnit(0),
        };
        steal::amount(scheme, t - h, unit)
    }
}

/// The spaces of a replay.
#[derive(Debug)]
pub(crate) struct SpaceState {
    /// The space of each task, `NONE` if none.
    space_of: Vec<u32>,
    /// Per space: its queues, once planned.
    queues: Vec<Queues>,
    opened: Vec<bool>,
    /// Open spaces with tasks left, oldest first.
    active: Vec<usize>,
    /// Per thread: tasks it stole and has not started, with their planned owner.
    batch: Vec<VecDeque<(TaskId, u32)>>,
    /// Per thread: the last victim a steal succeeded on.
    hint: Vec<Option<usize>>,
    tiles: Vec<usize>,
    stealing: Stealing,
    online: usize,
    pub steals: u64,
    pub stolen: u64,
    pub tasks: u64,
    pub starts: Vec<Vec<TaskId>>,
    log: bool,
}

/// The locality groups of a [`SpaceHint::Homes`] space on `m`: per task the
/// group whose memory holds its home line, per thread its chip's group.
/// On a machine with one memory the tiles are the groups (the runtime's
/// cache domains) and the tasks are dealt to them in contiguous blocks, as
/// `finegrain::mapreduce` does on one NUMA node; so is a task whose home is
/// not known.
fn home_groups(homes: &[u64], m: &Machine, tiles: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let n = homes.len().max(1);
    if m.groups() > 1 {
        let g = m.groups();
        let of_task = homes.iter().enumerate().map(|(c, &l)| if l == NO_HOME { None } else { m.group_of_line(l) }.unwrap_or(c * g / n)).collect();
        return (of_task, (0..tiles.len()).map(|t| m.group_of_thread(t)).collect());
    }
    let mut distinct = tiles.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let of_thread: Vec<usize> = tiles.iter().map(|t| distinct.binary_search(t).expect("listed")).collect();
    let g = distinct.len().max(1);
    ((0..homes.len()).map(|c| c * g / n).collect(), of_thread)
}

/// The plan of `rec` for `threads` threads under `manager` on `m`.
fn plan_space(k: usize, rec: &SpaceRecord, manager: &SpaceManager, m: &Machine, tiles: &[usize], seed: u64) -> Result<Plan, SimError> {
    let threads = tiles.len();
    let bad = |e: finegrain::policy::locality::PlanError| SimError::Policy(format!("task space {k}: {e}"));
    let space = Space::new(&rec.dims.map(|d| d as usize)).map_err(bad)?;
    let by_hint = || match &rec.hint {
        SpaceHint::None | SpaceHint::Plan => chunked::baseline(space, threads),
        SpaceHint::Random(s) => chunked::random(space, threads, *s),
        SpaceHint::Flux(v) => flux::plan(space, *v, threads, tiles),
        SpaceHint::Bins { keys, min, max } => binning::plan(space, keys, *min, *max, threads, tiles),
        SpaceHint::Signatures(s) => signature::plan(space, s, threads, tiles),
        SpaceHint::Homes(h) => {
            let (of_task, of_thread) = home_groups(h, m, tiles);
            groups::plan(space, &of_task, &of_thread)
        }
    };
    let plan = match manager {
        SpaceManager::Hint => by_hint(),
        SpaceManager::Baseline => chunked::baseline(space, threads),
        SpaceManager::Random => chunked::random(space, threads, seed ^ k as u64),
        SpaceManager::Plans(m) => match m.get(&k) {
            Some(p) => {
                if p.workers() != threads {
                    return Err(SimError::Policy(format!("task space {k}: the plan is for {} threads, the run has {threads}", p.workers())));
                }
                p.check(space).map(|_| p.clone())
            }
            None => by_hint(),
        },
    }
    .map_err(bad)?;
    Ok(plan)
}

/// The line of thread `w`'s queue word of space `k`.
fn queue_line(k: usize, w: usize) -> u64 {
    (2 << 40) + ((k as u64) << 16) + w as u64
}

impl SpaceState {
    /// Plan every space of `g` for `threads` threads of `m`.
    pub(crate) fn new(g: &TaskGraph, loc: &Locality, threads: usize, m: &Machine, seed: u64) -> Result<SpaceState, SimError> {
        let tiles: Vec<usize> = (0..threads).map(|w| m.tile_of(w)).collect();
        if loc.offline >= threads && !g.spaces.is_empty() {
            return Err(SimError::Threads(format!("offline={} leaves no thread of {threads} to run the task spaces", loc.offline)));
        }
        let mut space_of = vec![NONE; g.tasks.len()];
        let mut queues = Vec::with_capacity(g.spaces.len());
        for (k, rec) in g.spaces.iter().enumerate() {
            for &t in &rec.tasks {
                space_of[t as usize] = k as u32;
            }
            queues.push(Queues::new(rec, plan_space(k, rec, &loc.manager, m, &tiles, seed)?));
        }
        Ok(SpaceState {
            space_of,
            opened: vec![false; queues.len()],
            queues,
            active: Vec::new(),
            batch: vec![VecDeque::new(); threads],
            hint: vec![None; threads],
            tiles,
            stealing: loc.stealing,
            online: threads - loc.offline,
            steals: 0,
            stolen: 0,
            tasks: 0,
            starts: if loc.log_starts { vec![Vec::new(); threads] } else { Vec::new() },
            log: loc.log_starts,
        })
    }
}

impl SpaceState {
    /// A spawn step of `child`: if it belongs to a space, open the space
    /// (first time: its threads wake `wake` cycles later, the mechanism's
    /// wake-up) and return the spawner's cost; `None` otherwise.
    pub(crate) fn space_spawn(&mut self, cx: &mut Ctx<'_>, child: TaskId, t: u64, wake: u64) -> Option<u64> {
        let k = *self.space_of.get(child as usize)?;
        if k == NONE {
            return None;
        }
        let k = k as usize;
        if !self.opened[k] {
            self.opened[k] = true;
            self.active.push(k);
            for w in 0..self.online {
                cx.wake(w, t + wake);
            }
        }
        Some(costs::LOCAL_PUSH)
    }

    /// Work from the open spaces for thread `w`: its own queue, then what it
    /// stole, then a steal. `Err(cycles)` when it found nothing there, after
    /// `cycles` of looking (charged here to `steal_fail`).
    pub(crate) fn space_find(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> Result<(Item, u64, Bucket), u64> {
        if w >= self.online {
            return Err(0);
        }
        // What it stole last, before its own queues: the runtime's driver
        // runs a stolen range through before it looks again.
        if let Some((task, from)) = self.batch[w].pop_front() {
            return Ok((self.space_item(w, task, from), 1, Bucket::Dequeue));
        }
        if self.active.is_empty() {
            return Err(0);
        }
        // Own queues, oldest space first.
        let mut c = 0;
        let mut i = 0;
        while i < self.active.len() {
            let k = self.active[i];
            let line = queue_line(k, w);
            let q = &mut self.queues[k];
            if w < q.head.len() && q.head[w] < q.tail[w] {
                let task = q.seq[w][q.head[w]];
                q.head[w] += 1;
                q.left -= 1;
                c += costs::LOCAL_POP + cx.sched_access(w, line, true, t + c);
                cx.op(Op::Dequeue, c);
                return Ok((self.space_item(w, task, w as u32), c, Bucket::Dequeue));
            }
            if q.left == 0 {
                self.active.remove(i);
            } else {
                i += 1;
            }
        }
        // Steal: the first active space with tasks left.
        let Some(&k) = self.active.first() else { return Err(c) };
        let scheme = self.stealing;
        let n = self.queues[k].head.len();
        let first = if n > 1 { cx.w[w].rng.below(n - 1) } else { 0 };
        let order = steal::victims(scheme, w, n, first, self.hint[w], &self.tiles);
        for v in order {
            c += cx.sched_access(w, queue_line(k, v), false, t + c);
            let take = self.queues[k].steal_amount(scheme, v);
            if take == 0 {
                continue;
            }
            c += costs::WS_STEAL_ATTEMPT + cx.sched_access(w, queue_line(k, v), true, t + c);
            let q = &mut self.queues[k];
            let to = q.tail[v];
            q.tail[v] -= take;
            q.left -= take;
            let from = q.tail[v];
            let got: Vec<TaskId> = q.seq[v][from..to].to_vec();
            self.batch[w].extend(got.into_iter().map(|x| (x, v as u32)));
            self.hint[w] = Some(v);
            self.steals += 1;
            self.stolen += take as u64;
            cx.op(Op::Steal, c);
            let (task, from) = self.batch[w].pop_front().expect("a steal takes at least one task");
            return Ok((self.space_item(w, task, from), c, Bucket::StealOk));
        }
        cx.op(Op::FailedRound, c);
        cx.charge(w, Bucket::StealFail, c);
        Err(c)
    }

    fn space_item(&mut self, w: usize, task: TaskId, from: u32) -> Item {
        self.tasks += 1;
        if self.log {
            self.starts[w].push(task);
        }
        Item { work: Work::Task(task), path: SerialPath::default(), from }
    }
}
