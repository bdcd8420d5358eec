//! The plain consumers: `for_each`, `reduce` (and through it `reduce_with`,
//! `min`, `max`), `sum`, `product`. None of them stops early.

use super::bridge::in_worker;
use super::plumbing::{Consumer, Folder, NoopReducer, Reducer, UnindexedConsumer};
use super::ParallelIterator;
use std::iter::{Product, Sum};
use std::marker::PhantomData;

pub(super) fn for_each<I: ParallelIterator, F: Fn(I::Item) + Sync>(iter: I, op: &F) {
    in_worker(|| iter.drive_unindexed(ForEach { op }))
}

struct ForEach<'f, F> {
    op: &'f F,
}

impl<T, F: Fn(T) + Sync> Consumer<T> for ForEach<'_, F> {
    type Folder = Self;
    type Reducer = NoopReducer;
    type Result = ();
    fn split_at(self, _: usize) -> (Self, Self, NoopReducer) {
        (ForEach { op: self.op }, self, NoopReducer)
    }
    fn into_folder(self) -> Self {
        self
    }
    fn full(&self) -> bool {
        false
    }
}

impl<T, F: Fn(T) + Sync> UnindexedConsumer<T> for ForEach<'_, F> {
    fn split_off_left(&self) -> Self {
        ForEach { op: self.op }
    }
    fn to_reducer(&self) -> NoopReducer {
        NoopReducer
    }
}

impl<T, F: Fn(T)> Folder<T> for ForEach<'_, F> {
    type Result = ();
    fn consume(self, item: T) -> Self {
        (self.op)(item);
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        iter.into_iter().for_each(self.op);
        self
    }
    fn complete(self) {}
    fn full(&self) -> bool {
        false
    }
}

pub(super) fn reduce<I, ID, OP>(iter: I, identity: &ID, op: &OP) -> I::Item
where
    I: ParallelIterator,
    ID: Fn() -> I::Item + Sync,
    OP: Fn(I::Item, I::Item) -> I::Item + Sync,
{
    in_worker(|| iter.drive_unindexed(ReduceConsumer { identity, op }))
}

struct ReduceConsumer<'f, ID, OP> {
    identity: &'f ID,
    op: &'f OP,
}

impl<ID, OP> Clone for ReduceConsumer<'_, ID, OP> {
    fn clone(&self) -> Self {
        ReduceConsumer { identity: self.identity, op: self.op }
    }
}

impl<'f, T: Send, ID: Fn() -> T + Sync, OP: Fn(T, T) -> T + Sync> Consumer<T> for ReduceConsumer<'f, ID, OP> {
    type Folder = ReduceFolder<'f, T, OP>;
    type Reducer = Self;
    type Result = T;
    fn split_at(self, _: usize) -> (Self, Self, Self) {
        (self.clone(), self.clone(), self)
    }
    fn into_folder(self) -> Self::Folder {
        ReduceFolder { acc: (self.identity)(), op: self.op }
    }
    fn full(&self) -> bool {
        false
    }
}

impl<T: Send, ID: Fn() -> T + Sync, OP: Fn(T, T) -> T + Sync> UnindexedConsumer<T> for ReduceConsumer<'_, ID, OP> {
    fn split_off_left(&self) -> Self {
        self.clone()
    }
    fn to_reducer(&self) -> Self {
        self.clone()
    }
}

impl<T, ID, OP: Fn(T, T) -> T> Reducer<T> for ReduceConsumer<'_, ID, OP> {
    fn reduce(self, left: T, right: T) -> T {
        (self.op)(left, right)
    }
}

struct ReduceFolder<'f, T, OP> {
    acc: T,
    op: &'f OP,
}

impl<T, OP: Fn(T, T) -> T> Folder<T> for ReduceFolder<'_, T, OP> {
    type Result = T;
    fn consume(self, item: T) -> Self {
        ReduceFolder { acc: (self.op)(self.acc, item), op: self.op }
    }
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let op = self.op;
        ReduceFolder { acc: iter.into_iter().fold(self.acc, op), op }
    }
    fn complete(self) -> T {
        self.acc
    }
    fn full(&self) -> bool {
        false
    }
}

/// `sum` and `product`: each leaf uses the serial `Sum`/`Product` (so a
/// leaf loop vectorizes as the serial one does), and halves combine the same way.
pub(super) fn sum<I: ParallelIterator, S: Send + Sum<I::Item> + Sum<S>>(iter: I) -> S {
    in_worker(|| iter.drive_unindexed(Arith::<S, SumOp>(PhantomData)))
}

pub(super) fn product<I: ParallelIterator, P: Send + Product<I::Item> + Product<P>>(iter: I) -> P {
    in_worker(|| iter.drive_unindexed(Arith::<P, ProductOp>(PhantomData)))
}

/// Which fold an [`Arith`] consumer does.
trait ArithOp<T, S> {
    fn fold<I: Iterator<Item = T>>(iter: I) -> S;
}

struct SumOp;
struct ProductOp;

impl<T, S: Sum<T>> ArithOp<T, S> for SumOp {
    fn fold<I: Iterator<Item = T>>(iter: I) -> S {
        iter.sum()
    }
}

impl<T, S: Product<T>> ArithOp<T, S> for ProductOp {
    fn fold<I: Iterator<Item = T>>(iter: I) -> S {
        iter.product()
    }
}

struct Arith<S, O>(PhantomData<fn() -> (S, O)>);

impl<S, O> Clone for Arith<S, O> {
    fn clone(&self) -> Self {
        Arith(PhantomData)
    }
}

impl<T, S: Send, O: ArithOp<T, S> + ArithOp<S, S>> Consumer<T> for Arith<S, O> {
    type Folder = ArithFolder<S, O>;
    type Reducer = Self;
    type Result = S;
    fn split_at(self, _: usize) -> (Self, Self, Self) {
        (self.clone(), self.clone(), self)
    }
    fn into_folder(self) -> Self::Folder {
        ArithFolder { acc: <O as ArithOp<S, S>>::fold(std::iter::empty()), op: PhantomData }
    }
    fn full(&self) -> bool {
        false
    }
}

impl<T, S: Send, O: ArithOp<T, S> + ArithOp<S, S>> UnindexedConsumer<T> for Arith<S, O> {
    fn split_off_left(&self) -> Self {
        self.clone()
    }
    fn to_reducer(&self) -> Self {
        self.clone()
    }
}

impl<S, O: ArithOp<S, S>> Reducer<S> for Arith<S, O> {
    fn reduce(self, left: S, right: S) -> S {
        O::fold([left, right].into_iter())
    }
}

struct ArithFolder<S, O> {
    acc: S,
    op: PhantomData<fn() -> O>,
}

impl<T, S, O: ArithOp<T, S> + ArithOp<S, S>> Folder<T> for ArithFolder<S, O> {
    type Result = S;
    fn consume(self, item: T) -> Self {
        self.consume_iter(std::iter::once(item))
    }
    fn consume_iter<I: IntoIterator<Item = T>>(self, iter: I) -> Self {
        let part = <O as ArithOp<T, S>>::fold(iter.into_iter());
        ArithFolder { acc: <O as ArithOp<S, S>>::fold([self.acc, part].into_iter()), op: PhantomData }
    }
    fn complete(self) -> S {
        self.acc
    }
    fn full(&self) -> bool {
        false
    }
}
