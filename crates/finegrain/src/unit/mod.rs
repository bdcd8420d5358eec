//! The central task unit, the mechanism of `carbon`, `sw-hier` and `pdf`.
//! `sw-hier` and `pdf` share one global queue under one lock; `carbon` runs
//! on Carbon's global task unit of per-worker lanes, each with its own lock
//! (`gtu/`; Kumar, Hughes, Nguyen, "Carbon: Architectural Support for
//! Fine-Grained Parallelism on Chip Multiprocessors", ISCA 2007, section 4.3).
//! `sw-hier` also keeps a private queue per worker, touched by its owner and,
//! after a starving worker's bound (`policy::swhier`), by that worker taking
//! its oldest task. The decisions (thresholds, victims, the order of the unit's queue,
//! serial positions) are in `policy/{carbon,swhier,pdf,unit}.rs`.
//!
//! What lives where, and the invariants (one stack per worker, no task lost
//! or run twice, no worker sleeping through work, serial order): `README.md`
//! next to this file.

use crate::job::{JobHeader, JobRef};
use crate::mechanism::{Handles, Mechanism, Task};
use crate::policy::carbon::Carbon;
use crate::policy::pdf::SerialPath;
use crate::policy::search::Source;
use crate::policy::swhier::SwHier;
use crate::policy::unit::Key;
use crate::policy::UnitPolicy;
use crate::stats::Counter;
use crate::gtu::Gtu;
use crate::sync::{lock, AtomicUsize, Mutex, Ordering};
use std::cell::{Cell, RefCell};
use crossbeam_utils::CachePadded;
use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

/// A task with its key in the central order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) key: Key,
    pub(crate) job: JobRef,
    /// Serial-order position the task runs at (`pdf`).
    pub(crate) path: SerialPath,
    /// The worker that queued it.
    pub(crate) from: usize,
    /// A stack address of the push (a frame below the spawner's); `usize::MAX`
    /// for work from outside. A worker waiting past its help floor runs only
    /// its own tasks pushed below the frame it waits in (`newest_task`).
    pub(crate) sp: usize,
}

/// The shared unit.
pub(crate) struct Shared {
    state: Mutex<UnitState>,
    /// Tasks in the global queue: what idle workers look at.
    total: AtomicUsize,
    /// `carbon`: the per-worker lanes.
    gtu: Gtu<JobRef>,
    /// `sw-hier`: every worker's private queue, newest at the back. Its
    /// owner pushes and pops at the back; another worker only takes the
    /// oldest (front) task, after starving for the policy's bound
    /// (`SwHier::rescue_due`), hence the lock (uncontended but for those).
    near: Box<[CachePadded<Mutex<VecDeque<Entry>>>]>,
    /// Length of each private queue, for idle workers to look at.
    near_len: Box<[CachePadded<AtomicUsize>]>,
}

struct UnitState {
    /// `sw-hier`, `pdf`: the global queue, smallest key first.
    global: BTreeMap<Key, Entry>,
}

impl Shared {
    pub(crate) fn new(n: usize, policy: UnitPolicy) -> Shared {
        let buffer_visible = matches!(policy, UnitPolicy::Carbon(c) if c.prefetch_steal);
        // Only `carbon` uses the lanes; the others get the smallest ring.
        let capacity = if let UnitPolicy::Carbon(c) = policy { c.deque } else { 1 };
        Shared {
            state: Mutex::new(UnitState { global: BTreeMap::new() }),
            total: AtomicUsize::new(0),
            gtu: Gtu::new(n, capacity, buffer_visible),
            near: (0..n).map(|_| CachePadded::new(Mutex::new(VecDeque::new()))).collect(),
            near_len: (0..n).map(|_| CachePadded::new(AtomicUsize::new(0))).collect(),
        }
    }

    /// Is any task in the unit, for a sleeping worker to take?
    pub(crate) fn has_work(&self) -> bool {
        self.total.load(Ordering::SeqCst) > 0 || self.gtu.has_work()
    }

    fn total_relaxed(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }
}

