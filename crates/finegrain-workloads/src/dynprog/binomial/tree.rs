//! `binomial`: one American option priced on a binomial lattice as a task
//! tree, the BT of Kumar, Hughes, Nguyen, "Carbon: architectural support for
//! fine-grained parallelism on chip multiprocessors", ISCA 2007, section 5.3
//! ("BT uses a 1D binomial tree to price a single option. The task
//! dependences form a tree, where work starts at the leaves") and Table 2
//! (trees of depth 512 and 2048).
//!
//! Node `(level, j)` of the lattice depends on `(level + 1, j)` and
//! `(level + 1, j + 1)`. In the coordinates `j` (up moves) and
//! `k = level - j` (down moves) those are `(j, k + 1)` and `(j + 1, k)`, so
//! the lattice is the triangle `j + k <= steps` with dependences pointing to
//! larger coordinates. Cutting it into `W x W` tiles gives tile `(J, K)`
//! two predecessors, `(J, K + 1)` and `(J + 1, K)`: the tiles form a coarser
//! binomial lattice whose leaves are the tiles on the expiry level and whose
//! root is the tile holding the option's price, and that is the dataflow
//! graph (`finegrain::Graph`, one node per tile; with Rayon, a counter per
//! tile, and the task finishing a tile's last predecessor spawns it).
//!
//! A tile is `W * W = 256` node updates (fewer on the diagonal edge), each a
//! multiply-add pair, an exercise value and a max: some 3-4 K instructions.
//!
//! Storage: `column[j]` holds column `j`'s latest value, as the serial
//! reference's single array does, and is only touched by the tiles of one
//! column, which the graph orders; each tile also keeps its first column's
//! values, which the tile to its left reads. Every node is computed by
//! `Lattice::node` from the same two values as in the serial reference, so
//! the price is bit-identical to it.
//!
//! Deviation: the paper's sizes (512 and 2048 steps) take milliseconds here,
//! so `test` and `small` are the paper's two trees and `full` is deeper.

use super::lattice::{Contract, Lattice};
use crate::{Instance, Output, Size, Workload};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Tile side, in lattice nodes.
const W: usize = 16;

pub struct Binomial;

impl Workload for Binomial {
    fn name(&self) -> &'static str {
        "binomial"
    }
    fn description(&self) -> &'static str {
        "one American put priced on a Cox-Ross-Rubinstein binomial lattice; parallel: a dataflow graph of 16x16-node tiles from the leaves to the root"
    }
    fn source(&self) -> &'static str {
        "Kumar et al. (Carbon, ISCA 2007), section 5.3 (BT, Table 2)"
    }
    fn api(&self) -> &'static str {
        "graph"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let steps = match size {
            Size::Test => 512,
            Size::Small => 2048,
            Size::Full => 16384,
        };
        let mut rng = crate::support::rng::SplitMix64::new(seed ^ 0x6274_7472_6565);
        let contract = Contract {
            spot: 80.0 + 40.0 * rng.unit(),
            strike: 100.0,
            rate: 0.01 + 0.05 * rng.unit(),
            volatility: 0.1 + 0.4 * rng.unit(),
            years: 0.5 + 1.5 * rng.unit(),
            steps,
            put: true,
        };
        Box::new(TreeInstance { contract })
    }
}

struct TreeInstance {
    contract: Contract,
}

impl Instance for TreeInstance {
    fn describe(&self) -> String {
        let c = &self.contract;
        let tiles = Tiles::new(c.steps).count;
        format!("{} steps, {} nodes, {tiles} tiles of {W}x{W}", c.steps, (c.steps + 1) * (c.steps + 2) / 2)
    }
    fn serial(&self) -> Output {
        Output::Float(Lattice::new(&self.contract).price_serial())
    }
    fn parallel(&self) -> Output {
        Output::Float(graph(&Lattice::new(&self.contract)))
    }
    fn rayon(&self) -> Option<Output> {
        Some(Output::Float(rayon(&Lattice::new(&self.contract))))
    }
}

/// Which tiles exist: tile `(J, K)` holds the nodes `j` in `J*W..(J+1)*W`,
/// `k` in `K*W..(K+1)*W` with `j + k <= steps`, so it exists while
/// `(J + K) * W <= steps`. Row `J` of tiles is numbered from `first[J]`.
struct Tiles {
    steps: usize,
    first: Vec<usize>,
    count: usize,
}

