//! `by_exponential_blocks` and `by_uniform_blocks`: an indexed iterator run
//! as a sequence of blocks, one after another, each block in parallel. A
//! search that has its answer skips every later block, so `find_first` stops
//! near the first match even when the match is early in a long iterator.

use super::adapters::Blocks;
use super::bridge::bridge_producer_consumer;
use super::indexed::IndexedParallelIterator;
use super::par_iter::ParallelIterator;
use super::plumbing::{Consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer};

impl<I: IndexedParallelIterator> ParallelIterator for Blocks<I> {
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let len = self.base.len();
        // `size == 0`: exponential, from the thread count.
        let first = if self.size == 0 { crate::pool::loop_threads().max(1) } else { self.size };
        self.base.with_producer(Cb { consumer, len, first, grow: self.size == 0 })
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }
}

struct Cb<C> {
    consumer: C,
    len: usize,
    first: usize,
    grow: bool,
}

impl<T, C: Consumer<T>> ProducerCallback<T> for Cb<C> {
    type Output = C::Result;
    fn callback<P: Producer<Item = T>>(self, producer: P) -> C::Result {
        let Cb { mut consumer, mut len, first, grow } = self;
        let mut producer = producer;
        // The blocks' results so far, joined left to right.
        let mut acc: Option<(C::Result, C::Reducer)> = None;
        let mut block = first;
        while len > 0 && !consumer.full() {
            let n = block.min(len);
            let (now, later) = producer.split_at(n);
            // Split at the block's end, so that an indexed consumer (a
            // `collect` in place) gets the positions it expects.
            let (here, rest, red) = consumer.split_at(n);
            let r = bridge_producer_consumer(n, now, here);
            let r = match acc {
                Some((a, red0)) => red0.reduce(a, r),
                None => r,
            };
            acc = Some((r, red));
            (producer, consumer, len) = (later, rest, len - n);
            if grow {
                block = block.saturating_mul(2);
            }
        }
        let tail = consumer.into_folder().complete();
        match acc {
            Some((a, red)) => red.reduce(a, tail),
            None => tail,
        }
    }
}
