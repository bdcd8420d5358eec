//! `cf`: sparse Cholesky factorization `P A P^T = L L^T` (Kumar, Hughes,
//! Nguyen, "Carbon: architectural support for fine-grained parallelism on
//! chip multiprocessors", ISCA 2007, section 5.3 and Table 2: "CF performs
//! Cholesky factorization on a sparse matrix. It involves bottom-up traversal
//! of a tree where each node is a task and the edges represent dependences
//! between tasks").
//!
//! The tree is the elimination tree and a node is one column (not a
//! supernode): a left-looking column task that may start once its children
//! have finished, a [`finegrain::Graph`] node with an edge from each column to
//! its parent ([`numeric`]). Symbolic analysis (ordering, tree, structure of
//! L; [`symbolic`]) runs once in `prepare`, outside the timed run, as a
//! factorization that is repeated on new values with one pattern (Carbon's
//! matrices come from interior-point linear programming, which factors one
//! pattern every iteration) would do.
//!
//! Inputs ([`matrix`]): Carbon's datasets are the LP matrices `world` (28,653
//! columns, 1.33 M nonzeros) and `watson` (209,614 columns, 3.78 M); they are
//! not available here. The generators make 2-D 5-point and 3-D 7-point
//! Laplacians with random conductances, random diagonally dominant patterns,
//! and block-angular matrices: independent 2-D Laplacian blocks joined by a
//! few linking rows, the shape of the normal equations of the multicommodity
//! flow LPs among Carbon's matrices (`pds`, `ken`). All are ordered by
//! approximate minimum degree. The sizes use the block-angular ones (`small`
//! 14,430 columns, `full` 200,764, near `world` and `watson`), because on
//! single grids and random patterns the column tree has almost no
//! parallelism: its work over its span (`describe` prints it) is 1.7 for a
//! 2-D Laplacian 120x120, 1.2 for a 3-D one 20^3 and 1.0 for a random
//! pattern of 2,000 rows, where the dense top separator, a chain of columns,
//! holds most of the work; block-angular inputs give 3.3 (`test`) to 7.0
//! (`full`). Any symmetric positive definite Matrix Market file may be given
//! instead.
//!
//! Deviation: tasks are single columns, so the leaves' tasks are short (a few
//! dozen flops) and the separators' long; supernodes would merge the long
//! chains near the root into fewer, larger tasks but would change the tree the
//! scheduler sees from the paper's one-task-per-node description. Carbon's
//! Table 2 lists about 6.6 tasks per column for `world` and 3.1 for `watson`
//! (189,082 and 641,330 tasks, if that column of the table is the task count),
//! so its CF cut the work finer than one task per column; the paper does not
//! say how.

mod cells;
mod matrix;
mod numeric;
mod symbolic;

pub(super) use cells::Cells;
pub(super) use matrix::{check, Kind};
pub(super) use symbolic::{Symbolic, NONE};

use crate::support::io::Input;
use crate::support::rng::SplitMix64;
use crate::support::tolerance::{check_floats, Scale};
use crate::{Instance, Output, Size, Workload};

/// Every version subtracts a column's updates in the same order, so their
/// factors agree bit for bit; this is slack for nothing but a future change
/// of kernel, relative to each entry.
const TOLERANCE: f64 = 1e-12;

/// Largest accepted `||P A P^T v - L L^T v|| / (||A||_F ||v||)` for random
/// probes `v`: Cholesky is backward stable with an error of about the
/// longest column times the unit roundoff, 1e-16 x (at most a few thousand).
const RESIDUAL: f64 = 1e-10;

/// The generated matrix at each size (see the module doc and
/// `docs/workloads-h13-chol.md` for the serial times).
pub(super) fn generated(size: Size) -> Kind {
    match size {
        Size::Test => Kind::BlockAngular { blocks: 8, side: 8, linking: 8 },
        Size::Small => Kind::BlockAngular { blocks: 16, side: 30, linking: 30 },
        Size::Full | Size::Paper => Kind::BlockAngular { blocks: 64, side: 56, linking: 60 },
    }
}

/// `input` checked, analysed and factored once, or why it cannot be.
pub(super) fn factor_input(input: &Input, workload: &str) -> Result<(Symbolic, Vec<f64>), String> {
    matrix::check(input, workload)?;
    let s = Symbolic::analyse(&input.to_matrix()).map_err(|e| format!("{workload}: {e}"))?;
    let l = numeric::serial(&s).map_err(|e| e.explain(&s, workload))?;
    Ok((s, l))
}

/// The serial factor of `s`, whose matrix is known positive definite.
pub(super) fn factor(s: &Symbolic) -> Vec<f64> {
    numeric::serial(s).unwrap_or_else(|e| panic!("{}", e.explain(s, "cholesky")))
}

pub struct Cholesky;

impl Workload for Cholesky {
    fn name(&self) -> &'static str {
        "cf"
    }
    fn description(&self) -> &'static str {
        "sparse Cholesky factorization (AMD order, left-looking), one task per elimination-tree column, released when its children finish; the factor's values"
    }
    fn source(&self) -> &'static str {
        "Kumar et al. (Carbon, ISCA 2007), section 5.3 (CF, Table 2)"
    }
    fn api(&self) -> &'static str {
        "graph"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let kind = generated(size);
        let s = Symbolic::analyse(&kind.generate(seed)).expect("a generated matrix is square and symmetric");
        Box::new(CfInstance { what: kind.describe(), s, seed })
    }
    /// A square symmetric Matrix Market file with a positive diagonal, which
    /// then factors: the first non-positive pivot is an error naming its row.
    fn check_input(&self, input: &Input) -> Result<(), String> {
        matrix::check(input, "cf")
    }
    fn prepare_input(&self, input: &Input, _size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
        let (s, _) = factor_input(input, "cf")?;
        Ok(Box::new(CfInstance { what: format!("file, n={}", s.n), s, seed }))
    }
}

