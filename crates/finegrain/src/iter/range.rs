//! Ranges of every integer type, half-open and inclusive, as indexed parallel
//! iterators: a range is a start and a length, split by index.
//!
//! All of them are indexed (Rayon's 64- and 128-bit ranges are only
//! unindexed); a range longer than `usize::MAX` panics when iterated.

use super::indexed::{bridge_indexed, IndexedParallelIterator};
use super::plumbing::{Consumer, Producer, ProducerCallback, UnindexedConsumer};
use super::par_iter::{IntoParallelIterator, ParallelIterator};
use std::ops::{Range, RangeInclusive};

/// An integer type that ranges can be made of.
pub trait RangeInt: Copy + Send + Sync + Ord + 'static {
    /// The number of values in `lo..hi` (`hi >= lo`); panics if it exceeds
    /// `usize::MAX`.
    fn distance(lo: Self, hi: Self) -> usize;
    /// `self + n`, for `n` within a range's length.
    fn offset(self, n: usize) -> Self;
}

macro_rules! range_int {
    ($($t:ty => $u:ty),*) => {$(
        impl RangeInt for $t {
            #[inline]
            fn distance(lo: Self, hi: Self) -> usize {
                let d = hi.wrapping_sub(lo) as $u;
                usize::try_from(d).expect("parallel range longer than usize::MAX")
            }
            #[inline]
            fn offset(self, n: usize) -> Self {
                self.wrapping_add(n as $t)
            }
        }

        impl IntoParallelIterator for Range<$t> {
            type Iter = Iter<$t>;
            type Item = $t;
            fn into_par_iter(self) -> Iter<$t> {
                let len = if self.start < self.end { <$t>::distance(self.start, self.end) } else { 0 };
                Iter { start: self.start, len }
            }
        }

        impl IntoParallelIterator for RangeInclusive<$t> {
            type Iter = Iter<$t>;
            type Item = $t;
            fn into_par_iter(self) -> Iter<$t> {
                let (lo, hi) = (*self.start(), *self.end());
                let len = if self.is_empty() {
                    0
                } else {
                    <$t>::distance(lo, hi).checked_add(1).expect("parallel range longer than usize::MAX")
                };
                Iter { start: lo, len }
            }
        }
    )*};
}

range_int!(u8 => u8, u16 => u16, u32 => u32, u64 => u64, u128 => u128, usize => usize,
           i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128, isize => usize);

/// A parallel range: `len` values from `start`.
#[derive(Clone, Debug)]
#[must_use = "iterators are lazy"]
pub struct Iter<T> {
    start: T,
    len: usize,
}

impl<T: RangeInt> ParallelIterator for Iter<T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len)
    }
}

impl<T: RangeInt> IndexedParallelIterator for Iter<T> {
    fn len(&self) -> usize {
        self.len
    }
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(RangeIter { start: self.start, inner: 0..self.len })
    }
}

/// The serial iterator and producer of a range: `start + i` for `i` in `inner`.
#[derive(Clone, Debug)]
pub struct RangeIter<T> {
    start: T,
    inner: Range<usize>,
}

impl<T: RangeInt> Producer for RangeIter<T> {
    type Item = T;
    type IntoIter = Self;
    fn into_iter(self) -> Self {
        self
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let mid = self.inner.start + index;
        (RangeIter { start: self.start, inner: self.inner.start..mid }, RangeIter { start: self.start, inner: mid..self.inner.end })
    }
}

impl<T: RangeInt> Iterator for RangeIter<T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        self.inner.next().map(|i| self.start.offset(i))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
    #[inline]
    fn fold<B, F: FnMut(B, T) -> B>(self, init: B, mut f: F) -> B {
        let s = self.start;
        self.inner.fold(init, move |acc, i| f(acc, s.offset(i)))
    }
}

impl<T: RangeInt> DoubleEndedIterator for RangeIter<T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        self.inner.next_back().map(|i| self.start.offset(i))
    }
}

impl<T: RangeInt> ExactSizeIterator for RangeIter<T> {}
