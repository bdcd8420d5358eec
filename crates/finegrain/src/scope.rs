//! Structured spawn/sync: `scope(|s| { s.spawn(|s| ..); })` returns after every
//! task spawned in it (transitively) has finished. Tasks may borrow from the
//! stack of the caller of `scope`.

use crate::job::HeapJob;
use crate::latch::CountLatch;
use crate::job::unwind::PanicSlot;
use crate::registry::Registry;
use crate::cancel::CancelToken;
use crate::sync::{AtomicBool, Ordering};
use crate::worker::WorkerThread;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};

/// A set of spawned tasks that [`scope`] waits for.
#[allow(missing_debug_implementations)]
pub struct Scope<'scope> {
    latch: CountLatch,
    panic: PanicSlot,
    registry: *const Registry,
    /// Recording (`record/`): the latch of this scope in the recorded graph;
    /// spawns then run at once, serially.
    recording: Option<crate::taskgraph::LatchId>,
    /// [`Scope::cancel`] was called (`cancel.rs` has the ordering argument).
    cancelled: AtomicBool,
    /// The token of [`scope_with_cancel`](crate::scope_with_cancel), if any.
    token: Option<CancelToken>,
    // Invariant in 'scope, like rayon's and std's scopes.
    _marker: PhantomData<&'scope mut &'scope ()>,
}

// SAFETY: the raw registry pointer is only used while the scope's pool is alive
// (the scope is waited for inside one of its workers).
unsafe impl Send for Scope<'_> {}
unsafe impl Sync for Scope<'_> {}

struct ScopePtr<'scope>(*const Scope<'scope>);
// SAFETY: Scope is Sync; the pointee outlives every job (the scope waits for them).
unsafe impl Send for ScopePtr<'_> {}

/// Run `op`, which may spawn tasks into the scope; return once all are done.
///
/// A panic in `op` or in any spawned task is resumed here after every task has
/// finished (the first panic, if several).
///
/// ```
/// let mut v = vec![0u64; 4];
/// finegrain::scope(|s| {
///     for (i, x) in v.iter_mut().enumerate() {
///         s.spawn(move |_| *x = (i as u64) * 10);
///     }
/// });
/// assert_eq!(v, [0, 10, 20, 30]);
/// ```
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    scope_with(None, op)
}

/// [`scope`], cancelled by `token` if one is given (`cancel.rs`).
pub(crate) fn scope_with<'scope, OP, R>(token: Option<CancelToken>, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    let wt = WorkerThread::current();
    if wt.is_null() {
        return scope_cold(token, op);
    }
    // SAFETY: a non-null current worker is live for this whole call.
    let wt = unsafe { &*wt };
    let s = Scope::new(wt.registry(), CountLatch::new(&wt.registry().sleep, wt.index), token);
    let r = panic::catch_unwind(AssertUnwindSafe(|| op(&s)));
    // SAFETY: `s` outlives the wait below.
    unsafe { CountLatch::decrement(&s.latch) };
    wt.wait_until(&s.latch.inner.state);
    s.finish(r)
}

/// [`scope`] whose `op` runs on the calling thread, in a pool or not (Rayon's
/// `in_place_scope`): outside any pool the spawns go to the global pool,
/// and the caller blocks until they are done. In a pool it is [`scope`].
///
/// ```
/// let caller = std::thread::current().id();
/// let mut v = [0u32; 3];
/// finegrain::in_place_scope(|s| {
///     assert_eq!(std::thread::current().id(), caller);
///     for (i, x) in v.iter_mut().enumerate() {
///         s.spawn(move |_| *x = i as u32 + 1);
///     }
/// });
/// assert_eq!(v, [1, 2, 3]);
/// ```
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    if !WorkerThread::current().is_null() || crate::record::active() {
        // In a pool (or recording) the calling thread is where `scope` runs
        // `op` anyway; `AssertSend` because `scope` asks for `Send` only to
        // move `op` into the global pool, which does not happen here.
        let op = AssertSend(op);
        return scope(move |s| {
            let op = op;
            AssertSend((op.0)(s))
        })
        .0;
    }
    let reg: &Registry = &crate::pool::global().registry;
    let s = Scope::new(reg, CountLatch::new(&reg.sleep, 0), None);
    let r = panic::catch_unwind(AssertUnwindSafe(|| op(&s)));
    // SAFETY: `s` outlives the wait below.
    unsafe { CountLatch::decrement(&s.latch) };
    wait_outside(&s.latch.inner.state);
    s.finish(r)
}

struct AssertSend<T>(T);
// SAFETY: only used where the value stays on the thread that made it.
unsafe impl<T> Send for AssertSend<T> {}

/// Block a thread that is no worker until a latch is set: nobody parks on
/// it, so its setter never wakes anyone, and the thread polls with a
/// growing pause (at most 100 us, a small cost beside any scope worth
/// running outside a pool).
#[cold]
pub(crate) fn wait_outside(state: &crate::sync::AtomicUsize) {
    let mut pause = 1u64;
    while state.load(Ordering::Acquire) != crate::sleep::SET {
        if pause < 64 {
            std::thread::yield_now();
        } else {
            std::thread::sleep(std::time::Duration::from_micros(pause.min(100)));
        }
        pause = pause.saturating_mul(2);
    }
}

/// `scope` outside any pool: recorded (`record/`), or run in the global pool.
#[cold]
#[inline(never)]
fn scope_cold<'scope, OP, R>(token: Option<CancelToken>, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    if crate::record::active() {
        return record_scope(op);
    }
    crate::pool::global().install(|| scope_with(token, op))
}

