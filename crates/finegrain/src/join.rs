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
//! The fast path is the message-based policies' (`adm-central`, `adm-hier`):
//! the job is *marked* rather than queued (`adm/frame_marks.rs`): its entry
//! point is stored in the word of the worker's mark region that mirrors the
//! job's depth on the stack, and after `a` the join checks that word and
//! clears it. The spawn gate (`adm/spawn_gate.rs`) holds the top of the stack, the end of the region
//! and a depth limit side by side, and the thread-local points at it, so the
//! whole check is one thread-local load, three loads, a subtract and a
//! compare. The job's owner and latch state are written only if it leaves
//! the worker. Every other case (mail waiting or a count due, a job outside
//! the region, a public deque, a central unit, no pool) fails the same
//! compare, because the limit is zero or the depth too large, and goes out of
//! line to `join_other`, which dispatches on the worker's mechanism (`ws`,
//! the central unit, `static`).

use crate::adm::frame_marks::{FrameMarks, Mark};
use crate::adm::private_queue::take_back_at;
use crate::adm::spawn_gate::Gate;
use crate::adm::AdmWorker;
use crate::fixed::FixedWorker;
use crate::job::{JobHeader, JobRef, StackJob};
use crate::mechanism::Mechanism;
#[cfg(feature = "stats")]
use crate::stats::Probe;
use crate::sync::Ordering;
use crate::unit::UnitWorker;
use crate::worker::{JobLatch, Local, WorkerThread};
use crate::ws::WsWorker;
use std::mem::{self, MaybeUninit};
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
#[inline(always)]
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // A closure of more than two words reaches `join` through a pointer to
    // the caller's copy, written field by field. Moving it into the job would
    // copy it with wide loads that span several of those narrow stores, and
    // such loads cannot be forwarded from the store buffer: each waits for the
    // stores to reach the cache, which on a tree sum doubled the time per
    // join (`docs/benchmarks.md`). So the job gets a pointer to the caller's
    // copy instead, and reads the fields one by one when it runs. (`size_of`
    // is a constant: only one branch is compiled.)
    if mem::size_of::<B>() > 2 * mem::size_of::<usize>() {
        let b = mem::ManuallyDrop::new(b);
        let bp = ByPtr(&*b as *const B);
        // SAFETY: `join_by_value` runs its `b` exactly once (inline, by the
        // worker it went to, or after `a` panicked) and returns only after it
        // ran, so `b` is read once, while this frame, which holds it, is live;
        // and `ManuallyDrop` keeps this frame from dropping it again. (Should
        // the job be dropped unrun, as when `join_cold` cannot reach the
        // global pool, `b` is leaked, not dropped twice.)
        join_by_value(a, move || unsafe { bp.read()() })
    } else {
        join_by_value(a, b)
    }
}

/// A closure left in the caller's frame, moved out on first use.
struct ByPtr<B>(*const B);

// SAFETY: it stands for the `B` it points to, which is `Send`: whoever holds
// the `ByPtr` gets the `B`.
unsafe impl<B: Send> Send for ByPtr<B> {}

impl<B> ByPtr<B> {
    /// # Safety
    /// The pointee is live, and this is the only read of it.
    #[inline(always)]
    unsafe fn read(self) -> B {
        // SAFETY: caller's contract.
        unsafe { std::ptr::read(self.0) }
    }
}

/// `join` with `b` moved into the job. Not `inline(always)`: in a recursion
/// the compiler then tends to keep this as the recursive function, with the
/// user's closures (and the user's function, whose base case is then tested
/// before each call) inlined into it, so the leaves of a tree run without a
/// call. Whether it does is the inliner's choice: a binary crate that depends
/// on finegrain with the default release profile gets the other shape (this
/// inlined into the user's function, a call per leaf). `#[inline(never)]`
/// would force the first shape there, but then the instance is a global
/// symbol that a library crate calls through its GOT, which measured slower
/// in library crates than this (`docs/benchmarks.md`, "A crate that depends
/// on finegrain").
#[inline]
fn join_by_value<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let g = crate::worker::current_gate();
    // The job's address decides the fast path, so take the slot first and
    // fill it only there: the slow path builds its own job out of line.
    let mut slot = MaybeUninit::<StackJob<JobLatch, B, RB>>::uninit();
    // The cast exposes the address (`expose_provenance`, spelled as a cast for
    // Rust 1.80), which lets a mark name the job by its depth alone: `adm/frame_marks.rs`.
    let d = g.stack_hi.get().wrapping_sub(slot.as_ptr() as usize);
    if d < g.limit.load(Ordering::Relaxed) {
        let job = slot.write(StackJob::new_marked(b, JobLatch));
        join_marked::<_, _, _, _, false>(g, job, d, a)
    } else {
        join_other(a, b)
    }
}