impl UnitState {
    fn count(&self) -> usize {
        self.global.len()
    }
}

/// One worker's side of the unit (owner only).
pub(crate) struct UnitWorker {
    unit: *const Shared,
    policy: UnitPolicy,
    index: usize,
    /// `sw-hier`: when this worker last found no work, while it has found none since.
    starving_since: Cell<Option<Instant>>,
    /// Sequence numbers for keys (unique per worker: `seq * n + index`).
    seq: Cell<u64>,
    /// Serial-order position of the code running now (`pdf`).
    path: RefCell<SerialPath>,
    /// Priority given to tasks spawned now (`order=priority`).
    priority: Cell<i64>,
}

impl UnitWorker {
    /// # Safety
    /// `unit` outlives the worker.
    pub(crate) unsafe fn new(unit: &Shared, policy: UnitPolicy, index: usize) -> UnitWorker {
        UnitWorker {
            unit,
            policy,
            index,
            starving_since: Cell::new(None),
            seq: Cell::new(0),
            path: RefCell::new(SerialPath::default()),
            priority: Cell::new(0),
        }
    }

    /// The priority of tasks spawned from now on (`with_priority`); returns the old one.
    pub(crate) fn set_priority(&self, p: i64) -> i64 {
        self.priority.replace(p)
    }

    fn unit(&self) -> &Shared {
        // SAFETY: outlives the worker (`new`).
        unsafe { &*self.unit }
    }

    fn next_key(&self, h: &Handles, path: &SerialPath) -> Key {
        let s = self.seq.get();
        self.seq.set(s + 1);
        let n = h.workers as u64;
        self.policy.global_order().key(s.wrapping_mul(n).wrapping_add(h.index as u64), self.priority.get(), path)
    }

    /// Carbon's parameters, if this is Carbon's unit.
    #[inline(always)]
    pub(crate) fn carbon(&self) -> Option<Carbon> {
        self.carbon_ref().copied()
    }

    /// [`carbon`](Self::carbon) by reference: a `join` passes it down
    /// without copying the parameters at every level.
    #[inline(always)]
    pub(crate) fn carbon_ref(&self) -> Option<&Carbon> {
        match &self.policy {
            UnitPolicy::Carbon(c) => Some(c),
            _ => None,
        }
    }

    /// `carbon`: TQ_ENQUEUE of a prepared-here job, counted and perhaps
    /// sampled (`stats`).
    #[inline(always)]
    fn carbon_push_counted(&self, h: &Handles, c: &Carbon, job: JobRef) {
        h.hot.enqueue_op(h.counters(), || self.carbon_push(h, c, job))
    }

    /// `carbon`: TQ_ENQUEUE, not counted (a `join` counts its own).
    #[inline(always)]
    pub(crate) fn carbon_push(&self, h: &Handles, c: &Carbon, job: JobRef) {
        // SAFETY: not yet visible to other threads.
        unsafe { JobHeader::prepare(job.as_ptr(), h.index) };
        if self.unit().gtu.enqueue(h.index, c, job) {
            h.sleep().notify_new_work();
        }
    }

    /// `carbon`: take `job` back if it is still this worker's newest task.
    #[inline(always)]
    pub(crate) fn carbon_take_back(&self, h: &Handles, c: &Carbon, job: JobRef) -> bool {
        self.unit().gtu.take_back(h.index, c, job)
    }

    /// `carbon`: TQ_ENQUEUE_LOOP of a prepared-here loop job that hands out
    /// `tasks` tasks (`loops.rs`).
    pub(crate) fn carbon_push_loop(&self, h: &Handles, c: Carbon, job: JobRef, tasks: usize) {
        // The descriptor stands for `tasks` tasks, each counted when it runs.
        for _ in 0..tasks {
            h.hot.enqueue();
        }
        if self.unit().gtu.enqueue_loop(h.index, &c, job, tasks) {
            h.sleep().notify_new_work();
        }
    }

