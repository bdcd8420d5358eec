//! Disjoint writes into one slice from many tasks.
//!
//! Loop bodies (`for_each_chunk`, `for_each`) receive index ranges, not
//! sub-slices, and some kernels write strided or scattered positions that no
//! `split_at_mut` can carve out (a transpose writes columns; a counting-sort
//! scatter writes positions claimed with an atomic cursor). They go through this
//! wrapper, whose every write is `unsafe`: the caller promises that no two tasks
//! touch the same index and that nobody reads the slice until the writers finish.
//!
//! The `_mut` loops of [`crate::par::Par`] and [`crate::par::fill_2d`] are built
//! on it too: there the contract is kept once, by the layer, for every caller.

use std::marker::PhantomData;
use std::ops::Range;

pub struct SharedMut<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: the wrapper only hands out access through `unsafe` methods whose
// contract (disjoint indices) makes concurrent use from several threads sound.
unsafe impl<T: Send> Send for SharedMut<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for SharedMut<'_, T> {}

impl<'a, T> SharedMut<'a, T> {
    pub fn new(slice: &'a mut [T]) -> Self {
        SharedMut { ptr: slice.as_mut_ptr(), len: slice.len(), _borrow: PhantomData }
    }

    /// Store `value` at `i`.
    ///
    /// # Safety
    /// No other task reads or writes index `i` while the wrapper is shared.
    #[inline]
    pub unsafe fn write(&self, i: usize, value: T) {
        assert!(i < self.len, "index {i} out of bounds ({})", self.len);
        // SAFETY: in bounds (checked above); exclusive by the caller's contract.
        unsafe { *self.ptr.add(i) = value };
    }

    /// Declare `range` written, for `finegrain record` (no-op unless
    /// recording).
    #[inline]
    pub fn declare_write(&self, range: Range<usize>) {
        if finegrain::record::active() {
            assert!(range.start <= range.end && range.end <= self.len, "range {range:?} out of bounds ({})", self.len);
            let bytes = range.len() * std::mem::size_of::<T>();
            finegrain::record::touch(self.ptr.wrapping_add(range.start) as usize, bytes, true);
        }
    }

    /// A mutable view of `range`.
    ///
    /// # Safety
    /// No other task touches any index of `range` while the view is alive.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice(&self, range: Range<usize>) -> &'a mut [T] {
        assert!(range.start <= range.end && range.end <= self.len, "range {range:?} out of bounds ({})", self.len);
        // SAFETY: in bounds (checked above); exclusive by the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.len()) }
    }
}
