//! Fork-join: `join(a, b)` runs `a` here and offers `b` to other workers.
//!
//! `b` becomes a job in this frame ([`StackJob`]), pushed onto the worker's own
//! queue; `a` runs inline. Afterwards the worker takes its newest task back: if
//! it is `b`, it runs it inline; if `b` went to another worker (stolen under
//! `ws`, handed over in answer to a request under the message-based policies),
//! it runs other work until `b`'s latch is set. Either way this frame is not
//! left while another thread may still touch `b` — also when `a` panics: a drop
//! guard then finishes `b` before the unwinding continues.
//!
//! The fast path is the private queue's (`adm-central`, `adm-hier`): the
//! spawn gate (`gate.rs`) holds the queue top and the limit side by side, and
//! the thread-local points at it, so a spawn is one thread-local load, one
//! compare of the top against the limit, the job's function pointer and
//! captures, a store and a bump; the take-back is a load, a compare and a
//! store (`private_queue::take_back_at`). The job's owner and latch state are
//! written only if it leaves the worker. Every other case (limit reached, a
//! public deque, a central unit, no pool) fails the same compare, because its
//! gate's limit is zero, and goes out of line to `join_other`, which
//! dispatches on the policy.

use crate::gate::Gate;
use crate::job::{JobHeader, JobLatch, JobRef, StackJob};
use crate::policy::PolicyKind;
use crate::private_queue::{push_at, take_back_at};
use crate::sync::Ordering;
use crate::worker::{WorkerThread, MECH_CENTRAL, MECH_PRIVATE, MECH_PUBLIC};
use std::mem;
use std::panic::{self, AssertUnwindSafe};

/// Run `a` and `b`, possibly in parallel, and return both results.
///
/// If either panics, the panic is resumed here after both have finished (the
/// first of the two if both panic).
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 2 { return n; }
///     let (a, b) = finegrain::join(|| fib(n - 1), || fib(n - 2));
///     a + b
/// }
/// assert_eq!(fib(20), 6765);
/// ```
#[inline]
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let g = crate::worker::current_gate();
    if (g.top.get() as usize) < g.limit.load(Ordering::Relaxed) {
        join_private::<_, _, _, _, false>(g, a, b)
    } else {
        join_other(a, b)
    }
}

/// Every other case, kept out of line so that its extra registers do not
/// burden the fast path's frame: a private queue whose limit is reached (full,
/// an `UPDATE` due, or mail waiting), the public-deque and central-unit
/// mechanisms, and calls from outside any pool.
#[inline(never)]
fn join_other<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let wt = WorkerThread::current();
    if wt.is_null() {
        return join_cold(a, b);
    }
    // SAFETY: the current worker is non-null and lives for this whole call.
    let wt = unsafe { &*wt };
    match wt.mech {
        PolicyKind::Messaging => join_private::<_, _, _, _, true>(&wt.mail().gate, a, b),
        PolicyKind::WorkStealing => join_in_worker::<_, _, _, _, MECH_PUBLIC>(wt, a, b),
        PolicyKind::Central(_) => join_central(wt, a, b),
    }
}

/// `join` on a private queue (`adm-central`, `adm-hier`). `SLOW_PUSH`: the
/// gate said no (the limit is reached), so the push goes through
/// `push_slow`, which reports, answers mail and refreshes the limit.
/// Otherwise the push is a store and a bump of the gate's top, and the
/// take-back a load, a compare and a store; the job's owner and latch state
/// are written only if the job leaves this worker (`JobHeader::prepare`).
#[inline(always)]
fn join_private<A, B, RA, RB, const SLOW_PUSH: bool>(g: &Gate, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job = StackJob::new(b, JobLatch);
    let job_ref = job.as_job_ref();
    g.count_join();
    if SLOW_PUSH {
        // SAFETY: only reached from `join_other` on a live worker.
        unsafe { (*WorkerThread::current()).push_slow(job_ref) };
    } else {
        // SAFETY: `g` is this thread's gate and its top is below the limit,
        // which never exceeds the end of the buffer.
        unsafe { push_at(g, job_ref) };
    }
    let guard = JoinGuard::<B, RB, MECH_PRIVATE> { job: &job };
    let ra = a();
    mem::forget(guard);
    // SAFETY: this thread's gate (a join ends on the worker it started on).
    let rb = if unsafe { take_back_at(g, job_ref) } {
        // SAFETY: we took our own job back, so nobody else has it.
        unsafe { job.run_inline() }
    } else {
        take_back_slow_private(&job)
    };
    (ra, rb)
}

/// The private-queue take-back found something else on top: `b` was handed
/// over, or tasks were received above it.
#[cold]
#[inline(never)]
fn take_back_slow_private<B: FnOnce() -> RB, RB>(job: &StackJob<JobLatch, B, RB>) -> RB {
    // SAFETY: a join runs on a worker; the current one is live.
    let wt = unsafe { &*WorkerThread::current() };
    wt.count_join_slow();
    take_back_slow::<_, _, MECH_PRIVATE>(wt, job, wt.pop_newest::<MECH_PRIVATE>())
}

