//! Parallel quicksort with `finegrain::join`: partition, then sort the two
//! sides as two tasks that idle workers may take.
//!
//! ```text
//! cargo run --release -p finegrain --example quicksort -- [policy] [threads]
//! ```
//!
//! The policy defaults to `ws` and the threads to the CPUs available (see
//! `finegrain list` for every policy and its options, e.g. `adm-central` or
//! `ws:steal=half`). The result is checked against the standard library's sort.

use finegrain::{join, Pool};
use std::time::Instant;

/// Below this many elements a task sorts serially: forking costs little in
/// finegrain, but a task of a few thousand comparisons is already fine-grain.
const CUTOFF: usize = 2048;

fn quicksort<T: Ord + Send>(v: &mut [T]) {
    if v.len() <= CUTOFF {
        v.sort_unstable();
        return;
    }
    let mid = partition(v);
    let (left, right) = v.split_at_mut(mid);
    // The pivot is at right[0], already in its final place.
    join(|| quicksort(left), || quicksort(&mut right[1..]));
}

/// Lomuto partition around the median of the first, middle and last
/// elements. Returns the pivot's final index: everything before it is less
/// than the pivot, everything after it is not less.
fn partition<T: Ord>(v: &mut [T]) -> usize {
    let last = v.len() - 1;
    let mid = v.len() / 2;
    // Median of three, moved to the end as the pivot.
    if v[mid] < v[0] {
        v.swap(mid, 0);
    }
    if v[last] < v[0] {
        v.swap(last, 0);
    }
    if v[mid] < v[last] {
        v.swap(mid, last);
    }
    let mut store = 0;
    for i in 0..last {
        if v[i] < v[last] {
            v.swap(i, store);
            store += 1;
        }
    }
    v.swap(store, last);
    store
}

/// A deterministic pseudo-random sequence (SplitMix64).
fn keys(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            // Few distinct values, so the partition also meets runs of equal keys.
            (z ^ (z >> 31)) % 100_000
        })
        .collect()
}

fn main() {
    let policy = std::env::args().nth(1).unwrap_or_else(|| "ws".into());
    let threads =
        std::env::args().nth(2).map_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()), |t| t.parse().expect("threads"));
    let pool = Pool::builder().threads(threads).policy(&policy).build().unwrap_or_else(|e| panic!("{e}"));

    let mut v = keys(300_000, 7);
    let mut want = v.clone();
    want.sort_unstable();

    let start = Instant::now();
    pool.install(|| quicksort(&mut v));
    let took = start.elapsed();
    assert_eq!(v, want, "quicksort disagrees with sort_unstable");
    println!("sorted {} keys with {policy} x{threads} in {took:.2?}", v.len());
}
