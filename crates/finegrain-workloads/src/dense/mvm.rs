//! `mvm`: dense matrix-vector multiply (Kumar, Hughes, Nguyen, "Carbon:
//! architectural support for fine-grained parallelism on chip
//! multiprocessors", ISCA 2007, section 5.3 and Table 2: "Dense Matrix Vector
//! Multiply (MVM), both matrix and vector are dense", 128x128 and 512x512, 128
//! and 512 tasks).
//!
//! One task per row, as Carbon's task counts say (128 tasks for 128 rows, 512
//! for 512): a task is the dot product of one row with the vector, about 1,200
//! and 4,700 cycles on Carbon's cores. `small` and `full` are Carbon's two
//! datasets, 128x128 and 512x512.
//!
//! Deviation: Carbon times one product, which takes tens of microseconds
//! here, so the product is repeated as a power iteration,
//! `x <- A x / max|A x|`, each step one loop over the rows. The loop also
//! returns `max |y_i|` (a fold whose combine is `max`, exact in any order),
//! and the next step scales by its inverse as it reads `x`, so there is no
//! second loop per step. `A` has entries uniform in `[0, 1)`, so the iteration
//! converges to the Perron vector; the result is the last estimate of the
//! dominant eigenvalue followed by the vector. Each row's dot product runs
//! in the same order in every backend, so the parallel result equals the
//! serial one bit for bit; the check allows 1e-12 of each value.

use crate::par::{Finegrain, Par, Rayon, Serial};
use crate::support::rng::SplitMix64;
use crate::support::tolerance::{check_floats, Scale};
use crate::{Instance, Output, Size, Workload};

pub struct Mvm;

impl Workload for Mvm {
    fn name(&self) -> &'static str {
        "mvm"
    }
    fn description(&self) -> &'static str {
        "dense matrix-vector multiply, one task per row, repeated as a power iteration; eigenvalue estimate and vector"
    }
    fn source(&self) -> &'static str {
        "Kumar et al. (Carbon, ISCA 2007), section 5.3 and Table 2 (MVM: 128x128 and 512x512)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn paper_size(&self) -> bool {
        true
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (n, iters) = match size {
            Size::Test => (40, 6),
            Size::Small => (128, 500),
            Size::Full => (512, 1_500),
            Size::Paper => (8192, 4),
        };
        Box::new(MvmInstance::generate(n, iters, seed))
    }
}

struct MvmInstance {
    n: usize,
    /// Row-major n x n.
    a: Vec<f64>,
    x0: Vec<f64>,
    iters: usize,
}

impl MvmInstance {
    fn generate(n: usize, iters: usize, seed: u64) -> Self {
        let mut g = SplitMix64::new(seed ^ 0x6d76_6d5f_6d61_7472);
        let a = (0..n * n).map(|_| g.unit()).collect();
        let x0 = (0..n).map(|_| 0.5 + g.unit()).collect();
        MvmInstance { n, a, x0, iters }
    }
}

/// `s * (row . x)`, in column order.
#[inline]
fn row_dot(row: &[f64], x: &[f64], s: f64) -> f64 {
    s * row.iter().zip(x).fold(0.0, |acc, (a, b)| acc + a * b)
}

/// `iters` steps of `x <- A x / max|A x|`, one task per row; the last
/// `max|A x|` (the eigenvalue estimate) followed by `x`.
fn power<P: Par>(p: P, n: usize, a: &[f64], x0: &[f64], iters: usize) -> Vec<f64> {
    let (mut x, mut y) = (x0.to_vec(), vec![0.0; n]);
    let mut scale = 1.0;
    let mut lambda = 0.0;
    for _ in 0..iters {
        let xs = &x;
        lambda = p.fold_chunks_mut(
            &mut y,
            1,
            || 0.0f64,
            |m, i, out| {
                let row = &a[i * n..(i + 1) * n];
                finegrain::record::read(row);
                finegrain::record::read(xs);
                out[0] = row_dot(row, xs, scale);
                m.max(out[0].abs())
            },
            f64::max,
        );
        std::mem::swap(&mut x, &mut y);
        scale = 1.0 / lambda;
    }
    // The last step's vector, normalised as the next step would read it.
    let mut out = Vec::with_capacity(n + 1);
    out.push(lambda);
    out.extend(x.iter().map(|v| v * scale));
    out
}

impl Instance for MvmInstance {
    fn describe(&self) -> String {
        format!("{0}x{0}, {1} products, one task per row", self.n, self.iters)
    }
    fn serial(&self) -> Output {
        Output::Floats(power(Serial, self.n, &self.a, &self.x0, self.iters))
    }
    fn parallel(&self) -> Output {
        Output::Floats(finegrain::record::region(|| power(Finegrain, self.n, &self.a, &self.x0, self.iters)))
    }
    fn rayon(&self) -> Option<Output> {
        Some(Output::Floats(power(Rayon, self.n, &self.a, &self.x0, self.iters)))
    }
    fn check(&self, reference: &Output, got: &Output) -> Result<(), String> {
        check_floats(reference, got, 1e-12, Scale::Each)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_step_is_a_matrix_vector_product() {
        // [[1, 2], [3, 4]] [1, 1] = [3, 7]; max 7.
        let v = power(Serial, 2, &[1.0, 2.0, 3.0, 4.0], &[1.0, 1.0], 1);
        assert_eq!(v, [7.0, 3.0 / 7.0, 1.0]);
    }

    #[test]
    fn converges_to_the_dominant_eigenpair() {
        let inst = MvmInstance::generate(30, 60, 5);
        let v = power(Serial, inst.n, &inst.a, &inst.x0, inst.iters);
        let (lambda, x) = (v[0], &v[1..]);
        // A x = lambda x for the Perron pair; its eigenvalue is near n/2.
        for i in 0..inst.n {
            let ax = row_dot(&inst.a[i * inst.n..(i + 1) * inst.n], x, 1.0);
            assert!((ax - lambda * x[i]).abs() < 1e-9 * lambda, "row {i}: {ax} vs {}", lambda * x[i]);
        }
        assert!((lambda - 15.0).abs() < 3.0, "{lambda}");
    }
}
