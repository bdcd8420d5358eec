//! Symbolic analysis: the fill-reducing ordering, the elimination tree and
//! the nonzero structure of L, computed once before any numeric work.
//!
//! The ordering is SuiteSparse's approximate minimum degree (Amestoy, Davis,
//! Duff, "An approximate minimum degree ordering algorithm", SIAM J. Matrix
//! Anal. Appl. 17(4), 1996), through the `amd` crate, a line-by-line Rust
//! port of SuiteSparse AMD: the ordering sparse Cholesky codes (CHOLMOD,
//! MATLAB's `chol`) use by default, pure Rust, so it builds here with no C
//! toolchain or METIS library. The elimination tree is Liu's algorithm with
//! path compression, and the row structures come from walking each row's
//! subtree of the tree ("ereach"), both as in Davis, "Direct Methods for Sparse
//! Linear Systems", SIAM 2006, sections 4.1 and 4.2.

use crate::support::io::Csr;

/// No parent: a root of the elimination forest.
pub const NONE: usize = usize::MAX;

/// `P A P^T` in the new order, and the structure of its Cholesky factor L.
///
/// L is stored by columns: column `j` holds rows `li[lp[j]..lp[j + 1]]`,
/// ascending, the diagonal first. Row `j` of L (left of the diagonal) is
/// `rk[rp[j]..rp[j + 1]]`, ascending, and `rpos` gives where each of those
/// entries `L(j, k)` sits in the column storage, so that a task can read
/// column `k` from row `j` down without searching.
pub struct Symbolic {
    pub n: usize,
    /// `perm[new] = old`.
    pub perm: Vec<usize>,
    /// The lower triangle of `P A P^T` by columns, diagonal included.
    pub ap: Vec<usize>,
    pub ai: Vec<u32>,
    pub ax: Vec<f64>,
    /// The elimination tree: `parent[j] > j`, or [`NONE`].
    pub parent: Vec<usize>,
    pub lp: Vec<usize>,
    pub li: Vec<u32>,
    pub rp: Vec<usize>,
    pub rk: Vec<u32>,
    pub rpos: Vec<usize>,
}

impl Symbolic {
    /// Analyse `a`, a square symmetric matrix (the caller has checked).
    pub fn analyse(a: &Csr) -> Result<Symbolic, String> {
        let n = a.nrows;
        let perm = order(a)?;
        let mut pinv = vec![0usize; n];
        for (new, &old) in perm.iter().enumerate() {
            pinv[old] = new;
        }
        // Row `perm[j]` of the symmetric A is its column too: split it
        // into the lower part of new column j (with values) and the upper.
        let (mut ap, mut ai, mut ax) = (Vec::with_capacity(n + 1), Vec::new(), Vec::new());
        let (mut up, mut ui) = (Vec::with_capacity(n + 1), Vec::new());
        ap.push(0);
        up.push(0);
        let mut col: Vec<(u32, f64)> = Vec::new();
        for (j, &old) in perm.iter().enumerate() {
            let (cols, vals) = a.row(old);
            col.clear();
            for (&c, &v) in cols.iter().zip(vals) {
                let i = pinv[c as usize];
                if i >= j {
                    col.push((i as u32, v));
                } else {
                    ui.push(i as u32);
                }
            }
            col.sort_unstable_by_key(|e| e.0);
            ai.extend(col.iter().map(|e| e.0));
            ax.extend(col.iter().map(|e| e.1));
            ap.push(ai.len());
            up.push(ui.len());
        }
        let parent = etree(n, &up, &ui);
        // Row structures, by walking up the tree from each upper entry.
        let mut mark = vec![NONE; n];
        let mut rp = Vec::with_capacity(n + 1);
        let mut rk: Vec<u32> = Vec::new();
        rp.push(0);
        let mut count = vec![1usize; n];
        for j in 0..n {
            mark[j] = j;
            let start = rk.len();
            for &i in &ui[up[j]..up[j + 1]] {
                let mut i = i as usize;
                while mark[i] != j {
                    mark[i] = j;
                    rk.push(i as u32);
                    count[i] += 1;
                    i = parent[i];
                }
            }
            rk[start..].sort_unstable();
            rp.push(rk.len());
        }
        let mut lp = Vec::with_capacity(n + 1);
        lp.push(0usize);
        for &c in &count {
            lp.push(lp.last().expect("starts at 0") + c);
        }
        let nnz = lp[n];
        if nnz > u32::MAX as usize {
            return Err(format!("L would have {nnz} entries, more than this implementation indexes"));
        }
        let mut li = vec![0u32; nnz];
        let mut next: Vec<usize> = lp[..n].iter().map(|&p| p + 1).collect();
        for j in 0..n {
            li[lp[j]] = j as u32;
        }
        let mut rpos = vec![0usize; rk.len()];
        for j in 0..n {
            for t in rp[j]..rp[j + 1] {
                let k = rk[t] as usize;
                li[next[k]] = j as u32;
                rpos[t] = next[k];
                next[k] += 1;
            }
        }
        Ok(Symbolic { n, perm, ap, ai, ax, parent, lp, li, rp, rk, rpos })
    }

    pub fn nnz_l(&self) -> usize {
        self.lp[self.n]
    }

    /// Height of each node above its deepest leaf (leaves 0): the level of
    /// column `j` in a forward solve, whose unknowns depend on their subtree.
    pub fn heights(&self) -> Vec<usize> {
        let mut h = vec![0usize; self.n];
        for j in 0..self.n {
            let p = self.parent[j];
            if p != NONE {
                h[p] = h[p].max(h[j] + 1);
            }
        }
        h
    }

