//! Parallel loops with lazy range splitting.
//!
//! A pending loop is one task holding a range; it is never expanded into a task
//! per iteration (Sanchez, Yoo, Kozyrakis, ASPLOS 2010, section 4.2; Carbon's `TQ_ENQUEUE_LOOP`,
//! Kumar, Hughes, Nguyen, ISCA 2007). The worker running a
//! range processes it one chunk at a time; before each chunk it looks at its own
//! queue, and only if that queue is empty (so thieves have taken everything
//! offered, or nobody has offered anything yet) does it split the remaining range
//! in half and offer the upper half as a single task. This is lazy binary
//! splitting (Tzannes et al., PPoPP'10): the number of tasks grows with the
//! demand for work, not with the number of iterations. A stolen half splits
//! again by the same rule on its thief.
//!
//! Under `carbon` (with `loops=descriptor`, the default) a loop is one
//! TQ_ENQUEUE_LOOP descriptor that the task unit expands lazily into tasks
//! of S iterations (`gtu/loops.rs`).
//!
//! Under `static` a loop is not split lazily: it is cut into one contiguous
//! piece per worker before it starts (`policy::fixed`; `fold_static`).
//!
//! Reductions combine partial results in iteration order, so `combine` needs to
//! be associative but not commutative.

use crate::fixed::FixedWorker;
use crate::job::{JobHeader, StackJob};
use crate::mechanism::LoopStep;
use crate::join::join;
use crate::phase::reduce::Word;
use crate::phase::PhaseCtx;
use crate::policy::fixed;
use crate::policy::reduce::{phase_end, PhaseEnd, ReduceMethod};
use crate::worker::{JobLatch, WorkerThread};
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};

/// Default chunk: enough iterations that the per-chunk check is negligible for
/// cheap bodies, small enough that a range is split when a thief is hungry.
/// A recording uses the grain of a 256-thread pool (`crate::pool::loop_threads`).
fn default_grain(len: usize) -> usize {
    (len / (crate::pool::loop_threads().max(1) * 64)).clamp(1, 1024)
}

#[inline]
fn queue_empty() -> bool {
    let wt = WorkerThread::current();
    // SAFETY: non-null current worker is live.
    wt.is_null() || unsafe { (*wt).wants_split() }
}

/// What the worker's mechanism says before the next chunk, with `left`
/// chunks after it ([`LoopStep`]); outside a pool, split while there is
/// more than one chunk.
#[inline]
fn loop_step(wt: *const WorkerThread, left: usize) -> LoopStep {
    if wt.is_null() {
        return if left > 0 { LoopStep::Half } else { LoopStep::Go };
    }
    // SAFETY: non-null current worker is live.
    unsafe { (*wt).loop_step(left) }
}

fn lbs<T, ID, F, C>(range: Range<usize>, grain: usize, identity: &ID, fold: &F, combine: &C) -> T
where
    T: Send,
    ID: Fn() -> T + Sync,
    F: Fn(T, Range<usize>) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    let wt = WorkerThread::current();
    let mut acc = identity();
    let (mut lo, hi) = (range.start, range.end);
    while lo < hi {
        // Chunks after the next one.
        let left = (hi - lo).div_ceil(grain) - 1;
        let mid = match loop_step(wt, left) {
            LoopStep::Go => None,
            LoopStep::Half => Some((lo + (hi - lo) / 2, false)),
            // Keep the first chunks, offer `c` off the top (ADM's range cut).
            LoopStep::Cut(c) => Some((lo + (left + 1 - c.clamp(1, left.max(1))) * grain, true)),
        };
        if let Some((mid, cut)) = mid.filter(|&(m, _)| lo < m && m < hi) {
            let (l, r) = join(
                || {
                    if cut {
                        // `a` runs inline, on this worker.
                        let wt = WorkerThread::current();
                        // SAFETY: a cut is only asked for on a worker, and a
                        // non-null current worker is live.
                        unsafe { (*wt).loop_cut_offered() };
                    }
                    lbs(lo..mid, grain, identity, fold, combine)
                },
                || lbs(mid..hi, grain, identity, fold, combine),
            );
            return combine(acc, combine(l, r));
        }
        let end = lo + grain.min(hi - lo);
        acc = fold(acc, lo..end);
        lo = end;
    }
    if !wt.is_null() {
        // SAFETY: non-null current worker is live.
        unsafe { (*wt).loop_done() };
    }
    acc
}

