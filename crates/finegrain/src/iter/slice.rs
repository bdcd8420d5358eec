//! Slices as sources: `par_iter`, `par_iter_mut`, `par_chunks(_mut)`,
//! `par_chunks_exact(_mut)`, `par_windows`, `par_split`; and the
//! [`ParallelSlice`]/[`ParallelSliceMut`] traits that carry them and the
//! parallel sorts (`sort.rs`, `sort_unstable.rs`).

use super::indexed::{bridge_indexed, IndexedParallelIterator};
use super::plumbing::{Consumer, Producer, ProducerCallback, UnindexedConsumer};
use super::slice_split::{chunk_by_on, split_inclusive_on, split_on, ChunkBy, ChunkByMut, Pieces, Split, SplitInclusive, SplitInclusiveMut, SplitMut};
use super::par_iter::{IntoParallelIterator, ParallelIterator};

/// A view of a slice that splits by index: what [`Par`] turns into an
/// indexed parallel iterator.
pub trait Piece: Send + Sized {
    /// What it yields.
    type Item: Send;
    /// Its serial iterator.
    type Iter: Iterator<Item = Self::Item> + DoubleEndedIterator + ExactSizeIterator;
    /// The number of items.
    fn len(&self) -> usize;
    /// Split before item `index`.
    fn split_at(self, index: usize) -> (Self, Self);
    /// The serial iterator.
    fn iter(self) -> Self::Iter;
}

/// An indexed parallel iterator over a [`Piece`].
#[derive(Clone, Debug)]
#[must_use = "iterators are lazy"]
pub struct Par<P>(pub(crate) P);

impl<P: Piece> ParallelIterator for Par<P> {
    type Item = P::Item;
    fn drive_unindexed<C: UnindexedConsumer<P::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn opt_len(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

impl<P: Piece> IndexedParallelIterator for Par<P> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn drive<C: Consumer<P::Item>>(self, consumer: C) -> C::Result {
        bridge_indexed(self, consumer)
    }
    fn with_producer<CB: ProducerCallback<P::Item>>(self, callback: CB) -> CB::Output {
        callback.callback(self)
    }
}

impl<P: Piece> Producer for Par<P> {
    type Item = P::Item;
    type IntoIter = P::Iter;
    fn into_iter(self) -> P::Iter {
        self.0.iter()
    }
    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.0.split_at(index);
        (Par(l), Par(r))
    }
}

/// `&[T]`'s items.
#[derive(Debug)]
pub struct Items<'a, T>(&'a [T]);
/// `&mut [T]`'s items.
#[derive(Debug)]
pub struct ItemsMut<'a, T>(&'a mut [T]);
/// Chunks of `&[T]` (`exact`: only whole ones).
#[derive(Debug)]
pub struct ChunksOf<'a, T, const EXACT: bool>(&'a [T], usize);
/// Chunks of `&mut [T]`.
#[derive(Debug)]
pub struct ChunksMutOf<'a, T, const EXACT: bool>(&'a mut [T], usize);
/// Overlapping windows of `&[T]`.
#[derive(Debug)]
pub struct WindowsOf<'a, T>(&'a [T], usize);

impl<T> Clone for Items<'_, T> {
    fn clone(&self) -> Self {
        Items(self.0)
    }
}

impl<'a, T: Sync> Piece for Items<'a, T> {
    type Item = &'a T;
    type Iter = std::slice::Iter<'a, T>;
    fn len(&self) -> usize {
        self.0.len()
    }
    fn split_at(self, i: usize) -> (Self, Self) {
        let (l, r) = self.0.split_at(i);
        (Items(l), Items(r))
    }
    fn iter(self) -> Self::Iter {
        self.0.iter()
    }
}

impl<'a, T: Send> Piece for ItemsMut<'a, T> {
    type Item = &'a mut T;
    type Iter = std::slice::IterMut<'a, T>;
    fn len(&self) -> usize {
        self.0.len()
    }
    fn split_at(self, i: usize) -> (Self, Self) {
        let (l, r) = self.0.split_at_mut(i);
        (ItemsMut(l), ItemsMut(r))
    }
    fn iter(self) -> Self::Iter {
        self.0.iter_mut()
    }
}

/// The slice length a chunk piece covers up to chunk `i`.
fn chunk_end(len: usize, size: usize, i: usize) -> usize {
    i.saturating_mul(size).min(len)
}

