//! Task Bench's dependence patterns (Slaughter et al., SC'20, section 3) as
//! dataflow graph nodes: a grid of `steps` timesteps of up to `width` points;
//! the node at (t, i) depends on some points of timestep t − 1. The pattern
//! logic follows `finegrain-cli`'s `metg::pattern` (the runtime's Task Bench),
//! extended with the remaining patterns.
//!
//! Every node is a [`TaskKind::Node`] counting towards one latch; the root
//! spawns every node without predecessors (all of timestep 0, and any later
//! node whose pattern gives it none) and waits on the latch. A node does
//! `cycles` of work; with `lines > 0` it reads the lines of each predecessor
//! and writes its own `lines` lines at slot `(t mod 2, i)` (two buffers of
//! `width × lines` lines, as Task Bench's double-buffered outputs).

use super::{built, check_tasks, meta, synth_err, Params, MAX_EDGES};
use crate::SimError;
use finegrain::taskgraph::{Builder, Lines, Step, TaskGraph, TaskKind};

/// A dependence pattern.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// No dependences: every node is spawned by the root.
    Trivial,
    /// (t, i) depends on (t−1, i).
    NoComm,
    /// (t, i) depends on (t−1, i−1), (t−1, i), (t−1, i+1) where they exist.
    Stencil1d,
    /// As `Stencil1d`, wrapping around at the edges.
    Stencil1dPeriodic,
    /// Task Bench's "dom": timestep t has points `max(0, t+W−S) ..` of count
    /// `min(W, t+1, S−t)` (a band that grows, runs, and shrinks), and (t, i)
    /// depends on (t−1, i−1) and (t−1, i) where they exist.
    Dom,
    /// A binary tree from one node: timestep t has `min(2^t, W)` points,
    /// (t, i) depends on (t−1, i/2).
    Tree,
    /// Butterflies: stride `s = 2^((t−1) mod log2 W)`, (t, i) depends on
    /// (t−1, i−s), (t−1, i), (t−1, i+s) where they exist.
    Fft,
    /// (t, i) depends on every point of t−1.
    AllToAll,
    /// (t, i) depends on the `radix` points nearest to i: `i − radix/2 ..=
    /// i + (radix−1)/2`, clipped.
    Nearest { radix: u32 },
    /// (t, i) depends on `radix` points spread over the row:
    /// `(i + k·W/radix) mod W` for k in 0..radix.
    Spread { radix: u32 },
    /// The `Nearest` window, each point other than i itself kept with
    /// probability 1/2 (a hash of seed, t, i, j decides, so it does not
    /// depend on generation order).
    RandomNearest { radix: u32 },
}

pub const NAMES: [&str; 11] =
    ["trivial", "no_comm", "stencil_1d", "stencil_1d_periodic", "dom", "tree", "fft", "all_to_all", "nearest", "spread", "random_nearest"];

impl Pattern {
    /// Parse a pattern name (`_` or `-`; `stencil` means `stencil_1d`).
    pub fn parse(name: &str, radix: u32) -> Result<Pattern, SimError> {
        Ok(match name.trim().replace('-', "_").as_str() {
            "trivial" => Pattern::Trivial,
            "no_comm" => Pattern::NoComm,
            "stencil_1d" | "stencil" => Pattern::Stencil1d,
            "stencil_1d_periodic" | "stencil_periodic" => Pattern::Stencil1dPeriodic,
            "dom" => Pattern::Dom,
            "tree" => Pattern::Tree,
            "fft" => Pattern::Fft,
            "all_to_all" => Pattern::AllToAll,
            "nearest" => Pattern::Nearest { radix },
            "spread" => Pattern::Spread { radix },
            "random_nearest" => Pattern::RandomNearest { radix },
            other => return Err(synth_err(format!("taskbench: unknown pattern {other:?}; patterns: {}", NAMES.join(", ")))),
        })
    }

