//! Structured spawn/sync: `scope(|s| { s.spawn(|s| ..); })` returns after every
//! task spawned in it (transitively) has finished. Tasks may borrow from the
//! stack of the caller of `scope`.

use crate::job::HeapJob;
use crate::latch::CountLatch;
use crate::job::unwind::PanicSlot;
use crate::registry::Registry;
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
    let wt = WorkerThread::current();
    if wt.is_null() {
        return scope_cold(op);
    }
    // SAFETY: a non-null current worker is live for this whole call.
    let wt = unsafe { &*wt };
    {
        let s = Scope {
            latch: CountLatch::new(&wt.registry().sleep, wt.index),
            panic: PanicSlot::new(),
            registry: wt.registry(),
            recording: None,
            _marker: PhantomData,
        };
        let r = panic::catch_unwind(AssertUnwindSafe(|| op(&s)));
        // SAFETY: `s` outlives the wait below.
        unsafe { CountLatch::decrement(&s.latch) };
        wt.wait_until(&s.latch.inner.state);
        match r {
            Err(p) => panic::resume_unwind(p),
            Ok(v) => {
                s.panic.propagate();
                v
            }
        }
    }
}

/// `scope` outside any pool: recorded (`record/`), or run in the global pool.
#[cold]
#[inline(never)]
fn scope_cold<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    if crate::record::active() {
        return record_scope(op);
    }
    crate::pool::global().install(|| scope(op))
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
    let s = Scope { latch: CountLatch::new(&sleep, 0), panic: PanicSlot::new(), registry: std::ptr::null(), recording: Some(latch), _marker: PhantomData };
    let r = op(&s);
    crate::record::wait(latch);
    r
}

impl<'scope> Scope<'scope> {
    /// Spawn `body` into this scope. It runs at most once, on some worker, before
    /// [`scope`] returns.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let wt = WorkerThread::current();
        // SAFETY: a non-null current worker is live.
        if wt.is_null() || !std::ptr::eq(unsafe { (*wt).registry }, self.registry) {
            return self.spawn_cold(body);
        }
        self.latch.increment();
        // SAFETY: the calling worker is one of this scope's pool's.
        unsafe { (*wt).push(self.job(body)) };
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
        self.latch.increment();
        // SAFETY: the pool is alive while its scope is.
        unsafe { (*self.registry).inject(self.job(body)) };
    }

    /// The job running `body` in this scope (counted in the latch by the caller).
    #[inline]
    fn job<BODY>(&self, body: BODY) -> crate::job::JobRef
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let ptr = ScopePtr(self);
        HeapJob::into_job_ref(move || {
            let ptr = ptr;
            // SAFETY: the scope waits for this job before it is dropped.
            let s = unsafe { &*ptr.0 };
            if let Err(p) = panic::catch_unwind(AssertUnwindSafe(|| body(s))) {
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
