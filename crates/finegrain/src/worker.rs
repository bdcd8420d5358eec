//! A worker thread's own state and its scheduling loops.
//!
//! The fast path (`push`, `pop`) touches only the worker's own deque. The slow
//! path (`find_work`, `wait_until`) asks the policy which victim to try, how
//! many tasks to take and whether to spin, yield or park.

use crate::deque::{Deque, Steal};
use crate::gate::Gate;
use crate::job::{JobHeader, JobRef};
use crate::mailbox::Mailbox;
use crate::marks::FrameMarks;
use crate::policy::adm::{ManagerNode, Tree};
use crate::policy::{IdleAction, Order, PolicyKind, VictimOrder};
use crate::private_queue::PrivateQueue;
use crate::registry::Registry;
use crate::rng::XorShift;
use crate::stats::{Bucket, Counter, WorkerCounters};
use crate::sync::{lock, AtomicUsize, Ordering};
use std::cell::{Cell, RefCell};
use std::ptr;

/// The worker running on this thread, and the spawn gate `join` checks
/// (`gate.rs`): its own mailbox's gate on a worker, [`NO_GATE`] elsewhere.
/// The gate comes first so that a spawn's one thread-local load is the first
/// word.
#[repr(C)]
struct Current {
    gate: Cell<*const Gate>,
    worker: Cell<*const WorkerThread>,
}

/// The gate of threads outside any pool: its limit is zero, so every spawn
/// there takes the slow path, which finds no worker and goes to the global
/// pool.
struct NoGate(Gate);

// SAFETY: nothing ever writes to it: only the owner of a private queue
// writes its gate's `top` and `joins`, senders write the `limit` of real
// mailboxes, and a spawn that sees `top >= limit` writes nothing.
unsafe impl Sync for NoGate {}

static NO_GATE: NoGate = NoGate(Gate {
    top: Cell::new(ptr::null_mut()),
    limit: AtomicUsize::new(0),
    stack_hi: Cell::new(0),
    marks_end: Cell::new(ptr::null()),
    #[cfg(feature = "stats")]
    joins: Cell::new(0),
});

thread_local! {
    static CURRENT: Current = const { Current { gate: Cell::new(&NO_GATE.0), worker: Cell::new(ptr::null()) } };
}

/// On a worker with a public deque.
pub(crate) const MECH_PUBLIC: usize = 1;
/// On a worker with a private queue.
pub(crate) const MECH_PRIVATE: usize = 2;
/// On a worker of a central-unit policy.
pub(crate) const MECH_CENTRAL: usize = 3;

/// This thread's spawn gate (never dangling: a worker's gate lives in its
/// registry, which outlives the worker; otherwise [`NO_GATE`]).
#[inline(always)]
pub(crate) fn current_gate() -> &'static Gate {
    // SAFETY: as above; `'static` is a stretch the callers do not exploit
    // (they use it within one call on this thread, during which the worker,
    // and so its registry, is alive).
    // (The pointer is dereferenced outside the closure: returning a reference
    // from `with` makes the compiler test it for null, the niche of the
    // `Result` that `with` unwraps.)
    let g = CURRENT.with(|c| c.gate.get());
    unsafe { &*g }
}

/// Publish the calling worker's hot counters (before releasing a waiter, so
/// that `Pool::measure` right after a call sees everything the call did).
pub(crate) fn flush_current_counters() {
    let wt = WorkerThread::current();
    if !wt.is_null() {
        // SAFETY: non-null current worker is live.
        unsafe { (*wt).flush_counters() };
    }
}

