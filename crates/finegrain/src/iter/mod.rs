//! Parallel iterators with Rayon's names and meaning, so that
//! `use rayon::prelude::*;` becomes `use finegrain::prelude::*;`.
//!
//! ```
//! use finegrain::prelude::*;
//! let v: Vec<u64> = (0..10_000u64).collect();
//! let s: u64 = v.par_iter().map(|x| x * x).filter(|x| x % 3 == 0).sum();
//! assert_eq!(s, v.iter().map(|x| x * x).filter(|x| x % 3 == 0).sum());
//! let mut w = vec![5, 3, 9, 1];
//! w.par_sort();
//! assert_eq!(w, [1, 3, 5, 9]);
//! ```
//!
//! The design is Rayon's (Stone, Matsakis et al., the `rayon` crate):
//! [`ParallelIterator`] for any parallel iterator, [`IndexedParallelIterator`]
//! for those that know their length and can be split at an index; sources
//! provide [`plumbing::Producer`]s, consumers provide
//! [`plumbing::Consumer`]s, and [`bridge`] joins the two, deciding where to
//! split. The splitting is finegrain's: lazy binary splitting through the
//! worker's own split decision (`policy::split`), described in [`bridge`].
//! `docs/iterators.md` has the port of a Rayon program and what is missing.

pub mod bridge;
mod chain;
mod chunks;
mod collect;
mod collections;
mod consume;
mod enumerate;
mod filter;
mod find;
mod flat_map;
mod fold;
mod indexed;
mod map;
mod map_with;
mod min_len;
mod par_bridge;
mod par_iter;
pub mod plumbing;
mod range;
mod rev;
mod skip_take;
mod slice;
mod sort;
mod sort_unstable;
mod step_by;
mod string;
mod try_ops;
mod vec;
mod zip;

pub use self::{
    chain::Chain,
    chunks::Chunks,
    enumerate::Enumerate,
    filter::{Filter, FilterMap, WhileSome},
    flat_map::{FlatMap, FlatMapIter, Flatten, FlattenIter},
    fold::{Fold, TryFold},
    indexed::IndexedParallelIterator,
    map::{Cloned, Copied, Inspect, Map, MapOp, Update},
    map_with::{MapInit, MapWith},
    min_len::{MaxLen, MinLen},
    par_bridge::{IterBridge, ParallelBridge},
    par_iter::ParallelIterator,
    range::{RangeInt, RangeIter},
    rev::Rev,
    skip_take::{Skip, Take},
    slice::{ParallelSlice, ParallelSliceMut},
    step_by::StepBy,
    string::ParallelString,
    try_ops::Try,
    vec::IntoIter,
    zip::{Zip, ZipEq},
};

/// Anything that can become a parallel iterator (`into_par_iter`).
pub trait IntoParallelIterator {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// What it yields.
    type Item: Send;
    /// Make the parallel iterator.
    fn into_par_iter(self) -> Self::Iter;
}

impl<I: ParallelIterator> IntoParallelIterator for I {
    type Iter = I;
    type Item = I::Item;
    fn into_par_iter(self) -> I {
        self
    }
}

/// `par_iter()` for anything whose reference is [`IntoParallelIterator`].
pub trait IntoParallelRefIterator<'data> {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// What it yields (usually `&'data T`).
    type Item: Send + 'data;
    /// Iterate over references in parallel.
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefIterator<'data> for I
where
    &'data I: IntoParallelIterator,
{
    type Iter = <&'data I as IntoParallelIterator>::Iter;
    type Item = <&'data I as IntoParallelIterator>::Item;
    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_iter_mut()` for anything whose mutable reference is
/// [`IntoParallelIterator`].
pub trait IntoParallelRefMutIterator<'data> {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// What it yields (usually `&'data mut T`).
    type Item: Send + 'data;
    /// Iterate over mutable references in parallel.
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefMutIterator<'data> for I
where
    &'data mut I: IntoParallelIterator,
{
    type Iter = <&'data mut I as IntoParallelIterator>::Iter;
    type Item = <&'data mut I as IntoParallelIterator>::Item;
    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// A collection that can be built from a parallel iterator (`collect`).
pub trait FromParallelIterator<T: Send> {
    /// Build it.
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self;
}

/// A collection that can be extended from a parallel iterator (`par_extend`).
pub trait ParallelExtend<T: Send> {
    /// Add every item.
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I);
}
