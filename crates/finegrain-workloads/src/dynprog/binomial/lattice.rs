//! The Cox-Ross-Rubinstein lattice for one American option, and backward
//! induction over it: serially level by level, or in parallel by bands of
//! levels.
//!
//! Parallel bands: from level `i`, a band computes level `i - H` directly. The
//! output nodes are cut into blocks; a block of output nodes `lo..hi` depends
//! only on input nodes `lo..hi + H`, so each block is an independent task that
//! copies its trapezoid of inputs and walks it down `H` levels (the task tree
//! of the BT of Kumar et al. (Carbon, ISCA 2007), section 5.3, flattened into
//! one loop per band). Every node is computed by [`Lattice::node`] from the
//! same two values as in the serial order, so the prices are bit-identical.

use crate::par::Par;

/// Levels per band and output nodes per block: a task is about
/// `BLOCK * BAND` node updates, a few tens of thousands of instructions, with
/// `BAND / BLOCK` of them redundant.
const BAND: usize = 16;
const BLOCK: usize = 256;

#[derive(Copy, Clone, Debug)]
pub struct Contract {
    pub spot: f64,
    pub strike: f64,
    pub rate: f64,
    pub volatility: f64,
    pub years: f64,
    pub steps: usize,
    pub put: bool,
}

/// Per-option constants of the lattice.
pub struct Lattice {
    steps: usize,
    strike: f64,
    put: bool,
    /// Discounted risk-neutral probabilities of an up and a down move.
    up: f64,
    down: f64,
    /// `price[k]` is the stock price after `k - steps` net up moves.
    price: Vec<f64>,
}

impl Lattice {
    pub fn new(c: &Contract) -> Lattice {
        let dt = c.years / c.steps as f64;
        let u = (c.volatility * dt.sqrt()).exp();
        let growth = (c.rate * dt).exp();
        let p = (growth - 1.0 / u) / (u - 1.0 / u);
        let price = (0..=2 * c.steps).map(|k| c.spot * u.powi(k as i32 - c.steps as i32)).collect();
        Lattice { steps: c.steps, strike: c.strike, put: c.put, up: p / growth, down: (1.0 - p) / growth, price }
    }

    pub(super) fn steps(&self) -> usize {
        self.steps
    }

    pub(super) fn exercise(&self, level: usize, j: usize) -> f64 {
        let s = self.price[self.steps + 2 * j - level];
        if self.put {
            (self.strike - s).max(0.0)
        } else {
            (s - self.strike).max(0.0)
        }
    }

    /// Node `j` of `level` from its two successors.
    #[inline]
    pub(super) fn node(&self, level: usize, j: usize, lower: f64, upper: f64) -> f64 {
        (self.up * upper + self.down * lower).max(self.exercise(level, j))
    }

    pub fn price_serial(&self) -> f64 {
        let mut v: Vec<f64> = (0..=self.steps).map(|j| self.exercise(self.steps, j)).collect();
        for level in (0..self.steps).rev() {
            for j in 0..=level {
                v[j] = self.node(level, j, v[j], v[j + 1]);
            }
        }
        v[0]
    }

    pub fn price_parallel<P: Par>(&self, par: P) -> f64 {
        let mut cur: Vec<f64> = vec![0.0; self.steps + 1];
        par.for_each_chunk_mut(&mut cur, BLOCK, |start, part| {
            for (k, v) in part.iter_mut().enumerate() {
                *v = self.exercise(self.steps, start + k);
            }
        });
        let mut next = vec![0.0; self.steps + 1];
        let mut level = self.steps;
        while level > 0 {
            let to = level.saturating_sub(BAND);
            let input = &cur[..=level];
            par.for_each_chunk_mut(&mut next[..=to], BLOCK, |lo, out| self.trapezoid(input, level, to, lo, out));
            std::mem::swap(&mut cur, &mut next);
            level = to;
        }
        cur[0]
    }

    /// Output nodes `lo..lo + out.len()` of level `to` from `input` (level `from`).
    fn trapezoid(&self, input: &[f64], from: usize, to: usize, lo: usize, out: &mut [f64]) {
        let hi = lo + out.len();
        finegrain::record::read(&input[lo..hi + (from - to)]);
        let mut v = input[lo..hi + (from - to)].to_vec();
        for level in (to..from).rev() {
            // Level `level` keeps nodes lo..hi + (level - to).
            for k in 0..hi + (level - to) - lo {
                v[k] = self.node(level, lo + k, v[k], v[k + 1]);
            }
        }
        out.copy_from_slice(&v[..out.len()]);
    }
}
