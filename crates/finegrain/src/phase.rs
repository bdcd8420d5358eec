//! Dynamic task phases: the enqueue/dequeue interface of the papers' task
//! runtimes (000 section 4.1, Table 1; 002 section 4.2), and phases whose tasks
//! return values that are combined into one (000 section 4.2).
//!
//! A phase starts with some tasks; running a task may enqueue more. A task is a
//! small `Copy` descriptor of at most four machine words, like the papers' task
//! tuples. [`phase`] returns when no task is queued or running anywhere;
//! [`phase_reduce`] also returns the tasks' values combined.
//!
//! Termination of [`phase`]: a counter holds one unit for the phase's own setup
//! plus one per task enqueued and not yet finished. A task's children are
//! counted before the task's own unit is released, so the counter is zero only
//! when the phase is truly over; the thread that takes it to zero sets the
//! latch the caller waits on (the "finish" counter of X10's work-stealing
//! scheduler, which 000 cites). [`phase_reduce`] uses the same counter with its
//! tree method, and no shared counter at all when it piggybacks on the
//! managers' messages (design note in `reduce.rs`).

use crate::job::HeapJob;
use crate::latch::{CountLatch, WorkerLatch};
use crate::panic_slot::PanicSlot;
use crate::policy::PolicyKind;
use crate::reduce::{ReduceHead, ReduceMethod, TreeEnd, Word};
use crate::registry::Registry;
use crate::worker::WorkerThread;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};

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
    /// Under the counting ends, the task's latest child, held back until the
    /// next `enqueue` or the task's end (see [`PhaseShared::hands_over`]).
    held: Cell<Option<T>>,
}

struct SharedPtr<'f, T>(*const PhaseShared<'f, T>);
// SAFETY: PhaseShared is Sync for T: Send (body is Sync, the rest are atomics
// or read-only), and it outlives all its tasks because the phase waits for them.
unsafe impl<T> Send for SharedPtr<'_, T> {}

impl<T: Copy + Send> PhaseCtx<'_, T> {
    /// Add a task to the phase. It runs at most once, before the phase returns.
    #[inline]
    pub fn enqueue(&self, task: T) {
        if self.shared.hands_over() {
            if let Some(prev) = self.held.replace(Some(task)) {
                enqueue(self.shared, prev);
            }
        } else {
            enqueue(self.shared, task)
        }
    }
}

impl<T> PhaseShared<'_, T> {
    /// Does a task hand its unit of the shared counter over to its last child?
    ///
    /// Under the counting ends every enqueue adds one to a counter all the
    /// phase's workers share, and every task's end takes one off: three
    /// atomic read-modify-writes on one cache line for a node with two
    /// children. Instead, a task's latest child is held back; when the task
    /// ends it pushes that child without counting it and does not count its
    /// own end: the unit it held passes to the child. The counter can still
    /// reach zero only when no task is queued or running, because a unit is
    /// never released while its holder (the task, then the child) may still
    /// run or enqueue. One atomic per task instead of two on average in a
    /// tree; the held child becomes visible to thieves when its parent ends,
    /// which for a task a few hundred instructions long is no later than it
    /// would be stolen anyway.
    fn hands_over(&self) -> bool {
        !matches!(self.end, End::Piggyback(_))
    }
}

/// Count an enqueue under the phase's end, then push the task.
fn enqueue<T: Copy + Send>(shared: &PhaseShared<'_, T>, task: T) {
    match &shared.end {
        End::Count(latch) => latch.increment(),
        End::Tree(t) => t.increment(),
        End::Piggyback(h) => count_piggyback_enqueue(shared.registry, h),
    }
    push_task(shared, task)
}

