//! `par_split` on slices: the subslices between separators, as
//! `slice::split`. Unindexed: a part halves just after the separator nearest
//! its middle, so each side holds whole pieces.

use super::par_iter::ParallelIterator;
use super::plumbing::{Folder, UnindexedConsumer, UnindexedProducer};

/// `par_split`'s iterator (unindexed: the pieces are found by scanning).
#[derive(Clone, Debug)]
#[must_use = "iterators are lazy"]
pub struct Split<'a, T, P> {
    slice: &'a [T],
    sep: P,
}

impl<'a, T, P> Split<'a, T, P> {
    pub(super) fn new(slice: &'a [T], sep: P) -> Self {
        Split { slice, sep }
    }
}

impl<'a, T: Sync, P: Fn(&T) -> bool + Sync + Send> ParallelIterator for Split<'a, T, P> {
    type Item = &'a [T];
    fn drive_unindexed<C: UnindexedConsumer<&'a [T]>>(self, consumer: C) -> C::Result {
        let p = SplitProducer { slice: self.slice, sep: &self.sep, tail: true };
        super::bridge::bridge_unindexed(p, consumer)
    }
}

/// A part of the slice; every piece in it ends at a separator, except the
/// last one when `tail` (the part holds the slice's end).
struct SplitProducer<'a, 'p, T, P> {
    slice: &'a [T],
    sep: &'p P,
    tail: bool,
}

impl<'a, T: Sync, P: Fn(&T) -> bool + Sync> UnindexedProducer for SplitProducer<'a, '_, T, P> {
    type Item = &'a [T];
    fn split(self) -> (Self, Option<Self>) {
        if self.slice.len() < 2 * 1024 {
            return (self, None);
        }
        // Cut just after the separator nearest the middle (searching right,
        // then left), so each side holds whole pieces.
        let mid = self.slice.len() / 2;
        let cut = match self.slice[mid..].iter().position(self.sep) {
            Some(k) => mid + k + 1,
            None => match self.slice[..mid].iter().rposition(self.sep) {
                Some(k) => k + 1,
                None => return (self, None),
            },
        };
        let (l, r) = self.slice.split_at(cut);
        (SplitProducer { slice: l, sep: self.sep, tail: false }, Some(SplitProducer { slice: r, ..self }))
    }
    fn fold_with<F: Folder<&'a [T]>>(self, folder: F) -> F {
        let mut pieces = self.slice.split(self.sep);
        // Without the tail, the part ends at a separator: `split` then
        // yields a last, empty piece that belongs to the next part.
        if !self.tail {
            pieces.next_back();
        }
        folder.consume_iter(pieces)
    }
}
