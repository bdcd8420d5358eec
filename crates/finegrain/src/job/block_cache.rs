//! A per-thread cache of the small blocks that heap jobs (phase tasks, scope
//! spawns, graph nodes) live in.
//!
//! # Why
//! A phase task is a 16- to 32-byte descriptor, yet each one needs a job that
//! outlives the task that enqueued it, so it lives on the heap: one allocation
//! when enqueued, one free when run. The allocator's own per-thread cache
//! (glibc's tcache) keeps only seven blocks of a size, and a phase that
//! expands a tree frees and allocates in bursts larger than that, so most
//! calls went to the allocator's shared arenas: about 140 instructions per
//! task (callgrind), some 40% of what the runtime spent on a task.
//!
//! # How
//! Every block has the same layout ([`BLOCK_SIZE`] bytes, [`BLOCK_ALIGN`]
//! aligned), so a freed block can serve any later job that fits. Each thread
//! keeps up to [`CAP`] freed blocks in an intrusive list (the first word of a
//! free block points to the next one): taking and returning a block are a few
//! plain loads and stores, with no atomic and no lock, because only the owning
//! thread ever touches its list. A block freed on another thread than the one
//! that allocated it simply joins that thread's list (the global allocator
//! does not care which thread frees). Beyond `CAP`, or for jobs that do not
//! fit, blocks go back to the global allocator; on thread exit the list is
//! freed, so nothing is kept after a worker ends.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::cell::Cell;
use std::ptr;

/// Bytes per block: a job header (three words) and a closure of up to 13
/// words, which covers every phase task (at most four words plus the phase's
/// pointer) and most scope spawns.
const BLOCK_SIZE: usize = 128;
/// Alignment of every block: what the allocator gives small blocks anyway.
const BLOCK_ALIGN: usize = 16;
/// Free blocks kept per thread (16 KiB at most).
const CAP: usize = 128;

const LAYOUT: Layout = match Layout::from_size_align(BLOCK_SIZE, BLOCK_ALIGN) {
    Ok(l) => l,
    Err(_) => panic!("block layout"),
};

/// Does a value of type `T` fit in a block?
pub(crate) const fn fits<T>() -> bool {
    std::mem::size_of::<T>() <= BLOCK_SIZE && std::mem::align_of::<T>() <= BLOCK_ALIGN
}

/// The thread's free list. Freed on thread exit.
struct FreeList {
    head: Cell<*mut u8>,
    len: Cell<usize>,
}

impl Drop for FreeList {
    fn drop(&mut self) {
        let mut p = self.head.replace(ptr::null_mut());
        while !p.is_null() {
            // SAFETY: every block on the list is a live, unused allocation of
            // LAYOUT whose first word holds the next block.
            unsafe {
                let next = p.cast::<*mut u8>().read();
                dealloc(p, LAYOUT);
                p = next;
            }
        }
        self.len.set(0);
    }
}

thread_local! {
    static FREE: FreeList = const { FreeList { head: Cell::new(ptr::null_mut()), len: Cell::new(0) } };
}

/// A block of [`BLOCK_SIZE`] bytes, [`BLOCK_ALIGN`]-aligned, uninitialised.
#[inline]
pub(crate) fn take() -> *mut u8 {
    let cached = FREE
        .try_with(|f| {
            let p = f.head.get();
            if !p.is_null() {
                // SAFETY: a block on the list holds the next block in its first word.
                f.head.set(unsafe { p.cast::<*mut u8>().read() });
                f.len.set(f.len.get() - 1);
            }
            p
        })
        .unwrap_or(ptr::null_mut());
    if !cached.is_null() {
        return cached;
    }
    // SAFETY: LAYOUT has a non-zero size.
    let p = unsafe { alloc(LAYOUT) };
    if p.is_null() {
        handle_alloc_error(LAYOUT);
    }
    p
}

/// Return a block from [`take`] (on any thread); its contents are dead.
///
/// # Safety
/// `p` came from [`take`] and is not used again.
#[inline]
pub(crate) unsafe fn give(p: *mut u8) {
    let kept = FREE
        .try_with(|f| {
            if f.len.get() < CAP {
                // SAFETY: the block is ours now and large enough for a pointer.
                unsafe { p.cast::<*mut u8>().write(f.head.get()) };
                f.head.set(p);
                f.len.set(f.len.get() + 1);
                true
            } else {
                false
            }
        })
        .unwrap_or(false);
    if !kept {
        // SAFETY: allocated with LAYOUT (caller's contract).
        unsafe { dealloc(p, LAYOUT) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_reused_aligned_and_bounded() {
        let a = take();
        assert_eq!(a as usize % BLOCK_ALIGN, 0);
        // SAFETY: from take, not used again.
        unsafe { give(a) };
        assert_eq!(take(), a, "the last block given back is the next one taken");
        let many: Vec<*mut u8> = (0..CAP + 10).map(|_| take()).collect();
        for &p in &many {
            // SAFETY: each from take, given once.
            unsafe { give(p) };
        }
        assert_eq!(FREE.with(|f| f.len.get()), CAP, "the list keeps at most CAP blocks");
        // SAFETY: `a` is not on the list any more (it was taken again).
        unsafe { give(a) };
    }

    #[test]
    fn a_block_freed_on_another_thread_joins_that_threads_list() {
        let p = take() as usize;
        std::thread::spawn(move || {
            // SAFETY: from take, given once.
            unsafe { give(p as *mut u8) };
            assert_eq!(take() as usize, p);
            // SAFETY: as above.
            unsafe { give(p as *mut u8) };
        })
        .join()
        .unwrap();
    }

    #[test]
    fn fits_by_size_and_alignment() {
        assert!(fits::<[u64; 16]>());
        assert!(!fits::<[u64; 17]>());
        #[repr(align(32))]
        struct Wide(#[allow(dead_code)] u8);
        assert!(!fits::<Wide>());
    }
}
