//! How good a plan is for a space, without the simulator: the thesis's
//! per-group metrics (§4.2.1-2: cut cost, union and sum of footprint) and
//! a plain LRU model of each cache level.
//!
//! The LRU model: every cache of a level is fully associative, true LRU, of
//! the level's capacity in lines; it sees every line access of the threads
//! that share it (a task touches its lines once each, in line order; the
//! threads of a shared cache take turns task by task, in plan order). It
//! ignores timing, coherence and associativity: it ranks plans, and the
//! simulator measures them.

use super::graph::SharingGraph;
use super::hierarchy::Hierarchy;
use super::input::{Footprints, UnionCounter};
use finegrain::policy::locality::Plan;
use std::collections::{BTreeMap, HashMap};

/// Cut cost of a plan's per-worker partition (sharing between workers).
pub(crate) fn worker_cut(g: &SharingGraph, plan: &Plan) -> u64 {
    let mut part = vec![0u32; g.tasks()];
    for w in 0..plan.workers() {
        for t in plan.worker_tasks(w) {
            part[t] = w as u32;
        }
    }
    g.cut_cost(&part)
}

/// Cut cost of a plan's groups (sharing between groups).
pub(crate) fn group_cut(g: &SharingGraph, plan: &Plan) -> u64 {
    let mut part = vec![0u32; g.tasks()];
    for (i, gr) in plan.groups.iter().enumerate() {
        for t in plan.group_tasks(gr) {
            part[t] = i as u32;
        }
    }
    g.cut_cost(&part)
}

/// Mean union of footprint, in lines, of the plan's groups (`by_worker`:
/// of each worker's tasks together). Empty groups and workers are skipped.
pub(crate) fn mean_union(fp: &Footprints, plan: &Plan, by_worker: bool) -> f64 {
    let mut u = UnionCounter::new(fp.lines());
    let sets: Vec<Vec<u32>> = if by_worker {
        (0..plan.workers()).map(|w| plan.worker_tasks(w).map(|t| t as u32).collect()).collect()
    } else {
        plan.groups.iter().map(|g| plan.group_tasks(g).map(|t| t as u32).collect()).collect()
    };
    let sizes: Vec<usize> = sets.iter().filter(|s| !s.is_empty()).map(|s| u.union(fp, s.iter().copied())).collect();
    sizes.iter().sum::<usize>() as f64 / sizes.len().max(1) as f64
}

/// A fully associative LRU cache of `capacity` lines.
#[derive(Debug)]
struct Lru {
    capacity: usize,
    last: HashMap<u32, u64>,
    by_age: BTreeMap<u64, u32>,
    clock: u64,
    misses: u64,
}

impl Lru {
    fn new(capacity: usize) -> Lru {
        Lru { capacity, last: HashMap::new(), by_age: BTreeMap::new(), clock: 0, misses: 0 }
    }

    fn access(&mut self, line: u32) {
        self.clock += 1;
        match self.last.insert(line, self.clock) {
            Some(old) => {
                self.by_age.remove(&old);
            }
            None => {
                self.misses += 1;
                if self.last.len() > self.capacity {
                    let (_, victim) = self.by_age.pop_first().expect("a full cache has an oldest line");
                    self.last.remove(&victim);
                }
            }
        }
        self.by_age.insert(self.clock, line);
    }
}

/// Misses of each level (innermost first), summed over its caches.
pub(crate) fn lru_misses(fp: &Footprints, plan: &Plan, h: &Hierarchy) -> Vec<u64> {
    let threads: Vec<usize> = (0..plan.workers()).collect();
    let seqs: Vec<Vec<usize>> = threads.iter().map(|&w| plan.worker_tasks(w).collect()).collect();
    h.levels
        .iter()
        .map(|level| {
            let mut misses = 0;
            for cache in threads.chunks(level.sharers) {
                let mut lru = Lru::new(level.lines());
                let longest = cache.iter().map(|&w| seqs[w].len()).max().unwrap_or(0);
                for i in 0..longest {
                    for &w in cache {
                        if let Some(&t) = seqs[w].get(i) {
                            fp.of_task(t as u32).iter().for_each(|&x| lru.access(x));
                        }
                    }
                }
                misses += lru.misses;
            }
            misses
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_the_least_recently_used_line() {
        let mut c = Lru::new(2);
        for l in [1, 2, 1, 3, 1, 2] {
            c.access(l);
        }
        // 1 m, 2 m, 1 h, 3 m (evicts 2), 1 h, 2 m.
        assert_eq!(c.misses, 4);
    }
}
