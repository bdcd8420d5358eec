//! The chili baseline of `bench`: chili versions of the recursive fork-join
//! workloads.
//!
//! chili is the Rust port of Spice, a Zig library for heartbeat scheduling
//! (Acar, Charguéraud, Guatto, Rainey and Sieczkowski, "Heartbeat Scheduling:
//! Provable Efficiency for Nested Parallelism", PLDI 2018): a `join` pushes
//! its first closure on a private queue and runs the second, and only a join
//! that sees the periodic heartbeat (every 100 us by default) shares a job
//! with the other threads. Its only construct is `Scope::join`, so only
//! workloads made of forks have a chili version:
//!
//! | workload | chili version |
//! |---|---|
//! | `fib` | a join per call, as with finegrain and Rayon |
//! | `nqueens` | the free columns of a row split in halves by joins down to one column per task (finegrain and Rayon spawn one task per column into a scope) |
//! | `cilksort` | the same quarter sorts and binary-search-split merges through chili's join, and the result digest by a join over halves down to 512 keys |
//! | `uts` | the children of a node split in halves by joins (as Rayon's `into_par_iter` over them), the bottom levels counted serially |
//!
//! The others (loops, phases, graphs, 2-D loops, and `matmul`/`transpose`,
//! whose joins sit inside the workloads crate's loop kernels) have none.
//!
//! The workloads crate keeps its programs private, so these versions live
//! here and rebuild their input from the instance's `peer_args`, the same
//! `key=value` description from which the C++ peers regenerate it, with the
//! same generators. Every chili run is checked against the serial reference
//! like every other run, so an input that differed would show as a failed
//! check, not as a figure.

use finegrain_workloads::util::SplitMix64;
use finegrain_workloads::Output;
use std::collections::HashMap;

