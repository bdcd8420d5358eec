// The workloads of `benches/iterators.rs`, written only against the prelude
// and compiled twice: after `use rayon::prelude::*;` and after
// `use finegrain::prelude::*;`, so both run the same closures.

use std::collections::HashMap;

/// Sum of a map over every element.
pub fn map_sum(v: &[u64]) -> u64 {
    v.par_iter().map(|&x| x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40).sum()
}

/// The elements that pass a filter, collected in order.
pub fn filter_collect(v: &[u64]) -> Vec<u64> {
    v.par_iter().filter(|&&x| x % 3 == 0).copied().collect()
}

pub fn sort_stable(v: &mut [u64]) {
    v.par_sort();
}

pub fn sort_unstable(v: &mut [u64]) {
    v.par_sort_unstable();
}

/// Word frequencies of a text, into a `HashMap`.
pub fn word_count(text: &str) -> HashMap<&str, usize> {
    text.par_split_whitespace()
        .fold(HashMap::new, |mut m: HashMap<&str, usize>, w| {
            *m.entry(w).or_default() += 1;
            m
        })
        .reduce(HashMap::new, |a, b| {
            if a.len() < b.len() {
                return merge(b, a);
            }
            merge(a, b)
        })
}

fn merge<'a>(mut a: HashMap<&'a str, usize>, b: HashMap<&'a str, usize>) -> HashMap<&'a str, usize> {
    for (k, n) in b {
        *a.entry(k).or_default() += n;
    }
    a
}

/// `find_any` over 10^8 indices whose only hit is at `hit`.
pub fn find_any(n: u64, hit: u64) -> Option<u64> {
    (0..n).into_par_iter().find_any(|&i| i == hit)
}