impl Tiles {
    fn new(steps: usize) -> Tiles {
        let rows = steps / W + 1;
        let mut first = Vec::with_capacity(rows + 1);
        let mut count = 0;
        for j in 0..rows {
            first.push(count);
            count += (steps - j * W) / W + 1;
        }
        first.push(count);
        Tiles { steps, first, count }
    }

    fn exists(&self, jt: usize, kt: usize) -> bool {
        (jt + kt) * W <= self.steps
    }

    fn id(&self, jt: usize, kt: usize) -> usize {
        self.first[jt] + kt
    }

    /// Every tile as `(J, K)`.
    fn all(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.first.len() - 1).flat_map(move |jt| (0..self.first[jt + 1] - self.first[jt]).map(move |kt| (jt, kt)))
    }
}

/// `f64`s shared by the tile tasks; the graph's (or counters') release and
/// acquire on completion order a tile's writes before its successors' reads,
/// so relaxed accesses suffice.
struct Cells(Vec<AtomicU64>);

impl Cells {
    fn new(len: usize) -> Cells {
        Cells((0..len).map(|_| AtomicU64::new(0)).collect())
    }
    #[inline]
    fn get(&self, i: usize) -> f64 {
        f64::from_bits(self.0[i].load(Ordering::Relaxed))
    }
    #[inline]
    fn set(&self, i: usize, x: f64) {
        self.0[i].store(x.to_bits(), Ordering::Relaxed)
    }
}

struct Shared<'a> {
    lattice: &'a Lattice,
    tiles: Tiles,
    /// Column `j`'s value at the lowest `k` computed so far (the leaves first).
    column: Cells,
    /// Tile `t`'s first column at `k = K*W + d`, in `edge[t * W + d]`.
    edge: Cells,
}

