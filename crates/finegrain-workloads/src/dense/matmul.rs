//! matmul: dense C = A * B by recursive blocking (Cilk-style).
//!
//! Matrices are n x n, n a power of two, and held in a quadrant-recursive
//! layout: a block is stored as its four quadrants one after another, down to
//! LEAF x LEAF tiles stored row-major. Each quadrant is then a contiguous
//! quarter of its parent's slice, so the recursion splits C into disjoint
//! `&mut` quarters with no unsafe code, and every leaf works on three tiles
//! that sit in L1. A step computes C's four quadrants in parallel for the first
//! half of the inner dimension, then again for the second half (the two halves
//! add into the same quadrants, so they are ordered). A leaf is a 16 x 16 x 16
//! multiply-add: 4096 fused multiply-adds, a few thousand instructions.

use crate::par::{Finegrain, Par, Rayon, Serial};
use crate::support::rng::SplitMix64;
use crate::support::tolerance::{check_floats, Scale};
use crate::{Instance, Output, Size, Workload};

pub struct MatMul;

const LEAF: usize = 16;

/// Relative tolerance: all entries are positive sums, so only the rounding of
/// differently ordered additions separates two correct results.
const TOLERANCE: f64 = 1e-12;

impl Workload for MatMul {
    fn name(&self) -> &'static str {
        "matmul"
    }
    fn description(&self) -> &'static str {
        "dense f64 matrix product by recursive quadrant blocking with 16x16 leaf tiles"
    }
    fn source(&self) -> &'static str {
        "Cheng et al. (ASPLOS 2023), section 5.3 and Table 1 (MatMul); Kumar et al. (Carbon, ISCA 2007), section 5.3 and Table 2 (dense matrix-matrix multiply)"
    }
    fn api(&self) -> &'static str {
        "join"
    }
    fn paper_size(&self) -> bool {
        true
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let n = match size {
            Size::Test => 64,
            Size::Small => 512,
            Size::Full => 2048,
            // Parallelism (work over span) above ten times 256 threads once
            // each step's cost is the least of repeated recordings.
            Size::Paper => 1024,
        };
        // Row-major A then row-major B, from one stream, entries in [0, 1).
        let mut g = SplitMix64::new(seed);
        let a: Vec<f64> = (0..n * n).map(|_| g.unit()).collect();
        let b: Vec<f64> = (0..n * n).map(|_| g.unit()).collect();
        Box::new(MatMulInstance { n, seed, a: to_tiled(&a, n), b: to_tiled(&b, n) })
    }
}

struct MatMulInstance {
    n: usize,
    seed: u64,
    /// A and B in the quadrant-recursive layout.
    a: Vec<f64>,
    b: Vec<f64>,
}

/// Position in the tiled layout of entry (i, j) of a `side` x `side` block.
fn tiled_index(i: usize, j: usize, side: usize) -> usize {
    if side == LEAF {
        return i * LEAF + j;
    }
    let h = side / 2;
    let quadrant = 2 * (i / h) + j / h;
    quadrant * h * h + tiled_index(i % h, j % h, h)
}

fn to_tiled(m: &[f64], n: usize) -> Vec<f64> {
    let mut t = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            t[tiled_index(i, j, n)] = m[i * n + j];
        }
    }
    t
}

fn from_tiled(t: &[f64], n: usize) -> Vec<f64> {
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            m[i * n + j] = t[tiled_index(i, j, n)];
        }
    }
    m
}

fn quarters(m: &[f64]) -> [&[f64]; 4] {
    let q = m.len() / 4;
    [&m[..q], &m[q..2 * q], &m[2 * q..3 * q], &m[3 * q..]]
}

/// C += A * B for `side` x `side` blocks in the tiled layout.
fn multiply_add<P: Par>(p: P, c: &mut [f64], a: &[f64], b: &[f64], side: usize) {
    if side == LEAF {
        finegrain::record::declare(|| {
            finegrain::record::read(a);
            finegrain::record::read(b);
            finegrain::record::write(c);
        });
        leaf(c, a, b);
        return;
    }
    let h = side / 2;
    let [a00, a01, a10, a11] = quarters(a);
    let [b00, b01, b10, b11] = quarters(b);
    let (c0, c1) = c.split_at_mut(2 * h * h);
    let (c00, c01) = c0.split_at_mut(h * h);
    let (c10, c11) = c1.split_at_mut(h * h);
    p.join(
        || p.join(|| multiply_add(p, c00, a00, b00, h), || multiply_add(p, c01, a00, b01, h)),
        || p.join(|| multiply_add(p, c10, a10, b00, h), || multiply_add(p, c11, a10, b01, h)),
    );
    p.join(
        || p.join(|| multiply_add(p, c00, a01, b10, h), || multiply_add(p, c01, a01, b11, h)),
        || p.join(|| multiply_add(p, c10, a11, b10, h), || multiply_add(p, c11, a11, b11, h)),
    );
}

/// C += A * B on one row-major LEAF x LEAF tile; the i-k-j order makes the
/// innermost loop a contiguous axpy that the compiler vectorises.
#[inline(never)]
fn leaf(c: &mut [f64], a: &[f64], b: &[f64]) {
    let (c, a, b) = (&mut c[..LEAF * LEAF], &a[..LEAF * LEAF], &b[..LEAF * LEAF]);
    for i in 0..LEAF {
        let ci = &mut c[i * LEAF..(i + 1) * LEAF];
        for k in 0..LEAF {
            let aik = a[i * LEAF + k];
            let bk = &b[k * LEAF..(k + 1) * LEAF];
            for j in 0..LEAF {
                ci[j] += aik * bk[j];
            }
        }
    }
}

impl MatMulInstance {
    fn run<P: Par>(&self, p: P) -> Output {
        let mut c = vec![0.0; self.n * self.n];
        p.region(|| multiply_add(p, &mut c, &self.a, &self.b, self.n));
        Output::Floats(from_tiled(&c, self.n))
    }
}

impl Instance for MatMulInstance {
    fn describe(&self) -> String {
        format!("n={} seed={}", self.n, self.seed)
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
        Some(format!("n={} seed={}", self.n, self.seed))
    }
    fn check(&self, reference: &Output, got: &Output) -> Result<(), String> {
        check_floats(reference, got, TOLERANCE, Scale::Each)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_textbook_triple_loop() {
        let n = 32;
        let mut g = SplitMix64::new(5);
        let a: Vec<f64> = (0..n * n).map(|_| g.unit()).collect();
        let b: Vec<f64> = (0..n * n).map(|_| g.unit()).collect();
        let mut want = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                want[i * n + j] = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
            }
        }
        let inst = MatMulInstance { n, seed: 5, a: to_tiled(&a, n), b: to_tiled(&b, n) };
        inst.check(&Output::Floats(want), &inst.serial()).unwrap();
        assert_eq!(from_tiled(&to_tiled(&a, n), n), a);
    }
}
