//! The end of a reduction loop (a trace `Loop` with `reduce`: `reduce`,
//! `fold_chunks`), from its last leaf's end to its waiter holding the value,
//! as the runtime's decision `finegrain::policy::reduce::phase_end` picks it:
//!
//! - [`How::Tree`] (the software and Carbon runtimes of Sanchez, Yoo,
//!   Kozyrakis, "Flexible Architectural Support for Fine-Grain Scheduling",
//!   ASPLOS 2010, section 5.2: "tree-based reductions through shared
//!   memory"; the runtime's `phase/reduce.rs`): X10-style termination on one
//!   shared counter, each worker's partial in a line of its own, and a
//!   radix-[`TREE_RADIX`] combining tree. Every line goes through the cache
//!   model: a leaf's store to its worker's slot ([`slot_write`]), the
//!   counter's last decrement, each combiner's reads of its children's lines
//!   and its store of the subtree's value, and the waiter's read of the
//!   result. Subtrees combine in parallel; a combiner reads its children one
//!   after another.
//! - [`How::Piggyback`] (ADM, the same paper, section 4.2): the partials and
//!   the termination ride on the managers' messages; the mechanism says what
//!   that costs (`SimMechanism::piggyback_end`).
//! - [`How::Free`]: the `ideal` scheduler's, no cost (its bound).
//!
//! Deviation, measured in `docs/simulation.md` ("Reductions"): the runtime's
//! `TreeEnd` has the thread that takes the counter to zero read every slot
//! itself (an out-of-order core overlaps those loads); the simulator's cores
//! do not overlap misses, so it combines through the paper's parallel tree,
//! whose depth is logarithmic. The other workers' time in the tree is not
//! charged to them (they are idle at the loop's end in every policy).

use super::context::Ctx;
use finegrain::policy::reduce::{phase_end, PhaseEnd, ReduceMethod, TREE_RADIX};

/// How a reduction loop ends under the simulated policy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum How {
    Tree,
    Piggyback,
    Free,
}

/// The simulated policy's way (`phase_end` with the default method):
/// `ideal` combines for free, the static baseline through the tree.
pub(crate) fn how(cx: &Ctx<'_>, ideal: bool) -> How {
    match &cx.policy {
        _ if ideal => How::Free,
        Some(p) => match phase_end(p.mechanism(), Some(ReduceMethod::Auto)) {
            PhaseEnd::Piggyback => How::Piggyback,
            PhaseEnd::Tree | PhaseEnd::Counter => How::Tree,
        },
        None => How::Tree,
    }
}

/// The lines of the tree's state, apart from every other scheduler line.
const BASE: u64 = 3 << 40;
const COUNTER_LINE: u64 = BASE + (2 << 20);

/// Worker `w`'s partial (cache-padded: a line of its own).
fn slot_line(w: usize) -> u64 {
    BASE + w as u64
}

/// The value of the subtree whose combiner is `w`.
fn sum_line(w: usize) -> u64 {
    BASE + (1 << 20) + w as u64
}

/// A leaf of a tree-reduced loop ended on `w` at `t`: its value folded into
/// `w`'s slot; the cycles `w` spends.
pub(crate) fn slot_write(cx: &mut Ctx<'_>, w: usize, t: u64) -> u64 {
    cx.sched_access(w, slot_line(w), true, t)
}

/// The last leaf ended on `from` at `t`: cycles until the waiter `to` holds
/// the combined value.
pub(crate) fn tree(cx: &mut Ctx<'_>, from: usize, to: usize, t: u64) -> u64 {
    // The decrement that takes the counter to zero.
    let zero = t + cx.sched_access(from, COUNTER_LINE, true, t);
    let done = combine(cx, 0, cx.n, zero);
    // The waiter reads the root's value.
    done + cx.sched_access(to, sum_line(0), false, done) - t
}

/// Combine the partials of workers `lo..hi` once the counter reached zero at
/// `zero`: returns when worker `lo` has stored the subtree's value.
fn combine(cx: &mut Ctx<'_>, lo: usize, hi: usize, zero: u64) -> u64 {
    if hi - lo <= TREE_RADIX {
        // The combiner sees the counter at zero, then reads its leaves.
        let mut at = zero + cx.sched_access(lo, COUNTER_LINE, false, zero);
        for i in lo + 1..hi {
            at += cx.sched_access(lo, slot_line(i), false, at);
        }
        return at + cx.sched_access(lo, sum_line(lo), true, at);
    }
    let step = (hi - lo).div_ceil(TREE_RADIX);
    let mut at = combine(cx, lo, lo + step, zero);
    let mut c = lo + step;
    while c < hi {
        let ready = combine(cx, c, (c + step).min(hi), zero);
        at = at.max(ready);
        at += cx.sched_access(lo, sum_line(c), false, at);
        c += step;
    }
    at + cx.sched_access(lo, sum_line(lo), true, at)
}
