//! Dynamic task phases: the enqueue/dequeue interface of the papers' task
//! runtimes (Sanchez, Yoo, Kozyrakis, ASPLOS 2010, section 4.1, Table 1;
//! Kumar, Hughes, Nguyen, ISCA 2007, section 4.2), and phases whose tasks
//! return values that are combined into one (ASPLOS 2010, section 4.2).
//!
//! A phase starts with some tasks; running a task may enqueue more. A task is a
//! small `Copy` descriptor of at most four machine words, like the papers' task
//! tuples ([`PhaseTask`], checked where the user's code is type-checked:
//! `task.rs`). [`phase`] returns when no task is queued or running anywhere;
//! [`phase_reduce`] also returns the tasks' values combined.
//!
//! How a phase ends is a decision (`policy::reduce::phase_end`). Under the
//! message-based policies the managers detect the end from the task counts
//! their messages carry, as for a reduced phase (design note in
//! `adm/tokens.rs`), so no task touches a shared counter.
//! Under the others a counter holds one unit for the phase's own setup plus
//! one per task enqueued and not yet finished. A task's children are counted
//! before the task's own unit is released (a finished task's unit may wait in
//! its worker's tally for reuse: `latch/tally.rs`), so the counter is zero only when the
//! phase is truly over; the thread that takes it to zero sets the latch the
//! caller waits on (the "finish" counter of X10's work-stealing scheduler,
//! which Sanchez, Yoo, Kozyrakis cite, ASPLOS 2010, section 4.1). [`phase_reduce`] uses the same counter with its tree
//! method.
//!
//! Each task is a heap job in a block of the thread's block cache
//! (`job/block_cache.rs`), so enqueueing allocates nothing in the steady state.

pub(crate) mod reduce;
pub(crate) mod task;

use crate::adm::mailbox::{Msg, MsgKind};
use crate::adm::tokens::{self, ReduceHead};
use crate::job::unwind::PanicSlot;
use crate::job::HeapJob;
use crate::latch::tally;
use crate::latch::{CountLatch, WorkerLatch};
use crate::policy::reduce::{phase_end, PhaseEnd, ReduceMethod};
use crate::registry::Registry;
use crate::worker::{flush_current_counters, WorkerThread};
use reduce::{TreeEnd, Word};
use std::panic::{self, AssertUnwindSafe};
pub use task::PhaseTask;

/// Largest task descriptor, in bytes: four machine words.
pub const MAX_TASK_BYTES: usize = 4 * std::mem::size_of::<usize>();

/// How a phase counts its tasks and combines their values. (One per phase,
/// on its caller's stack: the size of the tree variant does not matter.)
#[allow(clippy::large_enum_variant)]
enum End<'f> {
    /// [`phase`]: the X10 counter, values ignored.
    Count(CountLatch),
    /// [`phase_reduce`], tree method.
    Tree(TreeEnd<'f>),
    /// [`phase_reduce`], piggybacked on the managers' messages.
    Piggyback(&'f ReduceHead<'f>),
    /// Recording (`record/`): a `RecordedPhase<T>` of the phase's task type,
    /// type-erased because `End` is not generic.
    Recorded(*const ()),
}

/// A phase while recording: its latch and its worklist, drained in order by
/// the phase's caller.
struct RecordedPhase<T> {
    latch: crate::taskgraph::LatchId,
    work: std::cell::RefCell<std::collections::VecDeque<(crate::taskgraph::TaskId, T)>>,
}

impl<T> RecordedPhase<T> {
    fn enqueue(&self, task: T) {
        // The worklist's growth (a breadth-first phase holds a whole level
        // of its tree) is the recorder's, not the spawning task's.
        crate::record::spawn_task_then(crate::taskgraph::TaskKind::Phase, self.latch, |t| self.work.borrow_mut().push_back((t, task)));
    }
}

