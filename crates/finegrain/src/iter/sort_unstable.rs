//! The unstable parallel sort (`par_sort_unstable`, `_by`, `_by_key`): a
//! quicksort whose two sides are sorted with [`join`](crate::join), in the
//! manner of pattern-defeating quicksort (Peters, 2021): a median-of-three
//! (ninther on long slices) pivot, a branchless partition, a pass that
//! gathers items equal to the previous pivot so many equal keys cost one
//! level, and a fall back to the standard library's `sort_unstable` after too
//! many unbalanced partitions (so the worst case stays O(n log n)). Slices of
//! up to 4096 items, or `len / (16 * threads)` for a long one, are sorted by
//! `sort_unstable` itself.
//!
//! Everything moves by swaps, so a panicking comparison leaves the slice a
//! permutation of its items.

use super::bridge::in_worker;

const MIN_LEAF: usize = 4096;

pub(super) fn quicksort<T: Send, F: Fn(&T, &T) -> bool + Sync>(v: &mut [T], is_less: &F) {
    let len = v.len();
    if len <= 2 * MIN_LEAF {
        v.sort_unstable_by(|a, b| ord(is_less, a, b));
        return;
    }
    in_worker(|| {
        let threads = crate::pool::current_num_threads().max(1);
        let leaf = (len / (16 * threads)).max(MIN_LEAF);
        let limit = usize::BITS - len.leading_zeros();
        rec(v, is_less, None, limit, leaf);
    })
}

/// `pred`: the pivot just left of `v` in an enclosing partition (a `&mut`,
/// so that it may cross to another worker without `T: Sync`).
fn rec<T: Send, F: Fn(&T, &T) -> bool + Sync>(v: &mut [T], is_less: &F, pred: Option<&mut T>, mut limit: u32, leaf: usize) {
    let len = v.len();
    if len <= leaf || limit == 0 {
        v.sort_unstable_by(|a, b| ord(is_less, a, b));
        return;
    }
    let p = choose_pivot(v, is_less);
    v.swap(0, p);
    let (pivot, rest) = v.split_at_mut(1);
    let pivot = &pivot[0];
    // Every item here is at least `pred` (they were right of it); if the
    // pivot is not greater than it, it equals it: gather the equal items and
    // go on with the greater ones only.
    if pred.as_deref().is_some_and(|p| !is_less(p, pivot)) {
        let eq = partition(rest, |x| !is_less(pivot, x));
        return rec(&mut rest[eq..], is_less, pred, limit, leaf);
    }
    let mid = partition(rest, |x| is_less(x, pivot));
    if mid.min(len - 1 - mid) < len / 8 {
        limit -= 1;
    }
    v.swap(0, mid);
    let (left, right) = v.split_at_mut(mid);
    let (pivot, right) = right.split_at_mut(1);
    let pivot = &mut pivot[0];
    crate::join(|| rec(left, is_less, pred, limit, leaf), || rec(right, is_less, Some(pivot), limit, leaf));
}

/// Move the items for which `left` holds to the front; return how many.
/// (Branchless Lomuto: every item is swapped into the boundary slot, and the
/// boundary advances when it belongs on the left.)
fn partition<T>(v: &mut [T], left: impl Fn(&T) -> bool) -> usize {
    let mut lt = 0;
    for i in 0..v.len() {
        let l = left(&v[i]);
        v.swap(i, lt);
        lt += l as usize;
    }
    lt
}

/// The index of a pivot: the median of three items, or of three medians of
/// three on a long slice.
fn choose_pivot<T, F: Fn(&T, &T) -> bool>(v: &[T], is_less: &F) -> usize {
    let len = v.len();
    let med3 = |a: usize, b: usize, c: usize| {
        let (x, y, z) = (&v[a], &v[b], &v[c]);
        if is_less(x, y) {
            if is_less(y, z) {
                b
            } else if is_less(x, z) {
                c
            } else {
                a
            }
        } else if is_less(x, z) {
            a
        } else if is_less(y, z) {
            c
        } else {
            b
        }
    };
    let (a, b, c) = (len / 4, len / 2, 3 * len / 4);
    if len < 128 {
        return med3(a, b, c);
    }
    med3(med3(a - 1, a, a + 1), med3(b - 1, b, b + 1), med3(c - 1, c, c + 1))
}

/// A comparator for the standard sorts from `is_less`. They only ever ask
/// whether the result is `Less`, so "not less" can be `Greater` throughout,
/// which saves the second comparison telling equal from greater.
pub(super) fn ord<T, F: Fn(&T, &T) -> bool>(is_less: &F, a: &T, b: &T) -> std::cmp::Ordering {
    if is_less(a, b) {
        std::cmp::Ordering::Less
    } else {
        std::cmp::Ordering::Greater
    }
}
