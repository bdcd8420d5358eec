//! A worker thread: its handles, its mechanism, and the one scheduling loop
//! every mechanism runs.
//!
//! The loop (`run_loop`) is the same for work stealing, messages and the
//! central unit: at each turn it lets the mechanism handle what arrived,
//! stops if the awaited event happened, looks for a task in the sources the
//! policy lists (`policy::search`), and when every source is empty, releases
//! what it holds, tells the mechanism, and takes the idle step the policy
//! says (`policy::idle`). A task waiting on a latch first runs its own next
//! task, with no poll (its newest spawn, most often: as a join takes its
//! second half back). It is generic over the mechanism, so each
//! mechanism's copy is compiled on its own with no indirect calls.

use crate::adm::spawn_gate::Gate;
use crate::adm::AdmWorker;
use crate::fixed::FixedWorker;
use crate::job::{JobHeader, JobRef, Latch};
use crate::latch::tally;
use crate::mechanism::{Handles, LoopStep, Mechanism, Task};
use crate::policy::search::Source;
use crate::policy::{IdleAction, PolicyKind};
use crate::registry::{MechShared, Registry};
use crate::stats::{timer, Bucket, Counter, WorkerCounters};
use crate::sync::{AtomicUsize, Ordering};
use crate::unit::UnitWorker;
use crate::ws::WsWorker;
use std::cell::Cell;
use std::ptr;

/// The worker running on this thread, and the spawn gate `join` checks
/// (`adm/spawn_gate.rs`): its own gate on a message-policy worker,
/// [`NO_GATE`] elsewhere. The gate comes first so that a spawn's one
/// thread-local load is the first word.
#[repr(C)]
struct Current {
    gate: Cell<*const Gate>,
    worker: Cell<*const WorkerThread>,
}

/// The gate of every thread that is not a message-policy worker: its limit
/// is zero, so every spawn there takes the slow path, which dispatches on the
/// worker's mechanism or, outside any pool, goes to the global pool.
struct NoGate(Gate);

// SAFETY: nothing ever writes to it: only the owner of a private queue
// writes its gate's `top` and `joins`, senders write the `limit` of real
// mailboxes, and a spawn that sees `top >= limit` writes nothing.
unsafe impl Sync for NoGate {}

static NO_GATE: NoGate = NoGate(Gate {
    top: Cell::new(ptr::null_mut()),
    limit: AtomicUsize::new(0),
    signal: std::sync::atomic::AtomicBool::new(false),
    stack_hi: Cell::new(0),
    marks_end: Cell::new(ptr::null()),
    #[cfg(feature = "stats")]
    joins: crate::stats::Countdown::new(0, crate::stats::SAMPLE_PERIOD),
});

thread_local! {
    static CURRENT: Current = const { Current { gate: Cell::new(&NO_GATE.0), worker: Cell::new(ptr::null()) } };
}

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

/// A worker's mechanism: one per policy kind, chosen when the pool starts.
/// A tag of its own (`repr(u8)`), not a niche in one of the workers'
/// fields: a spawn's slow path dispatches on it, and a niche costs a load,
/// an offset and a range check there (3 instructions per `join` under
/// `carbon`, counted by `scripts/spawn_cost.sh`).
#[repr(u8)]
pub(crate) enum Local {
    Ws(WsWorker),
    Adm(AdmWorker),
    Unit(UnitWorker),
    Fixed(FixedWorker),
}

