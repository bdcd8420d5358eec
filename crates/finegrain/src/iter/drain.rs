//! `par_drain` of the collections other than `Vec` (whose range drain moves
//! items out in place, `vec.rs`): the whole of a `HashMap`, `HashSet` or
//! `BinaryHeap` ([`ParallelDrainFull`]), a range of a `VecDeque` or of a
//! `String`'s chars. Their items are drained serially into a `Vec`, which is
//! then split.

use super::par_iter::{IntoParallelIterator, ParallelIterator};
use super::vec::{IntoIter, ParallelDrainRange};
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher, Hash};
use std::ops::RangeBounds;

/// `par_drain()`: every item of a collection, moved out in parallel; the
/// collection is left empty.
pub trait ParallelDrainFull {
    /// The iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// What it yields.
    type Item: Send;
    /// Drain everything.
    fn par_drain(self) -> Self::Iter;
}

impl<K: Eq + Hash + Send, V: Send, S: BuildHasher> ParallelDrainFull for &mut HashMap<K, V, S> {
    type Iter = IntoIter<(K, V)>;
    type Item = (K, V);
    fn par_drain(self) -> Self::Iter {
        self.drain().collect::<Vec<_>>().into_par_iter()
    }
}

impl<T: Eq + Hash + Send, S: BuildHasher> ParallelDrainFull for &mut HashSet<T, S> {
    type Iter = IntoIter<T>;
    type Item = T;
    fn par_drain(self) -> Self::Iter {
        self.drain().collect::<Vec<_>>().into_par_iter()
    }
}

impl<T: Ord + Send> ParallelDrainFull for &mut BinaryHeap<T> {
    type Iter = IntoIter<T>;
    type Item = T;
    fn par_drain(self) -> Self::Iter {
        self.drain().collect::<Vec<_>>().into_par_iter()
    }
}

impl<T: Send> ParallelDrainRange<usize> for &mut VecDeque<T> {
    type Iter = IntoIter<T>;
    type Item = T;
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
        self.drain(range).collect::<Vec<_>>().into_par_iter()
    }
}

impl ParallelDrainRange<usize> for &mut String {
    type Iter = IntoIter<char>;
    type Item = char;
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Self::Iter {
        self.drain(range).collect::<Vec<_>>().into_par_iter()
    }
}
