//! The shared state of one pool: its policy, its mechanism's shared part
//! (deques, mailboxes or the central unit), every worker's counters, the
//! injector for work submitted from outside, and the sleep state.
//!
//! `registry.rs` and `worker.rs` import each other, the one such pair in the
//! crate (rayon-core keeps its registry and worker thread together in one
//! file for the same reason): a registry runs closures on its workers
//! (`in_worker`), and a worker reaches its pool's shared state through its
//! registry.

use crate::inbox::Inbox;
use crate::job::{JobHeader, JobRef, Latch, StackJob, PanicPayload};
use crate::latch::LockLatch;
use crate::policy::{Policy, PolicyKind};
use crate::sleep::Sleep;
use crate::stats::trace::Span;
use crate::stats::{Stats, WorkerCounters};
use crate::sync::{lock, AtomicBool, AtomicUsize, Mutex, Ordering};
use crate::topology::Topology;
use crate::worker::WorkerThread;
use crate::{adm, fixed, unit, ws};
use crossbeam_utils::CachePadded;
use std::collections::VecDeque;
use std::sync::Arc;

/// The address of the registry most recently given a job from outside
/// ([`Registry::in_use`]); 0 before any. A plain `std` atomic: it steers only
/// how long idle workers stay awake, no protocol rests on it.
static LAST_CALLED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Microseconds since the first call in this process: the clock of the idle
/// budget (`policy::idle`), comparable across threads.
pub(crate) fn now_us() -> u64 {
    static BASE: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    BASE.get_or_init(std::time::Instant::now).elapsed().as_micros() as u64
}

/// Jobs submitted by threads outside the pool (cold path: a mutex is fine).
pub(crate) struct Injector {
    queue: Mutex<VecDeque<JobRef>>,
    len: AtomicUsize,
    /// Some worker has taken a job from here (`Registry::has_work_at_start`).
    taken: AtomicBool,
}

impl Injector {
    fn push(&self, job: JobRef) {
        let mut q = lock(&self.queue);
        q.push_back(job);
        self.len.store(q.len(), Ordering::SeqCst);
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len.load(Ordering::Relaxed) == 0
    }

    pub(crate) fn pop(&self) -> Option<JobRef> {
        if self.is_empty() {
            return None;
        }
        let mut q = lock(&self.queue);
        let j = q.pop_front();
        self.len.store(q.len(), Ordering::SeqCst);
        if j.is_some() {
            self.taken.store(true, Ordering::SeqCst);
        }
        j
    }
}

/// The shared part of the pool's mechanism.
pub(crate) enum MechShared {
    Ws(ws::Shared),
    Adm(adm::Shared),
    Unit(unit::Shared),
    Fixed(fixed::Shared),
}

pub(crate) struct Registry {
    pub(crate) policy: Policy,
    pub(crate) topology: Topology,
    pub(crate) mech: MechShared,
    pub(crate) counters: Box<[CachePadded<WorkerCounters>]>,
    pub(crate) injector: Injector,
    pub(crate) sleep: Sleep,
    pub(crate) terminate: AtomicBool,
    pub(crate) trace: Option<Box<[Mutex<Vec<Span>>]>>,
    /// Ticks at pool start, the origin of trace timestamps.
    pub(crate) epoch: u64,
    pub(crate) stats_baseline: Mutex<Option<Stats>>,
    /// When a job last came from outside ([`now_us`]): the idle budget of
    /// every worker counts from it at the earliest (`policy::idle`).
    called_at_us: std::sync::atomic::AtomicU64,
    /// Detached tasks not yet finished (`spawn.rs`); the pool's drop waits.
    pub(crate) detached: crate::hooks::Detached,
    /// Each worker's broadcast jobs (`broadcast.rs`), run only by it.
    pub(crate) broadcasts: Box<[Inbox]>,
    /// Each worker's FIFO spawns, taken oldest first by trampolines (`spawn.rs`).
    pub(crate) fifos: Box<[Inbox]>,
    /// The pool's name in panic reports (its thread name prefix).
    pub(crate) name: String,
    /// Where detached tasks' panics go (`hooks::report_panic`).
    pub(crate) panic_handler: Option<crate::hooks::Hook<crate::hooks::PanicFn>>,
}

