//! Cancellation: a [`CancelToken`] shared by whoever may cancel and the
//! work that should stop, and [`scope_with_cancel`](crate::scope_with_cancel), a scope that drops its
//! unstarted spawns once the token (or [`Scope::cancel`]) says so.
//!
//! The flag is one atomic boolean, set once and never cleared. A task reads
//! it (relaxed) when it is about to start and whenever its body polls
//! [`Scope::is_cancelled`](crate::Scope::is_cancelled); nothing else is published through it, so no
//! stronger ordering is needed: a task that misses a cancel by a moment
//! runs, as it would have had the cancel come a moment later, and the
//! scope's count latch (acquire/release) still orders every task's end
//! before the scope returns.

use crate::sync::{AtomicBool, Ordering};
use std::sync::Arc;

/// A cancellation flag, cheap to clone (one reference count); every clone
/// sees the same flag.
///
/// ```
/// let t = finegrain::CancelToken::new();
/// let u = t.clone();
/// assert!(!u.is_cancelled());
/// t.cancel();
/// assert!(u.is_cancelled());
/// ```
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token not cancelled yet.
    pub fn new() -> Self {
        CancelToken(Arc::new(AtomicBool::new(false)))
    }

    /// Cancel: every scope given this token drops its unstarted spawns.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Has [`cancel`](Self::cancel) been called on this token or a clone?
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
