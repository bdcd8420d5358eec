//! The shared state of one pool: its policy, every worker's deque and counters,
//! the injector for work submitted from outside, and the sleep state.

use crate::deque::Deque;
use crate::job::{JobHeader, JobRef, StackJob};
use crate::latch::LockLatch;
use crate::mailbox::{Mailbox, Msg};
use crate::policy::Policy;
use crate::sleep::Sleep;
use crate::stats::{Stats, WorkerCounters};
use crate::sync::{lock, AtomicBool, AtomicUsize, Mutex, Ordering};
use crate::topology::Topology;
use crate::trace::Span;
use crate::worker::WorkerThread;
use crossbeam_utils::CachePadded;
use std::collections::VecDeque;
use std::sync::Arc;

/// Jobs submitted by threads outside the pool (cold path: a mutex is fine).
pub(crate) struct Injector {
    queue: Mutex<VecDeque<JobRef>>,
    len: AtomicUsize,
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
        j
    }
}

pub(crate) struct Registry {
    pub(crate) policy: Policy,
    pub(crate) topology: Topology,
    pub(crate) deques: Box<[Deque<JobHeader>]>,
    pub(crate) mailboxes: Box<[CachePadded<Mailbox>]>,
    /// `manager=dedicated`: the manager thread's mailbox (`manager_thread.rs`).
    pub(crate) manager: Option<Box<crate::manager_thread::Dedicated>>,
    pub(crate) counters: Box<[CachePadded<WorkerCounters>]>,
    pub(crate) injector: Injector,
    /// The central task unit of `carbon`, `sw-hier` and `pdf` (empty otherwise).
    pub(crate) unit: crate::central::Unit,
    pub(crate) sleep: Sleep,
    pub(crate) terminate: AtomicBool,
    pub(crate) trace: Option<Box<[Mutex<Vec<Span>>]>>,
    /// Ticks at pool start, the origin of trace timestamps.
    pub(crate) epoch: u64,
    pub(crate) stats_baseline: Mutex<Option<Stats>>,
    /// Measured ns per (push, pop), for the breakdown.
    op_ns: (f64, f64),
}

impl Registry {
    pub(crate) fn new(n: usize, policy: Policy, trace: bool) -> Registry {
        let policy_kind = policy.kind;
        let manager = crate::manager_thread::Dedicated::for_policy(&policy);
        Registry {
            policy,
            topology: Topology::detect(),
            deques: (0..n).map(|_| Deque::new()).collect(),
            mailboxes: (0..n).map(|_| CachePadded::new(Mailbox::new())).collect(),
            manager,
            counters: (0..n).map(|_| CachePadded::new(WorkerCounters::new())).collect(),
            unit: crate::central::Unit::new(n),
            injector: Injector { queue: Mutex::new(VecDeque::new()), len: AtomicUsize::new(0) },
            sleep: Sleep::new(n),
            terminate: AtomicBool::new(false),
            trace: trace.then(|| (0..n).map(|_| Mutex::new(Vec::new())).collect()),
            epoch: crate::timer::ticks(),
            stats_baseline: Mutex::new(None),
            op_ns: if cfg!(feature = "stats") { crate::timer::queue_op_costs(policy_kind) } else { (0.0, 0.0) },
        }
    }

    pub(crate) fn num_threads(&self) -> usize {
        self.deques.len()
    }

    /// Is there anything a sleeping worker could run?
    pub(crate) fn has_work(&self) -> bool {
        !self.injector.is_empty() || self.terminate.load(Ordering::Relaxed) || self.deques.iter().any(|d| !d.is_empty()) || self.unit.has_tasks()
    }

    pub(crate) fn terminate_requested(&self) -> bool {
        self.terminate.load(Ordering::Relaxed)
    }

    /// `adm_send`: deliver `msg` to worker `dst`, waking it if it sleeps.
    pub(crate) fn send(&self, dst: usize, msg: Msg) {
        self.mailboxes[dst].send(msg);
        self.sleep.wake_if_sleeping(dst);
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

    pub(crate) fn inject(&self, job: JobRef) {
        self.injector.push(job);
        self.sleep.notify_new_work();
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
            crate::job::CrossLatch::new(caller_reg, caller.index),
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
            workers: self.counters.iter().map(|c| c.snapshot(self.op_ns)).collect(),
            enabled: cfg!(feature = "stats"),
        }
    }
}
