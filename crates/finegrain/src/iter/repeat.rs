//! Sources made from a value or a splitting rule: [`repeat`] (endless; meant
//! for `take`, `zip` or a search that stops it) and [`split`] (a value split
//! recursively by a function, as Rayon's `iter::split`).

use super::bridge::bridge_unindexed;
use super::indexed::IndexedParallelIterator;
use super::once::repeat_n;
use super::par_iter::{IntoParallelIterator, ParallelIterator};
use super::plumbing::{Folder, UnindexedConsumer, UnindexedProducer};

/// `item` cloned without end.
pub fn repeat<T: Clone + Send + Sync>(item: T) -> Repeat<T> {
    Repeat { item }
}

/// [`repeat`]'s iterator.
#[derive(Clone, Debug)]
#[must_use = "iterators are lazy"]
pub struct Repeat<T> {
    item: T,
}

impl<T: Clone + Send + Sync> Repeat<T> {
    /// The first `n` clones (indexed).
    pub fn take(self, n: usize) -> impl IndexedParallelIterator<Item = T> {
        repeat_n(self.item, n)
    }

    /// Pairs of a clone and each item of `other`.
    pub fn zip<Z>(self, other: Z) -> impl IndexedParallelIterator<Item = (T, Z::Item)>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = other.into_par_iter();
        let n = other.len();
        self.take(n).zip(other)
    }
}

impl<T: Clone + Send + Sync> ParallelIterator for Repeat<T> {
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_unindexed(Endless(self.item), consumer)
    }
}

struct Endless<T>(T);

impl<T: Clone + Send> UnindexedProducer for Endless<T> {
    type Item = T;
    fn split(self) -> (Self, Option<Self>) {
        let other = Endless(self.0.clone());
        (self, Some(other))
    }
    fn fold_with<F: Folder<T>>(self, folder: F) -> F {
        folder.consume_iter(std::iter::repeat(self.0))
    }
}

/// The pieces `splitter` cuts `data` into: each piece is offered to
/// `splitter` again (which returns it whole, with `None`, once it is small
/// enough), as the scheduler asks for work.
pub fn split<D: Send, S: Fn(D) -> (D, Option<D>) + Sync + Send>(data: D, splitter: S) -> Split<D, S> {
    Split { data, splitter }
}

/// [`split`]'s iterator.
#[derive(Clone, Debug)]
#[must_use = "iterators are lazy"]
pub struct Split<D, S> {
    data: D,
    splitter: S,
}

impl<D: Send, S: Fn(D) -> (D, Option<D>) + Sync + Send> ParallelIterator for Split<D, S> {
    type Item = D;
    fn drive_unindexed<C: UnindexedConsumer<D>>(self, consumer: C) -> C::Result {
        bridge_unindexed(Piece { data: self.data, splitter: &self.splitter }, consumer)
    }
}

struct Piece<'s, D, S> {
    data: D,
    splitter: &'s S,
}

impl<D: Send, S: Fn(D) -> (D, Option<D>) + Sync> UnindexedProducer for Piece<'_, D, S> {
    type Item = D;
    fn split(self) -> (Self, Option<Self>) {
        let (a, b) = (self.splitter)(self.data);
        (Piece { data: a, splitter: self.splitter }, b.map(|data| Piece { data, splitter: self.splitter }))
    }
    fn fold_with<F: Folder<D>>(self, folder: F) -> F {
        folder.consume(self.data)
    }
}
