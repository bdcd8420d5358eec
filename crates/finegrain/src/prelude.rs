//! The traits that make parallel iterators work, under Rayon's names:
//! `use finegrain::prelude::*;` where a Rayon program has
//! `use rayon::prelude::*;`.

pub use crate::iter::{
    FromParallelIterator, IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator, ParallelBridge,
    ParallelDrainFull, ParallelDrainRange, ParallelExtend, ParallelIterator, ParallelSlice, ParallelSliceMut, ParallelString,
};
