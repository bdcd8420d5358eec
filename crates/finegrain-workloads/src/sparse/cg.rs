//! `cg`: conjugate gradient on a sparse SPD matrix (Sanchez, Yoo, Kozyrakis,
//! "Flexible architectural support for fine-grain scheduling", ASPLOS 2010,
//! section 5.2, Table 4; their section 6.4 notes it needs fast reductions).

mod matrix;
mod solve;

use super::input::spd;
use crate::par::{Finegrain, Rayon};
use crate::support::io::{Csr, Input};
use crate::support::rng::SplitMix64;
use crate::support::tolerance::{check_floats, Scale};
use crate::{Instance, Output, Size, Workload};

/// Parallel dot products associate differently from the serial ones, so the
/// solutions differ by rounding; relative to the largest entry, this much.
const TOLERANCE: f64 = 1e-9;

/// CG iterations at every size.
const ITERATIONS: usize = 60;

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
    fn paper_size(&self) -> bool {
        true
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (side, iterations) = match size {
            Size::Test => (24, ITERATIONS),
            Size::Small => (160, ITERATIONS),
            Size::Full => (800, ITERATIONS),
            // The claims' scale: a 400 x 400 grid keeps the recording under
            // 3 GB and a 256-thread simulation under a minute (docs/simulation.md).
            Size::Paper => (400, ITERATIONS),
        };
        Box::new(CgInstance::new(matrix::grid_with_links(side, seed), seed, iterations, Some(side)))
    }
    /// A Matrix Market file whose matrix is square, symmetric (as stored, or
    /// as a `symmetric` file is mirrored) and has a positive diagonal: what a
    /// symmetric positive definite matrix has, short of proving it so.
    fn check_input(&self, input: &Input) -> Result<(), String> {
        spd(input, "cg", "solves A x = b")
    }
    /// The file's matrix, with `b = A x*` for an `x*` drawn from `seed` as for
    /// the generated matrix, and the same number of iterations at every size.
    fn prepare_input(&self, input: &Input, _size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
        self.check_input(input)?;
        Ok(Box::new(CgInstance::new(input.to_matrix(), seed, ITERATIONS, None)))
    }
}

struct CgInstance {
    /// The grid's side of a generated matrix; `None` for a file.
    side: Option<usize>,
    iterations: usize,
    a: Csr,
    b: Vec<f64>,
    /// The solution x* that `b = A x*` was made from.
    truth: Vec<f64>,
}

impl CgInstance {
    fn new(a: Csr, seed: u64, iterations: usize, side: Option<usize>) -> CgInstance {
        // b = A x* for a known x*, so the tests can see CG converge to x*.
        let mut rng = SplitMix64::new(seed ^ 0x6367_5f72_6873);
        let truth: Vec<f64> = (0..a.nrows).map(|_| rng.unit() * 2.0 - 1.0).collect();
        let b = (0..a.nrows).map(|i| a.row_dot(i, &truth)).collect();
        CgInstance { side, iterations, a, b, truth }
    }

    /// The squared A-norm of `x - x*`, `(x - x*)^T A (x - x*)`: what CG
    /// minimises over its Krylov space.
    fn energy(&self, x: &[f64]) -> f64 {
        let e: Vec<f64> = x.iter().zip(&self.truth).map(|(u, v)| u - v).collect();
        (0..self.a.nrows).map(|i| e[i] * self.a.row_dot(i, &e)).sum()
    }

    /// For a file's matrix, when the solutions differ by more than the
    /// tolerance: `Ok` if the parallel solution's error in the A-norm is at
    /// most twice the serial one's. An ill-conditioned matrix leaves CG short
    /// of convergence after its iterations, and then the differently rounded
    /// dot products of the parallel version move the iterate by as much as a
    /// few percent (a 2000-row badly scaled Laplacian: 4%); both runs minimise
    /// the A-norm of the error over the same Krylov space, and their errors in
    /// that norm agree within a few percent (Greenbaum, "Iterative Methods for
    /// Solving Linear Systems", SIAM 1997, chapter 4, on CG in finite
    /// precision). A run that lost iterations or scrambled an update does not.
    fn check_energy(&self, r: &[f64], g: &[f64], why: String) -> Result<(), String> {
        let (es, ep) = (self.energy(r), self.energy(g));
        if !(es >= 0.0 && es.is_finite()) {
            return Err(format!("{why}; the serial solution's (x - x*)^T A (x - x*) is {es:e}: the matrix is not positive definite"));
        }
        let scale = self.energy(&vec![0.0; r.len()]);
        if ep <= 4.0 * es + f64::EPSILON * scale {
            Ok(())
        } else {
            Err(format!("{why}; its error in the A-norm, {:.3e}, is more than twice the serial solution's, {:.3e}", ep.sqrt(), es.sqrt()))
        }
    }
}

impl Instance for CgInstance {
    fn describe(&self) -> String {
        let (n, nnz, it) = (self.a.nrows, self.a.nnz(), self.iterations);
        let grid = self.side.map_or(String::new(), |side| format!("{side}x{side} grid: "));
        format!("{grid}n={n}, {nnz} nonzeros, {it} iterations")
    }
    fn serial(&self) -> Output {
        Output::Floats(solve::serial(&self.a, &self.b, self.iterations))
    }
    fn parallel(&self) -> Output {
        Output::Floats(finegrain::record::region(|| solve::parallel(Finegrain, &self.a, &self.b, self.iterations)))
    }
    fn rayon(&self) -> Option<Output> {
        Some(Output::Floats(solve::parallel(Rayon, &self.a, &self.b, self.iterations)))
    }
    fn check(&self, reference: &Output, got: &Output) -> Result<(), String> {
        let strict = check_floats(reference, got, TOLERANCE, Scale::Largest);
        match (strict, self.side, reference, got) {
            (Err(why), None, Output::Floats(r), Output::Floats(g)) if r.len() == g.len() => self.check_energy(r, g, why),
            (strict, ..) => strict,
        }
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