    /// Depth of each node below its root (roots 0): the level of column `j`
    /// in a backward solve, whose unknowns depend on their ancestors.
    pub fn depths(&self) -> Vec<usize> {
        let mut d = vec![0usize; self.n];
        for j in (0..self.n).rev() {
            let p = self.parent[j];
            if p != NONE {
                d[j] = d[p] + 1;
            }
        }
        d
    }

    /// The tree's available parallelism, work over span, counting a column
    /// task's cost as the entries of L it reads and writes.
    pub fn parallelism(&self) -> f64 {
        let mut longest = vec![0usize; self.n];
        let (mut work, mut span) = (0usize, 0usize);
        for j in 0..self.n {
            let cost =
                (self.lp[j + 1] - self.lp[j]) + (self.rp[j]..self.rp[j + 1]).map(|t| self.lp[self.rk[t] as usize + 1] - self.rpos[t]).sum::<usize>();
            work += cost;
            let done = longest[j] + cost;
            span = span.max(done);
            if self.parent[j] != NONE {
                longest[self.parent[j]] = longest[self.parent[j]].max(done);
            }
        }
        work as f64 / span.max(1) as f64
    }

    /// `y = (P A P^T) x` from the stored lower triangle.
    pub fn multiply(&self, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; self.n];
        for j in 0..self.n {
            for q in self.ap[j]..self.ap[j + 1] {
                let (i, v) = (self.ai[q] as usize, self.ax[q]);
                y[i] += v * x[j];
                if i != j {
                    y[j] += v * x[i];
                }
            }
        }
        y
    }

    /// The Frobenius norm of `A`.
    pub fn norm(&self) -> f64 {
        let mut s = 0.0;
        for j in 0..self.n {
            for q in self.ap[j]..self.ap[j + 1] {
                let w = if self.ai[q] as usize == j { 1.0 } else { 2.0 };
                s += w * self.ax[q] * self.ax[q];
            }
        }
        s.sqrt()
    }
}

/// AMD's permutation of `a`'s pattern (`perm[new] = old`).
fn order(a: &Csr) -> Result<Vec<usize>, String> {
    let n = a.nrows;
    let ai: Vec<usize> = a.col_idx.iter().map(|&c| c as usize).collect();
    let control = amd::Control::default();
    match amd::order::<usize>(n, &a.row_ptr, &ai, &control) {
        Ok((p, _, _)) => Ok(p),
        Err(status) => Err(format!("the AMD ordering rejected the matrix ({status:?})")),
    }
}

/// The elimination tree from the upper triangle by columns (Liu; Davis,
/// section 4.1), with path compression through `ancestor`.
fn etree(n: usize, up: &[usize], ui: &[u32]) -> Vec<usize> {
    let mut parent = vec![NONE; n];
    let mut ancestor = vec![NONE; n];
    for k in 0..n {
        for &i in &ui[up[k]..up[k + 1]] {
            let mut i = i as usize;
            while i != NONE && i < k {
                let next = ancestor[i];
                ancestor[i] = k;
                if next == NONE {
                    parent[i] = k;
                }
                i = next;
            }
        }
    }
    parent
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // dense reference checks index by (row, column)
mod tests {
    use super::super::matrix::Kind;
    use super::*;

    /// The structure of L by dense symbolic elimination: column k's rows
    /// below the diagonal fill every pair they join.
    fn dense_pattern(s: &Symbolic) -> Vec<Vec<bool>> {
        let n = s.n;
        let mut m = vec![vec![false; n]; n];
        for j in 0..n {
            for q in s.ap[j]..s.ap[j + 1] {
                m[s.ai[q] as usize][j] = true;
            }
        }
        for k in 0..n {
            let rows: Vec<usize> = (k + 1..n).filter(|&i| m[i][k]).collect();
            for &i in &rows {
                for &r in &rows {
                    if r >= i {
                        m[r][i] = true;
                    }
                }
            }
        }
        m
    }

    #[test]
    fn structure_matches_dense_elimination() {
        for kind in [Kind::Grid2d { side: 6 }, Kind::Grid3d { side: 3 }, Kind::Random { n: 40, links: 2 }] {
            let s = Symbolic::analyse(&kind.generate(5)).unwrap();
            let m = dense_pattern(&s);
            let mut seen = vec![0usize; s.n];
            for j in 0..s.n {
                let rows: Vec<usize> = s.li[s.lp[j]..s.lp[j + 1]].iter().map(|&i| i as usize).collect();
                let want: Vec<usize> = (j..s.n).filter(|&i| m[i][j]).collect();
                assert_eq!(rows, want, "{kind:?} column {j}");
                // The parent is the first row below the diagonal.
                assert_eq!(s.parent[j], rows.get(1).copied().unwrap_or(NONE));
                for t in s.rp[j]..s.rp[j + 1] {
                    assert_eq!(s.li[s.rpos[t]] as usize, j);
                    seen[s.rk[t] as usize] += 1;
                }
            }
            for j in 0..s.n {
                assert_eq!(seen[j] + 1, s.lp[j + 1] - s.lp[j]);
            }
        }
    }

    #[test]
    fn amd_fills_less_than_the_natural_order_on_a_grid() {
        let s = Symbolic::analyse(&Kind::Grid2d { side: 30 }.generate(1)).unwrap();
        // The natural (banded) order fills the band: about side entries a column.
        assert!(s.nnz_l() < 900 * 30 / 2, "nnz(L) = {}", s.nnz_l());
        let mut p = s.perm.clone();
        p.sort_unstable();
        assert!(p.iter().enumerate().all(|(i, &v)| i == v));
    }
}
