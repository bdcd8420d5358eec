//! One parallel program, three ways to run it.
//!
//! Most workloads are measured three times: a serial reference, finegrain under
//! every scheduling policy, and Rayon as the outside yardstick. Writing each
//! kernel three times would let the versions drift apart, so a kernel is
//! written once, generic over [`Par`], and instantiated with one of three
//! zero-sized backends:
//!
//! - [`Serial`]: the "serial elision" of the Cilk papers. A fork becomes two
//!   plain calls and a loop a plain loop over the same chunks, so the
//!   divide-and-conquer workloads (cilksort, matmul, transpose) use it as
//!   their serial reference.
//! - [`Finegrain`]: finegrain's `join` and lazily split loops, in whatever pool
//!   the caller is installed in, so one kernel runs under every policy.
//! - [`Rayon`]: Rayon's `join` and indexed parallel iterators, in Rayon's
//!   current pool.
//!
//! Dispatch is static (every kernel is generic over `P: Par`, and the backends
//! are `Copy` unit structs passed by value), so the serial instance compiles
//! to the plain serial code and pays nothing for scheduling. The three
//! backends see the same kernel with the same grains; only who runs which chunk
//! differs.
//!
//! Footprints for `finegrain record`: the simulator charges a task only for
//! the memory it declares, so every parallel task says what it touches. The
//! chunked-mut operations declare the part they hand out as written
//! (`finegrain::record::write`, one check per chunk, nothing when not
//! recording); kernels declare what else they read or write next to the
//! access, at slice granularity, behind at most one
//! `finegrain::record::active()` check per task or chunk (a loop over
//! gathered elements runs only while recording). [`Par::reduce_reading`]
//! is [`Par::reduce`] with each chunk's reads declared.
//!
//! Loops hand out index ranges. [`Par::for_each_chunk_mut`],
//! [`Par::fold_chunks_mut`] and [`Par::for_each_segment_mut`] turn "this task
//! owns elements 40..48" into a `&mut` of those elements, relying on every
//! backend passing pairwise disjoint ranges.
//!
//! The measured region: [`Par::region`] marks the part of a kernel a paper
//! times (the workloads keep input copies, buffer set-up and result digests
//! outside it), so that a recording charges the parallel phase alone.
//!
//! Programs that need more than forks and 1-D loops (`scope`, `phase`,
//! `Graph`, `for_each_2d`) call finegrain directly; [`fill_2d`] is the one
//! finegrain-only helper kept here, next to the other disjoint-write loops.

use crate::support::shared::SharedMut;
use rayon::prelude::*;
use std::ops::Range;

/// How the forks and chunked loops of a kernel are run.
///
/// Every chunked operation cuts its range into chunks of at most `grain`
/// iterations (a `grain` of 0 counts as 1). Folds give each task its own
/// accumulator, starting from `identity()`, and combine the accumulators in
/// iteration order, so `combine` needs to be associative but not commutative.
pub trait Par: Copy + Send + Sync {
    /// Run `f` as the measured region, the part a paper times: while
    /// `finegrain record` records, the set-up and verification around it are
    /// left out of the trace (`finegrain::record::region`); otherwise a
    /// plain call after one thread-local check, under every backend.
    fn region<R>(self, f: impl FnOnce() -> R) -> R {
        finegrain::record::region(f)
    }