pub(crate) struct WorkerThread {
    pub(crate) index: usize,
    pub(crate) registry: *const Registry,
    /// What the mechanism may touch: index, policy, sleep, counters.
    pub(crate) h: Handles,
    pub(crate) local: Local,
    /// `local` is `Local::Ws`: `join_other` tests this before it matches on
    /// `local`, since a `match` over four mechanisms compiled to a jump table
    /// there, an indirect jump and two more instructions on every `ws` join
    /// (`scripts/spawn_cost.sh`), where this is one load and one branch.
    pub(crate) is_ws: bool,
    tracing: bool,
    /// Below this stack address a worker waiting on a latch takes only the
    /// newest of its own queued tasks (`Mechanism::take_newest`; 0: no
    /// limit). Set for the central-queue policies only: there a
    /// waiting worker may take any queued task (under `pdf` the earliest in
    /// serial order, wherever it is in the tree), so helping could nest one
    /// task on another until the stack overflows (`docs/policies.md`); `ws`
    /// and the message policies steal a victim's oldest tasks, which keeps
    /// the nesting shallow in practice.
    help_floor: usize,
    /// This worker's stack: `stack_lo..stack_hi` (for `on_my_stack`).
    stack_lo: usize,
    stack_hi: usize,
    /// Did this worker keep the pool's watch at its last park
    /// (`policy::idle::watch_interval_us`)?
    watched: Cell<bool>,
    /// When to time a task for the median task length (`stats/lengths.rs`).
    #[cfg(feature = "stats")]
    sampler: crate::stats::lengths::Sampler,
}

impl WorkerThread {
    /// The worker `index` of `registry`, running on the calling thread, whose
    /// frame marks (message policies) cover `mark_bytes` of stack below
    /// `stack_hi` (an address in the thread's outermost frame), on a stack of
    /// `stack_bytes`.
    pub(crate) fn new(registry: &Registry, index: usize, stack_hi: usize, mark_bytes: usize, stack_bytes: usize) -> WorkerThread {
        let p = &registry.policy;
        // SAFETY (all four): the registry outlives its workers, and this
        // worker runs on the thread that calls `new` (`stack_hi`).
        let local = match (&registry.mech, p.kind) {
            (MechShared::Ws(s), PolicyKind::Ws(w)) => Local::Ws(unsafe { WsWorker::new(s, w, p.order, index, &registry.topology, registry.epoch) }),
            (MechShared::Adm(s), PolicyKind::Adm(_)) => Local::Adm(unsafe { AdmWorker::new(s, index, p.order, stack_hi, mark_bytes) }),
            (MechShared::Unit(s), PolicyKind::Unit(u)) => Local::Unit(unsafe { UnitWorker::new(s, u, index) }),
            (MechShared::Fixed(s), PolicyKind::Fixed) => Local::Fixed(unsafe { FixedWorker::new(s, index) }),
            _ => unreachable!("the registry's mechanism is the policy's"),
        };
        WorkerThread {
            index,
            registry,
            h: unsafe { Handles::new(index, registry.num_threads(), p, &registry.sleep, &registry.counters[index]) },
            is_ws: matches!(local, Local::Ws(_)),
            // Help while waiting only in the first half of the stack.
            help_floor: if matches!(local, Local::Unit(_)) { stack_hi.saturating_sub(stack_bytes / 2) } else { 0 },
            stack_lo: stack_hi.saturating_sub(stack_bytes),
            stack_hi,
            local,
            tracing: registry.trace.is_some(),
            watched: Cell::new(false),
            #[cfg(feature = "stats")]
            sampler: crate::stats::lengths::Sampler::new(index as u64),
        }
    }

    /// The worker running on this thread, or null.
    #[inline(always)]
    pub(crate) fn current() -> *const WorkerThread {
        CURRENT.with(|c| c.worker.get())
    }