    /// Queue a task that runs at serial position `path`; returns its entry.
    pub(crate) fn push_at(&self, h: &Handles, job: JobRef, path: SerialPath) -> Entry {
        if let UnitPolicy::Carbon(c) = self.policy {
            self.carbon_push_counted(h, &c, job);
            return Entry::injected(job);
        }
        h.hot.enqueue_op(h.counters(), || self.push_at_uncounted(h, job, path))
    }

    fn push_at_uncounted(&self, h: &Handles, job: JobRef, path: SerialPath) -> Entry {
        // SAFETY: not yet visible to other threads.
        unsafe { JobHeader::prepare(job.as_ptr(), h.index) };
        let here = 0u8;
        let sp = std::ptr::addr_of!(here) as usize;
        let e = Entry { key: self.next_key(h, &path), job, path, from: h.index, sp };
        match self.policy {
            UnitPolicy::SwHier(s) => self.swhier_enqueue(h, s, e.clone()),
            _ => self.to_global(h, std::iter::once(e.clone())),
        }
        e
    }

    /// A `join` begins at the current serial position: `b` is queued at its
    /// place (`SerialPath::join`), and the caller runs `a` at its own.
    /// Returns `b`'s entry and the position to continue at afterwards.
    #[inline]
    pub(crate) fn join_begin(&self, h: &Handles, b: JobRef) -> (Entry, SerialPath) {
        if let UnitPolicy::Carbon(_) = self.policy {
            return (self.push_at(h, b, SerialPath::default()), SerialPath::default());
        }
        let paths = self.path.borrow().join();
        let e = self.push_at(h, b, paths.b);
        *self.path.borrow_mut() = paths.a;
        (e, paths.after)
    }

    /// `a` returned: the caller is at `b`'s position, until the join ends
    /// ([`UnitWorker::join_end`]).
    #[inline]
    pub(crate) fn join_after_a(&self, e: &Entry) {
        if !matches!(self.policy, UnitPolicy::Carbon(_)) {
            *self.path.borrow_mut() = e.path.clone();
        }
    }

    /// The join is over: continue after it.
    #[inline]
    pub(crate) fn join_end(&self, after: SerialPath) {
        if !matches!(self.policy, UnitPolicy::Carbon(_)) {
            *self.path.borrow_mut() = after;
        }
    }

    /// Does this unit hand tasks out in serial order (`pdf`)?
    pub(crate) fn serial(&self) -> bool {
        matches!(self.policy.global_order(), crate::policy::unit::GlobalOrder::Serial)
    }

    /// The serial position of the code running now (`pdf`).
    pub(crate) fn path(&self) -> SerialPath {
        self.path.borrow().clone()
    }

    /// Continue at `p` (`pdf`: after a task graph).
    pub(crate) fn set_path(&self, p: SerialPath) {
        *self.path.borrow_mut() = p;
    }

    fn to_global(&self, h: &Handles, entries: impl Iterator<Item = Entry>) {
        let unit = self.unit();
        let mut st = lock(&unit.state);
        for e in entries {
            st.global.insert(e.key.clone(), e);
        }
        unit.total.store(st.count(), Ordering::SeqCst);
        drop(st);
        h.sleep().notify_new_work();
    }

