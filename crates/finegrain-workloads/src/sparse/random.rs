//! The random sparse matrix shared by spmv and sptranspose.
//!
//! Exact recipe (PEERS.md repeats it for the C++ peers): one SplitMix64 stream
//! seeded with `seed`; for each row in order, draw its length
//! `len = 1 + below(2k - 1)` (so k entries on average), then `len` entries, each
//! a column `below(n)` followed by a value `unit() / len`; sort the row's entries
//! by column, keeping generation order among equal columns, and keep only the
//! first entry of each column. Dividing by `len` keeps every row sum below 1,
//! so repeated multiplication neither overflows nor flushes to zero quickly.

use crate::support::io::Csr;
use crate::support::rng::SplitMix64;

/// An `n` x `n` matrix with about `k` entries per row, drawn from `g`.
pub fn random_csr(n: usize, k: usize, g: &mut SplitMix64) -> Csr {
    assert!(n >= 1 && n <= u32::MAX as usize && k >= 1);
    let mut row_ptr = Vec::with_capacity(n + 1);
    row_ptr.push(0);
    let mut col_idx = Vec::with_capacity(n * k);
    let mut vals = Vec::with_capacity(n * k);
    let mut row: Vec<(u32, f64)> = Vec::with_capacity(2 * k);
    for _ in 0..n {
        let len = 1 + g.below(2 * k as u64 - 1) as usize;
        row.clear();
        for _ in 0..len {
            let c = g.below(n as u64) as u32;
            let v = g.unit() / len as f64;
            row.push((c, v));
        }
        // `sort_by_key` is stable and `dedup_by_key` keeps the first of a run:
        // the earliest drawn entry of a column wins, as specified.
        row.sort_by_key(|e| e.0);
        row.dedup_by_key(|e| e.0);
        col_idx.extend(row.iter().map(|e| e.0));
        vals.extend(row.iter().map(|e| e.1));
        row_ptr.push(col_idx.len());
    }
    Csr { nrows: n, ncols: n, row_ptr, col_idx, vals }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_sorted_unique_and_substochastic() {
        let a = random_csr(1000, 8, &mut SplitMix64::new(1));
        assert_eq!(a.row_ptr.len(), 1001);
        let mean = a.nnz() as f64 / 1000.0;
        assert!((7.0..9.0).contains(&mean), "mean row length {mean}");
        for i in 0..a.nrows {
            let (c, v) = a.row(i);
            assert!(!c.is_empty() && c.windows(2).all(|w| w[0] < w[1]));
            assert!(v.iter().sum::<f64>() < 1.0);
        }
    }
}
