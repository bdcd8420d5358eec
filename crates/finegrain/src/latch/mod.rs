//! Completion signals. A latch starts unset and is set exactly once; the
//! memory-ordering contract is [`Latch`](crate::job::Latch)'s. `tally.rs`
//! holds the units of a phase's count latch that a worker has finished with
//! but not yet released.

#[cfg(not(loom))]
pub(crate) mod tally;

#[cfg(not(loom))]
use crate::job::{JobHeader, Latch};
use crate::sleep::Sleep;
use crate::sleep::{SET, UNSET};
use crate::sync::{AtomicUsize, Ordering, Signal};
use crossbeam_utils::CachePadded;

/// A latch waited on by a worker, which keeps running other jobs while it waits
/// and parks only when it finds none (see `sleep/README.md`).
pub(crate) struct WorkerLatch {
    pub(crate) state: AtomicUsize,
    sleep: *const Sleep,
    owner: usize,
}

// SAFETY: the sleep pointer is only dereferenced while its pool is alive (the
// setter is one of the pool's workers, which hold the pool's registry by Arc).
unsafe impl Send for WorkerLatch {}
unsafe impl Sync for WorkerLatch {}

impl WorkerLatch {
    #[inline(always)]
    pub(crate) fn new(sleep: &Sleep, owner: usize) -> Self {
        WorkerLatch { state: AtomicUsize::new(UNSET), sleep, owner }
    }

    #[inline(always)]
    #[allow(dead_code)] // used by the loom models
    pub(crate) fn probe(&self) -> bool {
        self.state.load(Ordering::Acquire) == SET
    }
}

#[cfg(not(loom))]
impl Latch for WorkerLatch {
    unsafe fn complete(this: *const Self, _header: *const JobHeader) {
        // SAFETY: forwarded contract.
        unsafe { Self::set(this) }
    }
}

impl WorkerLatch {
    /// # Safety
    /// As [`Latch::complete`].
    #[inline]
    pub(crate) unsafe fn set(this: *const Self) {
        // SAFETY: live until the swap inside `set_latch` (caller's contract);
        // the fields are copied out first and `this` is not touched after it.
        unsafe {
            let (sleep, owner) = ((*this).sleep, (*this).owner);
            (*sleep).set_latch(&(*this).state, owner);
        }
    }
}

/// A latch a non-worker thread blocks on (used when a job is injected from outside).
pub(crate) struct LockLatch {
    done: Signal,
}

impl LockLatch {
    pub(crate) fn new() -> Self {
        LockLatch { done: Signal::new() }
    }

    pub(crate) fn wait(&self) {
        self.done.wait(false)
    }
}

#[cfg(not(loom))]
impl Latch for LockLatch {
    unsafe fn complete(this: *const Self, _header: *const JobHeader) {
        // SAFETY: forwarded contract.
        unsafe { Self::set(this) }
    }
}

impl LockLatch {
    /// # Safety
    /// As [`Latch::complete`].
    pub(crate) unsafe fn set(this: *const Self) {
        // SAFETY: live until the waiter returns, which `raise` lets it do only
        // once it touches the latch no more.
        unsafe { (*this).done.raise(true) }
    }
}

/// Counts outstanding jobs of a scope, phase or graph; sets its inner worker latch
/// when the count drops to zero. The count starts at 1 for the creating body.
pub(crate) struct CountLatch {
    /// On a line of its own: the tasks of the scope or phase update it on
    /// every worker, while the waiting owner polls `inner` between tasks. On
    /// one line the two made every update a cache-line transfer
    /// (`docs/benchmarks.md`, "Phase cost").
    count: CachePadded<AtomicUsize>,
    pub(crate) inner: WorkerLatch,
}

impl CountLatch {
    pub(crate) fn new(sleep: &Sleep, owner: usize) -> Self {
        CountLatch { count: CachePadded::new(AtomicUsize::new(1)), inner: WorkerLatch::new(sleep, owner) }
    }

    #[inline]
    pub(crate) fn increment(&self) {
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    /// `n` units at once (a graph's nodes, before any of them runs).
    #[inline]
    pub(crate) fn increment_by(&self, n: usize) {
        self.count.fetch_add(n, Ordering::Relaxed);
    }

    /// # Safety
    /// As [`Latch::set`]: the latch may be freed once the count reaches zero.
    #[inline]
    pub(crate) unsafe fn decrement(this: *const Self) {
        // SAFETY: forwarded contract.
        unsafe { Self::decrement_by(this, 1) }
    }

    /// Release `n` units at once (a worker's tally, `tally.rs`).
    ///
    /// # Safety
    /// As [`CountLatch::decrement`], and the caller holds `n` units.
    #[inline]
    pub(crate) unsafe fn decrement_by(this: *const Self, n: usize) {
        // SAFETY: live until the count reaches zero (caller's contract).
        if unsafe { (*this).count.fetch_sub(n, Ordering::AcqRel) } == n {
            // SAFETY: we took the count to zero; the owner waits for the inner latch.
            unsafe { WorkerLatch::set(&(*this).inner) };
        }
    }
}
