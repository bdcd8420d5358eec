//! Parallel loops run by the root, repeated in phases.
//!
//! Each repeat runs `loops` loops one after the other (`Step::Loop`, so the
//! simulated policy splits them), each over `iterations` iterations cut into
//! leaves of `grain` iterations (the last one perhaps fewer). A leaf of `n`
//! iterations costs one draw from the per-iteration distribution summed `n`
//! times ([`Dist::sum_of`]). Footprint (`lines > 0`): loop j's iteration i
//! touches lines `(j·iterations + i)·lines ..+ lines`, the *same* lines in
//! every repeat, so that locality across repeats (cg's iterations) matters.
//! Tasks: `1 + repeats × loops × ⌈iterations / grain⌉`.

use super::{built, check_tasks, meta, synth_err, Dist, Params, Rng};
use crate::SimError;
use finegrain::taskgraph::{Builder, Lines, LoopId, TaskGraph};

#[derive(Clone, Debug, PartialEq)]
pub struct LoopParams {
    pub iterations: u64,
    pub grain: u64,
    /// Cycles of one iteration.
    pub per_iter: Dist,
    /// Lines per iteration; 0 for no footprint.
    pub lines: u32,
    /// Distinct loops per repeat.
    pub loops: u32,
    pub repeats: u32,
    /// The lines are written (else only read).
    pub write: bool,
}

impl LoopParams {
    pub fn leaves(&self) -> u64 {
        self.iterations.div_ceil(self.grain.max(1))
    }

    pub fn tasks(&self) -> u64 {
        1 + (self.repeats as u64).saturating_mul(self.loops as u64).saturating_mul(self.leaves())
    }

    fn check(&self) -> Result<(), SimError> {
        if self.iterations == 0 || self.grain == 0 || self.loops == 0 || self.repeats == 0 {
            return Err(synth_err(format!(
                "loop: iterations ({}), grain ({}), loops ({}) and repeats ({}) must be at least 1",
                self.iterations, self.grain, self.loops, self.repeats
            )));
        }
        check_tasks("loop", self.tasks())?;
        if self.grain.min(self.iterations).saturating_mul(self.lines as u64) > u32::MAX as u64 {
            return Err(synth_err("loop: grain × lines exceeds a line run"));
        }
        Ok(())
    }
}

/// Add one loop of `iterations` cut by `grain` to `b` and fill its leaves:
/// a leaf of n iterations draws `per_iter.sum_of(n)`; iteration i touches
/// lines `base + i·lines ..+ lines`. Returns the loop's id.
#[allow(clippy::too_many_arguments)]
pub(super) fn add_loop(b: &mut Builder, rng: &mut Rng, iterations: u64, grain: u64, per_iter: &Dist, base: u64, lines: u32, write: bool) -> LoopId {
    let leaves = iterations.div_ceil(grain) as u32;
    let (id, range) = b.new_loop(leaves, grain, iterations);
    let full = per_iter.sum_of(grain);
    for (k, t) in range.enumerate() {
        let start = k as u64 * grain;
        let n = grain.min(iterations - start);
        let c = if n == grain { full.sample(rng) } else { per_iter.sum_of(n).sample(rng) };
        if lines > 0 {
            b.work(t, c, &[Lines { first: base + start * lines as u64, count: (n * lines as u64) as u32, write }]);
        } else {
            b.work(t, c, &[]);
        }
    }
    id
}

/// The loops of `p` (see the module docs), lengths drawn with `seed`.
pub fn loop_tasks(p: &LoopParams, seed: u64) -> Result<TaskGraph, SimError> {
    p.check()?;
    let size = format!(
        "iterations={},grain={},cycles={},lines={},loops={},repeats={},write={}",
        p.iterations,
        p.grain,
        p.per_iter.mean(),
        p.lines,
        p.loops,
        p.repeats,
        u8::from(p.write)
    );
    let note = format!(
        "{} repeats of {} parallel loops of {} iterations (grain {}); per-iteration work {} (a leaf of n iterations: the sum of n \
         draws, approximated by the same family with n× the mean and CV/√n); footprint {} lines per iteration, the same lines every repeat",
        p.repeats,
        p.loops,
        p.iterations,
        p.grain,
        p.per_iter.describe(),
        p.lines
    );
    let mut b = Builder::new(meta("loop", size, seed, note));
    let mut rng = Rng::new(seed);
    for _ in 0..p.repeats {
        for j in 0..p.loops as u64 {
            let id = add_loop(&mut b, &mut rng, p.iterations, p.grain, &p.per_iter, j * p.iterations * p.lines as u64, p.lines, p.write);
            b.push(0, finegrain::taskgraph::Step::Loop { id });
        }
    }
    built(b.finish())
}

pub(super) fn from_params(p: &Params<'_>, seed: u64, build: bool) -> Result<Option<TaskGraph>, SimError> {
    let l = LoopParams {
        iterations: p.u64("iterations", 10_000)?,
        grain: p.u64("grain", 1)?,
        per_iter: p.dist("cycles", 1000.0)?,
        lines: p.u32("lines", 0)?,
        loops: p.u32("loops", 1)?,
        repeats: p.u32("repeats", 1)?,
        write: p.bool("write", true)?,
    };
    l.check()?;
    Ok(if build { Some(loop_tasks(&l, seed)?) } else { None })
}
