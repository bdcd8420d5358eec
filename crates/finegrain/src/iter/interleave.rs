//! `interleave` and `interleave_shortest`: the items of two indexed
//! iterators in turn (`a0, b0, a1, b1, ...`), the longer one's rest after the
//! shorter one ends (or, for `interleave_shortest`, stopping there). Indexed:
//! a split at output index `i` splits each side where its share of the first
//! `i` items ends.

use super::adapters::Interleave;
use super::indexed::{bridge_indexed, IndexedParallelIterator};
use super::par_iter::ParallelIterator;
use super::plumbing::{Consumer, Producer, ProducerCallback, UnindexedConsumer};

impl<A: IndexedParallelIterator, B: IndexedParallelIterator<Item = A::Item>> ParallelIterator for Interleave<A, B> {
    type Item = A::Item;
    fn drive_unindexed<C: UnindexedConsumer<A::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator<Item = A::Item>> IndexedParallelIterator for Interleave<A, B> {
    fn len(&self) -> usize {
        self.a.len().checked_add(self.b.len()).expect("interleave: length overflow")
    }
    fn drive<C: Consumer<A::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
        let (a_len, b_len) = (self.a.len(), self.b.len());
        struct CbA<CB, B> {
            cb: CB,
            b: B,
            lens: (usize, usize),
        }
        impl<T, CB: ProducerCallback<T>, B: IndexedParallelIterator<Item = T>> ProducerCallback<T> for CbA<CB, B> {
            type Output = CB::Output;
            fn callback<PA: Producer<Item = T>>(self, a: PA) -> CB::Output {
                self.b.with_producer(CbB { cb: self.cb, a, lens: self.lens })
            }
        }
        struct CbB<CB, PA> {
            cb: CB,
            a: PA,
            lens: (usize, usize),
        }
        impl<T, CB: ProducerCallback<T>, PA: Producer<Item = T>> ProducerCallback<T> for CbB<CB, PA> {
            type Output = CB::Output;
            fn callback<PB: Producer<Item = T>>(self, b: PB) -> CB::Output {
                let (a_len, b_len) = self.lens;
                self.cb.callback(InterleaveProducer { a: self.a, b, a_len, b_len, a_next: true })
            }
        }
        self.a.with_producer(CbA { cb: callback, b: self.b, lens: (a_len, b_len) })
    }
}

struct InterleaveProducer<A, B> {
    a: A,
    b: B,
    a_len: usize,
    b_len: usize,
    /// The first item comes from `a`.
    a_next: bool,
}

impl<A: Producer, B: Producer<Item = A::Item>> Producer for InterleaveProducer<A, B> {
    type Item = A::Item;
    type IntoIter = InterleaveIter<A::IntoIter, B::IntoIter>;
    fn into_iter(self) -> Self::IntoIter {
        InterleaveIter { a: self.a.into_iter(), b: self.b.into_iter(), a_next: self.a_next }
    }
    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }
    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        // The first side's share of the first `index` items is the larger
        // half, unless it runs out; the other side takes the rest.
        let (first_len, second_len) = if self.a_next { (self.a_len, self.b_len) } else { (self.b_len, self.a_len) };
        let mut first = index.div_ceil(2).min(first_len);
        let mut second = index - first;
        if second > second_len {
            second = second_len;
            first = index - second;
        }
        let (na, nb) = if self.a_next { (first, second) } else { (second, first) };
        let (a1, a2) = self.a.split_at(na);
        let (b1, b2) = self.b.split_at(nb);
        let (ra, rb) = (self.a_len - na, self.b_len - nb);
        // Who comes next after `index` items: the side whose turn it is,
        // unless one side has nothing left.
        let a_next = if ra == 0 {
            false
        } else if rb == 0 {
            true
        } else {
            (index % 2 == 0) == self.a_next
        };
        let left = InterleaveProducer { a: a1, b: b1, a_len: na, b_len: nb, a_next: self.a_next };
        (left, InterleaveProducer { a: a2, b: b2, a_len: ra, b_len: rb, a_next })
    }
}

/// The serial iterator of an interleaving.
struct InterleaveIter<A, B> {
    a: A,
    b: B,
    a_next: bool,
}

impl<A: ExactSizeIterator, B: ExactSizeIterator<Item = A::Item>> Iterator for InterleaveIter<A, B> {
    type Item = A::Item;
    fn next(&mut self) -> Option<A::Item> {
        if self.a_next {
            match self.a.next() {
                Some(x) => {
                    self.a_next = false;
                    Some(x)
                }
                None => self.b.next(),
            }
        } else {
            match self.b.next() {
                Some(x) => {
                    self.a_next = true;
                    Some(x)
                }
                None => self.a.next(),
            }
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.a.len() + self.b.len();
        (n, Some(n))
    }
}

impl<A: DoubleEndedIterator + ExactSizeIterator, B: DoubleEndedIterator + ExactSizeIterator<Item = A::Item>> DoubleEndedIterator
    for InterleaveIter<A, B>
{
    fn next_back(&mut self) -> Option<A::Item> {
        // The last item is the longer side's (on a tie, the side that goes
        // second).
        let (la, lb) = (self.a.len(), self.b.len());
        let from_a = if self.a_next { la > lb } else { la >= lb };
        if from_a {
            self.a.next_back()
        } else {
            self.b.next_back()
        }
    }
}

impl<A: ExactSizeIterator, B: ExactSizeIterator<Item = A::Item>> ExactSizeIterator for InterleaveIter<A, B> {}