/// A phase while recording: every task runs serially, first in, first out,
/// as a task of the recorded graph; values are combined in that order.
#[cold]
fn run_recorded<T: Copy + Send>(
    body: &(dyn Fn(&PhaseCtx<'_, T>, T) -> usize + Sync),
    combine: &(dyn Fn(usize, usize) -> usize + Sync),
    identity: usize,
    initial: impl Iterator<Item = T>,
) -> usize {
    let rec = RecordedPhase { latch: crate::record::new_latch(), work: Default::default() };
    let shared = PhaseShared { body, end: End::Recorded((&rec as *const RecordedPhase<T>).cast()), panic: PanicSlot::new(), registry: std::ptr::null() };
    for t in initial {
        rec.enqueue(t);
    }
    // Task to task without going back to the caller in between: draining the
    // worklist is the tasks' cost (a worker's, in the runtime), not the caller's.
    let mut acc = identity;
    let mut caller = None;
    loop {
        let next = rec.work.borrow_mut().pop_front();
        let Some((id, task)) = next else { break };
        let before = crate::record::switch_to(id);
        caller.get_or_insert(before);
        let ctx = PhaseCtx { shared: &shared };
        acc = combine(acc, (shared.body)(&ctx, task));
    }
    if let Some(c) = caller {
        crate::record::switch_to(c);
    }
    crate::record::wait(rec.latch);
    acc
}

struct PhaseShared<'f, T> {
    /// The task body; its value as a word (0 for [`phase`]).
    body: &'f (dyn Fn(&PhaseCtx<'_, T>, T) -> usize + Sync),
    end: End<'f>,
    panic: PanicSlot,
    registry: *const Registry,
}

/// Handed to every task of a phase; enqueues more tasks into the same phase.
#[allow(missing_debug_implementations)]
pub struct PhaseCtx<'p, T> {
    shared: &'p PhaseShared<'p, T>,
}

struct SharedPtr<'f, T>(*const PhaseShared<'f, T>);
// SAFETY: PhaseShared is Sync for T: Send (body is Sync, the rest are atomics
// or read-only), and it outlives all its tasks because the phase waits for them.
unsafe impl<T> Send for SharedPtr<'_, T> {}

impl<T: PhaseTask> PhaseCtx<'_, T> {
    /// Add a task to the phase. It runs at most once, before the phase returns.
    #[inline]
    pub fn enqueue(&self, task: T) {
        enqueue(self.shared, task)
    }
}

impl<T> PhaseShared<'_, T> {
    /// Do finished tasks keep their unit of the shared counter in their
    /// worker's tally (`latch/tally.rs`) instead of releasing it? Under the counting
    /// ends; a piggybacked phase has no shared counter.
    fn keeps_units(&self) -> bool {
        !matches!(self.end, End::Piggyback(_))
    }
}

