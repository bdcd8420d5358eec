//! Graphs shaped like the ADM paper's workloads (Sanchez, Yoo, Kozyrakis,
//! ASPLOS'10, Table 4: mean task length in cycles on the 64-core Carbon
//! run), with about `tasks` tasks.
//!
//! Task lengths are **lognormal with CV 0.5** around the table's mean,
//! except gtfold's, which are bimodal: a cell is long with probability 1/4,
//! and long cells are 40× short ones on average (each mode lognormal, CV
//! 0.5), the mixture's mean being the table's 14.8 K.
//!
//! | name | mean | structure | tasks |
//! |---|---|---|---|
//! | canneal | 4,900 | phases of one loop of 1,024 leaves (a temperature step each); a leaf swaps two random netlist elements (2 random lines, written) | 1 + R·1024 |
//! | mergesort | 3,900 | a binary fork-join tree of exactly `tasks` nodes (each node spawns its two halves and waits, then merges); merge-sort footprint, 4 lines per node, two arrays | `tasks` |
//! | maxflow | 674 | P phases (`⌈tasks/8192⌉`, at most 16) of dynamic [`TaskKind::Phase`] tasks: the root spawns 64, each later task is spawned by a uniformly chosen earlier one of its phase, after its work (push-relabel's discharges); 2 random lines written | `tasks` |
//! | ced | 419 | phases of 4 loops (Canny's stages) of 1,024 leaves over the same image, 4 lines per leaf | 1 + R·4·1024 |
//! | cg | 976 | phases of 3 loops (SpMV, two vector updates) of 1,024 leaves, the same lines each phase (8 read and 1 written per leaf); the vector updates are reductions (the dot products) | 1 + R·3·1024 |
//! | gtfold | 14,800 | a triangular dataflow wavefront: cell (i, j), i ≤ j < n, depends on (i+1, j) and (i, j−1); the root spawns the diagonal; one line per cell | 1 + n(n+1)/2 |
//! | hashjoin | 1,600 | two loops (build, probe) of `(tasks−1)/2` leaves: each reads 2 lines of its input and touches one random bucket line (written in build, read in probe) | 1 + 2·⌊(tasks−1)/2⌋ |
//!
//! R (the repeats) is `(tasks − 1)` over the tasks of one phase, rounded, at
//! least 1 (with fewer leaves per loop when `tasks` is small); n is the
//! largest with `n(n+1)/2 ≤ tasks − 1`.

use super::{built, check_tasks, loops::add_loop, meta, synth_err, Dist, Params, Rng};
use crate::SimError;
use finegrain::taskgraph::{Builder, Lines, Step, TaskGraph, TaskId, TaskKind};

/// The profiles: name and Table 4's mean task length in cycles.
pub const PROFILES: [(&str, f64); 7] =
    [("canneal", 4900.0), ("mergesort", 3900.0), ("maxflow", 674.0), ("ced", 419.0), ("cg", 976.0), ("gtfold", 14800.0), ("hashjoin", 1600.0)];

const CV: f64 = 0.5;
/// gtfold: share of long cells and how much longer they are.
const GTFOLD_LONG: f64 = 0.25;
const GTFOLD_RATIO: f64 = 40.0;

fn lognormal(mean: f64) -> Dist {
    Dist::Lognormal { mean, cv: CV }
}

