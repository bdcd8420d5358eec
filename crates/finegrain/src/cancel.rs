//! Cancellation: a [`CancelToken`] shared by whoever may cancel and the
//! work that should stop, and [`scope_with_cancel`], a scope that drops its
//! unstarted spawns once the token (or [`Scope::cancel`]) says so.
//!
//! The flag is one atomic boolean, set once and never cleared. A task reads
//! it (relaxed) when it is about to start and whenever its body polls
//! [`Scope::is_cancelled`]; nothing else is published through it, so no
//! stronger ordering is needed: a task that misses a cancel by a moment
//! runs, as it would have had the cancel come a moment later, and the
//! scope's count latch (acquire/release) still orders every task's end
//! before the scope returns.

use crate::scope::Scope;
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

/// [`scope`](crate::scope) that stops starting its spawns once `token` is
/// cancelled (or [`Scope::cancel`] is called): spawns not yet started are
/// dropped without running, spawns made afterwards are dropped at once,
/// tasks already running go on (they may poll [`Scope::is_cancelled`]), and
/// the scope returns once every started task has finished.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
/// let token = finegrain::CancelToken::new();
/// let ran = AtomicUsize::new(0);
/// let pool = finegrain::Pool::new(1, "ws").unwrap();
/// pool.install(|| {
///     finegrain::scope_with_cancel(&token, |s| {
///         for _ in 0..1000 {
///             s.spawn(|_| { ran.fetch_add(1, Relaxed); });
///         }
///         token.cancel(); // the one worker is busy here: none has started
///     })
/// });
/// assert_eq!(ran.load(Relaxed), 0);
/// ```
pub fn scope_with_cancel<'scope, OP, R>(token: &CancelToken, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    crate::scope::scope_with(Some(token.clone()), op)
}