impl<'a> Shared<'a> {
    fn new(lattice: &'a Lattice) -> Shared<'a> {
        let steps = lattice.steps();
        let tiles = Tiles::new(steps);
        let column = Cells::new(steps + 1);
        for j in 0..=steps {
            column.set(j, lattice.exercise(steps, j));
        }
        let edge = Cells::new(tiles.count * W);
        Shared { lattice, tiles, column, edge }
    }

    /// Compute tile `(J, K)`: rows `k` downwards, each row `j` downwards, so
    /// that `(j, k + 1)` is in `column[j]` and `(j + 1, k)` in
    /// `column[j + 1]` (or, past the tile's last column, in the right
    /// neighbour's edge).
    fn run(&self, jt: usize, kt: usize) {
        let steps = self.tiles.steps;
        let (j0, k0) = (jt * W, kt * W);
        let j_end = (j0 + W).min(steps + 1);
        let right = self.tiles.exists(jt + 1, kt).then(|| self.tiles.id(jt + 1, kt) * W);
        let mine = self.tiles.id(jt, kt) * W;
        if finegrain::record::active() {
            self.declare(j0..j_end, right, mine);
        }
        for k in (k0..k0 + W).rev() {
            if j0 + k > steps {
                continue;
            }
            // The leaf of column j is at k = steps - j, already in column[j].
            if j0 + k == steps {
                self.edge.set(mine + k - k0, self.column.get(j0));
                continue;
            }
            let last = (j_end - 1).min(steps - 1 - k);
            let mut upper = if last + 1 == j_end { self.edge.get(right.expect("a right tile") + k - k0) } else { self.column.get(last + 1) };
            for j in (j0..=last).rev() {
                let v = self.lattice.node(j + k, j, self.column.get(j), upper);
                self.column.set(j, v);
                upper = v;
            }
            self.edge.set(mine + k - k0, upper);
        }
    }

    /// Declare for `finegrain record` what tile `(J, K)` touches.
    #[cold]
    fn declare(&self, columns: std::ops::Range<usize>, right: Option<usize>, mine: usize) {
        finegrain::record::read(&self.column.0[columns.clone()]);
        finegrain::record::write(&self.column.0[columns]);
        if let Some(r) = right {
            finegrain::record::read(&self.edge.0[r..r + W]);
        }
        finegrain::record::write(&self.edge.0[mine..mine + W]);
    }

    fn price(&self) -> f64 {
        self.column.get(0)
    }
}

/// The tiles as a dataflow graph, each after the tiles above it in `k` and
/// to its right in `j`.
pub fn graph(lattice: &Lattice) -> f64 {
    let shared = Shared::new(lattice);
    let s = &shared;
    let t = &shared.tiles;
    let mut g = finegrain::Graph::new();
    let ids: Vec<finegrain::NodeId> = t.all().map(|(jt, kt)| g.add_node(move |_| s.run(jt, kt))).collect();
    for (jt, kt) in t.all() {
        let me = ids[t.id(jt, kt)];
        if t.exists(jt + 1, kt) {
            g.add_edge(ids[t.id(jt + 1, kt)], me).expect("tile exists");
        }
        if t.exists(jt, kt + 1) {
            g.add_edge(ids[t.id(jt, kt + 1)], me).expect("tile exists");
        }
    }
    g.run().expect("the tile graph is acyclic");
    shared.price()
}

/// The same tree on Rayon: a counter of unfinished predecessors per tile;
/// the task that finishes a tile's last predecessor spawns it.
pub fn rayon(lattice: &Lattice) -> f64 {
    let shared = Shared::new(lattice);
    let t = &shared.tiles;
    let waiting: Vec<AtomicU32> = t.all().map(|(jt, kt)| AtomicU32::new(t.exists(jt + 1, kt) as u32 + t.exists(jt, kt + 1) as u32)).collect();
    fn run<'s>(sc: &rayon::Scope<'s>, s: &'s Shared<'_>, waiting: &'s [AtomicU32], jt: usize, kt: usize) {
        s.run(jt, kt);
        // Successors: the tile to the left and the tile below in k.
        let release = |jt: usize, kt: usize| {
            if waiting[s.tiles.id(jt, kt)].fetch_sub(1, Ordering::AcqRel) == 1 {
                sc.spawn(move |sc| run(sc, s, waiting, jt, kt));
            }
        };
        if jt > 0 {
            release(jt - 1, kt);
        }
        if kt > 0 {
            release(jt, kt - 1);
        }
    }
    rayon::scope(|sc| {
        for (jt, kt) in t.all().filter(|&(jt, kt)| !t.exists(jt + 1, kt) && !t.exists(jt, kt + 1)) {
            let (s, w) = (&shared, &waiting);
            sc.spawn(move |sc| run(sc, s, w, jt, kt));
        }
    });
    shared.price()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(steps: usize) -> Lattice {
        Lattice::new(&Contract { spot: 100.0, strike: 100.0, rate: 0.05, volatility: 0.2, years: 1.0, steps, put: true })
    }

    /// Every shape of the triangle's edge: fewer steps than a tile, exact
    /// multiples of the tile side, one more and one less.
    #[test]
    fn tree_is_bit_identical_to_serial() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        let rpool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        for steps in [1, 2, W - 1, W, W + 1, 2 * W - 1, 2 * W, 5 * W + 3, 300] {
            let l = put(steps);
            let want = l.price_serial().to_bits();
            assert_eq!(pool.install(|| graph(&l)).to_bits(), want, "{steps} steps");
            assert_eq!(rpool.install(|| rayon(&l)).to_bits(), want, "{steps} steps, rayon");
        }
    }

    #[test]
    fn tiles_cover_the_triangle_once() {
        for steps in [1, W, 3 * W + 5] {
            let t = Tiles::new(steps);
            let mut seen = vec![0u32; (steps + 1) * (steps + 1)];
            for (jt, kt) in t.all() {
                assert!(t.exists(jt, kt));
                for j in jt * W..(jt + 1) * W {
                    for k in kt * W..(kt + 1) * W {
                        if j + k <= steps {
                            seen[j * (steps + 1) + k] += 1;
                        }
                    }
                }
            }
            for j in 0..=steps {
                for k in 0..=steps - j {
                    assert_eq!(seen[j * (steps + 1) + k], 1, "({j}, {k}) of {steps} steps");
                }
            }
            assert_eq!(t.all().count(), t.count);
        }
    }
}
