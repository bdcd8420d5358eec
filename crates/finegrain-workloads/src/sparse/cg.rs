//! `cg`: conjugate gradient on a sparse SPD matrix (Sanchez, Yoo, Kozyrakis,
//! "Flexible architectural support for fine-grain scheduling", ASPLOS 2010,
//! section 5.2, Table 4; their section 6.4 notes it needs fast reductions).

mod matrix;
mod solve;

use crate::par::{Finegrain, Rayon};
use crate::support::io::Csr;
use crate::support::rng::SplitMix64;
use crate::support::tolerance::{check_floats, Scale};
use crate::{Instance, Output, Size, Workload};

/// Parallel dot products associate differently from the serial ones, so the
/// solutions differ by rounding; relative to the largest entry, this much.
const TOLERANCE: f64 = 1e-9;

pub struct ConjugateGradient;

impl Workload for ConjugateGradient {
    fn name(&self) -> &'static str {
        "cg"
    }
    fn description(&self) -> &'static str {
        "conjugate gradient, fixed iterations, on a 2-D Laplacian with random couplings (CSR); parallel SpMV and reductions"
    }
    fn source(&self) -> &'static str {
        "Sanchez et al. (ASPLOS 2010), section 5.2 (cg, Table 4) and section 6.4 (reductions)"
    }
    fn api(&self) -> &'static str {
        "reduce"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (side, iterations) = match size {
            Size::Test => (24, 60),
            Size::Small => (160, 60),
            Size::Full => (800, 60),
        };
        let a = matrix::grid_with_links(side, seed);
        // b = A x* for a known x*, so the tests can see CG converge to x*.
        let mut rng = SplitMix64::new(seed ^ 0x6367_5f72_6873);
        let truth: Vec<f64> = (0..a.nrows).map(|_| rng.unit() * 2.0 - 1.0).collect();
        let b = (0..a.nrows).map(|i| a.row_dot(i, &truth)).collect();
        Box::new(CgInstance { side, iterations, a, b })
    }
}

struct CgInstance {
    side: usize,
    iterations: usize,
    a: Csr,
    b: Vec<f64>,
}

impl Instance for CgInstance {
    fn describe(&self) -> String {
        let (side, n, nnz, it) = (self.side, self.a.nrows, self.a.nnz(), self.iterations);
        format!("{side}x{side} grid: n={n}, {nnz} nonzeros, {it} iterations")
    }
    fn serial(&self) -> Output {
        Output::Floats(solve::serial(&self.a, &self.b, self.iterations))
    }
    fn parallel(&self) -> Output {
        Output::Floats(solve::parallel(Finegrain, &self.a, &self.b, self.iterations))
    }
    fn rayon(&self) -> Option<Output> {
        Some(Output::Floats(solve::parallel(Rayon, &self.a, &self.b, self.iterations)))
    }
    fn check(&self, reference: &Output, got: &Output) -> Result<(), String> {
        check_floats(reference, got, TOLERANCE, Scale::Largest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_is_symmetric_and_dominant() {
        let a = matrix::grid_with_links(12, 3);
        let at = |i: usize, j: usize| {
            let (cols, vals) = a.row(i);
            cols.iter().zip(vals).find(|(&c, _)| c as usize == j).map_or(0.0, |(_, &v)| v)
        };
        for i in 0..a.nrows {
            let (cols, vals) = a.row(i);
            let off: f64 = cols.iter().zip(vals).filter(|(&c, _)| c as usize != i).map(|(_, v)| v.abs()).sum();
            assert!(at(i, i) > off);
            for &j in cols {
                assert_eq!(at(i, j as usize), at(j as usize, i));
            }
        }
    }

    #[test]
    fn converges_to_the_known_solution() {
        let a = matrix::grid_with_links(20, 9);
        let truth: Vec<f64> = (0..a.nrows).map(|i| (i as f64 * 0.37).sin()).collect();
        let b: Vec<f64> = (0..a.nrows).map(|i| a.row_dot(i, &truth)).collect();
        let x = solve::serial(&a, &b, 200);
        let err = x.iter().zip(&truth).map(|(u, v)| (u - v).abs()).fold(0.0, f64::max);
        assert!(err < 1e-8, "error {err}");
    }
}
