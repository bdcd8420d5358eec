//! Buffers from the allocator's zeroed pages.
//!
//! `vec![x; n]` of a type the standard library cannot prove all-zero writes
//! every element on the calling thread. In a kernel's measured region that
//! is a serial pass over the buffer on the task that starts the kernel,
//! which a recording charges to the root task (`finegrain::record::region`)
//! and which caps the speedup as serial set-up would. [`zeroed`] asks the
//! allocator for zeroed memory instead: its pages are first touched by the
//! tasks that write them, as in a C program's `calloc`.

use std::alloc::{alloc_zeroed, handle_alloc_error, Layout};

/// A type whose all-zero bytes are a valid value.
///
/// # Safety
/// Every field is an integer, a float, or an array or `Zeroable` struct of
/// them (no references, no niches such as `NonZero` or enums).
pub unsafe trait Zeroable: Copy {}

/// `n` zero values.
pub fn zeroed<T: Zeroable>(n: usize) -> Vec<T> {
    let layout = Layout::array::<T>(n).expect("a buffer of that many elements overflows the address space");
    if layout.size() == 0 {
        return Vec::new();
    }
    // SAFETY: the layout has a non-zero size (checked above).
    let ptr = unsafe { alloc_zeroed(layout) };
    if ptr.is_null() {
        handle_alloc_error(layout);
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of
    // `[T; n]`, which is what a `Vec<T>` of capacity `n` frees; its `n`
    // elements are zero bytes, a valid `T` by `Zeroable`'s contract.
    unsafe { Vec::from_raw_parts(ptr.cast::<T>(), n, n) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Copy, Clone, Debug, PartialEq)]
    struct Pair {
        a: f32,
        b: u8,
    }
    // SAFETY: a float and an integer.
    unsafe impl Zeroable for Pair {}

    #[test]
    fn zeroed_buffers_are_zero_and_free_cleanly() {
        let v: Vec<Pair> = zeroed(10_000);
        assert_eq!(v.len(), 10_000);
        assert!(v.iter().all(|p| *p == Pair { a: 0.0, b: 0 }));
        let mut w = v.clone();
        w.push(Pair { a: 1.0, b: 1 });
        assert_eq!(w.len(), 10_001);
        assert!(zeroed::<Pair>(0).is_empty());
    }
}
