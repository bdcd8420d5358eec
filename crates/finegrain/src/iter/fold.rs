//! `fold`, `fold_with` and `try_fold`: each serial run folds its items into
//! one value, and the result is a parallel iterator over those values (one
//! per chunk or task; how many is not specified, as in Rayon).

use super::adapters::{Fold, TryFold};
use super::plumbing::{Consumer, Folder, UnindexedConsumer};
use super::try_ops::Try;
use super::par_iter::ParallelIterator;
use std::marker::PhantomData;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};

impl<I, T, ID, F> ParallelIterator for Fold<I, ID, F>
where
    I: ParallelIterator,
    T: Send,
    ID: Fn() -> T + Sync + Send,
    F: Fn(T, I::Item) -> T + Sync + Send,
{
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(FoldConsumer { base: consumer, identity: &self.identity, fold_op: &self.fold_op })
    }
}

struct FoldConsumer<'f, C, ID, F> {
    base: C,
    identity: &'f ID,
    fold_op: &'f F,
}

impl<'f, U, T, C, ID, F> Consumer<U> for FoldConsumer<'f, C, ID, F>
where
    C: Consumer<T>,
    ID: Fn() -> T + Sync,
    F: Fn(T, U) -> T + Sync,
{
    type Folder = FoldFolder<'f, C::Folder, T, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, red) = self.base.split_at(index);
        (FoldConsumer { base: l, ..self }, FoldConsumer { base: r, ..self }, red)
    }
    fn into_folder(self) -> Self::Folder {
        FoldFolder { base: self.base.into_folder(), acc: (self.identity)(), fold_op: self.fold_op }
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<U, T, C, ID, F> UnindexedConsumer<U> for FoldConsumer<'_, C, ID, F>
where
    C: UnindexedConsumer<T>,
    ID: Fn() -> T + Sync,
    F: Fn(T, U) -> T + Sync,
{
    fn split_off_left(&self) -> Self {
        FoldConsumer { base: self.base.split_off_left(), ..*self }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct FoldFolder<'f, G, T, F> {
    base: G,
    acc: T,
    fold_op: &'f F,
}

impl<U, T, G: Folder<T>, F: Fn(T, U) -> T> Folder<U> for FoldFolder<'_, G, T, F> {
    type Result = G::Result;
    fn consume(self, item: U) -> Self {
        FoldFolder { acc: (self.fold_op)(self.acc, item), ..self }
    }
    fn consume_iter<It: IntoIterator<Item = U>>(self, iter: It) -> Self {
        FoldFolder { acc: iter.into_iter().fold(self.acc, self.fold_op), ..self }
    }
    fn complete(self) -> G::Result {
        self.base.consume(self.acc).complete()
    }
    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<I, R, T, ID, F> ParallelIterator for TryFold<I, R, ID, F>
where
    I: ParallelIterator,
    R: Try<Output = T> + Send,
    ID: Fn() -> T + Sync + Send,
    F: Fn(T, I::Item) -> R + Sync + Send,
{
    type Item = R;
    fn drive_unindexed<C: UnindexedConsumer<R>>(self, consumer: C) -> C::Result {
        let failed = AtomicBool::new(false);
        let c = TryFoldConsumer { base: consumer, identity: &self.identity, fold_op: &self.fold_op, failed: &failed, marker: PhantomData };
        self.base.drive_unindexed(c)
    }
}

struct TryFoldConsumer<'f, C, R, ID, F> {
    base: C,
    identity: &'f ID,
    fold_op: &'f F,
    failed: &'f AtomicBool,
    marker: PhantomData<fn() -> R>,
}

impl<'f, U, R, T, C, ID, F> Consumer<U> for TryFoldConsumer<'f, C, R, ID, F>
where
    C: Consumer<R>,
    R: Try<Output = T> + Send,
    ID: Fn() -> T + Sync,
    F: Fn(T, U) -> R + Sync,
{
    type Folder = TryFoldFolder<'f, C::Folder, R, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;
    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, red) = self.base.split_at(index);
        (TryFoldConsumer { base: l, ..self }, TryFoldConsumer { base: r, ..self }, red)
    }
    fn into_folder(self) -> Self::Folder {
        TryFoldFolder { base: self.base.into_folder(), acc: ControlFlow::Continue((self.identity)()), fold_op: self.fold_op, failed: self.failed }
    }
    fn full(&self) -> bool {
        self.failed.load(Ordering::Relaxed) || self.base.full()
    }
}

impl<U, R, T, C, ID, F> UnindexedConsumer<U> for TryFoldConsumer<'_, C, R, ID, F>
where
    C: UnindexedConsumer<R>,
    R: Try<Output = T> + Send,
    ID: Fn() -> T + Sync,
    F: Fn(T, U) -> R + Sync,
{
    fn split_off_left(&self) -> Self {
        TryFoldConsumer { base: self.base.split_off_left(), ..*self }
    }
    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct TryFoldFolder<'f, G, R: Try, F> {
    base: G,
    acc: ControlFlow<R::Residual, R::Output>,
    fold_op: &'f F,
    failed: &'f AtomicBool,
}

impl<U, R: Try<Output = T>, T, G: Folder<R>, F: Fn(T, U) -> R> Folder<U> for TryFoldFolder<'_, G, R, F> {
    type Result = G::Result;
    fn consume(mut self, item: U) -> Self {
        if let ControlFlow::Continue(a) = self.acc {
            self.acc = (self.fold_op)(a, item).branch();
            if self.acc.is_break() {
                self.failed.store(true, Ordering::Relaxed);
            }
        }
        self
    }
    fn complete(self) -> G::Result {
        let r = match self.acc {
            ControlFlow::Continue(t) => R::from_output(t),
            ControlFlow::Break(e) => R::from_residual(e),
        };
        self.base.consume(r).complete()
    }
    fn full(&self) -> bool {
        self.acc.is_break() || self.failed.load(Ordering::Relaxed) || self.base.full()
    }
}
