//! The mechanism of the central-unit policies (`carbon`, `sw-hier`, `pdf`):
//! one task unit shared by all workers under one lock, which serves one
//! request at a time like Carbon's global task unit (002 section 4.3), plus
//! per-worker state only its owner touches (a prefetch buffer or private
//! queue, and a software overflow queue). The decisions (thresholds, victims,
//! the order of the central queue) are in `policy/{carbon,swhier,pdf,central}.rs`.
//!
//! ## What lives where
//!
//! | policy | worker-local | in the unit |
//! |---|---|---|
//! | `carbon` | prefetch buffer (newest tasks), software queue (oldest, after overflows) | one bounded deque per worker |
//! | `sw-hier` | private queue | one global queue in the policy's order |
//! | `pdf` | nothing | one global queue in serial order |
//!
//! A worker's own tasks form one stack, oldest to newest: `carbon` software
//! queue, its GTU deque, its buffer; `sw-hier` global part, private queue.
//! Every move between the parts keeps that order (an overflow moves the
//! deque's oldest tasks to the software queue's newest end; an underflow moves
//! the software queue's newest tasks back to the deque's oldest end; a full
//! buffer sends its oldest task to the deque's newest end). So when a `join`
//! ends, its second closure, if still here, is the newest task: in the buffer
//! or private queue (no lock), else at the top of the worker's deque or in the
//! global queue (found under the lock by its key).
//!
//! ## Invariants
//!
//! - **No task lost or run twice**: a task is in exactly one place at a time
//!   (one local structure, or the unit), and it leaves the unit only under the
//!   lock. Jobs are prepared (owner, latch state) when pushed, since other
//!   workers take them from the unit without asking.
//! - **No worker sleeps through work**: tasks other workers may take are
//!   counted in `Unit::total`; a push into the unit announces new work to the
//!   sleep protocol (`Sleep::notify_new_work`, which fences and wakes a
//!   sleeper), and an idle worker re-checks `total` after announcing its sleep.
//!   Tasks in a worker's local structures are not counted: their owner runs
//!   them before it goes idle (it looks at its local structures first).

use crate::job::{JobHeader, JobRef};
use crate::policy::carbon::Carbon;
use crate::policy::central::{Central, GlobalOrder, Key, SerialPath};
use crate::policy::swhier::SwHier;
use crate::stats::{Bucket, Counter};
use crate::sync::{lock, AtomicUsize, Mutex, Ordering};
use crate::worker::WorkerThread;
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
pub(crate) struct Unit {
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

impl Unit {
    pub(crate) fn new(n: usize) -> Unit {
        Unit {
            state: Mutex::new(UnitState { deques: (0..n).map(|_| VecDeque::new()).collect(), global: BTreeMap::new() }),
            total: AtomicUsize::new(0),
        }
    }

