//! The two locality-oblivious managers the thesis measures against.
//!
//! - **baseline** (Yoo, thesis, §5.4.1; also the contiguous chunks of PDF
//!   and Carbon, §4.4.1): the space linearised with x innermost and cut into
//!   one contiguous chunk per worker, O(t) to plan.
//! - **random** (§4.4.1): a uniformly random partition of the tasks into one
//!   chunk per worker, each in random order; the thesis averages three seeds.

use super::{deal, Group, Plan, PlanError, Space};
use crate::rng::XorShift;

/// One contiguous chunk of linear indices per worker, sizes differing by at
/// most one task.
pub fn baseline(space: Space, workers: usize) -> Result<Plan, PlanError> {
    if workers == 0 {
        return Err(PlanError::NoWorkers);
    }
    let n = space.len();
    let groups = (0..workers).map(|w| Group::Linear(w * n / workers..(w + 1) * n / workers)).filter(|g| !g.is_empty()).collect();
    Ok(deal(space, "baseline", Vec::new(), groups, workers, &[]))
}

/// A random permutation of the tasks cut into one chunk per worker.
pub fn random(space: Space, workers: usize, seed: u64) -> Result<Plan, PlanError> {
    if workers == 0 {
        return Err(PlanError::NoWorkers);
    }
    let n = space.len();
    let mut tasks: Vec<u32> = (0..n as u32).collect();
    let mut rng = XorShift::new(seed);
    for i in (1..n).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        tasks.swap(i, j);
    }
    let groups = (0..workers).map(|w| Group::Tasks(w * n / workers..(w + 1) * n / workers)).filter(|g| !g.is_empty()).collect();
    Ok(deal(space, "random", tasks, groups, workers, &[]))
}

#[cfg(test)]
mod tests {
    use super::super::tests::assert_sound;
    use super::*;

    #[test]
    fn baseline_cuts_contiguous_even_chunks() {
        let s = Space::new(&[10, 3]).unwrap();
        let p = baseline(s, 4).unwrap();
        assert_sound(&p, s, 4);
        let sizes: Vec<usize> = (0..4).map(|w| p.worker_tasks(w).count()).collect();
        assert_eq!(sizes, vec![7, 8, 7, 8]);
        let w1: Vec<usize> = p.worker_tasks(1).collect();
        assert_eq!(w1, (7..15).collect::<Vec<_>>());
        // More workers than tasks: some get nothing, none gets a task twice.
        let tiny = Space::new(&[3]).unwrap();
        assert_sound(&baseline(tiny, 8).unwrap(), tiny, 8);
        assert_eq!(baseline(tiny, 0), Err(PlanError::NoWorkers));
    }

    #[test]
    fn random_is_a_balanced_shuffle_that_depends_on_the_seed() {
        let s = Space::new(&[64, 64]).unwrap();
        let a = random(s, 8, 1).unwrap();
        assert_sound(&a, s, 8);
        assert!((0..8).all(|w| a.worker_tasks(w).count() == 512));
        assert_ne!(a.tasks, random(s, 8, 2).unwrap().tasks);
        // Not the identity: most tasks moved.
        let moved = a.tasks.iter().enumerate().filter(|&(i, &t)| i != t as usize).count();
        assert!(moved > 4000, "{moved}");
    }
}