    /// This worker's private queue (`sw-hier`), locked; `Near::drop` publishes its length.
    fn near(&self, h: &Handles) -> Near<'_> {
        let u = self.unit();
        Near { q: lock(&u.near[h.index]), len: &u.near_len[h.index] }
    }

    fn swhier_enqueue(&self, h: &Handles, s: SwHier, e: Entry) {
        let mut near = self.near(h);
        near.push_back(e);
        let mut k = s.spill_count(near.len());
        if k == 0 && s.share_now(self.unit().total_relaxed(), h.sleep().sleeping()) {
            k = 1;
        }
        if k > 0 {
            let out: Vec<Entry> = near.drain(..k).collect();
            drop(near);
            self.to_global(h, out.into_iter());
        }
    }

    /// End of a `join`: if `e` is still this worker's newest task, take it.
    pub(crate) fn take_back(&self, h: &Handles, e: &Entry) -> bool {
        if let UnitPolicy::Carbon(c) = self.policy {
            return self.unit().gtu.take_back(h.index, &c, e.job);
        }
        {
            let mut near = self.near(h);
            if near.back() == Some(e) {
                near.pop_back();
                return true;
            }
        }
        let unit = self.unit();
        let mut st = lock(&unit.state);
        if st.global.remove(&e.key).is_some() {
            unit.total.store(st.count(), Ordering::SeqCst);
            return true;
        }
        false
    }

    /// This worker's newest own task (a `join` running what is left above its
    /// second closure); `None` if it has none left here.
    pub(crate) fn pop_newest(&self, h: &Handles) -> Option<JobRef> {
        if let UnitPolicy::Carbon(c) = self.policy {
            return self.unit().gtu.pop_newest(h.index, &c);
        }
        self.near(h).pop_back().map(|e| e.job)
    }

    /// Up to `k` tasks from the front of the global queue, first one last.
    fn take_global(&self, h: &Handles, k: usize) -> Vec<Entry> {
        let unit = self.unit();
        if unit.total_relaxed() == 0 {
            return Vec::new();
        }
        let mut st = lock(&unit.state);
        let mut got = Vec::with_capacity(k);
        while got.len() < k {
            match st.global.pop_first() {
                Some((_, e)) => got.push(e),
                None => break,
            }
        }
        unit.total.store(st.count(), Ordering::SeqCst);
        drop(st);
        let foreign = got.iter().filter(|e| e.from != h.index).count();
        if foreign > 0 {
            h.counters().count(Counter::Steals, 1);
            h.counters().count(Counter::TasksStolen, foreign as u64);
        }
        got.reverse();
        got
    }

    /// `Mechanism::take_newest`: the newest of this worker's own tasks
    /// pushed below stack address `below` (the frame it waits in), so
    /// spawned by that frame's body or deeper: the private queue's, then the
    /// global queue's, newest by queueing order. Tasks of outer frames are
    /// left alone: one of them may be a large subtree whose own waits would
    /// nest further (a `join`'s waiter overflowed `tests/help_depth.rs`'s
    /// stacks that way). The global queue is scanned under its lock, but only
    /// by a worker past its help floor. Carbon's lanes hold bare jobs, so
    /// there only a worker alone in its pool helps (its newest task is then
    /// always the innermost frame's).
    fn newest_task(&self, h: &Handles, below: usize) -> Option<Entry> {
        let mine = |e: &Entry| e.from == h.index && e.sp < below;
        match self.policy {
            UnitPolicy::Carbon(c) if h.workers == 1 => return self.unit().gtu.pop_newest(h.index, &c).map(Entry::injected),
            UnitPolicy::Carbon(_) => return None,
            UnitPolicy::SwHier(_) => {
                let mut near = self.near(h);
                if let Some(i) = (0..near.len()).rev().find(|&i| mine(&near[i])) {
                    return near.remove(i);
                }
            }
            UnitPolicy::Pdf => {}
        }
        let unit = self.unit();
        if unit.total_relaxed() == 0 {
            return None;
        }
        let order = self.policy.global_order();
        let mut st = lock(&unit.state);
        let key = st.global.iter().filter(|(_, e)| mine(e)).max_by_key(|(k, _)| order.queued_at(k)).map(|(k, _)| k.clone());
        let got = key.and_then(|k| st.global.remove(&k));
        unit.total.store(st.count(), Ordering::SeqCst);
        got
    }

    fn swhier_dequeue(&self, h: &Handles, s: SwHier) -> Option<Entry> {
        if let Some(e) = self.near(h).pop_back() {
            return Some(e);
        }
        let mut got = self.take_global(h, s.fetch_count(self.unit().total_relaxed().max(1), h.workers));
        let first = got.pop()?;
        // The rest go to the private queue, earliest in the global order on top.
        let mut near = self.near(h);
        while let Some(e) = got.pop() {
            near.push_front(e);
        }
        Some(first)
    }

    /// TQ_DEQUEUE: the buffered or newest own task, else a steal of the
    /// nearest lane's oldest half; then a prefetch for the buffer.
    fn carbon_dequeue(&self, h: &Handles, c: Carbon) -> Option<Entry> {
        let gtu = &self.unit().gtu;
        let job = match gtu.pop_newest(h.index, &c) {
            Some(j) => j,
            None => self.carbon_steal(h, c)?,
        };
        self.carbon_prefetch(h, c);
        Some(Entry::injected(job))
    }

    /// Does a private queue other than this worker's hold tasks?
    fn others_hold_tasks(&self) -> bool {
        let u = self.unit();
        (0..u.near_len.len()).any(|v| v != self.index && u.near_len[v].load(Ordering::SeqCst) > 0)
    }

    /// See `out_of_work`. The victims are looked at in turn from the next
    /// worker on; the task leaves its queue under the queue's lock, so its
    /// owner either takes it back first or finds it in the global queue
    /// (`take_back` looks there), and exactly one worker runs it.
    #[cold]
    fn swhier_rescue(&self, h: &Handles, s: SwHier) {
        let now = Instant::now();
        let since = *self.starving_since.get().get_or_insert(now);
        self.starving_since.set(Some(since));
        let starving_us = now.saturating_duration_since(since).as_micros() as u64;
        let u = self.unit();
        for k in 1..h.workers {
            let v = (h.index + k) % h.workers;
            if !s.rescue_due(starving_us, u.near_len[v].load(Ordering::Relaxed)) {
                continue;
            }
            let taken = Near { q: lock(&u.near[v]), len: &u.near_len[v] }.pop_front();
            if let Some(e) = taken {
                self.starving_since.set(None);
                self.to_global(h, std::iter::once(e));
                return;
            }
        }
    }

    /// A steal from the nearest lane with work: keep all but the newest
    /// stolen task in the own lane, return that one.
    fn carbon_steal(&self, h: &Handles, c: Carbon) -> Option<JobRef> {
        let gtu = &self.unit().gtu;
        let mut got = gtu.steal(h.index, &c);
        let mut last = got.pop()?;
        h.counters().count(Counter::Steals, 1);
        h.counters().count(Counter::TasksStolen, got.iter().map(|i| i.left as u64).sum::<u64>() + last.left as u64);
        let job = last.job;
        if last.left > 1 {
            // A split loop entry: run one of its tasks, keep the rest.
            last.left -= 1;
            got.push(last);
        }
        if !got.is_empty() && gtu.keep(h.index, &c, got.into_iter()) {
            h.sleep().notify_new_work();
        }
        Some(job)
    }

    /// Fill an empty prefetch buffer from the GTU (own deque, else a steal),
    /// unless the GTU holds fewer tasks than there are workers.
    fn carbon_prefetch(&self, h: &Handles, c: Carbon) {
        let gtu = &self.unit().gtu;
        if !c.prefetch_allowed(gtu.queued(), h.workers) || !gtu.buffer_empty(h.index) {
            return;
        }
        let job = match gtu.own_newest_queued(h.index, &c) {
            Some(j) => j,
            None => match self.carbon_steal(h, c) {
                Some(j) => j,
                None => return,
            },
        };
        if gtu.buffer(h.index, &c, job) {
            h.sleep().notify_new_work();
        }
    }
}

