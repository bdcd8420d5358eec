//! `chain`: one iterator's items, then another's. Indexed when both are.

use super::adapters::Chain;
use super::indexed::{bridge_indexed, IndexedParallelIterator};
use super::plumbing::{Consumer, Producer, ProducerCallback, Reducer, UnindexedConsumer};
use super::par_iter::ParallelIterator;

impl<A: ParallelIterator, B: ParallelIterator<Item = A::Item>> ParallelIterator for Chain<A, B> {
    type Item = A::Item;
    fn drive_unindexed<C: UnindexedConsumer<A::Item>>(self, consumer: C) -> C::Result {
        let (a, b) = (self.a, self.b);
        // Split at `a`'s length when it is known: an indexed consumer (a
        // `collect` writing in place) can only split so.
        let (left, right, red) = match a.opt_len() {
            Some(n) => consumer.split_at(n),
            None => {
                let red = consumer.to_reducer();
                (consumer.split_off_left(), consumer, red)
            }
        };
        let (ra, rb) = crate::join(|| a.drive_unindexed(left), || b.drive_unindexed(right));
        red.reduce(ra, rb)
    }
    fn opt_len(&self) -> Option<usize> {
        self.a.opt_len()?.checked_add(self.b.opt_len()?)
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator<Item = A::Item>> IndexedParallelIterator for Chain<A, B> {
    fn len(&self) -> usize {
        self.a.len().checked_add(self.b.len()).expect("chain: length overflow")
    }
    fn drive<C: Consumer<A::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
        let a_len = self.a.len();
        struct CbA<CB, B> {
            cb: CB,
            b: B,
            a_len: usize,
        }
        impl<T, CB: ProducerCallback<T>, B: IndexedParallelIterator<Item = T>> ProducerCallback<T> for CbA<CB, B> {
            type Output = CB::Output;
            fn callback<PA: Producer<Item = T>>(self, a: PA) -> CB::Output {
                self.b.with_producer(CbB { cb: self.cb, a, a_len: self.a_len })
            }
        }
        struct CbB<CB, PA> {
            cb: CB,
            a: PA,
            a_len: usize,
        }
        impl<T, CB: ProducerCallback<T>, PA: Producer<Item = T>> ProducerCallback<T> for CbB<CB, PA> {
            type Output = CB::Output;
            fn callback<PB: Producer<Item = T>>(self, b: PB) -> CB::Output {
                self.cb.callback(ChainProducer { a: self.a, b, a_len: self.a_len })
            }
        }
        self.a.with_producer(CbA { cb: callback, b: self.b, a_len })
    }
}

struct ChainProducer<A, B> {
    a: A,
    b: B,
    a_len: usize,
}

impl<A: Producer, B: Producer<Item = A::Item>> Producer for ChainProducer<A, B> {
    type Item = A::Item;
    type IntoIter = ChainIter<A::IntoIter, B::IntoIter>;
    fn into_iter(self) -> Self::IntoIter {
        ChainIter { a: self.a.into_iter(), b: self.b.into_iter() }
    }
    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }
    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        if index <= self.a_len {
            let (a1, a2) = self.a.split_at(index);
            let (b1, b2) = self.b.split_at(0);
            (ChainProducer { a: a1, b: b1, a_len: index }, ChainProducer { a: a2, b: b2, a_len: self.a_len - index })
        } else {
            let (a1, a2) = self.a.split_at(self.a_len);
            let (b1, b2) = self.b.split_at(index - self.a_len);
            (ChainProducer { a: a1, b: b1, a_len: self.a_len }, ChainProducer { a: a2, b: b2, a_len: 0 })
        }
    }
}

/// `Iterator::chain` that is also exact-size.
pub(super) struct ChainIter<A, B> {
    a: A,
    b: B,
}

impl<A: Iterator, B: Iterator<Item = A::Item>> Iterator for ChainIter<A, B> {
    type Item = A::Item;
    fn next(&mut self) -> Option<A::Item> {
        self.a.next().or_else(|| self.b.next())
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let (a, b) = (self.a.size_hint(), self.b.size_hint());
        (a.0.saturating_add(b.0), a.1.zip(b.1).and_then(|(x, y)| x.checked_add(y)))
    }
    fn fold<Acc, F: FnMut(Acc, A::Item) -> Acc>(self, init: Acc, mut f: F) -> Acc {
        let acc = self.a.fold(init, &mut f);
        self.b.fold(acc, f)
    }
}

impl<A: DoubleEndedIterator, B: DoubleEndedIterator<Item = A::Item>> DoubleEndedIterator for ChainIter<A, B> {
    fn next_back(&mut self) -> Option<A::Item> {
        self.b.next_back().or_else(|| self.a.next_back())
    }
}

impl<A: ExactSizeIterator, B: ExactSizeIterator<Item = A::Item>> ExactSizeIterator for ChainIter<A, B> {}
