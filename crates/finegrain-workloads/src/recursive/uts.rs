//! uts: count the nodes of an unbalanced tree generated on the fly.
//!
//! Like UTS's geometric trees (Olivier et al., LCPC'06; T1 is geometric with
//! mean branching 4 and depth limit 10), every node carries a 64-bit state
//! from which its child count and its children's states are derived by
//! hashing, so the tree is the same however it is traversed. SplitMix64 stands
//! in for UTS's SHA-1: the children of a node with state s are the first
//! outputs of `SplitMix64::new(s)`, and its child count is geometric with mean
//! `b`, from the uniform number u made of the top 53 bits of s:
//! `floor(ln(1 - u) / ln(b / (1 + b)))`. Nodes at depth `depth` are leaves.
//! The root gets exactly `root` children: with a geometric root a fifth of all
//! seeds would give a one-node tree, and many root subtrees make the size
//! predictable (about `root * b^depth / 3` for b = 4) while each subtree stays
//! as lopsided as UTS's.
//!
//! The parallel version expands the tree as a dynamic task phase, one task per
//! node, each task a 16-byte `(state, depth)` descriptor; the bottom
//! `SERIAL_LEVELS` levels of each subtree are counted serially inside one task.

use crate::support::rng::SplitMix64;
use crate::{Instance, Output, Size, Workload};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

pub struct Uts;

/// Levels at the bottom of the tree counted inside one task: about
/// 1 + 4 + 16 = 21 nodes for b = 4, some 1500 instructions.
const SERIAL_LEVELS: u32 = 2;

impl Workload for Uts {
    fn name(&self) -> &'static str {
        "uts"
    }
    fn description(&self) -> &'static str {
        "node count of an unbalanced tree with geometric branching (UTS T1-like), expanded as a task phase"
    }
    fn source(&self) -> &'static str {
        "Cheng et al. (ASPLOS 2023), section 5.3 and Table 1 (UTS, T1-style geometric tree; Olivier et al., LCPC 2006)"
    }
    fn api(&self) -> &'static str {
        "phase"
    }
    fn paper_size(&self) -> bool {
        true
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (root, depth) = match size {
            Size::Test => (16, 6),
            Size::Small => (64, 8),
            Size::Full => (128, 10),
            Size::Paper => (64, 10),
        };
        Box::new(UtsInstance { tree: Tree::new(seed, 4.0, root, depth) })
    }
}

/// The tree's shape parameters; nodes are `(state, depth)` pairs.
#[derive(Copy, Clone)]
struct Tree {
    seed: u64,
    branching: f64,
    root: u64,
    depth: u32,
    /// ln(b / (1 + b)), the denominator of the geometric draw.
    ln_q: f64,
}

#[derive(Copy, Clone)]
struct Node {
    state: u64,
    depth: u32,
}
finegrain::phase_task!(Node);

impl Tree {
    fn new(seed: u64, branching: f64, root: u64, depth: u32) -> Tree {
        Tree { seed, branching, root, depth, ln_q: (branching / (1.0 + branching)).ln() }
    }

    fn root_node(&self) -> Node {
        Node { state: SplitMix64::new(self.seed).next_u64(), depth: 0 }
    }

    #[inline]
    fn num_children(&self, n: Node) -> u64 {
        if n.depth >= self.depth {
            0
        } else if n.depth == 0 {
            self.root
        } else {
            let u = (n.state >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
            ((1.0 - u).ln() / self.ln_q).floor() as u64
        }
    }

    /// Call `f` on each child of `n`.
    #[inline]
    fn for_children(&self, n: Node, mut f: impl FnMut(Node)) {
        let mut g = SplitMix64::new(n.state);
        for _ in 0..self.num_children(n) {
            f(Node { state: g.next_u64(), depth: n.depth + 1 });
        }
    }

    fn count_serial(&self, n: Node) -> u64 {
        let mut total = 1;
        self.for_children(n, |c| total += self.count_serial(c));
        total
    }

    /// Whether `n`'s subtree is small enough to count inside one task.
    #[inline]
    fn is_bottom(&self, n: Node) -> bool {
        n.depth + SERIAL_LEVELS >= self.depth
    }

    fn count_rayon(&self, n: Node) -> u64 {
        if self.is_bottom(n) {
            return self.count_serial(n);
        }
        let states: Vec<u64> = {
            let mut g = SplitMix64::new(n.state);
            (0..self.num_children(n)).map(|_| g.next_u64()).collect()
        };
        1 + states.into_par_iter().map(|s| self.count_rayon(Node { state: s, depth: n.depth + 1 })).sum::<u64>()
    }
}

/// One counter per worker, on its own cache line, so counting is not a
/// contended atomic.
#[repr(align(128))]
#[derive(Default)]
struct Counter(AtomicU64);

struct UtsInstance {
    tree: Tree,
}

impl Instance for UtsInstance {
    fn describe(&self) -> String {
        let t = &self.tree;
        format!("b={} depth={} root={} seed={}", t.branching, t.depth, t.root, t.seed)
    }
    fn serial(&self) -> Output {
        Output::Int(self.tree.count_serial(self.tree.root_node()))
    }
    fn parallel(&self) -> Output {
        let tree = self.tree;
        let counters: Vec<Counter> = (0..finegrain::current_num_threads()).map(|_| Counter::default()).collect();
        finegrain::record::region(|| {
            finegrain::phase([tree.root_node()], |ctx, n: Node| {
                let found = if tree.is_bottom(n) {
                    tree.count_serial(n)
                } else {
                    tree.for_children(n, |c| ctx.enqueue(c));
                    1
                };
                let w = finegrain::current_worker_index().unwrap_or(0) % counters.len();
                // Otherwise pure computation (the tree is a hash of its seed).
                finegrain::record::write(std::slice::from_ref(&counters[w]));
                counters[w].0.fetch_add(found, Ordering::Relaxed);
            });
        });
        Output::Int(counters.iter().map(|c| c.0.load(Ordering::Relaxed)).sum())
    }
    fn rayon(&self) -> Option<Output> {
        Some(Output::Int(self.tree.count_rayon(self.tree.root_node())))
    }
    fn peer_args(&self) -> Option<String> {
        let t = &self.tree;
        Some(format!("b={} depth={} root={} seed={} serial_levels={SERIAL_LEVELS}", t.branching, t.depth, t.root, t.seed))
    }
}
