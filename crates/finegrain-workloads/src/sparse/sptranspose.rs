//! sptranspose: transpose of a CSR sparse matrix into CSR.
//!
//! Serially this is a counting sort: count the entries of each column, prefix
//! sum the counts into the new row pointers, then scatter the entries row by
//! row (which leaves every new row sorted). The parallel version does each of
//! those steps as a parallel loop: column counts with atomic increments, a
//! two-pass blocked prefix sum, and a scatter in which each entry claims its
//! slot with an atomic cursor. Claims race, so a new row comes out in arbitrary
//! order; a last parallel loop sorts every row by column (columns are unique
//! within a row, so the result is canonical and equals the serial one). The
//! input is the matrix of `random.rs`; the transpose is repeated `rounds`
//! times (odd, so the result is A^T) to make the run long enough to time.

use super::input::shape;
use super::random::random_csr;
use crate::par::{Finegrain, Par, Rayon, Serial};
use crate::support::digest::{combine, digest_slice};
use crate::support::io::{Csr, Input};
use crate::support::rng::SplitMix64;
use crate::support::shared::SharedMut;
use crate::{Instance, Output, Size, Workload};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

pub struct SpTranspose;

/// Rows per task in the counting and scatter loops (about 500 entries).
const ROWS_PER_TASK: usize = 32;
/// Entries per task in the prefix sum.
const SCAN_BLOCK: usize = 2048;

impl Workload for SpTranspose {
    fn name(&self) -> &'static str {
        "sptranspose"
    }
    fn description(&self) -> &'static str {
        "CSR to CSR sparse matrix transpose by parallel counting, prefix sum, atomic scatter and row sort"
    }
    fn source(&self) -> &'static str {
        "Cheng et al. (ASPLOS 2023), section 5.3 and Table 1 (SpMatrixTranspose, parallel_for)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (n, k, rounds) = match size {
            Size::Test => (2_000, 8, 1),
            Size::Small => (50_000, 16, 1),
            Size::Full | Size::Paper => (3 << 18, 16, 1),
        };
        let a = random_csr(n, k, &mut SplitMix64::new(seed));
        Box::new(SpTransposeInstance { a, rounds })
    }
    /// Any matrix with an entry, square or not, or a graph's adjacency matrix.
    fn check_input(&self, input: &Input) -> Result<(), String> {
        match shape(input) {
            (_, _, 0) => Err(format!("sptranspose needs a matrix with at least one entry; the file has {}", input.describe())),
            _ => Ok(()),
        }
    }
    fn prepare_input(&self, input: &Input, _size: Size, _seed: u64) -> Result<Box<dyn Instance>, String> {
        self.check_input(input)?;
        Ok(Box::new(SpTransposeInstance { a: input.to_matrix(), rounds: 1 }))
    }
}

struct SpTransposeInstance {
    a: Csr,
    rounds: usize,
}

fn transpose_serial(a: &Csr) -> Csr {
    let mut row_ptr = vec![0usize; a.ncols + 1];
    for &c in &a.col_idx {
        row_ptr[c as usize + 1] += 1;
    }
    for j in 0..a.ncols {
        row_ptr[j + 1] += row_ptr[j];
    }
    let mut cursor = row_ptr.clone();
    let mut col_idx = vec![0u32; a.nnz()];
    let mut vals = vec![0.0; a.nnz()];
    for i in 0..a.nrows {
        let (cols, vs) = a.row(i);
        for (&c, &v) in cols.iter().zip(vs) {
            let slot = &mut cursor[c as usize];
            col_idx[*slot] = i as u32;
            vals[*slot] = v;
            *slot += 1;
        }
    }
    Csr { nrows: a.ncols, ncols: a.nrows, row_ptr, col_idx, vals }
}

fn atomic_zeros(n: usize) -> Vec<AtomicUsize> {
    (0..n).map(|_| AtomicUsize::new(0)).collect()
}

