//! `zip` and `zip_eq`: pairs of two indexed iterators' items, split together
//! at the same index.

use super::adapters::{Zip, ZipEq};
use super::indexed::{bridge_indexed, IndexedParallelIterator};
use super::plumbing::{Consumer, Producer, ProducerCallback};

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> super::par_iter::ParallelIterator for Zip<A, B> {
    type Item = (A::Item, B::Item);
    fn drive_unindexed<C: super::plumbing::UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> IndexedParallelIterator for Zip<A, B> {
    fn len(&self) -> usize {
        self.a.len().min(self.b.len())
    }
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        struct CbA<CB, B> {
            cb: CB,
            b: B,
        }
        impl<TA, CB: ProducerCallback<(TA, B::Item)>, B: IndexedParallelIterator> ProducerCallback<TA> for CbA<CB, B> {
            type Output = CB::Output;
            fn callback<PA: Producer<Item = TA>>(self, a: PA) -> CB::Output {
                self.b.with_producer(CbB { cb: self.cb, a })
            }
        }
        struct CbB<CB, PA> {
            cb: CB,
            a: PA,
        }
        impl<TB, CB: ProducerCallback<(PA::Item, TB)>, PA: Producer> ProducerCallback<TB> for CbB<CB, PA> {
            type Output = CB::Output;
            fn callback<PB: Producer<Item = TB>>(self, b: PB) -> CB::Output {
                self.cb.callback(ZipProducer { a: self.a, b })
            }
        }
        // Both sides cut to the common length, so the pair iterator is
        // exact from either end.
        let n = self.len();
        self.a.take(n).with_producer(CbA { cb: callback, b: self.b.take(n) })
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> super::par_iter::ParallelIterator for ZipEq<A, B> {
    type Item = (A::Item, B::Item);
    fn drive_unindexed<C: super::plumbing::UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> IndexedParallelIterator for ZipEq<A, B> {
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.inner.drive(consumer)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.inner.with_producer(callback)
    }
}

struct ZipProducer<A, B> {
    a: A,
    b: B,
}

impl<A: Producer, B: Producer> Producer for ZipProducer<A, B> {
    type Item = (A::Item, B::Item);
    type IntoIter = std::iter::Zip<A::IntoIter, B::IntoIter>;
    fn into_iter(self) -> Self::IntoIter {
        self.a.into_iter().zip(self.b.into_iter())
    }
    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }
    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (a1, a2) = self.a.split_at(index);
        let (b1, b2) = self.b.split_at(index);
        (ZipProducer { a: a1, b: b1 }, ZipProducer { a: a2, b: b2 })
    }
}