impl Registry {
    pub(crate) fn new(n: usize, policy: Policy, trace: bool) -> Registry {
        let mech = match policy.kind {
            PolicyKind::Ws(_) => MechShared::Ws(ws::Shared::new(n)),
            PolicyKind::Adm(a) => MechShared::Adm(adm::Shared::new(n, a)),
            PolicyKind::Unit(u) => MechShared::Unit(unit::Shared::new(n, u)),
            PolicyKind::Fixed => MechShared::Fixed(fixed::Shared::new(n)),
        };
        Registry {
            policy,
            topology: Topology::detect(),
            mech,
            counters: (0..n).map(|_| CachePadded::new(WorkerCounters::new())).collect(),
            injector: Injector { queue: Mutex::new(VecDeque::new()), len: AtomicUsize::new(0), taken: AtomicBool::new(false) },
            sleep: Sleep::new(n),
            terminate: AtomicBool::new(false),
            trace: trace.then(|| (0..n).map(|_| Mutex::new(Vec::new())).collect()),
            epoch: crate::stats::timer::ticks(),
            stats_baseline: Mutex::new(None),
            called_at_us: std::sync::atomic::AtomicU64::new(0),
            detached: crate::hooks::Detached::new(),
            broadcasts: Inbox::per_worker(n),
            fifos: Inbox::per_worker(n),
            name: "finegrain".into(),
            panic_handler: None,
        }
    }

    pub(crate) fn num_threads(&self) -> usize {
        self.counters.len()
    }

    /// The message policies' shared part (mailboxes), if this pool runs one.
    pub(crate) fn adm(&self) -> Option<&adm::Shared> {
        match &self.mech {
            MechShared::Adm(s) => Some(s),
            _ => None,
        }
    }

    /// Is there anything a sleeping worker could run?
    pub(crate) fn has_work(&self) -> bool {
        !self.injector.is_empty()
            || self.terminate.load(Ordering::Relaxed)
            || match &self.mech {
                MechShared::Ws(s) => s.has_work(),
                // Only their owners take from these queues, and each one's
                // idle loop checks its own inbox (`signal`).
                MechShared::Adm(_) | MechShared::Fixed(_) => false,
                MechShared::Unit(s) => s.has_work(),
            }
    }

    /// [`has_work`](Self::has_work) for a worker whose thread has just started
    /// (`policy::idle::park_at_start`), in constant time where `has_work`
    /// looks at every worker's deque. Every task descends from a job taken
    /// from the injector, so until one has been taken, the injector is the
    /// only place a task can be. For the sleep protocol (`sleep/README.md`):
    /// a sleeper that reads `taken` false has announced its sleep before the
    /// flag was set, in the single order of sequentially consistent
    /// operations, so before any task was pushed, and the pusher's fence and
    /// check of the sleepers sees it, as it would have for a task found by
    /// `has_work`.
    pub(crate) fn has_work_at_start(&self) -> bool {
        if self.injector.taken.load(Ordering::SeqCst) {
            self.has_work()
        } else {
            !self.injector.is_empty() || self.terminate.load(Ordering::Relaxed)
        }
    }

    /// Queue a heap job of a scope, phase or graph of pool `reg`: on the
    /// current worker's own queue if it belongs to `reg`, else via the injector.
    ///
    /// # Safety
    /// `reg` points to a live registry.
    pub(crate) unsafe fn push_or_inject(reg: *const Registry, job: JobRef) {
        let wt = WorkerThread::current();
        // SAFETY: a non-null current worker is live; `reg` is live (caller).
        unsafe {
            if !wt.is_null() && std::ptr::eq((*wt).registry, reg) {
                (*wt).push(job);
            } else {
                (*reg).inject(job);
            }
        }
    }

    /// A detached task panicked (`hooks::report_panic`).
    pub(crate) fn report_panic(&self, p: PanicPayload) {
        crate::hooks::report_panic(&self.name, self.panic_handler.as_ref(), p);
    }

    pub(crate) fn inject(&self, job: JobRef) {
        self.mark_called();
        self.injector.push(job);
        self.sleep.notify_new_work();
    }

