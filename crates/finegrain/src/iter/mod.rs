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

mod adapters;
mod blocks;
pub mod bridge;
mod chain;
mod chunks;
mod collect;
mod collections;
mod consume;
mod drain;
mod either;
mod enumerate;
mod filter;
mod find;
mod flat_map;
mod fold;
mod indexed;
mod interleave;
mod intersperse;
mod map;
mod map_with;
mod min_len;
mod multizip;
mod once;
mod panic_fuse;
mod par_bridge;
mod par_iter;
pub mod plumbing;
mod range;
mod ref_iter;
mod repeat;
mod rev;
mod skip_take;
mod slice;
mod slice_split;
mod sort;
mod sort_unstable;
mod step_by;
mod string;
mod try_ops;
mod vec;
mod walk_tree;
mod zip;

pub use self::{
    adapters::{
        Blocks, Chain, Chunks, Cloned, FoldChunks, Interleave, Intersperse, PanicFuse, ClonedOp, Copied, CopiedOp, Enumerate, Filter, FilterMap, FlatMap, FlatMapIter, Flatten, FlattenIter, Fold, Inspect,
        InspectOp, Map, MapInit, MapWith, MaxLen, MinLen, Rev, Skip, StepBy, Take, TryFold, Update, UpdateOp, WhileSome, Zip, ZipEq,
    },
    drain::ParallelDrainFull,
    either::Either,
    indexed::IndexedParallelIterator,
    map::MapOp,
    once::{empty, once, repeat_n, repeatn},
    repeat::{repeat, split, Repeat, Split},
    par_bridge::{IterBridge, ParallelBridge},
    par_iter::{FromParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator},
    ref_iter::{IntoParallelRefIterator, IntoParallelRefMutIterator},
    range::{RangeInt, RangeIter},
    slice::{ParallelSlice, ParallelSliceMut},
    string::ParallelString,
    try_ops::Try,
    vec::{Drain, IntoIter, ParallelDrainRange},
    walk_tree::{walk_tree, walk_tree_postfix, walk_tree_prefix, WalkTree},
};