impl<'a, T: Sync> Piece for ChunksOf<'a, T, false> {
    type Item = &'a [T];
    type Iter = std::slice::Chunks<'a, T>;
    fn len(&self) -> usize {
        self.0.len().div_ceil(self.1)
    }
    fn split_at(self, i: usize) -> (Self, Self) {
        let (l, r) = self.0.split_at(chunk_end(self.0.len(), self.1, i));
        (ChunksOf(l, self.1), ChunksOf(r, self.1))
    }
    fn iter(self) -> Self::Iter {
        self.0.chunks(self.1)
    }
}

impl<'a, T: Sync> Piece for ChunksOf<'a, T, true> {
    type Item = &'a [T];
    type Iter = std::slice::ChunksExact<'a, T>;
    fn len(&self) -> usize {
        self.0.len() / self.1
    }
    fn split_at(self, i: usize) -> (Self, Self) {
        let (l, r) = self.0.split_at(chunk_end(self.0.len(), self.1, i));
        (ChunksOf(l, self.1), ChunksOf(r, self.1))
    }
    fn iter(self) -> Self::Iter {
        self.0.chunks_exact(self.1)
    }
}

impl<'a, T: Send> Piece for ChunksMutOf<'a, T, false> {
    type Item = &'a mut [T];
    type Iter = std::slice::ChunksMut<'a, T>;
    fn len(&self) -> usize {
        self.0.len().div_ceil(self.1)
    }
    fn split_at(self, i: usize) -> (Self, Self) {
        let at = chunk_end(self.0.len(), self.1, i);
        let (l, r) = self.0.split_at_mut(at);
        (ChunksMutOf(l, self.1), ChunksMutOf(r, self.1))
    }
    fn iter(self) -> Self::Iter {
        self.0.chunks_mut(self.1)
    }
}

impl<'a, T: Send> Piece for ChunksMutOf<'a, T, true> {
    type Item = &'a mut [T];
    type Iter = std::slice::ChunksExactMut<'a, T>;
    fn len(&self) -> usize {
        self.0.len() / self.1
    }
    fn split_at(self, i: usize) -> (Self, Self) {
        let at = chunk_end(self.0.len(), self.1, i);
        let (l, r) = self.0.split_at_mut(at);
        (ChunksMutOf(l, self.1), ChunksMutOf(r, self.1))
    }
    fn iter(self) -> Self::Iter {
        self.0.chunks_exact_mut(self.1)
    }
}

impl<'a, T: Sync> Piece for WindowsOf<'a, T> {
    type Item = &'a [T];
    type Iter = std::slice::Windows<'a, T>;
    fn len(&self) -> usize {
        (self.0.len() + 1).saturating_sub(self.1)
    }
    fn split_at(self, i: usize) -> (Self, Self) {
        let (len, w) = (self.0.len(), self.1);
        // Window `k` covers `k..k + w`: the left keeps the elements its
        // windows need, the right starts at its first window.
        (WindowsOf(&self.0[..(i + w - 1).min(len)], w), WindowsOf(&self.0[i.min(len)..], w))
    }
    fn iter(self) -> Self::Iter {
        self.0.windows(self.1)
    }
}

/// Chunks of `&[T]` counted from the end (`EXACT`: only whole ones; the
/// remainder is at the front).
#[derive(Debug)]
pub struct RChunksOf<'a, T, const EXACT: bool>(&'a [T], usize);
/// Chunks of `&mut [T]` counted from the end.
#[derive(Debug)]
pub struct RChunksMutOf<'a, T, const EXACT: bool>(&'a mut [T], usize);

macro_rules! rchunks {
    ($t:ident, $bound:ident, $item:ty, $split:ident, [$($exact:literal => $iter:ident, $method:ident, $len:expr;)*]) => {$(
        impl<'a, T: $bound> Piece for $t<'a, T, $exact> {
            type Item = $item;
            type Iter = std::slice::$iter<'a, T>;
            fn len(&self) -> usize {
                #[allow(clippy::redundant_closure_call)]
                ($len)(self.0.len(), self.1)
            }
            fn split_at(self, i: usize) -> (Self, Self) {
                // The first `i` chunks are the last `i * size` items.
                let at = self.0.len() - chunk_end(self.0.len(), self.1, i);
                let (front, back) = self.0.$split(at);
                ($t(back, self.1), $t(front, self.1))
            }
            fn iter(self) -> Self::Iter {
                self.0.$method(self.1)
            }
        }
    )*};
}

rchunks!(RChunksOf, Sync, &'a [T], split_at, [
    false => RChunks, rchunks, |n: usize, s: usize| n.div_ceil(s);
    true => RChunksExact, rchunks_exact, |n: usize, s: usize| n / s;
]);
rchunks!(RChunksMutOf, Send, &'a mut [T], split_at_mut, [
    false => RChunksMut, rchunks_mut, |n: usize, s: usize| n.div_ceil(s);
    true => RChunksExactMut, rchunks_exact_mut, |n: usize, s: usize| n / s;
]);