#[inline(always)]
fn job_addr<B: FnOnce() -> RB, RB>(job: &StackJob<JobLatch, B, RB>) -> usize {
    job.as_job_ref().as_ptr() as usize // exposes, as in `join`
}

/// Every other case, kept out of line so that its extra registers do not
/// burden the fast path's frame: a private-queue worker whose limit is reached
/// (mail waiting, a count of pending work due, or a job outside the mark
/// region), the public-deque and central-unit mechanisms, and calls from
/// outside any pool.
///
/// `#[cold]` is a layout hint for `join_by_value`, not a claim about `ws`
/// (which comes here on every join): without it the compiler placed this call
/// between `b`'s inline run and the function's return, so every marked join
/// took one extra jump to reach its epilogue. A cold callee moves the call to
/// the end of the function and lets `b`'s path fall through (measured before
/// and after in `docs/benchmarks.md`; `ws` is unaffected).
#[cold]
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
    // Each mechanism's path is a function of its own holding its own job, so
    // that a recursion pays for one path's frame per level, not for all.
    // `ws` comes here on every join: test it alone (`WorkerThread::is_ws`).
    if wt.is_ws {
        let Local::Ws(m) = &wt.local else {
            // SAFETY: `is_ws` says so (`WorkerThread::new`).
            unsafe { std::hint::unreachable_unchecked() }
        };
        return join_ws(wt, m, &StackJob::new(b, JobLatch), a);
    }
    match &wt.local {
        Local::Adm(m) => join_private_slow(wt, m, a, b),
        Local::Unit(m) => join_central(wt, m, a, b),
        Local::Fixed(m) => join_fixed(wt, m, a, b),
        // SAFETY: not `ws`, tested above.
        Local::Ws(_) => unsafe { std::hint::unreachable_unchecked() },
    }
}

/// The newest task of this worker's own queue, whatever the policy's order,
/// and whether this worker pushed it (under a private queue a task this
/// worker did not receive must be prepared before it runs through its header).
fn pop_newest(wt: &WorkerThread) -> Option<JobRef> {
    match &wt.local {
        Local::Ws(m) => m.pop_newest(),
        Local::Adm(m) => m.pop_newest().map(|j| m.leaving_private(&wt.h, j)),
        Local::Unit(m) => m.pop_newest(&wt.h),
        Local::Fixed(m) => m.pop_newest(),
    }
}

/// A private-queue worker whose gate said no.
#[inline(never)]
fn join_private_slow<A, B, RA, RB>(wt: &WorkerThread, m: &AdmWorker, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job = StackJob::new(b, JobLatch);
    let g = m.spawn_gate();
    let d = m.marks().depth_of(job_addr(&job));
    if d < m.marks().limit_bound() {
        join_marked::<_, _, _, _, true>(g, &job, d, a)
    } else {
        join_queued(wt, m, &job, a)
    }
}

