//! `barnes`: Barnes-Hut gravitational accelerations of a Plummer-model
//! galaxy over an octree, one task per body (R. Yoo, *Locality-Aware Task
//! Management on Many-Core Processors*, PhD thesis, Stanford University,
//! 2012, section 5.4 and the workload table of chapter 5: SPLASH-2 "barnes",
//! a non-linear pattern run by the binning manager with a "bit-sampled
//! subtree key"; 2,048 tasks of about 6.1K instructions).
//!
//! **Program.** The octree is built serially (bodies split into octants
//! until a cell holds at most `LEAF` bodies; each cell keeps its mass and
//! centre of mass), then the force phase, the part the thesis parallelises,
//! is a task space of one task per body: a depth-first walk from the root
//! that opens a cell when its side over its distance is at least `THETA`,
//! takes the cell's centre of mass otherwise, and sums leaf bodies directly
//! (Plummer softening `EPS`).
//!
//! **Hint.** Bodies in the same subtree walk nearly the same cells. The key
//! of body `i` is the id of the depth-`KEY_LEVELS` subtree its position
//! falls in: the top `KEY_LEVELS` bits of each of its coordinates (scaled
//! onto the root cell), interleaved (a Morton prefix, so neighbouring
//! subtrees get neighbouring keys). The bodies are generated, as in
//! SPLASH-2, in no spatial order, so the index order carries no locality.
//!
//! **Deviations.** One task per body, not per group of bodies (the thesis's
//! 2,048 tasks suggest groups); leaves hold up to `LEAF` bodies instead of
//! one; one force phase, no time stepping.
//!
//! **Check.** Every version walks each body's tree in the same order, so
//! the accelerations are bit-identical and compared exactly.

use super::{rayon_space, run_space};
use crate::support::rng::SplitMix64;
use crate::support::shared::SharedMut;
use crate::{Instance, Output, Size, Workload};
use finegrain::TaskSpace;

/// Opening criterion: a cell of side `s` at distance `d` is opened if `s / d >= THETA`.
const THETA: f64 = 0.6;
/// Plummer softening length.
const EPS: f64 = 0.025;
/// Bodies a leaf holds at most.
const LEAF: usize = 8;
/// Depth of the subtree a body's key names: 8^4 = 4,096 keys.
const KEY_LEVELS: u32 = 4;

pub(crate) struct Barnes {
    pub(crate) hint: bool,
}

impl Workload for Barnes {
    fn name(&self) -> &'static str {
        if self.hint {
            "barnes"
        } else {
            "barnes-nohint"
        }
    }
    fn description(&self) -> &'static str {
        "Barnes-Hut accelerations of a Plummer galaxy over an octree, one task per body, as a task space binned by subtree key"
    }
    fn source(&self) -> &'static str {
        "Yoo (PhD thesis, Stanford 2012), section 5.4 (barnes, binning manager, bit-sampled subtree key)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let n = match size {
            Size::Test => 2_000,
            Size::Small => 4_000,
            Size::Full | Size::Paper => 40_000,
        };
        Box::new(BarnesInstance::generate(n, seed, self.hint))
    }
}

/// An octree cell: a leaf holds `bodies` (a range of `Tree::order`), an
/// inner cell its non-empty `children`.
struct Cell {
    side: f64,
    mass: f64,
    com: [f64; 3],
    children: Vec<u32>,
    bodies: std::ops::Range<usize>,
}

struct Tree {
    cells: Vec<Cell>,
    /// Body indices, each leaf's a contiguous range.
    order: Vec<u32>,
    /// The root cube's low corner and side.
    low: [f64; 3],
    side: f64,
}

impl Tree {
    fn build(pos: &[[f64; 3]], mass: &[f64]) -> Tree {
        let mut low = [f64::MAX; 3];
        let mut high = [f64::MIN; 3];
        for p in pos {
            for d in 0..3 {
                low[d] = low[d].min(p[d]);
                high[d] = high[d].max(p[d]);
            }
        }
        let side = (0..3).map(|d| high[d] - low[d]).fold(0.0, f64::max) * (1.0 + 1e-9) + 1e-12;
        let mut tree = Tree { cells: Vec::new(), order: (0..pos.len() as u32).collect(), low, side };
        tree.cell(pos, mass, 0..pos.len(), low, side, 0);
        tree
    }