struct CfInstance {
    what: String,
    s: Symbolic,
    seed: u64,
}

impl CfInstance {
    fn result(&self, l: Result<Vec<f64>, numeric::NotPositiveDefinite>) -> Output {
        // The matrix was checked positive definite (by construction or by the
        // factorization in `prepare_input`), so this is a bug if it fires.
        Output::Floats(l.unwrap_or_else(|e| panic!("{}", e.explain(&self.s, "cf"))))
    }

    /// `max over two probes of ||P A P^T v - L (L^T v)|| / (||A||_F ||v||)`.
    fn residual(&self, l: &[f64]) -> f64 {
        let s = &self.s;
        let mut rng = SplitMix64::new(self.seed ^ 0x0070_726f_6265);
        let mut worst = 0.0f64;
        for _ in 0..2 {
            let v: Vec<f64> = (0..s.n).map(|_| rng.unit() - 0.5).collect();
            let av = s.multiply(&v);
            let mut w = vec![0.0; s.n];
            for (k, wk) in w.iter_mut().enumerate() {
                *wk = (s.lp[k]..s.lp[k + 1]).map(|q| l[q] * v[s.li[q] as usize]).sum();
            }
            let mut llv = vec![0.0; s.n];
            for (k, &wk) in w.iter().enumerate() {
                for q in s.lp[k]..s.lp[k + 1] {
                    llv[s.li[q] as usize] += l[q] * wk;
                }
            }
            let r = av.iter().zip(&llv).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
            let vn = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            worst = worst.max(r / (s.norm() * vn));
        }
        worst
    }
}

impl Instance for CfInstance {
    fn describe(&self) -> String {
        format!("{}, nnz(L)={}, {} column tasks, parallelism {:.1}", self.what, self.s.nnz_l(), self.s.n, self.s.parallelism())
    }
    fn serial(&self) -> Output {
        self.result(numeric::serial(&self.s))
    }
    fn parallel(&self) -> Output {
        self.result(numeric::graph(&self.s, |run| finegrain::record::region(run)))
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.result(numeric::rayon(&self.s)))
    }
    /// The factor entry by entry within [`TOLERANCE`] of the serial one, and
    /// `L L^T` within [`RESIDUAL`] of `P A P^T`.
    fn check(&self, reference: &Output, got: &Output) -> Result<(), String> {
        check_floats(reference, got, TOLERANCE, Scale::Each)?;
        let Output::Floats(l) = got else { unreachable!("check_floats accepted only Floats") };
        let r = self.residual(l);
        if r.is_nan() || r > RESIDUAL {
            return Err(format!("||A - L L^T|| / ||A|| is {r:.2e} on random probes (> {RESIDUAL:.0e})"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::read_mtx;

    #[test]
    fn a_file_that_is_not_positive_definite_is_an_error() {
        let text = "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 1\n2 1 2\n2 2 1\n3 2 2\n3 3 1\n";
        let input = Input::Matrix(read_mtx(text.as_bytes()).unwrap());
        assert!(Cholesky.check_input(&input).is_ok());
        let e = Cholesky.prepare_input(&input, Size::Test, 1).err().unwrap();
        assert!(e.contains("not positive definite") && e.contains("pivot"), "{e}");
    }

    #[test]
    fn a_file_factors_and_checks() {
        let text = "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n";
        let input = Input::Matrix(read_mtx(text.as_bytes()).unwrap());
        let inst = Cholesky.prepare_input(&input, Size::Test, 1).unwrap();
        let got = finegrain::Pool::new(2, "ws").unwrap().install(|| inst.parallel());
        inst.check(&inst.serial(), &got).unwrap();
    }

    #[test]
    fn check_rejects_a_factor_that_does_not_reproduce_a() {
        let inst = Cholesky.prepare(Size::Test, 3);
        let r = inst.serial();
        let Output::Floats(mut l) = r.clone() else { panic!() };
        l[0] *= 1.0 + 1e-5;
        // Outside the entry tolerance, and the residual sees it too.
        assert!(inst.check(&r, &Output::Floats(l.clone())).is_err());
        // The residual alone: compare a wrong factor with itself.
        let wrong = Output::Floats(l);
        assert!(inst.check(&wrong, &wrong).is_err());
    }
}

/// Sizes and times of candidate inputs, for choosing them:
/// `cargo test --release -p finegrain-workloads --lib cholesky::sizes -- --ignored --nocapture`.
#[cfg(test)]
mod sizes {
    use super::*;
    use std::time::Instant;

    #[test]
    #[ignore]
    fn sizes() {
        let kinds = [
            Kind::Grid2d { side: 120 },
            Kind::Grid3d { side: 20 },
            Kind::Random { n: 2000, links: 2 },
            Kind::BlockAngular { blocks: 8, side: 8, linking: 8 },
            Kind::BlockAngular { blocks: 16, side: 30, linking: 30 },
            Kind::BlockAngular { blocks: 32, side: 40, linking: 40 },
            Kind::BlockAngular { blocks: 64, side: 56, linking: 60 },
        ];
        for kind in kinds {
            let t = Instant::now();
            let s = Symbolic::analyse(&kind.generate(1)).unwrap();
            let ta = t.elapsed();
            let t = Instant::now();
            let l = numeric::serial(&s).unwrap();
            let tf = t.elapsed();
            println!(
                "{}: n={} nnz(L)={} parallelism {:.1}; analyse {:?}, factor {:?}, sum {}",
                kind.describe(),
                s.n,
                s.nnz_l(),
                s.parallelism(),
                ta,
                tf,
                l.iter().sum::<f64>()
            );
        }
    }
}
