//! [`IndexedParallelIterator`]: parallel iterators that know their length and
//! can be split at any index (slices, vectors, ranges, and `map`, `zip`,
//! `enumerate`, ... of those).

use super::adapters::{Blocks, Chunks, Enumerate, FoldChunks, Interleave, Intersperse, MaxLen, MinLen, Rev, Skip, StepBy, Take, Zip, ZipEq};
use super::bridge::bridge_producer_consumer;
use super::collect::collect_exact;
use super::par_iter::{IntoParallelIterator, ParallelIterator};
use super::plumbing::{Consumer, Producer, ProducerCallback};

/// A parallel iterator of known length, splittable at an index.
///
/// Implementors write [`len`](Self::len), [`drive`](Self::drive) (usually
/// [`bridge_producer_consumer`](super::bridge::bridge_producer_consumer)
/// over their producer) and [`with_producer`](Self::with_producer).
// Rayon's trait has `len` without `is_empty`; a method of that name would
// also shadow nothing useful here (`len() == 0` says it).
#[allow(clippy::len_without_is_empty)]
pub trait IndexedParallelIterator: ParallelIterator {
    /// The number of items.
    fn len(&self) -> usize;

    /// Feed every item to an indexed `consumer`.
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result;

    /// Hand this iterator's producer to `callback`.
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output;

    /// Collect into `target`, replacing its contents, writing each item in
    /// place (no intermediate buffers).
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        target.clear();
        let len = self.len();
        collect_exact(target, len, |c| self.drive(c));
    }

    /// Split pairs into `left` and `right`, replacing their contents.
    fn unzip_into_vecs<A: Send, B: Send>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
    {
        (*left, *right) = self.unzip();
    }

    /// Pairs of this iterator's and `other`'s items, as long as the shorter.
    fn zip<Z: IntoParallelIterator>(self, other: Z) -> Zip<Self, Z::Iter>
    where
        Z::Iter: IndexedParallelIterator,
    {
        Zip::new(self, other.into_par_iter())
    }

    /// `zip`, panicking unless both have the same length.
    fn zip_eq<Z: IntoParallelIterator>(self, other: Z) -> ZipEq<Self, Z::Iter>
    where
        Z::Iter: IndexedParallelIterator,
    {
        let other = other.into_par_iter();
        assert_eq!(self.len(), other.len(), "zip_eq: lengths differ");
        ZipEq::new(Zip::new(self, other))
    }

    /// This iterator's and `other`'s items in turn, then the longer one's rest.
    fn interleave<I>(self, other: I) -> Interleave<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
    {
        Interleave::new(self, other.into_par_iter())
    }

    /// This iterator's and `other`'s items in turn, until one runs out.
    fn interleave_shortest<I>(self, other: I) -> Interleave<Take<Self>, Take<I::Iter>>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
    {
        let other = other.into_par_iter();
        let (n, m) = (self.len(), other.len());
        // `a` goes first: it gets one more item than `b` when it is longer.
        let (na, nb) = if n > m { (m + 1, m) } else { (n, n) };
        Interleave::new(Take::new(self, na), Take::new(other, nb))
    }

    /// A clone of `sep` between every two items.
    fn intersperse(self, sep: Self::Item) -> Intersperse<Self, Self::Item>
    where
        Self::Item: Clone + Sync,
    {
        Intersperse::new(self, sep)
    }

    /// Pairs of index and item.
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// The items in reverse order.
    fn rev(self) -> Rev<Self> {
        Rev::new(self)
    }

    /// All but the first `n` items.
    fn skip(self, n: usize) -> Skip<Self> {
        let n = n.min(self.len());
        Skip::new(self, n)
    }

    /// The first `n` items.
    fn take(self, n: usize) -> Take<Self> {
        let n = n.min(self.len());
        Take::new(self, n)
    }

    /// Every `step`-th item, starting with the first.
    fn step_by(self, step: usize) -> StepBy<Self> {
        assert!(step != 0, "step_by: step must not be zero");
        StepBy::new(self, step)
    }

    /// The items in `Vec`s of `size` (the last may be shorter).
    fn chunks(self, size: usize) -> Chunks<Self> {
        assert!(size != 0, "chunks: size must not be zero");
        Chunks::new(self, size)
    }

    /// Each run of `size` items (the last may be shorter) folded from
    /// `identity()` into one value.
    fn fold_chunks<T, ID, F>(self, size: usize, identity: ID, fold_op: F) -> FoldChunks<Self, ID, F>
    where
        T: Send,
        ID: Fn() -> T + Sync + Send,
        F: Fn(T, Self::Item) -> T + Sync + Send,
    {
        assert!(size != 0, "fold_chunks: size must not be zero");
        FoldChunks::new(self, size, identity, fold_op)
    }

    /// `fold_chunks` starting each run from a clone of `init`.
    fn fold_chunks_with<T, F>(self, size: usize, init: T, fold_op: F) -> FoldChunks<Self, impl Fn() -> T + Sync + Send, F>
    where
        T: Send + Clone + Sync,
        F: Fn(T, Self::Item) -> T + Sync + Send,
    {
        self.fold_chunks(size, move || init.clone(), fold_op)
    }

    /// Run as blocks one after another, each in parallel, of sizes growing
    /// from the thread count by doubling: a search that has its answer skips
    /// the later blocks.
    fn by_exponential_blocks(self) -> Blocks<Self> {
        Blocks::new(self, 0)
    }

    /// Run as blocks of `size` one after another, each in parallel.
    fn by_uniform_blocks(self, size: usize) -> Blocks<Self> {
        assert!(size != 0, "by_uniform_blocks: size must not be zero");
        Blocks::new(self, size)
    }

    /// Never split into pieces shorter than `min` (for costly splits).
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        MinLen::new(self, min)
    }

    /// Always split pieces longer than `max` (for costly items).
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        MaxLen::new(self, max)
    }

    /// The index of some item matching `p`; stops early.
    fn position_any<P: Fn(Self::Item) -> bool + Sync + Send>(self, p: P) -> Option<usize> {
        self.map(p).enumerate().find_any(|&(_, b)| b).map(|(i, _)| i)
    }

    /// The index of the first item matching `p`.
    fn position_first<P: Fn(Self::Item) -> bool + Sync + Send>(self, p: P) -> Option<usize> {
        self.map(p).enumerate().find_first(|&(_, b)| b).map(|(i, _)| i)
    }

    /// The index of the last item matching `p`.
    fn position_last<P: Fn(Self::Item) -> bool + Sync + Send>(self, p: P) -> Option<usize> {
        self.map(p).enumerate().find_last(|&(_, b)| b).map(|(i, _)| i)
    }

    /// Compare lexicographically with `other` (the first unequal pair
    /// decides, else the lengths).
    fn cmp<I>(self, other: I) -> std::cmp::Ordering
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
        Self::Item: Ord,
    {
        let other = other.into_par_iter();
        let (n, m) = (self.len(), other.len());
        let first = self.zip(other).map(|(a, b)| a.cmp(&b)).find_first(|o| o.is_ne());
        first.unwrap_or_else(|| n.cmp(&m))
    }

    /// Compare lexicographically with `other`, by `PartialOrd`.
    fn partial_cmp<I>(self, other: I) -> Option<std::cmp::Ordering>
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        let (n, m) = (self.len(), other.len());
        let first = self.zip(other).map(|(a, b)| a.partial_cmp(&b)).find_first(|o| *o != Some(std::cmp::Ordering::Equal));
        first.unwrap_or_else(|| Some(n.cmp(&m)))
    }

    /// Equal lengths and equal items, pair by pair.
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.len() == other.len() && self.zip(other).all(|(a, b)| a == b)
    }

    /// Not [`eq`](Self::eq).
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        !self.eq(other)
    }

    /// Lexicographically less than `other`.
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(std::cmp::Ordering::Less)
    }

    /// Lexicographically less than or equal to `other`.
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(self.partial_cmp(other), Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal))
    }

    /// Lexicographically greater than `other`.
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(std::cmp::Ordering::Greater)
    }

    /// Lexicographically greater than or equal to `other`.
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(self.partial_cmp(other), Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal))
    }

    /// The indices of every item matching `p`, in order.
    fn positions<P: Fn(Self::Item) -> bool + Sync + Send>(self, p: P) -> impl ParallelIterator<Item = usize> {
        self.map(p).enumerate().filter_map(|(i, b)| b.then_some(i))
    }
}

