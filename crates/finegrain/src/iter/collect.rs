//! Collecting: `collect_into_vec` and `Vec`'s `par_extend` when the length is
//! known (each item written straight into its slot of the vector's spare
//! capacity, by whichever task produces it), and a list of per-task vectors
//! otherwise; `unzip` and `partition`.

use super::bridge::in_worker;
use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use super::par_iter::{IntoParallelIterator, ParallelExtend, ParallelIterator};
use std::marker::PhantomData;
use std::mem::{self, MaybeUninit};
use std::ptr;

/// Append exactly `len` items to `vec`, written in place by `drive`.
pub(super) fn collect_exact<T: Send>(vec: &mut Vec<T>, len: usize, drive: impl FnOnce(CollectConsumer<'_, T>) -> CollectResult<'_, T> + Send) {
    vec.reserve(len);
    let old = vec.len();
    let spare = &mut vec.spare_capacity_mut()[..len];
    let r = in_worker(move || drive(CollectConsumer { target: spare }));
    let written = r.init;
    if written != len {
        drop(r);
        panic!("collect: expected {len} items, got {written}");
    }
    // The vector takes ownership of the items.
    mem::forget(r);
    // SAFETY: the drive wrote all `len` slots after `old` (its result covers
    // them all, `init == len`, and was forgotten, so they are not dropped),
    // and capacity was reserved for them.
    unsafe { vec.set_len(old + len) };
}

/// Writes items into a slice of uninitialised slots.
pub(super) struct CollectConsumer<'c, T> {
    target: &'c mut [MaybeUninit<T>],
}

impl<'c, T: Send> Consumer<T> for CollectConsumer<'c, T> {
    type Folder = CollectResult<'c, T>;
    type Reducer = CollectReducer;
    type Result = CollectResult<'c, T>;
    fn split_at(self, index: usize) -> (Self, Self, CollectReducer) {
        let (l, r) = self.target.split_at_mut(index);
        (CollectConsumer { target: l }, CollectConsumer { target: r }, CollectReducer)
    }
    fn into_folder(self) -> CollectResult<'c, T> {
        CollectResult { start: self.target.as_mut_ptr().cast(), total: self.target.len(), init: 0, marker: PhantomData }
    }
    fn full(&self) -> bool {
        false
    }
}

impl<T: Send> UnindexedConsumer<T> for CollectConsumer<'_, T> {
    fn split_off_left(&self) -> Self {
        unreachable!("collect: a known length was reported by an unindexed iterator")
    }
    fn to_reducer(&self) -> CollectReducer {
        CollectReducer
    }
}

/// The items written so far into `total` slots from `start`: the first
/// `init` are initialised, and are dropped with this unless it is forgotten
/// (so a panic anywhere leaks nothing and drops nothing twice).
pub(super) struct CollectResult<'c, T> {
    start: *mut T,
    total: usize,
    init: usize,
    marker: PhantomData<&'c mut [T]>,
}

// SAFETY: it owns the `T`s it has written (like a `Vec<T>` would), and holds
// the only pointer into its slots.
unsafe impl<T: Send> Send for CollectResult<'_, T> {}

impl<T> Drop for CollectResult<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the first `init` slots were written by `consume` and are
        // owned by this result alone.
        unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(self.start, self.init)) }
    }
}

impl<T> Folder<T> for CollectResult<'_, T> {
    type Result = Self;
    fn consume(mut self, item: T) -> Self {
        assert!(self.init < self.total, "collect: more items than the reported length");
        // SAFETY: `init < total`, so the slot is within this result's slice,
        // and not yet written.
        unsafe { self.start.add(self.init).write(item) };
        self.init += 1;
        self
    }
    fn complete(self) -> Self {
        self
    }
    fn full(&self) -> bool {
        false
    }
}

/// Joins adjacent results; a gap (a left side that wrote fewer items than
/// its slots) makes the total fall short, which `collect_exact` reports.
pub(super) struct CollectReducer;

impl<'c, T> Reducer<CollectResult<'c, T>> for CollectReducer {
    fn reduce(self, mut left: CollectResult<'c, T>, right: CollectResult<'c, T>) -> CollectResult<'c, T> {
        // SAFETY: only the address is computed; `init <= total`, so it is in
        // (or one past) left's slice.
        if unsafe { left.start.add(left.init) } == right.start {
            left.total += right.total;
            left.init += right.init;
            mem::forget(right);
        }
        left
    }
}

impl<T: Send> ParallelExtend<T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        let iter = par_iter.into_par_iter();
        match iter.opt_len() {
            Some(len) => collect_exact(self, len, |c| iter.drive_unindexed(c)),
            None => {
                let list = iter.collect_vec_list();
                self.reserve(list.iter().map(Vec::len).sum());
                for mut v in list {
                    self.append(&mut v);
                }
            }
        }
    }
}

impl<'a, T: Copy + Send + Sync + 'a> ParallelExtend<&'a T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = &'a T>>(&mut self, par_iter: I) {
        self.par_extend(par_iter.into_par_iter().copied())
    }
}