/// A graph shaped like workload `name` of Table 4 with about `tasks` tasks.
pub fn profile(name: &str, tasks: u64, seed: u64) -> Result<TaskGraph, SimError> {
    let mean = check(name, tasks)?;
    let size = format!("name={name},tasks={tasks}");
    let dist_note = if name == "gtfold" {
        format!(
            "bimodal: long with probability {GTFOLD_LONG}, long mean {GTFOLD_RATIO}x the short mean, each mode lognormal CV {CV}; overall mean {mean} cycles"
        )
    } else {
        format!("lognormal, mean {mean} cycles, CV {CV}")
    };
    let note = format!("profile of {name} (ADM, ASPLOS'10, Table 4: mean task length {mean} cycles); task lengths {dist_note}");
    let mut b = Builder::new(meta(&format!("profile-{name}"), size, seed, note));
    let mut rng = Rng::new(seed);
    let d = lognormal(mean);
    let n = tasks - 1;
    match name {
        "mergesort" => {
            let mut m = Merge { b: &mut b, rng: &mut rng, d, units: tasks };
            m.node(0, tasks, 0, 0);
        }
        "canneal" => {
            let (leaves, r) = phases(n, 1, 1024);
            let netlist = 16 * leaves as u64;
            for _ in 0..r {
                let (id, range) = b.new_loop(leaves, 1, leaves as u64);
                for t in range {
                    let c = d.sample(&mut rng);
                    let (x, y) = (rng.below(netlist), rng.below(netlist));
                    b.work(t, c, &[Lines { first: x, count: 1, write: true }, Lines { first: y, count: 1, write: true }]);
                }
                b.push(0, Step::Loop { id });
            }
        }
        "ced" | "cg" => {
            let (k, lines) = if name == "ced" { (4, 4u32) } else { (3, 9) };
            let (leaves, r) = phases(n, k, 1024);
            let it = leaves as u64;
            for _ in 0..r {
                for j in 0..k as u64 {
                    let id = if name == "cg" && j == 0 {
                        // SpMV: each leaf reads its rows (8 lines), writes one line of y.
                        let (id, range) = b.new_loop(leaves, 1, it);
                        for (i, t) in range.enumerate() {
                            let c = d.sample(&mut rng);
                            let i = i as u64;
                            b.work(t, c, &[Lines { first: 8 * i, count: 8, write: false }, Lines { first: 8 * it + i, count: 1, write: true }]);
                        }
                        id
                    } else {
                        add_loop(&mut b, &mut rng, it, 1, &d, (9 + j) * it * lines as u64, if name == "cg" { 1 } else { lines }, true)
                    };
                    if name == "cg" && j > 0 {
                        // The vector updates carry cg's dot products.
                        b.set_reduce(id);
                    }
                    b.push(0, Step::Loop { id });
                }
            }
        }
        "hashjoin" => {
            let leaves = (n / 2).max(1) as u32;
            let table = leaves as u64;
            for phase in 0..2u64 {
                let (id, range) = b.new_loop(leaves, 1, leaves as u64);
                for (i, t) in range.enumerate() {
                    let c = d.sample(&mut rng);
                    let input = (1 + phase) * table + 2 * (phase * table + i as u64);
                    let bucket = rng.below(table);
                    b.work(t, c, &[Lines { first: input, count: 2, write: false }, Lines { first: bucket, count: 1, write: phase == 0 }]);
                }
                b.push(0, Step::Loop { id });
            }
        }
        "maxflow" => {
            let p = n.div_ceil(8192).clamp(1, 16);
            let graph_lines = n.max(64);
            for ph in 0..p {
                let count = n / p + u64::from(ph < n % p);
                let latch = b.latch();
                let first = b.task(TaskKind::Phase, Some(latch));
                for _ in 1..count {
                    b.task(TaskKind::Phase, Some(latch));
                }
                let initial = count.min(64);
                for k in 0..count {
                    let t = first + k as TaskId;
                    let c = d.sample(&mut rng);
                    let (x, y) = (rng.below(graph_lines), rng.below(graph_lines));
                    b.work(t, c, &[Lines { first: x, count: 1, write: true }, Lines { first: y, count: 1, write: true }]);
                    if k < initial {
                        b.push(0, Step::Spawn { task: t });
                    } else {
                        // Spawned by an earlier task of the phase, after its work.
                        let parent = first + rng.below(k) as TaskId;
                        b.push(parent, Step::Spawn { task: t });
                    }
                }
                b.push(0, Step::Wait { latch });
            }
        }
        "gtfold" => {
            let mut m = 0u64;
            while (m + 1) * (m + 2) / 2 <= n {
                m += 1;
            }
            let short = mean / ((1.0 - GTFOLD_LONG) + GTFOLD_LONG * GTFOLD_RATIO);
            let (ds, dl) = (lognormal(short), lognormal(short * GTFOLD_RATIO));
            let latch = b.latch();
            // Cells in order of diagonal: (i, i + k) for k = 0..m, so a cell's
            // predecessors come before it. id(i, k) = first + k·m − k(k−1)/2 + i.
            let first = b.task(TaskKind::Node, Some(latch));
            for _ in 1..m * (m + 1) / 2 {
                b.task(TaskKind::Node, Some(latch));
            }
            let id = |i: u64, k: u64| first + (k * m - k * k.saturating_sub(1) / 2 + i) as TaskId;
            for k in 0..m {
                for i in 0..m - k {
                    let t = id(i, k);
                    let c = if rng.unit() < GTFOLD_LONG { dl.sample(&mut rng) } else { ds.sample(&mut rng) };
                    let mut fp = Vec::with_capacity(3);
                    if k == 0 {
                        b.push(0, Step::Spawn { task: t });
                    } else {
                        // (i+1, j) and (i, j−1) are both on diagonal k − 1.
                        for p in [id(i + 1, k - 1), id(i, k - 1)] {
                            b.edge(p, t);
                            fp.push(Lines { first: (p - first) as u64, count: 1, write: false });
                        }
                    }
                    fp.push(Lines { first: (t - first) as u64, count: 1, write: true });
                    b.work(t, c, &fp);
                }
            }
            b.push(0, Step::Wait { latch });
        }
        _ => unreachable!("checked above"),
    }
    built(b.finish())
}