/// A locked private queue (`sw-hier`); publishes its length when released.
struct Near<'a> {
    q: crate::sync::MutexGuard<'a, VecDeque<Entry>>,
    len: &'a AtomicUsize,
}

impl std::ops::Deref for Near<'_> {
    type Target = VecDeque<Entry>;
    fn deref(&self) -> &VecDeque<Entry> {
        &self.q
    }
}

impl std::ops::DerefMut for Near<'_> {
    fn deref_mut(&mut self) -> &mut VecDeque<Entry> {
        &mut self.q
    }
}

impl Drop for Near<'_> {
    fn drop(&mut self) {
        self.len.store(self.q.len(), Ordering::SeqCst);
    }
}

impl Task for Entry {
    /// Work from outside the pool runs at the root of serial order.
    fn injected(job: JobRef) -> Entry {
        Entry { key: Key { primary: 0, pos: Default::default(), seq: 0 }, job, path: SerialPath::default(), from: usize::MAX, sp: usize::MAX }
    }
    fn job(self) -> JobRef {
        self.job
    }
}

impl Mechanism for UnitWorker {
    type Task = Entry;
    const SEARCH: &'static [Source] = crate::policy::search::order(crate::policy::Mechanism::Unit);
    const POP_IS_SEARCH: bool = true;

