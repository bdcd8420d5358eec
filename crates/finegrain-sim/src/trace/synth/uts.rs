//! The binomial unbalanced tree search (UTS) of Olivier et al. (LCPC 2006):
//! the root has `b0` children; every other node has `m` children with
//! probability `q`, else none. With `m·q < 1` the tree is finite, of expected
//! size `1 + b0 / (1 − m·q)`, and very unbalanced: the subtree under a child
//! is anything from one node to thousands.
//!
//! Every node is a task that does its work, spawns each child (a
//! [`TaskKind::Scope`] task counting towards a latch of its own), and waits
//! for them. As in UTS, a node's random state comes from its parent's and its
//! index among its siblings (SplitMix64 mixing here instead of SHA-1), so the
//! tree depends only on the seed, not on the order of generation.

use super::{built, meta, mix, synth_err, Dist, Params, Rng, MAX_TASKS};
use crate::SimError;
use finegrain::taskgraph::{Builder, Step, TaskGraph, TaskId, TaskKind};

#[derive(Clone, Debug, PartialEq)]
pub struct UtsParams {
    pub b0: u32,
    pub m: u32,
    pub q: f64,
    /// Work of each node.
    pub cycles: Dist,
    /// Stop with an error past this many tasks.
    pub max: u64,
}

impl UtsParams {
    /// The expected number of tasks (infinite when `m·q >= 1`).
    pub fn expected_tasks(&self) -> f64 {
        let mq = self.m as f64 * self.q;
        if mq >= 1.0 {
            f64::INFINITY
        } else {
            1.0 + self.b0 as f64 / (1.0 - mq)
        }
    }

    fn check(&self) -> Result<(), SimError> {
        if !(0.0..=1.0).contains(&self.q) {
            return Err(synth_err(format!("uts: q {} must be a probability", self.q)));
        }
        if self.max == 0 || self.max > MAX_TASKS {
            return Err(synth_err(format!("uts: max {} must be between 1 and {MAX_TASKS}", self.max)));
        }
        if self.m as f64 * self.q >= 1.0 {
            return Err(synth_err(format!("uts: m·q = {} must be below 1 (else the expected tree is infinite)", self.m as f64 * self.q)));
        }
        Ok(())
    }
}

/// The UTS tree of `p` (see the module docs) for `seed`.
pub fn uts(p: &UtsParams, seed: u64) -> Result<TaskGraph, SimError> {
    p.check()?;
    let size = format!("b0={},m={},q={},cycles={},max={}", p.b0, p.m, p.q, p.cycles.mean(), p.max);
    let note = format!(
        "binomial UTS (Olivier et al. 2006): root b0={} children, then m={} children with probability q={} (expected {:.0} tasks); \
         node work {}",
        p.b0,
        p.m,
        p.q,
        p.expected_tasks(),
        p.cycles.describe()
    );
    let mut b = Builder::new(meta("uts", size, seed, note));
    // (task, node state, is the root)
    let mut stack: Vec<(TaskId, u64, bool)> = vec![(0, mix(seed ^ 0x5554_5300), true)];
    let mut tasks: u64 = 1;
    while let Some((t, state, root)) = stack.pop() {
        // The shape first, so that it does not depend on the distribution.
        let mut r = Rng::new(state);
        let n = if root {
            p.b0
        } else if r.unit() < p.q {
            p.m
        } else {
            0
        };
        let c = p.cycles.sample(&mut r);
        b.work(t, c, &[]);
        if n == 0 {
            continue;
        }
        tasks += n as u64;
        if tasks > p.max {
            return Err(synth_err(format!("uts: the tree passed max={} tasks (expected size {:.0})", p.max, p.expected_tasks())));
        }
        let latch = b.latch();
        for i in 0..n {
            let child = b.task(TaskKind::Scope, Some(latch));
            b.push(t, Step::Spawn { task: child });
            stack.push((child, mix(state ^ mix(i as u64 + 1)), false));
        }
        b.push(t, Step::Wait { latch });
    }
    built(b.finish())
}

pub(super) fn from_params(p: &Params<'_>, seed: u64, build: bool) -> Result<Option<TaskGraph>, SimError> {
    let u = UtsParams {
        b0: p.u32("b0", 200)?,
        m: p.u32("m", 8)?,
        q: p.f64("q", 0.124)?,
        cycles: p.dist("cycles", 1000.0)?,
        max: p.u64("max", MAX_TASKS)?,
    };
    u.check()?;
    Ok(if build { Some(uts(&u, seed)?) } else { None })
}
