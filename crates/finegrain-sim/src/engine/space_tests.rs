//! Recorded task spaces in simulation: planned by the managers, every task
//! once, the planned order kept, offline threads' tasks stolen, and a
//! locality effect the test does not build in.

use super::{simulate, Locality, SimConfig, SimPolicy, SpaceManager};
use crate::machine::{preset, Machine};
use finegrain::policy::locality::steal::Stealing;
use finegrain::policy::locality::{chunked, flux, Plan, Space};
use finegrain::taskgraph::{Builder, Lines, Meta, SpaceHint, SpaceRecord, Step, TaskGraph, TaskKind};
use std::collections::HashMap;

const B: u64 = 4;

/// A 2-D five-point stencil over `nx * ny` blocks of `B` lines: task
/// `(i, j)` reads its block and its four neighbours' and writes its own
/// output line. Neighbours along x and along y share two blocks.
fn stencil(nx: u32, ny: u32, hint: SpaceHint) -> TaskGraph {
    let mut b = Builder::new(Meta::synthetic("stencil", format!("{nx}x{ny}"), 1));
    let l = b.latch();
    let out = (nx * ny) as u64 * B + 1000;
    let mut tasks = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            let t = b.task(TaskKind::Scope, Some(l));
            b.push(0, Step::Spawn { task: t });
            b.work(0, 20, &[]);
            let mut lines = Vec::new();
            for (di, dj) in [(0i64, 0i64), (-1, 0), (1, 0), (0, -1), (0, 1)] {
                let (x, y) = (i as i64 + di, j as i64 + dj);
                if x >= 0 && y >= 0 && x < nx as i64 && y < ny as i64 {
                    lines.push(Lines { first: (x as u64 + nx as u64 * y as u64) * B, count: B as u32, write: false });
                }
            }
            lines.push(Lines { first: out + (i + nx * j) as u64, count: 1, write: true });
            b.work(t, 2000, &lines);
            tasks.push(t);
        }
    }
    b.push(0, Step::Wait { latch: l });
    b.space(SpaceRecord { dims: [nx, ny, 1], hint, tasks });
    b.finish().unwrap()
}

fn config(p: &str, threads: usize, loc: Locality) -> SimConfig {
    let mut c = SimConfig::new(preset(p).unwrap(), threads, SimPolicy::parse("ws").unwrap());
    c.locality = loc;
    c
}

fn tiles(p: &str, n: usize) -> Vec<usize> {
    let m = Machine::new(preset(p).unwrap(), n).unwrap();
    (0..n).map(|w| m.tile_of(w)).collect()
}

/// Each thread started the tasks planned for it that it ran in planned
/// order, a prefix of its plan (thieves take from the tail); every task
/// started exactly once.
fn assert_plan_order(g: &TaskGraph, plan: &Plan, starts: &[Vec<u32>]) -> usize {
    let rec = &g.spaces[0];
    let mut seen = vec![0u32; g.tasks.len()];
    let mut own_total = 0;
    for (w, s) in starts.iter().enumerate() {
        let planned: Vec<u32> = plan.worker_tasks(w).map(|i| rec.tasks[i]).collect();
        let own: Vec<u32> = s.iter().copied().filter(|t| planned.contains(t)).collect();
        assert_eq!(own[..], planned[..own.len()], "thread {w} ran its own tasks out of planned order");
        own_total += own.len();
        for &t in s {
            seen[t as usize] += 1;
        }
    }
    for &t in &rec.tasks {
        assert_eq!(seen[t as usize], 1, "task {t} started {} times", seen[t as usize]);
    }
    rec.tasks.len() - own_total
}

