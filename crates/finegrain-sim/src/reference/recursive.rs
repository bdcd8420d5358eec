//! Recursive scheduling (thesis §4.3, Fig. 4.3), from the outermost cache
//! level in.
//!
//! ```text
//! distribute(T, level, threads):      // T runs on the level's caches under `threads`
//!     k = caches of `level` under `threads`
//!     if k > 1: METIS pre-partition T into k parts, work in proportion to
//!               each cache's threads; place(part i, level, cache i's threads)
//!     else:     place(T, level, threads)
//! place(T, level, threads):           // T runs on one cache of `level`
//!     groups = METIS groups of T whose union of footprints fits the cache
//!     for g in groups, in maximum-spanning-tree order:
//!         if level is L1: the tasks of g in maximum-overlap order, cut into
//!                         one run per thread sharing the L1 (SMT threads)
//!         else:           distribute(g, level - 1, threads)
//! start: distribute(all tasks, outermost level, all threads)
//! ```
//!
//! The pre-partition at a branch is what makes group ordering work with
//! private or partly shared caches: the groups ordered for one cache all go
//! to that cache's threads. An outermost level shared by fewer than all
//! threads (the Throughput Processor's private L2s) is itself a branch of
//! memory. Each thread receives its L1 groups in the order they were made,
//! so the tasks of one group of an outer level run together on the threads
//! under that cache before the next group starts (a group stays resident in
//! its cache from beginning to end, §4.3).

use super::hierarchy::Hierarchy;
use super::order::{group_order, task_order};
use super::partition::Partitioner;
use super::ReferenceError;

#[derive(Debug)]
pub(crate) struct Recursion<'a, 'p> {
    h: &'a Hierarchy,
    p: &'a mut Partitioner<'p>,
    group_of: Vec<u32>,
    /// Per thread: its L1 groups (tasks in order), in order.
    pub out: Vec<Vec<Vec<u32>>>,
    /// Groups made at each level (innermost first).
    pub groups: Vec<usize>,
}

impl<'a, 'p> Recursion<'a, 'p> {
    pub fn run(h: &'a Hierarchy, p: &'a mut Partitioner<'p>) -> Result<Recursion<'a, 'p>, ReferenceError> {
        let n = p.graph.tasks();
        let mut r = Recursion { h, p, group_of: vec![u32::MAX; n], out: vec![Vec::new(); h.threads], groups: vec![0; h.levels.len()] };
        let threads: Vec<usize> = (0..h.threads).collect();
        r.distribute((0..n as u32).collect(), h.levels.len() - 1, &threads)?;
        Ok(r)
    }

    fn distribute(&mut self, tasks: Vec<u32>, level: usize, threads: &[usize]) -> Result<(), ReferenceError> {
        let caches = self.h.caches(level, threads);
        if caches.len() == 1 {
            return self.place(tasks, level, threads);
        }
        let weights: Vec<usize> = caches.iter().map(Vec::len).collect();
        let part = self.p.split(&tasks, &weights)?;
        let mut parts = vec![Vec::new(); caches.len()];
        for (i, &t) in tasks.iter().enumerate() {
            parts[part[i] as usize].push(t);
        }
        for (cache, part) in caches.iter().zip(parts) {
            if !part.is_empty() {
                self.place(part, level, cache)?;
            }
        }
        Ok(())
    }

    fn place(&mut self, tasks: Vec<u32>, level: usize, threads: &[usize]) -> Result<(), ReferenceError> {
        let groups = self.p.fitting(&tasks, self.h.levels[level].lines())?;
        self.groups[level] += groups.len();
        let order = group_order(self.p.graph, &groups, &mut self.group_of);
        for gi in order {
            if level == 0 {
                let ordered = task_order(self.p.fp, &groups[gi]);
                let (n, k) = (ordered.len(), threads.len());
                for (j, &w) in threads.iter().enumerate() {
                    let run = &ordered[j * n / k..(j + 1) * n / k];
                    if !run.is_empty() {
                        self.out[w].push(run.to_vec());
                    }
                }
            } else {
                self.distribute(groups[gi].clone(), level - 1, threads)?;
            }
        }
        Ok(())
    }
}