    pub fn name(self) -> String {
        match self {
            Pattern::Nearest { radix } => format!("nearest-{radix}"),
            Pattern::Spread { radix } => format!("spread-{radix}"),
            Pattern::RandomNearest { radix } => format!("random_nearest-{radix}"),
            p => NAMES[[
                Pattern::Trivial,
                Pattern::NoComm,
                Pattern::Stencil1d,
                Pattern::Stencil1dPeriodic,
                Pattern::Dom,
                Pattern::Tree,
                Pattern::Fft,
                Pattern::AllToAll,
            ]
            .iter()
            .position(|q| *q == p)
            .unwrap()]
            .to_string(),
        }
    }

    /// The points of timestep `t`: `offset .. offset + count`.
    pub fn points(self, t: u64, width: u64, steps: u64) -> (u64, u64) {
        match self {
            Pattern::Dom => ((t + width).saturating_sub(steps), width.min(t + 1).min(steps - t)),
            Pattern::Tree => (0, width.min(1u64.checked_shl(t.min(63) as u32).unwrap_or(u64::MAX))),
            _ => (0, width),
        }
    }

    /// Total nodes of a `width` × `steps` grid.
    pub fn tasks(self, width: u64, steps: u64) -> u64 {
        match self {
            Pattern::Dom | Pattern::Tree => (0..steps).map(|t| self.points(t, width, steps).1).sum(),
            _ => width.saturating_mul(steps),
        }
    }

    /// An upper bound on the edges (for the limit check).
    fn max_edges(self, width: u64, steps: u64) -> u64 {
        let per = match self {
            Pattern::Trivial => 0,
            Pattern::NoComm | Pattern::Tree => 1,
            Pattern::Dom => 2,
            Pattern::Stencil1d | Pattern::Stencil1dPeriodic | Pattern::Fft => 3,
            Pattern::AllToAll => width,
            Pattern::Nearest { radix } | Pattern::Spread { radix } | Pattern::RandomNearest { radix } => (radix as u64).min(width),
        };
        per.saturating_mul(self.tasks(width, steps))
    }

    /// The points of timestep t−1 that (t, i) depends on, sorted, distinct,
    /// and existing at t−1 (into `out`).
    pub fn deps(self, t: u64, i: u64, width: u64, steps: u64, seed: u64, out: &mut Vec<u64>) {
        out.clear();
        if t == 0 {
            return;
        }
        let w = width;
        match self {
            Pattern::Trivial => {}
            Pattern::NoComm => out.push(i),
            Pattern::Stencil1d => out.extend(i.saturating_sub(1)..=(i + 1).min(w - 1)),
            Pattern::Stencil1dPeriodic => {
                out.extend(i.saturating_sub(1)..=(i + 1).min(w - 1));
                if i == 0 {
                    out.push(w - 1);
                }
                if i + 1 >= w {
                    out.push(0);
                }
            }
            Pattern::Dom => out.extend(i.saturating_sub(1)..=i),
            Pattern::Tree => out.push(i / 2),
            Pattern::Fft => {
                let levels = w.next_power_of_two().trailing_zeros().max(1) as u64;
                let stride = 1u64 << ((t - 1) % levels);
                if i >= stride {
                    out.push(i - stride);
                }
                out.push(i);
                if i + stride < w {
                    out.push(i + stride);
                }
            }
            Pattern::AllToAll => out.extend(0..w),
            Pattern::Nearest { radix } => {
                let r = radix as u64;
                if r > 0 {
                    out.extend(i.saturating_sub(r / 2)..=(i + (r - 1) / 2).min(w - 1));
                }
            }
            Pattern::Spread { radix } => out.extend((0..radix as u64).map(|k| (i + k * w / radix as u64) % w)),
            Pattern::RandomNearest { radix } => {
                let r = radix as u64;
                if r > 0 {
                    let h = super::mix(seed ^ super::mix(t.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i));
                    out.extend((i.saturating_sub(r / 2)..=(i + (r - 1) / 2).min(w - 1)).filter(|&j| j == i || super::mix(h ^ j) & 1 == 1));
                }
            }
        }
        let (o, n) = self.points(t - 1, width, steps);
        out.retain(|&j| j >= o && j < o + n);
        out.sort_unstable();
        out.dedup();
    }
}