#[test]
fn a_recorded_space_runs_its_plan_every_task_once() {
    let g = stencil(16, 8, SpaceHint::Flux([2 * B, 2 * B, 0]));
    for (p, n) in [("tiled-32", 8), ("throughput-32", 4), ("host-2", 1)] {
        let loc = Locality { log_starts: true, ..Locality::default() };
        let r = simulate(&g, &config(p, n, loc)).unwrap();
        assert_eq!(r.tasks_run as usize, g.tasks.len());
        assert_eq!(r.space_tasks, 128);
        let space = Space::new(&[16, 8]).unwrap();
        let plan = flux::plan(space, [2 * B, 2 * B, 0], n, &tiles(p, n)).unwrap();
        let not_own = assert_plan_order(&g, &plan, &r.space_starts);
        assert_eq!(not_own as u64, r.space_stolen, "{p}: tasks run away from their planned thread are the stolen ones");
        if n == 1 {
            assert_eq!(r.space_starts[0], plan.worker_tasks(0).map(|i| g.spaces[0].tasks[i]).collect::<Vec<_>>());
        }
    }
}

#[test]
fn offline_threads_tasks_are_all_stolen_and_run() {
    let g = stencil(16, 16, SpaceHint::None);
    let n = 8;
    for stealing in Stealing::ALL {
        for offline in [1, 4, 7] {
            let loc = Locality { offline, stealing, log_starts: true, ..Locality::default() };
            let r = simulate(&g, &config("tiled-32", n, loc)).unwrap();
            assert_eq!(r.tasks_run as usize, g.tasks.len(), "{stealing:?} offline={offline}");
            let plan = chunked::baseline(Space::new(&[16, 16]).unwrap(), n).unwrap();
            for w in n - offline..n {
                assert!(r.space_starts[w].is_empty(), "offline thread {w} took a task");
            }
            let held: usize = (n - offline..n).map(|w| plan.worker_tasks(w).count()).sum();
            assert!(r.space_stolen as usize >= held, "{stealing:?} offline={offline}: {} stolen, {held} held offline", r.space_stolen);
            assert_plan_order(&g, &plan, &r.space_starts);
        }
    }
    let loc = Locality { offline: 8, ..Locality::default() };
    assert!(simulate(&g, &config("tiled-32", n, loc)).unwrap_err().to_string().contains("offline=8"));
}

#[test]
fn every_manager_and_stealing_scheme_runs() {
    let keys: Vec<u64> = (0..96).map(|i| (i % 12) as u64).collect();
    let mut sig = [0u64; 16];
    let sigs: Vec<_> = (0..96)
        .map(|i| {
            sig[i % 16] |= 1 << (i % 7);
            sig
        })
        .collect();
    let hints = [
        SpaceHint::None,
        SpaceHint::Random(3),
        SpaceHint::Flux([8, 8, 0]),
        SpaceHint::Bins { keys, min: 0, max: 11 },
        SpaceHint::Signatures(sigs),
        SpaceHint::Plan,
    ];
    for hint in hints {
        let g = stencil(12, 8, hint.clone());
        for manager in [SpaceManager::Hint, SpaceManager::Baseline, SpaceManager::Random] {
            for stealing in Stealing::ALL {
                let loc = Locality { manager: manager.clone(), stealing, offline: 2, log_starts: false };
                let r = simulate(&g, &config("tiled-32", 8, loc)).unwrap();
                assert_eq!(r.tasks_run as usize, g.tasks.len(), "{hint:?} {manager:?} {stealing:?}");
                assert_eq!(r.space_tasks, 96);
            }
        }
    }
}

#[test]
fn supplied_plans_are_used_and_checked() {
    let g = stencil(8, 8, SpaceHint::None);
    let space = Space::new(&[8, 8]).unwrap();
    // Everything on thread 1, in reverse index order.
    let mut p = chunked::baseline(space, 4).unwrap();
    p.tasks = (0..64u32).rev().collect();
    p.groups = vec![finegrain::policy::locality::Group::Tasks(0..64)];
    p.per_worker = vec![0..0, 0..1, 1..1, 1..1];
    p.check(space).unwrap();
    let loc = Locality { manager: SpaceManager::Plans(HashMap::from([(0, p.clone())])), log_starts: true, ..Locality::default() };
    let r = simulate(&g, &config("tiled-32", 4, loc.clone())).unwrap();
    assert_plan_order(&g, &p, &r.space_starts);
    assert!(r.space_stolen > 0, "the others steal from thread 1");
    let mut c = config("tiled-32", 8, loc);
    assert!(simulate(&g, &c).unwrap_err().to_string().contains("the plan is for 4 threads"));
    let mut bad = p;
    bad.tasks[3] = 1;
    c.threads = 4;
    c.locality.manager = SpaceManager::Plans(HashMap::from([(0, bad)]));
    assert!(simulate(&g, &c).unwrap_err().to_string().contains("task space 0"));
}

