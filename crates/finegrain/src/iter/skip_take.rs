//! `skip` and `take` on indexed iterators: the producer is split once at `n`
//! and the unwanted side dropped (so a vector's skipped items are dropped too).

use super::adapters::{Skip, Take};
use super::indexed::{bridge_indexed, indexed_par_iter, IndexedParallelIterator};
use super::plumbing::{Consumer, Producer, ProducerCallback};

indexed_par_iter!(impl<I> for Skip<I> where I; item = I::Item);
indexed_par_iter!(impl<I> for Take<I> where I; item = I::Item);

/// Hands on the part of a producer before (`TAKE`) or after `n`.
struct SplitCb<CB, const TAKE: bool>(CB, usize);

impl<T, CB: ProducerCallback<T>, const TAKE: bool> ProducerCallback<T> for SplitCb<CB, TAKE> {
    type Output = CB::Output;
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let (l, r) = base.split_at(self.1);
        if TAKE {
            drop(r);
            self.0.callback(l)
        } else {
            drop(l);
            self.0.callback(r)
        }
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Skip<I> {
    fn len(&self) -> usize {
        self.base.len() - self.n
    }
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(SplitCb::<CB, false>(callback, self.n))
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Take<I> {
    fn len(&self) -> usize {
        self.n
    }
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(SplitCb::<CB, true>(callback, self.n))
    }
}
