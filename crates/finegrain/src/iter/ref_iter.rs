//! `par_iter()` and `par_iter_mut()`: for anything whose shared or mutable
//! reference is [`IntoParallelIterator`] (slices, `Vec`, the collections,
//! `Option`).

use super::par_iter::{IntoParallelIterator, ParallelIterator};

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