/// Fold `range` in parallel: each task folds its chunks into its own
/// accumulator (starting from `identity()`), and accumulators are combined in
/// iteration order. The building block of every loop here.
pub fn fold_chunks<T, ID, F, C>(range: Range<usize>, grain: usize, identity: ID, fold: F, combine: C) -> T
where
    T: Send,
    ID: Fn() -> T + Sync + Send,
    F: Fn(T, Range<usize>) -> T + Sync + Send,
    C: Fn(T, T) -> T + Sync + Send,
{
    let grain = grain.max(1);
    if range.is_empty() {
        return identity();
    }
    let wt = WorkerThread::current();
    if wt.is_null() {
        return fold_chunks_cold(range, grain, identity, fold, combine);
    }
    // SAFETY: non-null current worker is live.
    fold_here(unsafe { &*wt }, range, grain, &identity, &fold, &combine)
}

/// A loop on worker `wt`: split lazily, or cut into pieces under `static`.
#[inline]
fn fold_here<T, ID, F, C>(wt: &WorkerThread, range: Range<usize>, grain: usize, identity: &ID, fold: &F, combine: &C) -> T
where
    T: Send,
    ID: Fn() -> T + Sync,
    F: Fn(T, Range<usize>) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    match wt.fixed() {
        Some(m) => fold_static(wt, m, range, grain, identity, fold, combine),
        None => match carbon_loops(wt) {
            Some((u, c)) => crate::gtu::loops::fold(wt, u, c, range, grain, identity, fold, combine),
            None => lbs(range, grain, identity, fold, combine),
        },
    }
}

/// The unit and parameters of a `carbon` worker whose loops are
/// TQ_ENQUEUE_LOOP descriptors (`gtu/loops.rs`).
#[inline]
fn carbon_loops(wt: &WorkerThread) -> Option<(&crate::unit::UnitWorker, crate::policy::carbon::Carbon)> {
    let u = wt.unit()?;
    u.carbon().filter(|c| c.loop_descriptor).map(|c| (u, c))
}

/// The whole loop cut into one contiguous piece per worker, on leaf
/// boundaries (leaves of `grain` iterations, as a recording counts them):
/// piece 0 runs here, piece `i` is dealt to the `i`-th worker after this one
/// (`policy::fixed`). Each piece folds its leaves in order; the pieces'
/// results are combined in order. A panic anywhere is resumed after every
/// piece has finished (the first piece's in iteration order).
#[cold]
#[inline(never)]
fn fold_static<T, ID, F, C>(wt: &WorkerThread, m: &FixedWorker, range: Range<usize>, grain: usize, identity: &ID, fold: &F, combine: &C) -> T
where
    T: Send,
    ID: Fn() -> T + Sync,
    F: Fn(T, Range<usize>) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    let (start, len) = (range.start, range.len());
    let leaves = len.div_ceil(grain);
    let n = wt.h.workers;
    let k = fixed::pieces(leaves, n);
    let span = |i: usize| {
        let l = fixed::piece(leaves, k, i);
        start + l.start * grain..start + (l.end * grain).min(len)
    };
    let run = |r: Range<usize>| {
        let mut acc = identity();
        let mut lo = r.start;
        while lo < r.end {
            let end = lo + grain.min(r.end - lo);
            acc = fold(acc, lo..end);
            lo = end;
        }
        acc
    };
    if k == 1 {
        return run(range);
    }
    let run = &run;
    let jobs: Vec<_> = (1..k)
        .map(|i| {
            let r = span(i);
            StackJob::new(move || run(r), JobLatch)
        })
        .collect();
    // The jobs stay where `collect` put them until each has completed.
    for (i, job) in jobs.iter().enumerate() {
        let j = job.as_job_ref();
        // SAFETY: not yet visible to other threads.
        unsafe { JobHeader::prepare(j.as_ptr(), wt.index) };
        m.give(&wt.h, fixed::piece_worker(wt.index, i + 1, n), j);
    }
    let mut acc = panic::catch_unwind(AssertUnwindSafe(|| run(span(0))));
    for job in &jobs {
        // SAFETY: prepared above; the job lives in `jobs` until this loop ends.
        wt.wait_until(unsafe { JobHeader::state(job.as_job_ref().as_ptr()) });
        // SAFETY: the latch is set, so the job ran; read once.
        let r = unsafe { job.take_result() };
        acc = match (acc, r) {
            (Ok(a), Ok(b)) => panic::catch_unwind(AssertUnwindSafe(|| combine(a, b))),
            (Err(p), _) | (Ok(_), Err(p)) => Err(p),
        };
    }
    match acc {
        Ok(v) => v,
        Err(p) => panic::resume_unwind(p),
    }
}

