//! The traits every parallel iterator is built from: producers (which split
//! by index), consumers (which split alongside them and fold what a producer
//! yields), folders (the serial part) and reducers (which join the results of
//! two halves).
//!
//! This is the producer/consumer design of Rayon (Stone, Matsakis et al., the
//! `rayon` crate, `iter::plumbing`): an adapter such as `map` wraps the
//! *producer* when the iterator is indexed (so `zip` and `collect_into_vec`
//! still know positions) and wraps the *consumer* otherwise; a source meets a
//! consumer in [`bridge`](super::bridge), which decides where to split.
//! The code here is finegrain's own; only the shape follows Rayon's.

/// A splittable source of a known number of items.
pub trait Producer: Send + Sized {
    /// What it yields.
    type Item;
    /// The serial iterator over its items.
    type IntoIter: Iterator<Item = Self::Item> + DoubleEndedIterator + ExactSizeIterator;

    /// The serial iterator over its items.
    fn into_iter(self) -> Self::IntoIter;

    /// Do not split below this many items (`with_min_len`).
    fn min_len(&self) -> usize {
        1
    }

    /// Split while longer than this (`with_max_len`).
    fn max_len(&self) -> usize {
        usize::MAX
    }

    /// The items before `index` and those from it on.
    fn split_at(self, index: usize) -> (Self, Self);

    /// Feed every item to `folder`, stopping once it is full.
    fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F {
        folder.consume_iter(self.into_iter())
    }
}

/// A source that can halve itself but does not know its length.
pub trait UnindexedProducer: Send + Sized {
    /// What it yields.
    type Item;

    /// Halve, or return `None` as the second part when it cannot.
    fn split(self) -> (Self, Option<Self>);

    /// Feed every item to `folder`, stopping once it is full.
    fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F;
}

/// The receiving end of an indexed drive: splits at the same indices as
/// its producer, and becomes a [`Folder`] for a serial run.
pub trait Consumer<Item>: Send + Sized {
    /// The serial part.
    type Folder: Folder<Item, Result = Self::Result>;
    /// Joins the results of two halves.
    type Reducer: Reducer<Self::Result>;
    /// What a drive returns.
    type Result: Send;

    /// Consumers for the items before `index` and from it on, and how to join
    /// their results.
    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer);

    /// The serial part.
    fn into_folder(self) -> Self::Folder;

    /// True once no more items are wanted (a short-circuiting consumer has its
    /// answer): remaining splits are then skipped.
    fn full(&self) -> bool;
}

/// A consumer that can also split where no index is known.
pub trait UnindexedConsumer<Item>: Consumer<Item> {
    /// A consumer for items that come before all of `self`'s.
    fn split_off_left(&self) -> Self;

    /// How to join the result of [`split_off_left`](Self::split_off_left)'s
    /// consumer (left) with `self`'s (right).
    fn to_reducer(&self) -> Self::Reducer;
}

/// The serial fold at the leaves.
pub trait Folder<Item>: Sized {
    /// What it completes with.
    type Result;

    /// Take one item.
    fn consume(self, item: Item) -> Self;

    /// Take items until they run out or it is full.
    fn consume_iter<I: IntoIterator<Item = Item>>(mut self, iter: I) -> Self {
        for item in iter {
            self = self.consume(item);
            if self.full() {
                break;
            }
        }
        self
    }

    /// The result.
    fn complete(self) -> Self::Result;

    /// True once no more items are wanted.
    fn full(&self) -> bool;
}

/// Joins the results of a left and a right half, in that order.
pub trait Reducer<Result> {
    /// `left` covers items before `right`'s.
    fn reduce(self, left: Result, right: Result) -> Result;
}

/// What [`IndexedParallelIterator::with_producer`](super::IndexedParallelIterator::with_producer)
/// hands its producer to (a generic closure, which Rust lacks).
pub trait ProducerCallback<T> {
    /// What the callback returns.
    type Output;
    /// Use `producer`.
    fn callback<P: Producer<Item = T>>(self, producer: P) -> Self::Output;
}

/// A reducer that ignores both sides (for `()` results).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoopReducer;

impl Reducer<()> for NoopReducer {
    fn reduce(self, _: (), _: ()) {}
}