    /// A job came from outside now: the idle workers' budget counts from
    /// here at the earliest, and this pool is the one of the process most
    /// recently given a job from outside (`policy::idle`: the idle workers
    /// of the others give their time budget up; stored only when it changes,
    /// so that calls into one pool do not write a line every pool reads).
    #[inline]
    fn mark_called(&self) {
        self.called_at_us.store(now_us(), std::sync::atomic::Ordering::Relaxed);
        let me = self as *const Registry as usize;
        if LAST_CALLED.load(std::sync::atomic::Ordering::Relaxed) != me {
            LAST_CALLED.store(me, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// When this pool was last given a job from outside ([`now_us`]).
    #[inline]
    pub(crate) fn called_at_us(&self) -> u64 {
        self.called_at_us.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Has no other pool of the process been given a job from outside since
    /// this one was (`Idle::next_timed`'s `pool_in_use`)? A relaxed look: a
    /// worker that reads it a little late yields a round or two more.
    #[inline]
    pub(crate) fn in_use(&self) -> bool {
        LAST_CALLED.load(std::sync::atomic::Ordering::Relaxed) == self as *const Registry as usize
    }

    /// Run `f` on a worker of this registry: directly if the calling thread is
    /// one, otherwise by injecting it and blocking until it finishes.
    pub(crate) fn in_worker<R: Send>(self: &Arc<Self>, f: impl FnOnce(&WorkerThread) -> R + Send) -> R {
        let wt = WorkerThread::current();
        // SAFETY: a non-null current worker is live for this whole call.
        if !wt.is_null() && std::ptr::eq(unsafe { &*(*wt).registry }, &**self) {
            return f(unsafe { &*wt });
        }
        if !wt.is_null() {
            // SAFETY: as above.
            return self.in_worker_cross(unsafe { &*wt }, f);
        }
        self.in_worker_cold(f)
    }

    /// A worker of another pool calls into this one: it must keep running its
    /// own pool's work while it waits, or a call back into its pool could
    /// deadlock (A -> B -> A with one worker in A).
    #[cold]
    fn in_worker_cross<R: Send>(self: &Arc<Self>, caller: &WorkerThread, f: impl FnOnce(&WorkerThread) -> R + Send) -> R {
        // SAFETY: the caller's registry is alive while it runs; take a counted reference.
        let caller_reg = unsafe {
            Arc::increment_strong_count(caller.registry);
            Arc::from_raw(caller.registry)
        };
        let job = StackJob::new(
            move || {
                let wt = WorkerThread::current();
                assert!(!wt.is_null(), "injected job must run on a worker");
                // SAFETY: checked non-null; it is the running worker's own state.
                let wt = unsafe { &*wt };
                let r = f(wt);
                wt.flush_counters();
                r
            },
            CrossLatch::new(caller_reg, caller.index),
        );
        self.inject(job.as_job_ref());
        caller.wait_until(&job.latch.state);
        // SAFETY: the latch is set, so the job ran; read once.
        match unsafe { job.take_result() } {
            Ok(v) => v,
            Err(p) => std::panic::resume_unwind(p),
        }
    }

    #[cold]
    fn in_worker_cold<R: Send>(self: &Arc<Self>, f: impl FnOnce(&WorkerThread) -> R + Send) -> R {
        let job = StackJob::new(
            move || {
                let wt = WorkerThread::current();
                assert!(!wt.is_null(), "injected job must run on a worker");
                // SAFETY: checked non-null; it is the running worker's own state.
                let wt = unsafe { &*wt };
                let r = f(wt);
                // So that the caller's next stats() sees this worker's counts.
                wt.flush_counters();
                r
            },
            LockLatch::new(),
        );
        self.inject(job.as_job_ref());
        job.latch.wait();
        // SAFETY: the latch is set, so the job ran; read once.
        match unsafe { job.take_result() } {
            Ok(v) => v,
            Err(p) => std::panic::resume_unwind(p),
        }
    }

    pub(crate) fn snapshot(&self) -> Stats {
        Stats {
            policy: self.policy.canonical(),
            workers: self.counters.iter().map(|c| c.snapshot()).collect(),
            manager: self.adm().and_then(|s| s.dedicated()).map(|d| d.counters.snapshot()),
            enabled: cfg!(feature = "stats"),
        }
    }
}

/// Latch of a job injected into another pool by a worker of this one: the
/// waiting worker keeps running its own pool's work (`wait_until`) and is woken
/// through its own pool's sleep state (rayon's "cross-registry" latch).
struct CrossLatch {
    state: AtomicUsize,
    waiter: Arc<Registry>,
    index: usize,
}

impl CrossLatch {
    fn new(waiter: Arc<Registry>, index: usize) -> Self {
        CrossLatch { state: AtomicUsize::new(crate::sleep::UNSET), waiter, index }
    }
}

impl Latch for CrossLatch {
    unsafe fn complete(this: *const Self, _header: *const JobHeader) {
        // SAFETY: live until the swap in `set_latch`; the registry is kept alive
        // by our own reference, taken before the latch can be freed.
        unsafe {
            let reg = Arc::clone(&(*this).waiter);
            let index = (*this).index;
            reg.sleep.set_latch(&(*this).state, index);
        }
    }
}
