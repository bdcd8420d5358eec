//! A fork-join tree with joins, like fib or merge sort.
//!
//! Every inner node spawns its `fanout` children as [`TaskKind::Join`] tasks
//! counting towards a new latch, waits on it, then does its own `inner` work
//! (the merge). With `inline`, the first child runs inside its parent's task
//! instead (as `join(a, b)` records: `Spawn(b)`, `a`'s steps, `Wait`). Task 0,
//! the root, is the tree's top node. A tree of depth `d` has `fanout^d`
//! leaves and `(fanout^(d+1) − 1)/(fanout − 1)` tasks, or `fanout^d` with
//! `inline`.
//!
//! Footprint (`lines > 0`, merge-sort-like): two arrays A and B of
//! `leaves × lines` lines. Leaf k writes its own slice `k·lines ..
//! (k+1)·lines` of A; a node at height h (leaves at 0) covering leaves
//! `lo..hi` reads that range of the array its children wrote (A when h − 1
//! is even) and writes it in the other one, so that whether siblings share a
//! cache shows (PDF vs WS).

use super::{built, check_tasks, meta, synth_err, Dist, Params, Rng};
use crate::SimError;
use finegrain::taskgraph::{Builder, Lines, Step, TaskGraph, TaskId, TaskKind};

/// The tree's shape, lengths and footprint.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeParams {
    pub depth: u32,
    pub fanout: u32,
    /// The first child runs inline in its parent's task (as `join` does).
    pub inline: bool,
    /// Work of each leaf.
    pub leaf: Dist,
    /// Work of each inner node, after its children (the merge).
    pub inner: Dist,
    /// Lines per leaf; 0 for no footprint.
    pub lines: u32,
}

impl TreeParams {
    pub fn leaves(&self) -> u64 {
        (self.fanout as u64).saturating_pow(self.depth)
    }

    /// Tasks of the tree (the root included).
    pub fn tasks(&self) -> u64 {
        let f = self.fanout as u64;
        if self.inline {
            self.leaves()
        } else {
            // 1 + f + ... + f^depth
            let mut s = 0u64;
            let mut p = 1u64;
            for _ in 0..=self.depth {
                s = s.saturating_add(p);
                p = p.saturating_mul(f);
            }
            s
        }
    }

    fn check(&self) -> Result<(), SimError> {
        if self.fanout < 2 {
            return Err(synth_err(format!("tree: fanout {} must be at least 2", self.fanout)));
        }
        if self.depth > 63 {
            return Err(synth_err(format!("tree: depth {} is too deep", self.depth)));
        }
        check_tasks("tree", self.tasks())?;
        if self.leaves().saturating_mul(self.lines as u64) > u32::MAX as u64 * 64 {
            return Err(synth_err("tree: footprint too large"));
        }
        Ok(())
    }
}

struct Gen {
    b: Builder,
    rng: Rng,
    p: TreeParams,
    leaves: u64,
}

impl Gen {
    /// Write node (height `h`, first leaf `lo`) into task `t`.
    fn node(&mut self, t: TaskId, h: u32, lo: u64) {
        let lpl = self.p.lines as u64;
        let nl = self.leaves;
        let range = |arr: u32, lo: u64, n: u64, write: bool| Lines { first: (arr as u64 % 2) * nl * lpl + lo * lpl, count: (n * lpl) as u32, write };
        if h == 0 {
            let c = self.p.leaf.sample(&mut self.rng);
            let fp = if lpl > 0 { vec![range(0, lo, 1, true)] } else { vec![] };
            self.b.work(t, c, &fp);
            return;
        }
        let f = self.p.fanout as u64;
        let span = f.pow(h - 1);
        let latch = self.b.latch();
        let first_spawned = u64::from(self.p.inline);
        let mut kids = Vec::with_capacity(f as usize);
        for k in first_spawned..f {
            let c = self.b.task(TaskKind::Join, Some(latch));
            self.b.push(t, Step::Spawn { task: c });
            kids.push((c, lo + k * span));
        }
        if self.p.inline {
            self.node(t, h - 1, lo);
        }
        for (c, clo) in kids {
            self.node(c, h - 1, clo);
        }
        self.b.push(t, Step::Wait { latch });
        let c = self.p.inner.sample(&mut self.rng);
        let n = span * f;
        let fp = if lpl > 0 { vec![range(h - 1, lo, n, false), range(h, lo, n, true)] } else { vec![] };
        self.b.work(t, c, &fp);
    }
}

/// The fork-join tree of `p` (see the module docs), lengths drawn with `seed`.
pub fn tree(p: &TreeParams, seed: u64) -> Result<TaskGraph, SimError> {
    p.check()?;
    let size = format!(
        "depth={},fanout={},inline={},leaf={},inner={},lines={}",
        p.depth,
        p.fanout,
        u8::from(p.inline),
        p.leaf.mean(),
        p.inner.mean(),
        p.lines
    );
    let note = format!(
        "fork-join tree, {} leaves, {} tasks; leaf work {}; inner work {}; footprint {}",
        p.leaves(),
        p.tasks(),
        p.leaf.describe(),
        p.inner.describe(),
        if p.lines > 0 { format!("merge-sort-like, {} lines per leaf, two arrays", p.lines) } else { "none".into() }
    );
    let mut g = Gen { b: Builder::new(meta("tree", size, seed, note)), rng: Rng::new(seed), p: p.clone(), leaves: p.leaves() };
    g.node(0, p.depth, 0);
    built(g.b.finish())
}

pub(super) fn from_params(p: &Params<'_>, seed: u64, build: bool) -> Result<Option<TaskGraph>, SimError> {
    let t = TreeParams {
        depth: p.u32("depth", 10)?,
        fanout: p.u32("fanout", 2)?,
        inline: p.bool("inline", false)?,
        leaf: p.dist("leaf", 1000.0)?,
        inner: p.dist("inner", 100.0)?,
        lines: p.u32("lines", 0)?,
    };
    t.check()?;
    Ok(if build { Some(tree(&t, seed)?) } else { None })
}
