//! `chunks` and `fold_chunks` on an indexed iterator: its items in runs of a
//! given size (the last may be shorter), each gathered into a `Vec` or folded
//! into one value. Indexed; a split falls on a chunk boundary.

use super::adapters::{Chunks, FoldChunks};
use super::indexed::{bridge_indexed, indexed_par_iter, IndexedParallelIterator};
use super::par_iter::ParallelIterator;
use super::plumbing::{Consumer, Producer, ProducerCallback, UnindexedConsumer};

indexed_par_iter!(impl<I> for Chunks<I> where I; item = Vec<I::Item>);

impl<I: IndexedParallelIterator> IndexedParallelIterator for Chunks<I> {
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let (size, len) = (self.size, self.base.len());
        self.base.with_producer(Cb { cb: callback, size, len, op: Gather })
    }
}

impl<I, T, ID, F> ParallelIterator for FoldChunks<I, ID, F>
where
    I: IndexedParallelIterator,
    T: Send,
    ID: Fn() -> T + Sync + Send,
    F: Fn(T, I::Item) -> T + Sync + Send,
{
    type Item = T;
    fn drive_unindexed<C: UnindexedConsumer<T>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator, T: Send, ID: Fn() -> T + Sync + Send, F: Fn(T, I::Item) -> T + Sync + Send> IndexedParallelIterator for FoldChunks<I, ID, F> {
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let (size, len) = (self.size, self.base.len());
        self.base.with_producer(Cb { cb: callback, size, len, op: Fold(self.identity, self.fold_op) })
    }
}

/// What becomes of each chunk.
pub trait ChunkOp<T>: Sync + Send {
    /// The chunk's value.
    type Out: Send;
    /// Make it from the chunk's items.
    fn run(&self, items: impl Iterator<Item = T>) -> Self::Out;
}

/// `chunks`: gather into a `Vec`.
#[derive(Debug)]
pub struct Gather;

impl<T: Send> ChunkOp<T> for Gather {
    type Out = Vec<T>;
    fn run(&self, items: impl Iterator<Item = T>) -> Vec<T> {
        items.collect()
    }
}

/// `fold_chunks`: fold from `identity()`.
#[derive(Debug)]
pub struct Fold<ID, F>(ID, F);

impl<T, U: Send, ID: Fn() -> U + Sync + Send, F: Fn(U, T) -> U + Sync + Send> ChunkOp<T> for Fold<ID, F> {
    type Out = U;
    fn run(&self, items: impl Iterator<Item = T>) -> U {
        items.fold((self.0)(), &self.1)
    }
}

/// Hands on the base producer cut into chunks.
struct Cb<CB, O> {
    cb: CB,
    size: usize,
    len: usize,
    op: O,
}

impl<T, O: ChunkOp<T>, CB: ProducerCallback<O::Out>> ProducerCallback<T> for Cb<CB, O> {
    type Output = CB::Output;
    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.cb.callback(ChunkProducer { base: Some(base), size: self.size, len: self.len, op: &self.op })
    }
}

/// Chunks of a producer; `base` is `None` only once emptied.
struct ChunkProducer<'o, P, O> {
    base: Option<P>,
    size: usize,
    /// The base's length.
    len: usize,
    op: &'o O,
}

impl<P: Producer, O: ChunkOp<P::Item>> Producer for ChunkProducer<'_, P, O> {
    type Item = O::Out;
    type IntoIter = Self;
    fn into_iter(self) -> Self {
        self
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.size).min(self.len);
        let (l, r) = match self.base {
            Some(p) => {
                let (l, r) = p.split_at(at);
                (Some(l), Some(r))
            }
            None => (None, None),
        };
        (ChunkProducer { base: l, size: self.size, len: at, op: self.op }, ChunkProducer { base: r, size: self.size, len: self.len - at, op: self.op })
    }
}

impl<P: Producer, O: ChunkOp<P::Item>> Iterator for ChunkProducer<'_, P, O> {
    type Item = O::Out;
    fn next(&mut self) -> Option<O::Out> {
        if self.len == 0 {
            return None;
        }
        let n = self.size.min(self.len);
        let (chunk, rest) = self.base.take()?.split_at(n);
        self.base = Some(rest);
        self.len -= n;
        Some(self.op.run(chunk.into_iter()))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len.div_ceil(self.size);
        (n, Some(n))
    }
}

impl<P: Producer, O: ChunkOp<P::Item>> DoubleEndedIterator for ChunkProducer<'_, P, O> {
    fn next_back(&mut self) -> Option<O::Out> {
        if self.len == 0 {
            return None;
        }
        let n = match self.len % self.size {
            0 => self.size,
            r => r,
        };
        let (rest, chunk) = self.base.take()?.split_at(self.len - n);
        self.base = Some(rest);
        self.len -= n;
        Some(self.op.run(chunk.into_iter()))
    }
}

impl<P: Producer, O: ChunkOp<P::Item>> ExactSizeIterator for ChunkProducer<'_, P, O> {}
