//! The workloads of the fork-join comparisons, written once and shared by the
//! divan benchmarks (`benches/overhead.rs`), the interleaved runner
//! (`src/bin/overhead.rs`), the callgrind driver (`src/bin/spawn_cost.rs`) and
//! the small fib programs (`fibtest`, `fib_policy`), so all of them time
//! exactly the same code.
//!
//! Every fork-join workload comes in the same shape five ways: serial, through
//! [`seq_join`] (the fork-join shape with no runtime), with `finegrain::join`,
//! with `rayon::join`, and with chili's `Scope::join` (chili is the Rust port
//! of Spice's heartbeat scheduling). The loop sum has serial, finegrain
//! (`reduce`) and Rayon (`par_iter`) versions; chili has no loop construct.
//! The finegrain and Rayon versions run on whatever pool is current, so
//! callers choose the threads by installing them in a pool built beforehand;
//! the chili versions run on the scope they are given.
//!
//! The serial references (and [`seq_join`]'s versions) are `#[inline]`, so each
//! program compiles its own copy, as it did when this file was a module of
//! each program: compiled once in this library, the serial fib executed about
//! one instruction more per call, which moved every spawn cost computed
//! against it. The runtime versions are not: with the hint, the compiler made
//! `fib_finegrain` rather than finegrain's `join` the recursive function, which
//! without the `stats` feature cost eight instructions more per spawn.

use chili::Scope;
use rayon::prelude::*;

// ---------------------------------------------------------------- fib

/// Joins performed by `fib(n)` with a join at every call with `n >= 2`: the
/// call tree has F(n+1) leaves and one join per internal node, F(n+1) - 1.
pub fn fib_joins(n: u64) -> u64 {
    let (mut a, mut b) = (0u64, 1u64); // F(0), F(1)
    for _ in 0..n + 1 {
        (a, b) = (b, a + b);
    }
    a - 1 // a = F(n+1)
}

/// The baseline: plain recursion, as a user would write it. LLVM may turn one
/// of the two calls into a loop; serial code in the wild gets that too, so
/// Tserial is the honest cost of not parallelising.
#[inline]
pub fn fib_serial(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_serial(n - 1) + fib_serial(n - 2)
}

pub fn fib_finegrain(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = finegrain::join(move || fib_finegrain(n - 1), move || fib_finegrain(n - 2));
    a + b
}

/// fib through finegrain's spawn/sync ([`finegrain::task_group`]): a group
/// per call, one half spawned, the other run inline, then a wait. The shape
/// of Cilk's spawn/sync and of the C API's `fg_spawn`/`fg_sync` fib
/// (`crates/finegrain-c/examples/fib.c`), so the two can be compared.
pub fn fib_group(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut a = 0;
    let b = finegrain::task_group(|g| {
        g.spawn(|| a = fib_group(n - 1));
        let b = fib_group(n - 2);
        g.wait();
        b
    });
    a + b
}

/// [`fib_group`]'s shape through Rayon's `scope` and `spawn`.
pub fn fib_rayon_scope(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut a = 0;
    let b = rayon::scope(|s| {
        s.spawn(|_| a = fib_rayon_scope(n - 1));
        fib_rayon_scope(n - 2)
    });
    a + b
}

/// fib through [`seq_join`]: the shape of a fork-join program with no runtime.
#[inline]
pub fn fib_seq_join(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = seq_join(move || fib_seq_join(n - 1), move || fib_seq_join(n - 2));
    a + b
}

pub fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(move || fib_rayon(n - 1), move || fib_rayon(n - 2));
    a + b
}

/// fib through chili's `join` (by way of [`chili_join`]), as in chili's own
/// benchmarks: the scope is threaded through the recursion.
pub fn fib_chili(s: &mut Scope<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = chili_join(s, move |s| fib_chili(s, n - 1), move |s| fib_chili(s, n - 2));
    a + b
}