/// `fold_chunks` outside any pool: recorded (`record/`), or run in the
/// global pool.
#[cold]
#[inline(never)]
fn fold_chunks_cold<T, ID, F, C>(range: Range<usize>, grain: usize, identity: ID, fold: F, combine: C) -> T
where
    T: Send,
    ID: Fn() -> T + Sync + Send,
    F: Fn(T, Range<usize>) -> T + Sync + Send,
    C: Fn(T, T) -> T + Sync + Send,
{
    if crate::record::active() {
        return crate::record::fold(range, grain, &identity, &fold, &combine);
    }
    crate::pool::global().install(|| {
        // SAFETY: `install` runs this on a worker of the global pool.
        fold_here(unsafe { &*WorkerThread::current() }, range, grain, &identity, &fold, &combine)
    })
}

/// Call `f(i)` for every `i` in `range`, in parallel.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// let sum = AtomicU64::new(0);
/// finegrain::for_each(0..1000, |i| { sum.fetch_add(i as u64, Ordering::Relaxed); });
/// assert_eq!(sum.into_inner(), 499_500);
/// ```
pub fn for_each<F: Fn(usize) + Sync + Send>(range: Range<usize>, f: F) {
    let grain = default_grain(range.len());
    fold_chunks(range, grain, || (), |(), r| r.for_each(&f), |(), ()| ())
}

/// Call `f(subrange)` on disjoint subranges of at most `grain` iterations that
/// together cover `range`.
///
/// ```
/// let v: Vec<u32> = (0..100).collect();
/// let total = std::sync::atomic::AtomicU32::new(0);
/// finegrain::for_each_chunk(0..v.len(), 16, |r| {
///     assert!(r.len() <= 16);
///     total.fetch_add(v[r].iter().sum(), std::sync::atomic::Ordering::Relaxed);
/// });
/// assert_eq!(total.into_inner(), 4950);
/// ```
pub fn for_each_chunk<F: Fn(Range<usize>) + Sync + Send>(range: Range<usize>, grain: usize, f: F) {
    fold_chunks(range, grain, || (), |(), r| f(r), |(), ()| ())
}

/// `combine` over `map(i)` for every `i` in `range`, starting from `identity()`
/// in every task; results are combined in iteration order.
///
/// ```
/// let s = finegrain::reduce(0..1_000_000, || 0u64, |i| i as u64, |a, b| a + b);
/// assert_eq!(s, 499_999_500_000);
/// ```
pub fn reduce<T, ID, M, C>(range: Range<usize>, identity: ID, map: M, combine: C) -> T
where
    T: Send,
    ID: Fn() -> T + Sync + Send,
    M: Fn(usize) -> T + Sync + Send,
    C: Fn(T, T) -> T + Sync + Send,
{
    let grain = default_grain(range.len());
    fold_chunks(range, grain, &identity, |acc, r| r.fold(acc, |a, i| combine(a, map(i))), &combine)
}

/// [`fold_chunks`] for a one-word value ([`Word`]) whose operator `op` is
/// associative **and commutative**, with the method that combines the
/// tasks' partial results chosen by `method` ([`ReduceMethod`]). Every task
/// starts its partial from `identity`, which must be neutral for `op`.
///
/// Under `adm-central` and `adm-hier` (`Auto` or `Piggyback`) the loop runs as
/// a piggybacked phase (Sanchez, Yoo, Kozyrakis, "Flexible Architectural
/// Support for Fine-Grain Scheduling", ASPLOS 2010, section 4.2): a task holds
/// a range and splits it lazily (the upper half becomes a task of the same
/// phase, queued where only a manager-arranged steal can take it), each task
/// folds its chunks into its own partial, and the partials ride up the manager
/// tree on the messages that detect the end of the loop (`adm/tokens.rs`); the
/// caller gets the result from the root manager. No task touches a shared
/// word, and there is no tree of `join`s to unwind. Partials meet in whatever
/// order the messages arrive, hence the commutativity; floating-point sums may
/// differ in the last bits from one run to the next. Under the other
/// policies, and with `ReduceMethod::Tree`, this is [`fold_chunks`]: partials
/// combined in iteration order up the tree of `join`s that split the range.
///
/// ```
/// use finegrain::ReduceMethod;
/// let pool = finegrain::Pool::new(3, "adm-central").unwrap();
/// for m in [ReduceMethod::Auto, ReduceMethod::Tree] {
///     let s = pool.install(|| finegrain::fold_chunks_with(m, 0..10_000, 64, 0u64, |a, r| a + r.map(|i| i as u64).sum::<u64>(), |a, b| a + b));
///     assert_eq!(s, 49_995_000);
/// }
/// ```
pub fn fold_chunks_with<V, F, C>(method: ReduceMethod, range: Range<usize>, grain: usize, identity: V, fold: F, op: C) -> V
where
    V: Word,
    F: Fn(V, Range<usize>) -> V + Sync + Send,
    C: Fn(V, V) -> V + Sync + Send,
{
    let grain = grain.max(1);
    if range.is_empty() {
        return identity;
    }
    let wt = WorkerThread::current();
    if wt.is_null() {
        if crate::record::active() {
            // A recording is the same graph whatever the method: the loop's.
            return fold_chunks(range, grain, || identity, fold, op);
        }
        return crate::pool::global().install(move || fold_chunks_with(method, range, grain, identity, fold, op));
    }
    // SAFETY: non-null current worker is live.
    let wt = unsafe { &*wt };
    if phase_end(wt.registry().policy.mechanism(), Some(method)) != PhaseEnd::Piggyback {
        return fold_here(wt, range, grain, &|| identity, &fold, &op);
    }
    crate::phase::phase_reduce_with(method, [(range.start, range.end)], identity, &op, |ctx, (lo, hi)| lbs_task(ctx, lo..hi, grain, identity, &fold))
}

