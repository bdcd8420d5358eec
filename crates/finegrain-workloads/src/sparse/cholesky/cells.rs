//! Values that tasks of a dependence graph write and later tasks read.
//!
//! Unlike [`crate::support::shared::SharedMut`], whose writers never read
//! each other's output, a Cholesky column or a solve's unknowns are read by
//! the tasks that run after their writer: the graph orders them (its
//! completion release and start acquire), so a reader never overlaps the
//! writer of what it reads.

use std::marker::PhantomData;
use std::ops::Range;

pub struct Cells<'a> {
    ptr: *mut f64,
    len: usize,
    _borrow: PhantomData<&'a mut [f64]>,
}

// SAFETY: access goes through `unsafe` methods whose contract (one writer per
// index, readers only after it finished) makes use from many threads sound.
unsafe impl Send for Cells<'_> {}
// SAFETY: as above.
unsafe impl Sync for Cells<'_> {}

impl<'a> Cells<'a> {
    pub fn new(slice: &'a mut [f64]) -> Self {
        Cells { ptr: slice.as_mut_ptr(), len: slice.len(), _borrow: PhantomData }
    }

    /// The values in `range`, for writing.
    ///
    /// # Safety
    /// No other task touches `range` while the view is alive.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice_mut(&self, range: Range<usize>) -> &'a mut [f64] {
        assert!(range.start <= range.end && range.end <= self.len, "range {range:?} out of bounds ({})", self.len);
        // SAFETY: in bounds (checked above); exclusive by the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.len()) }
    }

    /// The values in `range`, for reading.
    ///
    /// # Safety
    /// Their writers have finished, and nobody writes them while the view is alive.
    #[inline]
    pub unsafe fn slice(&self, range: Range<usize>) -> &'a [f64] {
        assert!(range.start <= range.end && range.end <= self.len, "range {range:?} out of bounds ({})", self.len);
        // SAFETY: in bounds (checked above); no writer by the caller's contract.
        unsafe { std::slice::from_raw_parts(self.ptr.add(range.start), range.len()) }
    }

    /// The value at `i`.
    ///
    /// # Safety
    /// As for [`Cells::slice`].
    #[inline]
    pub unsafe fn get(&self, i: usize) -> f64 {
        assert!(i < self.len, "index {i} out of bounds ({})", self.len);
        // SAFETY: in bounds; no writer by the caller's contract.
        unsafe { *self.ptr.add(i) }
    }

    /// Store `v` at `i`.
    ///
    /// # Safety
    /// No other task reads or writes `i` meanwhile.
    #[inline]
    pub unsafe fn set(&self, i: usize, v: f64) {
        assert!(i < self.len, "index {i} out of bounds ({})", self.len);
        // SAFETY: in bounds; exclusive by the caller's contract.
        unsafe { *self.ptr.add(i) = v };
    }
}
