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
//! root is the tile holding the option's price. It runs as Carbon's task
//! queues run a task tree: one task phase (`finegrain::phase`) that starts
//! with the leaf tiles, a counter of unfinished predecessors per tile, and
//! the task that finishes a tile's last predecessor enqueues it (with Rayon,
//! the same counters and `scope` spawns).
//!
//! A `finegrain::Graph` with one node per tile computes the same thing, but
//! builds every node (a boxed closure and a reference-counted node) before
//! it starts: measured at `full` with 16384 steps (525,825 tiles) on one
//! worker, 1.5-2.3 s against 0.8-1.0 s for the phase (serial 0.35-0.57 s;
//! a loaded 2-core machine, minimum of 2 runs, twice each).
//!
//! A tile is `W * W = 256` node updates (fewer on the diagonal edge), each a
//! multiply-add pair, an exercise value and a max: some 3-4 K instructions.
//!
//! Storage: `column[j]` holds column `j`'s latest value, as the serial
//! reference's single array does, and is only touched by the tiles of one
//! column, which the dependences order; each tile also keeps its first column's
//! values, which the tile to its left reads. Every node is computed by
//! `Lattice::node` from the same two values as in the serial reference, so
//! the price is bit-identical to it.
//!
//! Deviation: the paper's sizes (512 and 2048 steps) take milliseconds here,
//! so `test` and `small` are the paper's two trees and `full` (24,576 steps,
//! 302 M nodes) is deeper. The serial reference is vectorised along a level;
//! a tile's levels are at most 16 nodes long, so a tile's node costs about
//! twice a serial one (measured with `perf`).

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
        "one American put priced on a Cox-Ross-Rubinstein binomial lattice; parallel: a task tree of 16x16-node tiles from the leaves to the root (a phase with dependence counters)"
    }
    fn source(&self) -> &'static str {
        "Kumar et al. (Carbon, ISCA 2007), section 5.3 (BT, Table 2)"
    }
    fn api(&self) -> &'static str {
        "phase"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let steps = match size {
            Size::Test => 512,
            Size::Small => 2048,
            Size::Full | Size::Paper => 24576,
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
        let lattice = Lattice::new(&self.contract);
        let plan = Plan::new(&lattice);
        Output::Float(finegrain::record::region(|| phase(&plan)))
    }
    fn rayon(&self) -> Option<Output> {
        let lattice = Lattice::new(&self.contract);
        Some(Output::Float(rayon(&Plan::new(&lattice))))
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

    /// The tiles with no predecessor, the tree's leaves: the last tile of a
    /// row `J` when row `J + 1` ends before it.
    fn leaves(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.first.len() - 1).map(|jt| (jt, self.first[jt + 1] - self.first[jt] - 1)).filter(|&(jt, kt)| !self.exists(jt + 1, kt))
    }

    /// Every tile as `(J, K)`.
    fn all(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.first.len() - 1).flat_map(move |jt| (0..self.first[jt + 1] - self.first[jt]).map(move |kt| (jt, kt)))
    }
}

