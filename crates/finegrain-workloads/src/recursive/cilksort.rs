//! cilksort: Cilk's parallel mergesort with a parallel merge.
//!
//! As in Cilk-5's cilksort: split the array into quarters, sort them in
//! parallel, merge the quarters pairwise into a buffer in parallel, then merge
//! the two halves back. A merge splits itself in two by taking the middle key
//! of the longer input and binary-searching it in the shorter one, so merging
//! is parallel too. Below `SORT_LEAF` keys a task sorts serially, below
//! `MERGE_LEAF` output keys it merges serially; both cutoffs keep a leaf task
//! at a few thousand instructions.

use crate::par::{Finegrain, Par, Rayon, Serial};
use crate::support::digest::digest_slice;
use crate::support::rng::SplitMix64;
use crate::{Instance, Output, Size, Workload};

pub struct CilkSort;

const SORT_LEAF: usize = 128;
const MERGE_LEAF: usize = 512;

impl Workload for CilkSort {
    fn name(&self) -> &'static str {
        "cilksort"
    }
    fn description(&self) -> &'static str {
        "mergesort of random 64-bit keys with parallel quarter sorts and binary-search-split parallel merges"
    }
    fn source(&self) -> &'static str {
        "Cheng et al. (ASPLOS 2023), section 5.3 and Table 1 (CilkSort, recursive spawn-and-sync); Sanchez et al. (ASPLOS 2010), section 5.2 (mergesort)"
    }
    fn api(&self) -> &'static str {
        "join"
    }
    fn paper_size(&self) -> bool {
        true
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let n = match size {
            Size::Test => 1 << 14,
            Size::Small => 1 << 18,
            Size::Full => 1 << 23,
            // 16 M keys (128 MB, sixteen times the PDF study's shared L2):
            // the ADM paper's mergesort scaled until the trace's parallelism
            // passes ten times 256 threads with room to spare, since the
            // span is a chain of a few hundred recorded leaves and moves
            // with the host (docs/simulation.md, "Traces of the parallel
            // region").
            Size::Paper => 1 << 24,
        };
        let mut g = SplitMix64::new(seed);
        let keys = (0..n).map(|_| g.next_u64()).collect();
        Box::new(CilkSortInstance { keys, seed })
    }
}

struct CilkSortInstance {
    keys: Vec<u64>,
    seed: u64,
}

/// Sort `a` using `tmp` (same length) as scratch.
fn sort<P: Par>(p: P, a: &mut [u64], tmp: &mut [u64]) {
    let n = a.len();
    if n <= SORT_LEAF {
        finegrain::record::write(a);
        a.sort_unstable();
        return;
    }
    let q = n / 4;
    let (a01, a23) = a.split_at_mut(2 * q);
    let (a0, a1) = a01.split_at_mut(q);
    let (a2, a3) = a23.split_at_mut(q);
    let (t01, t23) = tmp.split_at_mut(2 * q);
    {
        let (t0, t1) = t01.split_at_mut(q);
        let (t2, t3) = t23.split_at_mut(q);
        p.join(|| p.join(|| sort(p, a0, t0), || sort(p, a1, t1)), || p.join(|| sort(p, a2, t2), || sort(p, a3, t3)));
    }
    p.join(|| merge(p, a0, a1, t01), || merge(p, a2, a3, t23));
    merge(p, t01, t23, a);
}

/// Merge sorted `x` and `y` into `out` (of length `x.len() + y.len()`).
fn merge<P: Par>(p: P, x: &[u64], y: &[u64], out: &mut [u64]) {
    if x.len() < y.len() {
        return merge(p, y, x, out);
    }
    if out.len() <= MERGE_LEAF || y.is_empty() {
        finegrain::record::declare(|| {
            finegrain::record::read(x);
            finegrain::record::read(y);
            finegrain::record::write(out);
        });
        merge_serial(x, y, out);
        return;
    }
    // Keys in x[..mx] and y[..my] are all <= x[mx] <= keys in x[mx..], y[my..].
    let mx = x.len() / 2;
    let my = y.partition_point(|&k| k < x[mx]);
    let (lo, hi) = out.split_at_mut(mx + my);
    p.join(|| merge(p, &x[..mx], &y[..my], lo), || merge(p, &x[mx..], &y[my..], hi));
}

fn merge_serial(x: &[u64], y: &[u64], out: &mut [u64]) {
    let (mut i, mut j) = (0, 0);
    for o in out.iter_mut() {
        // Take from x while y is exhausted or x's head is not larger.
        if j == y.len() || (i < x.len() && x[i] <= y[j]) {
            *o = x[i];
            i += 1;
        } else {
            *o = y[j];
            j += 1;
        }
    }
}

impl CilkSortInstance {
    fn run<P: Par>(&self, p: P) -> Output {
        let mut a = self.keys.clone();
        let mut tmp = vec![0u64; a.len()];
        p.region(|| sort(p, &mut a, &mut tmp));
        Output::Digest { len: a.len(), hash: digest_slice(p, &a, |&k| k) }
    }
}

impl Instance for CilkSortInstance {
    fn describe(&self) -> String {
        format!("n={} seed={}", self.keys.len(), self.seed)
    }
    fn serial(&self) -> Output {
        self.run(Serial)
    }
    fn parallel(&self) -> Output {
        self.run(Finegrain)
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.run(Rayon))
    }
    fn peer_args(&self) -> Option<String> {
        Some(format!("n={} seed={} sort_leaf={SORT_LEAF} merge_leaf={MERGE_LEAF}", self.keys.len(), self.seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_odd_sizes_like_std() {
        let mut g = SplitMix64::new(3);
        for n in [0, 1, 5, 257, 1000, 5003, 20_001] {
            // Few distinct keys, so merges see many ties.
            let keys: Vec<u64> = (0..n).map(|_| g.below(50)).collect();
            let mut want = keys.clone();
            want.sort();
            let mut a = keys.clone();
            sort(Serial, &mut a, &mut vec![0; n]);
            assert_eq!(a, want, "n = {n}");
        }
    }
}
