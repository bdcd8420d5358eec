//! The plain consumers: `for_each`, `reduce` (and through it `reduce_with`,
//! `min`, `max`), `sum`, `product`. None of them stops early. The methods of
//! [`ParallelIterator`](super::ParallelIterator) drive them.

use super::plumbing::{Consumer, Folder, NoopReducer, Reducer, UnindexedConsumer};
use std::collections::LinkedList;
use std::iter::{Product, Sum};
use std::marker::PhantomData;

/// Calls `op` on each item.
pub(super) struct ForEach<'f, F> {
    op: &'f F,
}

impl<'f, F> ForEach<'f, F> {
    pub(super) fn new(op: &'f F) -> Self {
        ForEach { op }
    }
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

/// Folds each run from `identity()` with `op`, and joins runs with `op`.
pub(super) struct ReduceConsumer<'f, ID, OP> {
    identity: &'f ID,
    op: &'f OP,
}

impl<'f, ID, OP> ReduceConsumer<'f, ID, OP> {
    pub(super) fn new(identity: &'f ID, op: &'f OP) -> Self {
        ReduceConsumer { identity, op }
    }
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

pub(super) struct ReduceFolder<'f, T, OP> {
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

/// Which fold an [`Arith`] consumer does.
pub(super) trait ArithOp<T, S> {
    fn fold<I: Iterator<Item = T>>(iter: I) -> S;
}

pub(super) struct SumOp;
pub(super) struct ProductOp;

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

/// `sum` and `product`: each run uses the serial `Sum`/`Product` (so a
/// leaf loop vectorizes as the serial one does), and runs combine the same way.
pub(super) struct Arith<S, O>(PhantomData<fn() -> (S, O)>);

impl<S, O> Arith<S, O> {
    pub(super) fn new() -> Self {
        Arith(PhantomData)
    }
}

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

pub(super) struct ArithFolder<S, O> {
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

/// Gathers each serial run into a `Vec`, and the runs into a list, in order.
pub(super) struct ListVec;

impl<T: Send> Consumer<T> for ListVec {
    type Folder = VecFolder<T>;
    type Reducer = ListVec;
    type Result = LinkedList<Vec<T>>;
    fn split_at(self, _: usize) -> (Self, Self, Self) {
        (ListVec, ListVec, ListVec)
    }
    fn into_folder(self) -> VecFolder<T> {
        VecFolder(Vec::new())
    }
    fn full(&self) -> bool {
        false
    }
}

impl<T: Send> UnindexedConsumer<T> for ListVec {
    fn split_off_left(&self) -> Self {
        ListVec
    }
    fn to_reducer(&self) -> Self {
        ListVec
    }
}

impl<T> Reducer<LinkedList<Vec<T>>> for ListVec {
    fn reduce(self, mut left: LinkedList<Vec<T>>, mut right: LinkedList<Vec<T>>) -> LinkedList<Vec<T>> {
        left.append(&mut right);
        left
    }
}

pub(super) struct VecFolder<T>(Vec<T>);

impl<T> Folder<T> for VecFolder<T> {
    type Result = LinkedList<Vec<T>>;
    fn consume(mut self, item: T) -> Self {
        self.0.push(item);
        self
    }
    fn consume_iter<I: IntoIterator<Item = T>>(mut self, iter: I) -> Self {
        self.0.extend(iter);
        self
    }
    fn complete(self) -> LinkedList<Vec<T>> {
        let mut l = LinkedList::new();
        if !self.0.is_empty() {
            l.push_back(self.0);
        }
        l
    }
    fn full(&self) -> bool {
        false
    }
}