pub(crate) struct WorkerThread {
    pub(crate) index: usize,
    pub(crate) registry: *const Registry,
    deque: *const Deque<JobHeader>,
    counters: *const WorkerCounters,
    pub(crate) mech: PolicyKind,
    order: Order,
    // Message-based policies (see worker_adm.rs).
    pub(crate) private: PrivateQueue,
    /// Queue length at which the next UPDATE is due.
    pub(crate) report_at: Cell<usize>,
    pub(crate) mailbox: *const Mailbox,
    pub(crate) tree: Tree,
    /// Manager nodes this worker hosts, by level.
    pub(crate) managers: RefCell<Vec<ManagerNode>>,
    pub(crate) starving_reported: Cell<bool>,
    pub(crate) unblocked: Cell<bool>,
    // Central-unit policies (see central.rs).
    pub(crate) central: crate::central::Local,
    victims: VictimOrder,
    rng: Cell<XorShift>,
    round: Cell<usize>,
    /// Hot counters, private to the worker and published to `counters` on
    /// slow paths (whenever the worker looks for work or finishes an injected
    /// job). Joins on the private queue are counted once, in the gate, and
    /// those whose take-back failed in `joins_slow`; see `flush_counters`.
    enqueues: Cell<u64>,
    tasks_run: Cell<u64>,
    joins_slow: Cell<u64>,
    tracing: bool,
    /// Pending `join` continuations of the message-based policies (`marks.rs`).
    pub(crate) marks: FrameMarks,
    /// Depth at which the next `join` counts its pending work again (see
    /// `refresh_limit`); 0: at the next `join`.
    pub(crate) report_depth: Cell<usize>,
}

impl WorkerThread {
    /// The worker `index` of `registry`, running on the calling thread, whose
    /// frame marks cover `mark_bytes` of stack below `stack_hi` (an address in
    /// the thread's outermost frame).
    pub(crate) fn new(registry: &Registry, index: usize, stack_hi: usize, mark_bytes: usize) -> WorkerThread {
        let p = &registry.policy;
        WorkerThread {
            index,
            registry,
            deque: &registry.deques[index],
            counters: &*registry.counters[index],
            mech: p.kind,
            order: p.order,
            // SAFETY: the mailbox (and its gate) is the registry's, which
            // outlives this worker; only this worker touches the gate's top.
            private: unsafe { PrivateQueue::new(&*registry.mailboxes[index].gate) },
            report_at: Cell::new(if registry.num_threads() == 1 { usize::MAX } else { 1 }),
            mailbox: &*registry.mailboxes[index],
            tree: crate::worker_adm::tree_of(p, registry.num_threads()),
            managers: RefCell::new(crate::worker_adm::hosted_managers(p, registry.num_threads(), index)),
            starving_reported: Cell::new(false),
            unblocked: Cell::new(false),
            central: crate::central::Local::new(),
            victims: VictimOrder::new(p.victim, index, registry.num_threads(), &registry.topology, p.radix),
            rng: Cell::new(XorShift::new(index as u64 ^ registry.epoch)),
            round: Cell::new(0),
            enqueues: Cell::new(0),
            tasks_run: Cell::new(0),
            joins_slow: Cell::new(0),
            tracing: registry.trace.is_some(),
            marks: if p.kind == PolicyKind::Messaging { FrameMarks::new(stack_hi, mark_bytes) } else { FrameMarks::none() },
            report_depth: Cell::new(if registry.num_threads() == 1 { usize::MAX } else { 0 }),
        }
    }

    /// The worker running on this thread, or null.
    #[inline(always)]
    pub(crate) fn current() -> *const WorkerThread {
        CURRENT.with(|c| c.worker.get())
    }

    /// Install `self` as this thread's worker for the duration of `f`.
    pub(crate) fn run_as_current(&self, f: impl FnOnce()) {
        let g = &self.mail().gate;
        g.stack_hi.set(self.marks.stack_hi());
        g.marks_end.set(self.marks.end().cast());
        CURRENT.with(|c| {
            c.worker.set(self);
            c.gate.set(&**g);
        });
        f();
        CURRENT.with(|c| {
            c.gate.set(&NO_GATE.0);
            c.worker.set(ptr::null());
        });
    }

    #[inline(always)]
    pub(crate) fn registry(&self) -> &Registry {
        // SAFETY: the worker thread holds an Arc to its registry while it runs.
        unsafe { &*self.registry }
    }

    #[inline(always)]
    fn deque(&self) -> &Deque<JobHeader> {
        // SAFETY: points into the registry, alive as above.
        unsafe { &*self.deque }
    }

    #[inline(always)]
    pub(crate) fn counters(&self) -> &WorkerCounters {
        // SAFETY: points into the registry, alive as above.
        unsafe { &*self.counters }
    }

