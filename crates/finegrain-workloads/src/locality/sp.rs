//! `sp`: an NPB-SP-like step of scalar penta-diagonal line solves along x,
//! then y, then z of a 3-D grid, one task per grid line (R. Yoo,
//! *Locality-Aware Task Management on Many-Core Processors*, PhD thesis,
//! Stanford University, 2012, section 4.1.1, Table 4.1, and section 5.4,
//! Table 5.1: NPB "sp", "solves a subset of equation lattice", a linear
//! pattern run by the flux manager; 1,156 tasks of about 6K instructions,
//! 34^2, presumably the interior lines of NPB class W's 36^3 grid).
//!
//! **Program.** A variable-coefficient diffusion step on an `n^3` grid with
//! zero (Dirichlet) values outside, split into three sweeps as NPB SP's
//! `x_solve`, `y_solve`, `z_solve` are. The sweep along direction `d` is
//! implicit along `d` and explicit across it:
//! `(I - r D_d) v = (I + r/2 (D_e + D_f)) u`, where `D` is the fourth-order
//! second difference `(-u[-2] + 16 u[-1] - 30 u + 16 u[+1] - u[+2]) / 12`
//! and `r` a per-point coefficient in `[0.05, 0.35]`. The implicit operator
//! of one grid line is a penta-diagonal matrix, strictly diagonally dominant
//! (diagonal `1 + 2.5 r`, off-diagonals summing to `2.83 r`), and each task
//! builds it from the coefficients of its line and solves it by Gaussian
//! elimination without pivoting, as SP does. Each sweep reads one grid and
//! writes the other (the explicit terms read the neighbouring lines), so
//! one sweep is one task space of `n x n` lines, and a step is three.
//!
//! **Hint.** The sharing vector is computed from the geometry: the set of
//! cache lines a task reads and writes (its line of `u`, of `r` and of the
//! output, and the four lines at distance 1 and 2 along each of the two
//! other directions) is intersected with that of its neighbour along each
//! task dimension (`sharing`). Along x lines are contiguous, so neighbours
//! share only the lines of `u` the explicit terms read; along y and z a
//! line is strided, and neighbours along x share nearly every cache line.
//! Each sweep direction keeps its own plan across steps (`Replay`, thesis
//! section 5.5.2).
//!
//! **Deviations.** NPB SP solves five coupled-by-factorisation scalar
//! systems per line from the Navier-Stokes Jacobians and runs a separate
//! right-hand-side stencil phase; here one scalar field, with the explicit
//! cross terms folded into each sweep. The grid is generated (a few Gaussian
//! bumps and a smooth coefficient field), not NPB's exact solution.
//!
//! **Check.** Every version solves every line with the same operations in
//! the same order, so the grids are bit-identical: a digest of the final
//! grid's bits. Unit tests check each line's residual and a line against a
//! dense elimination.

use super::{rayon_space, run_space};
use crate::support::digest::digest_iter;
use crate::support::rng::SplitMix64;
use crate::support::shared::SharedMut;
use crate::{Instance, Output, Size, Workload};
use finegrain::{Replay, TaskSpace};
use std::collections::HashSet;

/// `f64`s in a cache line, for the sharing vector.
const PER_LINE: usize = 8;

pub(crate) struct Sp {
    pub(crate) hint: bool,
}

impl Workload for Sp {
    fn name(&self) -> &'static str {
        if self.hint {
            "sp"
        } else {
            "sp-nohint"
        }
    }
    fn description(&self) -> &'static str {
        "NPB-SP-like diffusion step: penta-diagonal line solves along x, y and z of a 3-D grid, one task per line, task spaces with flux hints"
    }
    fn source(&self) -> &'static str {
        "Yoo (PhD thesis, Stanford 2012), sections 4.1.1 and 5.4 (sp, flux manager)"
    }
    fn api(&self) -> &'static str {
        "loop-2d"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (n, steps) = match size {
            Size::Test => (12, 1),
            Size::Small => (48, 3),
            Size::Full | Size::Paper => (96, 2),
        };
        Box::new(SpInstance::generate(n, steps, seed, self.hint))
    }
}

struct SpInstance {
    n: usize,
    steps: usize,
    /// The start grid, `u[(z n + y) n + x]`.
    u0: Vec<f64>,
    /// The diffusion coefficient of each point.
    r: Vec<f64>,
    hint: bool,
}

/// The other two directions of a sweep along `d`, ascending: the task
/// space's x and y.
fn across(d: usize) -> [usize; 2] {
    match d {
        0 => [1, 2],
        1 => [0, 2],
        _ => [0, 1],
    }
}

