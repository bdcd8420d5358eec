//! TQ_ENQUEUE_LOOP: a parallel loop as one descriptor that Carbon's global
//! task unit expands lazily (Kumar, Hughes, Nguyen, "Carbon", ISCA 2007,
//! sections 4.2 and 4.3.1).
//!
//! ## Design note
//!
//! The paper's instruction takes a tuple `<v1, v2, N, S>` and stands for
//! ceil(N/S) tasks `<v1, v2, b, e>` of S iterations each, which the GTU
//! creates one at a time as they are dequeued. Here the descriptor is a
//! [`LoopJob`] on the enqueuer's stack, and the GTU holds it as one deque
//! entry that still hands out `left` tasks (`gtu::Item`): each dequeue (the
//! owner's pop or prefetch) hands out the descriptor's job once and
//! decrements `left`; a steal takes half of what is left as one entry of its
//! own. So the unit gives the job out exactly `tasks` times, and each run of
//! it claims the next S iterations with one `fetch_add` on `next`: the k-th
//! run, whoever makes it, gets chunk k, and every chunk runs exactly once
//! (claims are distinct because `fetch_add` is one atomic read-modify-write,
//! and there are as many runs as chunks). The claim needs no ordering of its
//! own: the chunk's bounds are computed from the index and the descriptor's
//! fields, which the enqueuer wrote before the job left it (the lane lock or
//! the buffer slot's release/acquire publishes them).
//!
//! Each chunk folds its leaves into its own accumulator and writes it to
//! `results[k]`, a slot only that run touches; the last run to finish
//! (`left` reaching 0, an acquire-release decrement, so every earlier run's
//! writes happen before it) sets the enqueuer's latch, and the enqueuer,
//! which helps by running tasks (its own lane's newest first, so its own
//! loop's chunks) until then, combines the results in iteration order. A
//! panic in a chunk is kept (the first one) and resumed by the enqueuer
//! after every chunk has finished, so no chunk outlives the frame.
//!
//! As the paper says, a TQ_ENQUEUE_LOOP is not buffered: the descriptor goes
//! straight to the deque (a buffered task goes there first, below it, so the
//! lane stays one stack of tasks).

use crate::job::{unwind::PanicSlot, JobHeader, JobRef, Latch};
use crate::policy::carbon::Carbon;
use crate::unit::UnitWorker;
use crate::worker::{JobLatch, WorkerThread};
use std::cell::UnsafeCell;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A loop descriptor `<v1, v2, N, S>`: `v1, v2` are the body and its
/// identity, N is `start..end`, S is `per` leaves of `leaf` iterations.
#[repr(C)]
struct LoopJob<'a, T, ID, F> {
    header: JobHeader,
    start: usize,
    end: usize,
    leaf: usize,
    per: usize,
    /// The next chunk to claim.
    next: AtomicUsize,
    /// Chunks not finished yet.
    left: AtomicUsize,
    results: Box<[UnsafeCell<Option<T>>]>,
    panic: PanicSlot,
    identity: &'a ID,
    fold: &'a F,
}

impl<T, ID, F> LoopJob<'_, T, ID, F>
where
    T: Send,
    ID: Fn() -> T + Sync,
    F: Fn(T, Range<usize>) -> T + Sync,
{
    /// One task of the loop: claim the next chunk and fold it.
    ///
    /// # Safety
    /// `this` is the header of a live `LoopJob`, run at most as many times
    /// as it has chunks (the GTU hands it out that many times).
    unsafe fn execute(this: *const JobHeader) {
        // SAFETY: `header` is the first field of this repr(C) struct; the
        // enqueuer keeps it alive until `left` reaches 0, which this run's
        // decrement below comes before.
        let job = unsafe { &*(this as *const Self) };
        let k = job.next.fetch_add(1, Ordering::Relaxed);
        debug_assert!(k < job.results.len(), "a loop task ran more often than it has chunks");
        let step = job.per * job.leaf;
        let lo = job.start + k * step;
        let hi = (lo + step).min(job.end);
        let r = panic::catch_unwind(AssertUnwindSafe(|| {
            let mut acc = (job.identity)();
            let mut l = lo;
            while l < hi {
                let e = (l + job.leaf).min(hi);
                acc = (job.fold)(acc, l..e);
                l = e;
            }
            acc
        }));
        match r {
            // SAFETY: chunk `k` was claimed by this run alone, and the
            // enqueuer reads the slot only after `left` reaches 0.
            Ok(v) => unsafe { *job.results[k].get() = Some(v) },
            Err(p) => job.panic.record(p),
        }
        // Publish this worker's counts before the enqueuer can return (as a
        // scope task does): a run that is not the last sets no latch, so
        // nothing else would publish them before the caller reads its stats.
        crate::worker::flush_current_counters();
        if job.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            // SAFETY: the job was prepared by its enqueuer; after the latch
            // is set the enqueuer may free it, and this is the last touch.
            unsafe { JobLatch::complete(&JobLatch, this) };
        }
    }
}

/// `fold_chunks` under `carbon` with `loops=descriptor`: one TQ_ENQUEUE_LOOP
/// of `range` in leaves of `leaf` iterations, S chosen by
/// [`Carbon::loop_task_size`]; results are combined in iteration order.
#[allow(clippy::too_many_arguments)] // the loop's parts, as `fold_chunks` passes them
pub(crate) fn fold<T, ID, F, C>(
    wt: &WorkerThread,
    u: &UnitWorker,
    c: Carbon,
    range: Range<usize>,
    leaf: usize,
    identity: &ID,
    fold: &F,
    combine: &C,
) -> T
where
    T: Send,
    ID: Fn() -> T + Sync,
    F: Fn(T, Range<usize>) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    let leaf = leaf.max(1);
    let (per, tasks) = c.loop_task_size(range.len(), leaf, wt.h.workers);
    let job = LoopJob {
        header: JobHeader::new(LoopJob::<T, ID, F>::execute),
        start: range.start,
        end: range.end,
        leaf,
        per,
        next: AtomicUsize::new(0),
        left: AtomicUsize::new(tasks),
        results: (0..tasks).map(|_| UnsafeCell::new(None)).collect(),
        panic: PanicSlot::new(),
        identity,
        fold,
    };
    // SAFETY: the header is the first field of a repr(C) struct that lives
    // until the latch below is set.
    let r = unsafe { JobRef::from_ptr(&job.header as *const JobHeader as *mut JobHeader) };
    debug_assert_ne!(r.to_word(), 0);
    // SAFETY: not yet visible to other threads.
    unsafe { JobHeader::prepare(r.as_ptr(), wt.index) };
    u.carbon_push_loop(&wt.h, c, r, tasks);
    // SAFETY: prepared above.
    wt.wait_until(unsafe { JobHeader::state(r.as_ptr()) });
    job.panic.propagate();
    let mut acc: Option<T> = None;
    for slot in job.results.into_vec() {
        let v = slot.into_inner().expect("every chunk ran (the latch is set) and none panicked (propagated above)");
        acc = Some(match acc {
            None => v,
            Some(a) => combine(a, v),
        });
    }
    acc.unwrap_or_else(identity)
}
