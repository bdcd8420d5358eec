//! Grouping with METIS (thesis §4.2: k-way partitioning that maximises the
//! edge weight kept inside groups while balancing their work), on the
//! subgraph the sharing graph induces on a set of tasks.

use super::graph::SharingGraph;
use super::input::{Footprints, UnionCounter};
use super::order::task_order;
use super::ReferenceError;
use metis::Idx;
use std::cell::Cell;

/// Below this many tasks per part METIS's k-way partitioning degrades: it
/// leaves parts empty and overfills others, and prints "Cannot bisect a
/// graph with 0 vertices" to stderr (seen on the recorded hj, conv and
/// smvm spaces at 3 tasks per part). Such splits cut the maximum-overlap
/// order into runs instead.
pub const MIN_TASKS_PER_PART: usize = 8;

/// Scratch shared by the partitioning calls of one plan.
#[derive(Debug)]
pub(crate) struct Partitioner<'a> {
    pub graph: &'a SharingGraph,
    pub fp: &'a Footprints,
    pub unions: UnionCounter,
    /// Local index of each task in the current subset (`u32::MAX`: not in it).
    local: Vec<Cell<u32>>,
    /// METIS calls made (for reports).
    pub calls: usize,
}

impl<'a> Partitioner<'a> {
    pub fn new(graph: &'a SharingGraph, fp: &'a Footprints) -> Partitioner<'a> {
        Partitioner { graph, fp, unions: UnionCounter::new(fp.lines()), local: vec![Cell::new(u32::MAX); graph.tasks()], calls: 0 }
    }

    fn local_set(&self, t: u32, i: usize) {
        self.local[t as usize].set(i as u32);
    }

    fn local_get(&self, t: u32) -> usize {
        self.local[t as usize].get() as usize
    }

    /// Split `tasks` into `weights.len()` parts whose work is in proportion to
    /// `weights`, cutting as little sharing as METIS finds. Returns each
    /// task's part. Fewer tasks than parts: one task per part.
    pub fn split(&mut self, tasks: &[u32], weights: &[usize]) -> Result<Vec<u32>, ReferenceError> {
        let k = weights.len();
        let n = tasks.len();
        if k <= 1 {
            return Ok(vec![0; n]);
        }
        if n <= k {
            return Ok((0..n as u32).collect());
        }
        if n < MIN_TASKS_PER_PART * k {
            return Ok(self.by_order(tasks, weights));
        }
        for (i, &t) in tasks.iter().enumerate() {
            self.local_set(t, i);
        }
        let mut xadj: Vec<Idx> = Vec::with_capacity(n + 1);
        let (mut adjncy, mut adjwgt): (Vec<Idx>, Vec<Idx>) = (Vec::new(), Vec::new());
        xadj.push(0);
        for &t in tasks {
            for (b, w) in self.graph.neighbours(t) {
                let l = self.local[b as usize].get();
                if l != u32::MAX {
                    adjncy.push(l as Idx);
                    adjwgt.push(w.min(Idx::MAX as u32) as Idx);
                }
            }
            xadj.push(adjncy.len() as Idx);
        }
        for &t in tasks {
            self.local_set(t, u32::MAX as usize);
        }
        // METIS sums vertex weights in `Idx`: scale work so the total fits.
        let total: u64 = tasks.iter().map(|&t| self.graph.work[t as usize]).sum();
        let scale = (total / (1 << 28)).max(1);
        let vwgt: Vec<Idx> = tasks.iter().map(|&t| (self.graph.work[t as usize] / scale).max(1) as Idx).collect();
        let wsum: usize = weights.iter().sum();
        let tpwgts: Vec<f32> = weights.iter().map(|&w| w as f32 / wsum as f32).collect();
        let mut part: Vec<Idx> = vec![0; n];
        let metis_err = |e: metis::Error| ReferenceError::new(format!("METIS failed to partition {n} tasks into {k} parts: {e}"));
        let g = metis::Graph::new(1, k as Idx, &xadj, &adjncy)
            .map_err(|e| metis_err(e.into()))?
            .set_vwgt(&vwgt)
            .set_adjwgt(&adjwgt)
            .set_option(metis::option::Seed(1));
        let g = if weights.iter().all(|&w| w == weights[0]) { g } else { g.set_tpwgts(&tpwgts) };
        g.part_kway(&mut part).map_err(metis_err)?;
        self.calls += 1;
        Ok(part.into_iter().map(|p| p as u32).collect())
    }

    /// Parts of fewer than [`MIN_TASKS_PER_PART`] tasks on average: the
    /// tasks in maximum-overlap order, cut into runs of `weights`' shares.
    fn by_order(&self, tasks: &[u32], weights: &[usize]) -> Vec<u32> {
        let order = task_order(self.fp, tasks);
        let (n, wsum) = (tasks.len(), weights.iter().sum::<usize>());
        for (i, &t) in tasks.iter().enumerate() {
            self.local_set(t, i);
        }
        let mut part = vec![0u32; n];
        let (mut acc, mut p) = (weights[0], 0);
        for (i, &t) in order.iter().enumerate() {
            while p + 1 < weights.len() && i * wsum >= acc * n {
                p += 1;
                acc += weights[p];
            }
            part[self.local_get(t)] = p as u32;
        }
        for &t in tasks {
            self.local_set(t, u32::MAX as usize);
        }
        part
    }

    /// Lines in the union of `tasks`' footprints.
    pub fn union(&mut self, tasks: &[u32]) -> usize {
        self.unions.union(self.fp, tasks.iter().copied())
    }

    /// Groups of `tasks` whose working sets (union of footprints) fit
    /// `capacity` lines (thesis §4.3): METIS into `k` groups, `k` starting
    /// at the union over the capacity and raised by the largest group's
    /// overshoot until every group fits or each holds one task. Groups keep
    /// their tasks in increasing order; empty groups are dropped.
    pub fn fitting(&mut self, tasks: &[u32], capacity: usize) -> Result<Vec<Vec<u32>>, ReferenceError> {
        let n = tasks.len();
        let u = self.union(tasks);
        if u <= capacity || n <= 1 {
            return Ok(vec![tasks.to_vec()]);
        }
        let mut k = u.div_ceil(capacity).min(n);
        loop {
            let part = self.split(tasks, &vec![1; k])?;
            let mut groups: Vec<Vec<u32>> = vec![Vec::new(); k];
            for (i, &t) in tasks.iter().enumerate() {
                groups[part[i] as usize].push(t);
            }
            groups.retain(|g| !g.is_empty());
            let worst = groups.iter().map(|g| self.union(g)).max().unwrap_or(0);
            if worst <= capacity || k >= n {
                return Ok(groups);
            }
            k = (k + 1).max((k * worst).div_ceil(capacity)).min(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::input::SpaceInput;
    use super::*;
    use finegrain::policy::locality::Space;

    /// `c` cliques of `m` tasks, each clique reading `w` lines of its own,
    /// the tasks interleaved (task t is in clique t % c).
    fn cliques(c: usize, m: usize, w: u64) -> SpaceInput {
        let n = c * m;
        let lines = (0..n).map(|t| ((t % c) as u64 * w..(t % c) as u64 * w + w).collect()).collect();
        SpaceInput::new(Space::new(&[n]).unwrap(), vec![10; n], lines).unwrap()
    }

    #[test]
    fn metis_finds_interleaved_cliques() {
        let inp = cliques(8, 16, 4);
        let fp = Footprints::new(&inp);
        let g = SharingGraph::new(&fp, &inp.work);
        let mut p = Partitioner::new(&g, &fp);
        let tasks: Vec<u32> = (0..128).collect();
        let part = p.split(&tasks, &[1; 8]).unwrap();
        assert_eq!(g.cut_cost(&part), 0, "{part:?}");
        // Groups fitting 8 lines: two cliques each at most.
        let groups = p.fitting(&tasks, 8).unwrap();
        assert!(groups.iter().all(|gr| p.union(gr) <= 8), "{groups:?}");
        assert_eq!(groups.iter().map(Vec::len).sum::<usize>(), 128);
        // Uneven weights give uneven parts.
        let part = p.split(&tasks, &[3, 1]).unwrap();
        let zeros = part.iter().filter(|&&x| x == 0).count();
        assert!((80..=112).contains(&zeros), "{zeros}");
    }

    #[test]
    fn tiny_and_edgeless_inputs_partition() {
        let n = 10;
        let inp = SpaceInput::new(Space::new(&[n]).unwrap(), vec![1; n], (0..n as u64).map(|t| vec![t]).collect()).unwrap();
        let fp = Footprints::new(&inp);
        let g = SharingGraph::new(&fp, &inp.work);
        let mut p = Partitioner::new(&g, &fp);
        let tasks: Vec<u32> = (0..10).collect();
        assert_eq!(p.split(&tasks[..3], &[1; 4]).unwrap(), vec![0, 1, 2]);
        let part = p.split(&tasks, &[1; 2]).unwrap();
        assert_eq!(part.iter().filter(|&&x| x == 0).count(), 5);
        let groups = p.fitting(&tasks, 1).unwrap();
        assert_eq!(groups.len(), 10);
    }

    #[test]
    fn small_parts_cut_the_overlap_order() {
        // A chain: METIS would leave parts empty at 2 tasks per part.
        let n = 64;
        let inp = SpaceInput::new(Space::new(&[n]).unwrap(), vec![1; n], (0..n as u64).map(|t| vec![t, t + 1, t + 2]).collect()).unwrap();
        let fp = Footprints::new(&inp);
        let g = SharingGraph::new(&fp, &inp.work);
        let mut p = Partitioner::new(&g, &fp);
        let tasks: Vec<u32> = (0..n as u32).collect();
        for k in [24, 32, 48, 63] {
            let part = p.split(&tasks, &vec![1; k]).unwrap();
            let mut sizes = vec![0; k];
            part.iter().for_each(|&x| sizes[x as usize] += 1);
            assert!(sizes.iter().all(|&s| s == n / k || s == n / k + 1), "k = {k}: {sizes:?}");
            // Runs of the chain: each part is contiguous.
            assert!(part.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1), "{part:?}");
        }
        assert_eq!(p.calls, 0);
    }
}
