//! A sparse symmetric positive definite matrix in compressed row (CSR) form:
//! the 5-point Laplacian of a square grid plus random long-range couplings,
//! with a diagonal that dominates each row. The couplings make row lengths and
//! access patterns irregular, like the structural matrix (bcsstk16) of Sanchez
//! et al. (ASPLOS 2010), Table 4; dominance keeps it SPD, so conjugate gradient
//! converges.

use crate::support::io::Csr;
use crate::support::rng::SplitMix64;

/// Width of the band of random couplings, in grid rows.
const BAND: usize = 8;

/// Diagonal excess over the off-diagonal magnitudes.
const SHIFT: f64 = 2.0;

/// The matrix for a `side` x `side` grid, its couplings drawn from `seed`.
pub fn grid_with_links(side: usize, seed: u64) -> Csr {
    let n = side * side;
    let mut rng = SplitMix64::new(seed ^ 0x6367_5f6d_6174);
    let mut entries: Vec<(u32, u32, f64)> = Vec::with_capacity(8 * n);
    let mut link = |a: usize, b: usize, w: f64| {
        entries.push((a as u32, b as u32, -w));
        entries.push((b as u32, a as u32, -w));
    };
    for y in 0..side {
        for x in 0..side {
            let i = y * side + x;
            if x + 1 < side {
                link(i, i + 1, 1.0);
            }
            if y + 1 < side {
                link(i, i + side, 1.0);
            }
            // 0 to 3 couplings to random rows within a band of a few grid
            // rows (a structural matrix is banded after reordering),
            // weaker than the stencil's.
            for _ in 0..rng.below(4) {
                let j = (i + rng.below(BAND as u64 * side as u64) as usize).saturating_sub(BAND / 2 * side);
                if j != i && j < n {
                    link(i, j, 0.1 + 0.4 * rng.unit());
                }
            }
        }
    }
    entries.sort_unstable_by_key(|&(r, c, _)| (r, c));
    let mut row_start = vec![0usize; n + 1];
    let (mut col, mut val) = (Vec::with_capacity(entries.len() + n), Vec::with_capacity(entries.len() + n));
    let mut k = 0;
    for i in 0..n {
        let mut off_sum = 0.0;
        let diag_at = col.len();
        col.push(i as u32);
        val.push(0.0);
        while k < entries.len() && entries[k].0 as usize == i {
            let c = entries[k].1;
            let mut w = 0.0;
            while k < entries.len() && entries[k].0 as usize == i && entries[k].1 == c {
                w += entries[k].2;
                k += 1;
            }
            col.push(c);
            val.push(w);
            off_sum += f64::abs(w);
        }
        // Strict dominance: SPD by Gershgorin, with eigenvalues at least
        // SHIFT. The condition number stays below about 10, so CG reaches
        // rounding level within the iterations run and the parallel and
        // serial solutions agree to rounding (an unconverged Krylov
        // iteration would amplify the reductions' differing rounding).
        val[diag_at] = off_sum + SHIFT;
        row_start[i + 1] = col.len();
    }
    Csr { nrows: n, ncols: n, row_ptr: row_start, col_idx: col, vals: val }
}
