//! The central task unit, the mechanism of `carbon`, `sw-hier` and `pdf`:
//! one task unit shared by all workers under one lock, which serves one
//! request at a time like Carbon's global task unit (Kumar, Hughes, Nguyen,
//! "Carbon: Architectural Support for Fine-Grained Parallelism on Chip
//! Multiprocessors", ISCA 2007, section 4.3), plus per-worker state only its
//! owner touches (a prefetch buffer or private queue, and a software overflow
//! queue). The decisions (thresholds, victims, the order of the unit's queue,
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
use crate::sync::{lock, AtomicUsize, Mutex, Ordering};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};

/// A task with its key in the central order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) key: Key,
    pub(crate) job: JobRef,
    /// Serial-order position the task runs at (`pdf`).
    pub(crate) path: SerialPath,
    /// The worker that queued it.
    pub(crate) from: usize,
}

/// The shared unit.
pub(crate) struct Shared {
    state: Mutex<UnitState>,
    /// Tasks in the unit (deques or global queue): what idle workers look at.
    total: AtomicUsize,
}

struct UnitState {
    /// `carbon`: one deque per worker, oldest at the front.
    deques: Vec<VecDeque<Entry>>,
    /// `sw-hier`, `pdf`: the global queue, smallest key first.
    global: BTreeMap<Key, Entry>,
}

impl Shared {
    pub(crate) fn new(n: usize) -> Shared {
        Shared {
            state: Mutex::new(UnitState { deques: (0..n).map(|_| VecDeque::new()).collect(), global: BTreeMap::new() }),
            total: AtomicUsize::new(0),
        }
    }

    /// Is any task in the unit, for a sleeping worker to take?
    pub(crate) fn has_work(&self) -> bool {
        self.total.load(Ordering::SeqCst) > 0
    }

    fn total_relaxed(&self) -> usize {
        self.total.load(Ordering::Relaxed)
    }
}

impl UnitState {
    fn count(&self) -> usize {
        self.deques.iter().map(VecDeque::len).sum::<usize>() + self.global.len()
    }
}

/// One worker's side of the unit (owner only).
pub(crate) struct UnitWorker {
    unit: *const Shared,
    policy: UnitPolicy,
    /// `carbon`: the LTU prefetch buffer; `sw-hier`: the private queue. Newest at the back.
    near: RefCell<VecDeque<Entry>>,
    /// `carbon`: tasks overflowed from the GTU deque, newest at the back.
    software: RefCell<VecDeque<Entry>>,
    /// Sequence numbers for keys (unique per worker: `seq * n + index`).
    seq: Cell<u64>,
    /// Serial-order position of the code running now (`pdf`).
    path: Cell<SerialPath>,
    /// Priority given to tasks spawned now (`order=priority`).
    priority: Cell<i64>,
}

