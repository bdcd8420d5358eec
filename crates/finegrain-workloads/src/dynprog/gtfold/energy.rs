//! A simplified free-energy recurrence for RNA secondary structure, in the
//! shape of GTfold's (Mathuriya et al., SAC 2009, cited by Sanchez, Yoo,
//! Kozyrakis, "Flexible architectural support for fine-grain scheduling",
//! ASPLOS 2010, section 5.2): over the upper triangle of subsequences `i..=j`,
//!
//! - `V(i, j)`: best energy of `i..=j` closed by the pair `(i, j)`: a hairpin,
//!   a stacked pair on `V(i+1, j-1)`, or an internal loop around an inner
//!   pair `(p, q)` with at most `MAX_LOOP` unpaired bases; infinite when `i`
//!   and `j` cannot pair.
//! - `W(i, j)`: best energy of `i..=j`: leave an end unpaired, close it with
//!   `(i, j)`, or split it in two at a point near `i`.
//!
//! Every cell read lies in the triangle spanned by `(i, j-1)` and `(i+1, j)`,
//! so a cell is ready once those two are done (Sanchez et al., section 6.4).
//! The cost is bimodal, and set by the sequence: a cell whose ends can pair
//! (about 3 in 8) scans its internal loops, about 40 times the work of one that
//! cannot.

use crate::support::rng::SplitMix64;
use std::sync::atomic::{AtomicI32, Ordering::Relaxed};

pub const INF: i32 = i32::MAX / 4;
/// Largest internal loop (GTfold uses 30); sets the cost of a pairable cell,
/// chosen so that it is about 40 times that of a cell that cannot pair, the
/// ratio Sanchez et al. (ASPLOS 2010), section 5.2, report for gtfold.
const MAX_LOOP: usize = 36;
/// Split points tried for `W`; sets the cost of every cell.
const SPLITS: usize = 8;
/// Fewest unpaired bases in a hairpin.
const MIN_HAIRPIN: usize = 3;

pub fn random_sequence(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed ^ 0x6774_666f_6c64);
    (0..n).map(|_| b"ACGU"[rng.below(4) as usize]).collect()
}

/// Stacking strength of a base pair; 0 if the bases cannot pair.
#[inline]
fn strength(a: u8, b: u8) -> i32 {
    match (a, b) {
        (b'G', b'C') | (b'C', b'G') => 15,
        (b'A', b'U') | (b'U', b'A') => 10,
        (b'G', b'U') | (b'U', b'G') => 5,
        _ => 0,
    }
}

#[inline]
fn hairpin(unpaired: usize) -> i32 {
    40 + 2 * unpaired.min(30) as i32
}

#[inline]
fn internal(left: usize, right: usize) -> i32 {
    10 + 3 * (left + right) as i32 + 2 * left.abs_diff(right) as i32
}

/// The dynamic-programming table. `V` is stored by rows (an internal-loop
/// scan reads runs of `q` for each `p`), `W` both by rows and by columns (a
/// split reads `W(i, k)` along a row and `W(k + 1, j)` down a column), so the
/// scans touch few cache lines. Cells are atomics so that tasks can fill them
/// in place: each cell is written once, by one task, before any task that
/// reads it starts, and relaxed accesses compile to plain loads and stores.
pub struct Table {
    n: usize,
    v: Vec<AtomicI32>,
    w_row: Vec<AtomicI32>,
    w_col: Vec<AtomicI32>,
}

impl Table {
    pub fn new(n: usize) -> Table {
        let cells = n * (n + 1) / 2;
        let zeros = || (0..cells).map(|_| AtomicI32::new(0)).collect();
        Table { n, v: zeros(), w_row: zeros(), w_col: zeros() }
    }

    #[inline]
    fn by_row(&self, i: usize, j: usize) -> usize {
        i * self.n - i * i.saturating_sub(1) / 2 + (j - i)
    }

    #[inline]
    fn by_col(&self, i: usize, j: usize) -> usize {
        j * (j + 1) / 2 + i
    }

    #[inline]
    fn v(&self, i: usize, j: usize) -> i32 {
        self.v[self.by_row(i, j)].load(Relaxed)
    }

    /// `V(p, q)` for `q` in `cols`, one run of memory.
    #[inline]
    fn v_row(&self, p: usize, cols: std::ops::Range<usize>) -> &[AtomicI32] {
        &self.v[self.by_row(p, cols.start)..self.by_row(p, cols.start) + cols.len()]
    }

    #[inline]
    fn w_along_row(&self, i: usize, j: usize) -> i32 {
        self.w_row[self.by_row(i, j)].load(Relaxed)
    }

    #[inline]
    fn w_down_col(&self, i: usize, j: usize) -> i32 {
        self.w_col[self.by_col(i, j)].load(Relaxed)
    }

