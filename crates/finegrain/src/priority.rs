//! Task priorities for `order=priority` (`sw-hier:order=priority`): a
//! priority is given at spawn or enqueue time and the central queue hands out
//! the highest first (FIFO among equals). Under policies without a priority
//! order it is accepted and has no effect.

use crate::unit::UnitWorker;
use crate::worker::WorkerThread;

/// Run `f` with `priority` as the priority of every task it spawns or enqueues
/// (`join`, `Scope::spawn`, phase `enqueue`, graph nodes) on this worker.
/// Higher runs first; the default is 0.
///
/// ```
/// let pool = finegrain::Pool::builder().threads(1).policy("sw-hier:order=priority,private=1").build().unwrap();
/// let order = std::sync::Mutex::new(Vec::new());
/// pool.install(|| {
///     finegrain::scope(|s| {
///         for p in [1, 5, 3] {
///             let order = &order;
///             finegrain::with_priority(p, || s.spawn(move |_| order.lock().unwrap().push(p)));
///         }
///     })
/// });
/// // One worker: the body spawned all three before any ran; highest first.
/// assert_eq!(*order.lock().unwrap(), vec![5, 3, 1]);
/// ```
pub fn with_priority<R>(priority: i64, f: impl FnOnce() -> R) -> R {
    let wt = WorkerThread::current();
    // SAFETY: non-null: this thread's worker, alive while it runs.
    let Some(unit) = (if wt.is_null() { None } else { unsafe { (*wt).unit() } }) else {
        return f();
    };
    struct Restore<'a>(&'a UnitWorker, i64);
    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            self.0.set_priority(self.1);
        }
    }
    let _restore = Restore(unit, unit.set_priority(priority));
    f()
}
