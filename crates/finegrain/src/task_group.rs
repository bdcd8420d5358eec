//! Spawn and wait, in the style of Cilk's `spawn`/`sync` and of HammerBlade's
//! `spawn()`/`wait()` (Cheng et al., "Beyond Static Parallel Loops", ASPLOS
//! 2023, section 3, Figure 3(a)): a task spawns children, goes on with its
//! own work, and waits for the children it spawned so far — as often as it
//! likes, not only once at the end as [`scope`](crate::scope) does.
//!
//! [`task_group`] gives the body a [`TaskGroup`]; [`TaskGroup::spawn`] pushes
//! a heap job counted in the group's count latch (which holds one unit for
//! the body itself), and [`TaskGroup::wait`] gives up that unit, runs other
//! work until the latch is set, then puts a fresh latch in the same place
//! for the next spawns. The group is `!Sync`, so `&TaskGroup` cannot move
//! into a spawned task or into either side of a `join`: only the body that
//! made the group, on its own worker, spawns into it and waits for it, and a
//! child can never wait for a group that counts the child itself. The C API
//! (`crates/finegrain-c`, `fg_spawn`/`fg_sync`) is built on this.

use crate::job::unwind::PanicSlot;
use crate::job::HeapJob;
use crate::latch::CountLatch;
use crate::taskgraph::LatchId;
use crate::worker::WorkerThread;
use std::cell::{Cell, UnsafeCell};
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};

/// Children spawned by one task body, waited for with [`TaskGroup::wait`]
/// (and once more when [`task_group`] returns).
#[allow(missing_debug_implementations)]
pub struct TaskGroup<'g> {
    /// Replaced by a fresh latch after each wait; spawned jobs point at it.
    latch: UnsafeCell<CountLatch>,
    panic: PanicSlot,
    wt: *const WorkerThread,
    /// Recording (`record/`): the latch of the spawns since the last wait;
    /// spawns then run at once, serially.
    recording: Cell<Option<LatchId>>,
    // Invariant in 'g like `Scope`; `!Send` and `!Sync` through the pointers.
    _marker: PhantomData<&'g mut &'g ()>,
}

struct LatchPtr(*const CountLatch);
// SAFETY: the latch is shared by the group's jobs, which only decrement it;
// the group waits for them before the latch is replaced or dropped.
unsafe impl Send for LatchPtr {}
struct SlotPtr(*const PanicSlot);
// SAFETY: PanicSlot is an atomic pointer; the group outlives its jobs.
unsafe impl Send for SlotPtr {}

