//! Where a map task's emitted pairs go: one container per worker, chosen by
//! the key space as Phoenix++ chooses (Talbot, Yoo, Kozyrakis, "Phoenix++:
//! Modular MapReduce for Shared-Memory Systems", MAPREDUCE 2011, section 3):
//!
//! - [`Dense`]: keys `0..n`, a plain array of values; a histogram's 768
//!   bins or k-means' clusters never touch a hash table.
//! - [`Hashed`]: any hashable key, combined on emit into the worker's hash
//!   table. The merge splits every table into `rows` bucket rows by hash:
//!   the rows of Phoenix 2's bucket matrix (Yoo, thesis, section 3.2.2:
//!   columns are the map workers, rows the hash buckets), built once per
//!   distinct key rather than on every emit; rows then merge in parallel, a
//!   key meeting its other copies in one place.
//! - [`Buffer`]: no combining, every pair appended (keys known to be unique,
//!   or jobs that want every value).
//!
//! Containers are cleared, not freed, between runs of one
//! [`MapReduce`](super::MapReduce): their memory is the per-worker pool the
//! thesis found it needed (section 3.3.4), so an iterative job (k-means)
//! does not allocate and fault its intermediate data again each iteration.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

use rustc_hash::FxBuildHasher;

/// One worker's intermediate pairs. Implemented by [`Dense`], [`Hashed`] and
/// [`Buffer`]; the job is generic over it, so `emit` is a direct call.
pub trait Container: Send + Sized {
    type Key: Send;
    type Value: Send;
    /// What every container of one job shares (the key count, the rows).
    type Config: Send + Sync + Clone;
    fn with_config(cfg: &Self::Config) -> Self;
    /// Add `(key, value)`, folding `value` into the key's value with
    /// `combine` where the container combines.
    fn emit<F: Fn(&mut Self::Value, Self::Value)>(&mut self, key: Self::Key, value: Self::Value, combine: &F);
    /// Forget every pair, keeping the memory.
    fn clear(&mut self);
    /// The pairs of every container, each key once (its values combined),
    /// in key order where `sorted`; leaves the containers empty.
    fn merge<F: Fn(&mut Self::Value, Self::Value) + Sync>(
        parts: &mut [Self],
        cfg: &Self::Config,
        combine: &F,
        sorted: bool,
    ) -> Vec<(Self::Key, Self::Value)>;
}

/// Run `f` on every item of `items`, in parallel by halves (the merge's
/// key ranges and bucket rows).
pub(super) fn par_each<T: Send, F: Fn(&mut T) + Sync>(items: &mut [T], f: &F) {
    match items.len() {
        0 => {}
        1 => f(&mut items[0]),
        n => {
            let (a, b) = items.split_at_mut(n / 2);
            crate::join(|| par_each(a, f), || par_each(b, f));
        }
    }
}

/// One key range of a dense merge: part 0's slots and every other part's.
type RangeWork<'a, V> = (&'a mut [Option<V>], Vec<&'a mut [Option<V>]>);
/// One worker's table of a hashed merge and its pairs split into rows.
type Split<'a, C, K, V> = (&'a mut C, Vec<Vec<(K, V)>>);
/// One bucket row of a hashed merge: every worker's pairs of the row, and
/// the merged pairs.
type RowWork<K, V> = (Vec<Vec<(K, V)>>, Vec<(K, V)>);

/// Keys `0..n` (`usize`), one slot per key.
#[derive(Debug)]
pub struct Dense<V> {
    values: Vec<Option<V>>,
    /// The array a map task adds into directly ([`Emitter::slots`](super::Emitter::slots)):
    /// empty until first lent in a run, folded into `values` at the merge.
    lent: Vec<V>,
}

impl<V> Dense<V> {
    /// Fold `values[k]` into key `k`'s value for every `k` of `values`.
    #[inline]
    pub(super) fn emit_all<F: Fn(&mut V, V)>(&mut self, values: impl IntoIterator<Item = V>, combine: &F) {
        let n = self.values.len();
        let mut it = values.into_iter();
        for (slot, v) in self.values.iter_mut().zip(&mut it) {
            match slot {
                Some(x) => combine(x, v),
                None => *slot = Some(v),
            }
        }
        assert!(it.next().is_none(), "mapreduce: more values emitted than the dense container's {n} keys");
    }

