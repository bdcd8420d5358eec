//! [`broadcast`] and [`spawn_broadcast`] (Rayon's names): a closure run
//! once on every worker of a pool. Each worker has an inbox of broadcast
//! jobs (`inbox.rs`) that only it takes from, first whenever it looks at
//! the injector (every policy's search order has the injector), and that
//! counts as work when it decides whether to sleep (`WorkerThread::park`).

use crate::job::unwind::PanicSlot;
use crate::job::HeapJob;
use crate::latch::CountLatch;
use crate::pool::Pool;
use crate::registry::Registry;
use crate::sync::Mutex;
use crate::worker::WorkerThread;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

/// Where a broadcast closure runs: which worker, of how many.
#[derive(Clone, Copy, Debug)]
pub struct BroadcastContext {
    index: usize,
    num_threads: usize,
}

impl BroadcastContext {
    /// The index of the worker running this call (`0..num_threads`).
    pub fn index(&self) -> usize {
        self.index
    }

    /// How many workers the pool has, so how many calls the broadcast makes.
    pub fn num_threads(&self) -> usize {
        self.num_threads
    }
}

/// Run `f` once on every worker of the current pool (the global pool outside
/// any) and return its results in worker index order. A panic in any call is
/// resumed here once every call has finished.
///
/// ```
/// let pool = finegrain::Pool::new(3, "adm-central").unwrap();
/// let v = pool.install(|| finegrain::broadcast(|ctx| (ctx.index(), ctx.num_threads())));
/// assert_eq!(v, [(0, 3), (1, 3), (2, 3)]);
/// ```
pub fn broadcast<R: Send, F: Fn(BroadcastContext) -> R + Sync>(f: F) -> Vec<R> {
    let reg = crate::spawn::current_registry();
    broadcast_in(&reg, f)
}

/// Run `f` once on every worker of the current pool (the global pool
/// outside any), detached: returns at once (as [`spawn`](crate::spawn)).
pub fn spawn_broadcast<F: Fn(BroadcastContext) + Send + Sync + 'static>(f: F) {
    spawn_broadcast_in(&crate::spawn::current_registry(), f)
}

impl Pool {
    /// [`broadcast`](crate::broadcast) on this pool's workers.
    pub fn broadcast<R: Send, F: Fn(BroadcastContext) -> R + Sync>(&self, f: F) -> Vec<R> {
        broadcast_in(&self.registry, f)
    }

    /// [`spawn_broadcast`](crate::spawn_broadcast) on this pool's workers.
    pub fn spawn_broadcast<F: Fn(BroadcastContext) + Send + Sync + 'static>(&self, f: F) {
        spawn_broadcast_in(&self.registry, f)
    }
}

struct Shared<'f, F, R> {
    f: &'f F,
    results: Vec<Mutex<Option<R>>>,
    panic: PanicSlot,
    latch: CountLatch,
}

struct SharedPtr<T>(*const T);
// SAFETY: points at a `Shared` the broadcasting worker waits on; its parts
// are Sync (`F: Sync`, mutexes, atomics).
unsafe impl<T> Send for SharedPtr<T> {}

fn broadcast_in<R: Send, F: Fn(BroadcastContext) -> R + Sync>(reg: &Arc<Registry>, f: F) -> Vec<R> {
    reg.in_worker(|wt: &WorkerThread| {
        let n = reg.num_threads();
        let shared = Shared { f: &f, results: (0..n).map(|_| Mutex::new(None)).collect(), panic: PanicSlot::new(), latch: CountLatch::new(&reg.sleep, wt.index) };
        for index in 0..n {
            shared.latch.increment();
            let p = SharedPtr(&shared as *const Shared<'_, F, R>);
            let job = HeapJob::into_job_ref(move || {
                let p = p;
                // SAFETY: the broadcasting worker waits for the latch before `shared` goes.
                let s = unsafe { &*p.0 };
                match panic::catch_unwind(AssertUnwindSafe(|| (s.f)(BroadcastContext { index, num_threads: n }))) {
                    Ok(r) => *crate::sync::lock(&s.results[index]) = Some(r),
                    Err(e) => s.panic.record(e),
                }
                crate::worker::flush_current_counters();
                // SAFETY: the last touch of `shared` by this job.
                unsafe { CountLatch::decrement(&s.latch) };
            });
            deliver(reg, index, job);
        }
        // SAFETY: `shared` outlives the wait.
        unsafe { CountLatch::decrement(&shared.latch) };
        wt.wait_until(&shared.latch.inner.state);
        shared.panic.propagate();
        shared.results.into_iter().map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every worker ran its call")).collect()
    })
}

fn spawn_broadcast_in<F: Fn(BroadcastContext) + Send + Sync + 'static>(reg: &Arc<Registry>, f: F) {
    let n = reg.num_threads();
    let f = Arc::new(f);
    for index in 0..n {
        reg.detached.started();
        let (r, f) = (Arc::clone(reg), Arc::clone(&f));
        let job = HeapJob::into_job_ref(move || {
            if let Err(p) = panic::catch_unwind(AssertUnwindSafe(|| f(BroadcastContext { index, num_threads: n }))) {
                r.report_panic(p);
            }
            crate::worker::flush_current_counters();
            r.detached.finished();
        });
        deliver(reg, index, job);
    }
}

/// Put `job` in worker `index`'s broadcast inbox and wake it if it sleeps
/// (the inbox's length is published before the fence in `wake_if_sleeping`).
fn deliver(reg: &Registry, index: usize, job: crate::job::JobRef) {
    reg.broadcasts[index].push(job);
    reg.sleep.wake_if_sleeping(index);
}

impl crate::worker::WorkerThread {
    /// Is a broadcast job waiting for this worker (`broadcast.rs`)? Its
    /// pusher stores the inbox's length and then fences and wakes this
    /// worker if it is listed asleep (`Sleep::wake_if_sleeping`); a sleeper
    /// looks here after its own fence, so one of the two sees the other.
    #[inline]
    pub(crate) fn has_broadcast(&self) -> bool {
        !self.registry().broadcasts[self.index].is_empty()
    }
}