/// The Task Bench graph of `pattern` on `width` × `steps` (see the module
/// docs), each node `cycles_per_task` cycles and `lines_per_task` lines;
/// `seed` matters only to `random_nearest`.
pub fn taskbench(pattern: Pattern, width: u32, steps: u32, cycles_per_task: u64, lines_per_task: u32, seed: u64) -> Result<TaskGraph, SimError> {
    check(pattern, width, steps, cycles_per_task)?;
    let (w, s) = (width as u64, steps as u64);
    let size = format!("pattern={},width={width},steps={steps},cycles={cycles_per_task},lines={lines_per_task}", pattern.name());
    let note = format!(
        "Task Bench pattern {} ({} nodes); constant {cycles_per_task} cycles per node; footprint: each node writes {lines_per_task} lines \
         at slot (t mod 2, i) and reads its predecessors' lines",
        pattern.name(),
        pattern.tasks(w, s)
    );
    let mut b = Builder::new(meta("taskbench", size, seed, note));
    let latch = b.latch();
    let lpt = lines_per_task as u64;
    let slot = |t: u64, i: u64| ((t % 2) * w + i) * lpt;
    // Ids of timestep t's points: first id of the row, and the row's offset.
    let mut prev: (u32, u64) = (0, 0);
    let mut deps = Vec::new();
    let mut sources = Vec::new();
    let mut runs: Vec<Lines> = Vec::new();
    for t in 0..s {
        let (o, n) = pattern.points(t, w, s);
        let first = b.task(TaskKind::Node, Some(latch));
        for _ in 1..n {
            b.task(TaskKind::Node, Some(latch));
        }
        for k in 0..n {
            let i = o + k;
            let id = first + k as u32;
            pattern.deps(t, i, w, s, seed, &mut deps);
            runs.clear();
            for &j in &deps {
                b.edge(prev.0 + (j - prev.1) as u32, id);
                if lpt > 0 {
                    let f = slot(t - 1, j);
                    match runs.last_mut() {
                        Some(l) if l.first + l.count as u64 == f => l.count += lines_per_task,
                        _ => runs.push(Lines { first: f, count: lines_per_task, write: false }),
                    }
                }
            }
            if deps.is_empty() {
                sources.push(id);
            }
            if lpt > 0 {
                runs.push(Lines { first: slot(t, i), count: lines_per_task, write: true });
            }
            b.work(id, cycles_per_task, &runs);
        }
        prev = (first, o);
    }
    for task in sources {
        b.push(0, Step::Spawn { task });
    }
    b.push(0, Step::Wait { latch });
    built(b.finish())
}

fn check(pattern: Pattern, width: u32, steps: u32, cycles: u64) -> Result<(), SimError> {
    if width == 0 || steps == 0 {
        return Err(synth_err(format!("taskbench: width ({width}) and steps ({steps}) must be at least 1")));
    }
    if cycles == 0 {
        return Err(synth_err("taskbench: cycles must be at least 1"));
    }
    if let Pattern::Nearest { radix: 0 } | Pattern::Spread { radix: 0 } | Pattern::RandomNearest { radix: 0 } = pattern {
        return Err(synth_err("taskbench: radix must be at least 1"));
    }
    let (w, s) = (width as u64, steps as u64);
    check_tasks("taskbench", pattern.tasks(w, s) + 1)?;
    let e = pattern.max_edges(w, s);
    if e > MAX_EDGES {
        return Err(synth_err(format!("taskbench: up to {e} edges, more than the limit of {MAX_EDGES}")));
    }
    Ok(())
}

pub(super) fn from_params(p: &Params<'_>, seed: u64, build: bool) -> Result<Option<TaskGraph>, SimError> {
    let radix = p.u32("radix", 3)?;
    let pattern = Pattern::parse(p.str("pattern", "stencil_1d"), radix)?;
    let (width, steps, cycles, lines) = (p.u32("width", 16)?, p.u32("steps", 100)?, p.u64("cycles", 1000)?, p.u32("lines", 0)?);
    check(pattern, width, steps, cycles)?;
    if !build {
        return Ok(None);
    }
    taskbench(pattern, width, steps, cycles, lines, seed).map(Some)
}