    /// Build the cell of `order[range]`, cube at `corner` of side `side`;
    /// returns its index.
    fn cell(&mut self, pos: &[[f64; 3]], mass: &[f64], range: std::ops::Range<usize>, corner: [f64; 3], side: f64, depth: u32) -> u32 {
        let id = self.cells.len() as u32;
        let (mut m, mut com) = (0.0, [0.0; 3]);
        for &b in &self.order[range.clone()] {
            m += mass[b as usize];
            (0..3).for_each(|d| com[d] += mass[b as usize] * pos[b as usize][d]);
        }
        com.iter_mut().for_each(|c| *c /= m);
        self.cells.push(Cell { side, mass: m, com, children: Vec::new(), bodies: range.clone() });
        if range.len() <= LEAF || depth >= 48 {
            return id;
        }
        // Counting sort of the range by octant.
        let half = side / 2.0;
        let octant = |p: &[f64; 3]| (0..3).map(|d| ((p[d] >= corner[d] + half) as usize) << d).sum::<usize>();
        let mut count = [0usize; 9];
        for &b in &self.order[range.clone()] {
            count[octant(&pos[b as usize]) + 1] += 1;
        }
        for o in 0..8 {
            count[o + 1] += count[o];
        }
        let mut sorted = vec![0u32; range.len()];
        let mut next = count;
        for &b in &self.order[range.clone()] {
            let o = octant(&pos[b as usize]);
            sorted[next[o]] = b;
            next[o] += 1;
        }
        self.order[range.clone()].copy_from_slice(&sorted);
        let mut children = Vec::new();
        for o in 0..8 {
            if count[o] < count[o + 1] {
                let c = std::array::from_fn(|d| corner[d] + if o >> d & 1 == 1 { half } else { 0.0 });
                children.push(self.cell(pos, mass, range.start + count[o]..range.start + count[o + 1], c, half, depth + 1));
            }
        }
        self.cells[id as usize].children = children;
        id
    }

    /// The acceleration on body `i`, walking cells depth first in child
    /// order; `visit` sees every cell the walk reads.
    fn accel(&self, pos: &[[f64; 3]], mass: &[f64], i: usize, mut visit: impl FnMut(u32)) -> [f64; 3] {
        let p = pos[i];
        let mut acc = [0.0; 3];
        let mut add = |q: &[f64; 3], m: f64| {
            let d = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + EPS * EPS;
            let f = m / (r2 * r2.sqrt());
            (0..3).for_each(|k| acc[k] += f * d[k]);
        };
        let mut stack = vec![0u32];
        while let Some(c) = stack.pop() {
            visit(c);
            let cell = &self.cells[c as usize];
            let d = [cell.com[0] - p[0], cell.com[1] - p[1], cell.com[2] - p[2]];
            let dist2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if cell.children.is_empty() {
                for &b in &self.order[cell.bodies.clone()] {
                    if b as usize != i {
                        add(&pos[b as usize], mass[b as usize]);
                    }
                }
            } else if cell.side * cell.side < THETA * THETA * dist2 {
                add(&cell.com, cell.mass);
            } else {
                stack.extend(cell.children.iter().rev());
            }
        }
        acc
    }

    /// The Morton prefix of the depth-`KEY_LEVELS` subtree holding `p`.
    fn key(&self, p: &[f64; 3]) -> u64 {
        let cells = 1u64 << KEY_LEVELS;
        let q: [u64; 3] = std::array::from_fn(|d| (((p[d] - self.low[d]) / self.side * cells as f64) as u64).min(cells - 1));
        let mut key = 0;
        for bit in (0..KEY_LEVELS).rev() {
            for c in q {
                key = key << 1 | (c >> bit & 1);
            }
        }
        key
    }
}

struct BarnesInstance {
    pos: Vec<[f64; 3]>,
    mass: Vec<f64>,
    tree: Tree,
    keys: Vec<u64>,
    hint: bool,
}

impl BarnesInstance {
    /// A Plummer sphere of `n` equal masses (total mass 1, scale radius 1),
    /// radii cut at 20, in generation order.
    fn generate(n: usize, seed: u64, hint: bool) -> BarnesInstance {
        assert!(n >= 2, "barnes needs at least two bodies");
        let mut rng = SplitMix64::new(seed ^ 0x6261_726e);
        let pos: Vec<[f64; 3]> = (0..n)
            .map(|_| loop {
                let u = rng.unit().max(1e-12);
                let r = 1.0 / (u.powf(-2.0 / 3.0) - 1.0).sqrt();
                if r < 20.0 {
                    let z = 2.0 * rng.unit() - 1.0;
                    let phi = std::f64::consts::TAU * rng.unit();
                    let s = (1.0 - z * z).sqrt();
                    break [r * s * phi.cos(), r * s * phi.sin(), r * z];
                }
            })
            .collect();
        let mass = vec![1.0 / n as f64; n];
        let tree = Tree::build(&pos, &mass);
        let keys = pos.iter().map(|p| tree.key(p)).collect();
        BarnesInstance { pos, mass, tree, keys, hint }
    }