    /// Run `a` and `b`, possibly in parallel.
    fn join<A, B, RA, RB>(self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send;

    /// Fold chunks of `range` into per-task accumulators and combine them in
    /// iteration order.
    fn fold_chunks<T, ID, F, C>(self, range: Range<usize>, grain: usize, identity: ID, fold: F, combine: C) -> T
    where
        T: Send,
        ID: Fn() -> T + Sync + Send,
        F: Fn(T, Range<usize>) -> T + Sync + Send,
        C: Fn(T, T) -> T + Sync + Send;

    /// `f` on pairwise disjoint subranges of `range`, each at most `grain`
    /// long, that together cover it.
    fn for_each_chunk<F>(self, range: Range<usize>, grain: usize, f: F)
    where
        F: Fn(Range<usize>) + Sync + Send,
    {
        self.fold_chunks(range, grain, || (), |(), r| f(r), |(), ()| ())
    }

    /// `combine` over `map(i)` for every `i` in `range`, in iteration order;
    /// the backend picks the grain.
    fn reduce<T, ID, M, C>(self, range: Range<usize>, identity: ID, map: M, combine: C) -> T
    where
        T: Send,
        ID: Fn() -> T + Sync + Send,
        M: Fn(usize) -> T + Sync + Send,
        C: Fn(T, T) -> T + Sync + Send;

    /// [`Par::reduce`] that also calls `reads(chunk)` once per chunk while
    /// recording, to declare what the chunk's `map` calls read. Finegrain
    /// folds chunks of the grain `finegrain::reduce` picks; the others reduce
    /// as in [`Par::reduce`] and declare nothing.
    fn reduce_reading<T, ID, M, C, R>(self, range: Range<usize>, identity: ID, map: M, combine: C, reads: R) -> T
    where
        T: Send,
        ID: Fn() -> T + Sync + Send,
        M: Fn(usize) -> T + Sync + Send,
        C: Fn(T, T) -> T + Sync + Send,
        R: Fn(Range<usize>) + Sync + Send,
    {
        let _ = reads;
        self.reduce(range, identity, map, combine)
    }

    /// `f(first_index, part)` on disjoint parts of `data` of at most `grain`
    /// elements that together cover it.
    fn for_each_chunk_mut<T, F>(self, data: &mut [T], grain: usize, f: F)
    where
        T: Send,
        F: Fn(usize, &mut [T]) + Sync + Send,
    {
        let len = data.len();
        let d = SharedMut::new(data);
        self.for_each_chunk(0..len, grain, |r| {
            let start = r.start;
            // SAFETY: `for_each_chunk` passes pairwise disjoint subranges of 0..len.
            let part = unsafe { d.slice(r) };
            finegrain::record::write(part);
            f(start, part)
        });
    }

    /// Fold disjoint parts of `data` (as in [`Par::for_each_chunk_mut`]) into
    /// per-task accumulators, combined in order: an update fused with a
    /// reduction.
    fn fold_chunks_mut<T, A, ID, F, C>(self, data: &mut [T], grain: usize, identity: ID, fold: F, combine: C) -> A
    where
        T: Send,
        A: Send,
        ID: Fn() -> A + Sync + Send,
        F: Fn(A, usize, &mut [T]) -> A + Sync + Send,
        C: Fn(A, A) -> A + Sync + Send,
    {
        let len = data.len();
        let d = SharedMut::new(data);
        self.fold_chunks(
            0..len,
            grain,
            identity,
            |acc, r| {
                let start = r.start;
                // SAFETY: `fold_chunks` passes pairwise disjoint subranges of 0..len.
                let part = unsafe { d.slice(r) };
                finegrain::record::write(part);
                fold(acc, start, part)
            },
            combine,
        )
    }

    /// [`Par::fold_chunks`] of one-word values whose `combine` is also
    /// commutative, so that the backend may combine the accumulators in any
    /// order. Finegrain then uses `finegrain::fold_chunks_with`, which under
    /// the message policies piggybacks the partial results on the loop's
    /// termination messages (ASPLOS 2010, section 4.2); the others fold in
    /// order.
    fn fold_words<V, F, C>(self, range: Range<usize>, grain: usize, identity: V, fold: F, combine: C) -> V
    where
        V: finegrain::Word,
        F: Fn(V, Range<usize>) -> V + Sync + Send,
        C: Fn(V, V) -> V + Sync + Send,
    {
        self.fold_chunks(range, grain, || identity, fold, combine)
    }

    /// [`Par::reduce_reading`] of one-word values under a commutative
    /// `combine` (see [`Par::fold_words`]), at the grain `finegrain::reduce`
    /// picks.
    fn reduce_words_reading<V, M, C, R>(self, range: Range<usize>, identity: V, map: M, combine: C, reads: R) -> V
    where
        V: finegrain::Word,
        M: Fn(usize) -> V + Sync + Send,
        C: Fn(V, V) -> V + Sync + Send,
        R: Fn(Range<usize>) + Sync + Send,
    {
        // finegrain::reduce's grain (a recording's for a 256-thread pool).
        let threads = if finegrain::record::active() { 256 } else { finegrain::current_num_threads().max(1) };
        let grain = (range.len() / (threads * 64)).clamp(1, 1024);
        let fold = |acc, r: Range<usize>| {
            finegrain::record::declare(|| {
                reads(r.clone());
            });
            r.fold(acc, |a, i| combine(a, map(i)))
        };
        self.fold_words(range, grain, identity, fold, &combine)
    }

    /// [`Par::fold_chunks_mut`] of one-word values under a commutative
    /// `combine` (see [`Par::fold_words`]).
    fn fold_words_mut<T, V, F, C>(self, data: &mut [T], grain: usize, identity: V, fold: F, combine: C) -> V
    where
        T: Send,
        V: finegrain::Word,
        F: Fn(V, usize, &mut [T]) -> V + Sync + Send,
        C: Fn(V, V) -> V + Sync + Send,
    {
        let len = data.len();
        let d = SharedMut::new(data);
        self.fold_words(
            0..len,
            grain,
            identity,
            |acc, r| {
                let start = r.start;
                // SAFETY: `fold_words` passes pairwise disjoint subranges of 0..len.
                let part = unsafe { d.slice(r) };
                finegrain::record::write(part);
                fold(acc, start, part)
            },
            combine,
        )
    }

    /// Like [`Par::for_each_chunk_mut`] for data cut into segments: segment
    /// `s` is `data[offsets[s]..offsets[s + 1]]`. Calls `f(segments, part)`
    /// where `part` spans exactly those segments, at most `grain` segments per
    /// call.
    fn for_each_segment_mut<T, F>(self, data: &mut [T], offsets: &[usize], grain: usize, f: F)
    where
        T: Send,
        F: Fn(Range<usize>, &mut [T]) + Sync + Send,
    {
        assert!(offsets.windows(2).all(|w| w[0] <= w[1]), "segment offsets must be sorted");
        assert_eq!(offsets.last().copied().unwrap_or(0), data.len(), "segments must end at the data's end");
        let d = SharedMut::new(data);
        let segments = offsets.len().saturating_sub(1);
        self.for_each_chunk(0..segments, grain, |r| {
            let span = offsets[r.start]..offsets[r.end];
            // SAFETY: disjoint segment ranges have disjoint spans because the
            // offsets are sorted (asserted above).
            let part = unsafe { d.slice(span) };
            finegrain::record::write(part);
            f(r, part)
        });
    }
}

/// Everything on the calling thread, in order.
#[derive(Copy, Clone, Debug)]
pub struct Serial;

impl Par for Serial {
    #[inline]
    fn join<A, B, RA, RB>(self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        (a(), b())
    }