impl UnitWorker {
    /// # Safety
    /// `unit` outlives the worker.
    pub(crate) unsafe fn new(unit: &Shared, policy: UnitPolicy) -> UnitWorker {
        UnitWorker {
            unit,
            policy,
            near: RefCell::new(VecDeque::new()),
            software: RefCell::new(VecDeque::new()),
            seq: Cell::new(0),
            path: Cell::new(SerialPath::default()),
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

    fn next_key(&self, h: &Handles, path: SerialPath) -> Key {
        let s = self.seq.get();
        self.seq.set(s + 1);
        let n = h.workers as u64;
        self.policy.global_order().key(s.wrapping_mul(n).wrapping_add(h.index as u64), self.priority.get(), path)
    }

    /// Queue a task that runs at serial position `path`; returns its entry.
    pub(crate) fn push_at(&self, h: &Handles, job: JobRef, path: SerialPath) -> Entry {
        h.hot.enqueue();
        // SAFETY: not yet visible to other threads.
        unsafe { JobHeader::prepare(job.as_ptr(), h.index) };
        let e = Entry { key: self.next_key(h, path), job, path, from: h.index };
        match self.policy {
            UnitPolicy::Carbon(c) => self.carbon_enqueue(h, c, e),
            UnitPolicy::SwHier(s) => self.swhier_enqueue(h, s, e),
            UnitPolicy::Pdf => self.to_global(h, std::iter::once(e)),
        }
        e
    }

    /// A `join` begins at the current serial position: `b` is queued at its
    /// place (`SerialPath::join`), and the caller runs `a` at its own.
    /// Returns `b`'s entry and the position to come back to.
    #[inline]
    pub(crate) fn join_begin(&self, h: &Handles, b: JobRef) -> (Entry, SerialPath) {
        let here = self.path.get();
        let paths = here.join();
        let e = self.push_at(h, b, paths.b);
        self.path.set(paths.a);
        (e, here)
    }

    /// `a` returned: the caller is at `b`'s position, until the join ends
    /// ([`UnitWorker::join_end`]).
    #[inline]
    pub(crate) fn join_after_a(&self, e: &Entry) {
        self.path.set(e.path);
    }

    /// The join is over: back at its own position.
    #[inline]
    pub(crate) fn join_end(&self, here: SerialPath) {
        self.path.set(here);
    }

    fn to_global(&self, h: &Handles, entries: impl Iterator<Item = Entry>) {
        let unit = self.unit();
        let mut st = lock(&unit.state);
        for e in entries {
            st.global.insert(e.key, e);
        }
        unit.total.store(st.count(), Ordering::SeqCst);
        drop(st);
        h.sleep().notify_new_work();
    }

    fn carbon_enqueue(&self, h: &Handles, c: Carbon, e: Entry) {
        let mut near = self.near.borrow_mut();
        near.push_back(e);
        if near.len() <= c.prefetch {
            return;
        }
        // The buffer is full: its oldest task goes to this worker's GTU deque.
        let out = near.pop_front().expect("non-empty");
        drop(near);
        let unit = self.unit();
        let mut st = lock(&unit.state);
        let dq = &mut st.deques[h.index];
        if dq.len() >= c.deque {
            // TQ Overflow: the deque's oldest tasks go to the software queue.
            let k = c.overflow_count(dq.len());
            let mut sw = self.software.borrow_mut();
            sw.extend(dq.drain(..k));
        }
        dq.push_back(out);
        unit.total.store(st.count(), Ordering::SeqCst);
        drop(st);
        h.sleep().notify_new_work();
    }

    fn swhier_enqueue(&self, h: &Handles, s: SwHier, e: Entry) {
        let mut near = self.near.borrow_mut();
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
    pub(crate) fn take_back(&self, h: &Handles, e: Entry) -> bool {
        {
            let mut near = self.near.borrow_mut();
            if near.back() == Some(&e) {
                near.pop_back();
                return true;
            }
        }
        let unit = self.unit();
        let mut st = lock(&unit.state);
        let found = match self.policy {
            UnitPolicy::Carbon(_) => {
                if st.deques[h.index].back() == Some(&e) {
                    st.deques[h.index].pop_back();
                    true
                } else {
                    false
                }
            }
            UnitPolicy::SwHier(_) | UnitPolicy::Pdf => st.global.remove(&e.key).is_some(),
        };
        if found {
            unit.total.store(st.count(), Ordering::SeqCst);
            return true;
        }
        drop(st);
        if let UnitPolicy::Carbon(_) = self.policy {
            let mut sw = self.software.borrow_mut();
            if sw.back() == Some(&e) {
                sw.pop_back();
                return true;
            }
        }
        false
    }

    /// This worker's newest own task (a `join` running what is left above its
    /// second closure); `None` if it has none left here.
    pub(crate) fn pop_newest(&self, h: &Handles) -> Option<JobRef> {
        if let Some(e) = self.near.borrow_mut().pop_back() {
            return Some(e.job);
        }
        if let UnitPolicy::Carbon(_) = self.policy {
            let unit = self.unit();
            let mut st = lock(&unit.state);
            if let Some(e) = st.deques[h.index].pop_back() {
                unit.total.store(st.count(), Ordering::SeqCst);
                return Some(e.job);
            }
            drop(st);
            return self.software.borrow_mut().pop_back().map(|e| e.job);
        }
        None
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

    fn swhier_dequeue(&self, h: &Handles, s: SwHier) -> Option<Entry> {
        if let Some(e) = self.near.borrow_mut().pop_back() {
            return Some(e);
        }
        let mut got = self.take_global(h, s.fetch_count(self.unit().total_relaxed().max(1), h.workers));
        let first = got.pop()?;
        // The rest go to the private queue, earliest in the global order on top.
        let mut near = self.near.borrow_mut();
        while let Some(e) = got.pop() {
            near.push_front(e);
        }
        Some(first)
    }

    fn carbon_dequeue(&self, h: &Handles, c: Carbon) -> Option<Entry> {
        let buffered = self.near.borrow_mut().pop_back();
        if let Some(e) = buffered {
            self.carbon_prefetch(h, c);
            return Some(e);
        }
        let e = self.carbon_from_gtu(h, c, true)?;
        self.carbon_prefetch(h, c);
        Some(e)
    }

    /// Refill the prefetch buffer from the GTU, unless it holds fewer tasks
    /// than there are workers.
    fn carbon_prefetch(&self, h: &Handles, c: Carbon) {
        if !c.prefetch_allowed(self.unit().total_relaxed(), h.workers) {
            return;
        }
        if self.near.borrow().len() >= c.prefetch {
            return;
        }
        if let Some(e) = self.carbon_from_gtu(h, c, false) {
            self.near.borrow_mut().push_front(e);
        }
    }

    /// One request to the GTU: own deque (refilled from software when low),
    /// else steal half of the nearest non-empty deque. A prefetch request is
    /// refused when the unit holds fewer tasks than there are workers.
    fn carbon_from_gtu(&self, h: &Handles, c: Carbon, demand: bool) -> Option<Entry> {
        let (n, me) = (h.workers, h.index);
        let unit = self.unit();
        let mut st = lock(&unit.state);
        if !demand && !c.prefetch_allowed(st.count(), n) {
            return None;
        }
        // TQ Underflow: move the software queue's newest tasks back under the deque.
        if st.deques[me].len() < c.underflow_threshold() {
            let mut sw = self.software.borrow_mut();
            let k = c.refill_count(st.deques[me].len(), sw.len());
            for _ in 0..k {
                let e = sw.pop_back().expect("counted");
                st.deques[me].push_front(e);
            }
        }
        let got = match st.deques[me].pop_back() {
            Some(e) => Some(e),
            None => {
                let mut stolen = None;
                for v in Carbon::victims(me, n) {
                    let len = st.deques[v].len();
                    if len == 0 {
                        continue;
                    }
                    let k = Carbon::steal_count(len);
                    let taken: Vec<Entry> = st.deques[v].drain(..k).collect();
                    h.counters().count(Counter::Steals, 1);
                    h.counters().count(Counter::TasksStolen, k as u64);
                    st.deques[me].extend(taken);
                    stolen = st.deques[me].pop_back();
                    break;
                }
                stolen
            }
        };
        unit.total.store(st.count(), Ordering::SeqCst);
        got
    }

}

impl Task for Entry {
    /// Work from outside the pool runs at the root of serial order.
    fn injected(job: JobRef) -> Entry {
        Entry { key: Key { primary: 0, seq: 0 }, job, path: SerialPath::default(), from: usize::MAX }
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
        let paths = self.path.get().spawn();
        self.path.set(paths.rest);
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

    /// Run a dequeued task at its serial position.
    fn run(&self, e: Entry, exec: impl FnOnce(JobRef)) {
        let saved = self.path.replace(e.path);
        exec(e.job);
        self.path.set(saved);
    }

    fn wants_split(&self, h: &Handles) -> bool {
        crate::policy::split::unit(self.policy, self.near.borrow().is_empty(), self.unit().total_relaxed(), h.workers)
    }
}

/// Measured ns per (push, pop) under one lock, as the unit takes per operation.
pub(crate) fn op_costs() -> (f64, f64) {
    const N: usize = 4096;
    crate::stats::timer::queue_op_costs(
        || Mutex::new(VecDeque::<usize>::with_capacity(N)),
        |q| lock(q).push_back(std::hint::black_box(1)),
        |q| {
            std::hint::black_box(lock(q).pop_back());
        },
    )
}