/// Run `op` with a [`TaskGroup`] it may spawn into and wait for; return
/// once every task spawned into the group has finished.
///
/// A panic in `op` or in a spawned task is resumed here (or at the
/// [`TaskGroup::wait`] after it) once the tasks have finished.
///
/// A child may borrow what outlives the group; what it hands back goes
/// through something shared, since the borrow checker cannot see that a
/// wait ends the child's borrow:
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
/// fn fib(n: u64) -> u64 {
///     if n < 2 { return n; }
///     let x = AtomicU64::new(0);
///     finegrain::task_group(|g| {
///         g.spawn(|| x.store(fib(n - 1), Relaxed));
///         let y = fib(n - 2);
///         g.wait();
///         x.load(Relaxed) + y
///     })
/// }
/// assert_eq!(fib(20), 6765);
/// ```
///
/// The group cannot be handed to a child, which could then wait for itself:
///
/// ```compile_fail
/// finegrain::task_group(|g| g.spawn(|| g.wait()));
/// ```
pub fn task_group<'g, OP, R>(op: OP) -> R
where
    OP: FnOnce(&TaskGroup<'g>) -> R + Send,
    R: Send,
{
    let wt = WorkerThread::current();
    if wt.is_null() {
        return task_group_cold(op);
    }
    // SAFETY: a non-null current worker is live for this whole call.
    let sleep = unsafe { &(*wt).registry().sleep };
    // SAFETY: as above.
    let index = unsafe { (*wt).index };
    let g = TaskGroup {
        latch: UnsafeCell::new(CountLatch::new(sleep, index)),
        panic: PanicSlot::new(),
        wt,
        recording: Cell::new(None),
        _marker: PhantomData,
    };
    let r = panic::catch_unwind(AssertUnwindSafe(|| op(&g)));
    g.wait_all();
    match r {
        Err(p) => panic::resume_unwind(p),
        Ok(v) => {
            g.panic.propagate();
            v
        }
    }
}

/// `task_group` outside any pool: recorded (`record/`), or run in the global pool.
#[cold]
#[inline(never)]
fn task_group_cold<'g, OP, R>(op: OP) -> R
where
    OP: FnOnce(&TaskGroup<'g>) -> R + Send,
    R: Send,
{
    if !crate::record::active() {
        return crate::pool::global().install(|| task_group(op));
    }
    // The latch is never used by a recording group; it only needs a sleep.
    let sleep = crate::sleep::Sleep::new(1);
    let g = TaskGroup {
        latch: UnsafeCell::new(CountLatch::new(&sleep, 0)),
        panic: PanicSlot::new(),
        wt: std::ptr::null(),
        recording: Cell::new(Some(crate::record::new_latch())),
        _marker: PhantomData,
    };
    let r = op(&g);
    g.wait();
    r
}

impl<'g> TaskGroup<'g> {
    /// Spawn `body` into the group. It runs once, on some worker, before
    /// the next [`wait`](TaskGroup::wait) returns.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce() + Send + 'g,
    {
        if let Some(latch) = self.recording.get() {
            let t = crate::record::spawn_task(crate::taskgraph::TaskKind::Scope, latch);
            return crate::record::run_as(t, body);
        }
        let latch = self.latch.get() as *const CountLatch;
        // SAFETY: the latch is live (replaced only by `wait`, on this thread).
        unsafe { (*latch).increment() };
        let (l, slot) = (LatchPtr(latch), SlotPtr(&self.panic));
        let job = HeapJob::into_job_ref(move || {
            let (l, slot) = (l, slot);
            if let Err(p) = panic::catch_unwind(AssertUnwindSafe(body)) {
                // SAFETY: the group outlives its jobs (it waits for them).
                unsafe { (*slot.0).record(p) };
            }
            crate::worker::flush_current_counters();
            // SAFETY: last touch of the group by this job.
            unsafe { CountLatch::decrement(l.0) };
        });
        // SAFETY: the group is `!Send` and `!Sync`: this is the worker that
        // made it, which is live while the group is.
        unsafe { (*self.wt).push(job) };
    }

    /// Wait for every task spawned into the group so far, running other work
    /// meanwhile; the group can be spawned into again afterwards. A panic in
    /// one of those tasks is resumed here.
    pub fn wait(&self) {
        self.wait_all();
        self.panic.propagate();
    }

    fn wait_all(&self) {
        if let Some(latch) = self.recording.get() {
            crate::record::wait(latch);
            self.recording.set(Some(crate::record::new_latch()));
            return;
        }
        let latch = self.latch.get() as *const CountLatch;
        // SAFETY: the group's own unit, given up once per wait.
        unsafe { CountLatch::decrement(latch) };
        // SAFETY: this is the group's worker (see `spawn`); the latch is live.
        let wt = unsafe { &*self.wt };
        // SAFETY: as above.
        wt.wait_until(unsafe { &(*latch).inner.state });
        // Every job of the old latch has finished and its setter's last
        // touch (the swap that set it) is behind us: a fresh latch can take
        // its place, holding the body's unit again.
        // SAFETY: no job points at the latch any more, and no reference to
        // it is live.
        unsafe { std::ptr::write(self.latch.get(), CountLatch::new(&wt.registry().sleep, wt.index)) };
    }
}