    /// Should a loop split its range now? With public deques: when this
    /// worker's deque is empty (thieves took what was offered). With private
    /// queues: also when a message (possibly a steal request) is waiting, so a
    /// loop answers requests within one chunk.
    #[inline(always)]
    pub(crate) fn wants_split(&self) -> bool {
        match self.mech {
            PolicyKind::WorkStealing => self.deque().is_empty(),
            PolicyKind::Messaging => self.mail().has_mail() || (self.private.len() == 0 && !self.marks.any_live(self.marks.current_depth())),
            PolicyKind::Central(_) => self.central_wants_split(),
        }
    }

    #[inline(always)]
    pub(crate) fn mail(&self) -> &Mailbox {
        // SAFETY: points into the registry, alive while the worker runs.
        unsafe { &*self.mailbox }
    }

    /// Publish the private hot counters.
    #[inline]
    pub(crate) fn flush_counters(&self) {
        // A private-queue join is one enqueue, and one inline run unless its
        // take-back failed (then `take_back_slow` counted whatever ran).
        let joins = self.mail().gate.joins();
        self.counters().publish(Counter::Enqueues, self.enqueues.get().wrapping_add(joins));
        self.counters().publish(Counter::TasksRun, self.tasks_run.get().wrapping_add(joins).wrapping_sub(self.joins_slow.get()));
    }

    /// A private-queue join's fast take-back failed (see `flush_counters`).
    #[inline(always)]
    pub(crate) fn count_join_slow(&self) {
        #[cfg(feature = "stats")]
        self.joins_slow.set(self.joins_slow.get().wrapping_add(1));
    }

    #[inline(always)]
    pub(crate) fn push(&self, job: JobRef) {
        match self.mech {
            PolicyKind::WorkStealing => self.push_as::<MECH_PUBLIC>(job),
            PolicyKind::Messaging => self.push_as::<MECH_PRIVATE>(job),
            PolicyKind::Central(_) => self.central_push(job),
        }
    }

    /// Count an enqueue (a no-op without the `stats` feature).
    #[inline(always)]
    pub(crate) fn count_enqueue(&self) {
        #[cfg(feature = "stats")]
        self.enqueues.set(self.enqueues.get().wrapping_add(1));
    }

    /// Push onto this worker's own queue; `M` is the mechanism (`MECH_PUBLIC`
    /// or `MECH_PRIVATE`), known at compile time (the caller already branched
    /// on it once).
    #[inline(always)]
    pub(crate) fn push_as<const M: usize>(&self, job: JobRef) {
        self.count_enqueue();
        if M == MECH_PUBLIC {
            // SAFETY: this thread owns the deque.
            if unsafe { self.deque().push(job.as_ptr()) } {
                self.registry().sleep.notify_new_work();
            }
        } else {
            // One check covers a full buffer, a due UPDATE and waiting mail.
            // Mail waiting, an UPDATE due or the manager believing this worker
            // empty all make the gate's limit zero or the queue reach its count.
            if self.mail().gate.limit.load(Ordering::Relaxed) == 0 || self.private.len() + 1 >= self.report_at.get() {
                return self.push_slow(job);
            }
            self.private.push(job);
        }
    }

    /// Take back the newest task of this worker's own queue, whatever the
    /// policy's order: `join` uses it to find its second closure again.
    /// `M` selects the mechanism at compile time (the caller already
    /// branched on it once).
    #[inline(always)]
    pub(crate) fn pop_newest<const M: usize>(&self) -> Option<JobRef> {
        if M == MECH_PUBLIC {
            // SAFETY: this thread owns the deque; its pointers come from JobRefs.
            unsafe { self.deque().pop().map(|p| JobRef::from_ptr(p)) }
        } else if M == MECH_PRIVATE {
            self.private.pop_back()
        } else {
            self.central_pop_newest()
        }
    }

    /// A task leaves this worker's private queue other than by a `join`'s
    /// take-back: to run here through its header, or to be handed over. A task
    /// this worker pushed itself gets its owner and latch state written now
    /// (see `JobHeader`); a received one already has them.
    #[inline]
    pub(crate) fn leaving_private(&self, j: JobRef) -> JobRef {
        if !j.is_received() {
            // SAFETY: our own task, just taken off our own queue: only this thread has it.
            unsafe { JobHeader::prepare(j.as_ptr(), self.index) };
        }
        j
    }

