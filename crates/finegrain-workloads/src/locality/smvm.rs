//! `smvm`: repeated sparse matrix-vector multiply, one task per block of
//! rows, with one signature per task of the columns (the entries of `x`) its
//! rows touch (R. Yoo, *Locality-Aware Task Management on Many-Core
//! Processors*, PhD thesis, Stanford University, 2012, section 4.4, Table
//! 4.4, and section 5.4.4: "smvm", a random (input-dependent) pattern run by
//! the signature manager, each row's fill pattern scaled onto 1,024 bits;
//! 4,096 tasks of about 3.4K instructions in chapter 5).
//!
//! **Input.** The thesis uses Matrix Market matrices replicated column-wise;
//! here the matrix is generated with the structure that makes them
//! clustered: a mesh-like matrix (each row couples to a window of columns
//! around its node and to a second window one grid row away, as a 2-D
//! finite-element matrix does) whose row blocks are stored in a random order,
//! as a matrix from a file need not be stored in a locality-friendly order.
//! Rows of one task share their windows; tasks far apart in index order may
//! touch the same part of `x`, which only the signatures reveal.
//!
//! **Program.** `iters` steps of `x <- b + s A x` (`s` = 0.9 over the
//! largest row sum of `|A|`, so the iteration contracts), each step one task
//! space over the row blocks; the steps keep their plan (`Replay`, thesis
//! section 5.5.2). The signatures are computed once per input, with the
//! matrix, and are not timed.
//!
//! **Hint.** Bit `r` of task `t`'s signature is set if one of its rows reads
//! a column in the `r`-th of 1,024 equal ranges of `x`
//! (`signature::mark(&mut sig, col, 0, ncols)`).
//!
//! **Check.** Every row is accumulated in column order by every version
//! ([`crate::io::Csr::row_dot`]), so results are bit-identical and compared
//! exactly.

use super::{rayon_space, run_space};
use crate::io::Csr;
use crate::support::rng::SplitMix64;
use crate::support::shared::SharedMut;
use crate::{Instance, Output, Size, Workload};
use finegrain::policy::locality::signature::{mark, Signature};
use finegrain::{Replay, TaskSpace};

pub(crate) struct Smvm {
    pub(crate) hint: bool,
}

impl Workload for Smvm {
    fn name(&self) -> &'static str {
        if self.hint {
            "smvm"
        } else {
            "smvm-nohint"
        }
    }
    fn description(&self) -> &'static str {
        "iterated sparse matrix-vector multiply on a row-shuffled mesh matrix, one task per row block, as a task space with signatures"
    }
    fn source(&self) -> &'static str {
        "Yoo (PhD thesis, Stanford 2012), sections 4.4 and 5.4.4 (smvm, signature manager)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (n, rows_per_task, iters) = match size {
            Size::Test => (4096, 8, 3),
            Size::Small => (1 << 16, 8, 12),
            Size::Full | Size::Paper => (1 << 18, 8, 80),
        };
        Box::new(SmvmInstance::generate(n, rows_per_task, iters, seed, self.hint))
    }
}

struct SmvmInstance {
    a: Csr,
    /// Rows per task.
    rows: usize,
    iters: usize,
    /// The constant term and the start vector.
    b: Vec<f64>,
    /// The step `s` of `x <- b + s A x`.
    s: f64,
    sigs: Vec<Signature>,
    hint: bool,
}

impl SmvmInstance {
    fn generate(n: usize, rows: usize, iters: usize, seed: u64, hint: bool) -> SmvmInstance {
        assert!(n.is_multiple_of(rows) && n >= 64, "smvm: {n} rows are not a whole number of {rows}-row tasks");
        let mut rng = SplitMix64::new(seed ^ 0x736d_766d);
        let tasks = n / rows;
        // A 2-D mesh of n nodes, `grid` nodes a row; row block t holds the
        // rows of mesh nodes `order[t] * rows ..`, a random order.
        let grid = (n as f64).sqrt() as usize;
        let window = 3 * rows;
        let mut order: Vec<usize> = (0..tasks).collect();
        for i in (1..tasks).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut triplets = Vec::new();
        for (t, &node_block) in order.iter().enumerate() {
            for k in 0..rows {
                let (row, node) = (t * rows + k, node_block * rows + k);
                let count = 12 + rng.below(25) as usize;
                triplets.push((row as u32, node as u32, 4.0 + rng.unit()));
                for e in 0..count {
                    // Two thirds in the node's own window, one third a grid row away.
                    let centre = if e % 3 == 2 { (node + grid) % n } else { node };
                    let col = (centre + n - window / 2 + rng.below(window as u64) as usize) % n;
                    triplets.push((row as u32, col as u32, rng.unit() - 0.5));
                }
            }
        }
        let a = Csr::from_triplets(n, n, triplets);
        let norm = (0..n).map(|i| a.row(i).1.iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max);
        let b = (0..n).map(|_| rng.unit()).collect();
        let sigs = signatures(&a, rows);
        SmvmInstance { a, rows, iters, b, s: 0.9 / norm, sigs, hint }
    }

