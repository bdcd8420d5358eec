//! [`scope_fifo`] and [`in_place_scope_fifo`]: scopes whose spawns each
//! worker starts oldest first (Rayon's `scope_fifo`), through the FIFO
//! inboxes and trampolines of `spawn.rs`, so under every policy. What
//! differs between policies is when the trampolines run beside other tasks
//! (`docs/rayon.md`).

use crate::scope::{in_place_scope, scope, Scope};

/// A [`Scope`] whose spawns ([`ScopeFifo::spawn_fifo`]) start oldest first
/// on the worker that made them.
#[repr(transparent)]
#[allow(missing_debug_implementations)]
pub struct ScopeFifo<'scope>(Scope<'scope>);

impl<'scope> ScopeFifo<'scope> {
    fn of<'a>(s: &'a Scope<'scope>) -> &'a ScopeFifo<'scope> {
        // SAFETY: `ScopeFifo` is a transparent wrapper of `Scope`.
        unsafe { &*(s as *const Scope<'scope> as *const ScopeFifo<'scope>) }
    }

    /// Spawn `body`; the spawns of one worker start in the order made.
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&ScopeFifo<'scope>) + Send + 'scope,
    {
        self.0.spawn_as::<true, _>(move |s: &Scope<'scope>| body(ScopeFifo::of(s)))
    }

    /// [`Scope::cancel`].
    pub fn cancel(&self) {
        self.0.cancel()
    }

    /// [`Scope::is_cancelled`].
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

/// [`scope`](crate::scope) with FIFO spawns.
///
/// ```
/// let order = std::sync::Mutex::new(Vec::new());
/// finegrain::Pool::new(1, "ws").unwrap().install(|| {
///     finegrain::scope_fifo(|s| {
///         for i in 0..5 {
///             let order = &order;
///             s.spawn_fifo(move |_| order.lock().unwrap().push(i));
///         }
///     })
/// });
/// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3, 4]);
/// ```
pub fn scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    scope(|s| op(ScopeFifo::of(s)))
}

/// [`in_place_scope`](crate::in_place_scope) with FIFO spawns.
pub fn in_place_scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    in_place_scope(|s| op(ScopeFifo::of(s)))
}
