//! spmv: repeated sparse matrix-vector multiplication in CSR form.
//!
//! Computes x_{t+1} = A x_t for `iters` steps from a random start vector, with
//! A the random matrix of `random.rs` (about k entries per row, every row sum
//! below 1). Each step depends on the previous one, as in an iterative solver.
//! A step is one parallel loop over rows in chunks of ROWS_PER_TASK rows (the
//! SMVM of Kumar, Hughes, Nguyen, "Carbon: architectural support for
//! fine-grained parallelism on chip multiprocessors", ISCA 2007, hands 4 rows
//! to a task; with k = 16 a 32-row chunk is about 500 multiply-adds, a few
//! thousand instructions). Every row is summed serially in column order, so the
//! parallel result equals the serial one exactly; the check still allows for
//! rounding (tolerance below) so peers may reorder.

use super::input::square;
use super::random::random_csr;
use crate::par::{Finegrain, Par, Rayon};
use crate::support::io::{Csr, Input};
use crate::support::rng::SplitMix64;
use crate::support::shared::SharedMut;
use crate::support::tolerance::{check_floats, Scale};
use crate::{Instance, Output, Size, Workload};

pub struct SpMV;

const ROWS_PER_TASK: usize = 32;
const TOLERANCE: f64 = 1e-12;

impl Workload for SpMV {
    fn name(&self) -> &'static str {
        "spmv"
    }
    fn description(&self) -> &'static str {
        "iterated CSR sparse matrix times dense vector, parallel over row chunks"
    }
    fn source(&self) -> &'static str {
        "Cheng et al. (ASPLOS 2023), section 5.3 and Table 1 (SpMV, parallel_for); Kumar et al. (Carbon, ISCA 2007), section 5.3 and Table 2 (SMVM)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn paper_size(&self) -> bool {
        true
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (n, k, iters) = match size {
            Size::Test => (2_000, 8, 3),
            Size::Small => (50_000, 16, 5),
            Size::Full => (1 << 19, 16, 20),
            Size::Paper => (1 << 20, 16, 2),
        };
        let mut g = SplitMix64::new(seed);
        let a = random_csr(n, k, &mut g);
        let x0 = (0..n).map(|_| g.unit()).collect();
        Box::new(SpMVInstance { a, x0, k: Some(k), iters, seed })
    }
    fn check_input(&self, input: &Input) -> Result<(), String> {
        square(input, "spmv", "iterates x = A x")
    }
    /// The file's matrix (a graph's adjacency matrix), divided by its largest
    /// absolute row sum where that exceeds 1, so that, as in the generated
    /// matrix, no row sums to more than 1 and iterating cannot overflow. The
    /// start vector is drawn from `seed`, and `size` sets the iterations as
    /// for the generated input.
    fn prepare_input(&self, input: &Input, size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
        self.check_input(input)?;
        let iters = match size {
            Size::Test => 3,
            Size::Small => 5,
            Size::Full | Size::Paper => 20,
        };
        let mut a = input.to_matrix();
        let norm = (0..a.nrows).map(|i| a.row(i).1.iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max);
        if norm > 1.0 {
            a.vals.iter_mut().for_each(|v| *v /= norm);
        }
        let mut g = SplitMix64::new(seed);
        let x0 = (0..a.ncols).map(|_| g.unit()).collect();
        Ok(Box::new(SpMVInstance { a, x0, k: None, iters, seed }))
    }
}

struct SpMVInstance {
    a: Csr,
    x0: Vec<f64>,
    /// Entries per row of the generated matrix; `None` for a file, which no
    /// peer can regenerate.
    k: Option<usize>,
    iters: usize,
    seed: u64,
}

impl SpMVInstance {
    fn run<P: Par>(&self, p: P) -> Output {
        let a = &self.a;
        let mut x = self.x0.clone();
        let mut y = vec![0.0; x.len()];
        p.region(|| {
            for _ in 0..self.iters {
                let out = SharedMut::new(&mut y);
                let xs = &x;
                p.for_each_chunk(0..a.nrows, ROWS_PER_TASK, |rows| {
                    // SAFETY: chunks of one loop are disjoint.
                    let ys = unsafe { out.slice(rows.clone()) };
                    finegrain::record::write(ys);
                    a.declare_rows(rows.clone(), xs);
                    for (yi, i) in ys.iter_mut().zip(rows) {
                        *yi = a.row_dot(i, xs);
                    }
                });
                std::mem::swap(&mut x, &mut y);
            }
        });
        Output::Floats(x)
    }
}

impl Instance for SpMVInstance {
    fn describe(&self) -> String {
        format!("n={} nnz={} iters={}", self.a.nrows, self.a.nnz(), self.iters)
    }
    fn serial(&self) -> Output {
        let mut x = self.x0.clone();
        let mut y = vec![0.0; x.len()];
        for _ in 0..self.iters {
            for (i, yi) in y.iter_mut().enumerate() {
                *yi = self.a.row_dot(i, &x);
            }
            std::mem::swap(&mut x, &mut y);
        }
        Output::Floats(x)
    }
    fn parallel(&self) -> Output {
        self.run(Finegrain)
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.run(Rayon))
    }
    fn peer_args(&self) -> Option<String> {
        let k = self.k?;
        Some(format!("n={} k={k} iters={} seed={}", self.a.nrows, self.iters, self.seed))
    }
    fn check(&self, reference: &Output, got: &Output) -> Result<(), String> {
        check_floats(reference, got, TOLERANCE, Scale::Each)
    }
}