    fn fold_chunks<T, ID, F, C>(self, range: Range<usize>, grain: usize, identity: ID, fold: F, _: C) -> T
    where
        T: Send,
        ID: Fn() -> T + Sync + Send,
        F: Fn(T, Range<usize>) -> T + Sync + Send,
        C: Fn(T, T) -> T + Sync + Send,
    {
        let grain = grain.max(1);
        let mut acc = identity();
        let mut lo = range.start;
        while lo < range.end {
            let hi = range.end.min(lo + grain);
            acc = fold(acc, lo..hi);
            lo = hi;
        }
        acc
    }

    fn reduce<T, ID, M, C>(self, range: Range<usize>, identity: ID, map: M, combine: C) -> T
    where
        T: Send,
        ID: Fn() -> T + Sync + Send,
        M: Fn(usize) -> T + Sync + Send,
        C: Fn(T, T) -> T + Sync + Send,
    {
        range.fold(identity(), |acc, i| combine(acc, map(i)))
    }
}

/// finegrain's `join` and loops, in whatever pool the caller runs in.
#[derive(Copy, Clone, Debug)]
pub struct Finegrain;

impl Par for Finegrain {
    #[inline]
    fn join<A, B, RA, RB>(self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        finegrain::join(a, b)
    }

    fn fold_chunks<T, ID, F, C>(self, range: Range<usize>, grain: usize, identity: ID, fold: F, combine: C) -> T
    where
        T: Send,
        ID: Fn() -> T + Sync + Send,
        F: Fn(T, Range<usize>) -> T + Sync + Send,
        C: Fn(T, T) -> T + Sync + Send,
    {
        finegrain::fold_chunks(range, grain, identity, fold, combine)
    }

