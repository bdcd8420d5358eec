//! `intersperse`: a clone of a separator between every two items
//! (`x0, s, x1, s, x2`). Indexed: output position `p` of a piece is a
//! separator when its parity says so, so a split at any index knows how many
//! base items fall on each side.

use super::adapters::Intersperse;
use super::indexed::{bridge_indexed, IndexedParallelIterator};
use super::par_iter::ParallelIterator;
use super::plumbing::{Consumer, Producer, ProducerCallback, UnindexedConsumer};

impl<I: IndexedParallelIterator> ParallelIterator for Intersperse<I, I::Item>
where
    I::Item: Clone + Sync,
{
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Intersperse<I, I::Item>
where
    I::Item: Clone + Sync,
{
    fn len(&self) -> usize {
        (2 * self.base.len()).saturating_sub(1)
    }
    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        struct Cb<CB, T> {
            cb: CB,
            sep: T,
            len: usize,
        }
        impl<T: Clone + Send + Sync, CB: ProducerCallback<T>> ProducerCallback<T> for Cb<CB, T> {
            type Output = CB::Output;
            fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
                self.cb.callback(IntersperseProducer { base, sep: &self.sep, len: self.len, sep_first: false })
            }
        }
        let len = self.len();
        self.base.with_producer(Cb { cb: callback, sep: self.sep, len })
    }
}

struct IntersperseProducer<'s, P, T> {
    base: P,
    sep: &'s T,
    /// Output items.
    len: usize,
    /// Output position 0 is a separator.
    sep_first: bool,
}

impl<'s, P: Producer<Item = T>, T: Clone + Sync> Producer for IntersperseProducer<'s, P, T> {
    type Item = T;
    type IntoIter = IntersperseIter<'s, P::IntoIter, T>;
    fn into_iter(self) -> Self::IntoIter {
        IntersperseIter { base: self.base.into_iter(), sep: self.sep, front: 0, back: self.len, sep_first: self.sep_first }
    }
    fn min_len(&self) -> usize {
        self.base.min_len()
    }
    fn max_len(&self) -> usize {
        self.base.max_len()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        // Base items sit at the even positions, or the odd ones after a
        // leading separator.
        let items = if self.sep_first { index / 2 } else { index.div_ceil(2) };
        let (l, r) = self.base.split_at(items);
        let right_sep_first = (index % 2 == 0) == self.sep_first;
        (
            IntersperseProducer { base: l, sep: self.sep, len: index, sep_first: self.sep_first },
            IntersperseProducer { base: r, sep: self.sep, len: self.len - index, sep_first: right_sep_first },
        )
    }
}

/// The serial iterator of a piece: positions `front..back` of its output.
struct IntersperseIter<'s, I, T> {
    base: I,
    sep: &'s T,
    front: usize,
    back: usize,
    sep_first: bool,
}

impl<I, T> IntersperseIter<'_, I, T> {
    fn is_sep(&self, p: usize) -> bool {
        (p % 2 == 0) == self.sep_first
    }
}

impl<I: Iterator<Item = T>, T: Clone> Iterator for IntersperseIter<'_, I, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        if self.front == self.back {
            return None;
        }
        let p = self.front;
        self.front += 1;
        if self.is_sep(p) {
            Some(self.sep.clone())
        } else {
            self.base.next()
        }
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl<I: DoubleEndedIterator<Item = T>, T: Clone> DoubleEndedIterator for IntersperseIter<'_, I, T> {
    fn next_back(&mut self) -> Option<T> {
        if self.front == self.back {
            return None;
        }
        self.back -= 1;
        if self.is_sep(self.back) {
            Some(self.sep.clone())
        } else {
            self.base.next_back()
        }
    }
}

impl<I: ExactSizeIterator<Item = T>, T: Clone> ExactSizeIterator for IntersperseIter<'_, I, T> {}
