//! Numeric factorization: left-looking, one column at a time, each column a
//! node of the elimination tree.
//!
//! Column `j` gathers `A(j:n, j)`, subtracts `L(j:n, k) L(j, k)` for every `k`
//! of row `j`'s structure, which are all descendants of `j` in the tree, and
//! scales by the square root of its pivot. It writes only its own column and
//! reads only its descendants' columns, so a column may run as soon as its
//! children in the tree have finished: Carbon's CF task tree (Kumar et al.,
//! ISCA 2007, section 5.3), worked bottom-up from the leaves. Every version
//! subtracts the updates of a column in the same order (ascending `k`), so
//! all of them compute the same factor bit for bit.

use super::cells::Cells;
use super::symbolic::{Symbolic, NONE};
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The first non-positive (or not finite) pivot: the matrix is not
/// positive definite, or too ill-conditioned to factor in floating point.
#[derive(Clone, Debug, PartialEq)]
pub struct NotPositiveDefinite {
    /// The column in the new order.
    pub column: usize,
    pub pivot: f64,
}

impl NotPositiveDefinite {
    /// Why, naming the column as the user's matrix numbers it.
    pub fn explain(&self, s: &Symbolic, workload: &str) -> String {
        format!(
            "{workload}: the matrix is not positive definite: pivot {:e} at row/column {} (the {}th eliminated in the AMD order)",
            self.pivot,
            s.perm[self.column] + 1,
            self.column + 1
        )
    }
}

thread_local! {
    /// Row index -> offset in the column being factored, per worker thread.
    static MAP: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Declare, for `finegrain record`, what column `j`'s task reads and writes.
fn declare(s: &Symbolic, l: &Cells<'_>, j: usize) {
    use finegrain::record::{read, write};
    finegrain::record::declare(|| {
        read(&s.ap[j..j + 2]);
        read(&s.ai[s.ap[j]..s.ap[j + 1]]);
        read(&s.ax[s.ap[j]..s.ap[j + 1]]);
        read(&s.li[s.lp[j]..s.lp[j + 1]]);
        read(&s.rk[s.rp[j]..s.rp[j + 1]]);
        read(&s.rpos[s.rp[j]..s.rp[j + 1]]);
        for t in s.rp[j]..s.rp[j + 1] {
            let range = s.rpos[t]..s.lp[s.rk[t] as usize + 1];
            read(&s.li[range.clone()]);
            // SAFETY: a declaration only takes the address and length.
            read(unsafe { l.slice(range) });
        }
        // SAFETY: as above.
        write(unsafe { l.slice(s.lp[j]..s.lp[j + 1]) });
    });
}

/// Factor column `j` into `l`, with `map` (at least `n` long) as scratch.
///
/// # Safety
/// Every descendant of `j` has finished, and nobody else writes column `j`
/// or reads it meanwhile.
unsafe fn column(s: &Symbolic, l: &Cells<'_>, j: usize, map: &mut [usize]) -> Result<(), NotPositiveDefinite> {
    let (lo, hi) = (s.lp[j], s.lp[j + 1]);
    for (q, &i) in s.li[lo..hi].iter().enumerate() {
        map[i as usize] = q;
    }
    // SAFETY: column j is this task's alone (the caller's contract).
    let lj = unsafe { l.slice_mut(lo..hi) };
    lj.fill(0.0);
    for q in s.ap[j]..s.ap[j + 1] {
        lj[map[s.ai[q] as usize]] += s.ax[q];
    }
    for t in s.rp[j]..s.rp[j + 1] {
        let (pos, end) = (s.rpos[t], s.lp[s.rk[t] as usize + 1]);
        // SAFETY: column rk[t] is a descendant of j, finished (the caller's contract).
        let lk = unsafe { l.slice(pos..end) };
        let ljk = lk[0];
        for (&i, &v) in s.li[pos..end].iter().zip(lk) {
            lj[map[i as usize]] -= v * ljk;
        }
    }
    let d = lj[0];
    if !(d > 0.0 && d.is_finite()) {
        return Err(NotPositiveDefinite { column: j, pivot: d });
    }
    let r = d.sqrt();
    lj[0] = r;
    for x in &mut lj[1..] {
        *x /= r;
    }
    Ok(())
}

/// Column `j` with this thread's scratch.
///
/// # Safety
/// As for [`column`].
unsafe fn column_here(s: &Symbolic, l: &Cells<'_>, j: usize) -> Result<(), NotPositiveDefinite> {
    MAP.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() < s.n {
            m.resize(s.n, 0);
        }
        // SAFETY: passed on from the caller.
        unsafe { column(s, l, j, &mut m) }
    })
}

