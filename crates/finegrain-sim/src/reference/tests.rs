//! The reference scheduler on spaces whose right answer is known: a 2-D
//! stencil (neighbours share) and a hash-join-like clustered space (tasks
//! probing one bucket share it; buckets are scattered over the space), each
//! against the baseline and random managers on the graph's cut cost and the
//! LRU model's misses.

use super::*;
use crate::machine::preset;
use finegrain::policy::locality::chunked;
use finegrain::rng::XorShift;

/// An `n x n` stencil: task (i, j) reads the 3x3 cells around (i, j) of an
/// `(n + 2)^2` input grid, 4 lines per cell, and writes one output line.
fn stencil(n: usize) -> SpaceInput {
    let cell = |i: usize, j: usize| (i * (n + 2) + j) as u64 * 4;
    let out0 = ((n + 2) * (n + 2) * 4) as u64;
    let lines = (0..n * n)
        .map(|t| {
            let (i, j) = (t % n, t / n);
            let mut l: Vec<u64> = (0..3).flat_map(|di| (0..3).flat_map(move |dj| (0..4).map(move |k| cell(i + di, j + dj) + k))).collect();
            l.push(out0 + t as u64);
            l
        })
        .collect();
    SpaceInput::new(Space::new(&[n, n]).unwrap(), vec![100; n * n], lines).unwrap()
}

/// `buckets` buckets of `bucket_lines` lines; task t probes bucket
/// `bucket[t]` (a random, balanced assignment), reading `probe` of its
/// lines at random, and reads its own input line.
fn hash_join(tasks: usize, buckets: usize, bucket_lines: u64, probe: usize, seed: u64) -> (SpaceInput, Vec<usize>) {
    let mut rng = XorShift::new(seed);
    let mut bucket: Vec<usize> = (0..tasks).map(|t| t % buckets).collect();
    for i in (1..tasks).rev() {
        bucket.swap(i, rng.below(i + 1));
    }
    let base = buckets as u64 * bucket_lines;
    let lines = (0..tasks)
        .map(|t| {
            let b = bucket[t] as u64 * bucket_lines;
            let mut l: Vec<u64> = (0..probe).map(|_| b + rng.below(bucket_lines as usize) as u64).collect();
            l.push(base + t as u64);
            l
        })
        .collect();
    (SpaceInput::new(Space::new(&[tasks]).unwrap(), vec![100; tasks], lines).unwrap(), bucket)
}

fn all_stats(input: &SpaceInput, h: &Hierarchy) -> (PlanStats, PlanStats, PlanStats, Recursive) {
    let ts = TaskSharing::new(input);
    let r = ts.recursive(h).unwrap();
    let base = chunked::baseline(input.space, h.threads).unwrap();
    let rand = chunked::random(input.space, h.threads, 7).unwrap();
    (ts.stats(&r.plan, h).unwrap(), ts.stats(&base, h).unwrap(), ts.stats(&rand, h).unwrap(), r)
}

#[test]
fn clustered_space_gets_one_bucket_per_worker() {
    let (input, bucket) = hash_join(4096, 32, 256, 48, 3);
    let h = Hierarchy::from_preset(preset("throughput-32").unwrap(), 32).unwrap();
    let (refr, base, rand, r) = all_stats(&input, &h);
    // Every worker's tasks probe one bucket: nothing shared across workers.
    for w in 0..32 {
        let mut bs: Vec<usize> = r.plan.worker_tasks(w).map(|t| bucket[t]).collect();
        bs.dedup();
        assert_eq!(bs.len(), 1, "worker {w} probes buckets {bs:?}");
    }
    assert_eq!(refr.worker_cut, 0);
    assert!(base.worker_cut > 0 && rand.worker_cut > 0);
    assert!(refr.lru_misses[0] * 2 < rand.lru_misses[0], "{refr:?} vs {rand:?}");
    assert!(refr.lru_misses[1] * 2 < base.lru_misses[1], "{refr:?} vs {base:?}");
    // Bucket plus probe lines fit the L2: one L2 group per worker.
    assert_eq!(r.groups_per_level[1], 32);
}