    /// Compute and store cell `(i, j)`; its predecessors must be done.
    #[inline]
    pub fn fill(&self, seq: &[u8], i: usize, j: usize) {
        let (v, w) = cell(seq, self, i, j);
        let r = self.by_row(i, j);
        self.v[r].store(v, Relaxed);
        self.w_row[r].store(w, Relaxed);
        self.w_col[self.by_col(i, j)].store(w, Relaxed);
    }

    /// Declare, for `finegrain record`, what [`Table::fill`] of `(i, j)`
    /// reads and writes (the same cells `cell` visits).
    pub fn declare_fill(&self, seq: &[u8], i: usize, j: usize) {
        use finegrain::record::{read, write};
        let r = self.by_row(i, j);
        write(&self.v[r..r + 1]);
        write(&self.w_row[r..r + 1]);
        write(&self.w_col[self.by_col(i, j)..self.by_col(i, j) + 1]);
        if j < i + MIN_HAIRPIN + 1 {
            return;
        }
        read(&seq[i..i + 2]);
        read(&seq[j - 1..j + 1]);
        if strength(seq[i], seq[j]) != 0 {
            if strength(seq[i + 1], seq[j - 1]) > 0 {
                let c = self.by_row(i + 1, j - 1);
                read(&self.v[c..c + 1]);
            }
            for p in i + 1..=(i + 1 + MAX_LOOP).min(j.saturating_sub(MIN_HAIRPIN + 2)) {
                let q_min = (p + MIN_HAIRPIN + 1).max((j - 1).saturating_sub(MAX_LOOP - (p - i - 1)));
                read(self.v_row(p, q_min..j));
            }
        }
        let (row, col) = (self.by_row(i, i + 1), self.by_col(i + 1, j));
        let k_end = (i + 1 + SPLITS).min(j);
        // W(i, j - 1) and the splits' W(i, i+1..k_end) along the row, and
        // W(i+1..=k_end, j) down the column (W(i + 1, j) and the splits).
        read(&self.w_row[row + (j - 2 - i)..row + (j - 1 - i)]);
        read(&self.w_row[row..row + (k_end - i - 1)]);
        read(&self.w_col[col..col + (k_end - i).max(1)]);
    }

    /// `(V, W)` of every cell, row by row, packed into words.
    pub fn packed(&self) -> impl Iterator<Item = u64> + '_ {
        self.v.iter().zip(&self.w_row).map(|(v, w)| (v.load(Relaxed) as u32 as u64) << 32 | w.load(Relaxed) as u32 as u64)
    }

    /// `W(0, n - 1)`: the best energy of the whole sequence.
    #[cfg(test)]
    pub fn energy(&self) -> i32 {
        self.w_along_row(0, self.n - 1)
    }
}

/// `(V, W)` of cell `(i, j)` from finished cells.
#[inline]
fn cell(seq: &[u8], t: &Table, i: usize, j: usize) -> (i32, i32) {
    if j < i + MIN_HAIRPIN + 1 {
        // Too short to hold a pair.
        return (INF, 0);
    }
    let s = strength(seq[i], seq[j]);
    let v = if s == 0 {
        INF
    } else {
        let mut best = hairpin(j - i - 1);
        let inner = strength(seq[i + 1], seq[j - 1]);
        if inner > 0 {
            best = best.min(t.v(i + 1, j - 1) - s - inner);
        }
        // Internal loops and bulges: inner pair (p, q) with
        // (p - i - 1) + (j - q - 1) unpaired bases, at most MAX_LOOP. Without
        // branches: an impossible inner pair is INF, and INF plus a loop
        // energy still loses to the (finite) hairpin; the zero-size "loop"
        // around (i + 1, j - 1) costs more than stacking on it, so it never
        // wins either.
        for p in i + 1..=(i + 1 + MAX_LOOP).min(j.saturating_sub(MIN_HAIRPIN + 2)) {
            let left = p - i - 1;
            let q_min = (p + MIN_HAIRPIN + 1).max((j - 1).saturating_sub(MAX_LOOP - left));
            for (q, vq) in (q_min..j).zip(t.v_row(p, q_min..j)) {
                best = best.min(vq.load(Relaxed) + internal(left, j - q - 1));
            }
        }
        best
    };
    let terminal = if s == 15 { 0 } else { 5 };
    let mut w = t.w_down_col(i + 1, j).min(t.w_along_row(i, j - 1));
    if v < INF {
        w = w.min(v + terminal);
    }
    for k in i + 1..(i + 1 + SPLITS).min(j) {
        w = w.min(t.w_along_row(i, k) + t.w_down_col(k + 1, j));
    }
    (v, w)
}

/// Fraction of cells whose ends can pair: the long tasks.
pub fn long_fraction(seq: &[u8]) -> f64 {
    let n = seq.len();
    let pairs = (0..n).flat_map(|i| (i + MIN_HAIRPIN + 1..n).map(move |j| (i, j)));
    let long = pairs.filter(|&(i, j)| strength(seq[i], seq[j]) > 0).count();
    long as f64 / (n * (n + 1) / 2) as f64
}