/// `join` on a private-queue worker (`adm-central`, `adm-hier`) with a frame
/// mark (`adm/frame_marks.rs`): store the job's entry point in its mark, run `a`, and if
/// the mark is still set, clear it and run `b` here. No word is shared
/// with any other `join`, so the joins of a recursion do not wait on each
/// other through memory. `SLOW`: the gate said no (mail waiting, or a count of
/// pending work due), so after marking, the worker does those duties
/// (`AdmWorker::join_slow_duties`), which may hand this very job over.
#[inline(always)]
fn join_marked<A, B, RA, RB, const SLOW: bool>(g: &Gate, job: &StackJob<JobLatch, B, RB>, d: usize, a: A) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // SAFETY: `d` is below the gate's limit (fast path) or the region's bound
    // (slow path), and the limit never exceeds the bound, so `marks_end - d`
    // is a word of this worker's mark region, which only this thread touches.
    let mark = unsafe { &*g.marks_end.get().cast::<Mark>().wrapping_byte_sub(d) };
    // The job is complete in memory before its mark appears: an interrupt
    // handler on this thread may take it as soon as it does (`adm/interrupt.rs`).
    std::sync::atomic::compiler_fence(Ordering::Release);
    // Counting the join (`Gate::joins`) also picks the ones to time.
    #[cfg(feature = "stats")]
    if g.joins.due() {
        return join_marked_sampled::<_, _, _, _, SLOW>(g, job, mark, d, a);
    }
    mark.set(Some(StackJob::<JobLatch, B, RB>::ENTRY));
    // From here on the mark is live: the guard settles it on any unwinding.
    let guard = MarkGuard { job, mark };
    if SLOW {
        join_slow_duties(d);
    }
    let ra = a();
    mem::forget(guard);
    // One store clears the mark; a taker (this thread's interrupt handler
    // included) left a note beside it (`FrameMarks::take_back`).
    // SAFETY: `mark` is this join's live-or-taken mark in this thread's region.
    let ours = unsafe { FrameMarks::take_back(mark) };
    let rb = if ours {
        // SAFETY: the job was still marked, so nobody took it: it is ours.
        unsafe { job.run_inline() }
    } else {
        mark_taken(job, mark)
    };
    (ra, rb)
}

/// `join_marked` for a join the gate's countdown picked: the mark's store
/// (the enqueue) and its check and clear after `a` (the take-back) each
/// between two clock reads (`stats/mod.rs`).
#[cfg(feature = "stats")]
#[cold]
#[inline(never)]
fn join_marked_sampled<A, B, RA, RB, const SLOW: bool>(g: &Gate, job: &StackJob<JobLatch, B, RB>, mark: &Mark, d: usize, a: A) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // SAFETY: a marked join runs on a worker; the current one is live.
    let c = unsafe { (*WorkerThread::current()).counters() };
    let p = Probe::start(c);
    // As in `join_marked`: the job is complete before its mark appears.
    std::sync::atomic::compiler_fence(Ordering::Release);
    mark.set(Some(StackJob::<JobLatch, B, RB>::ENTRY));
    let enq = p.stop(c);
    let period = crate::stats::sampled_join_enqueue(&g.joins, c, enq);
    let guard = MarkGuard { job, mark };
    if SLOW {
        join_slow_duties(d);
    }
    let ra = a();
    mem::forget(guard);
    let p = Probe::start(c);
    // SAFETY: as in `join_marked`.
    let ours = unsafe { FrameMarks::take_back(mark) };
    let deq = p.stop(c);
    crate::stats::sampled_join_dequeue(&g.joins, c, period, deq);
    // SAFETY: as in `join_marked`.
    let rb = if ours { unsafe { job.run_inline() } } else { mark_taken(job, mark) };
    (ra, rb)
}

/// The slow path's duties of a marked `join` (`AdmWorker::join_slow_duties`).
#[cold]
#[inline(never)]
fn join_slow_duties(d: usize) {
    // SAFETY: only reached from `join_other` on a live worker.
    let wt = unsafe { &*WorkerThread::current() };
    if let Local::Adm(m) = &wt.local {
        m.join_slow_duties(&wt.h, d);
    }
}

/// The mark was taken: the job went to another worker, or this worker ran it
/// while waiting for something else. Either way it was prepared, and its
/// latch says when it is done.
#[cold]
#[inline(never)]
fn mark_taken<B: FnOnce() -> RB, RB>(job: &StackJob<JobLatch, B, RB>, mark: &Mark) -> RB {
    // SAFETY: `mark` is this join's taken mark in this thread's region.
    unsafe { FrameMarks::clear_note(mark) };
    // SAFETY: a join runs on a worker; the current one is live.
    let wt = unsafe { &*WorkerThread::current() };
    wt.h.hot.join_slow();
    if let Local::Adm(m) = &wt.local {
        m.marks().frame_returning();
    }
    wait_for(wt, job)
}

/// Settles the mark if `a` unwinds, so that no mark outlives its frame.
struct MarkGuard<'a, F: FnOnce() -> R, R> {
    job: &'a StackJob<JobLatch, F, R>,
    mark: &'a Mark,
}