    fn tasks(&self) -> usize {
        self.a.nrows / self.rows
    }

    /// Row `i` of `b + s A x`.
    fn row(&self, i: usize, x: &[f64]) -> f64 {
        self.b[i] + self.s * self.a.row_dot(i, x)
    }

    /// Every step, each with `section` over the row blocks.
    fn steps_with(&self, section: impl Fn(&[f64], &SharedMut<'_, f64>, &mut Replay)) -> Output {
        let mut x = self.b.clone();
        let mut y = vec![0.0; x.len()];
        let mut replay = Replay::new();
        for _ in 0..self.iters {
            section(&x, &SharedMut::new(&mut y), &mut replay);
            std::mem::swap(&mut x, &mut y);
        }
        Output::Floats(x)
    }

    /// One task: rows `t * rows ..` of the next `x` into `y`.
    fn task(&self, x: &[f64], y: &SharedMut<'_, f64>, t: usize) {
        let rows = t * self.rows..(t + 1) * self.rows;
        self.a.declare_rows(rows.clone(), x);
        y.declare_write(rows.clone());
        // SAFETY: task t alone writes rows t * rows.., and `y` is read only
        // after the section.
        let out = unsafe { y.slice(rows.clone()) };
        for (o, i) in out.iter_mut().zip(rows) {
            *o = self.row(i, x);
        }
    }
}

/// One signature per block of `rows` rows: the columns its rows read,
/// scaled onto 1,024 bits.
fn signatures(a: &Csr, rows: usize) -> Vec<Signature> {
    (0..a.nrows / rows)
        .map(|t| {
            let mut sig: Signature = Default::default();
            for i in t * rows..(t + 1) * rows {
                for &c in a.row(i).0 {
                    mark(&mut sig, c as usize, 0, a.ncols);
                }
            }
            sig
        })
        .collect()
}

impl Instance for SmvmInstance {
    fn describe(&self) -> String {
        format!("{n} x {n}, {} non-zeros, {} tasks of {} rows, {} steps", self.a.nnz(), self.tasks(), self.rows, self.iters, n = self.a.nrows)
    }
    fn serial(&self) -> Output {
        let mut x = self.b.clone();
        let mut y = vec![0.0; x.len()];
        for _ in 0..self.iters {
            for (i, o) in y.iter_mut().enumerate() {
                *o = self.row(i, &x);
            }
            std::mem::swap(&mut x, &mut y);
        }
        Output::Floats(x)
    }
    fn parallel(&self) -> Output {
        self.steps_with(|x, y, replay| {
            let space = TaskSpace::new([self.tasks()]).replay(replay);
            let space = if self.hint { space.signatures(&self.sigs) } else { space };
            run_space(space, |[t, _, _]| self.task(x, y, t));
        })
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.steps_with(|x, y, _| rayon_space([self.tasks(), 1, 1], |[t, _, _]| self.task(x, y, t))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tasks far apart in index order share columns (the rows were
    /// shuffled), and a task's signature is concentrated: its rows read two
    /// windows of x, a few bits out of 1,024.
    #[test]
    fn signatures_are_clustered_and_shuffled() {
        let inst = SmvmInstance::generate(1 << 15, 8, 1, 4, true);
        let bits = |s: &Signature| s.iter().map(|w| w.count_ones()).sum::<u32>();
        let mean = inst.sigs.iter().map(bits).sum::<u32>() as f64 / inst.sigs.len() as f64;
        assert!((2.0..=8.0).contains(&mean), "{mean} bits a task");
        // Neighbours in index order rarely share a bit.
        let shared = inst.sigs.windows(2).filter(|w| w[0].iter().zip(&w[1]).any(|(a, b)| a & b != 0)).count();
        assert!(shared < inst.sigs.len() / 20, "{shared} neighbouring pairs share a region");
    }

    /// x is the fixed point of x = b + s A x after enough steps.
    #[test]
    fn iteration_converges_to_the_fixed_point() {
        let inst = SmvmInstance::generate(4096, 8, 300, 2, true);
        let Output::Floats(x) = inst.serial() else { panic!() };
        let worst = (0..x.len()).map(|i| (inst.row(i, &x) - x[i]).abs()).fold(0.0, f64::max);
        assert!(worst < 1e-9, "{worst}");
    }

    #[test]
    fn hinted_and_unhinted_match_serial() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for hint in [true, false] {
            let inst = SmvmInstance::generate(4096, 8, 4, 5, hint);
            assert_eq!(inst.serial(), pool.install(|| inst.parallel()));
        }
    }
}
