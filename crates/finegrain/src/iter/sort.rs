//! The stable parallel sort (`par_sort`, `par_sort_by`, `par_sort_by_key`,
//! `par_sort_by_cached_key`): a merge sort whose leaves are the standard
//! library's stable sort and whose merges are themselves parallel.
//!
//! The halves are sorted with [`join`](crate::join) down to leaves of about
//! `len / (8 * threads)` items (at least 4096); results alternate between the
//! slice and one buffer of the same length level by level, so each level
//! moves every item once. A merge splits at the middle item of its longer
//! input and a binary search in the other (the classic parallel merge, as in
//! Rayon's `par_mergesort`), down to pieces of about `len / (16 * threads)`.
//!
//! Panics in the comparison: the slice always ends up holding each item
//! exactly once. Items are only ever copied bitwise between the slice and the
//! buffer (which never drops anything); a merge into the slice copies what is
//! left of its inputs into its output range when it unwinds, as the standard
//! library's merge does.

use super::bridge::in_worker;
use super::sort_unstable::ord;
use std::mem::{self, MaybeUninit};
use std::ptr;

const MIN_LEAF: usize = 4096;
const MIN_MERGE: usize = 8192;

/// A pointer that may cross to another worker: every use below is to a range
/// no other task touches at the same time.
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);

// SAFETY: it stands for exclusive access to a range of `T`s (see each use),
// which may move to another thread when `T: Send`.
unsafe impl<T: Send> Send for SendPtr<T> {}
// SAFETY: as above; shared `SendPtr`s are only copied, never used to reach the
// same range from two tasks.
unsafe impl<T: Send> Sync for SendPtr<T> {}

pub(super) fn merge_sort<T: Send, F: Fn(&T, &T) -> bool + Sync>(v: &mut [T], is_less: &F) {
    let len = v.len();
    if len <= 2 * MIN_LEAF || mem::size_of::<T>() == 0 {
        v.sort_by(|a, b| ord(is_less, a, b));
        return;
    }
    in_worker(|| {
        let threads = crate::pool::current_num_threads().max(1);
        let leaf = (len / (8 * threads)).max(MIN_LEAF);
        let grain = (len / (16 * threads)).max(MIN_MERGE);
        let mut buf: Vec<MaybeUninit<T>> = Vec::with_capacity(len);
        // SAFETY: `MaybeUninit` needs no initialisation; the buffer never
        // drops its contents.
        unsafe { buf.set_len(len) };
        let s = Sorter { is_less, leaf, grain };
        s.sort(v, &mut buf, false);
    })
}

struct Sorter<'f, F> {
    is_less: &'f F,
    leaf: usize,
    grain: usize,
}

impl<F> Sorter<'_, F> {
    /// Sort `v`'s items; the result is left in `buf` if `into_buf`, else in
    /// `v`. Either way `v` holds each item once when this returns or unwinds.
    fn sort<T: Send>(&self, v: &mut [T], buf: &mut [MaybeUninit<T>], into_buf: bool)
    where
        F: Fn(&T, &T) -> bool + Sync,
    {
        let len = v.len();
        if len <= self.leaf {
            v.sort_by(|a, b| ord(self.is_less, a, b));
            if into_buf {
                // SAFETY: same length, distinct allocations; a bitwise copy
                // the buffer will not drop.
                unsafe { ptr::copy_nonoverlapping(v.as_ptr(), buf.as_mut_ptr().cast::<T>(), len) };
            }
            return;
        }
        let mid = len / 2;
        {
            let (vl, vr) = v.split_at_mut(mid);
            let (bl, br) = buf.split_at_mut(mid);
            crate::join(|| self.sort(vl, bl, !into_buf), || self.sort(vr, br, !into_buf));
        }
        let (src, dest) = if into_buf {
            (v.as_mut_ptr(), buf.as_mut_ptr().cast::<T>())
        } else {
            (buf.as_mut_ptr().cast::<T>(), v.as_mut_ptr())
        };
        // SAFETY: the halves of `src` hold the sorted halves (the children
        // left them there), `dest` has room for `len` items and does not
        // overlap `src`, and this task alone uses both ranges now.
        unsafe { self.merge(SendPtr(src), mid, SendPtr(src.add(mid)), len - mid, SendPtr(dest)) };
    }

    /// Merge `a[..na]` and `b[..nb]` (each sorted) into `d[..na + nb]`,
    /// stably (`a`'s items first among equals).
    ///
    /// # Safety
    /// The three ranges are valid, disjoint, and used by no other task.
    unsafe fn merge<T: Send>(&self, a: SendPtr<T>, na: usize, b: SendPtr<T>, nb: usize, d: SendPtr<T>)
    where
        F: Fn(&T, &T) -> bool + Sync,
    {
        if na + nb <= self.grain || na == 0 || nb == 0 {
            // SAFETY: as this function's contract.
            unsafe { merge_serial(a.0, na, b.0, nb, d.0, self.is_less) };
            return;
        }
        // Should the search below panic, the output still gets every item.
        let guard = Remainder { a: a.0, a_end: a.0.wrapping_add(na), b: b.0, b_end: b.0.wrapping_add(nb), d: d.0 };
        // SAFETY (both arms): the indices are within `a` and `b`, which hold
        // sorted, initialised items.
        let (ia, ib) = if na >= nb {
            let ia = na / 2;
            let p = unsafe { &*a.0.add(ia) };
            // `b`'s items less than the pivot go left.
            (ia, partition_point(b.0, nb, |x| (self.is_less)(x, p)))
        } else {
            let ib = nb / 2;
            let p = unsafe { &*b.0.add(ib) };
            // `a`'s items not greater than the pivot go left.
            (partition_point(a.0, na, |x| !(self.is_less)(p, x)), ib)
        };
        mem::forget(guard);
        // SAFETY: the two merges get disjoint parts of each range.
        let (a2, b2, d2) = unsafe { (SendPtr(a.0.add(ia)), SendPtr(b.0.add(ib)), SendPtr(d.0.add(ia + ib))) };
        crate::join(
            // SAFETY: as this function's contract, for the parts.
            || unsafe { self.merge(a, ia, b, ib, d) },
            || unsafe { self.merge(a2, na - ia, b2, nb - ib, d2) },
        );
    }
}

