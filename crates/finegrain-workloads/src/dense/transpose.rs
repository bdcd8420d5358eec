//! transpose: recursive cache-oblivious out-of-place matrix transpose.
//!
//! B = A^T for a rows x cols row-major matrix. The recursion halves the longer
//! side of the current block and runs the halves with a join, until a block has
//! at most LEAF_ELEMS entries; then both the rows read from A and the columns
//! written to B fit in cache whatever the matrix size (Frigo et al.'s
//! cache-oblivious transpose). The sides are not powers of two, so the splits
//! are uneven. To make the run long enough to time, the matrix is transposed
//! `rounds` times back and forth (A -> B -> A ...); `rounds` is odd, so the result
//! is A^T and a version that wrote nothing could not match.

use crate::par::{Finegrain, Par, Rayon, Serial};
use crate::support::digest::digest_slice;
use crate::support::rng::SplitMix64;
use crate::support::shared::SharedMut;
use crate::{Instance, Output, Size, Workload};
use std::ops::Range;

pub struct Transpose;

/// A leaf block of at most 16 x 16 entries (each row and column of it at
/// least two cache lines): about a thousand instructions.
const LEAF_ELEMS: usize = 256;

impl Workload for Transpose {
    fn name(&self) -> &'static str {
        "transpose"
    }
    fn description(&self) -> &'static str {
        "recursive cache-oblivious out-of-place transpose of a rectangular f64 matrix, repeated back and forth"
    }
    fn source(&self) -> &'static str {
        "Cheng et al. (ASPLOS 2023), section 5.3 and Table 1 (MatrixTranspose, recursive spawn-and-sync)"
    }
    fn api(&self) -> &'static str {
        "join"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (rows, cols, rounds) = match size {
            Size::Test => (100, 173, 3),
            Size::Small => (800, 1200, 3),
            Size::Full | Size::Paper => (2500, 3000, 15),
        };
        let mut g = SplitMix64::new(seed);
        let a = (0..rows * cols).map(|_| g.unit()).collect();
        Box::new(TransposeInstance { rows, cols, rounds, a })
    }
}

struct TransposeInstance {
    rows: usize,
    cols: usize,
    rounds: usize,
    a: Vec<f64>,
}

/// Write the transpose of block `r` x `c` of `src` (row-major with `cols`
/// columns) into `dst` (row-major with `rows` columns).
fn block<P: Par>(p: P, src: &[f64], cols: usize, dst: &SharedMut<'_, f64>, rows: usize, r: Range<usize>, c: Range<usize>) {
    if r.len() * c.len() <= LEAF_ELEMS {
        finegrain::record::declare(|| {
            for i in r.clone() {
                finegrain::record::read(&src[i * cols + c.start..i * cols + c.end]);
            }
            for j in c.clone() {
                dst.declare_write(j * rows + r.start..j * rows + r.end);
            }
        });
        for i in r {
            for j in c.clone() {
                // SAFETY: dst[j * rows + i] belongs to block (i, j) only, and
                // blocks of one transpose are disjoint.
                unsafe { dst.write(j * rows + i, src[i * cols + j]) };
            }
        }
        return;
    }
    if r.len() >= c.len() {
        let mid = r.start + r.len() / 2;
        let (r1, r2) = (r.start..mid, mid..r.end);
        let (c1, c2) = (c.clone(), c);
        p.join(|| block(p, src, cols, dst, rows, r1, c1), || block(p, src, cols, dst, rows, r2, c2));
    } else {
        let mid = c.start + c.len() / 2;
        let (c1, c2) = (c.start..mid, mid..c.end);
        let (r1, r2) = (r.clone(), r);
        p.join(|| block(p, src, cols, dst, rows, r1, c1), || block(p, src, cols, dst, rows, r2, c2));
    }
}

/// `dst` = `src`^T, `src` being `rows` x `cols`.
fn transpose<P: Par>(p: P, src: &[f64], rows: usize, cols: usize, dst: &mut [f64]) {
    let out = SharedMut::new(dst);
    block(p, src, cols, &out, rows, 0..rows, 0..cols);
}

impl TransposeInstance {
    fn run<P: Par>(&self, p: P) -> Output {
        // The first round reads the input in place; later rounds ping-pong.
        let mut x = vec![0.0; self.a.len()];
        let mut y = vec![0.0; self.a.len()];
        transpose(p, &self.a, self.rows, self.cols, &mut x);
        let (mut rows, mut cols) = (self.cols, self.rows);
        for _ in 1..self.rounds {
            transpose(p, &x, rows, cols, &mut y);
            std::mem::swap(&mut x, &mut y);
            std::mem::swap(&mut rows, &mut cols);
        }
        Output::Digest { len: x.len(), hash: digest_slice(p, &x, |v| v.to_bits()) }
    }
}

impl Instance for TransposeInstance {
    fn describe(&self) -> String {
        format!("{}x{} rounds={}", self.rows, self.cols, self.rounds)
    }
    fn serial(&self) -> Output {
        self.run(Serial)
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
    fn transposes_a_small_rectangle() {
        let (rows, cols) = (37, 91);
        let a: Vec<f64> = (0..rows * cols).map(|x| x as f64).collect();
        let mut b = vec![0.0; a.len()];
        transpose(Serial, &a, rows, cols, &mut b);
        for i in 0..rows {
            for j in 0..cols {
                assert_eq!(b[j * rows + i], a[i * cols + j]);
            }
        }
    }
}