    fn fold_words<V, F, C>(self, range: Range<usize>, grain: usize, identity: V, fold: F, combine: C) -> V
    where
        V: finegrain::Word,
        F: Fn(V, Range<usize>) -> V + Sync + Send,
        C: Fn(V, V) -> V + Sync + Send,
    {
        finegrain::fold_chunks_with(finegrain::ReduceMethod::Auto, range, grain, identity, fold, combine)
    }

    fn for_each_chunk<F>(self, range: Range<usize>, grain: usize, f: F)
    where
        F: Fn(Range<usize>) + Sync + Send,
    {
        finegrain::for_each_chunk(range, grain, f)
    }

    fn reduce<T, ID, M, C>(self, range: Range<usize>, identity: ID, map: M, combine: C) -> T
    where
        T: Send,
        ID: Fn() -> T + Sync + Send,
        M: Fn(usize) -> T + Sync + Send,
        C: Fn(T, T) -> T + Sync + Send,
    {
        finegrain::reduce(range, identity, map, combine)
    }

    fn reduce_reading<T, ID, M, C, R>(self, range: Range<usize>, identity: ID, map: M, combine: C, reads: R) -> T
    where
        T: Send,
        ID: Fn() -> T + Sync + Send,
        M: Fn(usize) -> T + Sync + Send,
        C: Fn(T, T) -> T + Sync + Send,
        R: Fn(Range<usize>) + Sync + Send,
    {
        // finegrain::reduce's grain (a recording's for a 256-thread pool).
        let threads = if finegrain::record::active() { 256 } else { finegrain::current_num_threads().max(1) };
        let grain = (range.len() / (threads * 64)).clamp(1, 1024);
        let fold = |acc, r: Range<usize>| {
            finegrain::record::declare(|| {
                reads(r.clone());
            });
            r.fold(acc, |a, i| combine(a, map(i)))
        };
        finegrain::fold_chunks(range, grain, &identity, fold, &combine)
    }
}

/// Rayon's `join` and indexed parallel iterators, in Rayon's current pool.
#[derive(Copy, Clone, Debug)]
pub struct Rayon;

/// The `k`-th chunk of `range` cut into pieces of `grain`.
fn nth_chunk(range: &Range<usize>, grain: usize, k: usize) -> Range<usize> {
    let lo = range.start + k * grain;
    lo..(lo + grain).min(range.end)
}

impl Par for Rayon {
    #[inline]
    fn join<A, B, RA, RB>(self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        rayon::join(a, b)
    }

    fn fold_chunks<T, ID, F, C>(self, range: Range<usize>, grain: usize, identity: ID, fold: F, combine: C) -> T
    where
        T: Send,
        ID: Fn() -> T + Sync + Send,
        F: Fn(T, Range<usize>) -> T + Sync + Send,
        C: Fn(T, T) -> T + Sync + Send,
    {
        let grain = grain.max(1);
        let chunks = range.len().div_ceil(grain);
        // Rayon splits the chunk indices adaptively and each of its tasks folds
        // its chunks into one accumulator; `reduce` on an indexed iterator
        // combines neighbours, so iteration order is kept.
        (0..chunks).into_par_iter().fold(&identity, |acc, k| fold(acc, nth_chunk(&range, grain, k))).reduce(&identity, &combine)
    }

    fn for_each_chunk<F>(self, range: Range<usize>, grain: usize, f: F)
    where
        F: Fn(Range<usize>) + Sync + Send,
    {
        let grain = grain.max(1);
        let chunks = range.len().div_ceil(grain);
        (0..chunks).into_par_iter().for_each(|k| f(nth_chunk(&range, grain, k)));
    }