/// The serial reference: columns in order 0..n (a topological order of the
/// tree, children before parents).
pub fn serial(s: &Symbolic) -> Result<Vec<f64>, NotPositiveDefinite> {
    let mut vals = vec![0.0; s.nnz_l()];
    let mut map = vec![0usize; s.n];
    let l = Cells::new(&mut vals);
    for j in 0..s.n {
        // SAFETY: one thread; every descendant of j is below j, done.
        unsafe { column(s, &l, j, &mut map)? };
    }
    Ok(vals)
}

/// Failures seen by parallel tasks: the smallest column is the one the serial
/// order meets first, since every column below it was computed from correct
/// descendants.
struct Failure(Mutex<Option<NotPositiveDefinite>>);

impl Failure {
    fn note(&self, e: NotPositiveDefinite) {
        let mut f = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if f.as_ref().is_none_or(|g| e.column < g.column) {
            *f = Some(e);
        }
    }
    fn into_result(self) -> Result<(), NotPositiveDefinite> {
        match self.0.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// One [`finegrain::Graph`] node per column, an edge from each column to its
/// parent in the elimination tree.
///
/// `region` is handed the graph's run, to call once: building the graph from
/// the elimination tree (symbolic, independent of the values) and freeing it
/// are left outside it, as Carbon times the numeric factorization alone
/// (Kumar, Hughes, Nguyen, ISCA 2007, section 5).
pub fn graph(s: &Symbolic, region: impl FnOnce(&mut dyn FnMut())) -> Result<Vec<f64>, NotPositiveDefinite> {
    let mut vals = vec![0.0; s.nnz_l()];
    let failure = Failure(Mutex::new(None));
    {
        let l = Cells::new(&mut vals);
        let (l, f) = (&l, &failure);
        let mut g = finegrain::Graph::new();
        for j in 0..s.n {
            g.add_node(move |_| {
                declare(s, l, j);
                // SAFETY: the node runs after its children, hence after every
                // descendant; column j is written by this node alone.
                if let Err(e) = unsafe { column_here(s, l, j) } {
                    f.note(e);
                }
            });
        }
        for j in 0..s.n {
            if s.parent[j] != NONE {
                g.add_edge(finegrain::NodeId(j), finegrain::NodeId(s.parent[j])).expect("tree edges join existing nodes");
            }
        }
        let mut g = Some(g);
        region(&mut || g.take().expect("the graph runs once").run().expect("the elimination tree is acyclic (parent[j] > j)"));
    }
    failure.into_result().map(|()| vals)
}

/// The same tree with Rayon: a counter of unfinished children per column,
/// and the child that finishes last spawns its parent.
pub fn rayon(s: &Symbolic) -> Result<Vec<f64>, NotPositiveDefinite> {
    let mut vals = vec![0.0; s.nnz_l()];
    let failure = Failure(Mutex::new(None));
    let mut children = vec![0usize; s.n];
    for j in 0..s.n {
        if s.parent[j] != NONE {
            children[s.parent[j]] += 1;
        }
    }
    // The leaves, fixed before anything runs: reading the live counters
    // while spawning would see a parent that its children have already
    // released and spawn it twice.
    let leaves: Vec<usize> = (0..s.n).filter(|&j| children[j] == 0).collect();
    let waiting: Vec<AtomicUsize> = children.into_iter().map(AtomicUsize::new).collect();
    {
        let l = Cells::new(&mut vals);
        struct Ctx<'c, 'v> {
            s: &'c Symbolic,
            l: &'c Cells<'v>,
            waiting: &'c [AtomicUsize],
            failure: &'c Failure,
        }
        fn run<'c, 'v>(sc: &rayon::Scope<'c>, c: &'c Ctx<'c, 'v>, j: usize) {
            // SAFETY: spawned once all children finished (their counter
            // decrements happen after their writes, AcqRel).
            if let Err(e) = unsafe { column_here(c.s, c.l, j) } {
                c.failure.note(e);
            }
            let p = c.s.parent[j];
            if p != NONE && c.waiting[p].fetch_sub(1, Ordering::AcqRel) == 1 {
                sc.spawn(move |sc| run(sc, c, p));
            }
        }
        let ctx = Ctx { s, l: &l, waiting: &waiting, failure: &failure };
        let c = &ctx;
        rayon::scope(|sc| {
            for &j in &leaves {
                sc.spawn(move |sc| run(sc, c, j));
            }
        });
    }
    failure.into_result().map(|()| vals)
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // dense reference checks index by (row, column)
mod tests {
    use super::super::matrix::Kind;
    use super::*;
    use crate::support::io::Csr;

    /// `max |A - L L^T|` over all entries, densely.
    fn dense_residual(s: &Symbolic, l: &[f64]) -> f64 {
        let n = s.n;
        let mut m = vec![vec![0.0f64; n]; n];
        for j in 0..n {
            for q in s.ap[j]..s.ap[j + 1] {
                m[s.ai[q] as usize][j] += s.ax[q];
            }
        }
        for k in 0..n {
            for p in s.lp[k]..s.lp[k + 1] {
                for q in p..s.lp[k + 1] {
                    m[s.li[q] as usize][s.li[p] as usize] -= l[q] * l[p];
                }
            }
        }
        m.iter().flatten().fold(0.0, |a, x| a.max(x.abs()))
    }

    #[test]
    fn factors_reproduce_a_and_agree_bit_for_bit() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for kind in [Kind::Grid2d { side: 9 }, Kind::Grid3d { side: 4 }, Kind::Random { n: 60, links: 3 }] {
            let s = Symbolic::analyse(&kind.generate(11)).unwrap();
            let l = serial(&s).unwrap();
            assert!(dense_residual(&s, &l) < 1e-12 * s.norm(), "{kind:?}");
            assert_eq!(pool.install(|| graph(&s, |run| run())).unwrap(), l);
            assert_eq!(rayon(&s).unwrap(), l);
        }
    }

    #[test]
    fn an_indefinite_matrix_fails_at_the_first_bad_pivot_in_every_version() {
        // Symmetric with a positive diagonal, yet indefinite: the path graph
        // 1 - 2 - 3 - 4 with couplings 2 and unit diagonal.
        let mut t = vec![];
        for i in 0..4u32 {
            t.push((i, i, 1.0));
            if i < 3 {
                t.push((i, i + 1, 2.0));
                t.push((i + 1, i, 2.0));
            }
        }
        let s = Symbolic::analyse(&Csr::from_triplets(4, 4, t)).unwrap();
        let e = serial(&s).unwrap_err();
        assert!(e.pivot <= 0.0);
        let pool = finegrain::Pool::new(2, "ws").unwrap();
        assert_eq!(pool.install(|| graph(&s, |run| run())).unwrap_err(), e);
        assert_eq!(rayon(&s).unwrap_err(), e);
        assert!(e.explain(&s, "cf").contains("not positive definite"));
    }
}