    /// Take one of this worker's own tasks, in the policy's order.
    #[inline(always)]
    pub(crate) fn pop(&self) -> Option<JobRef> {
        self.pop_untimed()
    }

    #[inline(always)]
    fn pop_untimed(&self) -> Option<JobRef> {
        if self.mech == PolicyKind::Messaging {
            let j = match self.order {
                Order::Lifo => self.private.pop_back(),
                Order::Fifo => self.private.pop_front(),
            };
            return j.map(|j| self.leaving_private(j));
        }
        if let PolicyKind::Central(_) = self.mech {
            return self.central_pop().map(|e| e.job);
        }
        let p = match self.order {
            // SAFETY: this thread owns the deque.
            Order::Lifo => unsafe { self.deque().pop() },
            Order::Fifo => self.deque().steal_retrying(),
        };
        // SAFETY: every pointer in a deque came from a JobRef.
        p.map(|p| unsafe { JobRef::from_ptr(p) })
    }

    /// Run a job taken from a queue.
    #[inline]
    pub(crate) fn execute(&self, job: JobRef) {
        self.count_inline_task();
        if self.tracing {
            return self.execute_traced(job, "task");
        }
        // SAFETY: every queued job is executed exactly once, by whoever dequeued it.
        unsafe { job.execute() }
    }

    /// Count a task that was pushed and then taken back and run inline.
    #[inline(always)]
    pub(crate) fn count_inline_task(&self) {
        #[cfg(feature = "stats")]
        self.tasks_run.set(self.tasks_run.get().wrapping_add(1));
    }

    #[cold]
    fn execute_traced(&self, job: JobRef, kind: &'static str) {
        let t0 = crate::timer::ticks();
        // SAFETY: as in `execute`.
        unsafe { job.execute() };
        self.record_span(kind, t0);
    }

    #[cold]
    pub(crate) fn record_span(&self, kind: &'static str, t0: u64) {
        let reg = self.registry();
        if let Some(tr) = &reg.trace {
            let t1 = crate::timer::ticks();
            lock(&tr[self.index]).push(crate::trace::Span {
                worker: self.index,
                kind,
                start_ns: crate::timer::to_ns(t0.saturating_sub(reg.epoch)),
                dur_ns: crate::timer::to_ns(t1.saturating_sub(t0)),
            });
        }
    }

    /// A job submitted from outside the pool, if any.
    pub(crate) fn take_injected(&self) -> Option<JobRef> {
        let j = self.registry().injector.pop()?;
        // Counted as enqueued here so that enqueues == tasks run at rest.
        self.enqueues.set(self.enqueues.get().wrapping_add(1));
        Some(j)
    }

    /// One round of looking for work elsewhere: the injector, then one attempt
    /// at each victim in the policy's order. Takes as many tasks as the policy
    /// says; the first is returned, the rest go onto this worker's deque.
    #[cold]
    pub(crate) fn steal_round(&self) -> Option<JobRef> {
        let reg = self.registry();
        self.flush_counters();
        if let Some(j) = self.take_injected() {
            return Some(j);
        }
        let round = self.round.get();
        self.round.set(round.wrapping_add(1));
        let mut rng = self.rng.take_xs();
        let mut found = None;
        for k in 0..self.victims.attempts() {
            let v = self.victims.pick(k, round, &mut rng);
            self.counters().count(Counter::StealAttempts, 1);
            if let Some(j) = self.steal_from(&reg.deques[v]) {
                found = Some(j);
                break;
            }
        }
        self.rng.set(rng);
        found
    }