    fn reduce<T, ID, M, C>(self, range: Range<usize>, identity: ID, map: M, combine: C) -> T
    where
        T: Send,
        ID: Fn() -> T + Sync + Send,
        M: Fn(usize) -> T + Sync + Send,
        C: Fn(T, T) -> T + Sync + Send,
    {
        range.into_par_iter().map(map).reduce(identity, combine)
    }
}

/// `out[y * width + x] = f(x, y)` for every pixel, in parallel by
/// finegrain's `for_each_2d` (which splits the longer side, keeping tasks
/// compact), where `f(x, y)` reads only rows `y - halo..=y + halo` of `input`
/// (an image of the same width). Finegrain only: the Rayon versions loop over
/// rows instead.
///
/// While recording, `for_each_2d`'s leaves are slabs of whole rows, so each
/// row declares, as it starts, the row it writes and the input rows it reads.
pub fn fill_2d<T, U, F>(out: &mut [T], width: usize, input: &[U], halo: usize, f: F)
where
    T: Send,
    U: Sync,
    F: Fn(usize, usize) -> T + Sync + Send,
{
    assert!(width > 0 && out.len().is_multiple_of(width), "{} elements do not form rows of {width}", out.len());
    let height = out.len() / width;
    let d = SharedMut::new(out);
    if finegrain::record::active() {
        finegrain::for_each_2d([0..height, 0..width], |y, x| {
            if x == 0 {
                d.declare_write(y * width..(y + 1) * width);
                let rows = y.saturating_sub(halo)..(y + halo + 1).min(height);
                finegrain::record::read(&input[rows.start * width..rows.end * width]);
            }
            // SAFETY: as below.
            unsafe { d.write(y * width + x, f(x, y)) };
        });
        return;
    }
    finegrain::for_each_2d([0..height, 0..width], |y, x| {
        // SAFETY: for_each_2d visits every point once, so no element is
        // written twice.
        unsafe { d.write(y * width + x, f(x, y)) };
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn concat<P: Par>(p: P) -> Vec<usize> {
        p.fold_chunks(
            3..1000,
            7,
            Vec::new,
            |mut v, r| {
                assert!(r.len() <= 7);
                v.extend(r);
                v
            },
            |mut a, b| {
                a.extend(b);
                a
            },
        )
    }

    /// Every operation of `p`: parts cover every element once, folds and
    /// reductions keep iteration order.
    fn check_backend<P: Par>(p: P) {
        assert_eq!(concat(p), (3..1000).collect::<Vec<_>>());
        let (a, b) = p.join(|| 1, || 2);
        assert_eq!((a, b), (1, 2));
        let mut v = vec![0u32; 1000];
        p.for_each_chunk_mut(&mut v, 7, |start, part| {
            assert!(part.len() <= 7);
            for (k, x) in part.iter_mut().enumerate() {
                *x += (start + k) as u32;
            }
        });
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32));
        let offsets = [0, 3, 3, 10, 12];
        let mut w = vec![usize::MAX; 12];
        p.for_each_segment_mut(&mut w, &offsets, 1, |segs, part| part.fill(segs.start));
        assert_eq!(w, [0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 3, 3]);
        let s = p.fold_chunks(0..1000, 13, || 0u64, |a, r| a + r.map(|i| i as u64).sum::<u64>(), |a, b| a + b);
        assert_eq!(s, 499_500);
        let mut u: Vec<u64> = (0..1000).collect();
        let s = p.fold_chunks_mut(
            &mut u,
            13,
            || 0u64,
            |a, start, part| {
                assert!(part.len() <= 13 && part[0] == start as u64);
                part.iter_mut().fold(a, |a, x| {
                    *x *= 2;
                    a + *x
                })
            },
            |a, b| a + b,
        );
        assert_eq!(s, 999_000);
        assert!(u.iter().enumerate().all(|(i, &x)| x == 2 * i as u64));
        // Order-sensitive combine: concatenation must come back in order.
        let v = p.reduce(
            0..100,
            Vec::new,
            |i| vec![i],
            |mut a, b| {
                a.extend(b);
                a
            },
        );
        assert_eq!(v, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn serial_backend() {
        check_backend(Serial);
    }

    #[test]
    fn finegrain_backend() {
        finegrain::Pool::new(3, "ws").unwrap().install(|| check_backend(Finegrain));
    }

    #[test]
    fn rayon_backend() {
        check_backend(Rayon);
    }

    #[test]
    fn fill_2d_visits_every_pixel_once() {
        let mut img = vec![(usize::MAX, usize::MAX); 7 * 5];
        finegrain::Pool::new(2, "ws").unwrap().install(|| fill_2d(&mut img, 7, &[0u8; 35], 0, |x, y| (x, y)));
        assert!(img.iter().enumerate().all(|(i, &p)| p == (i % 7, i / 7)));
    }
}
