//! A worker's private task queue for the message-based policies: owner-only,
//! plain loads and stores, no atomics and no fences.
//!
//! Only the owning thread ever touches it. Other workers get tasks from it only
//! by asking (a `STEAL` message), and the owner answers by taking its oldest
//! tasks off the front and mailing them (000 section 4.1: thread-local queues).
//! That is what makes a spawn a few plain stores.
//!
//! Layout: a stack `buf[base..top]`; pushes and LIFO pops at `top`, hand-overs
//! and FIFO pops at `base`. When `top` reaches the capacity the live part is
//! moved down (or the buffer doubled) on the slow path.

use crate::job::{JobHeader, JobRef};
use std::cell::Cell;
use std::ptr;

type Slot = *mut JobHeader;

/// The live tasks are `base..top` (pointers into one allocation). The slot just
/// below `base` always holds null: the allocation's first slot is a permanent
/// null, and `pop_front` nulls every slot it empties. So the newest slot,
/// `top - 1`, can be read without comparing `top` with `base` first: if the
/// queue is empty it reads null, which is no job. That makes the take-back
/// that ends every `join` one load, one compare and one store.
pub(crate) struct PrivateQueue {
    /// The allocation: `cap + 1` slots, the first of which stays null.
    alloc: Cell<*mut Slot>,
    cap: Cell<usize>,
    base: Cell<*mut Slot>,
    top: Cell<*mut Slot>,
}

const INITIAL: usize = 256;

fn alloc(cap: usize) -> *mut Slot {
    Box::into_raw(vec![ptr::null_mut::<JobHeader>(); cap + 1].into_boxed_slice()) as *mut Slot
}

impl PrivateQueue {
    pub(crate) fn new() -> Self {
        let a = alloc(INITIAL);
        // SAFETY: slot 1 is inside the allocation of INITIAL + 1 slots.
        let start = unsafe { a.add(1) };
        PrivateQueue { alloc: Cell::new(a), cap: Cell::new(INITIAL), base: Cell::new(start), top: Cell::new(start) }
    }

    #[inline(always)]
    fn start(&self) -> *mut Slot {
        // SAFETY: slot 1 is inside the allocation (cap >= 1).
        unsafe { self.alloc.get().add(1) }
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        // SAFETY: both point into the same allocation, base <= top.
        unsafe { self.top.get().offset_from(self.base.get()) as usize }
    }

    /// Address of the next free slot: what the spawn limit is compared with.
    #[inline(always)]
    pub(crate) fn top_addr(&self) -> usize {
        self.top.get() as usize
    }

    /// The address `top_addr` reaches when the queue holds `len` tasks, capped
    /// at the end of the buffer (past which a push needs to make room).
    pub(crate) fn addr_at_len(&self, len: usize) -> usize {
        // SAFETY: base and the end are inside (or one past) the same allocation.
        let room = unsafe { self.start().add(self.cap.get()).offset_from(self.base.get()) as usize };
        self.base.get() as usize + len.min(room) * std::mem::size_of::<Slot>()
    }

    /// Push when the caller's limit check has shown there is room.
    #[inline(always)]
    pub(crate) fn push_unchecked(&self, job: JobRef) {
        let t = self.top.get();
        // SAFETY: t is below the end (caller's contract); owner-only access.
        unsafe {
            debug_assert!(t < self.start().add(self.cap.get()));
            *t = job.as_ptr();
            self.top.set(t.add(1));
        }
    }

    /// Push, making room first if needed; returns the new length.
    pub(crate) fn push(&self, job: JobRef) -> usize {
        // SAFETY: one past the last slot of the allocation.
        if self.top.get() == unsafe { self.start().add(self.cap.get()) } {
            self.make_room();
        }
        self.push_unchecked(job);
        self.len()
    }

    #[cold]
    fn make_room(&self) {
        let len = self.len();
        let cap = self.cap.get();
        let new_cap = if len * 2 > cap { cap * 2 } else { cap };
        let old = self.alloc.get();
        let new = if new_cap == cap { old } else { alloc(new_cap) };
        // SAFETY: slot 1 of an allocation of new_cap + 1 slots.
        let dst = unsafe { new.add(1) };
        let src = self.base.get();
        // SAFETY: `len` slots from `src` are live; `dst` has room for them. Moving
        // down within one buffer, `ptr::copy` handles the overlap.
        unsafe { ptr::copy(src, dst, len) };
        if new_cap != cap {
            // SAFETY: the old buffer came from `alloc(cap)`.
            unsafe { drop(Box::from_raw(ptr::slice_from_raw_parts_mut(old, cap + 1))) };
            self.alloc.set(new);
            self.cap.set(new_cap);
        }
        self.base.set(dst);
        // SAFETY: len <= new_cap.
        self.top.set(unsafe { dst.add(len) });
    }