    /// Fold the lent array, if this run lent it, into the keys' values;
    /// keeps its memory for the next run.
    fn fold_lent<F: Fn(&mut V, V)>(&mut self, combine: &F) {
        if !self.lent.is_empty() {
            let mut lent = std::mem::take(&mut self.lent);
            self.emit_all(lent.drain(..), combine);
            self.lent = lent;
        }
    }
}

impl<V: Default> Dense<V> {
    /// The worker's own array of one value per key, each `V::default()`
    /// when first lent in a run; folded into the keys' values at the merge.
    #[inline]
    pub(super) fn lend(&mut self) -> &mut [V] {
        if self.lent.is_empty() {
            self.lent.resize_with(self.values.len(), V::default);
        }
        &mut self.lent
    }
}

impl<V: Send> Container for Dense<V> {
    type Key = usize;
    type Value = V;
    type Config = usize;
    fn with_config(n: &usize) -> Self {
        Dense { values: (0..*n).map(|_| None).collect(), lent: Vec::new() }
    }
    #[inline]
    fn emit<F: Fn(&mut V, V)>(&mut self, key: usize, value: V, combine: &F) {
        let n = self.values.len();
        let Some(slot) = self.values.get_mut(key) else {
            panic!("mapreduce: key {key} emitted into a dense container of {n} keys (0..{n})");
        };
        match slot {
            Some(v) => combine(v, value),
            None => *slot = Some(value),
        }
    }
    fn clear(&mut self) {
        self.values.iter_mut().for_each(|v| *v = None);
        self.lent.clear();
    }
    fn merge<F: Fn(&mut V, V) + Sync>(parts: &mut [Self], n: &usize, combine: &F, _sorted: bool) -> Vec<(usize, V)> {
        let n = *n;
        if parts.is_empty() {
            return Vec::new();
        }
        par_each(parts, &|p: &mut Self| p.fold_lent(combine));
        // Key ranges of at least 64 keys, about four per worker, merged in
        // parallel: range r takes its keys out of every part into part 0's.
        let ranges = (4 * crate::current_num_threads()).clamp(1, n.div_ceil(64).max(1));
        let len = n.div_ceil(ranges).max(1);
        let (first, rest) = parts.split_first_mut().expect("parts is not empty");
        let mut others: Vec<std::slice::ChunksMut<'_, Option<V>>> = rest.iter_mut().map(|p| p.values.chunks_mut(len)).collect();
        let mut work: Vec<RangeWork<'_, V>> = first
            .values
            .chunks_mut(len)
            .map(|mine| (mine, others.iter_mut().map(|o| o.next().expect("every part has n keys")).collect()))
            .collect();
        par_each(&mut work, &|(mine, theirs): &mut RangeWork<'_, V>| {
            for other in theirs.iter_mut() {
                for (m, o) in mine.iter_mut().zip(other.iter_mut()) {
                    if let Some(v) = o.take() {
                        match m {
                            Some(acc) => combine(acc, v),
                            None => *m = Some(v),
                        }
                    }
                }
            }
        });
        first.values.iter_mut().enumerate().filter_map(|(k, v)| v.take().map(|v| (k, v))).collect()
    }
}

/// Any hashable key, combined on emit into one hash table per worker.
#[derive(Debug)]
pub struct Hashed<K, V> {
    table: HashMap<K, V, FxBuildHasher>,
}

/// The number of bucket rows a [`Hashed`] merge splits the keys into unless
/// set: Phoenix 2's default bucket count (thesis, section 3.2.2).
pub const DEFAULT_ROWS: usize = 256;

/// The bucket row of a key's hash (its high bits; the tables use the low ones).
#[inline]
fn row_of(h: u64, rows: usize) -> usize {
    ((h >> 32) as usize) % rows
}