/// Drive an indexed iterator through its producer.
pub(super) fn bridge_indexed<I: IndexedParallelIterator, C: Consumer<I::Item>>(iter: I, consumer: C) -> C::Result {
    struct Cb<C> {
        consumer: C,
        len: usize,
    }
    impl<T, C: Consumer<T>> ProducerCallback<T> for Cb<C> {
        type Output = C::Result;
        fn callback<P: Producer<Item = T>>(self, p: P) -> C::Result {
            bridge_producer_consumer(self.len, p, self.consumer)
        }
    }
    let len = iter.len();
    iter.with_producer(Cb { consumer, len })
}

/// Implements `ParallelIterator` for an indexed adapter by bridging its producer.
macro_rules! indexed_par_iter {
    (impl<$($g:ident),*> for $t:ty where $base:ident; item = $item:ty) => {
        impl<$($g),*> $crate::iter::par_iter::ParallelIterator for $t
        where
            $base: $crate::iter::indexed::IndexedParallelIterator,
        {
            type Item = $item;
            fn drive_unindexed<C: $crate::iter::plumbing::UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
                $crate::iter::indexed::bridge_indexed(self, consumer)
            }
            fn opt_len(&self) -> Option<usize> {
                Some($crate::iter::indexed::IndexedParallelIterator::len(self))
            }
        }
    };
}
pub(super) use indexed_par_iter;