/// One task of a piggybacked loop: fold `range` chunk by chunk; before each
/// chunk, if mail waits or nothing else is queued here, queue the upper half
/// of what is left as a new task of the loop (lazy binary splitting, as
/// [`lbs`], with a phase task in place of a `join`).
///
/// The test before a chunk is `AdmWorker::wants_task_split` (mail waits, or
/// the private queue is empty), one load each; `wants_split` may scan the
/// frame marks of the enclosing frames, hundreds of instructions per chunk on
/// the deep stack a phase task runs on.
fn lbs_task<V: Word, F: Fn(V, Range<usize>) -> V>(ctx: &PhaseCtx<'_, (usize, usize)>, range: Range<usize>, grain: usize, identity: V, fold: &F) -> V {
    let wt = WorkerThread::current();
    // SAFETY: phase tasks run on workers; a non-null current worker is live.
    let adm = unsafe { wt.as_ref() }.and_then(|w| w.adm());
    let mut acc = identity;
    let (mut lo, mut hi) = (range.start, range.end);
    while lo < hi {
        if hi - lo > grain && adm.map_or_else(queue_empty, |a| a.wants_task_split()) {
            let mid = lo + (hi - lo) / 2;
            ctx.enqueue((mid, hi));
            hi = mid;
            continue;
        }
        let end = lo + grain.min(hi - lo);
        acc = fold(acc, lo..end);
        lo = end;
    }
    acc
}

/// [`reduce`] for one-word values under a commutative operator, with the
/// combining method chosen by `method` (see [`fold_chunks_with`]): under the
/// message policies the partial results are piggybacked on the termination
/// messages (ASPLOS 2010, section 4.2).
///
/// ```
/// let s = finegrain::reduce_with(finegrain::ReduceMethod::Auto, 0..1_000_000, 0u64, |i| i as u64, |a, b| a + b);
/// assert_eq!(s, 499_999_500_000);
/// ```
pub fn reduce_with<V, M, C>(method: ReduceMethod, range: Range<usize>, identity: V, map: M, op: C) -> V
where
    V: Word,
    M: Fn(usize) -> V + Sync + Send,
    C: Fn(V, V) -> V + Sync + Send,
{
    let grain = default_grain(range.len());
    fold_chunks_with(method, range, grain, identity, |acc, r| r.fold(acc, |a, i| op(a, map(i))), &op)
}

/// A box of an N-dimensional index space.
fn volume<const N: usize>(b: &[Range<usize>; N]) -> usize {
    b.iter().map(|r| r.len()).product()
}

fn lbs_nd<const N: usize, F: Fn(&[usize; N]) + Sync>(b: [Range<usize>; N], grain: usize, f: &F) {
    let mut b = b;
    loop {
        let vol = volume(&b);
        if vol == 0 {
            return;
        }
        if vol > grain && queue_empty() {
            // Split the longest dimension, keeping halves compact (good locality).
            let d = (0..N).max_by_key(|&d| b[d].len()).unwrap_or(0);
            if b[d].len() > 1 {
                let mid = b[d].start + b[d].len() / 2;
                let (mut lo, mut hi) = (b.clone(), b.clone());
                lo[d].end = mid;
                hi[d].start = mid;
                join(|| lbs_nd(lo, grain, f), || lbs_nd(hi, grain, f));
                return;
            }
        }
        // Process a slab of the outermost dimension of about `grain` points.
        let inner: usize = b[1..].iter().map(|r| r.len()).product::<usize>().max(1);
        let rows = (grain / inner).clamp(1, b[0].len());
        let mut slab = b.clone();
        slab[0].end = slab[0].start + rows;
        visit(&slab, f);
        b[0].start += rows;
    }
}

