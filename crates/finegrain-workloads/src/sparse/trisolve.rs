//! `fs` and `bs`: sparse forward and backward triangular solves, `L y = b`
//! and `L^T x = y`, with the factor of `cf` (Kumar, Hughes, Nguyen, "Carbon:
//! architectural support for fine-grained parallelism on chip
//! multiprocessors", ISCA 2007, section 5.3 and Table 2: "The matrix is
//! pre-partitioned into groups of independent columns. A task is to perform
//! the computation on the elements in a group of columns"; for BS "the task
//! dependences form a tree, where work starts from the root", for FS "the work
//! starts from the leaves of the task dependence tree").
//!
//! The unknown of column `j` depends, in the forward solve, on the columns of
//! its subtree in the elimination tree (row `j` of L), and in the backward
//! solve on its ancestors (column `j` of L). `prepare` partitions the columns
//! into level sets of that dependence (the height above the leaves for `fs`,
//! the depth below the root for `bs`; columns of one level are independent),
//! cuts each level into groups of about [`GROUP_WORK`] entries of L, and joins
//! the groups by the tree's edges (a group waits for the groups holding its
//! columns' children, or parents). Each solve is then one
//! [`finegrain::Graph`] with one node per group: a group starts as soon as
//! the groups it reads have finished, with no barrier between levels. A phase
//! per level would wait for a whole level where the paper's task tree waits
//! only for a task's own predecessors, so the graph is the closer match.
//!
//! Each task reads its columns' entries and writes only its own unknowns: the
//! forward solve works on the rows of L (the columns of `L^T`), each unknown a
//! dot product with finished unknowns, so no two tasks update one entry; the
//! backward solve on the columns of L.
//!
//! Carbon's datasets (`mod`, 28,761 columns and 1.45 M nonzeros, and `pds`,
//! 15,648 and 1.18 M, for FS; `ken`, 78,862 and 2.18 M, and `world`, 28,653
//! and 1.33 M, for BS) are LP matrices not available here; the matrices are
//! `cf`'s at each size. Deviation: one solve of such a matrix takes a few
//! milliseconds, so a run solves several right-hand sides one after the other,
//! one task graph each (the paper's run is one solve), to reach the serial
//! time a `full` run should take.

use super::cholesky::{self, Cells, Symbolic, NONE};
use crate::support::io::Input;
use crate::support::rng::SplitMix64;
use crate::support::tolerance::{check_floats, Scale};
use crate::{Instance, Output, Size, Workload};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Entries of L a group reads, about: a group closes once its columns reach
/// this many (a wide level gives several groups, a narrow one one group of
/// a few columns). Some 500 entries, a few thousand cycles, like Carbon's
/// FS and BS tasks (Table 2: 2,231 to 5,045 cycles on average).
const GROUP_WORK: usize = 512;

/// Every version computes each unknown with the same operations in the same
/// order, so they agree bit for bit; slack relative to each entry.
const TOLERANCE: f64 = 1e-12;

/// Largest accepted normwise backward error `||M z - r|| / (||M||_F ||z|| +
/// ||r||)` of a solution `z` of `M z = r` (`M` is L for `fs`, `P A P^T` for
/// `bs`): triangular solves are backward stable with an error of about the
/// longest column times the unit roundoff.
const RESIDUAL: f64 = 1e-10;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Direction {
    /// `L y = b`, from the leaves.
    Forward,
    /// `L^T x = y`, from the root.
    Backward,
}

impl Direction {
    fn name(self) -> &'static str {
        match self {
            Direction::Forward => "fs",
            Direction::Backward => "bs",
        }
    }
}

