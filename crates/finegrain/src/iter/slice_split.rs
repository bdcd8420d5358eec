//! Slices cut at separators: `par_split`, `par_split_inclusive`,
//! `par_chunk_by` and their `_mut` forms, as `slice::split`,
//! `split_inclusive`, `chunk_by`. Unindexed: a part halves at the boundary
//! between pieces nearest its middle (just after a separator, or between two
//! items the `chunk_by` predicate does not join), so each side holds whole
//! pieces.

use super::par_iter::ParallelIterator;
use super::plumbing::{Folder, UnindexedConsumer, UnindexedProducer};

/// Below this many items a part is not split.
const MIN_PART: usize = 2048;

/// A shared or mutable slice, as the parts see it.
pub trait SliceRef: Send + Sized {
    /// The element type.
    type Elem;
    /// The items, shared.
    fn items(&self) -> &[Self::Elem];
    /// Split before `k`.
    fn cut_at(self, k: usize) -> (Self, Self);
}

impl<T: Sync> SliceRef for &[T] {
    type Elem = T;
    fn items(&self) -> &[T] {
        self
    }
    fn cut_at(self, k: usize) -> (Self, Self) {
        self.split_at(k)
    }
}

impl<T: Send> SliceRef for &mut [T] {
    type Elem = T;
    fn items(&self) -> &[T] {
        self
    }
    fn cut_at(self, k: usize) -> (Self, Self) {
        self.split_at_mut(k)
    }
}

/// How one kind of piece is found: where a part may be cut, and how its
/// pieces are folded (`tail`: the part ends the whole slice).
pub trait SliceKind<S: SliceRef>: Sync + Send {
    /// A boundary between pieces near the middle of `s`, if any.
    fn cut(&self, s: &[S::Elem]) -> Option<usize>;
    /// Fold the pieces of `s`.
    fn fold<F: Folder<S>>(&self, s: S, tail: bool, folder: F) -> F;
}

/// Just after the item nearest the middle for which `sep` holds (right, then left).
fn cut_after<T>(s: &[T], sep: impl Fn(&T) -> bool) -> Option<usize> {
    let mid = s.len() / 2;
    match s[mid..].iter().position(&sep) {
        Some(k) => Some(mid + k + 1),
        None => s[..mid].iter().rposition(&sep).map(|k| k + 1),
    }
}

/// `par_split(_mut)`: pieces between separators, separators left out.
#[derive(Clone, Copy, Debug)]
pub struct SplitOn<P>(P);
/// `par_split_inclusive(_mut)`: pieces each ending with its separator.
#[derive(Clone, Copy, Debug)]
pub struct SplitInclusiveOn<P>(P);
/// `par_chunk_by(_mut)`: runs of items that the predicate joins pairwise.
#[derive(Clone, Copy, Debug)]
pub struct ChunkByOn<P>(P);

macro_rules! kinds {
    ($($s:ty, $bound:ident, $split:ident, $inclusive:ident, $chunk_by:ident;)*) => {$(
        impl<'a, T: $bound, P: Fn(&T) -> bool + Sync + Send> SliceKind<$s> for SplitOn<P> {
            fn cut(&self, s: &[T]) -> Option<usize> {
                cut_after(s, &self.0)
            }
            fn fold<F: Folder<$s>>(&self, s: $s, tail: bool, folder: F) -> F {
                let mut pieces = s.$split(&self.0);
                // A part that is not the tail ends with a separator: the
                // empty piece after it belongs to the next part.
                if !tail {
                    pieces.next_back();
                }
                folder.consume_iter(pieces)
            }
        }

        impl<'a, T: $bound, P: Fn(&T) -> bool + Sync + Send> SliceKind<$s> for SplitInclusiveOn<P> {
            fn cut(&self, s: &[T]) -> Option<usize> {
                cut_after(s, &self.0)
            }
            fn fold<F: Folder<$s>>(&self, s: $s, _: bool, folder: F) -> F {
                folder.consume_iter(s.$inclusive(&self.0))
            }
        }

        impl<'a, T: $bound, P: Fn(&T, &T) -> bool + Sync + Send> SliceKind<$s> for ChunkByOn<P> {
            fn cut(&self, s: &[T]) -> Option<usize> {
                let mid = s.len() / 2;
                let apart = |k: &usize| !(self.0)(&s[k - 1], &s[*k]);
                (mid.max(1)..s.len()).find(apart).or_else(|| (1..mid).rev().find(apart))
            }
            fn fold<F: Folder<$s>>(&self, s: $s, _: bool, folder: F) -> F {
                folder.consume_iter(s.$chunk_by(&self.0))
            }
        }
    )*};
}

