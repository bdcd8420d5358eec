//! `step_by`: every `step`-th item of an indexed iterator, from the first.

use super::adapters::StepBy;
use super::indexed::{bridge_indexed, indexed_par_iter, IndexedParallelIterator};
use super::plumbing::{Consumer, Producer, ProducerCallback};

indexed_par_iter!(impl<I> for StepBy<I> where I; item = I::Item);

impl<I: IndexedParallelIterator> IndexedParallelIterator for StepBy<I> {
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.step)
    }
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        struct Cb<CB>(CB, usize, usize);
        impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Cb<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.0.callback(StepByProducer { base, step: self.1, len: self.2 })
            }
        }
        let (step, len) = (self.step, self.base.len());
        self.base.with_producer(Cb(callback, step, len))
    }
}

struct StepByProducer<P> {
    base: P,
    step: usize,
    /// The base's length.
    len: usize,
}

impl<P: Producer> Producer for StepByProducer<P> {
    type Item = P::Item;
    type IntoIter = std::iter::StepBy<P::IntoIter>;
    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().step_by(self.step)
    }
    fn min_len(&self) -> usize {
        self.base.min_len().div_ceil(self.step)
    }
    fn max_len(&self) -> usize {
        (self.base.max_len() / self.step).max(1)
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.step).min(self.len);
        let (l, r) = self.base.split_at(at);
        (StepByProducer { base: l, step: self.step, len: at }, StepByProducer { base: r, step: self.step, len: self.len - at })
    }
}