/// `par_iter()` over a slice.
pub type Iter<'a, T> = Par<Items<'a, T>>;
/// `par_iter_mut()` over a slice.
pub type IterMut<'a, T> = Par<ItemsMut<'a, T>>;
/// `par_chunks`.
pub type Chunks<'a, T> = Par<ChunksOf<'a, T, false>>;
/// `par_chunks_exact`.
pub type ChunksExact<'a, T> = Par<ChunksOf<'a, T, true>>;
/// `par_chunks_mut`.
pub type ChunksMut<'a, T> = Par<ChunksMutOf<'a, T, false>>;
/// `par_chunks_exact_mut`.
pub type ChunksExactMut<'a, T> = Par<ChunksMutOf<'a, T, true>>;
/// `par_windows`.
pub type Windows<'a, T> = Par<WindowsOf<'a, T>>;
/// `par_rchunks`.
pub type RChunks<'a, T> = Par<RChunksOf<'a, T, false>>;
/// `par_rchunks_exact`.
pub type RChunksExact<'a, T> = Par<RChunksOf<'a, T, true>>;
/// `par_rchunks_mut`.
pub type RChunksMut<'a, T> = Par<RChunksMutOf<'a, T, false>>;
/// `par_rchunks_exact_mut`.
pub type RChunksExactMut<'a, T> = Par<RChunksMutOf<'a, T, true>>;

impl<'a, T: Sync> IntoParallelIterator for &'a [T] {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Self::Iter {
        Par(Items(self))
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut [T] {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> Self::Iter {
        Par(ItemsMut(self))
    }
}

impl<'a, T: Sync> IntoParallelIterator for &'a Vec<T> {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Self::Iter {
        Par(Items(self))
    }
}

impl<'a, T: Send> IntoParallelIterator for &'a mut Vec<T> {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> Self::Iter {
        Par(ItemsMut(self))
    }
}

impl<'a, T: Sync, const N: usize> IntoParallelIterator for &'a [T; N] {
    type Iter = Iter<'a, T>;
    type Item = &'a T;
    fn into_par_iter(self) -> Self::Iter {
        Par(Items(self))
    }
}

impl<'a, T: Send, const N: usize> IntoParallelIterator for &'a mut [T; N] {
    type Iter = IterMut<'a, T>;
    type Item = &'a mut T;
    fn into_par_iter(self) -> Self::Iter {
        Par(ItemsMut(self))
    }
}

/// Parallel views of a shared slice (and, through `Deref`, of a `Vec`).
pub trait ParallelSlice<T: Sync> {
    /// The slice.
    fn as_parallel_slice(&self) -> &[T];

    /// Chunks of `size` (the last may be shorter).
    fn par_chunks(&self, size: usize) -> Chunks<'_, T> {
        assert!(size != 0, "par_chunks: size must not be zero");
        Par(ChunksOf(self.as_parallel_slice(), size))
    }

    /// Chunks of exactly `size`; the remainder is left out.
    fn par_chunks_exact(&self, size: usize) -> ChunksExact<'_, T> {
        assert!(size != 0, "par_chunks_exact: size must not be zero");
        Par(ChunksOf(self.as_parallel_slice(), size))
    }

