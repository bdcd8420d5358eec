//! Chase-Lev work-stealing deque (protocol in `README.md` next to this file).

#[cfg(all(test, loom))]
mod loom_tests;

use crate::sync::{fence, full_fence, AtomicIsize, AtomicPtr, Ordering, UnsafeCell};
use crossbeam_utils::CachePadded;

/// Result of a steal attempt, in the style of crossbeam's `Steal`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Steal<T> {
    Empty,
    Success(T),
    /// Lost a race with another thief or the owner; the deque may be non-empty.
    Retry,
}

struct Buffer<T> {
    mask: usize,
    slots: Box<[AtomicPtr<T>]>,
}

impl<T> Buffer<T> {
    fn new(cap: usize) -> Box<Self> {
        debug_assert!(cap.is_power_of_two());
        Box::new(Buffer { mask: cap - 1, slots: (0..cap).map(|_| AtomicPtr::new(std::ptr::null_mut())).collect() })
    }
    #[inline(always)]
    fn cap(&self) -> isize {
        (self.mask + 1) as isize
    }
    #[inline(always)]
    fn at(&self, i: isize) -> &AtomicPtr<T> {
        // SAFETY of indexing: mask keeps the index in bounds.
        &self.slots[(i as usize) & self.mask]
    }
}

/// Owner and thieves share this.
pub(crate) struct Deque<T> {
    top: CachePadded<AtomicIsize>,
    bottom: CachePadded<AtomicIsize>,
    buffer: CachePadded<AtomicPtr<Buffer<T>>>,
    /// Buffers replaced by growth; owner-only, freed on drop.
    retired: UnsafeCell<Vec<*mut Buffer<T>>>,
}

// SAFETY: slots hold raw pointers moved between threads by the protocol; the
// deque never dereferences them. `retired` is touched only by the owner.
unsafe impl<T> Send for Deque<T> {}
unsafe impl<T> Sync for Deque<T> {}

#[cfg(not(loom))]
const INITIAL_CAP: usize = 256;
#[cfg(loom)]
const INITIAL_CAP: usize = 2;

impl<T> Default for Deque<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Deque<T> {
    pub(crate) fn new() -> Self {
        Deque {
            top: CachePadded::new(AtomicIsize::new(0)),
            bottom: CachePadded::new(AtomicIsize::new(0)),
            buffer: CachePadded::new(AtomicPtr::new(Box::into_raw(Buffer::new(INITIAL_CAP)))),
            retired: UnsafeCell::new(Vec::new()),
        }
    }

    /// Number of tasks, as seen by anyone (a racy estimate for thieves).
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        let b = self.bottom.load(Ordering::Relaxed);
        let t = self.top.load(Ordering::Relaxed);
        (b - t).max(0) as usize
    }

    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Owner only. Returns true if the deque looked empty before the push (the
    /// caller then notifies sleeping workers).
    ///
    /// # Safety
    /// Only the owning thread may call `push` and `pop`.
    #[inline(always)]
    pub(crate) unsafe fn push(&self, task: *mut T) -> bool {
        let b = self.bottom.load(Ordering::Relaxed);
        let t = self.top.load(Ordering::Acquire);
        let mut buf = self.buffer.load(Ordering::Relaxed);
        // SAFETY: the owner's current buffer is never freed while the deque lives.
        if b - t >= unsafe { (*buf).cap() } {
            // SAFETY: owner-only (caller's contract).
            buf = unsafe { self.grow(b, t) };
        }
        // SAFETY: as above.
        unsafe { (*buf).at(b).store(task, Ordering::Relaxed) };
        // A release *fence*, not a release store: a thief may read `bottom`
        // from a later relaxed store of the owner (a pop's), and must still be
        // ordered after this push (Lê et al. PPoPP'13; found by the loom model
        // `loom_deque_owner_vs_one_thief_with_growth`).
        fence(Ordering::Release);
        self.bottom.store(b + 1, Ordering::Relaxed);
        b <= t
    }

    #[cold]
    unsafe fn grow(&self, b: isize, t: isize) -> *mut Buffer<T> {
        let old = self.buffer.load(Ordering::Relaxed);
        // SAFETY: `old` is live; only the owner replaces it.
        let old_ref = unsafe { &*old };
        let new = Buffer::new(old_ref.slots.len() * 2);
        for i in t..b {
            new.at(i).store(old_ref.at(i).load(Ordering::Relaxed), Ordering::Relaxed);
        }
        let new = Box::into_raw(new);
        self.buffer.store(new, Ordering::Release);
        // SAFETY: owner-only access to `retired`.
        self.retired.with_mut(|r| unsafe { (*r).push(old) });
        new
    }

    /// Owner only: take the newest task (LIFO).
    ///
    /// # Safety
    /// Only the owning thread may call `push` and `pop`.
    #[inline(always)]
    pub(crate) unsafe fn pop(&self) -> Option<*mut T> {
        let b = self.bottom.load(Ordering::Relaxed) - 1;
        self.bottom.store(b, Ordering::Relaxed);
        full_fence();
        let t = self.top.load(Ordering::Relaxed);
        if t > b {
            self.bottom.store(b + 1, Ordering::Relaxed);
            return None;
        }
        let buf = self.buffer.load(Ordering::Relaxed);
        // SAFETY: the owner's buffer is live.
        let task = unsafe { (*buf).at(b).load(Ordering::Relaxed) };
        if t == b {
            let won = self.top.compare_exchange(t, t + 1, Ordering::SeqCst, Ordering::Relaxed).is_ok();
            self.bottom.store(b + 1, Ordering::Relaxed);
            return if won { Some(task) } else { None };
        }
        Some(task)
    }

    /// Anyone: take the oldest task. Also the owner's FIFO pop.
    #[inline]
    pub(crate) fn steal(&self) -> Steal<*mut T> {
        let t = self.top.load(Ordering::Acquire);
        full_fence();
        let b = self.bottom.load(Ordering::Acquire);
        if t >= b {
            return Steal::Empty;
        }
        let buf = self.buffer.load(Ordering::Acquire);
        // SAFETY: buffers are freed only when the deque is dropped.
        let task = unsafe { (*buf).at(t).load(Ordering::Relaxed) };
        match self.top.compare_exchange(t, t + 1, Ordering::SeqCst, Ordering::Relaxed) {
            Ok(_) => Steal::Success(task),
            Err(_) => Steal::Retry,
        }
    }

    /// Steal until success or a definite `Empty`.
    pub(crate) fn steal_retrying(&self) -> Option<*mut T> {
        loop {
            match self.steal() {
                Steal::Success(t) => return Some(t),
                Steal::Empty => return None,
                Steal::Retry => crate::sync::thread::yield_now(),
            }
        }
    }
}

impl<T> Drop for Deque<T> {
    fn drop(&mut self) {
        let cur = self.buffer.load(Ordering::Relaxed);
        // SAFETY: exclusive access on drop; every pointer came from Box::into_raw.
        unsafe { drop(Box::from_raw(cur)) };
        self.retired.with_mut(|r| {
            // SAFETY: as above.
            for p in unsafe { (*r).drain(..) } {
                unsafe { drop(Box::from_raw(p)) };
            }
        });
    }
}