/// `f64`s shared by the tile tasks; the counters' release and
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
        let edge = Cells::new(tiles.count * W);
        Shared { lattice, tiles, column, edge }
    }

    /// Put the expiry level's exercise values in the columns.
    fn expiry(&self) {
        let steps = self.tiles.steps;
        for j in 0..=steps {
            self.column.set(j, self.lattice.exercise(steps, j));
        }
    }

    /// Compute tile `(J, K)` level by level, as the serial reference does
    /// (a level's nodes are independent, so their updates overlap; along a
    /// row of the tile each node would wait for the one before it):
    /// `col[j - J*W]` holds column `j`'s latest value, and `col[W]` the right
    /// neighbour's first column, from its edge.
    fn run(&self, jt: usize, kt: usize) {
        let steps = self.tiles.steps;
        let (j0, k0) = (jt * W, kt * W);
        let j_end = (j0 + W).min(steps + 1);
        let right = self.tiles.exists(jt + 1, kt).then(|| self.tiles.id(jt + 1, kt) * W);
        let mine = self.tiles.id(jt, kt) * W;
        if finegrain::record::active() {
            self.declare(j0..j_end, right, mine);
        }
        let mut col = [0.0; W + 1];
        for (j, c) in (j0..j_end).zip(&mut col) {
            *c = self.column.get(j);
        }
        // Column j0's leaf, if it is in this tile, is its first edge value.
        if (k0..k0 + W).contains(&(steps - j0)) {
            self.edge.set(mine + steps - j0 - k0, col[0]);
        }
        let top = (j0 + k0 + 2 * W - 2).min(steps - 1);
        for level in (j0 + k0..=top).rev() {
            // Nodes j of this level in the tile: k = level - j in k0..k0 + W.
            let lo = j0.max((level + 1).saturating_sub(k0 + W));
            let hi = (j_end - 1).min(level - k0);
            if lo > hi {
                continue;
            }
            if hi + 1 == j_end {
                col[j_end - j0] = self.edge.get(right.expect("a right tile") + level + 1 - j_end - k0);
            }
            for j in lo..=hi {
                col[j - j0] = self.lattice.node(level, j, col[j - j0], col[j + 1 - j0]);
            }
            if lo == j0 {
                self.edge.set(mine + level - j0 - k0, col[0]);
            }
        }
        for (j, &c) in (j0..j_end).zip(&col) {
            self.column.set(j, c);
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

    /// Per tile, how many of its predecessors exist.
    fn predecessors(&self) -> Vec<AtomicU32> {
        let t = &self.tiles;
        t.all().map(|(jt, kt)| AtomicU32::new(t.exists(jt + 1, kt) as u32 + t.exists(jt, kt + 1) as u32)).collect()
    }

    /// Call `f` on the tiles that wait for tile `(J, K)`: the tile to its
    /// left and the tile below it in `k`.
    fn successors(&self, jt: usize, kt: usize, mut f: impl FnMut(usize, usize)) {
        if jt > 0 {
            f(jt - 1, kt);
        }
        if kt > 0 {
            f(jt, kt - 1);
        }
    }

    fn price(&self) -> f64 {
        self.column.get(0)
    }
}

/// The tree's shape, made before the measured region: the tiles, their edge
/// cells and their counters of unfinished predecessors depend on the number
/// of steps alone (Carbon times the tree's evaluation, ISCA 2007, section 5).
pub struct Plan<'a> {
    shared: Shared<'a>,
    waiting: Vec<AtomicU32>,
}

impl<'a> Plan<'a> {
    pub fn new(lattice: &'a Lattice) -> Plan<'a> {
        let shared = Shared::new(lattice);
        let waiting = shared.predecessors();
        Plan { shared, waiting }
    }
}

/// A tile task of [`phase`].
#[derive(Copy, Clone)]
struct Tile(u32, u32);
finegrain::phase_task!(Tile);

/// The tiles as one task phase, as Carbon's task queues run it: a counter
/// of unfinished predecessors per tile, and the task that finishes a tile's
/// last predecessor enqueues it.
pub fn phase(plan: &Plan) -> f64 {
    let (s, w) = (&plan.shared, &plan.waiting[..]);
    s.expiry();
    finegrain::phase(s.tiles.leaves().map(|(jt, kt)| Tile(jt as u32, kt as u32)), |ctx, Tile(jt, kt)| {
        let (jt, kt) = (jt as usize, kt as usize);
        s.run(jt, kt);
        s.successors(jt, kt, |jt, kt| {
            finegrain::record::write(std::slice::from_ref(&w[s.tiles.id(jt, kt)]));
            if w[s.tiles.id(jt, kt)].fetch_sub(1, Ordering::AcqRel) == 1 {
                ctx.enqueue(Tile(jt as u32, kt as u32));
            }
        });
    });
    s.price()
}

/// The same tree on Rayon: a counter of unfinished predecessors per tile;
/// the task that finishes a tile's last predecessor spawns it.
pub fn rayon(plan: &Plan) -> f64 {
    let (shared, waiting) = (&plan.shared, &plan.waiting[..]);
    shared.expiry();
    fn run<'s>(sc: &rayon::Scope<'s>, s: &'s Shared<'_>, waiting: &'s [AtomicU32], jt: usize, kt: usize) {
        s.run(jt, kt);
        s.successors(jt, kt, |jt, kt| {
            if waiting[s.tiles.id(jt, kt)].fetch_sub(1, Ordering::AcqRel) == 1 {
                sc.spawn(move |sc| run(sc, s, waiting, jt, kt));
            }
        });
    }
    rayon::scope(|sc| {
        for (jt, kt) in shared.tiles.leaves() {
            sc.spawn(move |sc| run(sc, shared, waiting, jt, kt));
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
            assert_eq!(pool.install(|| phase(&Plan::new(&l))).to_bits(), want, "{steps} steps");
            assert_eq!(rpool.install(|| rayon(&Plan::new(&l))).to_bits(), want, "{steps} steps, rayon");
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
            let leaves: Vec<_> = t.all().filter(|&(jt, kt)| !t.exists(jt + 1, kt) && !t.exists(jt, kt + 1)).collect();
            assert_eq!(t.leaves().collect::<Vec<_>>(), leaves);
        }
    }
}