impl SpInstance {
    fn generate(n: usize, steps: usize, seed: u64, hint: bool) -> SpInstance {
        assert!(n >= 5, "sp: the grid side must be at least 5 (a penta-diagonal line), not {n}");
        let mut rng = SplitMix64::new(seed ^ 0x7370);
        let bumps: Vec<([f64; 3], f64, f64)> =
            (0..6).map(|_| ([rng.unit(), rng.unit(), rng.unit()], 0.05 + 0.15 * rng.unit(), 2.0 * rng.unit() - 0.5)).collect();
        let (fx, fy, fz) = (1.0 + 3.0 * rng.unit(), 1.0 + 3.0 * rng.unit(), 1.0 + 3.0 * rng.unit());
        let mut u0 = vec![0.0; n * n * n];
        let mut r = vec![0.0; n * n * n];
        for (i, (u, c)) in u0.iter_mut().zip(r.iter_mut()).enumerate() {
            let p = [(i % n) as f64 / n as f64, (i / n % n) as f64 / n as f64, (i / (n * n)) as f64 / n as f64];
            *u = bumps
                .iter()
                .map(|(q, w, a)| {
                    let d2: f64 = (0..3).map(|k| (p[k] - q[k]).powi(2)).sum();
                    a * (-d2 / (w * w)).exp()
                })
                .sum::<f64>()
                + 0.01 * (rng.unit() - 0.5);
            let s = (fx * p[0] * 6.3).sin() * (fy * p[1] * 6.3).cos() + (fz * p[2] * 6.3).sin();
            *c = 0.2 + 0.075 * s;
        }
        SpInstance { n, steps, u0, r, hint }
    }

    fn stride(&self, d: usize) -> usize {
        [1, self.n, self.n * self.n][d]
    }

    /// The first point of line `[a, b]` of a sweep along `d`.
    fn base(&self, d: usize, [a, b]: [usize; 2]) -> usize {
        let [e, f] = across(d);
        a * self.stride(e) + b * self.stride(f)
    }

    /// The fourth-order second difference of `u` at point `p`, coordinate
    /// `c` along direction `e` (zero outside the grid).
    #[inline]
    fn second_difference(&self, u: &[f64], p: usize, c: usize, e: usize) -> f64 {
        let (s, n) = (self.stride(e), self.n);
        let at = |k: isize| {
            let q = c as isize + k;
            if q < 0 || q >= n as isize {
                0.0
            } else {
                u[(p as isize + k * s as isize) as usize]
            }
        };
        (-at(-2) + 16.0 * at(-1) - 30.0 * at(0) + 16.0 * at(1) - at(2)) / 12.0
    }

    /// The penta-diagonal system of line `[a, b]` along `d`: rows
    /// `(a, b, c, d, e)` (the coefficients of points `i - 2 .. i + 2`) in
    /// `lhs`, and the right-hand side in `rhs`.
    fn system(&self, u: &[f64], d: usize, line: [usize; 2], lhs: &mut [[f64; 5]], rhs: &mut [f64]) {
        let [e, f] = across(d);
        let (base, s) = (self.base(d, line), self.stride(d));
        for i in 0..self.n {
            let p = base + i * s;
            let r = self.r[p];
            lhs[i] = [r / 12.0, -16.0 * r / 12.0, 1.0 + 30.0 * r / 12.0, -16.0 * r / 12.0, r / 12.0];
            let cross = self.second_difference(u, p, line[0], e) + self.second_difference(u, p, line[1], f);
            rhs[i] = u[p] + 0.5 * r * cross;
        }
    }

    /// Solve line `[a, b]` of the sweep along `d` from `u`, into `out` (the
    /// line's `n` values, in order).
    fn solve_line(&self, u: &[f64], d: usize, line: [usize; 2], out: &mut [f64]) {
        let mut lhs = vec![[0.0; 5]; self.n];
        self.system(u, d, line, &mut lhs, out);
        penta_solve(&mut lhs, out);
    }

    /// The cache lines (array, line) task `line` of the sweep along `d`
    /// touches: its line of the output, of `r`, and the nine lines of `u`
    /// its right-hand side reads.
    fn footprint(&self, d: usize, line: [usize; 2]) -> HashSet<(u8, usize)> {
        let n = self.n as isize;
        let [e, f] = across(d);
        let mut lines = HashSet::new();
        let mut add = |array: u8, base: usize| {
            for i in 0..self.n {
                lines.insert((array, (base + i * self.stride(d)) / PER_LINE));
            }
        };
        add(1, self.base(d, line));
        add(2, self.base(d, line));
        for (k, dim) in [(0, e), (1, f)] {
            for off in -2..=2isize {
                let c = line[k] as isize + off;
                if (0..n).contains(&c) {
                    let base = self.base(d, line) as isize + off * self.stride(dim) as isize;
                    add(0, base as usize);
                }
            }
        }
        lines
    }

