//! [`yield_now`] and [`yield_local`] (Rayon's names): let the calling
//! worker run one pending task before going on, and
//! [`current_thread_index`].

use crate::mechanism::Mechanism;
use crate::vocab::Bucket;
use crate::worker::WorkerThread;

/// What [`yield_now`] or [`yield_local`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yield {
    /// It ran a pending task.
    Executed,
    /// It found none to run.
    Idle,
}

/// Run one pending task of the caller's pool if there is one: from the
/// worker's own queue, its broadcasts, the injector, or (under `ws`) another
/// worker's deque. `None` outside a pool.
///
/// ```
/// assert_eq!(finegrain::yield_now(), None); // not on a worker
/// let pool = finegrain::Pool::new(1, "ws").unwrap();
/// let r = pool.install(|| finegrain::scope(|s| {
///     s.spawn(|_| {});
///     finegrain::yield_now()
/// }));
/// assert_eq!(r, Some(finegrain::Yield::Executed));
/// ```
pub fn yield_now() -> Option<Yield> {
    run_one(false)
}

/// [`yield_now`], taking only from the calling worker's own queue.
pub fn yield_local() -> Option<Yield> {
    run_one(true)
}

fn run_one(local_only: bool) -> Option<Yield> {
    let wt = WorkerThread::current();
    if wt.is_null() {
        return None;
    }
    // SAFETY: a non-null current worker is live while it runs our code.
    let ran = unsafe { (*wt).run_one(local_only) };
    Some(if ran { Yield::Executed } else { Yield::Idle })
}

/// The index of the calling worker in its pool (`0..current_num_threads()`),
/// or `None` on a thread that is not a worker (Rayon's name for
/// [`current_worker_index`](crate::current_worker_index)).
///
/// ```
/// assert_eq!(finegrain::current_thread_index(), None);
/// let pool = finegrain::Pool::new(2, "ws").unwrap();
/// assert!(pool.install(finegrain::current_thread_index).unwrap() < 2);
/// ```
pub fn current_thread_index() -> Option<usize> {
    crate::pool::current_worker_index()
}

impl WorkerThread {
    /// [`WorkerThread::run_one`] on mechanism `m`.
    pub(crate) fn run_one_in<M: Mechanism>(&self, m: &M, local_only: bool) -> bool {
        let h = &self.h;
        m.poll(h);
        let t = if local_only {
            h.hot.dequeue_op(self.counters(), || m.pop(h))
        } else {
            self.search(m, &mut false)
        };
        let Some(t) = t else { return false };
        let resume = self.counters().current();
        m.found_work(h);
        self.counters().enter(Bucket::Task);
        m.run(t, |j| self.execute(j));
        self.counters().enter(resume);
        true
    }
}