/// Leaves per loop and repeats for about `n` leaves in phases of `k` loops
/// of up to `target` leaves.
fn phases(n: u64, k: u32, target: u32) -> (u32, u64) {
    let leaves = (n / k as u64).clamp(1, target as u64);
    let per = leaves * k as u64;
    (leaves as u32, ((n + per / 2) / per).max(1))
}

struct Merge<'a> {
    b: &'a mut Builder,
    rng: &'a mut Rng,
    d: Dist,
    units: u64,
}

const MERGE_LINES: u64 = 4;

impl Merge<'_> {
    /// Node `t` covering `n` tasks (itself and its subtree) and units
    /// `lo..lo+n`, at depth `depth`.
    fn node(&mut self, t: TaskId, n: u64, lo: u64, depth: u32) {
        let arr = |depth: u32| (depth as u64 % 2) * self.units * MERGE_LINES;
        let (mine, theirs) = (arr(depth), arr(depth + 1));
        let rest = n - 1;
        let mut fp = Vec::with_capacity(2);
        if rest > 0 {
            let latch = self.b.latch();
            let left = rest.div_ceil(2);
            let mut kids = Vec::with_capacity(2);
            for (cn, clo) in [(left, lo + 1), (rest - left, lo + 1 + left)] {
                if cn > 0 {
                    let c = self.b.task(TaskKind::Join, Some(latch));
                    self.b.push(t, Step::Spawn { task: c });
                    kids.push((c, cn, clo));
                }
            }
            for (c, cn, clo) in kids {
                self.node(c, cn, clo, depth + 1);
            }
            self.b.push(t, Step::Wait { latch });
            fp.push(Lines { first: theirs + (lo + 1) * MERGE_LINES, count: (rest * MERGE_LINES) as u32, write: false });
        }
        fp.push(Lines { first: mine + lo * MERGE_LINES, count: (n * MERGE_LINES) as u32, write: true });
        let c = self.d.sample(self.rng);
        self.b.work(t, c, &fp);
    }
}

fn check(name: &str, tasks: u64) -> Result<f64, SimError> {
    let mean = PROFILES.iter().find(|(n, _)| *n == name).map(|p| p.1).ok_or_else(|| {
        synth_err(format!("profile: unknown name {name:?}; names: {}", PROFILES.iter().map(|p| p.0).collect::<Vec<_>>().join(", ")))
    })?;
    if tasks < 16 {
        return Err(synth_err(format!("profile: tasks={tasks} must be at least 16")));
    }
    check_tasks("profile", tasks)?;
    Ok(mean)
}

pub(super) fn from_params(p: &Params<'_>, seed: u64, build: bool) -> Result<Option<TaskGraph>, SimError> {
    let name = p.get("name").ok_or_else(|| synth_err("profile: name=... is required (canneal, mergesort, maxflow, ced, cg, gtfold, hashjoin)"))?;
    let tasks = p.u64("tasks", 100_000)?;
    check(name, tasks)?;
    Ok(if build { Some(profile(name, tasks, seed)?) } else { None })
}
