//! `with_min_len` and `with_max_len`: bounds on how finely the bridge splits
//! (see [`bridge`](super::bridge)).

use super::adapters::{MinLen, MaxLen};
use super::indexed::{bridge_indexed, indexed_par_iter, IndexedParallelIterator};
use super::plumbing::{Consumer, Producer, ProducerCallback};

indexed_par_iter!(impl<I> for MinLen<I> where I; item = I::Item);
indexed_par_iter!(impl<I> for MaxLen<I> where I; item = I::Item);

/// Hands on the producer with its bounds tightened.
struct Cb<CB> {
    cb: CB,
    min: usize,
    max: usize,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Cb<CB> {
    type Output = CB::Output;
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.cb.callback(BoundedProducer { base, min: self.min, max: self.max })
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for MinLen<I> {
    fn len(&self) -> usize {
        self.base.len()
    }
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(Cb { cb: callback, min: self.min, max: usize::MAX })
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for MaxLen<I> {
    fn len(&self) -> usize {
        self.base.len()
    }
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(Cb { cb: callback, min: 1, max: self.max })
    }
}

struct BoundedProducer<P> {
    base: P,
    min: usize,
    max: usize,
}

impl<P: Producer> Producer for BoundedProducer<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;
    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }
    fn min_len(&self) -> usize {
        self.base.min_len().max(self.min)
    }
    fn max_len(&self) -> usize {
        self.base.max_len().min(self.max)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(index);
        (BoundedProducer { base: l, min: self.min, max: self.max }, BoundedProducer { base: r, min: self.min, max: self.max })
    }
    fn fold_with<F: super::plumbing::Folder<P::Item>>(self, folder: F) -> F {
        self.base.fold_with(folder)
    }
}
