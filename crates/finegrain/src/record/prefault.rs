//! An allocator for programs that record: the first touch of a fresh page
//! is the kernel's work (a page fault, zeroing the page), which the machines
//! a trace is simulated on do not have. Charged to whichever task first
//! writes the page, it made single tasks hundreds of times longer than their
//! siblings: hashjoin's first scatter chunk faulted one page in each of its
//! 2,048 partitions and became a trace's longest task, and a calloc'd
//! histogram did the same to its first counting chunk.
//!
//! While this thread records, [`PrefaultAlloc`] touches every page of a
//! large allocation (or of the part a reallocation adds) as it hands it out,
//! and leaves that time out of the running task's stretch, as the recorder
//! leaves out its own bookkeeping. Otherwise it is the system allocator
//! with one comparison of the size and, for large blocks, one thread-local
//! load.

use super::{active, clock, REC};
use std::alloc::{GlobalAlloc, Layout, System};

/// Allocations from this size up are touched while recording; smaller ones
/// come from pages the allocator has used before, mostly.
const MIN_BYTES: usize = 64 * 1024;
const PAGE: usize = 4096;

/// The system allocator, touching the pages of large blocks while the
/// allocating thread records (see the module doc). `finegrain`'s CLI uses it;
/// a program that records traces of its own can too:
///
/// ```
/// #[global_allocator]
/// static ALLOC: finegrain::record::PrefaultAlloc = finegrain::record::PrefaultAlloc;
/// # fn main() {}
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct PrefaultAlloc;

// SAFETY: every call is forwarded to `System` with the caller's arguments;
// the touching writes zero bytes only into memory that the call has just
// handed out and that holds nothing yet (a fresh block, a zeroed block, or
// the part past the old size of a reallocated one).
unsafe impl GlobalAlloc for PrefaultAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        touch_new(p, 0, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc_zeroed(layout) };
        touch_new(p, 0, layout.size());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's pointer and layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's arguments.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        touch_new(p, layout.size(), new_size);
        p
    }
}

/// Touch the pages of `p[from..to]`, memory just handed out that holds
/// nothing yet, if the block is large and this thread records.
#[inline]
fn touch_new(p: *mut u8, from: usize, to: usize) {
    if to >= MIN_BYTES && to - from.min(to) >= PAGE && !p.is_null() && active() {
        touch_pages(p, from, to);
    }
}

#[cold]
#[inline(never)]
fn touch_pages(p: *mut u8, from: usize, to: usize) {
    let t0 = clock::now();
    let mut at = from;
    while at < to {
        // SAFETY: `at < to`, inside the block just handed out, in its part
        // that holds nothing yet (see the impl's SAFETY); a zero byte there
        // changes no value a caller could rely on.
        unsafe { p.add(at).write_volatile(0) };
        at += PAGE;
    }
    // SAFETY: as above; `to - 1` is the block's last byte.
    unsafe { p.add(to - 1).write_volatile(0) };
    // The recorder is busy when it is the one allocating (its own graph
    // growing): that is bookkeeping left out already.
    let _ = REC.try_with(|r| {
        if let Ok(mut rec) = r.try_borrow_mut() {
            if let Some(rec) = rec.as_mut() {
                rec.exclude_since(t0);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The allocator hands out usable memory, keeps a reallocated block's
    /// contents, and gives zeroed blocks as zeros, recording or not.
    #[test]
    fn blocks_keep_their_contents() {
        let a = PrefaultAlloc;
        for recording in [false, true] {
            let run = || {
                let layout = Layout::from_size_align(3 * MIN_BYTES + 7, 8).unwrap();
                // SAFETY: a non-zero layout; the block is written inside its
                // size, reallocated with its own layout, and freed once.
                unsafe {
                    let z = a.alloc_zeroed(layout);
                    assert!((0..layout.size()).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                    let p = a.alloc(layout);
                    for i in 0..layout.size() {
                        *p.add(i) = (i % 251) as u8;
                    }
                    let q = a.realloc(p, layout, 5 * MIN_BYTES);
                    assert!((0..layout.size()).all(|i| *q.add(i) == (i % 251) as u8));
                    a.dealloc(q, Layout::from_size_align(5 * MIN_BYTES, 8).unwrap());
                }
            };
            if recording {
                crate::record::record(crate::taskgraph::Meta::synthetic("t", "test", 0), run).unwrap();
            } else {
                run();
            }
        }
    }
}