/// The groups and their dependences.
struct Plan {
    /// Columns, group by group; group `g` is `cols[start[g]..start[g + 1]]`.
    cols: Vec<u32>,
    start: Vec<usize>,
    /// Successors of group `g`: `succ[sp[g]..sp[g + 1]]`.
    sp: Vec<usize>,
    succ: Vec<u32>,
    /// Predecessor count of each group.
    preds: Vec<usize>,
    levels: usize,
    /// The pre-partitioned matrix: the entries the unknown at position `p`
    /// of `cols` reads, `(idx, val)[ptr[p]..ptr[p + 1]]`, copied group by
    /// group in `cols` order, and its diagonal `diag[p]`. A group's task then
    /// reads one contiguous stretch; reading the columns where the factor
    /// keeps them made a 1-thread run of `full` 3x slower than the serial one
    /// (a level's columns lie all over the factor).
    ptr: Vec<usize>,
    idx: Vec<u32>,
    val: Vec<f64>,
    diag: Vec<f64>,
}

impl Plan {
    fn new(sys: &System, dir: Direction) -> Plan {
        let s = &sys.s;
        let n = s.n;
        let level = match dir {
            Direction::Forward => s.heights(),
            Direction::Backward => s.depths(),
        };
        let levels = level.iter().max().map_or(0, |&m| m + 1);
        let work = |j: usize| work_of(s, dir, j);
        // Columns by level, ascending within a level.
        let mut lstart = vec![0usize; levels + 1];
        for &h in &level {
            lstart[h + 1] += 1;
        }
        for h in 0..levels {
            lstart[h + 1] += lstart[h];
        }
        let mut cols = vec![0u32; n];
        let mut next = lstart.clone();
        for j in 0..n {
            cols[next[level[j]]] = j as u32;
            next[level[j]] += 1;
        }
        let mut start = vec![0usize];
        for h in 0..levels {
            let mut acc = 0;
            for (k, &j) in cols.iter().enumerate().take(lstart[h + 1]).skip(lstart[h]) {
                acc += work(j as usize);
                if acc >= GROUP_WORK || k + 1 == lstart[h + 1] {
                    start.push(k + 1);
                    acc = 0;
                }
            }
        }
        let groups = start.len() - 1;
        let mut group_of = vec![0u32; n];
        for g in 0..groups {
            for &j in &cols[start[g]..start[g + 1]] {
                group_of[j as usize] = g as u32;
            }
        }
        // Tree edges between groups, each once: forward from a child's group
        // to its parent's, backward the other way.
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut mark = vec![usize::MAX; groups];
        for g in 0..groups {
            for &j in &cols[start[g]..start[g + 1]] {
                let p = s.parent[j as usize];
                if p == NONE {
                    continue;
                }
                let h = group_of[p] as usize;
                if mark[h] != g {
                    mark[h] = g;
                    edges.push(match dir {
                        Direction::Forward => (g as u32, h as u32),
                        Direction::Backward => (h as u32, g as u32),
                    });
                }
            }
        }
        let mut sp = vec![0usize; groups + 1];
        let mut preds = vec![0usize; groups];
        for &(a, b) in &edges {
            sp[a as usize + 1] += 1;
            preds[b as usize] += 1;
        }
        for g in 0..groups {
            sp[g + 1] += sp[g];
        }
        let mut succ = vec![0u32; edges.len()];
        let mut fill = sp.clone();
        for &(a, b) in &edges {
            succ[fill[a as usize]] = b;
            fill[a as usize] += 1;
        }
        let mut ptr = Vec::with_capacity(n + 1);
        ptr.push(0);
        let (mut idx, mut val) = (Vec::with_capacity(s.nnz_l() - n), Vec::with_capacity(s.nnz_l() - n));
        let mut diag = Vec::with_capacity(n);
        for &j in &cols {
            let j = j as usize;
            match dir {
                Direction::Forward => {
                    idx.extend_from_slice(&s.rk[s.rp[j]..s.rp[j + 1]]);
                    val.extend_from_slice(&sys.lt[s.rp[j]..s.rp[j + 1]]);
                }
                Direction::Backward => {
                    idx.extend_from_slice(&s.li[s.lp[j] + 1..s.lp[j + 1]]);
                    val.extend_from_slice(&sys.l[s.lp[j] + 1..s.lp[j + 1]]);
                }
            }
            diag.push(sys.l[s.lp[j]]);
            ptr.push(idx.len());
        }
        Plan { cols, start, sp, succ, preds, levels, ptr, idx, val, diag }
    }