/// The number of leading items of `p[..n]` for which `pred` holds (it holds
/// for a prefix).
fn partition_point<T>(p: *const T, n: usize, pred: impl Fn(&T) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // SAFETY: `mid < n`; the caller's items are initialised.
        if pred(unsafe { &*p.add(mid) }) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// What a merge has not yet moved: copied to the output when dropped, so a
/// merge that ends, normally or by a panic, leaves every item in its output.
struct Remainder<T> {
    a: *const T,
    a_end: *const T,
    b: *const T,
    b_end: *const T,
    d: *mut T,
}

impl<T> Drop for Remainder<T> {
    fn drop(&mut self) {
        // SAFETY: `a..a_end` and `b..b_end` are the unmoved parts of the
        // inputs, and the output has exactly that much room left at `d`.
        unsafe {
            let na = self.a_end.offset_from(self.a) as usize;
            ptr::copy_nonoverlapping(self.a, self.d, na);
            let nb = self.b_end.offset_from(self.b) as usize;
            ptr::copy_nonoverlapping(self.b, self.d.add(na), nb);
        }
    }
}

/// # Safety
/// As [`Sorter::merge`].
unsafe fn merge_serial<T, F: Fn(&T, &T) -> bool>(a: *mut T, na: usize, b: *mut T, nb: usize, d: *mut T, is_less: &F) {
    // SAFETY: the ends are one past the inputs.
    let mut s = Remainder { a, a_end: unsafe { a.add(na) }, b, b_end: unsafe { b.add(nb) }, d };
    while s.a < s.a_end && s.b < s.b_end {
        // SAFETY: both cursors are within their inputs; the output has room
        // for one more item; each cursor moves past what it copied.
        unsafe {
            let take_b = is_less(&*s.b, &*s.a);
            let src = if take_b { s.b } else { s.a };
            ptr::copy_nonoverlapping(src, s.d, 1);
            s.d = s.d.add(1);
            if take_b {
                s.b = s.b.add(1);
            } else {
                s.a = s.a.add(1);
            }
        }
    }
    // `s`'s drop copies the rest.
}

/// `par_sort_by_cached_key`: the keys computed in parallel, paired with
/// their indices (so the unstable sort of the pairs is stable), then the
/// permutation applied in place.
pub(super) fn sort_by_cached_key<T: Send, K: Ord + Send, F: Fn(&T) -> K + Sync>(v: &mut [T], key: &F) {
    use super::indexed::IndexedParallelIterator;
    use super::par_iter::ParallelIterator;
    use super::ref_iter::IntoParallelRefMutIterator;
    let mut keys: Vec<(K, usize)> = v.par_iter_mut().enumerate().map(|(i, x)| (key(x), i)).collect();
    super::sort_unstable::quicksort(&mut keys, &<(K, usize)>::lt);
    // Follow each index to where its item has moved by now (as the standard
    // library's `sort_by_cached_key` does).
    for i in 0..v.len() {
        let mut j = keys[i].1;
        while j < i {
            j = keys[j].1;
        }
        keys[i].1 = j;
        v.swap(i, j);
    }
}