    /// A spawn (scope, phase, graph): queued at its serial place
    /// (`SerialPath::spawn`); the spawner continues after it.
    fn push(&self, h: &Handles, job: JobRef) {
        if let UnitPolicy::Carbon(_) = self.policy {
            self.push_at(h, job, SerialPath::default());
            return;
        }
        let paths = self.path.borrow().spawn();
        *self.path.borrow_mut() = paths.rest;
        self.push_at(h, job, paths.task);
    }

    /// The next task to run, in the policy's order (own tasks first).
    fn pop(&self, h: &Handles) -> Option<Entry> {
        match self.policy {
            UnitPolicy::Carbon(c) => self.carbon_dequeue(h, c),
            UnitPolicy::SwHier(s) => self.swhier_dequeue(h, s),
            UnitPolicy::Pdf => self.take_global(h, 1).pop(),
        }
    }

    fn find(&self, _h: &Handles, _source: Source, _in_join: bool) -> Option<Entry> {
        None
    }

    fn take_newest(&self, h: &Handles, below: usize) -> Option<Entry> {
        self.newest_task(h, below)
    }

    #[inline]
    fn found_work(&self, _h: &Handles) {
        self.starving_since.set(None);
    }

    /// `sw-hier`: starving past the bound, move the oldest task of another
    /// worker's private queue to the global queue (`policy::swhier`); the
    /// next round takes it from there like any global task.
    fn out_of_work(&self, h: &Handles, _waiting: bool) {
        if let UnitPolicy::SwHier(s) = self.policy {
            if s.bound_us.is_some() {
                self.swhier_rescue(h, s);
            }
        }
    }

    /// `sw-hier` with a bound: another worker's private queue holds tasks,
    /// which this worker will move once it has starved for the bound. Checked
    /// by the sleep protocol after the sleep is announced, against the owner's
    /// store of its queue's length before it looks for sleepers
    /// (`swhier_enqueue`; both SeqCst): a worker never parks without a
    /// timeout while a private queue it could rescue from holds a task.
    #[inline]
    fn signal(&self) -> bool {
        matches!(self.policy, UnitPolicy::SwHier(s) if s.bound_us.is_some()) && self.others_hold_tasks()
    }

    /// `sw-hier` with a rescue bound: any private queue (this worker's too)
    /// holds a task an idle worker would rescue.
    fn work_for_sleepers(&self) -> bool {
        let u = self.unit();
        matches!(self.policy, UnitPolicy::SwHier(s) if s.bound_us.is_some()) && u.near_len.iter().any(|l| l.load(Ordering::SeqCst) > 0)
    }

    /// `sw-hier`: while another private queue holds tasks, park for the bound at most.
    fn park_timeout(&self, _h: &Handles) -> Option<Duration> {
        match self.policy {
            UnitPolicy::SwHier(s) => s.park_timeout_us(self.others_hold_tasks()).map(Duration::from_micros),
            _ => None,
        }
    }

    /// Run a dequeued task at its serial position.
    fn run(&self, e: Entry, exec: impl FnOnce(JobRef)) {
        if let UnitPolicy::Carbon(_) = self.policy {
            return exec(e.job);
        }
        let saved = self.path.replace(e.path);
        exec(e.job);
        *self.path.borrow_mut() = saved;
    }

    fn wants_split(&self, h: &Handles) -> bool {
        let tasks = match self.policy {
            UnitPolicy::Carbon(_) => self.unit().gtu.queued(),
            _ => self.unit().total_relaxed(),
        };
        let near_empty = self.unit().near_len[h.index].load(Ordering::Relaxed) == 0;
        crate::policy::split::unit(self.policy, near_empty, tasks, h.workers)
    }
}