    fn groups(&self) -> usize {
        self.start.len() - 1
    }

    /// Work over span of the group graph, counting a group's cost as the
    /// entries of L its columns read (group numbers are a topological order:
    /// levels in order).
    fn parallelism(&self, s: &Symbolic, dir: Direction) -> f64 {
        let mut before = vec![0usize; self.groups()];
        let (mut work, mut span) = (0usize, 0usize);
        for g in 0..self.groups() {
            let cost: usize = self.cols[self.start[g]..self.start[g + 1]].iter().map(|&j| work_of(s, dir, j as usize)).sum();
            work += cost;
            let done = before[g] + cost;
            span = span.max(done);
            for &h in &self.succ[self.sp[g]..self.sp[g + 1]] {
                before[h as usize] = before[h as usize].max(done);
            }
        }
        work as f64 / span.max(1) as f64
    }
}

/// Entries of L that column `j`'s unknown reads.
fn work_of(s: &Symbolic, dir: Direction, j: usize) -> usize {
    match dir {
        Direction::Forward => s.rp[j + 1] - s.rp[j] + 1,
        Direction::Backward => s.lp[j + 1] - s.lp[j],
    }
}

/// The factor and what the solves read.
struct System {
    s: Symbolic,
    l: Vec<f64>,
    /// L by rows (left of the diagonal), aligned with `s.rk`, so that the
    /// serial forward solve reads each row's entries in order instead of
    /// gathering them from the columns.
    lt: Vec<f64>,
}

impl System {
    fn new(s: Symbolic, l: Vec<f64>) -> System {
        let lt = s.rpos.iter().map(|&p| l[p]).collect();
        System { s, l, lt }
    }
}

impl System {
    /// `y[j] = (b[j] - L(j, :j) y) / L(j, j)`.
    ///
    /// # Safety
    /// The unknowns of `j`'s subtree are final; nobody else touches `y[j]`.
    #[inline]
    unsafe fn forward(&self, b: &[f64], y: &Cells<'_>, j: usize) {
        let s = &self.s;
        let mut t = b[j];
        for q in s.rp[j]..s.rp[j + 1] {
            // SAFETY: rk[q] is in j's subtree (the caller's contract).
            t -= self.lt[q] * unsafe { y.get(s.rk[q] as usize) };
        }
        // SAFETY: y[j] is this task's (the caller's contract).
        unsafe { y.set(j, t / self.l[s.lp[j]]) };
    }

    /// `x[j] = (y[j] - L(j+1:, j)^T x) / L(j, j)`.
    ///
    /// # Safety
    /// The unknowns of `j`'s ancestors are final; nobody else touches `x[j]`.
    #[inline]
    unsafe fn backward(&self, y: &[f64], x: &Cells<'_>, j: usize) {
        let s = &self.s;
        let mut t = y[j];
        for q in s.lp[j] + 1..s.lp[j + 1] {
            // SAFETY: li[q] is an ancestor of j (the caller's contract).
            t -= self.l[q] * unsafe { x.get(s.li[q] as usize) };
        }
        // SAFETY: x[j] is this task's (the caller's contract).
        unsafe { x.set(j, t / self.l[s.lp[j]]) };
    }

    /// Group `k` of `plan`, from its pre-partitioned entries: each unknown
    /// is the same dot product, in the same order, as in
    /// [`System::forward`] or [`System::backward`].
    ///
    /// # Safety
    /// Every group before `k` in `plan`'s edges has finished; nobody else
    /// touches group `k`'s unknowns meanwhile.
    #[inline]
    unsafe fn group(plan: &Plan, rhs: &[f64], out: &Cells<'_>, k: usize) {
        for p in plan.start[k]..plan.start[k + 1] {
            let j = plan.cols[p] as usize;
            let mut t = rhs[j];
            for q in plan.ptr[p]..plan.ptr[p + 1] {
                // SAFETY: idx[q] is a dependence of j, in an earlier group
                // (the caller's contract).
                t -= plan.val[q] * unsafe { out.get(plan.idx[q] as usize) };
            }
            // SAFETY: j is this group's (the caller's contract).
            unsafe { out.set(j, t / plan.diag[p]) };
        }
    }

