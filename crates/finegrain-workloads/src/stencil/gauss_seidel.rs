//! `gauss-seidel`: red-black Gauss-Seidel sweeps for the 2-D Poisson problem
//! (Kumar, Hughes, Nguyen, "Carbon: architectural support for fine-grained
//! parallelism on chip multiprocessors", ISCA 2007, section 5.3, Table 2:
//! "Red-Black Gauss-Seidel on a 2D Grid").

mod grid;

use crate::par::{Finegrain, Rayon};
use crate::{Instance, Output, Size, Workload};
use grid::Grid;

pub struct GaussSeidel;

impl Workload for GaussSeidel {
    fn name(&self) -> &'static str {
        "gauss-seidel"
    }
    fn description(&self) -> &'static str {
        "red-black Gauss-Seidel sweeps of the 5-point Poisson equation on a square grid; each colour a parallel loop over rows"
    }
    fn source(&self) -> &'static str {
        "Kumar et al. (Carbon, ISCA 2007), section 5.3 (GS, Table 2)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn paper_size(&self) -> bool {
        true
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (side, sweeps) = match size {
            Size::Test => (30, 4),
            Size::Small => (256, 60),
            Size::Full => (1024, 600),
            // Carbon's Table 2 runs 2 iterations; a grid wide enough for
            // 256 threads' worth of tasks per colour.
            Size::Paper => (8192, 2),
        };
        Box::new(GsInstance { sweeps, start: Grid::new(side, seed) })
    }
}

struct GsInstance {
    sweeps: usize,
    start: Grid,
}

impl Instance for GsInstance {
    fn describe(&self) -> String {
        let n = self.start.interior();
        format!("{n}x{n} interior points, {} sweeps", self.sweeps)
    }
    fn serial(&self) -> Output {
        let mut g = self.start.clone();
        for _ in 0..self.sweeps {
            g.sweep_serial();
        }
        g.digest()
    }
    fn parallel(&self) -> Output {
        let mut g = self.start.clone();
        finegrain::record::region(|| {
            for _ in 0..self.sweeps {
                g.sweep(Finegrain);
            }
        });
        g.digest()
    }
    fn rayon(&self) -> Option<Output> {
        let mut g = self.start.clone();
        for _ in 0..self.sweeps {
            g.sweep(Rayon);
        }
        Some(g.digest())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With no source and the boundary held at 1, the solution is 1 everywhere:
    /// many sweeps must approach it (a check that the colour indexing reads
    /// the right neighbours).
    #[test]
    fn sweeps_converge_to_the_harmonic_solution() {
        let mut g = Grid::constant_boundary(16, 1.0);
        for _ in 0..1000 {
            g.sweep_serial();
        }
        let worst = (1..=16).flat_map(|i| (1..=16).map(move |j| (i, j))).map(|(i, j)| (g.at(i, j) - 1.0).abs()).fold(0.0, f64::max);
        assert!(worst < 1e-9, "{worst}");
    }

    #[test]
    fn parallel_sweeps_are_bit_identical() {
        let g = Grid::new(40, 5);
        let (mut a, mut b) = (g.clone(), g);
        a.sweep_serial();
        finegrain::Pool::new(3, "ws").unwrap().install(|| b.sweep(Finegrain));
        assert_eq!(a.digest(), b.digest());
    }
}
