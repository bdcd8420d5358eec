//! Large zeroed arrays reused across simulations on one thread.
//!
//! A 256-thread chip's L2 tags and directory are tens of megabytes. Fresh
//! memory is zeroed by the kernel page by page as it is first touched,
//! which costs more than clearing memory already mapped; so a machine gives
//! its large arrays back here when it is dropped (and the directory its
//! outgrown tables), and the next machine built on the same thread takes
//! them, cleared. At most [`KEEP`] arrays of each element type are kept;
//! they live as long as the thread. Contents never carry over: a taken
//! array is all zeroes.

use std::cell::RefCell;

/// Arrays smaller than this are neither kept nor taken.
const MIN_BYTES: usize = 1 << 20;
/// Arrays kept per element type at most (the largest ones).
const KEEP: usize = 8;

/// An element type the pool keeps arrays of (zero is its default).
pub(crate) trait Pooled: Copy + Default + 'static {
    fn with_pool<R>(f: impl FnOnce(&mut Vec<Vec<Self>>) -> R) -> R;
}

thread_local! {
    static WORDS: RefCell<Vec<Vec<u32>>> = const { RefCell::new(Vec::new()) };
    static HALVES: RefCell<Vec<Vec<u16>>> = const { RefCell::new(Vec::new()) };
    static PAIRS: RefCell<Vec<Vec<[u32; 2]>>> = const { RefCell::new(Vec::new()) };
}

impl Pooled for u32 {
    fn with_pool<R>(f: impl FnOnce(&mut Vec<Vec<u32>>) -> R) -> R {
        WORDS.with(|p| f(&mut p.borrow_mut()))
    }
}

impl Pooled for u16 {
    fn with_pool<R>(f: impl FnOnce(&mut Vec<Vec<u16>>) -> R) -> R {
        HALVES.with(|p| f(&mut p.borrow_mut()))
    }
}

impl Pooled for [u32; 2] {
    fn with_pool<R>(f: impl FnOnce(&mut Vec<Vec<[u32; 2]>>) -> R) -> R {
        PAIRS.with(|p| f(&mut p.borrow_mut()))
    }
}

/// `n` zeroes: a kept array cleared (the smallest that holds them), or a
/// fresh one (backed by huge pages where the kernel can).
pub(crate) fn zeroed<T: Pooled>(n: usize) -> Vec<T> {
    if n * std::mem::size_of::<T>() >= MIN_BYTES {
        let kept = T::with_pool(|p| {
            let i = (0..p.len()).filter(|&i| p[i].capacity() >= n).min_by_key(|&i| p[i].capacity())?;
            Some(p.swap_remove(i))
        });
        if let Some(mut v) = kept {
            v.clear();
            v.resize(n, T::default());
            return v;
        }
    }
    let v = vec![T::default(); n];
    super::host::huge_pages(&v);
    v
}

/// Gives `v` back for a later [`zeroed`].
pub(crate) fn recycle<T: Pooled>(v: Vec<T>) {
    if v.capacity() * std::mem::size_of::<T>() < MIN_BYTES {
        return;
    }
    T::with_pool(|p| {
        p.push(v);
        if p.len() > KEEP {
            let i = (0..p.len()).min_by_key(|&i| p[i].capacity()).expect("not empty");
            p.swap_remove(i);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_array_is_zeroed() {
        let n = MIN_BYTES / 4 + 5;
        let mut v: Vec<u32> = zeroed(n);
        v.iter_mut().for_each(|x| *x = 7);
        recycle(v);
        let w: Vec<u32> = zeroed(n - 3);
        assert_eq!(w.len(), n - 3);
        assert!(w.iter().all(|&x| x == 0));
        // A larger request than any kept array: a fresh one.
        let big: Vec<u32> = zeroed(4 * n);
        assert!(big.iter().all(|&x| x == 0));
        recycle(w);
        recycle(big);
        assert!(WORDS.with(|p| p.borrow().len()) <= KEEP);
    }
}
