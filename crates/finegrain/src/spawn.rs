//! Detached tasks: [`spawn`] and [`spawn_fifo`] (and the same on a
//! [`Pool`]), Rayon's `spawn`/`spawn_fifo`, which return at once and run
//! their `'static` closure later on some worker of the pool.
//!
//! Each is counted in its pool's [`Detached`](crate::hooks::Detached)
//! count, which the pool's drop waits on, so a detached task runs to
//! completion before its pool is gone (the global pool lives as long as the
//! process). A panic in one goes to the pool's
//! [`panic_handler`](crate::Builder::panic_handler), or without one is
//! printed to stderr with the pool's name; the pool stays usable. This
//! differs from Rayon, which aborts the process when a spawned task panics
//! and no handler is set.
//!
//! FIFO spawns use trampolines, Rayon's design for `spawn_fifo` with our
//! own queues: the job goes into the spawning worker's FIFO inbox
//! (`inbox.rs`), and a trampoline job is pushed the ordinary way. Whichever
//! trampoline runs first takes the *oldest* job of that inbox, so the FIFO
//! spawns of one worker start in the order they were made, whatever order
//! the policy runs the trampolines in (`docs/rayon.md` has the table).

use crate::job::{HeapJob, JobRef};
use crate::pool::Pool;
use crate::registry::Registry;
use crate::worker::WorkerThread;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

/// Run `f` on a worker of the current pool (the global pool outside any),
/// detached: `spawn` returns at once.
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// finegrain::spawn(move || tx.send(6 * 7).unwrap());
/// assert_eq!(rx.recv().unwrap(), 42);
/// ```
pub fn spawn<F: FnOnce() + Send + 'static>(f: F) {
    spawn_in(&current_registry(), f, false)
}

/// [`spawn`], but the detached tasks spawned from one worker start oldest
/// first (where [`spawn`] under `ws` runs the newest first).
///
/// ```
/// let (tx, rx) = std::sync::mpsc::channel();
/// let pool = finegrain::Pool::new(1, "ws").unwrap();
/// pool.install(|| for i in 0..4 { let tx = tx.clone(); finegrain::spawn_fifo(move || tx.send(i).unwrap()) });
/// drop(pool); // waits for the detached tasks
/// assert_eq!(rx.try_iter().collect::<Vec<_>>(), [0, 1, 2, 3]);
/// ```
pub fn spawn_fifo<F: FnOnce() + Send + 'static>(f: F) {
    spawn_in(&current_registry(), f, true)
}

impl Pool {
    /// [`spawn`](crate::spawn) into this pool.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// static RUN: AtomicUsize = AtomicUsize::new(0);
    /// let pool = finegrain::Pool::new(2, "adm-central").unwrap();
    /// for _ in 0..100 { pool.spawn(|| { RUN.fetch_add(1, Ordering::Relaxed); }); }
    /// drop(pool);
    /// assert_eq!(RUN.load(Ordering::Relaxed), 100);
    /// ```
    pub fn spawn<F: FnOnce() + Send + 'static>(&self, f: F) {
        spawn_in(&self.registry, f, false)
    }

    /// [`spawn_fifo`](crate::spawn_fifo) into this pool.
    pub fn spawn_fifo<F: FnOnce() + Send + 'static>(&self, f: F) {
        spawn_in(&self.registry, f, true)
    }
}

/// The pool the caller runs in, else the global pool.
pub(crate) fn current_registry() -> Arc<Registry> {
    let wt = WorkerThread::current();
    if wt.is_null() {
        return Arc::clone(&crate::pool::global().registry);
    }
    // SAFETY: a non-null current worker is live, and its registry with it;
    // take a counted reference to it.
    unsafe {
        Arc::increment_strong_count((*wt).registry);
        Arc::from_raw((*wt).registry)
    }
}

fn spawn_in<F: FnOnce() + Send + 'static>(reg: &Arc<Registry>, f: F, fifo: bool) {
    reg.detached.started();
    let r = Arc::clone(reg);
    let job = HeapJob::into_job_ref(move || {
        if let Err(p) = panic::catch_unwind(AssertUnwindSafe(f)) {
            r.report_panic(p);
        }
        crate::worker::flush_current_counters();
        r.detached.finished();
    });
    // SAFETY: `reg` is live (we hold it).
    unsafe { push_job(&**reg, job, fifo) };
}

/// Queue `job` of pool `reg`: on the calling worker's queue if it is one of
/// `reg`'s (through its FIFO inbox and a trampoline if `fifo`), else on the
/// pool's injector, which is first-in first-out already.
///
/// # Safety
/// `reg` is live, and stays live until the job has run (the caller counts
/// the job in something the pool or a scope waits for).
pub(crate) unsafe fn push_job(reg: *const Registry, job: JobRef, fifo: bool) {
    let wt = WorkerThread::current();
    // SAFETY: a non-null current worker is live; `reg` is live (caller).
    unsafe {
        if wt.is_null() || !std::ptr::eq((*wt).registry, reg) {
            return (*reg).inject(job);
        }
        if !fifo {
            return (*wt).push(job);
        }
        let index = (*wt).index;
        (*reg).fifos[index].push(job);
        (*wt).push(trampoline(reg, index));
    }
}

struct RegPtr(*const Registry);
// SAFETY: a registry is Sync; the pointee outlives the trampoline (`push_job`).
unsafe impl Send for RegPtr {}

/// A job that runs the oldest job of worker `index`'s FIFO inbox. Exactly
/// one trampoline is pushed per job put in an inbox, so every trampoline
/// finds one and every job is run.
fn trampoline(reg: *const Registry, index: usize) -> JobRef {
    let reg = RegPtr(reg);
    HeapJob::into_job_ref(move || {
        let reg = reg;
        // SAFETY: live until its jobs have run (`push_job`).
        let job = unsafe { (*reg.0).fifos[index].pop() };
        if let Some(job) = job {
            // SAFETY: a queued job runs once, by whoever took it.
            unsafe { job.execute() };
        }
    })
}
