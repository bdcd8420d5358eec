//! The one facade through which the runtime reaches synchronisation primitives.
//!
//! Under `--cfg loom` every atomic, lock, cell and thread comes from loom, so the
//! same protocol code is model-checked; otherwise from `std`. Nothing else in the
//! crate imports `std::sync::atomic`, `std::sync::Mutex` or `std::thread` directly.

#[cfg(loom)]
pub(crate) use loom::{
    cell::UnsafeCell,
    sync::atomic::{fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicU64, AtomicUsize, Ordering},
    sync::{Arc, Condvar, Mutex, MutexGuard},
    thread,
};

#[cfg(not(loom))]
pub(crate) use std::{
    sync::atomic::{fence, AtomicBool, AtomicIsize, AtomicPtr, AtomicU64, AtomicUsize, Ordering},
    sync::{Condvar, Mutex, MutexGuard},
    thread,
};

/// `std::cell::UnsafeCell` with loom's closure-based access API, so call sites
/// are identical in both builds.
#[cfg(not(loom))]
#[derive(Debug, Default)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    pub(crate) const fn new(v: T) -> Self {
        Self(std::cell::UnsafeCell::new(v))
    }
    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

/// A sequentially consistent full fence (`mfence` on x86). A locked RMW of a
/// stack word (crossbeam-epoch's trick) measured no faster (`docs/benchmarks.md`).
#[inline(always)]
pub(crate) fn full_fence() {
    fence(Ordering::SeqCst);
}

/// Lock a mutex, ignoring poisoning: the runtime's own critical sections never
/// panic, and a user panic is carried to its caller by other means.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// Lock a mutex if it is free, ignoring poisoning as [`lock`] does: one
/// compare-and-swap, no waiting (so usable where blocking is not, such as
/// the rescue handler: `Mailbox::take_unreceived_task`).
pub(crate) fn try_lock<T>(m: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match m.try_lock() {
        Ok(g) => Some(g),
        Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}

/// A flag that one thread blocks on and others raise: the crate's one
/// condition-variable loop (a parked worker, a thread waiting for an injected
/// job, the dedicated manager thread).
#[derive(Default)]
pub(crate) struct Signal {
    raised: Mutex<bool>,
    cv: Condvar,
}

impl Signal {
    pub(crate) fn new() -> Signal {
        Signal { raised: Mutex::new(false), cv: Condvar::new() }
    }

    /// Block until the flag is raised. `consume`: lower it again before
    /// returning (a parker that is woken once per raise); otherwise it stays
    /// raised (a one-shot latch).
    pub(crate) fn wait(&self, consume: bool) {
        let mut raised = lock(&self.raised);
        while !*raised {
            raised = match self.cv.wait(raised) {
                Ok(g) => g,
                Err(p) => p.into_inner(),
            };
        }
        if consume {
            *raised = false;
        }
    }

    /// [`wait`](Signal::wait), or until `timeout` has passed. Under loom,
    /// whose condition variables never time out, the wait yields to the
    /// other threads and returns: the timeout expires after whatever they
    /// do, which covers every moment at which a real one could expire.
    /// Returns whether the flag was raised.
    #[cfg(not(loom))]
    pub(crate) fn wait_timeout(&self, consume: bool, timeout: std::time::Duration) -> bool {
        let mut raised = lock(&self.raised);
        if !*raised {
            raised = match self.cv.wait_timeout(raised, timeout) {
                Ok((g, _)) => g,
                Err(p) => p.into_inner().0,
            };
        }
        let was = *raised;
        if consume {
            *raised = false;
        }
        was
    }

    #[cfg(loom)]
    pub(crate) fn wait_timeout(&self, consume: bool, _timeout: std::time::Duration) -> bool {
        // Time passes: the other threads run first.
        loom::thread::yield_now();
        let mut raised = lock(&self.raised);
        let was = *raised;
        if consume {
            *raised = false;
        }
        was
    }

    /// Raise the flag and wake the waiter (`all`: every waiter). The waiter
    /// cannot return before it reacquires the mutex, which happens only after
    /// this call's guard is dropped, so a caller may free the signal as soon
    /// as the waiter returns.
    pub(crate) fn raise(&self, all: bool) {
        let mut raised = lock(&self.raised);
        *raised = true;
        if all {
            self.cv.notify_all();
        } else {
            self.cv.notify_one();
        }
    }
}

/// Owner-written counter readable from other threads: a relaxed load and store
/// (plain moves on x86), never a read-modify-write.
#[inline(always)]
#[cfg_attr(not(feature = "stats"), allow(dead_code))]
pub(crate) fn bump(c: &AtomicU64, by: u64) {
    c.store(c.load(Ordering::Relaxed).wrapping_add(by), Ordering::Relaxed);
}
