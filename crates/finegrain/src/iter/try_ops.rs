//! The fallible consumers `try_for_each` and `try_reduce`, and [`Try`], the
//! stand-in for the unstable `std::ops::Try` over `Option`, `Result` and
//! `ControlFlow`. A failure sets a shared flag that every consumer's
//! `full()` reports, so the remaining splits and items are skipped.

use super::plumbing::{Consumer, Folder, Reducer, UnindexedConsumer};
use std::convert::Infallible;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

/// A value that is either an output to go on with or a residual that stops
/// the computation (`Option`, `Result`, `ControlFlow`).
pub trait Try {
    /// What success carries.
    type Output;
    /// What failure carries.
    type Residual;
    /// Success.
    fn from_output(output: Self::Output) -> Self;
    /// Failure.
    fn from_residual(residual: Self::Residual) -> Self;
    /// Which it is.
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
}

impl<T> Try for Option<T> {
    type Output = T;
    type Residual = Option<Infallible>;
    fn from_output(output: T) -> Self {
        Some(output)
    }
    fn from_residual(_: Option<Infallible>) -> Self {
        None
    }
    fn branch(self) -> ControlFlow<Option<Infallible>, T> {
        match self {
            Some(t) => ControlFlow::Continue(t),
            None => ControlFlow::Break(None),
        }
    }
}

impl<T, E> Try for Result<T, E> {
    type Output = T;
    type Residual = E;
    fn from_output(output: T) -> Self {
        Ok(output)
    }
    fn from_residual(e: E) -> Self {
        Err(e)
    }
    fn branch(self) -> ControlFlow<E, T> {
        match self {
            Ok(t) => ControlFlow::Continue(t),
            Err(e) => ControlFlow::Break(e),
        }
    }
}

impl<B, C> Try for ControlFlow<B, C> {
    type Output = C;
    type Residual = B;
    fn from_output(output: C) -> Self {
        ControlFlow::Continue(output)
    }
    fn from_residual(b: B) -> Self {
        ControlFlow::Break(b)
    }
    fn branch(self) -> Self {
        self
    }
}

/// `try_reduce_with`'s items: a failure, or a success that may be empty.
pub(super) fn lift<R: Try>(r: R) -> ControlFlow<R::Residual, Option<R::Output>> {
    match r.branch() {
        ControlFlow::Continue(t) => ControlFlow::Continue(Some(t)),
        ControlFlow::Break(e) => ControlFlow::Break(e),
    }
}

/// `try_reduce_with`'s join of two non-failed partial results.
pub(super) fn join_lifted<R: Try>(a: Option<R::Output>, b: Option<R::Output>, op: impl Fn(R::Output, R::Output) -> R) -> ControlFlow<R::Residual, Option<R::Output>> {
    match (a, b) {
        (Some(a), Some(b)) => lift(op(a, b)),
        (x, None) | (None, x) => ControlFlow::Continue(x),
    }
}

/// `try_reduce_with`'s result: `None` when there were no items.
pub(super) fn lower<R: Try>(r: ControlFlow<R::Residual, Option<R::Output>>) -> Option<R> {
    match r {
        ControlFlow::Continue(None) => None,
        ControlFlow::Continue(Some(t)) => Some(R::from_output(t)),
        ControlFlow::Break(e) => Some(R::from_residual(e)),
    }
}

/// `try_reduce`: folds and joins with a fallible `op`; `failed` is set at
/// the first failure.
pub(super) struct TryReduce<'f, ID, OP> {
    identity: &'f ID,
    op: &'f OP,
    failed: &'f AtomicBool,
}

impl<'f, ID, OP> TryReduce<'f, ID, OP> {
    pub(super) fn new(identity: &'f ID, op: &'f OP, failed: &'f AtomicBool) -> Self {
        TryReduce { identity, op, failed }
    }
}

impl<ID, OP> Clone for TryReduce<'_, ID, OP> {
    fn clone(&self) -> Self {
        TryReduce { identity: self.identity, op: self.op, failed: self.failed }
    }
}

impl<'f, R, T, ID, OP> Consumer<R> for TryReduce<'f, ID, OP>
where
    R: Try<Output = T> + Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> R + Sync,
{
    type Folder = TryReduceFolder<'f, R, ID, OP>;
    type Reducer = Self;
    type Result = R;
    fn split_at(self, _: usize) -> (Self, Self, Self) {
        (self.clone(), self.clone(), self)
    }
    fn into_folder(self) -> Self::Folder {
        TryReduceFolder { acc: ControlFlow::Continue((self.identity)()), c: self }
    }
    fn full(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }
}

impl<R, T, ID, OP> UnindexedConsumer<R> for TryReduce<'_, ID, OP>
where
    R: Try<Output = T> + Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> R + Sync,
{
    fn split_off_left(&self) -> Self {
        self.clone()
    }
    fn to_reducer(&self) -> Self {
        self.clone()
    }
}

impl<R: Try<Output = T>, T, ID, OP: Fn(T, T) -> R> Reducer<R> for TryReduce<'_, ID, OP> {
    fn reduce(self, left: R, right: R) -> R {
        match (left.branch(), right.branch()) {
            (ControlFlow::Continue(a), ControlFlow::Continue(b)) => (self.op)(a, b),
            (ControlFlow::Break(e), _) | (_, ControlFlow::Break(e)) => R::from_residual(e),
        }
    }
}

pub(super) struct TryReduceFolder<'f, R: Try, ID, OP> {
    acc: ControlFlow<R::Residual, R::Output>,
    c: TryReduce<'f, ID, OP>,
}

impl<R: Try<Output = T>, T, ID, OP: Fn(T, T) -> R> Folder<R> for TryReduceFolder<'_, R, ID, OP> {
    type Result = R;
    fn consume(mut self, item: R) -> Self {
        if let ControlFlow::Continue(a) = self.acc {
            self.acc = match item.branch() {
                ControlFlow::Continue(b) => (self.c.op)(a, b).branch(),
                e => e,
            };
            if self.acc.is_break() {
                self.c.failed.store(true, Ordering::Relaxed);
            }
        }
        self
    }
    fn complete(self) -> R {
        match self.acc {
            ControlFlow::Continue(t) => R::from_output(t),
            ControlFlow::Break(e) => R::from_residual(e),
        }
    }
    fn full(&self) -> bool {
        self.acc.is_break() || self.c.failed.load(Ordering::Relaxed)
    }
}
