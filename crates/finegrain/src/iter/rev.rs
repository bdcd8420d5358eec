//! `rev`: the items of an indexed iterator in reverse order.

use super::adapters::Rev;
use super::indexed::{bridge_indexed, indexed_par_iter, IndexedParallelIterator};
use super::plumbing::{Consumer, Producer, ProducerCallback};

indexed_par_iter!(impl<I> for Rev<I> where I; item = I::Item);

impl<I: IndexedParallelIterator> IndexedParallelIterator for Rev<I> {
    fn len(&self) -> usize {
        self.base.len()
    }
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        struct Cb<CB>(CB, usize);
        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Cb<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.0.callback(RevProducer { base, len: self.1 })
            }
        }
        let len = self.base.len();
        self.base.with_producer(Cb(callback, len))
    }
}

struct RevProducer<P> {
    base: P,
    len: usize,
}

impl<P: Producer> Producer for RevProducer<P> {
    type Item = P::Item;
    type IntoIter = std::iter::Rev<P::IntoIter>;
    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().rev()
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(self.len - index);
        (RevProducer { base: r, len: index }, RevProducer { base: l, len: self.len - index })
    }
}
