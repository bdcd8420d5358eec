//! Ordering by maximum spanning tree (thesis §4.2, Prim's algorithm, the
//! order in which vertices join the tree is the schedule).
//!
//! - **Tasks** ([`task_order`]): "the task whose read and write sets exhibit
//!   the maximum intersection with the cumulative sets" goes next: a task's
//!   key is the number of its lines already in the union of the scheduled
//!   tasks' lines. It starts from the group's lowest task, and when no task
//!   left shares a line with the union, from the lowest task left.
//! - **Groups** ([`group_order`]): Prim's maximum spanning tree on the task
//!   group sharing graph (a node per group, the edges between two groups'
//!   tasks summed): a group's key is its heaviest edge to a group already
//!   ordered.
//!
//! Ties go to the lowest task (group: lowest first task), which keeps the
//! space's own order where sharing says nothing.

use super::graph::SharingGraph;
use super::input::Footprints;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// `tasks` (increasing) in maximum-overlap order.
pub(crate) fn task_order(fp: &Footprints, tasks: &[u32]) -> Vec<u32> {
    let n = tasks.len();
    if n <= 2 {
        return tasks.to_vec();
    }
    // A local inverted index: for each line of the group, its tasks (local).
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for (i, &t) in tasks.iter().enumerate() {
        pairs.extend(fp.of_task(t).iter().map(|&l| (l, i as u32)));
    }
    pairs.sort_unstable();
    let mut in_union: HashMap<u32, ()> = HashMap::with_capacity(pairs.len());
    let line_tasks = |l: u32| {
        let a = pairs.partition_point(|&(x, _)| x < l);
        let b = pairs.partition_point(|&(x, _)| x <= l);
        pairs[a..b].iter().map(|&(_, i)| i)
    };
    let mut key = vec![0u32; n];
    let mut done = vec![false; n];
    let mut heap: BinaryHeap<(u32, Reverse<u32>)> = BinaryHeap::new();
    let mut out = Vec::with_capacity(n);
    let mut next_fresh = 0usize;
    while out.len() < n {
        let pick = loop {
            match heap.pop() {
                Some((k, Reverse(i))) if !done[i as usize] && key[i as usize] == k => break i,
                Some(_) => continue,
                None => {
                    while done[next_fresh] {
                        next_fresh += 1;
                    }
                    break next_fresh as u32;
                }
            }
        };
        done[pick as usize] = true;
        out.push(tasks[pick as usize]);
        for &l in fp.of_task(tasks[pick as usize]) {
            if in_union.insert(l, ()).is_none() {
                for i in line_tasks(l) {
                    if !done[i as usize] {
                        key[i as usize] += 1;
                        heap.push((key[i as usize], Reverse(i)));
                    }
                }
            }
        }
    }
    out
}

/// The order of `groups` (each increasing, disjoint): Prim's maximum
/// spanning tree on the coarsened graph. Returns indices into `groups`.
pub(crate) fn group_order(g: &SharingGraph, groups: &[Vec<u32>], group_of: &mut [u32]) -> Vec<usize> {
    let m = groups.len();
    if m <= 1 {
        return (0..m).collect();
    }
    for (gi, gr) in groups.iter().enumerate() {
        for &t in gr {
            group_of[t as usize] = gi as u32;
        }
    }
    let mut coarse: HashMap<(u32, u32), u64> = HashMap::new();
    for (gi, gr) in groups.iter().enumerate() {
        for &a in gr {
            for (b, w) in g.neighbours(a) {
                let gb = group_of[b as usize];
                if gb != u32::MAX && gb != gi as u32 {
                    *coarse.entry((gi as u32, gb)).or_insert(0) += w as u64;
                }
            }
        }
    }
    for gr in groups {
        for &t in gr {
            group_of[t as usize] = u32::MAX;
        }
    }
    let mut adj: Vec<Vec<(u32, u64)>> = vec![Vec::new(); m];
    for (&(a, b), &w) in &coarse {
        adj[a as usize].push((b, w));
    }
    let first = |i: usize| groups[i].first().copied().unwrap_or(u32::MAX);
    let mut by_first: Vec<usize> = (0..m).collect();
    by_first.sort_by_key(|&i| first(i));
    let mut key = vec![0u64; m];
    let mut done = vec![false; m];
    let mut heap: BinaryHeap<(u64, Reverse<u32>, usize)> = BinaryHeap::new();
    let mut out = Vec::with_capacity(m);
    let mut fresh = 0usize;
    while out.len() < m {
        let pick = loop {
            match heap.pop() {
                Some((k, _, i)) if !done[i] && key[i] == k => break i,
                Some(_) => continue,
                None => {
                    while done[by_first[fresh]] {
                        fresh += 1;
                    }
                    break by_first[fresh];
                }
            }
        };
        done[pick] = true;
        out.push(pick);
        for &(b, w) in &adj[pick] {
            let b = b as usize;
            if !done[b] && w > key[b] {
                key[b] = w;
                heap.push((w, Reverse(first(b)), b));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::input::SpaceInput;
    use super::*;
    use finegrain::policy::locality::Space;

    fn setup(lines: Vec<Vec<u64>>) -> (Footprints, SharingGraph) {
        let n = lines.len();
        let inp = SpaceInput::new(Space::new(&[n]).unwrap(), vec![1; n], lines).unwrap();
        let fp = Footprints::new(&inp);
        let g = SharingGraph::new(&fp, &inp.work);
        (fp, g)
    }

    #[test]
    fn tasks_follow_the_largest_overlap_with_the_union() {
        // A chain hidden in a shuffled order: task t shares lines with the
        // tasks holding chain positions next to its own.
        let pos = [0u64, 5, 2, 7, 1, 6, 3, 4];
        let (fp, _) = setup(pos.iter().map(|&p| vec![10 * p, 10 * p + 1, 10 * (p + 1), 10 * (p + 1) + 1]).collect());
        let order = task_order(&fp, &(0..8).collect::<Vec<_>>());
        let seen: Vec<u64> = order.iter().map(|&t| pos[t as usize]).collect();
        assert_eq!(seen, (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn overlap_counts_the_union_not_the_last_task() {
        // After A = 0 and B = 1, task 3 overlaps the union in lines 2 and 3
        // (only line 2 of B), task 2 in line 10 (of B): overlap with the last
        // task alone would tie them and take task 2 first.
        let (fp, _) = setup(vec![vec![0, 1, 2, 3], vec![0, 1, 2, 10], vec![10, 30], vec![2, 3, 20, 21]]);
        assert_eq!(task_order(&fp, &[0, 1, 2, 3]), vec![0, 1, 3, 2]);
    }

    #[test]
    fn groups_follow_the_heaviest_coarse_edges() {
        // Groups {0,1}, {2,3}, {4,5}: group 0 shares 1 line with group 1 and
        // 3 lines with group 2; group 2 shares 2 with group 1.
        let (_, g) = setup(vec![vec![0], vec![1, 2, 3, 4], vec![1], vec![10, 11], vec![2, 3, 4, 10, 11], vec![99]]);
        let groups = vec![vec![0, 1], vec![2, 3], vec![4, 5]];
        let mut scratch = vec![u32::MAX; 6];
        assert_eq!(group_order(&g, &groups, &mut scratch), vec![0, 2, 1]);
        assert!(scratch.iter().all(|&x| x == u32::MAX));
    }
}