    pub(crate) fn has_tasks(&self) -> bool {
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

/// Per-worker state of the central policies (owner only).
pub(crate) struct Local {
    /// `carbon`: the LTU prefetch buffer; `sw-hier`: the private queue. Newest at the back.
    near: RefCell<VecDeque<Entry>>,
    /// `carbon`: tasks overflowed from the GTU deque, newest at the back.
    software: RefCell<VecDeque<Entry>>,
    /// Sequence numbers for keys (unique per worker: `seq * n + index`).
    seq: Cell<u64>,
    /// Serial-order position of the code running now (`pdf`).
    pub(crate) path: Cell<SerialPath>,
    /// Priority given to tasks spawned now (`order=priority`).
    pub(crate) priority: Cell<i64>,
}

impl Local {
    pub(crate) fn new() -> Local {
        Local {
            near: RefCell::new(VecDeque::new()),
            software: RefCell::new(VecDeque::new()),
            seq: Cell::new(0),
            path: Cell::new(SerialPath::default()),
            priority: Cell::new(0),
        }
    }
}

impl WorkerThread {
    fn central_policy(&self) -> Central {
        match self.registry().policy.kind {
            crate::policy::PolicyKind::Central(c) => c,
            _ => unreachable!("central mechanism under a non-central policy"),
        }
    }

    fn unit(&self) -> &Unit {
        &self.registry().unit
    }

    fn next_key(&self, order: GlobalOrder, path: SerialPath) -> Key {
        let s = self.central.seq.get();
        self.central.seq.set(s + 1);
        let n = self.registry().num_threads() as u64;
        order.key(s.wrapping_mul(n).wrapping_add(self.index as u64), self.central.priority.get(), path)
    }

    /// Queue a task that runs at serial position `path`; returns its entry.
    pub(crate) fn central_push_at(&self, job: JobRef, path: SerialPath) -> Entry {
        self.count_enqueue();
        // SAFETY: not yet visible to other threads.
        unsafe { JobHeader::prepare(job.as_ptr(), self.index) };
        match self.central_policy() {
            Central::Carbon(c) => {
                let e = Entry { key: self.next_key(GlobalOrder::Lifo, path), job, path, from: self.index };
                self.carbon_enqueue(c, e);
                e
            }
            Central::SwHier(h) => {
                let e = Entry { key: self.next_key(h.order, path), job, path, from: self.index };
                self.swhier_enqueue(h, e);
                e
            }
            Central::Pdf => {
                let e = Entry { key: self.next_key(GlobalOrder::Serial, path), job, path, from: self.index };
                self.to_global(std::iter::once(e));
                e
            }
        }
    }

    /// A spawn (scope, phase, graph): the task runs at `path.child(0)`, the
    /// spawner continues at `path.child(1)`.
    pub(crate) fn central_push(&self, job: JobRef) {
        let here = self.central.path.get();
        self.central.path.set(here.child(1));
        self.central_push_at(job, here.child(0));
    }

    fn to_global(&self, entries: impl Iterator<Item = Entry>) {
        let unit = self.unit();
        let mut st = lock(&unit.state);
        for e in entries {
            st.global.insert(e.key, e);
        }
        unit.total.store(st.count(), Ordering::SeqCst);
        drop(st);
        self.registry().sleep.notify_new_work();
    }

    fn carbon_enqueue(&self, c: Carbon, e: Entry) {
        let mut near = self.central.near.borrow_mut();
        near.push_back(e);
        if near.len() <= c.prefetch {
            return;
        }
        // The buffer is full: its oldest task goes to this worker's GTU deque.
        let out = near.pop_front().expect("non-empty");
        drop(near);
        let unit = self.unit();
        let mut st = lock(&unit.state);
        let dq = &mut st.deques[self.index];
        if dq.len() >= c.deque {
            // TQ Overflow: the deque's oldest tasks go to the software queue.
            let k = c.overflow_count(dq.len());
            let mut sw = self.central.software.borrow_mut();
            sw.extend(dq.drain(..k));
        }
        dq.push_back(out);
        unit.total.store(st.count(), Ordering::SeqCst);
        drop(st);
        self.registry().sleep.notify_new_work();
    }

    fn swhier_enqueue(&self, h: SwHier, e: Entry) {
        let mut near = self.central.near.borrow_mut();
        near.push_back(e);
        let k = h.spill_count(near.len());
        if k > 0 {
            let out: Vec<Entry> = near.drain(..k).collect();
            drop(near);
            self.to_global(out.into_iter());
        }
    }

    /// End of a `join`: if `e` is still this worker's newest task, take it.
    pub(crate) fn central_take_back(&self, e: Entry) -> bool {
        {
            let mut near = self.central.near.borrow_mut();
            if near.back() == Some(&e) {
                near.pop_back();
                return true;
            }
        }
        let unit = self.unit();
        let mut st = lock(&unit.state);
        let found = match self.central_policy() {
            Central::Carbon(_) => {
                if st.deques[self.index].back() == Some(&e) {
                    st.deques[self.index].pop_back();
                    true
                } else {
                    false
                }
            }
            Central::SwHier(_) | Central::Pdf => st.global.remove(&e.key).is_some(),
        };
        if found {
            unit.total.store(st.count(), Ordering::SeqCst);
            return true;
        }
        drop(st);
        if let Central::Carbon(_) = self.central_policy() {
            let mut sw = self.central.software.borrow_mut();
            if sw.back() == Some(&e) {
                sw.pop_back();
                return true;
            }
        }
        false
    }

    /// This worker's newest own task (a `join` running what is left above its
    /// second closure); `None` if it has none left here.
    pub(crate) fn central_pop_newest(&self) -> Option<JobRef> {
        if let Some(e) = self.central.near.borrow_mut().pop_back() {
            return Some(e.job);
        }
        if let Central::Carbon(_) = self.central_policy() {
            let unit = self.unit();
            let mut st = lock(&unit.state);
            if let Some(e) = st.deques[self.index].pop_back() {
                unit.total.store(st.count(), Ordering::SeqCst);
                return Some(e.job);
            }
            drop(st);
            return self.central.software.borrow_mut().pop_back().map(|e| e.job);
        }
        None
    }

    /// Dequeue the next task to run, in the policy's order (own tasks first).
    pub(crate) fn central_pop(&self) -> Option<Entry> {
        match self.central_policy() {
            Central::Carbon(c) => self.carbon_dequeue(c),
            Central::SwHier(h) => self.swhier_dequeue(h),
            Central::Pdf => self.take_global(1).pop(),
        }
    }

    /// Up to `k` tasks from the front of the global queue, first one last.
    fn take_global(&self, k: usize) -> Vec<Entry> {
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
        let foreign = got.iter().filter(|e| e.from != self.index).count();
        if foreign > 0 {
            self.counters().count(Counter::Steals, 1);
            self.counters().count(Counter::TasksStolen, foreign as u64);
        }
        got.reverse();
        got
    }

    fn swhier_dequeue(&self, h: SwHier) -> Option<Entry> {
        if let Some(e) = self.central.near.borrow_mut().pop_back() {
            return Some(e);
        }
        let n = self.registry().num_threads();
        let mut got = self.take_global(h.fetch_count(self.unit().total_relaxed().max(1), n));
        let first = got.pop()?;
        // The rest go to the private queue, earliest in the global order on top.
        let mut near = self.central.near.borrow_mut();
        while let Some(e) = got.pop() {
            near.push_front(e);
        }
        Some(first)
    }

    fn carbon_dequeue(&self, c: Carbon) -> Option<Entry> {
        let buffered = self.central.near.borrow_mut().pop_back();
        if let Some(e) = buffered {
            self.carbon_prefetch(c);
            return Some(e);
        }
        let e = self.carbon_from_gtu(c, true)?;
        self.carbon_prefetch(c);
        Some(e)
    }

    /// Refill the prefetch buffer from the GTU, unless it holds fewer tasks
    /// than there are workers.
    fn carbon_prefetch(&self, c: Carbon) {
        if !c.prefetch_allowed(self.unit().total_relaxed(), self.registry().num_threads()) {
            return;
        }
        if self.central.near.borrow().len() >= c.prefetch {
            return;
        }
        if let Some(e) = self.carbon_from_gtu(c, false) {
            self.central.near.borrow_mut().push_front(e);
        }
    }

    /// One request to the GTU: own deque (refilled from software when low),
    /// else steal half of the nearest non-empty deque. A prefetch request is
    /// refused when the unit holds fewer tasks than there are workers.
    fn carbon_from_gtu(&self, c: Carbon, demand: bool) -> Option<Entry> {
        let n = self.registry().num_threads();
        let unit = self.unit();
        let mut st = lock(&unit.state);
        if !demand && !c.prefetch_allowed(st.count(), n) {
            return None;
        }
        // TQ Underflow: move the software queue's newest tasks back under the deque.
        if st.deques[self.index].len() < c.underflow_threshold() {
            let mut sw = self.central.software.borrow_mut();
            let k = c.refill_count(st.deques[self.index].len(), sw.len());
            for _ in 0..k {
                let e = sw.pop_back().expect("counted");
                st.deques[self.index].push_front(e);
            }
        }
        let got = match st.deques[self.index].pop_back() {
            Some(e) => Some(e),
            None => {
                let mut stolen = None;
                for v in Carbon::victims(self.index, n) {
                    let len = st.deques[v].len();
                    if len == 0 {
                        continue;
                    }
                    let k = Carbon::steal_count(len);
                    let taken: Vec<Entry> = st.deques[v].drain(..k).collect();
                    self.counters().count(Counter::Steals, 1);
                    self.counters().count(Counter::TasksStolen, k as u64);
                    st.deques[self.index].extend(taken);
                    stolen = st.deques[self.index].pop_back();
                    break;
                }
                stolen
            }
        };
        unit.total.store(st.count(), Ordering::SeqCst);
        got
    }

    /// Should a loop split its range now?
    pub(crate) fn central_wants_split(&self) -> bool {
        let n = self.registry().num_threads();
        match self.central_policy() {
            Central::Carbon(_) => Carbon::loop_should_split(self.unit().total_relaxed(), n),
            Central::SwHier(_) => self.central.near.borrow().is_empty() || self.unit().total_relaxed() < n,
            Central::Pdf => self.unit().total_relaxed() < n,
        }
    }

    /// Run a dequeued task at its serial position.
    pub(crate) fn run_entry(&self, e: Entry) {
        let saved = self.central.path.replace(e.path);
        self.execute(e.job);
        self.central.path.set(saved);
    }

    /// The idle loop of the central policies.
    #[cold]
    pub(crate) fn work_until_central(&self, latch: Option<&AtomicUsize>, done: impl Fn() -> bool) {
        let reg = self.registry();
        let idle = reg.policy.idle;
        let resume = self.counters().current();
        let mut failed: u32 = 0;
        loop {
            if done() {
                break;
            }
            self.counters().enter(Bucket::StealFail);
            if let Some(e) = self.central_pop() {
                self.counters().enter(Bucket::Task);
                self.run_entry(e);
                failed = 0;
                continue;
            }
            if let Some(j) = self.take_injected() {
                self.counters().enter(Bucket::Task);
                self.execute(j);
                failed = 0;
                continue;
            }
            // Out of work: release the phase units held (`owed.rs`).
            crate::owed::flush();
            if done() {
                break;
            }
            failed = self.idle_step(idle, failed, latch, &done);
        }
        self.counters().enter(resume);
    }
}
