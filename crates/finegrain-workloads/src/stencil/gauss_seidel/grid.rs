//! The grid, stored by colour: a point `(i, j)` is red when `i + j` is even,
//! and each colour keeps its points of row `i` in a half-width row. Updating
//! one colour then reads only the other colour's array, so a parallel loop
//! can hand out mutable rows of one array while every task reads the other.
//!
//! In colour `c`'s row `i`, entry `k` is the point `j = 2k + s` with
//! `s = (i + c) % 2`. Its horizontal neighbours `j - 1` and `j + 1` are entries
//! `k - 1 + s` and `k + s` of the other colour's row `i`; its vertical
//! neighbours `(i +- 1, j)` are entry `k` of the other colour's rows `i +- 1`.

use crate::par::Par;
use crate::support::digest::digest_iter;
use crate::support::rng::SplitMix64;
use crate::Output;

/// Rows per task: a row of a colour is about a thousand instructions at Full.
const ROW_GRAIN: usize = 1;

#[derive(Clone, Debug)]
pub struct Grid {
    /// Points per side including the boundary; even, so rows split evenly.
    side: usize,
    half: usize,
    /// `u` by colour (red, black), `side` rows of `half` entries each.
    u: [Vec<f64>; 2],
    /// `h^2 f` by colour, the same layout.
    rhs: [Vec<f64>; 2],
}

impl Grid {
    /// A grid of `n` x `n` interior points (rounded up to even), with a random
    /// source term and a boundary that rises along the top edge.
    pub fn new(n: usize, seed: u64) -> Grid {
        let side = n + n % 2 + 2;
        let mut rng = SplitMix64::new(seed ^ 0x0067_735f_6772_6964);
        let h = 1.0 / (side - 1) as f64;
        let mut g = Grid::empty(side);
        for i in 0..side {
            for j in 0..side {
                if i == 0 {
                    g.set(i, j, (std::f64::consts::PI * j as f64 * h).sin());
                } else if i < side - 1 && j > 0 && j < side - 1 {
                    g.set_rhs(i, j, h * h * (rng.unit() - 0.5) * 10.0);
                }
            }
        }
        g
    }

    #[cfg(test)]
    pub fn constant_boundary(n: usize, value: f64) -> Grid {
        let mut g = Grid::empty(n + n % 2 + 2);
        let last = g.side - 1;
        for k in 0..g.side {
            for (i, j) in [(0, k), (last, k), (k, 0), (k, last)] {
                g.set(i, j, value);
            }
        }
        g
    }

    fn empty(side: usize) -> Grid {
        let half = side / 2;
        let zeros = || vec![0.0; side * half];
        Grid { side, half, u: [zeros(), zeros()], rhs: [zeros(), zeros()] }
    }

    pub fn interior(&self) -> usize {
        self.side - 2
    }

    fn index(&self, i: usize, j: usize) -> (usize, usize) {
        ((i + j) % 2, i * self.half + j / 2)
    }

    pub fn at(&self, i: usize, j: usize) -> f64 {
        let (c, p) = self.index(i, j);
        self.u[c][p]
    }

    fn set(&mut self, i: usize, j: usize, v: f64) {
        let (c, p) = self.index(i, j);
        self.u[c][p] = v;
    }

    fn set_rhs(&mut self, i: usize, j: usize, v: f64) {
        let (c, p) = self.index(i, j);
        self.rhs[c][p] = v;
    }

    /// Update the interior points of colour `c` in row `i` (held in `row`)
    /// from the other colour. The same code runs in every driver, so results
    /// are bit-identical.
    #[inline]
    fn relax_row(&self, c: usize, i: usize, row: &mut [f64]) {
        let h = self.half;
        let s = (i + c) % 2;
        let other = &self.u[1 - c];
        let (up, mid, down) = (&other[(i - 1) * h..i * h], &other[i * h..(i + 1) * h], &other[(i + 1) * h..(i + 2) * h]);
        let rhs = &self.rhs[c][i * h..(i + 1) * h];
        // Interior columns 1..=side-2: k from 1 - s to h - 1 - s.
        for k in 1 - s..h - s {
            let left = mid[k + s - 1];
            let right = mid[k + s];
            row[k] = 0.25 * (rhs[k] + up[k] + down[k] + left + right);
        }
    }

    /// One sweep: all red points, then all black points.
    pub fn sweep_serial(&mut self) {
        for c in 0..2 {
            let mut u = std::mem::take(&mut self.u[c]);
            for i in 1..self.side - 1 {
                self.relax_row(c, i, &mut u[i * self.half..(i + 1) * self.half]);
            }
            self.u[c] = u;
        }
    }

    /// One sweep, each colour a parallel loop over rows.
    pub fn sweep<P: Par>(&mut self, par: P) {
        let rows: Vec<usize> = (1..self.side).map(|i| i * self.half).collect();
        for c in 0..2 {
            let mut u = std::mem::take(&mut self.u[c]);
            let (half, this) = (self.half, &*self);
            // Segments are the interior rows 1..side-1 of the colour's array.
            par.for_each_segment_mut(&mut u[half..(this.side - 1) * half], &shift(&rows, half), ROW_GRAIN, |r, part| {
                finegrain::record::declare(|| {
                    // Rows lo..hi of this colour read rows lo-1..hi+1 of the other.
                    let (lo, hi) = (r.start + 1, r.end + 1);
                    finegrain::record::read(&this.u[1 - c][(lo - 1) * half..(hi + 1) * half]);
                    finegrain::record::read(&this.rhs[c][lo * half..hi * half]);
                });
                for (n, row) in part.chunks_mut(half).enumerate() {
                    this.relax_row(c, r.start + 1 + n, row);
                }
            });
            self.u[c] = u;
        }
    }

    /// Every point's bits in row-major order.
    pub fn digest(&self) -> Output {
        let (len, hash) = digest_iter((0..self.side).flat_map(|i| (0..self.side).map(move |j| (i, j))).map(|(i, j)| self.at(i, j).to_bits()));
        Output::Digest { len, hash }
    }
}

/// Offsets relative to the first.
fn shift(offsets: &[usize], by: usize) -> Vec<usize> {
    offsets.iter().map(|o| o - by).collect()
}