    /// Declare, for `finegrain record`, what group `k`'s task reads and writes.
    fn declare(plan: &Plan, rhs: &[f64], out: &Cells<'_>, k: usize) {
        use finegrain::record::{read, read_elements, write};
        finegrain::record::declare(|| {
            let (lo, hi) = (plan.start[k], plan.start[k + 1]);
            let (a, b) = (plan.ptr[lo], plan.ptr[hi]);
            read(&plan.cols[lo..hi]);
            read(&plan.ptr[lo..hi + 1]);
            read(&plan.diag[lo..hi]);
            read(&plan.idx[a..b]);
            read(&plan.val[a..b]);
            read_elements(rhs, plan.cols[lo..hi].iter().map(|&j| j as usize));
            // SAFETY: a declaration only takes addresses and lengths.
            let all = unsafe { out.slice(0..plan.cols.len()) };
            read_elements(all, plan.idx[a..b].iter().map(|&i| i as usize));
            for &j in &plan.cols[lo..hi] {
                write(&all[j as usize..j as usize + 1]);
            }
        });
    }

    fn serial(&self, dir: Direction, rhs: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.s.n];
        let cells = Cells::new(&mut out);
        match dir {
            // SAFETY: one thread, columns in a topological order of each direction.
            Direction::Forward => (0..self.s.n).for_each(|j| unsafe { self.forward(rhs, &cells, j) }),
            // SAFETY: as above.
            Direction::Backward => (0..self.s.n).rev().for_each(|j| unsafe { self.backward(rhs, &cells, j) }),
        }
        out
    }

    /// `region` is handed the graph's run, to call once: building the graph
    /// from the level plan (symbolic, independent of the values) and freeing
    /// it are left outside it, as Carbon times the solve alone (Kumar,
    /// Hughes, Nguyen, ISCA 2007, section 5).
    fn graph(&self, plan: &Plan, rhs: &[f64], region: impl FnOnce(&mut dyn FnMut())) -> Vec<f64> {
        let mut out = vec![0.0; self.s.n];
        {
            let cells = Cells::new(&mut out);
            let c = &cells;
            let mut g = finegrain::Graph::new();
            for k in 0..plan.groups() {
                g.add_node(move |_| {
                    System::declare(plan, rhs, c, k);
                    // SAFETY: the groups holding the dependences of k's
                    // columns precede it in the graph (directly or through
                    // the tree); its columns belong to it alone.
                    unsafe { System::group(plan, rhs, c, k) };
                });
            }
            for k in 0..plan.groups() {
                for &h in &plan.succ[plan.sp[k]..plan.sp[k + 1]] {
                    g.add_edge(finegrain::NodeId(k), finegrain::NodeId(h as usize)).expect("group edges join existing nodes");
                }
            }
            let mut g = Some(g);
            region(&mut || g.take().expect("the graph runs once").run().expect("group edges go from lower to higher levels"));
        }
        out
    }

    fn rayon(&self, plan: &Plan, rhs: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.s.n];
        {
            let cells = Cells::new(&mut out);
            let waiting: Vec<AtomicUsize> = plan.preds.iter().map(|&p| AtomicUsize::new(p)).collect();
            struct Ctx<'c, 'v> {
                plan: &'c Plan,
                rhs: &'c [f64],
                out: &'c Cells<'v>,
                waiting: &'c [AtomicUsize],
            }
            fn run<'c, 'v>(sc: &rayon::Scope<'c>, c: &'c Ctx<'c, 'v>, k: usize) {
                // SAFETY: spawned after every predecessor group finished
                // (AcqRel counter); its columns belong to it alone.
                unsafe { System::group(c.plan, c.rhs, c.out, k) };
                for &h in &c.plan.succ[c.plan.sp[k]..c.plan.sp[k + 1]] {
                    if c.waiting[h as usize].fetch_sub(1, Ordering::AcqRel) == 1 {
                        sc.spawn(move |sc| run(sc, c, h as usize));
                    }
                }
            }
            let ctx = Ctx { plan, rhs, out: &cells, waiting: &waiting };
            let c = &ctx;
            rayon::scope(|sc| {
                for k in 0..plan.groups() {
                    if plan.preds[k] == 0 {
                        sc.spawn(move |sc| run(sc, c, k));
                    }
                }
            });
        }
        out
    }

    /// `||M z - r|| / (||M||_F ||z|| + ||r||)` with `M` = L (forward) or
    /// `P A P^T` (backward).
    fn backward_error(&self, dir: Direction, z: &[f64], r: &[f64]) -> f64 {
        let s = &self.s;
        let (mz, norm) = match dir {
            Direction::Forward => {
                let mut y = vec![0.0; s.n];
                for (j, &zj) in z.iter().enumerate() {
                    for q in s.lp[j]..s.lp[j + 1] {
                        y[s.li[q] as usize] += self.l[q] * zj;
                    }
                }
                (y, self.l.iter().map(|v| v * v).sum::<f64>().sqrt())
            }
            Direction::Backward => (s.multiply(z), s.norm()),
        };
        let norm2 = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let res: f64 = mz.iter().zip(r).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
        res / (norm * norm2(z) + norm2(r))
    }
}