/// Exclusive prefix sum of `counts` into `out` (one longer), in two parallel
/// passes over blocks with a short serial scan of the block totals between.
fn prefix_sum<P: Par>(p: P, counts: &[AtomicUsize], out: &mut [usize]) {
    let n = counts.len();
    let blocks = n.div_ceil(SCAN_BLOCK);
    let mut totals = vec![0usize; blocks];
    let t = SharedMut::new(&mut totals);
    p.for_each_chunk(0..blocks, 1, |b| {
        for b in b {
            let r = b * SCAN_BLOCK..n.min((b + 1) * SCAN_BLOCK);
            finegrain::record::read(&counts[r.clone()]);
            t.declare_write(b..b + 1);
            // SAFETY: one task per block index.
            unsafe { t.write(b, counts[r].iter().map(|c| c.load(Relaxed)).sum()) };
        }
    });
    let mut base = 0;
    for t in totals.iter_mut() {
        (*t, base) = (base, base + *t);
    }
    out[n] = base;
    let o = SharedMut::new(out);
    p.for_each_chunk(0..blocks, 1, |b| {
        for b in b {
            let lo = b * SCAN_BLOCK;
            let mut run = totals[b];
            finegrain::record::declare(|| {
                finegrain::record::read(&counts[lo..n.min(lo + SCAN_BLOCK)]);
                o.declare_write(lo..n.min(lo + SCAN_BLOCK));
            });
            for (j, c) in counts[lo..n.min(lo + SCAN_BLOCK)].iter().enumerate() {
                // SAFETY: block b alone writes indices in its range.
                unsafe { o.write(lo + j, run) };
                run += c.load(Relaxed);
            }
        }
    });
}

/// Sort a row's (column, value) pairs by column; rows are short, so insertion
/// sort, unless one is long.
fn sort_row(cols: &mut [u32], vals: &mut [f64]) {
    if cols.len() > 64 {
        let mut pairs: Vec<(u32, f64)> = cols.iter().copied().zip(vals.iter().copied()).collect();
        pairs.sort_unstable_by_key(|e| e.0);
        for ((c, v), (pc, pv)) in cols.iter_mut().zip(vals.iter_mut()).zip(pairs) {
            (*c, *v) = (pc, pv);
        }
        return;
    }
    for i in 1..cols.len() {
        let (c, v) = (cols[i], vals[i]);
        let mut j = i;
        while j > 0 && cols[j - 1] > c {
            cols[j] = cols[j - 1];
            vals[j] = vals[j - 1];
            j -= 1;
        }
        (cols[j], vals[j]) = (c, v);
    }
}