    /// Cache lines shared by a middle task and its neighbour along each
    /// dimension of the sweep along `d`'s task space.
    fn sharing(&self, d: usize) -> [u64; 3] {
        let m = self.n / 2;
        let mine = self.footprint(d, [m, m]);
        let along = |next: [usize; 2]| mine.intersection(&self.footprint(d, next)).count() as u64;
        [along([m + 1, m]), along([m, m + 1]), 0]
    }

    /// One task: line `[a, b]` of the sweep along `d`, from `u` into `v`.
    fn task(&self, u: &[f64], v: &SharedMut<'_, f64>, d: usize, line: [usize; 2]) {
        let (base, s, n) = (self.base(d, line), self.stride(d), self.n);
        finegrain::record::declare(|| {
            let [e, f] = across(d);
            let mut read = vec![];
            for (k, dim) in [(0, e), (1, f)] {
                for off in -2..=2isize {
                    let c = line[k] as isize + off;
                    if (0..n as isize).contains(&c) {
                        let b = (base as isize + off * self.stride(dim) as isize) as usize;
                        read.extend((0..n).map(|i| b + i * s));
                    }
                }
            }
            finegrain::record::read_elements(u, read.into_iter());
            finegrain::record::read_elements(&self.r, (0..n).map(|i| base + i * s));
            (0..n).for_each(|i| v.declare_write(base + i * s..base + i * s + 1));
        });
        let mut out = vec![0.0; n];
        self.solve_line(u, d, line, &mut out);
        for (i, x) in out.into_iter().enumerate() {
            // SAFETY: lines of one sweep are disjoint, so this task alone
            // writes these points; `v` is read only after the section.
            unsafe { v.write(base + i * s, x) };
        }
    }