/// Right-hand sides a run solves, one after the other.
fn solves(size: Size) -> usize {
    match size {
        Size::Test => 2,
        Size::Small => 16,
        Size::Full | Size::Paper => 30,
    }
}

struct SolveInstance {
    dir: Direction,
    what: String,
    sys: System,
    plan: Plan,
    /// What each solve starts from: `b` (forward) or `y = L^{-1} b` (backward).
    rhs: Vec<Vec<f64>>,
    /// The `b` of each solve, for the backward solve's residual `A x - b`.
    b: Vec<Vec<f64>>,
}

impl SolveInstance {
    fn new(dir: Direction, what: String, s: Symbolic, l: Vec<f64>, count: usize, seed: u64) -> SolveInstance {
        let sys = System::new(s, l);
        let plan = Plan::new(&sys, dir);
        let mut rng = SplitMix64::new(seed ^ 0x7472_6973_6f6c_7665);
        let b: Vec<Vec<f64>> = (0..count).map(|_| (0..sys.s.n).map(|_| rng.unit() * 2.0 - 1.0).collect()).collect();
        let rhs = match dir {
            Direction::Forward => b.clone(),
            Direction::Backward => b.iter().map(|b| sys.serial(Direction::Forward, b)).collect(),
        };
        SolveInstance { dir, what, sys, plan, rhs, b }
    }

    fn output(&self, solve: impl Fn(&[f64]) -> Vec<f64>) -> Output {
        Output::Floats(self.rhs.iter().flat_map(|r| solve(r)).collect())
    }
}