impl<F: FnOnce() -> R, R> Drop for MarkGuard<'_, F, R> {
    #[inline(always)]
    fn drop(&mut self) {
        finish_marked_after_panic(self.job, self.mark)
    }
}

/// Only reached while unwinding out of `a`: run `b` too, or wait for whoever
/// took it (its panic, if any, is dropped: `a`'s is the one resumed).
#[cold]
#[inline(never)]
fn finish_marked_after_panic<F: FnOnce() -> R, R>(job: &StackJob<JobLatch, F, R>, mark: &Mark) {
    // SAFETY: the guard's mark is its join's live-or-taken mark in this thread's region.
    let ours = unsafe { FrameMarks::take_back(mark) };
    if ours {
        // SAFETY: still marked, so it is ours.
        let _ = panic::catch_unwind(AssertUnwindSafe(|| unsafe { job.run_inline() }));
    } else {
        let _ = panic::catch_unwind(AssertUnwindSafe(|| mark_taken(job, mark)));
    }
}

/// `join` on a private-queue worker whose job lies outside its mark region
/// (on another stack, or deeper than the region): the job goes on the private
/// queue instead, and the take-back checks the queue's newest slot.
#[inline(never)]
fn join_queued<A, B, RA, RB>(wt: &WorkerThread, m: &AdmWorker, job: &StackJob<JobLatch, B, RB>, a: A) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job_ref = job.as_job_ref();
    let g = m.spawn_gate();
    g.count_join();
    m.push_slow(&wt.h, job_ref);
    let guard = JoinGuard::<B, RB, true> { job };
    let ra = a();
    mem::forget(guard);
    // SAFETY: this thread's gate (a join ends on the worker it started on).
    let rb = if unsafe { take_back_at(g, job_ref) } {
        // SAFETY: we took our own job back, so nobody else has it.
        unsafe { job.run_inline() }
    } else {
        take_back_slow_private(wt, job)
    };
    (ra, rb)
}

/// The private-queue take-back found something else on top: `b` was handed
/// over, or tasks were received above it.
#[cold]
#[inline(never)]
fn take_back_slow_private<B: FnOnce() -> RB, RB>(wt: &WorkerThread, job: &StackJob<JobLatch, B, RB>) -> RB {
    wt.h.hot.join_slow();
    take_back_slow(wt, job, pop_newest(wt))
}

#[cold]
fn join_cold<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // Outside any pool: recording runs the program serially (`record/`).
    if crate::record::active() {
        return crate::record::join(a, b);
    }
    crate::pool::global().install(|| join_by_value(a, b))
}

/// Finishes `b` if `a` unwinds, so the frame holding `b` outlives every use
/// of it. `PRIVATE`: `b` was queued on a private queue, whose joins are
/// counted in the spawn gate.
struct JoinGuard<'a, F: FnOnce() -> R, R, const PRIVATE: bool> {
    job: &'a StackJob<JobLatch, F, R>,
}

impl<F: FnOnce() -> R, R, const PRIVATE: bool> Drop for JoinGuard<'_, F, R, PRIVATE> {
    // Inlined into the landing pad, so the job's address is recomputed there
    // from the frame instead of being stored in the guard on the fast path.
    #[inline(always)]
    fn drop(&mut self) {
        finish_after_panic::<F, R, PRIVATE>(self.job)
    }
}

/// Only reached while unwinding out of `a`: run `b` too (its panic, if any,
/// is dropped: `a`'s is the one resumed).
#[cold]
#[inline(never)]
fn finish_after_panic<F: FnOnce() -> R, R, const PRIVATE: bool>(job: &StackJob<JobLatch, F, R>) {
    // SAFETY: still on the worker that pushed `b`.
    let wt = unsafe { &*WorkerThread::current() };
    if PRIVATE {
        wt.h.hot.join_slow();
    }
    let _ = panic::catch_unwind(AssertUnwindSafe(|| take_back_slow(wt, job, pop_newest(wt))));
}

