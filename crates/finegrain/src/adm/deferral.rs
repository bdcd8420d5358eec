//! Deferral sections: the `adm_di`/`adm_ei` of Sanchez, Yoo, Kozyrakis
//! (ASPLOS 2010, Table 1), for a worker that can be interrupted by a signal.
//!
//! # Protocol
//! A worker's interrupt handler (`interrupt.rs`) and the worker's own code
//! share its frame marks and private queue. The worker wraps every operation
//! on them in a section ([`Deferral::enter`] .. [`Deferral::leave`]); a
//! handler that finds `depth > 0` does nothing but set `pending` and return,
//! and `leave` that brings `depth` back to 0 and finds `pending` set clears
//! it and tells its caller to handle the interrupt now, outside any section.
//!
//! A signal handler runs on the interrupted thread, between two of its
//! instructions, and to completion before the thread goes on. So no atomic
//! read-modify-write is needed: `depth` and `pending` are written by plain
//! (relaxed) stores, and compiler fences keep the compiler from moving the
//! section's memory accesses across `enter` and `leave`.
//!
//! # Why nothing is handled twice or lost
//! - Never inside a section: a handler that runs while `depth > 0` only sets
//!   `pending`.
//! - Not lost: if the handler ran with `depth > 0`, then `pending` is set and
//!   the `leave` that makes `depth` 0 reads it after its store of `depth`: it
//!   either sees it set (and handles), or a later handler runs with `depth`
//!   already 0 and handles itself. A handler between that store and the read
//!   of `pending` handles at once (depth 0); `leave` may then handle once more,
//!   which is harmless because handling is idempotent (it answers the request
//!   word it swaps to zero; a second pass finds zero).
//!
//! Model-checked in `deferral_loom.rs` (`scripts/loom.sh deferral`), with the
//! signal delivered at every step of the owner.

use crate::sync::{AtomicBool, AtomicUsize, Ordering};

/// One thread's deferral state (see the module documentation).
pub(crate) struct Deferral {
    depth: AtomicUsize,
    pending: AtomicBool,
}

#[inline(always)]
fn compiler_fence() {
    #[cfg(not(loom))]
    std::sync::atomic::compiler_fence(Ordering::SeqCst);
}

impl Deferral {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Deferral {
        Deferral { depth: AtomicUsize::new(0), pending: AtomicBool::new(false) }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> Deferral {
        Deferral { depth: AtomicUsize::new(0), pending: AtomicBool::new(false) }
    }

    /// `adm_di`: from here on a handler defers.
    #[inline(always)]
    pub(crate) fn enter(&self) {
        let d = self.depth.load(Ordering::Relaxed);
        self.depth.store(d + 1, Ordering::Relaxed);
        compiler_fence();
    }

    /// `adm_ei`: returns whether a deferred interrupt must be handled now.
    #[inline(always)]
    #[must_use]
    pub(crate) fn leave(&self) -> bool {
        compiler_fence();
        let d = self.depth.load(Ordering::Relaxed) - 1;
        self.depth.store(d, Ordering::Relaxed);
        compiler_fence();
        if d == 0 && self.pending.load(Ordering::Relaxed) {
            self.pending.store(false, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// In the handler: may it act now? If not, the interrupt is left pending.
    #[inline]
    pub(crate) fn may_handle(&self) -> bool {
        if self.depth.load(Ordering::Relaxed) > 0 {
            self.pending.store(true, Ordering::Relaxed);
            false
        } else {
            true
        }
    }

    #[cfg(test)]
    pub(crate) fn is_pending(&self) -> bool {
        self.pending.load(Ordering::Relaxed)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn deferred_inside_handled_on_the_last_leave() {
        let d = Deferral::new();
        assert!(d.may_handle());
        d.enter();
        d.enter();
        assert!(!d.may_handle());
        assert!(d.is_pending());
        assert!(!d.leave(), "still inside the outer section");
        assert!(d.leave(), "handled on the outermost leave");
        assert!(!d.is_pending());
        d.enter();
        assert!(!d.leave(), "nothing pending");
    }
}