    /// Every step, each sweep with `section(u, v, d, replay of d)`.
    fn steps_with(&self, section: impl Fn(&[f64], &SharedMut<'_, f64>, usize, &mut Replay)) -> Output {
        let mut u = self.u0.clone();
        let mut v = vec![0.0; u.len()];
        let mut replays = [Replay::new(), Replay::new(), Replay::new()];
        for _ in 0..self.steps {
            for (d, replay) in replays.iter_mut().enumerate() {
                section(&u, &SharedMut::new(&mut v), d, replay);
                std::mem::swap(&mut u, &mut v);
            }
        }
        digest(&u)
    }
}

/// Solve the penta-diagonal system `lhs x = rhs` in place (`x` into `rhs`)
/// by Gaussian elimination without pivoting: eliminate each row's two
/// sub-diagonal entries with the two rows above (already scaled to a unit
/// diagonal), then substitute back. Entries outside the matrix are ignored.
fn penta_solve(lhs: &mut [[f64; 5]], rhs: &mut [f64]) {
    let n = rhs.len();
    for i in 0..n {
        if i >= 2 {
            let m = lhs[i][0];
            let (up, f) = (lhs[i - 2], rhs[i - 2]);
            lhs[i][1] -= m * up[3];
            lhs[i][2] -= m * up[4];
            rhs[i] -= m * f;
        }
        if i >= 1 {
            let m = lhs[i][1];
            let (up, f) = (lhs[i - 1], rhs[i - 1]);
            lhs[i][2] -= m * up[3];
            lhs[i][3] -= m * up[4];
            rhs[i] -= m * f;
        }
        let c = lhs[i][2];
        lhs[i][3] /= c;
        lhs[i][4] /= c;
        rhs[i] /= c;
    }
    for i in (0..n).rev() {
        if i + 1 < n {
            rhs[i] -= lhs[i][3] * rhs[i + 1];
        }
        if i + 2 < n {
            rhs[i] -= lhs[i][4] * rhs[i + 2];
        }
    }
}

fn digest(u: &[f64]) -> Output {
    let (len, hash) = digest_iter(u.iter().map(|v| v.to_bits()));
    Output::Digest { len, hash }
}

impl Instance for SpInstance {
    fn describe(&self) -> String {
        format!("{n}^3 grid, {} steps of 3 sweeps of {} lines", self.steps, self.n * self.n, n = self.n)
    }
    fn serial(&self) -> Output {
        let n = self.n;
        let mut u = self.u0.clone();
        let mut v = vec![0.0; u.len()];
        let mut out = vec![0.0; n];
        for _ in 0..self.steps {
            for d in 0..3 {
                for b in 0..n {
                    for a in 0..n {
                        self.solve_line(&u, d, [a, b], &mut out);
                        let (base, s) = (self.base(d, [a, b]), self.stride(d));
                        out.iter().enumerate().for_each(|(i, &x)| v[base + i * s] = x);
                    }
                }
                std::mem::swap(&mut u, &mut v);
            }
        }
        digest(&u)
    }
    fn parallel(&self) -> Output {
        let sharing = [self.sharing(0), self.sharing(1), self.sharing(2)];
        self.steps_with(|u, v, d, replay| {
            let space = TaskSpace::new([self.n, self.n]).replay(replay);
            let space = if self.hint { space.flux(sharing[d]) } else { space };
            run_space(space, |[a, b, _]| self.task(u, v, d, [a, b]));
        })
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.steps_with(|u, v, d, _| rayon_space([self.n, self.n, 1], |[a, b, _]| self.task(u, v, d, [a, b]))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of every sweep solves its system: the residual of the
    /// original penta-diagonal matrix is at rounding level.
    #[test]
    fn every_line_solves_its_system() {
        let inst = SpInstance::generate(10, 1, 3, true);
        let n = inst.n;
        let (mut lhs, mut rhs, mut x) = (vec![[0.0; 5]; n], vec![0.0; n], vec![0.0; n]);
        for d in 0..3 {
            for t in 0..n * n {
                let line = [t % n, t / n];
                inst.system(&inst.u0, d, line, &mut lhs, &mut rhs);
                inst.solve_line(&inst.u0, d, line, &mut x);
                for i in 0..n {
                    let ax: f64 = (0..5).filter(|&k| i + k >= 2 && i + k - 2 < n).map(|k| lhs[i][k] * x[i + k - 2]).sum();
                    assert!((ax - rhs[i]).abs() <= 1e-13 * rhs.iter().map(|v| v.abs()).fold(1.0, f64::max), "d {d} line {line:?} row {i}");
                }
            }
        }
    }

    /// The banded elimination agrees with a dense Gaussian elimination with
    /// partial pivoting on the same matrix.
    #[test]
    fn banded_solve_matches_dense_elimination() {
        let n = 9;
        let mut rng = SplitMix64::new(5);
        let lhs: Vec<[f64; 5]> = (0..n).map(|_| [rng.unit() - 0.5, rng.unit() - 0.5, 3.0 + rng.unit(), rng.unit() - 0.5, rng.unit() - 0.5]).collect();
        let rhs: Vec<f64> = (0..n).map(|_| rng.unit()).collect();
        let mut dense = vec![vec![0.0; n + 1]; n];
        for i in 0..n {
            for k in 0..5 {
                if i + k >= 2 && i + k - 2 < n {
                    dense[i][i + k - 2] = lhs[i][k];
                }
            }
            dense[i][n] = rhs[i];
        }
        for c in 0..n {
            let p = (c..n).max_by(|&a, &b| dense[a][c].abs().total_cmp(&dense[b][c].abs())).unwrap();
            dense.swap(c, p);
            for r in 0..n {
                if r != c {
                    let m = dense[r][c] / dense[c][c];
                    let pivot = dense[c].clone();
                    dense[r][c..].iter_mut().zip(&pivot[c..]).for_each(|(x, p)| *x -= m * p);
                }
            }
        }
        let (mut l, mut x) = (lhs.clone(), rhs.clone());
        penta_solve(&mut l, &mut x);
        for i in 0..n {
            assert!((x[i] - dense[i][n] / dense[i][i]).abs() < 1e-12, "{i}");
        }
    }

    /// Along x a line is contiguous: neighbours share only the lines of u
    /// their right-hand sides read; along y and z neighbours along x share
    /// most cache lines.
    #[test]
    fn sharing_vector_follows_the_geometry() {
        let inst = SpInstance::generate(32, 1, 1, true);
        // Sweep x, task space (y, z): 4 lines of u (32 doubles, 4 cache
        // lines each) are shared with either neighbour.
        assert_eq!(inst.sharing(0), [16, 16, 0]);
        // Sweep y, task space (x, z): x = 14..=19 fall in cache lines 1
        // and 2, so neighbours along x share everything: the lines of r and
        // of the output (32 each), the two cache-line columns of the x
        // neighbours at z (64) and the four z neighbours (128). Along z
        // they share the four lines of u at z - 1 ..= z + 2 (128).
        assert_eq!(inst.sharing(1), [256, 128, 0]);
        assert_eq!(inst.sharing(2), [256, 128, 0]);
    }

    #[test]
    fn hinted_and_unhinted_match_serial() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for hint in [true, false] {
            let inst = SpInstance::generate(12, 2, 5, hint);
            assert_eq!(inst.serial(), pool.install(|| inst.parallel()));
            assert_eq!(inst.serial(), inst.rayon().unwrap());
        }
    }
}