/// `join` on a public deque (`ws`): thieves take jobs without asking, so the
/// job is prepared to run elsewhere before it is pushed.
#[inline(always)]
fn join_ws<A, B, RA, RB>(wt: &WorkerThread, m: &WsWorker, job: &StackJob<JobLatch, B, RB>, a: A) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job_ref = job.as_job_ref();
    // SAFETY: not yet visible to other threads.
    unsafe { JobHeader::prepare(job_ref.as_ptr(), wt.index) };
    // Counting the push also picks the joins to time (`stats/mod.rs`).
    #[cfg(feature = "stats")]
    if wt.h.hot.enq.due() {
        let take = |jr| match m.pop_newest() {
            Some(j) if j == jr => Ok(()),
            other => Err(other),
        };
        return join_sampled(wt, job, a, |jr| m.push_uncounted(&wt.h, jr), take);
    }
    m.push_uncounted(&wt.h, job_ref);
    let guard = JoinGuard::<B, RB, false> { job };
    let ra = a();
    mem::forget(guard);
    // The common case: `b` is still the newest task here.
    let rb = match m.pop_newest() {
        Some(j) if j == job_ref => {
            wt.h.hot.task_run();
            // SAFETY: we popped our own job, so nobody else has it.
            unsafe { job.run_inline() }
        }
        other => take_back_slow(wt, job, other),
    };
    (ra, rb)
}

/// A `join` the countdown picked (`join_ws`, `join_carbon`): its push and
/// its take-back each between two clock reads. `take` returns `Ok` when it
/// took `b` back, else what the worker popped instead (`take_back_slow`).
#[cfg(feature = "stats")]
#[cold]
#[inline(never)]
fn join_sampled<A, B, RA, RB>(
    wt: &WorkerThread,
    job: &StackJob<JobLatch, B, RB>,
    a: A,
    push: impl FnOnce(JobRef),
    take: impl FnOnce(JobRef) -> Result<(), Option<JobRef>>,
) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job_ref = job.as_job_ref();
    let c = wt.counters();
    let p = Probe::start(c);
    push(job_ref);
    let enq = p.stop(c);
    let period = crate::stats::sampled_join_enqueue(&wt.h.hot.enq, c, enq);
    let guard = JoinGuard::<B, RB, false> { job };
    let ra = a();
    mem::forget(guard);
    let p = Probe::start(c);
    let taken = take(job_ref);
    let deq = p.stop(c);
    crate::stats::sampled_join_dequeue(&wt.h.hot.enq, c, period, deq);
    let rb = match taken {
        Ok(()) => {
            wt.h.hot.task_run();
            // SAFETY: we took our own job back, so nobody else has it.
            unsafe { job.run_inline() }
        }
        Err(other) => take_back_slow(wt, job, other),
    };
    (ra, rb)
}

/// `join` under a central-unit policy: Carbon's own path, or the serial one.
/// Out of line, and with the two paths out of line too: inlined into
/// `join_other`, the choice made every `ws` join's frame bigger (84.8 ->
/// 89.2 instructions per spawn); inlined into one function, the two paths'
/// frame was 664 bytes per recursion level, against 504 for `join_unit`
/// alone, which lowered the deepest recursion of every central-unit policy.
#[inline(never)]
fn join_central<A, B, RA, RB>(wt: &WorkerThread, m: &UnitWorker, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    match m.carbon_ref() {
        Some(c) => join_carbon(wt, m, c, a, b),
        None => join_unit(wt, m, a, b),
    }
}

/// `join` under the central unit: like the others, with `a` and `b` at their
/// serial positions (`pdf`; `SerialPath::join`).
#[inline(never)]
fn join_unit<A, B, RA, RB>(wt: &WorkerThread, m: &UnitWorker, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job = &StackJob::new(b, JobLatch);
    let (entry, here) = m.join_begin(&wt.h, job.as_job_ref());
    let guard = JoinGuard::<B, RB, false> { job };
    let ra = a();
    mem::forget(guard);
    m.join_after_a(&entry);
    let rb = if wt.h.hot.dequeue_op(wt.counters(), || m.take_back(&wt.h, &entry)) {
        wt.h.hot.task_run();
        // SAFETY: we took our own job back, so nobody else has it.
        unsafe { job.run_inline() }
    } else {
        take_back_slow(wt, job, m.pop_newest(&wt.h))
    };
    m.join_end(here);
    (ra, rb)
}