    fn task(&self, acc: &SharedMut<'_, [f64; 3]>, i: usize) {
        finegrain::record::declare(|| {
            let mut cells = Vec::new();
            self.tree.accel(&self.pos, &self.mass, i, |c| cells.push(c as usize));
            finegrain::record::read_elements(&self.tree.cells, cells.into_iter());
            finegrain::record::read(&self.pos[i..i + 1]);
            acc.declare_write(i..i + 1);
        });
        let a = self.tree.accel(&self.pos, &self.mass, i, |_| {});
        // SAFETY: task i alone writes body i's acceleration; `acc` is read
        // after the section.
        unsafe { acc.write(i, a) };
    }

    fn run_with(&self, section: impl FnOnce([usize; 3], &(dyn Fn([usize; 3]) + Sync))) -> Output {
        let mut acc = vec![[0.0; 3]; self.pos.len()];
        {
            let shared = SharedMut::new(&mut acc);
            section([self.pos.len(), 1, 1], &|[i, _, _]| self.task(&shared, i));
        }
        Output::Floats(acc.into_iter().flatten().collect())
    }
}

impl Instance for BarnesInstance {
    fn describe(&self) -> String {
        format!("{} bodies, {} octree cells, theta {THETA}", self.pos.len(), self.tree.cells.len())
    }
    fn serial(&self) -> Output {
        Output::Floats((0..self.pos.len()).flat_map(|i| self.tree.accel(&self.pos, &self.mass, i, |_| {})).collect())
    }
    fn parallel(&self) -> Output {
        let key = |[i, _, _]: [usize; 3]| self.keys[i];
        self.run_with(|extents, task| {
            let space = TaskSpace::new(extents);
            let space = if self.hint { space.bins(&key, 0, (1 << (3 * KEY_LEVELS)) - 1) } else { space };
            run_space(space, task);
        })
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.run_with(|extents, task| rayon_space(extents, task)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With THETA near zero the walk opens every cell, so the result is the
    /// direct sum; at THETA the error stays small.
    #[test]
    fn tree_walk_approximates_the_direct_sum() {
        let inst = BarnesInstance::generate(1500, 8, true);
        let (pos, mass) = (&inst.pos, &inst.mass);
        let mut worst: f64 = 0.0;
        for i in (0..pos.len()).step_by(37) {
            let mut exact = [0.0; 3];
            for j in (0..pos.len()).filter(|&j| j != i) {
                let d = [pos[j][0] - pos[i][0], pos[j][1] - pos[i][1], pos[j][2] - pos[i][2]];
                let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + EPS * EPS;
                (0..3).for_each(|k| exact[k] += mass[j] / (r2 * r2.sqrt()) * d[k]);
            }
            let got = inst.tree.accel(pos, mass, i, |_| {});
            let norm = exact.iter().map(|x| x * x).sum::<f64>().sqrt();
            let err = (0..3).map(|k| (got[k] - exact[k]).powi(2)).sum::<f64>().sqrt() / norm;
            worst = worst.max(err);
        }
        assert!(worst < 0.05, "relative error {worst}");
    }

    /// Every body is in exactly one leaf, and the root holds the total mass.
    #[test]
    fn tree_holds_every_body_once() {
        let inst = BarnesInstance::generate(3000, 2, true);
        let mut seen = vec![0; 3000];
        for c in inst.tree.cells.iter().filter(|c| c.children.is_empty()) {
            assert!(c.bodies.len() <= LEAF);
            inst.tree.order[c.bodies.clone()].iter().for_each(|&b| seen[b as usize] += 1);
        }
        assert!(seen.iter().all(|&s| s == 1));
        assert!((inst.tree.cells[0].mass - 1.0).abs() < 1e-12);
    }

    /// Keys are Morton prefixes: bodies with the same key lie in one cube of
    /// side root / 16.
    #[test]
    fn keys_name_subtrees() {
        let inst = BarnesInstance::generate(3000, 4, true);
        let cube = inst.tree.side / (1 << KEY_LEVELS) as f64;
        for (i, p) in inst.pos.iter().enumerate().take(500) {
            for (j, q) in inst.pos.iter().enumerate().take(500) {
                if inst.keys[i] == inst.keys[j] {
                    assert!((0..3).all(|d| (p[d] - q[d]).abs() <= cube), "{i} {j}");
                }
            }
        }
        assert!(inst.keys.iter().all(|&k| k < 1 << (3 * KEY_LEVELS)));
    }

    #[test]
    fn hinted_and_unhinted_match_serial() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for hint in [true, false] {
            let inst = BarnesInstance::generate(1000, 5, hint);
            assert_eq!(inst.serial(), pool.install(|| inst.parallel()));
        }
    }
}
