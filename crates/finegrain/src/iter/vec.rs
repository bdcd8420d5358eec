//! Owned sources: `Vec<T>`, arrays and `Option<T>` by value, and a range of a
//! `Vec` drained (`par_drain`): each item is moved out exactly once, and those
//! never reached (a consumer stopped early, a closure panicked) are dropped in
//! place. And `Option` by reference.

use super::indexed::{bridge_indexed, IndexedParallelIterator};
use super::plumbing::{Consumer, Producer, ProducerCallback, UnindexedConsumer};
use super::slice::{Items, ItemsMut, Par};
use super::par_iter::{IntoParallelIterator, ParallelIterator};
use std::ops::{Bound, RangeBounds};
use std::{mem, ptr, slice};

/// A `Vec`'s items by value.
#[derive(Clone, Debug)]
#[must_use = "iterators are lazy"]
pub struct IntoIter<T> {
    vec: Vec<T>,
}

impl<T: Send> IntoParallelIterator for Vec<T> {
    type Iter = IntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter { vec: self }
    }
}

impl<T: Send, const N: usize> IntoParallelIterator for [T; N] {
    type Iter = IntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter { vec: Vec::from(self) }
    }
}

impl<T: Send> IntoParallelIterator for Option<T> {
    type Iter = IntoIter<T>;
    type Item = T;
    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter { vec: self.into_iter().collect() }
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a Option<T> {
    type Iter = Par<Items<'a, T>>;
    type Item = &'a T;
    fn into_par_iter(self) -> Self::Iter {
        self.as_slice().into_par_iter()
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut Option<T> {
    type Iter = Par<ItemsMut<'a, T>>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> Self::Iter {
        self.as_mut_slice().into_par_iter()
    }
}

impl<T: Send> ParallelIterator for IntoIter<T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.vec.len())
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {
    fn len(&self) -> usize {
        self.vec.len()
    }
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let mut vec = self.vec;
        let len = vec.len();
        // SAFETY: from here the producer owns the `len` items and the vector
        // only its buffer (dropped, empty, after the callback, by which time
        // every producer and iterator made from it has moved out or dropped
        // its items, even when unwinding).
        let items = unsafe {
            vec.set_len(0);
            slice::from_raw_parts_mut(vec.as_mut_ptr(), len)
        };
        callback.callback(Owned { items })
    }
}

/// Owns the items of `items`: moves them out when iterated, drops them
/// otherwise.
struct Owned<'a, T> {
    items: &'a mut [T],
}

impl<T> Drop for Owned<'_, T> {
    fn drop(&mut self) {
        // SAFETY: this producer owns the items still in `items` (split and
        // iterate leave it empty), and nothing reads them after this.
        let items: *mut [T] = mem::take::<&mut [T]>(&mut self.items);
        unsafe { ptr::drop_in_place(items) }
    }
}

impl<'a, T: Send> Producer for Owned<'a, T> {
    type Item = T;
    type IntoIter = DrainIter<'a, T>;
    fn into_iter(mut self) -> DrainIter<'a, T> {
        DrainIter { iter: mem::take(&mut self.items).iter_mut() }
    }
    fn split_at(mut self, index: usize) -> (Self, Self) {
        let (l, r) = mem::take(&mut self.items).split_at_mut(index);
        (Owned { items: l }, Owned { items: r })
    }
}

/// The serial iterator of [`Owned`]: reads each item out once.
struct DrainIter<'a, T> {
    iter: slice::IterMut<'a, T>,
}

impl<T> Drop for DrainIter<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the items not yet yielded are owned here and read by no one
        // else (each yielded one was read exactly once, below).
        let rest: *mut [T] = mem::take::<slice::IterMut<'_, T>>(&mut self.iter).into_slice();
        unsafe { ptr::drop_in_place(rest) }
    }
}

impl<T> Iterator for DrainIter<'_, T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        // SAFETY: each slot is yielded by the slice iterator once, so it is
        // read once; the `Drop` above skips it afterwards.
        self.iter.next().map(|p| unsafe { ptr::read(p) })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl<T> DoubleEndedIterator for DrainIter<'_, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        // SAFETY: as in `next`.
        self.iter.next_back().map(|p| unsafe { ptr::read(p) })
    }
}

impl<T> ExactSizeIterator for DrainIter<'_, T> {}

/// `par_drain(range)`: the items of a range of a collection, moved out in
/// parallel; the collection keeps the rest.
pub trait ParallelDrainRange<Idx = usize> {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// What it yields.
    type Item: Send;
    /// Drain `range` (panics if it is out of bounds).
    fn par_drain<R: RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

impl<'a, T: Send> ParallelDrainRange<usize> for &'a mut Vec<T> {
    type Iter = Drain<'a, T>;
    type Item = T;
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'a, T> {
        let len = self.len();
        let start = match range.start_bound() {
            Bound::Included(&s) => s,
            Bound::Excluded(&s) => s.checked_add(1).expect("par_drain: start overflows"),
            Bound::Unbounded => 0,
        };
        let end = match range.end_bound() {
            Bound::Included(&e) => e.checked_add(1).expect("par_drain: end overflows"),
            Bound::Excluded(&e) => e,
            Bound::Unbounded => len,
        };
        assert!(start <= end && end <= len, "par_drain: range {start}..{end} out of bounds for length {len}");
        Drain { vec: self, start, end, total: len, driven: false }
    }
}

/// `par_drain`'s iterator. Dropped undriven, it drops the range's items;
/// either way the items after the range move down to close the gap.
#[derive(Debug)]
#[must_use = "iterators are lazy"]
pub struct Drain<'a, T> {
    vec: &'a mut Vec<T>,
    start: usize,
    end: usize,
    /// The vector's length before the drain.
    total: usize,
    /// A producer took the range's items.
    driven: bool,
}

impl<T: Send> ParallelIterator for Drain<'_, T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.end - self.start)
    }
}

impl<T: Send> IndexedParallelIterator for Drain<'_, T> {
    fn len(&self) -> usize {
        self.end - self.start
    }
    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<T>>(mut self, callback: CB) -> CB::Output {
        let (start, len) = (self.start, self.end - self.start);
        self.driven = true;
        // SAFETY: `start <= end <= vec.len()`. From here the producer owns
        // the range's items and this `Drain` the tail after it (the vector
        // stops at `start`); `drop` below moves the tail down afterwards,
        // also when the callback unwinds.
        let items = unsafe {
            self.vec.set_len(start);
            slice::from_raw_parts_mut(self.vec.as_mut_ptr().add(start), len)
        };
        callback.callback(Owned { items })
    }
}

impl<T> Drop for Drain<'_, T> {
    fn drop(&mut self) {
        let (start, end, total) = (self.start, self.end, self.total);
        // SAFETY: undriven, the range's items are still the vector's, and are
        // dropped here exactly once (the length is cut first, so a panicking
        // drop leaks the rest rather than dropping anything twice). Driven,
        // the producer owned them and moved or dropped each. The tail
        // `end..total` is initialised and owned here; moving it down to
        // `start` (`ptr::copy` allows the overlap) is the only use of those
        // slots, and the new length covers exactly what is initialised.
        unsafe {
            if !self.driven {
                self.vec.set_len(start);
                let range = ptr::slice_from_raw_parts_mut(self.vec.as_mut_ptr().add(start), end - start);
                ptr::drop_in_place(range);
            }
            let p = self.vec.as_mut_ptr();
            ptr::copy(p.add(end), p.add(start), total - end);
            self.vec.set_len(start + total - end);
        }
    }
}