fn visit<const N: usize, F: Fn(&[usize; N])>(b: &[Range<usize>; N], f: &F) {
    let mut idx: [usize; N] = std::array::from_fn(|d| b[d].start);
    if volume(b) == 0 {
        return;
    }
    loop {
        f(&idx);
        // Row-major increment: the last dimension varies fastest.
        let mut d = N;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < b[d].end {
                break;
            }
            idx[d] = b[d].start;
        }
    }
}

fn for_each_nd<const N: usize, F: Fn(&[usize; N]) + Sync + Send>(b: [Range<usize>; N], f: F) {
    let grain = default_grain(volume(&b));
    let wt = WorkerThread::current();
    if wt.is_null() {
        return for_each_nd_cold(b, grain, f);
    }
    // SAFETY: non-null current worker is live.
    nd_here(unsafe { &*wt }, b, grain, &f)
}

/// An N-dimensional loop on worker `wt`: split lazily, or under `static`
/// cut along the outermost dimension in leaves of about `grain` points, as a
/// recording counts them.
fn nd_here<const N: usize, F: Fn(&[usize; N]) + Sync>(wt: &WorkerThread, b: [Range<usize>; N], grain: usize, f: &F) {
    let carbon = carbon_loops(wt);
    let fixed = wt.fixed();
    if fixed.is_none() && carbon.is_none() {
        return lbs_nd(b, grain, f);
    }
    if volume(&b) == 0 {
        return;
    }
    let inner: usize = b[1..].iter().map(|r| r.len()).product::<usize>().max(1);
    let rows = (grain / inner).max(1);
    let slab = |(), r: Range<usize>| {
        let mut s = b.clone();
        s[0] = r;
        visit(&s, f)
    };
    match (fixed, carbon) {
        (Some(m), _) => fold_static(wt, m, b[0].clone(), rows, &|| (), &slab, &|(), ()| ()),
        (None, Some((u, c))) => crate::gtu::loops::fold(wt, u, c, b[0].clone(), rows, &|| (), &slab, &|(), ()| ()),
        (None, None) => unreachable!("split lazily above"),
    }
}

/// `for_each_nd` outside any pool: recorded (`record/`), or run in the
/// global pool.
#[cold]
#[inline(never)]
fn for_each_nd_cold<const N: usize, F: Fn(&[usize; N]) + Sync + Send>(b: [Range<usize>; N], grain: usize, f: F) {
    if crate::record::active() {
        // Leaves are slabs of the outermost dimension of about `grain` points.
        let inner: usize = b[1..].iter().map(|r| r.len()).product::<usize>().max(1);
        let rows = (grain / inner).max(1);
        let outer = b[0].clone();
        return crate::record::fold(
            outer,
            rows,
            &|| (),
            &|(), r: Range<usize>| {
                let mut slab = b.clone();
                slab[0] = r;
                visit(&slab, &f)
            },
            &|(), ()| (),
        );
    }
    crate::pool::global().install(|| {
        // SAFETY: `install` runs this on a worker of the global pool.
        nd_here(unsafe { &*WorkerThread::current() }, b, grain, &f)
    })
}

/// Call `f(i, j)` for every point of a 2-D index space, in parallel; the space
/// is split along its longer side so tasks stay compact.
///
/// ```
/// let n = std::sync::atomic::AtomicUsize::new(0);
/// finegrain::for_each_2d([0..30, 0..40], |i, j| { assert!(i < 30 && j < 40); n.fetch_add(1, std::sync::atomic::Ordering::Relaxed); });
/// assert_eq!(n.into_inner(), 1200);
/// ```
pub fn for_each_2d<F: Fn(usize, usize) + Sync + Send>(space: [Range<usize>; 2], f: F) {
    for_each_nd(space, |p: &[usize; 2]| f(p[0], p[1]))
}

/// Call `f(i, j, k)` for every point of a 3-D index space, in parallel.
pub fn for_each_3d<F: Fn(usize, usize, usize) + Sync + Send>(space: [Range<usize>; 3], f: F) {
    for_each_nd(space, |p: &[usize; 3]| f(p[0], p[1], p[2]))
}
