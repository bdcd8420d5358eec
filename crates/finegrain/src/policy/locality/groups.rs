//! Locality groups (Yoo, Romano, Kozyrakis, "Phoenix Rebirth: Scalable
//! MapReduce on a Large-Scale Shared-Memory System", IISWC 2009, section
//! 3.2.1; Yoo's thesis, Stanford 2012, sections 3.2.1 and 3.3.2): one queue
//! of map tasks per group of workers that share a memory (a chip and the
//! DRAM attached to it), each task queued to the group whose memory holds
//! its data, and a worker draining its own group's queue before it takes
//! from another's.
//!
//! The decisions, as plain functions: which queue a task joins
//! ([`queues`]), the order in which a worker visits the queues
//! ([`visit_order`]), and the same split as a task-space [`Plan`]
//! ([`plan`]) for the simulator, which replays a recorded map phase on a
//! machine whose memory it places itself. `finegrain::mapreduce` calls the
//! first two; `finegrain-sim` the third.

use super::{Group, Plan, PlanError, Space};
use std::ops::Range;

/// The tasks of each group's queue, in task order: `group_of_task[t]` is
/// the group whose memory holds task `t`'s data. There are at least
/// `groups` queues, more if a task names a higher group.
pub fn queues(group_of_task: &[usize], groups: usize) -> Vec<Vec<usize>> {
    let n = group_of_task.iter().map(|&g| g + 1).max().unwrap_or(0).max(groups).max(1);
    let mut lists = vec![Vec::new(); n];
    for (t, &g) in group_of_task.iter().enumerate() {
        lists[g].push(t);
    }
    lists
}

/// The queues a worker of group `own` visits, in order: its own first, then
/// the groups after it in turn (so that the workers of different groups
/// do not all steal from group 0 first).
pub fn visit_order(own: usize, groups: usize) -> impl Iterator<Item = usize> {
    let g = groups.max(1);
    (0..g).map(move |i| (own % g + i) % g)
}

/// Contiguous pieces of `len` items for `k` takers, sizes differing by at
/// most one.
fn pieces(len: usize, k: usize) -> impl Iterator<Item = Range<usize>> {
    (0..k).map(move |i| i * len / k..(i + 1) * len / k)
}

/// The locality-group split as a plan for `group_of_worker.len()` workers:
/// each group's tasks, in order, cut into one contiguous piece per worker
/// of that group (the per-worker form of one shared queue per group, which
/// the replay's stealing then balances, nearest workers first). The tasks of
/// a group without workers (a run on fewer chips than the memory spans)
/// are cut over every worker, after its own group's piece: they are remote
/// to whoever runs them.
pub fn plan(space: Space, group_of_task: &[usize], group_of_worker: &[usize]) -> Result<Plan, PlanError> {
    let workers = group_of_worker.len();
    if workers == 0 {
        return Err(PlanError::NoWorkers);
    }
    if group_of_task.len() != space.len() {
        return Err(PlanError::BadPlan(format!("{} task groups for a space of {} tasks", group_of_task.len(), space.len())));
    }
    let lists = queues(group_of_task, group_of_worker.iter().map(|&g| g + 1).max().unwrap_or(1));
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); lists.len()];
    for (w, &g) in group_of_worker.iter().enumerate() {
        members[g].push(w);
    }
    let mut own: Vec<Vec<u32>> = vec![Vec::new(); workers];
    let mut orphans: Vec<u32> = Vec::new();
    for (g, list) in lists.iter().enumerate() {
        if members[g].is_empty() {
            orphans.extend(list.iter().map(|&t| t as u32));
            continue;
        }
        for (w, r) in members[g].iter().zip(pieces(list.len(), members[g].len())) {
            own[*w].extend(list[r].iter().map(|&t| t as u32));
        }
    }
    orphans.sort_unstable();
    let mut tasks = Vec::with_capacity(space.len());
    let mut groups = Vec::new();
    let mut per_worker = Vec::with_capacity(workers);
    for (w, r) in pieces(orphans.len(), workers).enumerate() {
        let first = groups.len();
        for part in [&own[w][..], &orphans[r]] {
            if !part.is_empty() {
                groups.push(Group::Tasks(tasks.len()..tasks.len() + part.len()));
                tasks.extend_from_slice(part);
            }
        }
        per_worker.push(first..groups.len());
    }
    Ok(Plan { space, manager: "groups", tasks, groups, per_worker })
}

#[cfg(test)]
mod tests {
    use super::super::tests::assert_sound;
    use super::*;

    #[test]
    fn queues_keep_task_order_and_cover_every_group() {
        let q = queues(&[1, 0, 1, 3, 0], 2);
        assert_eq!(q, vec![vec![1, 4], vec![0, 2], vec![], vec![3]]);
        assert_eq!(queues(&[], 0), vec![Vec::<usize>::new()]);
    }

    #[test]
    fn a_worker_visits_its_own_group_first_then_the_next_in_turn() {
        assert_eq!(visit_order(2, 4).collect::<Vec<_>>(), vec![2, 3, 0, 1]);
        assert_eq!(visit_order(0, 1).collect::<Vec<_>>(), vec![0]);
        assert_eq!(visit_order(5, 0).collect::<Vec<_>>(), vec![0]);
    }

    #[test]
    fn each_group_runs_on_its_own_workers_and_orphans_on_all() {
        // 12 tasks over 3 groups; workers only in groups 0 and 1.
        let s = Space::new(&[12]).unwrap();
        let gt: Vec<usize> = (0..12).map(|t| t % 3).collect();
        let gw = [0, 0, 1, 1];
        let p = plan(s, &gt, &gw).unwrap();
        assert_sound(&p, s, 4);
        for (w, &own) in gw.iter().enumerate() {
            let mine: Vec<usize> = p.worker_tasks(w).collect();
            let local = mine.iter().filter(|&&t| gt[t] == own).count();
            let orphan = mine.iter().filter(|&&t| gt[t] == 2).count();
            assert_eq!(local, 2, "worker {w}: {mine:?}");
            assert_eq!(orphan, 1, "worker {w}: {mine:?}");
            // Its own group's tasks come first.
            assert_eq!(gt[mine[0]], own);
        }
        assert_eq!(plan(s, &gt, &[]), Err(PlanError::NoWorkers));
        assert!(matches!(plan(s, &gt[..5], &gw), Err(PlanError::BadPlan(_))));
    }
}
