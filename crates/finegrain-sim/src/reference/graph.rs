//! The task sharing graph (thesis §4.2): a vertex per task, weighted by its
//! work; an edge between two tasks that touch a common line, weighted by how
//! many lines they share.
//!
//! Built from the inverted index (line -> tasks) of the footprints, without
//! looking at any pair of tasks that shares nothing. Lines touched by the
//! same set of tasks are merged first (a hash-join bucket's lines all have
//! the same sharers), so each distinct sharer set is walked once, with its
//! line count as weight.
//!
//! **Cap.** A sharer set of `m` tasks is a clique of `m (m - 1) / 2` edges.
//! Sets of more than [`MAX_CLIQUE`] tasks (a table every task reads, a
//! vector every row of a matrix touches) are not made cliques: each task is
//! linked to its [`BAND`] neighbours on either side in the set's task order
//! (the space's linear order), with the set's weight. The graph then keeps
//! `O(m · BAND)` edges per such set, stays connected along it, and does not
//! pretend that the grouping can capture a line that every group needs
//! anyway. Every cut cost this module reports is on this capped graph.

use super::input::Footprints;
use std::collections::HashMap;

/// The largest sharer set kept as a clique (the thesis's hj cliques are 128
/// tasks, Table 4.4).
pub const MAX_CLIQUE: usize = 128;
/// Neighbours on each side a task is linked to in a larger sharer set.
pub const BAND: usize = 8;

/// The task sharing graph in compressed rows (symmetric, no self edges).
#[derive(Clone, Debug)]
pub struct SharingGraph {
    /// Task `t`'s neighbours are `adj[xadj[t]..xadj[t + 1]]`, increasing.
    pub xadj: Vec<usize>,
    pub adj: Vec<u32>,
    /// Lines shared with each neighbour.
    pub wgt: Vec<u32>,
    /// Each task's work.
    pub work: Vec<u64>,
    /// Lines whose sharer set was larger than [`MAX_CLIQUE`] (banded).
    pub banded_lines: usize,
}

impl SharingGraph {
    pub(crate) fn new(fp: &Footprints, work: &[u64]) -> SharingGraph {
        let n = work.len();
        let mut by_set: HashMap<&[u32], u32> = HashMap::new();
        for l in 0..fp.lines() as u32 {
            let s = fp.sharers(l);
            if s.len() >= 2 {
                *by_set.entry(s).or_insert(0) += 1;
            }
        }
        let mut sets: Vec<(&[u32], u32)> = by_set.into_iter().collect();
        sets.sort_unstable();
        let banded_lines = sets.iter().filter(|(s, _)| s.len() > MAX_CLIQUE).map(|&(_, c)| c as usize).sum();
        // Each task's sets, with its position in the set.
        let mut off = vec![0usize; n + 1];
        for (s, _) in &sets {
            for &t in *s {
                off[t as usize + 1] += 1;
            }
        }
        for i in 1..=n {
            off[i] += off[i - 1];
        }
        let mut memb = vec![(0u32, 0u32); off[n]];
        let mut next = off.clone();
        for (si, (s, _)) in sets.iter().enumerate() {
            for (p, &t) in s.iter().enumerate() {
                memb[next[t as usize]] = (si as u32, p as u32);
                next[t as usize] += 1;
            }
        }
        let mut acc = vec![0u32; n];
        let mut touched: Vec<u32> = Vec::new();
        let mut xadj = Vec::with_capacity(n + 1);
        xadj.push(0);
        let (mut adj, mut wgt) = (Vec::new(), Vec::new());
        for a in 0..n {
            for &(si, p) in &memb[off[a]..off[a + 1]] {
                let (s, c) = sets[si as usize];
                let near = if s.len() <= MAX_CLIQUE { s } else { &s[(p as usize).saturating_sub(BAND)..(p as usize + BAND + 1).min(s.len())] };
                for &b in near {
                    if b as usize != a {
                        if acc[b as usize] == 0 {
                            touched.push(b);
                        }
                        acc[b as usize] = acc[b as usize].saturating_add(c);
                    }
                }
            }
            touched.sort_unstable();
            for &b in &touched {
                adj.push(b);
                wgt.push(std::mem::take(&mut acc[b as usize]));
            }
            touched.clear();
            xadj.push(adj.len());
        }
        SharingGraph { xadj, adj, wgt, work: work.to_vec(), banded_lines }
    }

    pub fn tasks(&self) -> usize {
        self.work.len()
    }

    /// Edges (each counted once).
    pub fn edges(&self) -> usize {
        self.adj.len() / 2
    }

    /// `(neighbour, weight)` of task `t`.
    pub fn neighbours(&self, t: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let r = self.xadj[t as usize]..self.xadj[t as usize + 1];
        self.adj[r.clone()].iter().copied().zip(self.wgt[r].iter().copied())
    }

    /// Sum of the weights of edges whose ends are in different parts
    /// (thesis §4.2.2's cut cost); `part[t]` is task `t`'s part.
    pub fn cut_cost(&self, part: &[u32]) -> u64 {
        let mut cut = 0u64;
        for a in 0..self.tasks() as u32 {
            for (b, w) in self.neighbours(a) {
                if b > a && part[a as usize] != part[b as usize] {
                    cut += w as u64;
                }
            }
        }
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::super::input::SpaceInput;
    use super::*;
    use finegrain::policy::locality::Space;

    fn graph(lines: Vec<Vec<u64>>) -> SharingGraph {
        let n = lines.len();
        let inp = SpaceInput::new(Space::new(&[n]).unwrap(), vec![1; n], lines).unwrap();
        SharingGraph::new(&Footprints::new(&inp), &inp.work)
    }

    #[test]
    fn edges_count_shared_lines_both_ways() {
        // 0 and 1 share lines 1 and 2; 1 and 2 share line 3; 3 shares nothing.
        let g = graph(vec![vec![0, 1, 2], vec![1, 2, 3], vec![3, 4], vec![9]]);
        assert_eq!(g.neighbours(0).collect::<Vec<_>>(), vec![(1, 2)]);
        assert_eq!(g.neighbours(1).collect::<Vec<_>>(), vec![(0, 2), (2, 1)]);
        assert_eq!(g.neighbours(3).count(), 0);
        assert_eq!(g.edges(), 2);
        assert_eq!(g.cut_cost(&[0, 0, 1, 1]), 1);
        assert_eq!(g.cut_cost(&[0, 1, 1, 1]), 2);
    }

    #[test]
    fn huge_sharer_sets_become_bands() {
        let n = MAX_CLIQUE + 40;
        // Every task reads line 0; task t also line 10 + t.
        let g = graph((0..n as u64).map(|t| vec![0, 10 + t]).collect());
        assert_eq!(g.banded_lines, 1);
        assert_eq!(g.neighbours(0).map(|(b, _)| b).collect::<Vec<_>>(), (1..=BAND as u32).collect::<Vec<_>>());
        assert_eq!(g.neighbours(50).count(), 2 * BAND);
        // Symmetric.
        for a in 0..n as u32 {
            for (b, w) in g.neighbours(a) {
                assert!(g.neighbours(b).any(|(c, v)| c == a && v == w));
            }
        }
        // A clique just below the cap is kept whole.
        let g = graph((0..MAX_CLIQUE as u64).map(|t| vec![0, 10 + t]).collect());
        assert_eq!(g.neighbours(0).count(), MAX_CLIQUE - 1);
    }
}