#[test]
fn stencil_beats_random_on_cut_and_misses() {
    let input = stencil(64);
    for name in ["throughput-32", "tiled-32"] {
        let h = Hierarchy::from_preset(preset(name).unwrap(), 32).unwrap();
        let (refr, base, rand, _) = all_stats(&input, &h);
        assert!(refr.worker_cut * 4 < rand.worker_cut, "{name}: {refr:?} vs {rand:?}");
        assert!(refr.lru_misses[0] * 2 < rand.lru_misses[0], "{name}: {refr:?} vs {rand:?}");
        // Compact regions cut fewer lines than the baseline's strips of rows.
        assert!(refr.worker_cut < base.worker_cut, "{name}: {refr:?} vs {base:?}");
    }
}

#[test]
fn tiled_plans_give_each_tile_its_own_part() {
    let (input, bucket) = hash_join(2048, 8, 4096, 64, 5);
    let h = Hierarchy::from_preset(preset("tiled-32").unwrap(), 32).unwrap();
    let ts = TaskSharing::new(&input);
    let r = ts.recursive(&h).unwrap();
    // 8 buckets (256 KB each) for 8 tiles: each tile's four workers probe one.
    for tile in 0..8 {
        let mut bs: Vec<usize> = (4 * tile..4 * tile + 4).flat_map(|w| r.plan.worker_tasks(w).map(|t| bucket[t]).collect::<Vec<_>>()).collect();
        bs.sort_unstable();
        bs.dedup();
        assert_eq!(bs.len(), 1, "tile {tile}: {bs:?}");
    }
    // Balanced: no worker has more than a quarter above the mean.
    let most = (0..32).map(|w| r.plan.worker_tasks(w).count()).max().unwrap();
    assert!(most * 4 <= 64 * 5, "{most}");
}

#[test]
fn mst_only_keeps_the_baseline_chunks_and_reorders_them() {
    let (input, _) = hash_join(1024, 8, 512, 32, 9);
    let ts = TaskSharing::new(&input);
    let m = ts.mst_only(8).unwrap();
    let base = chunked::baseline(input.space, 8).unwrap();
    for w in 0..8 {
        let mut a: Vec<usize> = m.worker_tasks(w).collect();
        let b: Vec<usize> = base.worker_tasks(w).collect();
        assert_ne!(a, b, "worker {w}: not reordered");
        a.sort_unstable();
        assert_eq!(a, b);
    }
    let h = Hierarchy::new(8, vec![Level { name: "L1", bytes: 8 << 10, sharers: 1 }]).unwrap();
    let (sm, sb) = (ts.stats(&m, &h).unwrap(), ts.stats(&base, &h).unwrap());
    assert!(sm.lru_misses[0] < sb.lru_misses[0], "{sm:?} vs {sb:?}");
}

#[test]
fn odd_shapes_plan_soundly() {
    let input = stencil(5);
    // More threads than tasks; SMT threads sharing an L1; a tile cut short.
    let shapes = [
        Hierarchy::from_preset(preset("throughput-32").unwrap(), 32).unwrap(),
        Hierarchy::from_preset(preset("adm-cmp").unwrap(), 6).unwrap(),
        Hierarchy::from_preset(preset("tiled-32").unwrap(), 7).unwrap(),
        Hierarchy::new(3, vec![Level { name: "L1", bytes: 64, sharers: 1 }]).unwrap(),
    ];
    for h in &shapes {
        let p = plan_space(&input, h).unwrap();
        p.check(input.space).unwrap();
        assert_eq!(p.workers(), h.threads);
        assert_eq!(p.manager, "reference");
    }
    // A single task, and tasks that share nothing.
    let one = SpaceInput::new(Space::new(&[1]).unwrap(), vec![5], vec![vec![1, 2]]).unwrap();
    plan_space(&one, &shapes[0]).unwrap().check(one.space).unwrap();
    let lone = SpaceInput::new(Space::new(&[100]).unwrap(), vec![5; 100], (0..100).map(|t| vec![t]).collect()).unwrap();
    let p = plan_space(&lone, &shapes[0]).unwrap();
    assert!((0..32).all(|w| (3..=4).contains(&p.worker_tasks(w).count())));
}