impl<K: Hash + Eq + Ord + Send, V: Send> Container for Hashed<K, V> {
    type Key = K;
    type Value = V;
    type Config = usize;
    fn with_config(_rows: &usize) -> Self {
        Hashed { table: HashMap::with_hasher(FxBuildHasher) }
    }
    #[inline]
    fn emit<F: Fn(&mut V, V)>(&mut self, key: K, value: V, combine: &F) {
        match self.table.entry(key) {
            std::collections::hash_map::Entry::Occupied(mut e) => combine(e.get_mut(), value),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(value);
            }
        }
    }
    fn clear(&mut self) {
        self.table.clear();
    }
    fn merge<F: Fn(&mut V, V) + Sync>(parts: &mut [Self], rows: &usize, combine: &F, sorted: bool) -> Vec<(K, V)> {
        let rows = (*rows).max(1);
        // Each worker's table split into bucket rows by hash, in parallel
        // (the columns of Phoenix 2's bucket matrix); the tables keep their
        // memory for the next run. Hashing once per distinct key here keeps
        // it out of every emit.
        let mut split: Vec<Split<'_, Self, K, V>> = parts.iter_mut().map(|p| (p, Vec::new())).collect();
        par_each(&mut split, &|(part, out): &mut Split<'_, Self, K, V>| {
            out.resize_with(rows, Vec::new);
            for (k, v) in part.table.drain() {
                out[row_of(FxBuildHasher.hash_one(&k), rows)].push((k, v));
            }
        });
        // Row r of every worker merged into one list: the reduce task of
        // bucket row r.
        let mut work: Vec<RowWork<K, V>> = (0..rows).map(|_| (Vec::new(), Vec::new())).collect();
        for (_, cols) in split {
            for (r, col) in cols.into_iter().enumerate() {
                work[r].0.push(col);
            }
        }
        par_each(&mut work, &|(cols, out): &mut RowWork<K, V>| {
            cols.sort_unstable_by_key(|c| std::cmp::Reverse(c.len()));
            let mut merged: HashMap<K, V, FxBuildHasher> = HashMap::with_capacity_and_hasher(cols.first().map_or(0, Vec::len), FxBuildHasher);
            for col in cols.drain(..) {
                for (k, v) in col {
                    match merged.entry(k) {
                        std::collections::hash_map::Entry::Occupied(mut e) => combine(e.get_mut(), v),
                        std::collections::hash_map::Entry::Vacant(e) => {
                            e.insert(v);
                        }
                    }
                }
            }
            out.extend(merged);
            if sorted {
                out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            }
        });
        let total = work.iter().map(|w| w.1.len()).sum();
        let mut all = Vec::with_capacity(total);
        for (_, out) in work {
            all.extend(out);
        }
        if sorted {
            use crate::iter::ParallelSliceMut;
            all.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
        }
        all
    }
}

/// Every pair appended, nothing combined.
#[derive(Debug)]
pub struct Buffer<K, V> {
    pairs: Vec<(K, V)>,
}

impl<K: Ord + Send, V: Send> Container for Buffer<K, V> {
    type Key = K;
    type Value = V;
    type Config = ();
    fn with_config(_: &()) -> Self {
        Buffer { pairs: Vec::new() }
    }
    #[inline]
    fn emit<F: Fn(&mut V, V)>(&mut self, key: K, value: V, _combine: &F) {
        self.pairs.push((key, value));
    }
    fn clear(&mut self) {
        self.pairs.clear();
    }
    fn merge<F: Fn(&mut V, V) + Sync>(parts: &mut [Self], _: &(), _combine: &F, sorted: bool) -> Vec<(K, V)> {
        let total = parts.iter().map(|p| p.pairs.len()).sum();
        let mut all = Vec::with_capacity(total);
        for p in parts.iter_mut() {
            all.append(&mut p.pairs);
        }
        if sorted {
            use crate::iter::ParallelSliceMut;
            // Stable: equal keys keep the order of their workers.
            all.par_sort_by(|a, b| a.0.cmp(&b.0));
        }
        all
    }
}