impl Instance for SolveInstance {
    fn describe(&self) -> String {
        format!(
            "{}, nnz(L)={}, {} solves of {} groups in {} levels, parallelism {:.1}",
            self.what,
            self.sys.s.nnz_l(),
            self.rhs.len(),
            self.plan.groups(),
            self.plan.levels,
            self.plan.parallelism(&self.sys.s, self.dir)
        )
    }
    fn serial(&self) -> Output {
        self.output(|r| self.sys.serial(self.dir, r))
    }
    fn parallel(&self) -> Output {
        self.output(|r| self.sys.graph(&self.plan, r, |run| finegrain::record::region(run)))
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.output(|r| self.sys.rayon(&self.plan, r)))
    }
    /// Every unknown within [`TOLERANCE`] of the serial one, and each
    /// solution's backward error within [`RESIDUAL`]: `L y = b` for `fs`,
    /// `A x = b` for `bs`.
    fn check(&self, reference: &Output, got: &Output) -> Result<(), String> {
        check_floats(reference, got, TOLERANCE, Scale::Each)?;
        let Output::Floats(z) = got else { unreachable!("check_floats accepted only Floats") };
        let n = self.sys.s.n;
        for (i, b) in self.b.iter().enumerate() {
            let e = self.sys.backward_error(self.dir, &z[i * n..(i + 1) * n], b);
            if e.is_nan() || e > RESIDUAL {
                let m = if self.dir == Direction::Forward { "L y = b" } else { "A x = b" };
                return Err(format!("solve {i}: backward error of {m} is {e:.2e} (> {RESIDUAL:.0e})"));
            }
        }
        Ok(())
    }
}

fn prepare(dir: Direction, size: Size, seed: u64) -> Box<dyn Instance> {
    let kind = cholesky::generated(size);
    let s = Symbolic::analyse(&kind.generate(seed)).expect("a generated matrix is square and symmetric");
    let l = cholesky::factor(&s);
    Box::new(SolveInstance::new(dir, kind.describe(), s, l, solves(size), seed))
}

fn prepare_input(dir: Direction, input: &Input, size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
    let (s, l) = cholesky::factor_input(input, dir.name())?;
    let what = format!("file, n={}", s.n);
    Ok(Box::new(SolveInstance::new(dir, what, s, l, solves(size), seed)))
}

pub struct ForwardSolve;

impl Workload for ForwardSolve {
    fn name(&self) -> &'static str {
        "fs"
    }
    fn description(&self) -> &'static str {
        "sparse forward solve L y = b with cf's factor; one task per group of independent columns (level sets), a graph from the leaves"
    }
    fn source(&self) -> &'static str {
        "Kumar et al. (Carbon, ISCA 2007), section 5.3 (FS, Table 2)"
    }
    fn api(&self) -> &'static str {
        "graph"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        prepare(Direction::Forward, size, seed)
    }
    /// As for `cf`: the file's matrix is factored in `prepare_input`.
    fn check_input(&self, input: &Input) -> Result<(), String> {
        cholesky::check(input, "fs")
    }
    fn prepare_input(&self, input: &Input, size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
        prepare_input(Direction::Forward, input, size, seed)
    }
}

pub struct BackwardSolve;