/// Flux keeps stencil neighbours on one core and in raster order; random
/// scatters them: flux must miss less in L1 and take less task time. The
/// sharing is in the footprints, not in the test's expectations.
#[test]
fn flux_misses_less_than_random_on_a_stencil() {
    let g = stencil(48, 48, SpaceHint::Flux([2 * B, 2 * B, 0]));
    let run = |manager| simulate(&g, &config("tiled-32", 16, Locality { manager, ..Locality::default() })).unwrap();
    let (f, r) = (run(SpaceManager::Hint), run(SpaceManager::Random));
    assert!(f.mem.l1.misses * 10 < r.mem.l1.misses * 8, "flux {} vs random {} L1 misses", f.mem.l1.misses, r.mem.l1.misses);
    assert!(f.task_cycles() < r.task_cycles(), "flux {} vs random {} task cycles", f.task_cycles(), r.task_cycles());
    assert!(f.mpki()[0] < r.mpki()[0]);
}

/// A map phase over `chunks` chunks of 4 MB pages' worth of lines each
/// (one chunk per simulated page, so a chunk lives in one group), hinted
/// with each chunk's home line, as `finegrain::mapreduce` records it.
fn map_phase(chunks: u32, lines_per_chunk: u32) -> TaskGraph {
    let mut b = Builder::new(Meta::synthetic("map", format!("{chunks}"), 1));
    let l = b.latch();
    let page_lines = (4 << 20) / 64;
    let (mut tasks, mut homes) = (Vec::new(), Vec::new());
    for c in 0..chunks {
        let t = b.task(TaskKind::Scope, Some(l));
        b.push(0, Step::Spawn { task: t });
        let first = c as u64 * page_lines;
        b.work(t, 20_000, &[Lines { first, count: lines_per_chunk, write: false }]);
        tasks.push(t);
        homes.push(first);
    }
    b.push(0, Step::Wait { latch: l });
    b.space(SpaceRecord { dims: [chunks, 1, 1], hint: SpaceHint::Homes(homes), tasks });
    b.finish().unwrap()
}

/// Locality groups on the T5440 (Yoo's thesis §3.3.2): with every chip
/// running threads, the chunks go to the chip whose memory holds them and
/// most lines come from local memory; the baseline takes chunks wherever
/// they are, a quarter local. On one chip the grouping cannot matter.
#[test]
fn locality_groups_serve_map_tasks_from_local_memory() {
    let g = map_phase(512, 64);
    let m = Machine::new(preset("t5440").unwrap(), 256).unwrap();
    let per_group = |g: usize| (0..512u64).filter(|&c| m.group_of_line(c * (4 << 20) / 64) == Some(g)).count();
    assert!((0..4).all(|k| per_group(k) > 64), "pages spread over the four groups");
    let hit = |threads: usize, loc: Locality| {
        let r = simulate(&g, &config("t5440", threads, loc)).unwrap();
        assert_eq!(r.space_tasks, 512);
        assert_eq!(r.mem.dram_local + r.mem.dram_remote, r.mem.dram_reads);
        r.mem.dram_local as f64 / r.mem.dram_reads.max(1) as f64
    };
    let groups = Locality { manager: SpaceManager::Hint, stealing: Stealing::Nearest, ..Locality::default() };
    let plain = Locality { manager: SpaceManager::Baseline, stealing: Stealing::Baseline, ..Locality::default() };
    let (with, without) = (hit(256, groups.clone()), hit(256, plain.clone()));
    assert!(with > 0.8 && without < 0.4, "256 threads: {with:.2} with groups, {without:.2} without");
    let (with, without) = (hit(64, groups), hit(64, plain));
    assert!((with - without).abs() < 0.05, "64 threads: {with:.2} with groups, {without:.2} without");
}
