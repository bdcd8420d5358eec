//! Owned sources: `Vec<T>`, arrays and `Option<T>` by value (each item moved
//! out exactly once; those never reached, because a consumer stopped early or
//! a closure panicked, are dropped in place), and `Option` by reference.

use super::indexed::bridge_indexed;
use super::plumbing::{Consumer, Producer, ProducerCallback, UnindexedConsumer};
use super::slice::{Items, ItemsMut, Par};
use super::indexed::IndexedParallelIterator;
use super::par_iter::{IntoParallelIterator, ParallelIterator};
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
        callback.callback(Drain { items })
    }
}

/// Owns the items of `items`: moves them out when iterated, drops them
/// otherwise.
struct Drain<'a, T> {
    items: &'a mut [T],
}

impl<T> Drop for Drain<'_, T> {
    fn drop(&mut self) {
        // SAFETY: this producer owns the items still in `items` (split and
        // iterate leave it empty), and nothing reads them after this.
        let items: *mut [T] = mem::take::<&mut [T]>(&mut self.items);
        unsafe { ptr::drop_in_place(items) }
    }
}

impl<'a, T: Send> Producer for Drain<'a, T> {
    type Item = T;
    type IntoIter = DrainIter<'a, T>;
    fn into_iter(mut self) -> DrainIter<'a, T> {
        DrainIter { iter: mem::take(&mut self.items).iter_mut() }
    }
    fn split_at(mut self, index: usize) -> (Self, Self) {
        let (l, r) = mem::take(&mut self.items).split_at_mut(index);
        (Drain { items: l }, Drain { items: r })
    }
}

/// The serial iterator of [`Drain`]: reads each item out once.
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