/// `join` under `carbon`: `b` goes to the prefetch buffer (TQ_ENQUEUE) and
/// is taken back from it, with no serial position to keep (`gtu/`).
#[inline(never)]
fn join_carbon<A, B, RA, RB>(wt: &WorkerThread, m: &UnitWorker, c: &crate::policy::carbon::Carbon, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job = &StackJob::new(b, JobLatch);
    let job_ref = job.as_job_ref();
    // As in `join_ws`: counting the push also picks the joins to time.
    #[cfg(feature = "stats")]
    if wt.h.hot.enq.due() {
        let take = |jr| if m.carbon_take_back(&wt.h, c, jr) { Ok(()) } else { Err(m.pop_newest(&wt.h)) };
        return join_sampled(wt, job, a, |jr| m.carbon_push(&wt.h, c, jr), take);
    }
    m.carbon_push(&wt.h, c, job_ref);
    let guard = JoinGuard::<B, RB, false> { job };
    let ra = a();
    mem::forget(guard);
    let rb = if m.carbon_take_back(&wt.h, c, job_ref) {
        wt.h.hot.task_run();
        // SAFETY: we took our own job back, so nobody else has it.
        unsafe { job.run_inline() }
    } else {
        take_back_slow(wt, job, m.pop_newest(&wt.h))
    };
    (ra, rb)
}

/// `join` under `static` (`policy::fixed`): `b` stays on this worker's own
/// queue, unless this is the root task, whose spawns are dealt round-robin.
/// Taken back, `b` runs as a task of its own (not the root), as in the
/// simulator.
#[inline(never)]
fn join_fixed<A, B, RA, RB>(wt: &WorkerThread, m: &FixedWorker, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job = &StackJob::new(b, JobLatch);
    let job_ref = job.as_job_ref();
    // SAFETY: not yet visible to other threads.
    unsafe { JobHeader::prepare(job_ref.as_ptr(), wt.index) };
    m.push(&wt.h, job_ref);
    let guard = JoinGuard::<B, RB, false> { job };
    let ra = a();
    mem::forget(guard);
    let rb = match wt.h.hot.dequeue_op(wt.counters(), || m.pop_newest()) {
        Some(j) if j == job_ref => {
            wt.h.hot.task_run();
            // SAFETY: we popped our own job, so nobody else has it.
            m.as_child(|| unsafe { job.run_inline() })
        }
        other => take_back_slow_fixed(wt, m, job, other),
    };
    (ra, rb)
}

/// `take_back_slow` under `static`: the root's `b` was dealt to another
/// worker, so what this worker pops are older tasks of its own (spawns the
/// root dealt to itself further up); each runs as a task of its own, not as
/// the root, before the worker waits for `b`.
#[cold]
#[inline(never)]
fn take_back_slow_fixed<B: FnOnce() -> RB, RB>(wt: &WorkerThread, m: &FixedWorker, job: &StackJob<JobLatch, B, RB>, mut popped: Option<JobRef>) -> RB {
    let job_ref = job.as_job_ref();
    loop {
        match popped {
            Some(j) if j == job_ref => {
                wt.h.hot.task_run();
                // SAFETY: we popped our own job, so nobody else has it.
                return m.as_child(|| unsafe { job.run_inline() });
            }
            Some(j) => m.as_child(|| wt.execute(j)),
            None => return wait_for(wt, job),
        }
        popped = m.pop_newest();
    }
}

/// `b` was not on top: run the tasks above it, then either find it or wait
/// for the worker that took it. (`popped` comes from `pop_newest`, so a
/// private-queue task is already prepared to run here.)
#[cold]
#[inline(never)]
fn take_back_slow<B: FnOnce() -> RB, RB>(wt: &WorkerThread, job: &StackJob<JobLatch, B, RB>, mut popped: Option<JobRef>) -> RB {
    let job_ref = job.as_job_ref();
    loop {
        match popped {
            Some(j) if j == job_ref => {
                wt.h.hot.task_run();
                // SAFETY: we popped our own job, so nobody else has it.
                return unsafe { job.run_inline() };
            }
            // Tasks a steal or hand-over left above `b`: run them first.
            Some(j) => wt.execute(j),
            None => return wait_for(wt, job),
        }
        popped = pop_newest(wt);
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
