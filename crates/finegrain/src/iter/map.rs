//! `map` and the adapters that are a map in disguise: `inspect`, `update`,
//! `copied`, `cloned`. They wrap the producer when the iterator is indexed
//! (so the result stays indexed) and the consumer otherwise.

use super::adapters::{Map, InspectOp, UpdateOp, CopiedOp, ClonedOp};
use super::plumbing::{Consumer, Folder, Producer, ProducerCallback, UnindexedConsumer};
use super::indexed::IndexedParallelIterator;
use super::par_iter::ParallelIterator;

/// A per-item function a [`Map`] applies: any `Fn(T) -> R`, or one of the
/// operations below.
pub trait MapOp<T>: Sync + Send {
    /// The result.
    type Output: Send;
    /// Apply to one item.
    fn call(&self, item: T) -> Self::Output;
}

impl<T, R: Send, F: Fn(T) -> R + Sync + Send> MapOp<T> for F {
    type Output = R;
    #[inline]
    fn call(&self, item: T) -> R {
        self(item)
    }
}

impl<T: Send, F: Fn(&T) + Sync + Send> MapOp<T> for InspectOp<F> {
    type Output = T;
    #[inline]
    fn call(&self, item: T) -> T {
        (self.0)(&item);
        item
    }
}

impl<T: Send, F: Fn(&mut T) + Sync + Send> MapOp<T> for UpdateOp<F> {
    type Output = T;
    #[inline]
    fn call(&self, mut item: T) -> T {
        (self.0)(&mut item);
        item
    }
}

impl<T: Copy + Send> MapOp<&T> for CopiedOp {
    type Output = T;
    #[inline]
    fn call(&self, item: &T) -> T {
        *item
    }
}

impl<T: Clone + Send> MapOp<&T> for ClonedOp {
    type Output = T;
    #[inline]
    fn call(&self, item: &T) -> T {
        item.clone()
    }
}

impl<I: ParallelIterator, F: MapOp<I::Item>> ParallelIterator for Map<I, F> {
    type Item = F::Output;

    fn drive_unindexed<C: UnindexedConsumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.base.drive_unindexed(MapConsumer { base: consumer, op: &self.op })
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator, F: MapOp<I::Item>> IndexedParallelIterator for Map<I, F> {
    fn len(&self) -> usize {
        self.base.len()
    }

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.base.drive(MapConsumer { base: consumer, op: &self.op })
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        struct Cb<CB, F> {
            cb: CB,
            op: F,
        }
        impl<T, CB: ProducerCallback<F::Output>, F: MapOp<T>> ProducerCallback<T> for Cb<CB, F> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.cb.callback(MapProducer { base, op: &self.op })
            }
        }
        self.base.with_producer(Cb { cb: callback, op: self.op })
    }
}

struct MapProducer<'f, P, F> {
    base: P,
    op: &'f F,
}

impl<'f, P: Producer, F: MapOp<P::Item>> Producer for MapProducer<'f, P, F> {
    type Item = F::Output;
    type IntoIter = MapIter<'f, P::IntoIter, F>;

    fn into_iter(self) -> Self::IntoIter {
        MapIter { iter: self.base.into_iter(), op: self.op }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(index);
        (MapProducer { base: l, op: self.op }, MapProducer { base: r, op: self.op })
    }

    fn fold_with<G: Folder<Self::Item>>(self, folder: G) -> G {
        self.base.fold_with(MapFolder { base: folder, op: self.op }).base
    }
}

/// The serial iterator of a mapped producer.
pub(crate) struct MapIter<'f, I, F> {
    iter: I,
    op: &'f F,
}

impl<I: Iterator, F: MapOp<I::Item>> Iterator for MapIter<'_, I, F> {
    type Item = F::Output;

    #[inline]
    fn next(&mut self) -> Option<F::Output> {
        self.iter.next().map(|x| self.op.call(x))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }

    #[inline]
    fn fold<B, G: FnMut(B, F::Output) -> B>(self, init: B, mut g: G) -> B {
        let op = self.op;
        self.iter.fold(init, move |acc, x| g(acc, op.call(x)))
    }
}

impl<I: DoubleEndedIterator, F: MapOp<I::Item>> DoubleEndedIterator for MapIter<'_, I, F> {
    #[inline]
    fn next_back(&mut self) -> Option<F::Output> {
        self.iter.next_back().map(|x| self.op.call(x))
    }
}

impl<I: ExactSizeIterator, F: MapOp<I::Item>> ExactSizeIterator for MapIter<'_, I, F> {}

struct MapConsumer<'f, C, F> {
    base: C,
    op: &'f F,
}

impl<'f, T, C: Consumer<F::Output>, F: MapOp<T>> Consumer<T> for MapConsumer<'f, C, F> {
    type Folder = MapFolder<'f, C::Folder, F>;
    type Reducer = C::Reducer;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, C::Reducer) {
        let (l, r, red) = self.base.split_at(index);
        (MapConsumer { base: l, op: self.op }, MapConsumer { base: r, op: self.op }, red)
    }

    fn into_folder(self) -> Self::Folder {
        MapFolder { base: self.base.into_folder(), op: self.op }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, C: UnindexedConsumer<F::Output>, F: MapOp<T>> UnindexedConsumer<T> for MapConsumer<'_, C, F> {
    fn split_off_left(&self) -> Self {
        MapConsumer { base: self.base.split_off_left(), op: self.op }
    }

    fn to_reducer(&self) -> C::Reducer {
        self.base.to_reducer()
    }
}

struct MapFolder<'f, G, F> {
    base: G,
    op: &'f F,
}

impl<T, G: Folder<F::Output>, F: MapOp<T>> Folder<T> for MapFolder<'_, G, F> {
    type Result = G::Result;

    #[inline]
    fn consume(self, item: T) -> Self {
        MapFolder { base: self.base.consume(self.op.call(item)), op: self.op }
    }

    fn consume_iter<It: IntoIterator<Item = T>>(self, iter: It) -> Self {
        let op = self.op;
        MapFolder { base: self.base.consume_iter(iter.into_iter().map(move |x| op.call(x))), op }
    }

    fn complete(self) -> G::Result {
        self.base.complete()
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}