kinds! {
    &'a [T], Sync, split, split_inclusive, chunk_by;
    &'a mut [T], Send, split_mut, split_inclusive_mut, chunk_by_mut;
}

/// A slice's pieces of kind `K` (`S`: `&[T]` or `&mut [T]`).
#[derive(Debug)]
#[must_use = "iterators are lazy"]
pub struct Pieces<S, K> {
    slice: S,
    kind: K,
}

impl<S, K> Pieces<S, K> {
    pub(super) fn new(slice: S, kind: K) -> Self {
        Pieces { slice, kind }
    }
}

/// `par_split`'s iterator.
pub type Split<'a, T, P> = Pieces<&'a [T], SplitOn<P>>;
/// `par_split_mut`'s iterator.
pub type SplitMut<'a, T, P> = Pieces<&'a mut [T], SplitOn<P>>;
/// `par_split_inclusive`'s iterator.
pub type SplitInclusive<'a, T, P> = Pieces<&'a [T], SplitInclusiveOn<P>>;
/// `par_split_inclusive_mut`'s iterator.
pub type SplitInclusiveMut<'a, T, P> = Pieces<&'a mut [T], SplitInclusiveOn<P>>;
/// `par_chunk_by`'s iterator.
pub type ChunkBy<'a, T, P> = Pieces<&'a [T], ChunkByOn<P>>;
/// `par_chunk_by_mut`'s iterator.
pub type ChunkByMut<'a, T, P> = Pieces<&'a mut [T], ChunkByOn<P>>;

/// The kinds' constructors, for the slice traits.
pub(super) fn split_on<P>(p: P) -> SplitOn<P> {
    SplitOn(p)
}
pub(super) fn split_inclusive_on<P>(p: P) -> SplitInclusiveOn<P> {
    SplitInclusiveOn(p)
}
pub(super) fn chunk_by_on<P>(p: P) -> ChunkByOn<P> {
    ChunkByOn(p)
}

impl<S: SliceRef, K: SliceKind<S>> ParallelIterator for Pieces<S, K> {
    type Item = S;
    fn drive_unindexed<C: UnindexedConsumer<S>>(self, consumer: C) -> C::Result {
        let p = Part { slice: self.slice, kind: &self.kind, tail: true };
        super::bridge::bridge_unindexed(p, consumer)
    }
}

/// A part of the slice; `tail`: it holds the slice's end.
struct Part<'k, S, K> {
    slice: S,
    kind: &'k K,
    tail: bool,
}

impl<S: SliceRef, K: SliceKind<S>> UnindexedProducer for Part<'_, S, K> {
    type Item = S;
    fn split(self) -> (Self, Option<Self>) {
        let n = self.slice.items().len();
        if n < MIN_PART {
            return (self, None);
        }
        match self.kind.cut(self.slice.items()) {
            Some(k) if k > 0 && k < n => {
                let (l, r) = self.slice.cut_at(k);
                let right = Part { slice: r, kind: self.kind, tail: self.tail };
                (Part { slice: l, kind: self.kind, tail: false }, Some(right))
            }
            _ => (self, None),
        }
    }
    fn fold_with<F: Folder<S>>(self, folder: F) -> F {
        self.kind.fold(self.slice, self.tail, folder)
    }
}