/// Count an enqueue under the phase's end, then push the task.
fn enqueue<T: Copy + Send>(shared: &PhaseShared<'_, T>, task: T) {
    // `PhaseTask` rejects larger types where the program is type-checked,
    // except a generic type whose `impl` was written by hand: this catches
    // that one when the program is built.
    const {
        assert!(
            std::mem::size_of::<T>() <= MAX_TASK_BYTES,
            "a phase task is at most four machine words (finegrain::MAX_TASK_BYTES): a hand-written `impl PhaseTask` is for a larger type"
        )
    };
    match &shared.end {
        // A unit this worker holds for the phase serves the new task (`latch/tally.rs`).
        End::Count(latch) if !tally::take(end_key(latch)) => latch.increment(),
        End::Tree(t) if !tally::take(end_key(t)) => t.increment(),
        End::Count(_) | End::Tree(_) => {}
        End::Piggyback(h) => count_piggyback_enqueue(shared.registry, h),
        End::Recorded(r) => {
            // SAFETY: `run_recorded` made this pointer from a live
            // `RecordedPhase` of this phase's task type `T`.
            let r = unsafe { &*r.cast::<RecordedPhase<T>>() };
            return r.enqueue(task);
        }
    }
    // The phase waits for every job before `shared` goes away.
    let ptr = SharedPtr(shared as *const PhaseShared<'_, T>);
    let job = HeapJob::into_job_ref(move || {
        let ptr = ptr;
        // SAFETY: see SharedPtr.
        let shared = unsafe { &*ptr.0 };
        let ctx = PhaseCtx { shared };
        let r = panic::catch_unwind(AssertUnwindSafe(|| (shared.body)(&ctx, task)));
        // Before this task's unit can let the phase end, so that
        // `Pool::measure` right after the phase sees everything it did.
        flush_current_counters();
        match r {
            Ok(v) if shared.keeps_units() => {
                record_value(shared, v);
                // The unit stays with this worker until it runs out of work
                // or an enqueue into the phase reuses it (`latch/tally.rs`).
                let (end, release) = shared.release_target();
                // SAFETY: this task's unit is one of that counter's.
                unsafe { tally::keep(end, release, flush_current_counters) };
            }
            // SAFETY: last touch of `shared` by this task.
            r => unsafe { finish(ptr.0, r) },
        }
    });
    // SAFETY: the registry outlives the phase.
    unsafe { Registry::push_or_inject(shared.registry, job) };
}

/// The name of a counting end in a worker's tally: its address.
fn end_key<E>(e: &E) -> *const () {
    e as *const E as *const ()
}

/// `tally::ReleaseFn` of a count latch.
unsafe fn release_count(end: *const (), n: usize) {
    // SAFETY: `end` names a live `CountLatch` whose `n` units the caller holds.
    unsafe { CountLatch::decrement_by(end.cast(), n) }
}

/// `tally::ReleaseFn` of a tree end.
unsafe fn release_tree(end: *const (), n: usize) {
    // SAFETY: `end` names a live `TreeEnd` whose `n` units the caller holds.
    unsafe { TreeEnd::decrement_by(end.cast::<TreeEnd<'static>>(), n) }
}

impl<T> PhaseShared<'_, T> {
    /// The counter a task's unit belongs to, for a worker's tally.
    fn release_target(&self) -> (*const (), tally::ReleaseFn) {
        match &self.end {
            End::Count(latch) => (end_key(latch), release_count),
            End::Tree(t) => (end_key(t), release_tree),
            End::Piggyback(_) => unreachable!("piggybacked phases keep no shared counter"),
            End::Recorded(_) => unreachable!("a recorded phase runs no jobs"),
        }
    }
}

/// Under the tree end, fold a finished task's value into this worker's slot.
fn record_value<T>(s: &PhaseShared<'_, T>, value: usize) {
    if let End::Tree(t) = &s.end {
        // SAFETY: tasks run on the phase's workers; non-null.
        t.add(unsafe { (*WorkerThread::current()).index }, value);
    }
}

/// Under the piggyback method: count an enqueue in this worker's tokens, or,
/// on a thread that is not one of the phase's workers (a task that enqueues
/// from inside another pool), tell the root directly before the task exists.
fn count_piggyback_enqueue(reg: *const Registry, h: &ReduceHead<'_>) {
    let wt = WorkerThread::current();
    // SAFETY: a non-null current worker is live.
    if !wt.is_null() && std::ptr::eq(unsafe { (*wt).registry }, reg) {
        tokens::note_enqueued(h);
    } else {
        // SAFETY: the registry outlives the phase.
        let reg = unsafe { &*reg };
        let adm = reg.adm().expect("a piggybacked phase runs in a pool of a message policy");
        adm.send_to_root(&reg.sleep, Msg::new(MsgKind::Enqueued, usize::MAX, &[h.root_level as usize, h.key(), 1, 0]));
    }
}

/// A task of the phase finished (`r` is its value or its panic).
///
/// # Safety
/// `shared` is live; under the counting ends it may be freed during this call.
unsafe fn finish<T>(shared: *const PhaseShared<'_, T>, r: std::thread::Result<usize>) {
    // SAFETY: live on entry (caller's contract).
    let s = unsafe { &*shared };
    let value = match r {
        Ok(v) => Some(v),
        Err(p) => {
            s.panic.record(p);
            None
        }
    };
    match &s.end {
        // SAFETY: last touch of the phase by this task.
        End::Count(latch) => unsafe { CountLatch::decrement(latch) },
        End::Tree(t) => {
            if let Some(v) = value {
                record_value(s, v);
            }
            // SAFETY: last touch of the phase by this task.
            unsafe { TreeEnd::decrement(t) }
        }
        End::Piggyback(h) => {
            tokens::note_finished(h, value);
            // The tokens leave at this worker's next starving report.
            // SAFETY: tasks run on the phase's workers; non-null.
            if let Some(a) = unsafe { (*WorkerThread::current()).adm() } {
                a.tokens_pending();
            }
        }
        End::Recorded(_) => unreachable!("a recorded phase runs no jobs"),
    }
}

/// Enqueue the initial tasks; returns how many, and the iterator's panic if it
/// panicked part-way (the tasks already enqueued still run).
fn enqueue_initial<T: Copy + Send>(shared: &PhaseShared<'_, T>, initial: impl Iterator<Item = T>) -> (usize, std::thread::Result<()>) {
    let mut n = 0;
    let r = panic::catch_unwind(AssertUnwindSafe(|| {
        for t in initial {
            enqueue(shared, t);
            n += 1;
        }
    }));
    (n, r)
}

/// Resume the first panic: the caller's own (the initial tasks' iterator),
/// else the first task's, else the operator's.
fn propagate(own: std::thread::Result<()>, slots: &[&PanicSlot]) {
    if let Err(p) = own {
        panic::resume_unwind(p);
    }
    for s in slots {
        s.propagate();
    }
}

/// Run a dynamic task phase: `body(ctx, task)` for each initial task and for
/// every task enqueued through `ctx`, in parallel, until none is left.
///
/// Every task runs exactly once, even after another has panicked; the first
/// panic is then resumed here, once the phase has drained.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// // Count the nodes of a binary tree of depth 10 by expanding it as tasks.
/// let nodes = AtomicU64::new(0);
/// finegrain::phase([0u32], |ctx, depth| {
///     nodes.fetch_add(1, Ordering::Relaxed);
///     if depth < 10 {
///         ctx.enqueue(depth + 1);
///         ctx.enqueue(depth + 1);
///     }
/// });
/// assert_eq!(nodes.into_inner(), (1 << 11) - 1);
/// ```
pub fn phase<T, I, F>(initial: I, body: F)
where
    T: PhaseTask,
    I: IntoIterator<Item = T>,
    I::IntoIter: Send,
    F: Fn(&PhaseCtx<'_, T>, T) + Sync + Send,
{
    let initial = initial.into_iter();
    let wt = WorkerThread::current();
    if wt.is_null() {
        return phase_cold(initial, body);
    }
    // SAFETY: a non-null current worker is live for this whole call.
    let wt = unsafe { &*wt };
    {
        let body = as_word_body(|ctx, t| {
            body(ctx, t);
            0
        });
        if phase_end(wt.registry().policy.mechanism(), None) == PhaseEnd::Piggyback {
            // The managers detect the end of the phase from the task counts
            // their messages carry (design note in `adm/tokens.rs`), with
            // nothing to combine: no task touches a shared counter (measured:
            // `docs/benchmarks.md`, "Phase cost").
            reduce_piggyback(wt, &body, &|_, _| 0, 0, initial);
            return;
        }
        let shared = PhaseShared {
            body: &body,
            end: End::Count(CountLatch::new(&wt.registry().sleep, wt.index)),
            panic: PanicSlot::new(),
            registry: wt.registry(),
        };
        let (_, own) = enqueue_initial(&shared, initial);
        let End::Count(latch) = &shared.end else { unreachable!() };
        // SAFETY: `shared` outlives the wait below.
        unsafe { CountLatch::decrement(latch) };
        wt.wait_until(&latch.inner.state);
        propagate(own, &[&shared.panic]);
    }
}

/// `phase` outside any pool: recorded (`record/`), or run in the global pool.
#[cold]
#[inline(never)]
fn phase_cold<T, I, F>(initial: I, body: F)
where
    T: PhaseTask,
    I: Iterator<Item = T> + Send,
    F: Fn(&PhaseCtx<'_, T>, T) + Sync + Send,
{
    if crate::record::active() {
        let body = as_word_body(|ctx, t| {
            body(ctx, t);
            0
        });
        run_recorded(&body, &|_, _| 0, 0, initial);
        return;
    }
    crate::pool::global().install(move || phase(initial, body))
}

/// Pin a closure to the higher-ranked signature the phase stores.
fn as_word_body<T, F: Fn(&PhaseCtx<'_, T>, T) -> usize + Sync>(f: F) -> F {
    f
}

/// A dynamic task phase, as [`phase`], whose tasks each return a value; the
/// values are combined with `op`, starting from `identity`, and returned.
///
/// `op` must be associative and commutative (the order in which values meet
/// depends on which worker ran which task and when), and `identity` neutral
/// for it (each worker starts its own partial result from it). Values are
/// one machine word ([`Word`]: integers, floats, `bool`).
///
/// Under `adm-central` and `adm-hier` the partial results travel to the root
/// manager on the messages that end the phase, and the root detects the end of
/// the phase from the tasks counted on them (Sanchez, Yoo, Kozyrakis, ASPLOS
/// 2010, section 4.2; design note in `adm/tokens.rs`); under the other policies each worker keeps its partial in its
/// own cache line and they are combined through a tree when the phase's
/// counter reaches zero. [`phase_reduce_with`] picks the method.
///
/// A panic in a task (or in `op`) is resumed here after every task has run.
///
/// ```
/// // Sum the depths of the nodes of a binary tree of depth 10.
/// let sum = finegrain::phase_reduce([0u32], 0u64, |a, b| a + b, |ctx, depth| {
///     if depth < 10 {
///         ctx.enqueue(depth + 1);
///         ctx.enqueue(depth + 1);
///     }
///     depth as u64
/// });
/// assert_eq!(sum, (0..=10u64).map(|d| d << d).sum());
/// ```
pub fn phase_reduce<T, V, I, C, F>(initial: I, identity: V, op: C, body: F) -> V
where
    T: PhaseTask,
    V: Word,
    I: IntoIterator<Item = T>,
    I::IntoIter: Send,
    C: Fn(V, V) -> V + Sync + Send,
    F: Fn(&PhaseCtx<'_, T>, T) -> V + Sync + Send,
{
    phase_reduce_with(ReduceMethod::Auto, initial, identity, op, body)
}

/// [`phase_reduce`] with an explicit [`ReduceMethod`] (for comparing them;
/// `Piggyback` under a policy without managers is `Tree`).
///
/// ```
/// use finegrain::ReduceMethod;
/// let pool = finegrain::Pool::new(3, "adm-central").unwrap();
/// for m in [ReduceMethod::Piggyback, ReduceMethod::Tree] {
///     let max = pool.install(|| finegrain::phase_reduce_with(m, 0..100u32, 0.0f64, f64::max, |_, i| (i as f64).sqrt()));
///     assert_eq!(max, (99f64).sqrt());
/// }
/// ```
pub fn phase_reduce_with<T, V, I, C, F>(method: ReduceMethod, initial: I, identity: V, op: C, body: F) -> V
where
    T: PhaseTask,
    V: Word,
    I: IntoIterator<Item = T>,
    I::IntoIter: Send,
    C: Fn(V, V) -> V + Sync + Send,
    F: Fn(&PhaseCtx<'_, T>, T) -> V + Sync + Send,
{
    let initial = initial.into_iter();
    let wt = WorkerThread::current();
    if wt.is_null() {
        return phase_reduce_cold(method, initial, identity, op, body);
    }
    // SAFETY: a non-null current worker is live for this whole call.
    let wt = unsafe { &*wt };
    {
        let combine = |a: usize, b: usize| op(V::from_word(a), V::from_word(b)).to_word();
        let body = as_word_body(|ctx, t| body(ctx, t).to_word());
        let piggyback = phase_end(wt.registry().policy.mechanism(), Some(method)) == PhaseEnd::Piggyback;
        let w = if piggyback {
            reduce_piggyback(wt, &body, &combine, identity.to_word(), initial)
        } else {
            reduce_tree(wt, &body, &combine, identity.to_word(), initial)
        };
        V::from_word(w)
    }
}

/// `phase_reduce_with` outside any pool: recorded (`record/`), or run in the
/// global pool.
#[cold]
#[inline(never)]
fn phase_reduce_cold<T, V, I, C, F>(method: ReduceMethod, initial: I, identity: V, op: C, body: F) -> V
where
    T: PhaseTask,
    V: Word,
    I: Iterator<Item = T> + Send,
    C: Fn(V, V) -> V + Sync + Send,
    F: Fn(&PhaseCtx<'_, T>, T) -> V + Sync + Send,
{
    if crate::record::active() {
        let combine = |a: usize, b: usize| op(V::from_word(a), V::from_word(b)).to_word();
        let body = as_word_body(|ctx, t| body(ctx, t).to_word());
        return V::from_word(run_recorded(&body, &combine, identity.to_word(), initial));
    }
    crate::pool::global().install(move || phase_reduce_with(method, initial, identity, op, body))
}

fn reduce_tree<T: Copy + Send>(
    wt: &WorkerThread,
    body: &(dyn Fn(&PhaseCtx<'_, T>, T) -> usize + Sync),
    combine: &(dyn Fn(usize, usize) -> usize + Sync),
    identity: usize,
    initial: impl Iterator<Item = T>,
) -> usize {
    let reg = wt.registry();
    let end = TreeEnd::new(reg.num_threads(), combine, identity, WorkerLatch::new(&reg.sleep, wt.index));
    let shared = PhaseShared { body, end: End::Tree(end), panic: PanicSlot::new(), registry: reg };
    let (_, own) = enqueue_initial(&shared, initial);
    let End::Tree(end) = &shared.end else { unreachable!() };
    // SAFETY: `shared` outlives the wait below.
    unsafe { TreeEnd::decrement(end) };
    wt.wait_until(&end.latch.state);
    propagate(own, &[&shared.panic, &end.panic]);
    end.result()
}

fn reduce_piggyback<T: Copy + Send>(
    wt: &WorkerThread,
    body: &(dyn Fn(&PhaseCtx<'_, T>, T) -> usize + Sync),
    combine: &(dyn Fn(usize, usize) -> usize + Sync),
    identity: usize,
    initial: impl Iterator<Item = T>,
) -> usize {
    let reg = wt.registry();
    let adm = wt.adm().expect("piggybacked phases run under a message policy (policy::reduce::phase_end)");
    let head = ReduceHead::new(combine, identity, wt.index, adm.root_level());
    let shared = PhaseShared { body, end: End::Piggyback(&head), panic: PanicSlot::new(), registry: reg };
    let (n, own) = enqueue_initial(&shared, initial);
    if n > 0 {
        adm.arm_reduction(&wt.h, &head);
        wt.wait_for(|| head.is_done());
    }
    propagate(own, &[&shared.panic, &head.panic]);
    head.result()
}
