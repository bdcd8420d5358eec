//! `pdf`: parallel depth-first scheduling (Liaskovitis et al., "Parallel
//! Depth First vs. Work Stealing Schedulers on CMP Architectures", SPAA 2006;
//! Blelloch, Gibbons, Matias, "Provably Efficient Scheduling for Languages
//! with Fine-Grained Parallelism", JACM 1999; Yoo, "Locality-Aware Task
//! Management on Many-Core Processors", Stanford PhD thesis 2012, section
//! 4.4.2). Every ready task sits in one central queue ordered by the position
//! it has in the sequential (one-thread, depth-first) execution, and a worker
//! that needs work takes the ready task that execution would have started
//! earliest.
//!
//! ## Positions
//!
//! A running piece of code is at a [`SerialPath`]: a *frame* (the sequence of
//! choices from the root that led to the task it runs in) and a *counter*
//! (how far that task has got). The rules, with `c` the counter:
//! - `join(a, b)`: `a` runs in frame `frame ++ [c]`, `b` in `frame ++ [c+1]`,
//!   and the caller continues at counter `c + 2`;
//! - a spawn (scope, phase task): the task runs in frame `frame ++ [c]`, the
//!   spawner continues at `c + 1`;
//! - a graph node `i` of a graph run at `p`: frame `p.frame ++ [c, i]`
//!   ([`SerialPath::node`]).
//!
//! A task's key is its frame. Frames compare as sequences of integers,
//! lexicographically, a prefix first: everything a task starts has its frame
//! as a prefix and sorts after it but before the next sibling, which is the
//! order in which a one-thread depth-first execution starts tasks. Width only
//! grows a counter and nesting adds one component, so the key is exact at any
//! depth and width (the previous 127-bit path gave one bit per spawn and tied
//! beyond it).
//!
//! ## Encoding
//!
//! Each component `v` is written as an Elias-gamma code of `v + 1` (`L - 1`
//! ones, a zero, the low `L - 1` bits of `v + 1`, where `L` is its bit
//! length): prefix-free, and ordered like the integers. So comparing two
//! frames is comparing their bit strings, left-aligned and zero-padded, the
//! shorter first on a tie. The first 128 bits live inline (a fib tree of
//! depth 60 fits); longer strings spill into a shared, immutable word array
//! that is copied on extension, so only deep paths allocate.
//!
//! This file holds the decisions (positions and their order); `unit/`
//! carries them out and the simulator calls the same functions.

use super::locality::steal::Stealing;
use super::{Idle, OptionInfo, Order, Policy, PolicyInfo, PolicyKind, Registration, Spec, UnitPolicy, SPIN};
use crate::error::Error;
use std::cmp::Ordering;
use std::sync::Arc;

/// A position in the one-thread depth-first order: a bit string compared
/// lexicographically, a proper prefix first (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq, Default, Hash)]
pub struct Position {
    /// The first 128 bits, left-aligned, zero-padded.
    head: u128,
    /// Bits 128.., 128 to a word, left-aligned, zero-padded (`None`: none).
    tail: Option<Arc<[u128]>>,
    /// Bits in use.
    len: u32,
}

impl Position {
    /// Bits in use.
    pub fn bits(&self) -> u32 {
        self.len
    }

    /// Does this position keep bits out of line (allocated)?
    pub fn spilled(&self) -> bool {
        self.tail.is_some()
    }

    fn word(&self, i: usize) -> u128 {
        if i == 0 {
            self.head
        } else {
            self.tail.as_ref().and_then(|t| t.get(i - 1).copied()).unwrap_or(0)
        }
    }

    /// This position with the `k` low bits of `v` appended (`k <= 64`).
    fn append(&self, v: u64, k: u32) -> Position {
        debug_assert!(k <= 64 && (k == 64 || v >> k == 0));
        let len = self.len + k;
        if len <= 128 {
            let head = if k == 0 { self.head } else { self.head | ((v as u128) << (128 - len)) };
            return Position { head, tail: None, len };
        }
        let words = (len as usize).div_ceil(128);
        let mut w: Vec<u128> = (0..words).map(|i| self.word(i)).collect();
        for j in 0..k {
            if (v >> (k - 1 - j)) & 1 == 1 {
                let at = (self.len + j) as usize;
                w[at / 128] |= 1u128 << (127 - at % 128);
            }
        }
        Position { head: w[0], tail: Some(w[1..].into()), len }
    }

    /// This position with component `c` appended (its Elias-gamma code).
    pub fn push(&self, c: u64) -> Position {
        let x = c as u128 + 1;
        let l = 128 - x.leading_zeros();
        let low = x - (1u128 << (l - 1));
        if 2 * l - 1 <= 64 {
            let ones = ((1u128 << (l - 1)) - 1) << l;
            return self.append((ones | low) as u64, 2 * l - 1);
        }
        // Counters past 2^32: the ones, the zero, then the low bits.
        let k = l - 1;
        self.append(u64::MAX >> (64 - k), k).append(0, 1).append(low as u64, k)
    }
}

impl Ord for Position {
    fn cmp(&self, other: &Self) -> Ordering {
        self.head.cmp(&other.head).then_with(|| {
            let n = self.tail.as_ref().map_or(0, |t| t.len()).max(other.tail.as_ref().map_or(0, |t| t.len()));
            (1..=n).map(|i| self.word(i).cmp(&other.word(i))).find(|o| o.is_ne()).unwrap_or(Ordering::Equal).then(self.len.cmp(&other.len))
        })
    }
}

