//! [`IndexedParallelIterator`]: parallel iterators that know their length and
//! can be split at any index (slices, vectors, ranges, and `map`, `zip`,
//! `enumerate`, ... of those).

use super::chunks::Chunks;
use super::enumerate::Enumerate;
use super::min_len::{MaxLen, MinLen};
use super::plumbing::{Consumer, ProducerCallback};
use super::rev::Rev;
use super::skip_take::{Skip, Take};
use super::step_by::StepBy;
use super::zip::{Zip, ZipEq};
use super::{IntoParallelIterator, ParallelIterator};

/// A parallel iterator of known length, splittable at an index.
///
/// Implementors write [`len`](Self::len), [`drive`](Self::drive) (usually
/// [`bridge_producer_consumer`](super::bridge::bridge_producer_consumer)
/// over their producer) and [`with_producer`](Self::with_producer).
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
        super::collect::collect_into_vec(self, target)
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
        ZipEq::new(self, other)
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
        Skip::new(self, n)
    }

    /// The first `n` items.
    fn take(self, n: usize) -> Take<Self> {
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

    /// The indices of every item matching `p`, in order.
    fn positions<P: Fn(Self::Item) -> bool + Sync + Send>(self, p: P) -> impl ParallelIterator<Item = usize> {
        self.map(p).enumerate().filter_map(|(i, b)| b.then_some(i))
    }
}