    fn steal_from(&self, victim: &Deque<JobHeader>) -> Option<JobRef> {
        let want = self.registry().policy.steal.count(victim.len());
        let first = loop {
            match victim.steal() {
                Steal::Success(p) => break p,
                Steal::Empty => return None,
                Steal::Retry => std::hint::spin_loop(),
            }
        };
        let mut got = 1;
        while got < want {
            match victim.steal() {
                Steal::Success(p) => {
                    // SAFETY: pointers in deques come from JobRefs. (Not counted as
                    // an enqueue: it was counted when first pushed.)
                    // SAFETY: this thread owns its deque.
                    if unsafe { self.deque().push(p) } {
                        self.registry().sleep.notify_new_work();
                    }
                    got += 1;
                }
                Steal::Empty => break,
                Steal::Retry => std::hint::spin_loop(),
            }
        }
        self.counters().count(Counter::Steals, 1);
        self.counters().count(Counter::TasksStolen, got as u64);
        // SAFETY: as above.
        Some(unsafe { JobRef::from_ptr(first) })
    }

    /// Run other work until `latch` is set.
    #[inline]
    pub(crate) fn wait_until(&self, state: &AtomicUsize) {
        let done = || state.load(Ordering::Acquire) == crate::latch::SET;
        if !done() {
            match self.mech {
                PolicyKind::WorkStealing => self.work_until(Some(state), done),
                PolicyKind::Messaging => self.work_until_adm(Some(state), done),
                PolicyKind::Central(_) => self.work_until_central(Some(state), done),
            }
        }
    }

    /// The worker's main loop, until the pool terminates.
    pub(crate) fn main_loop(&self) {
        self.counters().enter(Bucket::StealFail);
        let reg = self.registry();
        match self.mech {
            PolicyKind::WorkStealing => self.work_until(None, || reg.terminate.load(Ordering::Acquire)),
            PolicyKind::Messaging => self.work_until_adm(None, || reg.terminate.load(Ordering::Acquire)),
            PolicyKind::Central(_) => self.work_until_central(None, || reg.terminate.load(Ordering::Acquire)),
        }
    }

    /// Find and run work until `done()`; idle per the policy, parking on `latch`
    /// (if any) so that its setter wakes this worker.
    #[cold]
    fn work_until(&self, latch: Option<&AtomicUsize>, done: impl Fn() -> bool) {
        let reg = self.registry();
        let idle = reg.policy.idle;
        let resume = self.counters().current();
        let mut failed: u32 = 0;
        loop {
            if done() {
                break;
            }
            if let Some(j) = self.pop_untimed() {
                self.counters().enter(Bucket::Task);
                self.execute(j);
                continue;
            }
            // Out of local work: release the phase units held (`owed.rs`).
            crate::owed::flush();
            self.counters().enter(Bucket::StealFail);
            if let Some(j) = self.steal_round() {
                self.counters().relabel(Bucket::StealOk);
                self.counters().enter(Bucket::Task);
                self.execute(j);
                failed = 0;
                continue;
            }
            if done() {
                break;
            }
            failed = self.idle_step(idle, failed, latch, &done);
        }
        self.counters().enter(resume);
    }
}

impl WorkerThread {
    /// One idle step after a round that found no work, as the policy says:
    /// spin, yield, or park until work or the latch (if any) arrives. Returns
    /// the new count of failed rounds (zero after parking).
    pub(crate) fn idle_step(&self, idle: crate::policy::Idle, failed: u32, latch: Option<&AtomicUsize>, done: &impl Fn() -> bool) -> u32 {
        match idle.action(failed) {
            IdleAction::Spin => {
                for _ in 0..(1u32 << failed.min(6)) {
                    std::hint::spin_loop();
                }
            }
            IdleAction::Yield => crate::sync::thread::yield_now(),
            IdleAction::Park => {
                let reg = self.registry();
                self.counters().enter(Bucket::Starved);
                self.counters().count(Counter::Parks, 1);
                self.flush_counters();
                let t0 = crate::timer::ticks();
                reg.sleep.sleep(self.index, latch, || reg.has_work() || done());
                if self.tracing {
                    self.record_span("park", t0);
                }
                self.counters().enter(Bucket::StealFail);
                return 0;
            }
        }
        failed.saturating_add(1)
    }
}

pub(crate) trait TakeXs {
    fn take_xs(&self) -> XorShift;
}
impl TakeXs for Cell<XorShift> {
    fn take_xs(&self) -> XorShift {
        self.replace(XorShift::new(0))
    }
}
