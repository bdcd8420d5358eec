//! The adapter types: what `map`, `filter`, `zip`, ... return. Plain data
//! here; each one's behaviour (its `ParallelIterator` impl, producer and
//! consumer) is in the file named for it. Kept apart so that the traits,
//! whose provided methods return these types, do not depend on the files
//! that implement the traits for them.

use std::marker::PhantomData;

macro_rules! adapter {
    ($(#[doc = $doc:literal] $name:ident<$($g:ident),*> { $($field:ident: $ty:ty),* $(,)? })*) => {$(
        #[doc = $doc]
        #[derive(Clone, Debug)]
        #[must_use = "iterator adapters are lazy"]
        pub struct $name<$($g),*> {
            $(pub(super) $field: $ty,)*
        }

        impl<$($g),*> $name<$($g),*> {
            pub(super) fn new($($field: $ty),*) -> Self {
                $name { $($field),* }
            }
        }
    )*};
}

adapter! {
    /// Applies an operation to each item (`map`, `inspect`, `update`, `copied`, `cloned`).
    Map<I, F> { base: I, op: F }
    /// `map_with`'s iterator.
    MapWith<I, T, F> { base: I, item: T, f: F }
    /// `map_init`'s iterator.
    MapInit<I, INIT, F> { base: I, init: INIT, f: F }
    /// `filter`'s iterator.
    Filter<I, P> { base: I, p: P }
    /// `filter_map`'s iterator.
    FilterMap<I, F> { base: I, f: F }
    /// `while_some`'s iterator.
    WhileSome<I> { base: I }
    /// `flat_map`'s iterator.
    FlatMap<I, F> { base: I, f: F }
    /// `flat_map_iter`'s iterator.
    FlatMapIter<I, F> { base: I, f: F }
    /// `flatten`'s iterator.
    Flatten<I> { base: I }
    /// `flatten_iter`'s iterator.
    FlattenIter<I> { base: I }
    /// `fold`'s iterator.
    Fold<I, ID, F> { base: I, identity: ID, fold_op: F }
    /// `try_fold`'s iterator: one `R` per serial run; a failure stops every run.
    TryFold<I, R, ID, F> { base: I, identity: ID, fold_op: F, marker: PhantomData<fn() -> R> }
    /// `chain`'s iterator.
    Chain<A, B> { a: A, b: B }
    /// `enumerate`'s iterator.
    Enumerate<I> { base: I }
    /// `rev`'s iterator.
    Rev<I> { base: I }
    /// `skip`'s iterator.
    Skip<I> { base: I, n: usize }
    /// `take`'s iterator.
    Take<I> { base: I, n: usize }
    /// `step_by`'s iterator.
    StepBy<I> { base: I, step: usize }
    /// `zip`'s iterator (as long as the shorter).
    Zip<A, B> { a: A, b: B }
    /// `zip_eq`'s iterator (lengths checked equal when made).
    ZipEq<A, B> { inner: Zip<A, B> }
    /// `chunks`'s iterator.
    Chunks<I> { base: I, size: usize }
    /// `fold_chunks`'s iterator.
    FoldChunks<I, ID, F> { base: I, size: usize, identity: ID, fold_op: F }
    /// `by_exponential_blocks` (`size` 0) and `by_uniform_blocks`' iterator.
    Blocks<I> { base: I, size: usize }
    /// `interleave`'s (and `interleave_shortest`'s) iterator.
    Interleave<A, B> { a: A, b: B }
    /// `intersperse`'s iterator.
    Intersperse<I, T> { base: I, sep: T }
    /// `panic_fuse`'s iterator.
    PanicFuse<I> { base: I }
    /// `with_min_len`'s iterator.
    MinLen<I> { base: I, min: usize }
    /// `with_max_len`'s iterator.
    MaxLen<I> { base: I, max: usize }
}

/// `inspect`'s operation: look at each item, pass it on.
#[derive(Clone, Debug)]
pub struct InspectOp<F>(pub(super) F);

/// `update`'s operation: change each item in place, pass it on.
#[derive(Clone, Debug)]
pub struct UpdateOp<F>(pub(super) F);

/// `copied`'s operation.
#[derive(Clone, Copy, Debug, Default)]
pub struct CopiedOp;

/// `cloned`'s operation.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClonedOp;

/// `inspect`'s iterator.
pub type Inspect<I, F> = Map<I, InspectOp<F>>;
/// `update`'s iterator.
pub type Update<I, F> = Map<I, UpdateOp<F>>;
/// `copied`'s iterator.
pub type Copied<I> = Map<I, CopiedOp>;
/// `cloned`'s iterator.
pub type Cloned<I> = Map<I, ClonedOp>;
