//! Small sources: [`once`], [`empty`], [`repeat_n`] (Rayon's `rayon::iter`
//! functions of the same names).

use super::indexed::IndexedParallelIterator;
use super::par_iter::{IntoParallelIterator, ParallelIterator};
use super::vec::IntoIter;

/// One item.
pub fn once<T: Send>(item: T) -> IntoIter<T> {
    Some(item).into_par_iter()
}

/// No items.
pub fn empty<T: Send>() -> IntoIter<T> {
    Vec::new().into_par_iter()
}

/// `n` clones of `item` (indexed).
pub fn repeat_n<T: Clone + Send + Sync>(item: T, n: usize) -> impl IndexedParallelIterator<Item = T> {
    (0..n).into_par_iter().map(move |_| item.clone())
}

/// Rayon's older name of [`repeat_n`].
pub fn repeatn<T: Clone + Send + Sync>(item: T, n: usize) -> impl IndexedParallelIterator<Item = T> {
    repeat_n(item, n)
}

