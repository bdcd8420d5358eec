//! `chunks` on an indexed iterator: its items gathered into `Vec`s of a
//! given size (the last may be shorter). Indexed; a split falls on a chunk
//! boundary.

use super::adapters::Chunks;
use super::indexed::{bridge_indexed, indexed_par_iter, IndexedParallelIterator};
use super::plumbing::{Consumer, Producer, ProducerCallback};

indexed_par_iter!(impl<I> for Chunks<I> where I; item = Vec<I::Item>);

impl<I: IndexedParallelIterator> IndexedParallelIterator for Chunks<I> {
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        struct Cb<CB>(CB, usize, usize);
        impl<T, CB: ProducerCallback<Vec<T>>> ProducerCallback<T> for Cb<CB> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.0.callback(ChunkProducer { base: Some(base), size: self.1, len: self.2 })
            }
        }
        let (size, len) = (self.size, self.base.len());
        self.base.with_producer(Cb(callback, size, len))
    }
}

/// Chunks of a producer; `base` is `None` only once emptied.
struct ChunkProducer<P> {
    base: Option<P>,
    size: usize,
    /// The base's length.
    len: usize,
}

impl<P: Producer> Producer for ChunkProducer<P> {
    type Item = Vec<P::Item>;
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
        (ChunkProducer { base: l, size: self.size, len: at }, ChunkProducer { base: r, size: self.size, len: self.len - at })
    }
}

impl<P: Producer> Iterator for ChunkProducer<P> {
    type Item = Vec<P::Item>;
    fn next(&mut self) -> Option<Vec<P::Item>> {
        if self.len == 0 {
            return None;
        }
        let n = self.size.min(self.len);
        let (chunk, rest) = self.base.take()?.split_at(n);
        self.base = Some(rest);
        self.len -= n;
        Some(chunk.into_iter().collect())
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len.div_ceil(self.size);
        (n, Some(n))
    }
}

impl<P: Producer> DoubleEndedIterator for ChunkProducer<P> {
    fn next_back(&mut self) -> Option<Vec<P::Item>> {
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
        Some(chunk.into_iter().collect())
    }
}

impl<P: Producer> ExactSizeIterator for ChunkProducer<P> {}
