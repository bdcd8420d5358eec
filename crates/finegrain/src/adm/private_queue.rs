//! A worker's private task queue for the message-based policies: owner-only,
//! plain loads and stores, no atomics and no fences.
//!
//! Only the owning thread ever touches it. Other workers get tasks from it only
//! by asking (a `STEAL` message), and the owner answers by taking its oldest
//! tasks off the front and mailing them (Sanchez, Yoo, Kozyrakis, ASPLOS 2010, section 4.1: thread-local queues).
//! That is what makes a spawn a few plain stores.
//!
//! It holds the tasks that are not `join` continuations on the worker's own
//! stack: scope, phase and graph tasks, tasks received from other workers, and
//! a `join` whose job lies outside the worker's mark region. A `join` on the
//! worker's stack marks its job instead (`frame_marks.rs`), which shares no word
//! with other joins.
//!
//! Layout: a stack `buf[base..top]`; pushes and LIFO pops at `top`, hand-overs
//! and FIFO pops at `base`. When `top` reaches the capacity the live part is
//! moved down (or the buffer doubled) on the slow path.

use super::interrupt::defer;
use super::spawn_gate::Gate;
use crate::job::{JobHeader, JobRef};
use std::cell::Cell;
use std::ptr;

pub(crate) type Slot = *mut JobHeader;

/// The live tasks are `base..top` (pointers into one allocation). The slot just
/// below `base` always holds null: the allocation's first slot is a permanent
/// null, and `pop_front` nulls every slot it empties. So the newest slot,
/// `top - 1`, can be read without comparing `top` with `base` first: if the
/// queue is empty it reads null, which is no job. That makes the take-back
/// that ends every `join` one load, one compare and one store.
///
/// `top` is not kept here but in the worker's [`Gate`], beside the spawn
/// limit, so that a spawn reads both from one line (`spawn_gate.rs`).
pub(crate) struct PrivateQueue {
    /// The allocation: `cap + 1` slots, the first of which stays null.
    alloc: Cell<*mut Slot>,
    cap: Cell<usize>,
    base: Cell<*mut Slot>,
    gate: *const Gate,
}

const INITIAL: usize = 256;

fn alloc(cap: usize) -> *mut Slot {
    Box::into_raw(vec![ptr::null_mut::<JobHeader>(); cap + 1].into_boxed_slice()) as *mut Slot
}

impl PrivateQueue {
    /// An empty queue whose top lives in `gate`.
    ///
    /// # Safety
    /// `gate` outlives the queue, and only the queue's owner touches its `top`.
    pub(crate) unsafe fn new(gate: *const Gate) -> Self {
        let a = alloc(INITIAL);
        // SAFETY: slot 1 is inside the allocation of INITIAL + 1 slots.
        let start = unsafe { a.add(1) };
        let q = PrivateQueue { alloc: Cell::new(a), cap: Cell::new(INITIAL), base: Cell::new(start), gate };
        q.set_top(start);
        q
    }

    #[inline(always)]
    fn gate(&self) -> &Gate {
        // SAFETY: outlives the queue (`new`'s contract).
        unsafe { &*self.gate }
    }

    #[inline(always)]
    fn top(&self) -> *mut Slot {
        self.gate().top.get() as *mut Slot
    }

    #[inline(always)]
    fn set_top(&self, t: *mut Slot) {
        self.gate().top.set(t as *mut ())
    }

    #[inline(always)]
    fn start(&self) -> *mut Slot {
        // SAFETY: slot 1 is inside the allocation (cap >= 1).
        unsafe { self.alloc.get().add(1) }
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        // SAFETY: both point into the same allocation, base <= top.
        unsafe { self.top().offset_from(self.base.get()) as usize }
    }

    /// Push when the caller's limit check has shown there is room.
    #[inline(always)]
    pub(crate) fn push_unchecked(&self, job: JobRef) {
        debug_assert!(self.top() < self.start().wrapping_add(self.cap.get()));
        // SAFETY: room checked by the caller; we are the owner.
        unsafe { push_at(self.gate(), job) }
    }

    /// Push, making room first if needed; returns the new length.
    pub(crate) fn push(&self, job: JobRef) -> usize {
        let _section = defer();
        // SAFETY: one past the last slot of the allocation.
        if self.top() == unsafe { self.start().add(self.cap.get()) } {
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
        self.set_top(unsafe { dst.add(len) });
    }

    /// If `job` is the newest task, remove it and return true (a `join` taking
    /// its second closure back). `join` itself calls [`take_back_at`].
    #[cfg(test)]
    pub(crate) fn take_back(&self, job: JobRef) -> bool {
        // SAFETY: this queue's gate, used by its owner.
        unsafe { take_back_at(self.gate(), job) }
    }

    /// Newest task (LIFO).
    #[inline(always)]
    pub(crate) fn pop_back(&self) -> Option<JobRef> {
        let _section = defer();
        let t = self.top();
        if t == self.base.get() {
            return None;
        }
        // SAFETY: base <= t - 1, a live slot holding a pointer from a JobRef.
        unsafe {
            let s = t.sub(1);
            self.set_top(s);
            Some(JobRef::from_ptr(*s))
        }
    }

    /// Oldest task (FIFO order, and what a victim hands over).
    #[inline]
    pub(crate) fn pop_front(&self) -> Option<JobRef> {
        let _section = defer();
        let b = self.base.get();
        if b == self.top() {
            return None;
        }
        // SAFETY: b < top: a live slot holding a pointer from a JobRef. It is
        // nulled, keeping the invariant for the slot below the new base.
        unsafe {
            let j = JobRef::from_ptr(*b);
            *b = ptr::null_mut();
            if b.add(1) == self.top() {
                self.base.set(self.start());
                self.set_top(self.start());
            } else {
                self.base.set(b.add(1));
            }
            Some(j)
        }
    }
}

/// The spawn's push, through the gate alone (`join` holds the gate, not the
/// queue): store the job at `top` and bump it.
///
/// # Safety
/// `g` is the gate of a private queue owned by the calling thread, and its
/// `top` is below the end of the buffer (the caller compared it with the limit,
/// which never exceeds the end).
#[inline(always)]
pub(crate) unsafe fn push_at(g: &Gate, job: JobRef) {
    let _section = defer();
    let t = g.top.get() as *mut Slot;
    // SAFETY: `t` is a free slot inside the buffer (caller's contract).
    unsafe {
        *t = job.as_ptr();
        g.top.set(t.add(1) as *mut ());
    }
}

/// The `join`'s take-back, through the gate alone: if the newest slot holds
/// `job`, pop it and return true. One load of the top, one of the slot, a
/// compare and a store.
///
/// # Safety
/// `g` is the gate of a private queue owned by the calling thread.
#[inline(always)]
pub(crate) unsafe fn take_back_at(g: &Gate, job: JobRef) -> bool {
    let _section = defer();
    let t = g.top.get() as *mut Slot;
    // SAFETY: `t - 1` is at least the slot below `base`, which is in the
    // allocation and null when the queue is empty (see `PrivateQueue`).
    unsafe {
        let s = t.sub(1);
        if *s == job.as_ptr() {
            g.top.set(s as *mut ());
            return true;
        }
    }
    false
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
        let g = Gate::new();
        // SAFETY: `g` outlives `q` (declared first, dropped last).
        let q = unsafe { PrivateQueue::new(&g) };
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
        let g = Gate::new();
        // SAFETY: `g` outlives `q` (declared first, dropped last).
        let q = unsafe { PrivateQueue::new(&g) };
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
}
