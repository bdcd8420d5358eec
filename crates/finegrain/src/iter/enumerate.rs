//! `enumerate`: pairs of index and item (indexed).

use super::adapters::Enumerate;
use super::indexed::{bridge_indexed, IndexedParallelIterator};
use super::plumbing::{Consumer, Producer, ProducerCallback, UnindexedConsumer};
use super::par_iter::ParallelIterator;
use std::iter::Zip;
use std::ops::Range;

impl<I: IndexedParallelIterator> ParallelIterator for Enumerate<I> {
    type Item = (usize, I::Item);
    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Enumerate<I> {
    fn len(&self) -> usize {
        self.base.len()
    }
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        struct Cb<CB>(CB);
        impl<T, CB: ProducerCallback<(usize, T)>> ProducerCallback<T> for Cb<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.0.callback(EnumerateProducer { base, offset: 0 })
            }
        }
        self.base.with_producer(Cb(callback))
    }
}

struct EnumerateProducer<P> {
    base: P,
    offset: usize,
}

impl<P: Producer> Producer for EnumerateProducer<P> {
    type Item = (usize, P::Item);
    type IntoIter = Zip<Range<usize>, P::IntoIter>;
    fn into_iter(self) -> Self::IntoIter {
        let it = self.base.into_iter();
        (self.offset..self.offset + it.len()).zip(it)
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(index);
        (EnumerateProducer { base: l, offset: self.offset }, EnumerateProducer { base: r, offset: self.offset + index })
    }
}