    /// Install `self` as this thread's worker for the duration of `f`.
    pub(crate) fn run_as_current(&self, f: impl FnOnce()) {
        let gate: *const Gate = match &self.local {
            Local::Adm(a) => a.install_gate(),
            _ => &NO_GATE.0,
        };
        CURRENT.with(|c| {
            c.worker.set(self);
            c.gate.set(gate);
        });
        f();
        if let Local::Adm(a) = &self.local {
            a.uninstall();
        }
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
    pub(crate) fn counters(&self) -> &WorkerCounters {
        self.h.counters()
    }

    /// The message-policy side of this worker, if it runs one.
    #[inline]
    pub(crate) fn adm(&self) -> Option<&AdmWorker> {
        match &self.local {
            Local::Adm(a) => Some(a),
            _ => None,
        }
    }

    /// The central-unit side of this worker, if it runs one.
    #[inline]
    pub(crate) fn unit(&self) -> Option<&UnitWorker> {
        match &self.local {
            Local::Unit(u) => Some(u),
            _ => None,
        }
    }

    /// The `static` side of this worker, if it runs that policy (its loops
    /// are cut into pieces up front instead of split lazily).
    #[inline]
    pub(crate) fn fixed(&self) -> Option<&FixedWorker> {
        match &self.local {
            Local::Fixed(f) => Some(f),
            _ => None,
        }
    }

    /// Should a loop split its range now (`policy::split`)?
    #[inline(always)]
    pub(crate) fn wants_split(&self) -> bool {
        match &self.local {
            Local::Ws(m) => m.wants_split(&self.h),
            Local::Adm(m) => m.wants_split(&self.h),
            Local::Unit(m) => m.wants_split(&self.h),
            Local::Fixed(m) => m.wants_split(&self.h),
        }
    }

    /// Before a loop task's next chunk, with `left` chunks after it
    /// ([`Mechanism::loop_step`]).
    #[inline(always)]
    pub(crate) fn loop_step(&self, left: usize) -> LoopStep {
        match &self.local {
            Local::Ws(m) => m.loop_step(&self.h, left),
            Local::Adm(m) => m.loop_step(&self.h, left),
            Local::Unit(m) => m.loop_step(&self.h, left),
            Local::Fixed(m) => m.loop_step(&self.h, left),
        }
    }

    /// [`Mechanism::loop_cut_offered`].
    #[inline(always)]
    pub(crate) fn loop_cut_offered(&self) {
        match &self.local {
            Local::Ws(m) => m.loop_cut_offered(&self.h),
            Local::Adm(m) => m.loop_cut_offered(&self.h),
            Local::Unit(m) => m.loop_cut_offered(&self.h),
            Local::Fixed(m) => m.loop_cut_offered(&self.h),
        }
    }

    /// [`Mechanism::loop_done`].
    #[inline(always)]
    pub(crate) fn loop_done(&self) {
        match &self.local {
            Local::Ws(m) => m.loop_done(&self.h),
            Local::Adm(m) => m.loop_done(&self.h),
            Local::Unit(m) => m.loop_done(&self.h),
            Local::Fixed(m) => m.loop_done(&self.h),
        }
    }

    /// Publish the private hot counters.
    #[inline]
    pub(crate) fn flush_counters(&self) {
        self.h.hot.publish(self.counters(), self.gate_joins());
    }

    /// The joins the message policies' spawn gate counted (0 under the others).
    #[inline]
    fn gate_joins(&self) -> u64 {
        match &self.local {
            Local::Adm(a) => a.gate_joins(),
            _ => 0,
        }
    }

    /// Queue a task of this worker's (scope, phase, graph).
    #[inline(always)]
    pub(crate) fn push(&self, job: JobRef) {
        match &self.local {
            Local::Ws(m) => m.push(&self.h, job),
            Local::Adm(m) => m.push(&self.h, job),
            Local::Unit(m) => m.push(&self.h, job),
            Local::Fixed(m) => m.push(&self.h, job),
        }
    }

    /// Run a job taken from a queue.
    #[inline]
    pub(crate) fn execute(&self, job: JobRef) {
        self.h.hot.task_run();
        if self.tracing {
            return self.execute_traced(job, "task");
        }
        #[cfg(feature = "stats")]
        if self.sampler.due() {
            return self.execute_sampled(job);
        }
        // SAFETY: every queued job is executed exactly once, by whoever dequeued it.
        unsafe { job.execute() }
    }

    /// `execute`, timed for the median task length; the length is kept only
    /// if the task ran no other task and never left task time (a leaf task:
    /// `stats/lengths.rs`).
    #[cfg(feature = "stats")]
    #[cold]
    #[inline(never)]
    fn execute_sampled(&self, job: JobRef) {
        let runs = || self.h.hot.runs(self.gate_joins());
        let (runs0, moved0) = (runs(), self.counters().last_transition());
        let t0 = timer::ticks();
        // SAFETY: as in `execute`.
        unsafe { job.execute() };
        let t = timer::ticks().saturating_sub(t0);
        if runs() == runs0 && self.counters().last_transition() == moved0 {
            self.counters().task_length(t);
            self.sampler.kept();
        }
        self.sampler.schedule();
    }

    /// A job submitted from outside the pool, if any.
    /// (First this worker's own broadcast jobs: `broadcast.rs`.)
    fn take_injected(&self) -> Option<JobRef> {
        let reg = self.registry();
        let j = match reg.broadcasts[self.index].pop() {
            Some(j) => j,
            None => reg.injector.pop()?,
        };
        // Counted as enqueued here so that enqueues == tasks run at rest.
        self.h.hot.enqueue();
        Some(j)
    }

    /// Run other work until `state` (a latch) is set.
    #[inline]
    pub(crate) fn wait_until(&self, state: &AtomicUsize) {
        let done = || state.load(Ordering::Acquire) == crate::sleep::SET;
        if !done() {
            self.work_until(Some(state), done)
        }
    }

    /// The worker's main loop, until the pool terminates, after parking at
    /// once where the policy says (`policy::idle::park_at_start`). Under
    /// `manager=dedicated`, worker 0 runs it with the manager thread beside it
    /// (`adm/manager_thread.rs`).
    pub(crate) fn main_loop(&self) {
        self.counters().enter(Bucket::StealFail);
        let reg = self.registry();
        let done = || reg.terminate.load(Ordering::Acquire);
        if let (Local::Adm(m), MechShared::Adm(s)) = (&self.local, &reg.mech) {
            if let (0, Some(dm)) = (self.index, s.dedicated()) {
                return crate::adm::manager_thread::run_beside(s, &reg.sleep, dm, || self.run_loop(m, None, false, done));
            }
        }
        if crate::policy::idle::park_at_start(reg.policy.mechanism()) {
            // `sw-hier`'s signal: a private queue holds a task this worker
            // may have to rescue (`unit/mod.rs`).
            let signal = || matches!(&self.local, Local::Unit(m) if m.signal());
            self.park_until(None, || reg.has_work_at_start() || signal() || self.has_broadcast());
        }
        self.work_until(None, done)
    }

    /// Find and run work until `done()`; idle as the policy says, parking on
    /// `latch` (if any) so that its setter wakes this worker. With a latch,
    /// the worker waits inside a task (a `join`, a scope); without one, it
    /// runs the pool's main loop.
    #[cold]
    pub(crate) fn work_until(&self, latch: Option<&AtomicUsize>, done: impl Fn() -> bool) {
        self.work_until_as(latch, latch.is_some(), done)
    }

    /// [`work_until`](Self::work_until) for a task that waits for an event
    /// with no latch to park on (a piggybacked phase's end): the worker
    /// idles as one waiting inside a task (`Mechanism::out_of_work`), and
    /// resumes it as one (`Mechanism::resumed`), not as an idle worker of
    /// the main loop.
    #[cold]
    pub(crate) fn wait_for(&self, done: impl Fn() -> bool) {
        self.work_until_as(None, true, done)
    }

    fn work_until_as(&self, latch: Option<&AtomicUsize>, waiting: bool, done: impl Fn() -> bool) {
        match &self.local {
            Local::Ws(m) => self.run_loop(m, latch, waiting, done),
            Local::Adm(m) => self.run_loop(m, latch, waiting, done),
            Local::Unit(m) => self.run_loop(m, latch, waiting, done),
            Local::Fixed(m) => self.run_loop(m, latch, waiting, done),
        }
    }

    /// The one scheduling loop (module documentation). `waiting`: inside a
    /// task that waits (a latch, or `wait_for`), not the main loop.
    fn run_loop<M: Mechanism>(&self, m: &M, latch: Option<&AtomicUsize>, waiting: bool, done: impl Fn() -> bool) {
        let h = &self.h;
        let idle = h.policy().idle;
        let resume = self.counters().current();
        let mut failed: u32 = 0;
        // Inside a `join` (a latch to wait on), this worker's own older
        // continuations may be marked above. Once none is found none can
        // appear above this frame while it waits (new marks are deeper and
        // cleared before the task that made them returns), so the scan is
        // not repeated.
        let mut own_marks = latch.is_some();
        // When the rounds alone would first have parked this worker since
        // its last task (`registry::now_us`; `policy::idle`: the time budget
        // counts from there, or from the pool's last call if later).
        let mut rounds_spent: Option<u64> = None;
        // Own next task first, no poll (module doc); poll after if not done.
        let mut took_back = latch.is_some() && !self.too_deep_to_help() && self.take_own(m).map(|t| self.run_found(m, t)).is_some();
        loop {
            if !std::mem::take(&mut took_back) {
                m.poll(h);
            }
            if done() {
                break;
            }
            if latch.is_some() && self.too_deep_to_help() {
                // Past the floor, run only the newest task this worker
                // pushed below the latch's frame: a scope's own spawns, which
                // nobody else may be there to run (all other workers past
                // their floors too, or none). A `join` takes its second half
                // back first, so what it waits for runs on another worker or
                // waits on one that runs. A task of an outer frame could be
                // a large subtree whose waits nest further (`docs/policies.md`,
                // "Helping depth").
                if let Some(t) = latch.filter(|l| self.on_my_stack(*l)).and_then(|l| m.take_newest(h, l as *const AtomicUsize as usize)) {
                    self.run_found(m, t);
                } else {
                    crate::sync::thread::yield_now();
                }
                continue;
            }
            if let Some(t) = self.search(m, &mut own_marks) {
                self.pass_on_wake(m);
                self.run_found(m, t);
                failed = 0;
                rounds_spent = None;
                continue;
            }
            // Out of work: release the phase units held (`latch/tally.rs`).
            tally::flush(|| self.flush_counters());
            self.counters().enter(Bucket::StealFail);
            m.out_of_work(h, waiting);
            if done() {
                break;
            }
            let nothing_left = m.nothing_left();
            let mut nap = None;
            let action = if idle.needs_clock(failed, nothing_left) {
                let (reg, now) = (self.registry(), crate::registry::now_us());
                let since = (*rounds_spent.get_or_insert(now)).max(reg.called_at_us());
                let (idle_us, in_use) = (now.saturating_sub(since), reg.in_use());
                nap = idle.nap_us(idle_us, in_use).map(std::time::Duration::from_micros);
                idle.next_timed(failed, nothing_left, idle_us, in_use)
            } else {
                idle.next(failed, nothing_left)
            };
            if !matches!(action, IdleAction::Park) {
                // Waiting for work to appear is starvation, not a steal
                // (`stats/`): the next search moves back to StealFail.
                self.counters().enter(Bucket::Starved);
            }
            match action {
                IdleAction::Spin { pauses } => {
                    for _ in 0..pauses {
                        // Mail, or the latch this worker waits on: a `join`
                        // whose `b` another worker ran resumes as soon as it
                        // is done, not after the rest of the backoff.
                        if m.signal() || done() {
                            break;
                        }
                        std::hint::spin_loop();
                    }
                    if done() {
                        // The latch (or the pool's end): resume at once; mail
                        // waits for the next scheduling point, as it would
                        // have had the latch come a moment earlier.
                        break;
                    }
                }
                IdleAction::Yield => crate::sync::thread::yield_now(),
                IdleAction::Park => {
                    let timeout = match (m.park_timeout(h), nap) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                    self.park(latch, timeout, || m.signal() || done());
                    // The budget is not renewed by a park that found nothing
                    // (a timeout, a wake another worker answered first); after
                    // a nap the worker looks once and naps again, without
                    // its spinning rounds.
                    if nap.is_none() {
                        failed = 0;
                    }
                    continue;
                }
            }
            failed = failed.saturating_add(1);
        }
        if waiting {
            m.resumed(h);
        }
        self.counters().enter(resume);
    }

    /// A task found in the loop, about to run (and perhaps block in user
    /// code): wake another sleeper while work is still visible
    /// (`policy::idle::pass_on_wake`), and hand the watch on if this worker
    /// kept it or nobody does (the next sleeper to park takes it up:
    /// `policy::idle::watch_interval_us`).
    #[inline(always)]
    fn pass_on_wake<M: Mechanism>(&self, m: &M) {
        if self.watched.get() || self.registry().sleep.sleeping() > 0 {
            self.pass_on_wake_cold(m)
        }
    }

    #[cold]
    #[inline(never)]
    fn pass_on_wake_cold<M: Mechanism>(&self, m: &M) {
        let reg = self.registry();
        let watched = self.watched.replace(false);
        if !crate::policy::idle::keeps_watch(reg.policy.mechanism()) {
            return;
        }
        // Pairs with the sleeper's fence between announcing its sleep and
        // its last look (`sleep/README.md`).
        crate::sync::full_fence();
        let sleepers = reg.sleep.sleeping();
        // A watch is kept only while some worker is awake, so the last
        // sleeper of an idle pool gives it up; the first worker to take a
        // task afterwards wakes one, which takes it up as it parks again.
        let rewatch = sleepers > 0 && (watched || reg.sleep.unwatched());
        if crate::policy::idle::pass_on_wake(sleepers, reg.has_work() || m.work_for_sleepers()) || rewatch {
            reg.sleep.notify_new_work();
        }
    }

    /// Is `x` on this worker's stack (a latch in one of its frames, not on the heap)?
    fn on_my_stack<T>(&self, x: &T) -> bool {
        let a = x as *const T as usize;
        a < self.stack_hi && a >= self.stack_lo
    }

    /// Is this worker's stack past `help_floor` (see the field)?
    #[inline]
    fn too_deep_to_help(&self) -> bool {
        let here = 0u8;
        (std::ptr::addr_of!(here) as usize) < self.help_floor
    }

    /// Run a task the loop found.
    #[inline(always)]
    fn run_found<M: Mechanism>(&self, m: &M, t: M::Task) {
        m.found_work(&self.h);
        self.counters().enter(Bucket::Task);
        m.run(t, |j| self.execute(j));
    }

    /// This worker's own next task, in the policy's order.
    #[inline(always)]
    fn take_own<M: Mechanism>(&self, m: &M) -> Option<M::Task> {
        if M::POP_IS_SEARCH {
            self.counters().enter(Bucket::StealFail);
        }
        self.h.hot.dequeue_op(self.counters(), || m.pop(&self.h))
    }

    /// Look for a task in the mechanism's sources, in the policy's order.
    #[inline]
    pub(crate) fn search<M: Mechanism>(&self, m: &M, own_marks: &mut bool) -> Option<M::Task> {
        let h = &self.h;
        for &source in M::SEARCH {
            let found = match source {
                Source::Own => self.take_own(m),
                Source::OwnMarks if *own_marks => {
                    let t = m.find(h, source, true);
                    *own_marks = t.is_some();
                    t
                }
                Source::OwnMarks => None,
                Source::Injector => self.take_injected().map(|j| {
                    m.took_injected(h);
                    <M::Task as Task>::injected(j)
                }),
                Source::Peers => self.steal(m),
            };
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// Take from other workers: first release what this worker holds and
    /// publish its counters, since the search may take a while.
    #[cold]
    fn steal<M: Mechanism>(&self, m: &M) -> Option<M::Task> {
        tally::flush(|| self.flush_counters());
        self.counters().enter(Bucket::StealFail);
        self.flush_counters();
        let t = m.find(&self.h, Source::Peers, false);
        if t.is_some() {
            self.counters().relabel(Bucket::StealOk);
        }
        t
    }

    /// Park until work, `wake()` or the latch (if any) arrives.
    #[cold]
    fn park(&self, latch: Option<&AtomicUsize>, timeout: Option<std::time::Duration>, wake: impl Fn() -> bool) {
        let reg = self.registry();
        self.park_until_or(latch, timeout, || reg.has_work() || self.has_broadcast() || wake())
    }

    /// Run one task that this worker could run now, if there is one
    /// (`yield_now`, `yield_local`): from its own queue, and unless
    /// `local_only`, also its broadcasts, the injector and (`ws`) its peers.
    /// The worker's own continuations (`OwnMarks`) are left alone: the
    /// caller is in the middle of a task, not waiting for one.
    #[cold]
    pub(crate) fn run_one(&self, local_only: bool) -> bool {
        match &self.local {
            Local::Ws(m) => self.run_one_in(m, local_only),
            Local::Adm(m) => self.run_one_in(m, local_only),
            Local::Unit(m) => self.run_one_in(m, local_only),
            Local::Fixed(m) => self.run_one_in(m, local_only),
        }
    }

    /// Park unless `has_work()` once the sleep is announced; until woken.
    #[cold]
    fn park_until(&self, latch: Option<&AtomicUsize>, has_work: impl Fn() -> bool) {
        self.park_until_or(latch, None, has_work)
    }

    /// `park_until`, or until `timeout` has passed. Without a timeout of
    /// its own, the worker may keep the pool's watch
    /// (`policy::idle::watch_interval_us`).
    #[cold]
    fn park_until_or(&self, latch: Option<&AtomicUsize>, timeout: Option<std::time::Duration>, has_work: impl Fn() -> bool) {
        let reg = self.registry();
        self.counters().enter(Bucket::Starved);
        self.counters().count(Counter::Parks, 1);
        self.flush_counters();
        let t0 = timer::ticks();
        let interval = crate::policy::idle::watch_interval_us;
        let watch = crate::policy::idle::keeps_watch(reg.policy.mechanism()).then_some(&interval as &dyn Fn(u32, usize, usize) -> Option<u64>);
        if reg.sleep.sleep_for(self.index, latch, timeout, watch, has_work) {
            self.watched.set(true);
        }
        if self.tracing {
            self.record_span("park", t0);
        }
        self.counters().enter(Bucket::StealFail);
    }
}

/// The latch of a `join`'s stack job. It has no fields: its state word and the
/// owner to wake are in the job's header, written only if the job leaves its
/// owner (see [`JobHeader`]).
pub(crate) struct JobLatch;

impl Latch for JobLatch {
    unsafe fn complete(_this: *const Self, header: *const JobHeader) {
        let wt = WorkerThread::current();
        debug_assert!(!wt.is_null(), "stack jobs run on workers of their own pool");
        // SAFETY: non-null current worker; publish counts before the waiter can read them.
        unsafe { (*wt).flush_counters() };
        // SAFETY: as above.
        if let Local::Adm(m) = unsafe { &(*wt).local } {
            m.finishing_for_another();
        }
        // SAFETY: the job was prepared before it left its owner; the completing
        // thread is a worker of the owner's pool, alive; `header` is live until
        // the swap inside `set_latch`, and the owner is read before it.
        unsafe {
            let owner = JobHeader::owner(header);
            (*wt).registry().sleep.set_latch(JobHeader::state(header), owner);
        }
    }
}