    /// If `job` is the newest task, remove it and return true (a `join` taking
    /// its second closure back).
    #[inline(always)]
    pub(crate) fn take_back(&self, job: JobRef) -> bool {
        let t = self.top.get();
        // SAFETY: `t - 1` is at least the slot below `base`, which is in the
        // allocation and null when the queue is empty (see the type's docs).
        unsafe {
            let s = t.sub(1);
            if *s == job.as_ptr() {
                self.top.set(s);
                return true;
            }
        }
        false
    }

    /// Newest task (LIFO).
    #[inline(always)]
    pub(crate) fn pop_back(&self) -> Option<JobRef> {
        let t = self.top.get();
        if t == self.base.get() {
            return None;
        }
        // SAFETY: base <= t - 1, a live slot holding a pointer from a JobRef.
        unsafe {
            let s = t.sub(1);
            self.top.set(s);
            Some(JobRef::from_ptr(*s))
        }
    }

    /// Oldest task (FIFO order, and what a victim hands over).
    #[inline]
    pub(crate) fn pop_front(&self) -> Option<JobRef> {
        let b = self.base.get();
        if b == self.top.get() {
            return None;
        }
        // SAFETY: b < top: a live slot holding a pointer from a JobRef. It is
        // nulled, keeping the invariant for the slot below the new base.
        unsafe {
            let j = JobRef::from_ptr(*b);
            *b = ptr::null_mut();
            if b.add(1) == self.top.get() {
                self.base.set(self.start());
                self.top.set(self.start());
            } else {
                self.base.set(b.add(1));
            }
            Some(j)
        }
    }
}

impl Drop for PrivateQueue {
    fn drop(&mut self) {
        // SAFETY: allocated by `alloc(cap)`.
        unsafe { drop(Box::from_raw(ptr::slice_from_raw_parts_mut(self.alloc.get(), self.cap.get() + 1))) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake(i: usize) -> JobRef {
        // SAFETY: never executed; only stored and compared.
        unsafe { JobRef::from_ptr((8 * (i + 1)) as *mut JobHeader) }
    }

    #[test]
    fn lifo_fifo_and_growth() {
        let q = PrivateQueue::new();
        for i in 0..1000 {
            q.push(fake(i));
        }
        assert_eq!(q.pop_front(), Some(fake(0)));
        assert_eq!(q.pop_back(), Some(fake(999)));
        for i in 1000..3000 {
            q.push(fake(i));
        }
        assert_eq!(q.len(), 2998);
        let mut got = Vec::new();
        while let Some(j) = q.pop_front() {
            got.push(j);
        }
        let want: Vec<_> = (1..999).chain(1000..3000).map(fake).collect();
        assert_eq!(got, want);
        assert_eq!(q.pop_back(), None);
    }

    #[test]
    fn take_back_only_the_newest() {
        let q = PrivateQueue::new();
        // Empty: the slot below reads null, which matches no job.
        assert!(!q.take_back(fake(0)));
        q.push(fake(0));
        q.push(fake(1));
        assert!(!q.take_back(fake(0)));
        assert!(q.take_back(fake(1)));
        // Handed over from the front: the emptied slot must not match.
        assert_eq!(q.pop_front(), Some(fake(0)));
        assert!(!q.take_back(fake(0)));
        q.push(fake(2));
        q.push(fake(3));
        assert_eq!(q.pop_front(), Some(fake(2)));
        assert!(!q.take_back(fake(2)));
        assert!(q.take_back(fake(3)));
        assert_eq!(q.len(), 0);
        // Across a move-down and a growth.
        for i in 0..600 {
            q.push(fake(i));
            if i % 3 == 0 {
                q.pop_front();
            }
        }
        assert!(q.take_back(fake(599)));
        assert!(!q.take_back(fake(599)));
        assert!(q.take_back(fake(598)));
    }

    #[test]
    fn limit_addresses() {
        let q = PrivateQueue::new();
        assert_eq!(q.addr_at_len(0), q.top_addr());
        q.push(fake(0));
        assert_eq!(q.addr_at_len(1), q.top_addr());
        assert_eq!(q.addr_at_len(usize::MAX), q.addr_at_len(INITIAL));
    }
}