#[cold]
fn join_cold<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    crate::pool::global().install(|| join(a, b))
}

/// Finishes `b` if `a` unwinds, so the frame holding `b` outlives every use of it.
struct JoinGuard<'a, F: FnOnce() -> R, R, const M: usize> {
    job: &'a StackJob<JobLatch, F, R>,
}

impl<F: FnOnce() -> R, R, const M: usize> Drop for JoinGuard<'_, F, R, M> {
    // Inlined into the landing pad, so the job's address is recomputed there
    // from the frame instead of being stored in the guard on the fast path.
    #[inline(always)]
    fn drop(&mut self) {
        finish_after_panic::<F, R, M>(self.job)
    }
}

/// Only reached while unwinding out of `a`: run `b` too (its panic, if any,
/// is dropped: `a`'s is the one resumed).
#[cold]
#[inline(never)]
fn finish_after_panic<F: FnOnce() -> R, R, const M: usize>(job: &StackJob<JobLatch, F, R>) {
    // SAFETY: still on the worker that pushed `b`.
    let wt = unsafe { &*WorkerThread::current() };
    if M == MECH_PRIVATE {
        wt.count_join_slow();
    }
    let _ = panic::catch_unwind(AssertUnwindSafe(|| take_back_slow::<_, _, M>(wt, job, wt.pop_newest::<M>())));
}

/// `join` on a public deque (`ws`): thieves take jobs without asking, so the
/// job is prepared to run elsewhere before it is pushed.
#[inline(always)]
fn join_in_worker<A, B, RA, RB, const M: usize>(wt: &WorkerThread, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job = StackJob::new(b, JobLatch);
    let job_ref = job.as_job_ref();
    // SAFETY: not yet visible to other threads.
    unsafe { JobHeader::prepare(job_ref.as_ptr(), wt.index) };
    wt.push_as::<M>(job_ref);
    let guard = JoinGuard::<B, RB, M> { job: &job };
    let ra = a();
    mem::forget(guard);
    // The common case: `b` is still the newest task here.
    let rb = match wt.pop_newest::<M>() {
        Some(j) if j == job_ref => {
            wt.count_inline_task();
            // SAFETY: we popped our own job, so nobody else has it.
            unsafe { job.run_inline() }
        }
        other => take_back_slow::<_, _, M>(wt, &job, other),
    };
    (ra, rb)
}

/// `join` under the central-unit policies: like the others, plus the serial
/// position (`pdf`): `a` runs at `here.child(0)`, `b` at `here.child(1)`.
#[inline(never)]
fn join_central<A, B, RA, RB>(wt: &WorkerThread, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    const M: usize = MECH_CENTRAL;
    let job = StackJob::new(b, JobLatch);
    let job_ref = job.as_job_ref();
    let here = wt.central.path.get();
    let entry = wt.central_push_at(job_ref, here.child(1));
    wt.central.path.set(here.child(0));
    let guard = JoinGuard::<B, RB, M> { job: &job };
    let ra = a();
    mem::forget(guard);
    wt.central.path.set(here.child(1));
    let rb = if wt.central_take_back(entry) {
        wt.count_inline_task();
        // SAFETY: we took our own job back, so nobody else has it.
        unsafe { job.run_inline() }
    } else {
        take_back_slow::<_, _, M>(wt, &job, wt.pop_newest::<M>())
    };
    wt.central.path.set(here);
    (ra, rb)
}

/// `b` was not on top: run the tasks above it, then either find it or wait
/// for the worker that took it.
#[cold]
#[inline(never)]
fn take_back_slow<B: FnOnce() -> RB, RB, const M: usize>(wt: &WorkerThread, job: &StackJob<JobLatch, B, RB>, mut popped: Option<JobRef>) -> RB {
    let job_ref = job.as_job_ref();
    loop {
        match popped {
            Some(j) if j == job_ref => {
                wt.count_inline_task();
                // SAFETY: we popped our own job, so nobody else has it.
                return unsafe { job.run_inline() };
            }
            // Tasks a steal or hand-over left above `b`: run them first.
            Some(j) => wt.execute(if M == MECH_PRIVATE { wt.leaving_private(j) } else { j }),
            None => return wait_for(wt, job),
        }
        popped = wt.pop_newest::<M>();
    }
}

#[cold]
fn wait_for<B: FnOnce() -> RB, RB>(wt: &WorkerThread, job: &StackJob<JobLatch, B, RB>) -> RB {
    // SAFETY: `b` left this worker, so it was prepared (at the push under a
    // public deque, at the hand-over or a local run under a private queue).
    wt.wait_until(unsafe { JobHeader::state(job.as_job_ref().as_ptr()) });
    // SAFETY: the latch is set: the other worker wrote the result; read once.
    match unsafe { job.take_result() } {
        Ok(r) => r,
        Err(p) => panic::resume_unwind(p),
    }
}
