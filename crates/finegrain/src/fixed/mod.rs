//! The mechanism of `static`, the static-loop baseline (`policy::fixed`;
//! Cheng et al., ASPLOS 2023, section 6): per-worker queues that nobody
//! steals from, and per-worker inboxes for what is dealt to a worker.
//!
//! A worker's own queue is touched only by its owner, so it is a plain
//! vector, no atomics: a `join` or a spawn that stays here is a push and a
//! pop. What `policy::fixed` sends elsewhere (a loop's pieces, the root
//! task's spawns) goes into the receiver's inbox, a locked queue with its
//! length beside it, and wakes the receiver if it sleeps: the sender
//! publishes, fences and reads the receiver's sleeping flag; the receiver
//! announces its sleep, fences and reads its inbox's length (`signal`), so
//! one of the two sees the other (`sleep/README.md`). A worker takes its own
//! newest task first, then its inbox's newest, and never looks at another
//! worker's queue. A worker waiting in a `join` or a loop runs its own queue
//! and inbox meanwhile (the one worker loop), so work queued behind a waiter
//! is never stranded.
//!
//! Why a mechanism of its own rather than `ws/` with stealing turned off:
//! handing a piece to a chosen worker needs an inbox that the work-stealing
//! worker does not have, and the root-task test would sit on `ws`'s `join`
//! path; here both cost `ws` nothing (it keeps its own `join`), and the own
//! queue needs no Chase-Lev deque's fence since nobody else reads it.

use crate::job::JobRef;
use crate::mechanism::{Handles, Mechanism, Task};
use crate::policy::fixed::spawn_worker;
use crate::policy::search::Source;
use crate::sync::{lock, AtomicUsize, Mutex, Ordering};
use crossbeam_utils::CachePadded;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

/// What was dealt to one worker.
struct Inbox {
    queue: Mutex<VecDeque<JobRef>>,
    len: AtomicUsize,
}

/// The pool's inboxes, one per worker.
pub(crate) struct Shared {
    inboxes: Box<[CachePadded<Inbox>]>,
}

impl Shared {
    pub(crate) fn new(n: usize) -> Shared {
        Shared { inboxes: (0..n).map(|_| CachePadded::new(Inbox { queue: Mutex::new(VecDeque::new()), len: AtomicUsize::new(0) })).collect() }
    }
}

/// A task and whether it is a root task (one submitted from outside the
/// pool), whose spawns are dealt round-robin.
#[derive(Copy, Clone)]
pub(crate) struct FixedTask {
    job: JobRef,
    root: bool,
}

impl Task for FixedTask {
    #[inline(always)]
    fn injected(job: JobRef) -> FixedTask {
        FixedTask { job, root: true }
    }
    #[inline(always)]
    fn job(self) -> JobRef {
        self.job
    }
}

/// The task this worker is running: a root task, and how many of its spawns
/// it has dealt so far.
#[derive(Copy, Clone, Default)]
struct Running {
    root: bool,
    dealt: usize,
}

/// One worker's side: its own queue, its inbox, and what it is running.
pub(crate) struct FixedWorker {
    shared: *const Shared,
    inbox: *const Inbox,
    own: RefCell<Vec<JobRef>>,
    running: Cell<Running>,
}

impl FixedWorker {
    /// Worker `index` of a pool whose inboxes are `shared`.
    ///
    /// # Safety
    /// `shared` outlives the worker.
    pub(crate) unsafe fn new(shared: &Shared, index: usize) -> FixedWorker {
        FixedWorker { shared, inbox: &*shared.inboxes[index], own: RefCell::new(Vec::new()), running: Cell::new(Running::default()) }
    }

    #[inline(always)]
    fn inbox(&self) -> &Inbox {
        // SAFETY: points into the registry, which outlives the worker (`new`).
        unsafe { &*self.inbox }
    }

    #[inline(always)]
    fn shared(&self) -> &Shared {
        // SAFETY: the registry outlives the worker (`new`).
        unsafe { &*self.shared }
    }

    /// The newest task of the own queue: a `join` taking its second closure back.
    #[inline(always)]
    pub(crate) fn pop_newest(&self) -> Option<JobRef> {
        self.own.borrow_mut().pop()
    }

    /// Give `job` to worker `to`'s inbox and wake it if it sleeps.
    pub(crate) fn give(&self, h: &Handles, to: usize, job: JobRef) {
        h.hot.enqueue_op(h.counters(), || self.give_uncounted(h, to, job))
    }

    fn give_uncounted(&self, h: &Handles, to: usize, job: JobRef) {
        let inbox = &self.shared().inboxes[to];
        {
            let mut q = lock(&inbox.queue);
            q.push_back(job);
            inbox.len.store(q.len(), Ordering::SeqCst);
        }
        h.sleep().wake_if_sleeping(to);
    }

    /// Run `f` as a task of its own, not the root (a `join`'s second closure
    /// taken back: the simulator's child task).
    #[inline(always)]
    pub(crate) fn as_child<R>(&self, f: impl FnOnce() -> R) -> R {
        let saved = self.running.replace(Running::default());
        let _restore = Restore { cell: &self.running, saved };
        f()
    }

    /// The newest task dealt to this worker.
    fn take_dealt(&self) -> Option<JobRef> {
        let inbox = self.inbox();
        if inbox.len.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let mut q = lock(&inbox.queue);
        let j = q.pop_back();
        inbox.len.store(q.len(), Ordering::SeqCst);
        j
    }
}

/// Puts back what a worker was running when a nested task ends, also by unwinding.
struct Restore<'a> {
    cell: &'a Cell<Running>,
    saved: Running,
}

impl Drop for Restore<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.cell.set(self.saved);
    }
}

impl Mechanism for FixedWorker {
    type Task = FixedTask;
    const SEARCH: &'static [Source] = crate::policy::search::order(crate::policy::Mechanism::Fixed);

    /// A spawn: the root task's are dealt round-robin, every other stays here
    /// (`policy::fixed::spawn_worker`).
    #[inline(always)]
    fn push(&self, h: &Handles, job: JobRef) {
        let r = self.running.get();
        let to = spawn_worker(r.root, h.index, r.dealt, h.workers);
        if r.root {
            self.running.set(Running { root: true, dealt: r.dealt + 1 });
        }
        if to == h.index {
            h.hot.enqueue_op(h.counters(), || self.own.borrow_mut().push(job));
        } else {
            self.give(h, to, job);
        }
    }

    #[inline(always)]
    fn pop(&self, _h: &Handles) -> Option<FixedTask> {
        let job = self.pop_newest().or_else(|| self.take_dealt())?;
        Some(FixedTask { job, root: false })
    }

    fn find(&self, _h: &Handles, _source: Source, _in_join: bool) -> Option<FixedTask> {
        None
    }

    #[inline(always)]
    fn run(&self, t: FixedTask, exec: impl FnOnce(JobRef)) {
        let saved = self.running.replace(Running { root: t.root, dealt: 0 });
        let _restore = Restore { cell: &self.running, saved };
        exec(t.job)
    }

    /// Something was dealt here: stop spinning, do not park.
    #[inline(always)]
    fn signal(&self) -> bool {
        self.inbox().len.load(Ordering::Relaxed) > 0
    }

    /// Loops never split under `static`: they are cut before they start.
    #[inline(always)]
    fn wants_split(&self, _h: &Handles) -> bool {
        false
    }
}