/// Push a task already counted (or holding a unit handed over to it).
fn push_task<T: Copy + Send>(shared: &PhaseShared<'_, T>, task: T) {
    const { assert!(std::mem::size_of::<T>() <= MAX_TASK_BYTES, "a phase task is at most four machine words") };
    // The phase waits for every job before `shared` goes away.
    let ptr = SharedPtr(shared as *const PhaseShared<'_, T>);
    let job = HeapJob::into_job_ref(move || {
        let ptr = ptr;
        // SAFETY: see SharedPtr.
        let shared = unsafe { &*ptr.0 };
        let ctx = PhaseCtx { shared, held: Cell::new(None) };
        let r = panic::catch_unwind(AssertUnwindSafe(|| (shared.body)(&ctx, task)));
        crate::worker::flush_current_counters();
        match (r, ctx.held.take()) {
            (Ok(v), Some(last)) => {
                record_value(shared, v);
                // The unit passes to `last`; after this push the phase may end
                // at any time, so `shared` is not touched again.
                push_task(shared, last);
            }
            (r, held) => {
                if let Some(last) = held {
                    // After a panic the held child is counted like any other.
                    enqueue(shared, last);
                }
                // SAFETY: last touch of `shared` by this task.
                unsafe { finish(ptr.0, r) };
            }
        }
    });
    // SAFETY: the registry outlives the phase.
    unsafe { Registry::push_or_inject(shared.registry, job) };
}

/// Under the tree end, fold a finished task's value into this worker's slot
/// without releasing its unit (the task handed it over).
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
        crate::reduce::note_enqueued(h);
    } else {
        use crate::mailbox::{Msg, MsgKind};
        // SAFETY: the registry outlives the phase.
        crate::worker_adm::send_to_root(unsafe { &*reg }, Msg::new(MsgKind::Enqueued, usize::MAX, &[h.root_level as usize, h.key(), 1, 0]));
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
            crate::reduce::note_finished(h, value);
            // The tokens leave at this worker's next starving report; make
            // sure there is one even if it last reported before this task.
            // SAFETY: tasks run on the phase's workers; non-null.
            unsafe { (*WorkerThread::current()).starving_reported.set(false) };
        }
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
    T: Copy + Send,
    I: IntoIterator<Item = T>,
    I::IntoIter: Send,
    F: Fn(&PhaseCtx<'_, T>, T) + Sync + Send,
{
    let initial = initial.into_iter();
    crate::pool::current_registry().in_worker(move |wt| {
        let body = as_word_body(|ctx, t| {
            body(ctx, t);
            0
        });
        if wt.mech == PolicyKind::Messaging {
            // The managers detect the end of the phase from the task counts
            // their messages carry (000 section 4.1; design note in
            // `reduce.rs`), with nothing to combine: no task touches a shared
            // counter. (fib-like tree of 2^19 tasks at 2 threads: 60 ms with
            // the shared counter, 22 ms without; serial 18 ms.)
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
    })
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
/// the phase from the tasks counted on them (000 section 4.2; design note in
/// `reduce.rs`); under the other policies each worker keeps its partial in its
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
    T: Copy + Send,
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
    T: Copy + Send,
    V: Word,
    I: IntoIterator<Item = T>,
    I::IntoIter: Send,
    C: Fn(V, V) -> V + Sync + Send,
    F: Fn(&PhaseCtx<'_, T>, T) -> V + Sync + Send,
{
    let initial = initial.into_iter();
    crate::pool::current_registry().in_worker(move |wt| {
        let combine = |a: usize, b: usize| op(V::from_word(a), V::from_word(b)).to_word();
        let body = as_word_body(|ctx, t| body(ctx, t).to_word());
        let piggyback = method != ReduceMethod::Tree && wt.mech == PolicyKind::Messaging;
        let w = if piggyback {
            reduce_piggyback(wt, &body, &combine, identity.to_word(), initial)
        } else {
            reduce_tree(wt, &body, &combine, identity.to_word(), initial)
        };
        V::from_word(w)
    })
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
    let head = ReduceHead::new(combine, identity, wt.index, wt.tree.root());
    let shared = PhaseShared { body, end: End::Piggyback(&head), panic: PanicSlot::new(), registry: reg };
    let (n, own) = enqueue_initial(&shared, initial);
    if n > 0 {
        wt.arm_reduction(&head);
        wt.run_until_adm(None, || head.is_done());
    }
    propagate(own, &[&shared.panic, &head.panic]);
    head.result()
}
