//! Units of a phase's shared counter that a worker has finished with but not
//! yet released: the counting ends of `phase/` without an atomic per task.
//!
//! # Why
//! Under the policies without managers a phase ends when one shared counter
//! (one unit per live task) reaches zero. Every enqueue took a unit with an
//! atomic increment and every task's end released one with an atomic
//! decrement: on a tree of tiny tasks, read-modify-writes of one cache line
//! that two workers pass back and forth, so that two workers ran such a
//! phase no faster than one (`docs/benchmarks.md`, "Phase cost").
//!
//! # How
//! A worker keeps the units of the tasks it finished in a thread-local tally
//! for one phase (`OWED`). An enqueue into that phase takes a unit from the
//! tally before it asks the counter for a new one; a phase enqueues one task
//! per task it runs but its first, so after the first few tasks most enqueues
//! find a unit in the tally and touch the counter not at all. The tally goes to the counter
//! (one atomic subtraction) when the worker runs out of local work (every
//! idle loop calls [`flush`] before it steals, parks or checks whether what it
//! waits for is done), or when a task of another phase ends on it.
//!
//! # Invariants
//! - A unit in a tally is still counted by the phase's counter, so the
//!   counter reaches zero only once every tally of the phase is flushed:
//!   holding units delays the end of a phase, never hastens it.
//! - A worker with a non-empty tally flushes it before it can go idle, so a
//!   phase whose tasks have all run ends as soon as the workers holding its
//!   units find no more work: their idle loops flush first. (A worker busy
//!   with other work keeps the phase waiting until it is done with that work
//!   or runs another phase's task; this is the price of not touching the
//!   counter.)
//! - The tally names its phase by the address of the phase's end; the name is
//!   compared only while the tally is non-empty, when that phase cannot have
//!   ended, so a later phase at the same address is never confused with it.

use std::cell::Cell;
use std::ptr;

/// Release `n` units of the counter at `end` (`CountLatch::decrement_by` or
/// `TreeEnd::decrement_by`).
pub(crate) type ReleaseFn = unsafe fn(*const (), usize);

struct Tally {
    end: Cell<*const ()>,
    release: Cell<Option<ReleaseFn>>,
    n: Cell<usize>,
}

thread_local! {
    static OWED: Tally = const { Tally { end: Cell::new(ptr::null()), release: Cell::new(None), n: Cell::new(0) } };
}

/// A task of the phase ending at `end` finished without handing its unit on:
/// keep the unit in this thread's tally.
///
/// `publish` as for [`flush`], if the tally held another phase's units.
///
/// # Safety
/// `end` is live and the unit is one of its counter's; `release` releases
/// units of it.
#[inline]
pub(crate) unsafe fn keep(end: *const (), release: ReleaseFn, publish: impl FnOnce()) {
    OWED.with(|t| {
        if t.n.get() > 0 && t.end.get() != end {
            // SAFETY: the tally holds units of a phase that has not ended.
            unsafe { flush_tally(t, publish) };
        }
        t.end.set(end);
        t.release.set(Some(release));
        t.n.set(t.n.get() + 1);
    })
}

/// Take a unit of the phase ending at `end` from this thread's tally for a
/// new task, if it holds one.
#[inline]
pub(crate) fn take(end: *const ()) -> bool {
    OWED.with(|t| {
        let n = t.n.get();
        if n > 0 && t.end.get() == end {
            t.n.set(n - 1);
            true
        } else {
            false
        }
    })
}

/// Release every unit this thread holds (its idle loops call this before they
/// steal, park or test for completion). `publish` runs first if anything is
/// released: the worker publishes its counters, so that whatever it ran is
/// counted before the phase can end (as `phase/` does before every release).
#[inline]
pub(crate) fn flush(publish: impl FnOnce()) {
    let _ = OWED.try_with(|t| {
        if t.n.get() > 0 {
            // SAFETY: a non-empty tally's phase has not ended.
            unsafe { flush_tally(t, publish) }
        }
    });
}

/// # Safety
/// `t` is non-empty.
#[cold]
unsafe fn flush_tally(t: &Tally, publish: impl FnOnce()) {
    let n = t.n.replace(0);
    let release = t.release.get().expect("a non-empty tally has a release function");
    publish();
    // SAFETY: the units are counted by the counter at `end`, which is live
    // until they are released (module invariants); after this call the tally
    // no longer refers to it.
    unsafe { release(t.end.get(), n) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    unsafe fn release(end: *const (), n: usize) {
        // SAFETY: the tests pass a live AtomicUsize.
        unsafe { (*(end as *const AtomicUsize)).fetch_sub(n, Ordering::SeqCst) };
    }

    #[test]
    fn units_are_reused_then_released_on_flush_or_phase_switch() {
        let a = AtomicUsize::new(10);
        let b = AtomicUsize::new(10);
        let pa = &a as *const AtomicUsize as *const ();
        let pb = &b as *const AtomicUsize as *const ();
        // SAFETY: `a` and `b` outlive the tally's use of them (flushed below).
        unsafe {
            keep(pa, release, || {});
            keep(pa, release, || {});
        }
        assert!(take(pa), "a kept unit serves the same phase");
        assert!(!take(pb), "but not another");
        assert_eq!(a.load(Ordering::SeqCst), 10, "nothing released yet");
        // SAFETY: as above.
        unsafe { keep(pb, release, || {}) };
        assert_eq!(a.load(Ordering::SeqCst), 9, "switching phase released a's last unit");
        let mut published = 0;
        flush(|| published += 1);
        assert_eq!((b.load(Ordering::SeqCst), published), (9, 1));
        flush(|| published += 1);
        assert_eq!(published, 1, "nothing to release, nothing to publish");
        assert_eq!(b.load(Ordering::SeqCst), 9, "an empty tally releases nothing");
        assert!(!take(pb));
    }
}