impl PartialOrd for Position {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Where the code running now is in the serial order: the frame of its task
/// and how far the task has got (see the module doc).
///
/// The rules that place work in serial order are [`SerialPath::join`],
/// [`SerialPath::spawn`] and [`SerialPath::node`]; every mechanism and the
/// simulator use them.
#[derive(Clone, Debug, PartialEq, Eq, Default, Hash)]
pub struct SerialPath {
    frame: Position,
    counter: u64,
}

/// Where the two halves of a `join` run, and where the caller continues.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JoinPaths {
    /// `a`, run inline first.
    pub a: SerialPath,
    /// `b`, queued.
    pub b: SerialPath,
    /// The caller, once both are done.
    pub after: SerialPath,
}

/// Where a spawned task runs, and where its spawner continues.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpawnPaths {
    /// The spawned task: the serial program would start it next.
    pub task: SerialPath,
    /// The rest of the spawner's code.
    pub rest: SerialPath,
}

impl SerialPath {
    fn enter(&self, c: u64) -> SerialPath {
        SerialPath { frame: self.frame.push(c), counter: 0 }
    }

    fn at(&self, counter: u64) -> SerialPath {
        SerialPath { frame: self.frame.clone(), counter }
    }

    /// The sort key of a task that starts here: its frame.
    #[inline]
    pub fn key(&self) -> &Position {
        &self.frame
    }

    /// `join(a, b)` here (see the module doc).
    #[inline]
    pub fn join(&self) -> JoinPaths {
        let c = self.counter;
        JoinPaths { a: self.enter(c), b: self.enter(c + 1), after: self.at(c + 2) }
    }

    /// A spawn here: the task first, then the rest of the spawner.
    #[inline]
    pub fn spawn(&self) -> SpawnPaths {
        SpawnPaths { task: self.enter(self.counter), rest: self.at(self.counter + 1) }
    }

    /// Node `i` of a task graph run here: the serial program runs the nodes
    /// in index order (creation order), each ready node as early as its
    /// predecessors allow. Call [`SerialPath::after_graph`] for where the
    /// caller continues.
    pub fn node(&self, i: u64) -> SerialPath {
        SerialPath { frame: self.frame.push(self.counter).push(i), counter: 0 }
    }

    /// Where the code that ran a graph at this position continues.
    pub fn after_graph(&self) -> SerialPath {
        self.at(self.counter + 1)
    }
}

const OPTIONS: &[OptionInfo] = &[SPIN];

pub(crate) static REGISTRATION: Registration = Registration {
    info: PolicyInfo {
        name: "pdf",
        summary: "parallel depth-first: one queue, the task earliest in serial order first",
        source: "Liaskovitis et al., Parallel Depth First vs. Work Stealing Schedulers on CMP Architectures, SPAA 2006; Yoo, PhD thesis, Stanford 2012, section 4.4.2",
        options: OPTIONS,
    },
    build,
    value: |p, option| p.common_value(option),
};

fn build(spec: &mut Spec<'_>) -> Result<Policy, Error> {
    let spin = spec.int("spin", 0, 100_000, 64)? as u32;
    Ok(Policy {
        name: "pdf",
        kind: PolicyKind::Unit(UnitPolicy::Pdf),
        order: Order::Lifo,
        idle: Idle::with_spin(spin),
        space_steal: Stealing::Baseline,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A serial reference: the frames of a tree of joins and spawns, listed
    /// in the order a one-thread depth-first run starts them.
    fn tree(p: &SerialPath, depth: u32, width: u64, out: &mut Vec<Position>) {
        out.push(p.key().clone());
        if depth == 0 {
            return;
        }
        let mut here = p.clone();
        for _ in 0..width {
            let s = here.spawn();
            tree(&s.task, depth - 1, width, out);
            here = s.rest;
        }
        let j = here.join();
        tree(&j.a, depth - 1, 1, out);
        tree(&j.b, depth - 1, 1, out);
    }

    #[test]
    fn frames_sort_in_serial_order_at_any_depth_and_width() {
        for (depth, width) in [(2, 300), (12, 0), (5, 3)] {
            let mut v = Vec::new();
            tree(&SerialPath::default(), depth, width, &mut v);
            assert!(v.windows(2).all(|w| w[0] < w[1]), "depth {depth}, width {width}: not strictly increasing");
            let mut s = v.clone();
            s.reverse();
            s.sort();
            assert_eq!(s, v);
        }
    }

    #[test]
    fn deep_paths_spill_and_still_order() {
        let mut p = SerialPath::default();
        let mut prev = p.key().clone();
        for d in 0..400 {
            let j = p.join();
            assert!(j.a.key() > &prev && j.a.key() < j.b.key(), "depth {d}");
            prev = j.a.key().clone();
            p = if d % 2 == 0 { j.a } else { j.b };
        }
        assert!(p.key().spilled() && p.key().bits() > 400);
    }

    #[test]
    fn counters_order_like_integers() {
        let root = Position::default();
        let cs = [0u64, 1, 2, 3, 7, 8, 1000, (1 << 31) - 1, 1 << 32, (1 << 40) + 5, u64::MAX - 2, u64::MAX - 1];
        for w in cs.windows(2) {
            assert!(root.push(w[0]) < root.push(w[1]), "{} < {}", w[0], w[1]);
            assert!(root.push(w[0]).push(u64::MAX - 1) < root.push(w[1]));
        }
        // A prefix sorts first.
        assert!(root.push(5) < root.push(5).push(0));
    }

    #[test]
    fn graph_nodes_by_index_after_earlier_work() {
        let p = SerialPath::default();
        let s = p.spawn();
        let g = s.rest.clone();
        assert!(s.task.key() < g.node(0).key() && g.node(0).key() < g.node(1).key() && g.node(1).key() < g.node(500).key());
        assert!(g.node(500).key() < g.after_graph().spawn().task.key());
    }
}