impl Workload for BackwardSolve {
    fn name(&self) -> &'static str {
        "bs"
    }
    fn description(&self) -> &'static str {
        "sparse backward solve L^T x = y with cf's factor; one task per group of independent columns (level sets), a graph from the root"
    }
    fn source(&self) -> &'static str {
        "Kumar et al. (Carbon, ISCA 2007), section 5.3 (BS, Table 2)"
    }
    fn api(&self) -> &'static str {
        "graph"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        prepare(Direction::Backward, size, seed)
    }
    /// As for `cf`: the file's matrix is factored in `prepare_input`.
    fn check_input(&self, input: &Input) -> Result<(), String> {
        cholesky::check(input, "bs")
    }
    fn prepare_input(&self, input: &Input, size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
        prepare_input(Direction::Backward, input, size, seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::read_mtx;
    use cholesky::Kind;

    fn system(kind: Kind) -> System {
        let s = Symbolic::analyse(&kind.generate(7)).unwrap();
        let l = cholesky::factor(&s);
        System::new(s, l)
    }

    #[test]
    fn groups_hold_independent_columns_and_precede_their_readers() {
        for kind in [Kind::Grid2d { side: 20 }, Kind::Random { n: 200, links: 2 }] {
            let sys = system(kind);
            let s = &sys.s;
            for dir in [Direction::Forward, Direction::Backward] {
                let plan = Plan::new(&sys, dir);
                let mut group_of = vec![usize::MAX; s.n];
                for g in 0..plan.groups() {
                    for &j in &plan.cols[plan.start[g]..plan.start[g + 1]] {
                        assert_eq!(group_of[j as usize], usize::MAX, "column {j} in two groups");
                        group_of[j as usize] = g;
                    }
                }
                assert!(group_of.iter().all(|&g| g != usize::MAX));
                // Finish groups in a topological order of the edges; every
                // column a column reads must be in a finished group.
                let mut pending = plan.preds.clone();
                let mut ready: Vec<usize> = (0..plan.groups()).filter(|&g| pending[g] == 0).collect();
                let mut done = vec![false; s.n];
                let mut count = 0;
                while let Some(g) = ready.pop() {
                    let cols = &plan.cols[plan.start[g]..plan.start[g + 1]];
                    for &j in cols {
                        let j = j as usize;
                        let reads: Vec<usize> = match dir {
                            Direction::Forward => s.rk[s.rp[j]..s.rp[j + 1]].iter().map(|&k| k as usize).collect(),
                            Direction::Backward => s.li[s.lp[j] + 1..s.lp[j + 1]].iter().map(|&i| i as usize).collect(),
                        };
                        for k in reads {
                            assert!(done[k], "{dir:?}: column {j} reads {k} before its group ran");
                            assert_ne!(group_of[k], g, "{dir:?}: column {j} reads {k} of its own group");
                        }
                    }
                    for &j in cols {
                        done[j as usize] = true;
                    }
                    count += 1;
                    for &h in &plan.succ[plan.sp[g]..plan.sp[g + 1]] {
                        pending[h as usize] -= 1;
                        if pending[h as usize] == 0 {
                            ready.push(h as usize);
                        }
                    }
                }
                assert_eq!(count, plan.groups());
            }
        }
    }

    #[test]
    fn solves_agree_and_solve_a() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for kind in [Kind::Grid3d { side: 6 }, Kind::Random { n: 150, links: 3 }] {
            let sys = system(kind);
            let mut rng = SplitMix64::new(3);
            let b: Vec<f64> = (0..sys.s.n).map(|_| rng.unit()).collect();
            let y = sys.serial(Direction::Forward, &b);
            let x = sys.serial(Direction::Backward, &y);
            assert!(sys.backward_error(Direction::Forward, &y, &b) < 1e-14);
            assert!(sys.backward_error(Direction::Backward, &x, &b) < 1e-13);
            for dir in [Direction::Forward, Direction::Backward] {
                let plan = Plan::new(&sys, dir);
                let rhs = if dir == Direction::Forward { &b } else { &y };
                let want = sys.serial(dir, rhs);
                assert_eq!(pool.install(|| sys.graph(&plan, rhs, |run| run())), want);
                assert_eq!(sys.rayon(&plan, rhs), want);
            }
        }
    }

    #[test]
    fn files_solve_and_bad_files_are_errors() {
        let good = "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n";
        let input = Input::Matrix(read_mtx(good.as_bytes()).unwrap());
        for w in [&ForwardSolve as &dyn Workload, &BackwardSolve] {
            let inst = w.prepare_input(&input, Size::Test, 1).unwrap();
            let got = finegrain::Pool::new(2, "ws").unwrap().install(|| inst.parallel());
            inst.check(&inst.serial(), &got).unwrap();
        }
        let indefinite = "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 3\n2 2 1\n";
        let input = Input::Matrix(read_mtx(indefinite.as_bytes()).unwrap());
        let e = BackwardSolve.prepare_input(&input, Size::Test, 1).err().unwrap();
        assert!(e.starts_with("bs:") && e.contains("not positive definite"), "{e}");
        let general = "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 1 0.5\n2 2 1\n";
        let input = Input::Matrix(read_mtx(general.as_bytes()).unwrap());
        let e = ForwardSolve.check_input(&input).unwrap_err();
        assert!(e.contains("symmetric"), "{e}");
    }
}
