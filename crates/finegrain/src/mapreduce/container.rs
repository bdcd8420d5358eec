//! Where a map task's emitted pairs go: one container per worker, chosen by
//! the key space as Phoenix++ chooses (Talbot, Yoo, Kozyrakis, "Phoenix++:
//! Modular MapReduce for Shared-Memory Systems", MAPREDUCE 2011, section 3):
//!
//! - [`Dense`]: keys `0..n`, a plain array of values; a histogram's 768
//!   bins or k-means' clusters never touch a hash table.
//! - [`Hashed`]: any hashable key, combined on emit into one of `rows` hash
//!   tables by the key's hash. The rows are the rows of Phoenix 2's bucket
//!   matrix (Yoo, thesis, section 3.2.2: columns are the map workers, rows
//!   the hash buckets); the reduce merges one row of every worker at a time,
//!   so rows merge in parallel and a key meets its other copies in one place.
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
/// One bucket row of a hashed merge: every part's table, and the merged pairs.
type RowWork<'a, K, V> = (Vec<&'a mut HashMap<K, V, FxBuildHasher>>, Vec<(K, V)>);

/// Keys `0..n` (`usize`), one slot per key.
#[derive(Debug)]
pub struct Dense<V> {
    values: Vec<Option<V>>,
}

impl<V: Send> Container for Dense<V> {
    type Key = usize;
    type Value = V;
    type Config = usize;
    fn with_config(n: &usize) -> Self {
        Dense { values: (0..*n).map(|_| None).collect() }
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
    }
    fn merge<F: Fn(&mut V, V) + Sync>(parts: &mut [Self], n: &usize, combine: &F, _sorted: bool) -> Vec<(usize, V)> {
        let n = *n;
        if parts.is_empty() {
            return Vec::new();
        }
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

/// Any hashable key, combined on emit, in `rows` hash tables by hash.
#[derive(Debug)]
pub struct Hashed<K, V> {
    rows: Vec<HashMap<K, V, FxBuildHasher>>,
}

/// The number of rows of a [`Hashed`] container unless set: Phoenix 2's
/// default bucket count (thesis, section 3.2.2).
pub const DEFAULT_ROWS: usize = 256;

impl<K: Hash + Eq + Ord + Send, V: Send> Container for Hashed<K, V> {
    type Key = K;
    type Value = V;
    type Config = usize;
    fn with_config(rows: &usize) -> Self {
        Hashed { rows: (0..(*rows).max(1)).map(|_| HashMap::with_hasher(FxBuildHasher)).collect() }
    }
    #[inline]
    fn emit<F: Fn(&mut V, V)>(&mut self, key: K, value: V, combine: &F) {
        let h = FxBuildHasher.hash_one(&key);
        // The high bits pick the row (the table uses the low ones).
        let row = ((h >> 32) as usize) % self.rows.len();
        match self.rows[row].entry(key) {
            std::collections::hash_map::Entry::Occupied(mut e) => combine(e.get_mut(), value),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(value);
            }
        }
    }
    fn clear(&mut self) {
        self.rows.iter_mut().for_each(HashMap::clear);
    }
    fn merge<F: Fn(&mut V, V) + Sync>(parts: &mut [Self], rows: &usize, combine: &F, sorted: bool) -> Vec<(K, V)> {
        let rows = (*rows).max(1);
        // Row r of every part, merged into one list: the reduce task of
        // bucket row r in Phoenix 2.
        let mut work: Vec<RowWork<'_, K, V>> = (0..rows).map(|_| (Vec::new(), Vec::new())).collect();
        for p in parts.iter_mut() {
            for (r, row) in p.rows.iter_mut().enumerate() {
                work[r].0.push(row);
            }
        }
        par_each(&mut work, &|(tables, out): &mut RowWork<'_, K, V>| {
            // The largest table takes the others' pairs; all keep their memory.
            let Some(big) = (0..tables.len()).max_by_key(|&i| tables[i].len()) else { return };
            tables.swap(0, big);
            let (first, rest) = tables.split_first_mut().expect("not empty");
            for t in rest.iter_mut() {
                for (k, v) in t.drain() {
                    match first.entry(k) {
                        std::collections::hash_map::Entry::Occupied(mut e) => combine(e.get_mut(), v),
                        std::collections::hash_map::Entry::Vacant(e) => {
                            e.insert(v);
                        }
                    }
                }
            }
            out.extend(first.drain());
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
