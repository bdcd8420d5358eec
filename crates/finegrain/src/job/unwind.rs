//! Unwinding: what a panicking task leaves behind, and the slot that keeps
//! the first panic of a group of tasks until they have all finished.

use crate::sync::{AtomicPtr, Ordering};
use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::ptr;

/// A panic on its way to the caller that waits for the task.
pub(crate) type PanicPayload = Box<dyn Any + Send + 'static>;


/// Outcome of a job that may have panicked.
pub(crate) enum JobResult<T> {
    Ok(T),
    Panic(PanicPayload),
}

impl<T> JobResult<T> {
    pub(crate) fn call(f: impl FnOnce() -> T) -> Self {
        match panic::catch_unwind(AssertUnwindSafe(f)) {
            Ok(v) => JobResult::Ok(v),
            Err(p) => JobResult::Panic(p),
        }
    }

    pub(crate) fn into_result(self) -> Result<T, PanicPayload> {
        match self {
            JobResult::Ok(v) => Ok(v),
            JobResult::Panic(p) => Err(p),
        }
    }
}

pub(crate) struct PanicSlot(AtomicPtr<PanicPayload>);

impl PanicSlot {
    pub(crate) fn new() -> Self {
        PanicSlot(AtomicPtr::new(ptr::null_mut()))
    }

    /// Keep `p` if it is the first; later panics are dropped.
    pub(crate) fn record(&self, p: PanicPayload) {
        let b = Box::into_raw(Box::new(p));
        if self.0.compare_exchange(ptr::null_mut(), b, Ordering::AcqRel, Ordering::Acquire).is_err() {
            // SAFETY: `b` was never published.
            drop(unsafe { Box::from_raw(b) });
        }
    }

    /// Resume the recorded panic, if any.
    pub(crate) fn propagate(&self) {
        let p = self.0.swap(ptr::null_mut(), Ordering::AcqRel);
        if !p.is_null() {
            // SAFETY: published by `record`, taken exactly once by this swap.
            let payload = unsafe { Box::from_raw(p) };
            std::panic::resume_unwind(*payload);
        }
    }
}

impl Drop for PanicSlot {
    fn drop(&mut self) {
        let p = self.0.swap(ptr::null_mut(), Ordering::AcqRel);
        if !p.is_null() {
            // SAFETY: as in propagate.
            drop(unsafe { Box::from_raw(p) });
        }
    }
}

/// Type-erased operator: combines two partials given as words.
pub(crate) type Combine<'f> = &'f (dyn Fn(usize, usize) -> usize + Sync);

/// Combine `a` and `b`; if the operator panics, keep the panic for the caller
/// and return `a`.
pub(crate) fn combine_caught(op: Combine<'_>, panic: &PanicSlot, a: usize, b: usize) -> usize {
    match panic::catch_unwind(AssertUnwindSafe(|| op(a, b))) {
        Ok(v) => v,
        Err(p) => {
            panic.record(p);
            a
        }
    }
}