/// A chili program with its input prepared.
pub trait ChiliProgram: Send + Sync {
    /// Run once in `s` (a scope opened on the pool), returning what the
    /// workload's `serial()` returns.
    fn run(&self, s: &mut chili::Scope<'_>) -> Output;
}

/// The chili version of `workload`, with its input built from `peer_args`;
/// `None` if the workload has no chili version.
pub fn program(workload: &str, peer_args: Option<&str>) -> Option<Box<dyn ChiliProgram>> {
    let args = parse(peer_args?);
    let num = |k: &str| -> Option<u64> { args.get(k)?.parse().ok() };
    Some(match workload {
        "fib" => Box::new(Fib { n: num("n")? }),
        "nqueens" => Box::new(NQueens { n: num("n")? as u32, par_depth: num("par_depth")? as u32 }),
        "cilksort" => {
            let mut g = SplitMix64::new(num("seed")?);
            let keys = (0..num("n")?).map(|_| g.next_u64()).collect();
            Box::new(CilkSort { keys, sort_leaf: num("sort_leaf")? as usize, merge_leaf: num("merge_leaf")? as usize })
        }
        "uts" => {
            let b: f64 = args.get("b")?.parse().ok()?;
            Box::new(Uts {
                seed: num("seed")?,
                root: num("root")?,
                depth: num("depth")? as u32,
                serial_levels: num("serial_levels")? as u32,
                ln_q: (b / (1.0 + b)).ln(),
            })
        }
        _ => return None,
    })
}

/// chili's `join` with the roles of `rayon::join` and `finegrain::join`: `a`
/// runs first on this thread and `b` is the job another thread may take.
/// chili's `Scope::join(a, b)` runs `b` first and offers `a` to the
/// heartbeat, so the closures go to it swapped and every runtime walks the
/// recursion in the same order (the order in which it reads memory, too).
fn join<A, B, RA, RB>(s: &mut chili::Scope<'_>, a: A, b: B) -> (RA, RB)
where
    A: FnOnce(&mut chili::Scope<'_>) -> RA + Send,
    B: FnOnce(&mut chili::Scope<'_>) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let (rb, ra) = s.join(b, a);
    (ra, rb)
}

/// `key=value` pairs separated by spaces.
fn parse(args: &str) -> HashMap<&str, &str> {
    args.split_whitespace().filter_map(|kv| kv.split_once('=')).collect()
}

// ---------------------------------------------------------------- fib

struct Fib {
    n: u64,
}

fn fib(s: &mut chili::Scope<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = join(s, |s| fib(s, n - 1), |s| fib(s, n - 2));
    a + b
}

impl ChiliProgram for Fib {
    fn run(&self, s: &mut chili::Scope<'_>) -> Output {
        Output::Int(fib(s, self.n))
    }
}

// ---------------------------------------------------------------- nqueens

struct NQueens {
    n: u32,
    par_depth: u32,
}

/// A partial placement, as in the workloads crate: occupied columns and the
/// squares of the current row attacked along the two diagonals.
#[derive(Copy, Clone)]
struct Board {
    row: u32,
    cols: u32,
    left: u32,
    right: u32,
}

impl Board {
    fn place(self, bit: u32) -> Board {
        Board { row: self.row + 1, cols: self.cols | bit, left: (self.left | bit) << 1, right: (self.right | bit) >> 1 }
    }
}

fn queens_serial(n: u32, b: Board) -> u64 {
    if b.row == n {
        return 1;
    }
    let mut free = ((1u32 << n) - 1) & !(b.cols | b.left | b.right);
    let mut count = 0;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        count += queens_serial(n, b.place(bit));
    }
    count
}

fn queens(s: &mut chili::Scope<'_>, q: &NQueens, b: Board) -> u64 {
    if b.row >= q.par_depth || b.row == q.n {
        return queens_serial(q.n, b);
    }
    let free = ((1u32 << q.n) - 1) & !(b.cols | b.left | b.right);
    let mut next = [b; 32];
    let mut k = 0;
    for c in 0..q.n {
        if free & (1 << c) != 0 {
            next[k] = b.place(1 << c);
            k += 1;
        }
    }
    queens_split(s, q, &next[..k])
}

/// The solutions below each of `boards`, halving the list by joins.
fn queens_split(s: &mut chili::Scope<'_>, q: &NQueens, boards: &[Board]) -> u64 {
    match boards {
        [] => 0,
        [b] => queens(s, q, *b),
        _ => {
            let (l, r) = boards.split_at(boards.len() / 2);
            let (a, b) = join(s, |s| queens_split(s, q, l), |s| queens_split(s, q, r));
            a + b
        }
    }
}

impl ChiliProgram for NQueens {
    fn run(&self, s: &mut chili::Scope<'_>) -> Output {
        Output::Int(queens(s, self, Board { row: 0, cols: 0, left: 0, right: 0 }))
    }
}

// ---------------------------------------------------------------- cilksort

struct CilkSort {
    keys: Vec<u64>,
    sort_leaf: usize,
    merge_leaf: usize,
}

impl CilkSort {
    /// Sort `a` using `tmp` (same length) as scratch: quarters sorted in
    /// parallel, merged pairwise into `tmp`, the halves merged back.
    fn sort(&self, s: &mut chili::Scope<'_>, a: &mut [u64], tmp: &mut [u64]) {
        let n = a.len();
        if n <= self.sort_leaf {
            a.sort_unstable();
            return;
        }
        let q = n / 4;
        let (a01, a23) = a.split_at_mut(2 * q);
        let (a0, a1) = a01.split_at_mut(q);
        let (a2, a3) = a23.split_at_mut(q);
        let (t01, t23) = tmp.split_at_mut(2 * q);
        {
            let (t0, t1) = t01.split_at_mut(q);
            let (t2, t3) = t23.split_at_mut(q);
            join(s, |s| join(s, |s| self.sort(s, a0, t0), |s| self.sort(s, a1, t1)), |s| join(s, |s| self.sort(s, a2, t2), |s| self.sort(s, a3, t3)));
        }
        join(s, |s| self.merge(s, a0, a1, t01), |s| self.merge(s, a2, a3, t23));
        self.merge(s, t01, t23, a);
    }

    /// Merge sorted `x` and `y` into `out`, split at the middle key of the
    /// longer input.
    fn merge(&self, s: &mut chili::Scope<'_>, x: &[u64], y: &[u64], out: &mut [u64]) {
        if x.len() < y.len() {
            return self.merge(s, y, x, out);
        }
        if out.len() <= self.merge_leaf || y.is_empty() {
            merge_serial(x, y, out);
            return;
        }
        let mx = x.len() / 2;
        let my = y.partition_point(|&k| k < x[mx]);
        let (lo, hi) = out.split_at_mut(mx + my);
        join(s, |s| self.merge(s, &x[..mx], &y[..my], lo), |s| self.merge(s, &x[mx..], &y[my..], hi));
    }
}

fn merge_serial(x: &[u64], y: &[u64], out: &mut [u64]) {
    let (mut i, mut j) = (0, 0);
    for o in out.iter_mut() {
        if j == y.len() || (i < x.len() && x[i] <= y[j]) {
            *o = x[i];
            i += 1;
        } else {
            *o = y[j];
            j += 1;
        }
    }
}

/// The workloads crate's order-sensitive digest: the wrapping sum over `i` of
/// `mix(x_i + (i + 1) * G)`, with `mix` the SplitMix64 finalizer and G its
/// increment. `first` is the index of `xs[0]`.
fn digest(s: &mut chili::Scope<'_>, xs: &[u64], first: usize) -> u64 {
    const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;
    if xs.len() <= 512 {
        return xs.iter().enumerate().fold(0u64, |h, (i, &x)| {
            let mut z = x.wrapping_add(((first + i) as u64).wrapping_add(1).wrapping_mul(GOLDEN));
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            h.wrapping_add(z ^ (z >> 31))
        });
    }
    let (l, r) = xs.split_at(xs.len() / 2);
    let (a, b) = join(s, |s| digest(s, l, first), |s| digest(s, r, first + l.len()));
    a.wrapping_add(b)
}

impl ChiliProgram for CilkSort {
    fn run(&self, s: &mut chili::Scope<'_>) -> Output {
        // Copy and scratch inside the run, as the other versions do.
        let mut a = self.keys.clone();
        let mut tmp = vec![0u64; a.len()];
        self.sort(s, &mut a, &mut tmp);
        Output::Digest { len: a.len(), hash: digest(s, &a, 0) }
    }
}

// ---------------------------------------------------------------- uts

/// The workloads crate's geometric tree: a node's state seeds the generator
/// of its children's states; its child count is geometric with mean `b`
/// (`root` at the root, none at depth `depth`).
struct Uts {
    seed: u64,
    root: u64,
    depth: u32,
    serial_levels: u32,
    /// ln(b / (1 + b)).
    ln_q: f64,
}

#[derive(Copy, Clone)]
struct Node {
    state: u64,
    depth: u32,
}

impl Uts {
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

    fn children(&self, n: Node) -> impl Iterator<Item = Node> {
        let mut g = SplitMix64::new(n.state);
        (0..self.num_children(n)).map(move |_| Node { state: g.next_u64(), depth: n.depth + 1 })
    }

    fn count_serial(&self, n: Node) -> u64 {
        1 + self.children(n).map(|c| self.count_serial(c)).sum::<u64>()
    }

    fn count(&self, s: &mut chili::Scope<'_>, n: Node) -> u64 {
        if n.depth + self.serial_levels >= self.depth {
            return self.count_serial(n);
        }
        let kids: Vec<Node> = self.children(n).collect();
        1 + self.count_all(s, &kids)
    }

    /// The nodes below each of `nodes`, halving the list by joins.
    fn count_all(&self, s: &mut chili::Scope<'_>, nodes: &[Node]) -> u64 {
        match nodes {
            [] => 0,
            [n] => self.count(s, *n),
            _ => {
                let (l, r) = nodes.split_at(nodes.len() / 2);
                let (a, b) = join(s, |s| self.count_all(s, l), |s| self.count_all(s, r));
                a + b
            }
        }
    }
}

impl ChiliProgram for Uts {
    fn run(&self, s: &mut chili::Scope<'_>) -> Output {
        let root = Node { state: SplitMix64::new(self.seed).next_u64(), depth: 0 };
        Output::Int(self.count(s, root))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use finegrain_workloads::Size;
    use std::num::NonZeroUsize;

    /// Every workload with a chili version gives the serial reference's
    /// result, at one thread and at two.
    #[test]
    fn chili_versions_match_the_serial_reference() {
        let mut found = Vec::new();
        for t in [1, 2] {
            let pool = chili::ThreadPool::with_config(chili::Config { thread_count: NonZeroUsize::new(t), ..Default::default() });
            for w in finegrain_workloads::all() {
                let inst = w.prepare(Size::Test, 42);
                let Some(p) = program(w.name(), inst.peer_args().as_deref()) else { continue };
                let got = p.run(&mut pool.scope());
                inst.check(&inst.serial(), &got).unwrap_or_else(|e| panic!("{} x{t}: {e}", w.name()));
                found.push(w.name());
            }
        }
        for name in ["fib", "nqueens", "cilksort", "uts"] {
            assert!(found.contains(&name), "{name} has no chili version");
        }
    }
}