/// `scope` while recording: no pool, spawns run as they are made.
#[cold]
fn record_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    // The latch and registry are never used by a recording scope; the latch
    // only needs a sleep to point at.
    let sleep = crate::sleep::Sleep::new(1);
    let latch = crate::record::new_latch();
    let mut s = Scope::new(std::ptr::null(), CountLatch::new(&sleep, 0), None);
    s.recording = Some(latch);
    let r = op(&s);
    crate::record::wait(latch);
    r
}

impl<'scope> Scope<'scope> {
    pub(crate) fn new(registry: *const Registry, latch: CountLatch, token: Option<CancelToken>) -> Self {
        Scope {
            latch,
            panic: PanicSlot::new(),
            registry,
            recording: None,
            cancelled: AtomicBool::new(false),
            token,
            _marker: PhantomData,
        }
    }

    /// After the wait: the body's result, or the first panic.
    fn finish<R>(&self, r: std::thread::Result<R>) -> R {
        match r {
            Err(p) => panic::resume_unwind(p),
            Ok(v) => {
                self.panic.propagate();
                v
            }
        }
    }

    /// Cancel this scope: its spawns that have not started are dropped
    /// without running, and later spawns are dropped at once; running tasks
    /// go on and may poll [`is_cancelled`](Self::is_cancelled). The scope
    /// still waits for every task that started.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    /// let ran = AtomicUsize::new(0);
    /// finegrain::Pool::new(1, "pdf").unwrap().install(|| finegrain::scope(|s| {
    ///     for _ in 0..100 { s.spawn(|_| { ran.fetch_add(1, Relaxed); }); }
    ///     s.cancel();
    /// }));
    /// assert_eq!(ran.load(Relaxed), 0);
    /// ```
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Has this scope been cancelled ([`cancel`](Self::cancel), or its
    /// [`CancelToken`])?
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed) || self.token.as_ref().is_some_and(|t| t.is_cancelled())
    }

    /// Spawn `body` into this scope. It runs at most once, on some worker, before
    /// [`scope`] returns.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.spawn_as::<false, BODY>(body)
    }

    /// [`spawn`](Self::spawn); `FIFO`: through the worker's FIFO inbox and a
    /// trampoline (`spawn.rs`), for [`ScopeFifo`](crate::ScopeFifo).
    #[inline]
    pub(crate) fn spawn_as<const FIFO: bool, BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let wt = WorkerThread::current();
        // SAFETY: a non-null current worker is live.
        if wt.is_null() || !std::ptr::eq(unsafe { (*wt).registry }, self.registry) || self.is_cancelled() {
            return self.spawn_cold(body);
        }
        self.latch.increment();
        if FIFO {
            // SAFETY: the scope's pool outlives its jobs (it waits for them).
            unsafe { crate::spawn::push_job(self.registry, self.job(body), true) };
        } else {
            // SAFETY: the calling worker is one of this scope's pool's.
            unsafe { (*wt).push(self.job(body)) };
        }
    }

    /// A spawn from a thread that is not one of the scope's workers: while
    /// recording (`record/`) the body runs now, as a task of the recorded
    /// graph; otherwise the job goes to the pool's injector.
    #[cold]
    #[inline(never)]
    fn spawn_cold<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        if let Some(latch) = self.recording {
            let t = crate::record::spawn_task(crate::taskgraph::TaskKind::Scope, latch);
            return crate::record::run_as(t, || body(self));
        }
        if self.is_cancelled() {
            return drop(body);
        }
        self.latch.increment();
        // SAFETY: the pool is alive while its scope is.
        unsafe { (*self.registry).inject(self.job(body)) };
    }

    /// The job running `body` in this scope (counted in the latch by the caller).
    #[inline]
    pub(crate) fn job<BODY>(&self, body: BODY) -> crate::job::JobRef
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let ptr = ScopePtr(self);
        HeapJob::into_job_ref(move || {
            let ptr = ptr;
            // SAFETY: the scope waits for this job before it is dropped.
            let s = unsafe { &*ptr.0 };
            if s.is_cancelled() {
                // Not started: dropped without running.
                drop(body);
            } else if let Err(p) = panic::catch_unwind(AssertUnwindSafe(|| body(s))) {
                s.panic.record(p);
            }
            crate::worker::flush_current_counters();
            // SAFETY: last touch of the scope by this job.
            unsafe { CountLatch::decrement(&s.latch) };
        })
    }

    /// [`Scope::spawn`] with a priority for `order=priority` (see [`crate::with_priority`]).
    pub fn spawn_with_priority<BODY>(&self, priority: i64, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        crate::with_priority(priority, || self.spawn(body))
    }
}

/// [`scope`](crate::scope) that stops starting its spawns once `token` is
/// cancelled (or [`Scope::cancel`] is called): spawns not yet started are
/// dropped without running, spawns made afterwards are dropped at once,
/// tasks already running go on (they may poll [`Scope::is_cancelled`]), and
/// the scope returns once every started task has finished.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
/// let token = finegrain::CancelToken::new();
/// let ran = AtomicUsize::new(0);
/// let pool = finegrain::Pool::new(1, "ws").unwrap();
/// pool.install(|| {
///     finegrain::scope_with_cancel(&token, |s| {
///         for _ in 0..1000 {
///             s.spawn(|_| { ran.fetch_add(1, Relaxed); });
///         }
///         token.cancel(); // the one worker is busy here: none has started
///     })
/// });
/// assert_eq!(ran.load(Relaxed), 0);
/// ```
pub fn scope_with_cancel<'scope, OP, R>(token: &CancelToken, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    scope_with(Some(token.clone()), op)
}