fn transpose_parallel<P: Par>(p: P, a: &Csr) -> Csr {
    let counts = atomic_zeros(a.ncols);
    p.for_each_chunk(0..a.nrows, ROWS_PER_TASK, |rows| {
        finegrain::record::declare(|| {
            let cols = &a.col_idx[a.row_ptr[rows.start]..a.row_ptr[rows.end]];
            finegrain::record::read(&a.row_ptr[rows.start..rows.end + 1]);
            finegrain::record::read(cols);
            cols.iter().for_each(|&c| finegrain::record::write(std::slice::from_ref(&counts[c as usize])));
        });
        for &c in &a.col_idx[a.row_ptr[rows.start]..a.row_ptr[rows.end]] {
            counts[c as usize].fetch_add(1, Relaxed);
        }
    });
    let mut row_ptr = vec![0usize; a.ncols + 1];
    prefix_sum(p, &counts, &mut row_ptr);

    // Reuse the counters as per-row cursors, starting at each new row's offset.
    p.for_each_chunk(0..a.ncols, 4 * SCAN_BLOCK, |r| {
        finegrain::record::declare(|| {
            finegrain::record::read(&row_ptr[r.clone()]);
            finegrain::record::write(&counts[r.clone()]);
        });
        for j in r {
            counts[j].store(row_ptr[j], Relaxed);
        }
    });
    let mut col_idx = vec![0u32; a.nnz()];
    let mut vals = vec![0.0; a.nnz()];
    {
        let (oc, ov) = (SharedMut::new(&mut col_idx), SharedMut::new(&mut vals));
        p.for_each_chunk(0..a.nrows, ROWS_PER_TASK, |rows| {
            // Claim all of the chunk's slots first, then write: on x86 an
            // atomic read-modify-write waits for earlier stores to drain, so
            // interleaving claims with the (cache-missing) scattered stores
            // would serialise every miss.
            let first = a.row_ptr[rows.start];
            let slots: Vec<usize> = a.col_idx[first..a.row_ptr[rows.end]].iter().map(|&c| counts[c as usize].fetch_add(1, Relaxed)).collect();
            finegrain::record::declare(|| {
                let cols = &a.col_idx[first..a.row_ptr[rows.end]];
                finegrain::record::read(&a.row_ptr[rows.start..rows.end + 1]);
                finegrain::record::read(cols);
                finegrain::record::read(&a.vals[first..a.row_ptr[rows.end]]);
                cols.iter().for_each(|&c| finegrain::record::write(std::slice::from_ref(&counts[c as usize])));
                for &slot in &slots {
                    oc.declare_write(slot..slot + 1);
                    ov.declare_write(slot..slot + 1);
                }
            });
            for i in rows {
                for e in a.row_ptr[i]..a.row_ptr[i + 1] {
                    let slot = slots[e - first];
                    // SAFETY: fetch_add hands every slot to exactly one entry.
                    unsafe {
                        oc.write(slot, i as u32);
                        ov.write(slot, a.vals[e]);
                    }
                }
            }
        });
        let rp = &row_ptr;
        p.for_each_chunk(0..a.ncols, ROWS_PER_TASK, |rows| {
            let r = rp[rows.start]..rp[rows.end];
            // SAFETY: chunks of rows own disjoint entry ranges.
            let (cs, vs) = unsafe { (oc.slice(r.clone()), ov.slice(r.clone())) };
            finegrain::record::declare(|| {
                finegrain::record::read(&rp[rows.start..rows.end + 1]);
                finegrain::record::write(cs);
                finegrain::record::write(vs);
            });
            for j in rows {
                let (lo, hi) = (rp[j] - r.start, rp[j + 1] - r.start);
                sort_row(&mut cs[lo..hi], &mut vs[lo..hi]);
            }
        });
    }
    Csr { nrows: a.ncols, ncols: a.nrows, row_ptr, col_idx, vals }
}

/// The digest of a matrix: row pointers, columns and value bits.
fn csr_digest<P: Par>(p: P, m: &Csr) -> Output {
    let h =
        combine(&[digest_slice(p, &m.row_ptr, |&x| x as u64), digest_slice(p, &m.col_idx, |&x| x as u64), digest_slice(p, &m.vals, |x| x.to_bits())]);
    Output::Digest { len: m.nnz(), hash: h }
}

impl SpTransposeInstance {
    fn run<P: Par>(&self, p: P) -> Output {
        let mut m = transpose_parallel(p, &self.a);
        for _ in 1..self.rounds {
            m = transpose_parallel(p, &m);
        }
        csr_digest(p, &m)
    }
}

impl Instance for SpTransposeInstance {
    fn describe(&self) -> String {
        let (r, c) = (self.a.nrows, self.a.ncols);
        let shape = if r == c { format!("n={r}") } else { format!("{r}x{c}") };
        format!("{shape} nnz={} rounds={}", self.a.nnz(), self.rounds)
    }
    fn serial(&self) -> Output {
        let mut m = transpose_serial(&self.a);
        for _ in 1..self.rounds {
            m = transpose_serial(&m);
        }
        csr_digest(Serial, &m)
    }
    fn parallel(&self) -> Output {
        finegrain::record::region(|| self.run(Finegrain))
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.run(Rayon))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_steps_match_serial_on_one_thread() {
        let a = random_csr(3000, 5, &mut SplitMix64::new(9));
        let t = transpose_serial(&a);
        assert_eq!(transpose_parallel(Serial, &a), t);
        assert_eq!(transpose_serial(&t), a);
        let mut cols = vec![5, 1, 4, 2, 3];
        let mut vals = vec![5.0, 1.0, 4.0, 2.0, 3.0];
        sort_row(&mut cols, &mut vals);
        assert_eq!((cols, vals), (vec![1, 2, 3, 4, 5], vec![1.0, 2.0, 3.0, 4.0, 5.0]));
    }
}