    /// Chunks of `size` from the end (the first may be shorter).
    fn par_rchunks(&self, size: usize) -> RChunks<'_, T> {
        assert!(size != 0, "par_rchunks: size must not be zero");
        Par(RChunksOf(self.as_parallel_slice(), size))
    }

    /// Chunks of exactly `size` from the end; the remainder at the front is left out.
    fn par_rchunks_exact(&self, size: usize) -> RChunksExact<'_, T> {
        assert!(size != 0, "par_rchunks_exact: size must not be zero");
        Par(RChunksOf(self.as_parallel_slice(), size))
    }

    /// Every window of `size` consecutive items.
    fn par_windows(&self, size: usize) -> Windows<'_, T> {
        assert!(size != 0, "par_windows: size must not be zero");
        Par(WindowsOf(self.as_parallel_slice(), size))
    }

    /// The subslices between items matching `sep` (as `slice::split`).
    fn par_split<P: Fn(&T) -> bool + Sync + Send>(&self, sep: P) -> Split<'_, T, P> {
        Pieces::new(self.as_parallel_slice(), split_on(sep))
    }

    /// The subslices each ending with a separator (as `slice::split_inclusive`).
    fn par_split_inclusive<P: Fn(&T) -> bool + Sync + Send>(&self, sep: P) -> SplitInclusive<'_, T, P> {
        Pieces::new(self.as_parallel_slice(), split_inclusive_on(sep))
    }

    /// The runs of items that `same` joins pairwise (as `slice::chunk_by`).
    fn par_chunk_by<P: Fn(&T, &T) -> bool + Sync + Send>(&self, same: P) -> ChunkBy<'_, T, P> {
        Pieces::new(self.as_parallel_slice(), chunk_by_on(same))
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// Parallel views of a mutable slice, and the parallel sorts.
pub trait ParallelSliceMut<T: Send> {
    /// The slice.
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// Mutable chunks of `size` (the last may be shorter).
    fn par_chunks_mut(&mut self, size: usize) -> ChunksMut<'_, T> {
        assert!(size != 0, "par_chunks_mut: size must not be zero");
        Par(ChunksMutOf(self.as_parallel_slice_mut(), size))
    }

    /// Mutable chunks of exactly `size`; the remainder is left out.
    fn par_chunks_exact_mut(&mut self, size: usize) -> ChunksExactMut<'_, T> {
        assert!(size != 0, "par_chunks_exact_mut: size must not be zero");
        Par(ChunksMutOf(self.as_parallel_slice_mut(), size))
    }

    /// Mutable chunks of `size` from the end (the first may be shorter).
    fn par_rchunks_mut(&mut self, size: usize) -> RChunksMut<'_, T> {
        assert!(size != 0, "par_rchunks_mut: size must not be zero");
        Par(RChunksMutOf(self.as_parallel_slice_mut(), size))
    }

    /// Mutable chunks of exactly `size` from the end.
    fn par_rchunks_exact_mut(&mut self, size: usize) -> RChunksExactMut<'_, T> {
        assert!(size != 0, "par_rchunks_exact_mut: size must not be zero");
        Par(RChunksMutOf(self.as_parallel_slice_mut(), size))
    }

    /// Mutable subslices between items matching `sep` (as `slice::split_mut`).
    fn par_split_mut<P: Fn(&T) -> bool + Sync + Send>(&mut self, sep: P) -> SplitMut<'_, T, P> {
        Pieces::new(self.as_parallel_slice_mut(), split_on(sep))
    }

    /// Mutable subslices each ending with a separator.
    fn par_split_inclusive_mut<P: Fn(&T) -> bool + Sync + Send>(&mut self, sep: P) -> SplitInclusiveMut<'_, T, P> {
        Pieces::new(self.as_parallel_slice_mut(), split_inclusive_on(sep))
    }

    /// Mutable runs of items that `same` joins pairwise.
    fn par_chunk_by_mut<P: Fn(&T, &T) -> bool + Sync + Send>(&mut self, same: P) -> ChunkByMut<'_, T, P> {
        Pieces::new(self.as_parallel_slice_mut(), chunk_by_on(same))
    }

    /// Stable sort (parallel merge sort).
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        super::sort::merge_sort(self.as_parallel_slice_mut(), &T::lt)
    }

    /// Stable sort by a comparator.
    fn par_sort_by<F: Fn(&T, &T) -> std::cmp::Ordering + Sync>(&mut self, cmp: F) {
        super::sort::merge_sort(self.as_parallel_slice_mut(), &|a: &T, b: &T| cmp(a, b).is_lt())
    }

    /// Stable sort by a key.
    fn par_sort_by_key<K: Ord, F: Fn(&T) -> K + Sync>(&mut self, key: F) {
        super::sort::merge_sort(self.as_parallel_slice_mut(), &|a: &T, b: &T| key(a) < key(b))
    }

    /// Stable sort by a key computed once per item (in parallel).
    fn par_sort_by_cached_key<K: Ord + Send, F: Fn(&T) -> K + Sync>(&mut self, key: F) {
        super::sort::sort_by_cached_key(self.as_parallel_slice_mut(), &key)
    }

    /// Unstable sort (parallel quicksort).
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        super::sort_unstable::quicksort(self.as_parallel_slice_mut(), &T::lt)
    }

    /// Unstable sort by a comparator.
    fn par_sort_unstable_by<F: Fn(&T, &T) -> std::cmp::Ordering + Sync>(&mut self, cmp: F) {
        super::sort_unstable::quicksort(self.as_parallel_slice_mut(), &|a: &T, b: &T| cmp(a, b).is_lt())
    }

    /// Unstable sort by a key.
    fn par_sort_unstable_by_key<K: Ord, F: Fn(&T) -> K + Sync>(&mut self, key: F) {
        super::sort_unstable::quicksort(self.as_parallel_slice_mut(), &|a: &T, b: &T| key(a) < key(b))
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}