/// chili's `join` with the roles of `rayon::join` and `finegrain::join`: `a`
/// runs first, on this thread, and `b` is the job another thread may take.
/// chili's own `Scope::join(a, b)` runs `b` first and offers `a` to the
/// heartbeat, so the kernels pass the closures to it swapped: the three
/// runtimes then walk the same recursion in the same order. The order
/// matters beyond the scheduler: the tree sum's arena is in preorder, and a
/// walk that takes right subtrees first reads it backwards, which (see
/// docs/benchmarks.md) cost chili several times its join cost.
#[inline]
pub fn chili_join<A, B, RA, RB>(s: &mut Scope<'_>, a: A, b: B) -> (RA, RB)
where
    A: FnOnce(&mut Scope<'_>) -> RA + Send,
    B: FnOnce(&mut Scope<'_>) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let (rb, ra) = s.join(b, a);
    (ra, rb)
}

/// `join` with no runtime: `a`, then `b`, on this thread. It separates what a
/// fork-join program costs by its shape from what the runtime adds. The
/// serial program can beat this shape: there the compiler turns one of the
/// two recursive calls into a loop, which a `join` between them prevents
/// (figures in docs/benchmarks.md). Not inlined, like
/// finegrain's `join` in a recursion: the compiler then keeps it as the
/// recursive function with the closures inlined into it.
#[inline(never)]
pub fn seq_join<A: FnOnce() -> RA, B: FnOnce() -> RB, RA, RB>(a: A, b: B) -> (RA, RB) {
    (a(), b())
}

// ---------------------------------------------------------------- tree sum

/// Default node count for the tree sum: 10^8, the size the README's numbers use
/// (about 1.6 GB). `FG_TREE_NODES` overrides it for small machines and CI.
pub const TREE_NODES_DEFAULT: usize = 100_000_000;

/// `FG_TREE_NODES` if set (underscores allowed: `1_000_000`), else `default`.
pub fn tree_nodes_from_env(default: usize) -> usize {
    match std::env::var("FG_TREE_NODES") {
        Ok(s) => s.replace('_', "").parse().unwrap_or_else(|_| panic!("FG_TREE_NODES={s:?} is not a node count")),
        Err(_) => default,
    }
}

/// No child. Index 0 is always the root, so it could never be a child either,
/// but a sentinel that is out of range fails loudly if misused.
const NONE: u32 = u32::MAX;

/// 16 bytes, so 10^8 nodes take 1.6 GB. Children are `u32` arena indices
/// rather than pointers or boxes: half the size, and one allocation instead of
/// 10^8, which keeps construction quick. The traversal still
/// chases a child index per node, like the pointer-based tree in Spice's and
/// chili's tree-sum benchmark this mirrors.
#[derive(Clone, Copy)]
pub struct Node {
    value: u64,
    left: u32,
    right: u32,
}

/// A complete binary tree (every level full except the last, filled from the
/// left) stored in preorder, so a depth-first walk reads the arena front to
/// back. The complete shape makes the join count exact: a join at every node
/// with two children, and a binary tree has one such node fewer than leaves.
pub struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    /// `n` nodes (at least 1). Node values are their heap (level-order) index,
    /// so the sum is known in closed form and every run can be checked.
    pub fn new(n: usize) -> Tree {
        assert!(n >= 1 && n < NONE as usize, "tree size {n} out of range");
        let mut nodes = Vec::with_capacity(n);
        build(&mut nodes, 0, n);
        debug_assert_eq!(nodes.len(), n);
        Tree { nodes }
    }

    /// Nodes with two children: in a complete tree with n nodes, floor(n/2)
    /// have a child and at most one of those has only a left one, so this is
    /// floor((n - 1) / 2).
    pub fn joins(&self) -> u64 {
        (self.nodes.len() as u64 - 1) / 2
    }

    /// Sum of 0..n.
    pub fn expected_sum(&self) -> u64 {
        let n = self.nodes.len() as u64;
        n * (n - 1) / 2
    }

    #[inline]
    pub fn sum_serial(&self) -> u64 {
        sum_serial(&self.nodes, 0)
    }

    pub fn sum_finegrain(&self) -> u64 {
        sum_finegrain(&self.nodes, 0)
    }

    pub fn sum_rayon(&self) -> u64 {
        sum_rayon(&self.nodes, 0)
    }

    #[inline]
    pub fn sum_seq_join(&self) -> u64 {
        sum_seq_join(&self.nodes, 0)
    }

    pub fn sum_chili(&self, s: &mut Scope<'_>) -> u64 {
        sum_chili(s, &self.nodes, 0)
    }
}

/// Preorder placement of the subtree rooted at heap index `h` of a complete
/// tree with `n` nodes (children of `h` are `2h+1` and `2h+2`). Depth is
/// log2(n), 27 for 10^8, so recursion is safe.
fn build(nodes: &mut Vec<Node>, h: usize, n: usize) -> u32 {
    let at = nodes.len();
    nodes.push(Node { value: h as u64, left: NONE, right: NONE });
    if 2 * h + 1 < n {
        nodes[at].left = build(nodes, 2 * h + 1, n);
    }
    if 2 * h + 2 < n {
        nodes[at].right = build(nodes, 2 * h + 2, n);
    }
    at as u32
}

// In a complete tree a node with a right child always has a left one, so the
// three cases are: two children (fork), left only, leaf.

#[inline]
fn sum_serial(t: &[Node], i: u32) -> u64 {
    let n = t[i as usize];
    if n.right != NONE {
        n.value + sum_serial(t, n.left) + sum_serial(t, n.right)
    } else if n.left != NONE {
        n.value + sum_serial(t, n.left)
    } else {
        n.value
    }
}

fn sum_finegrain(t: &[Node], i: u32) -> u64 {
    let n = t[i as usize];
    if n.right != NONE {
        let (a, b) = finegrain::join(move || sum_finegrain(t, n.left), move || sum_finegrain(t, n.right));
        n.value + a + b
    } else if n.left != NONE {
        n.value + sum_finegrain(t, n.left)
    } else {
        n.value
    }
}

#[inline]
fn sum_seq_join(t: &[Node], i: u32) -> u64 {
    let n = t[i as usize];
    if n.right != NONE {
        let (a, b) = seq_join(move || sum_seq_join(t, n.left), move || sum_seq_join(t, n.right));
        n.value + a + b
    } else if n.left != NONE {
        n.value + sum_seq_join(t, n.left)
    } else {
        n.value
    }
}

fn sum_rayon(t: &[Node], i: u32) -> u64 {
    let n = t[i as usize];
    if n.right != NONE {
        let (a, b) = rayon::join(move || sum_rayon(t, n.left), move || sum_rayon(t, n.right));
        n.value + a + b
    } else if n.left != NONE {
        n.value + sum_rayon(t, n.left)
    } else {
        n.value
    }
}

fn sum_chili(s: &mut Scope<'_>, t: &[Node], i: u32) -> u64 {
    let n = t[i as usize];
    if n.right != NONE {
        let (a, b) = chili_join(s, move |s| sum_chili(s, t, n.left), move |s| sum_chili(s, t, n.right));
        n.value + a + b
    } else if n.left != NONE {
        n.value + sum_chili(s, t, n.left)
    } else {
        n.value
    }
}

// ---------------------------------------------------------------- loop sum

/// Elements in the loop benchmark.
pub const LOOP_LEN_DEFAULT: usize = 10_000_000;

/// Small integers stored as f64: every partial sum is an integer below 2^53,
/// so the sum is exact in any association order and the serial, finegrain and
/// Rayon results can be compared with `==` despite splitting differently.
pub fn loop_data(n: usize) -> Vec<f64> {
    (0..n).map(|i| (i % 1024) as f64).collect()
}

#[inline]
pub fn loop_sum_serial(v: &[f64]) -> f64 {
    v.iter().sum()
}

pub fn loop_sum_finegrain(v: &[f64]) -> f64 {
    finegrain::reduce(0..v.len(), || 0.0, |i| v[i], |a, b| a + b)
}

pub fn loop_sum_rayon(v: &[f64]) -> f64 {
    v.par_iter().sum()
}
