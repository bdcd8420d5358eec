//! kmeans: Lloyd's k-means on integer points, iterated until no point
//! changes cluster (Phoenix's kmeans, Ranger et al., HPCA 2007, Table 2).
//! The input is Phoenix's: `points` points then `clusters` initial means,
//! each coordinate `rand() % grid` from glibc's `rand()` in its initial
//! state ([`GlibcRand`]); the seed is not used. Each iteration is one
//! MapReduce job: a map task assigns its points to the nearest mean (the
//! lowest index on a tie) and emits, per cluster, the sum and count of its
//! points (Phoenix 2 emits each point and sums in the reduce; Phoenix++
//! combines as here); the new mean is the sum over the count, truncated; a
//! cluster with no point keeps its mean. The job and its containers live
//! across the iterations (the thesis's pooled memory, section 3.3.4).

use finegrain::mapreduce::{Chunk, MapReduce};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::{digests, GlibcRand};
use crate::{Instance, Output, PhoenixInput, Size, Workload};

pub struct Kmeans;

/// Phoenix's defaults: 3 dimensions, coordinates below 1000.
const DIM: usize = 3;
const GRID: i32 = 1000;

impl Workload for Kmeans {
    fn name(&self) -> &'static str {
        "kmeans"
    }
    fn description(&self) -> &'static str {
        "MapReduce: k-means of random integer points until no point moves, one job per iteration"
    }
    fn source(&self) -> &'static str {
        "Ranger et al., Phoenix (HPCA 2007), Table 2; Yoo, thesis (Stanford 2012), sections 3.3.1, 3.3.4"
    }
    fn api(&self) -> &'static str {
        "mapreduce"
    }
    fn prepare(&self, size: Size, _seed: u64) -> Box<dyn Instance> {
        // Full is Phoenix's default input (98 iterations to converge); the
        // iterations grow with the points (27 at Test, 90 at Small), so
        // a larger input costs minutes per run.
        let (points, clusters) = match size {
            Size::Test => (2_000, 10),
            Size::Small => (20_000, 50),
            Size::Full | Size::Paper => (100_000, 100),
        };
        Box::new(KmeansInstance::new(points, clusters, DIM, GRID))
    }
}

pub(super) struct KmeansInstance {
    pub(super) points: Vec<i32>,
    pub(super) means: Vec<i32>,
    pub(super) n: usize,
    pub(super) k: usize,
    pub(super) dim: usize,
    pub(super) grid: i32,
}

impl KmeansInstance {
    pub(super) fn new(n: usize, k: usize, dim: usize, grid: i32) -> KmeansInstance {
        let mut g = GlibcRand::new(1);
        let points = (0..n * dim).map(|_| g.rand() % grid).collect();
        let means = (0..k * dim).map(|_| g.rand() % grid).collect();
        KmeansInstance { points, means, n, k, dim, grid }
    }

    /// The nearest mean to `p` (squared distance, first on a tie).
    #[inline]
    fn nearest(&self, p: &[i32], means: &[i32]) -> usize {
        let dist = |m: &[i32]| p.iter().zip(m).map(|(&a, &b)| ((a - b) * (a - b)) as u32).fold(0u32, u32::wrapping_add);
        let mut best = (dist(&means[..self.dim]), 0);
        for j in 1..self.k {
            let d = dist(&means[j * self.dim..(j + 1) * self.dim]);
            if d < best.0 {
                best = (d, j);
            }
        }
        best.1
    }

    /// Assign `points` (starting at point `first`) to their nearest means,
    /// updating `clusters`; per-cluster sums (`dim` each, then the count)
    /// into `acc`; whether any point moved.
    fn assign(&self, points: &[i32], clusters: &mut [i32], means: &[i32], acc: &mut [i64]) -> bool {
        let mut moved = false;
        for (p, c) in points.chunks_exact(self.dim).zip(clusters.iter_mut()) {
            let j = self.nearest(p, means);
            if *c != j as i32 {
                *c = j as i32;
                moved = true;
            }
            let a = &mut acc[j * (self.dim + 1)..(j + 1) * (self.dim + 1)];
            for (s, &x) in a.iter_mut().zip(p) {
                *s += i64::from(x);
            }
            a[self.dim] += 1;
        }
        moved
    }

    /// New means from per-cluster sums and counts; empty clusters keep theirs.
    fn update(&self, means: &mut [i32], cluster: usize, sum: &[i64]) {
        let count = sum[self.dim];
        if count > 0 {
            for d in 0..self.dim {
                means[cluster * self.dim + d] = (sum[d] / count) as i32;
            }
        }
    }

    fn output(means: Vec<i32>) -> Output {
        Output::Ints(means.into_iter().map(|x| x as u64).collect())
    }

    /// Points per map task.
    fn block(&self) -> usize {
        (self.n / 256).clamp(256, 8192)
    }
}

/// A map task's points and its part of the cluster assignment.
struct Block<'a> {
    points: &'a [i32],
    clusters: Mutex<&'a mut [i32]>,
}

impl Chunk for Block<'_> {
    fn memory(&self) -> *const u8 {
        self.points.as_ptr().cast()
    }
}

impl Instance for KmeansInstance {
    fn describe(&self) -> String {
        format!("{} points, {} clusters, {} dimensions, grid {} (Phoenix's input)", self.n, self.k, self.dim, self.grid)
    }
    fn serial(&self) -> Output {
        let mut means = self.means.clone();
        let mut clusters = vec![-1i32; self.n];
        let mut acc = vec![0i64; self.k * (self.dim + 1)];
        loop {
            acc.iter_mut().for_each(|a| *a = 0);
            let moved = self.assign(&self.points, &mut clusters, &means, &mut acc);
            if !moved {
                break;
            }
            for j in 0..self.k {
                self.update(&mut means, j, &acc[j * (self.dim + 1)..(j + 1) * (self.dim + 1)]);
            }
        }
        Self::output(means)
    }
    fn parallel(&self) -> Output {
        let mut clusters = vec![-1i32; self.n];
        let means = finegrain::record::region(|| {
            let mut means = self.means.clone();
            let b = self.block();
            let blocks: Vec<Block<'_>> = self
                .points
                .chunks(b * self.dim)
                .zip(clusters.chunks_mut(b))
                .map(|(points, clusters)| Block { points, clusters: Mutex::new(clusters) })
                .collect();
            let mut job = MapReduce::dense(self.k);
            loop {
                let moved = AtomicBool::new(false);
                let sums = job.run(
                    &blocks,
                    |blk: &Block<'_>, out| {
                        finegrain::record::read(blk.points);
                        let mut acc = vec![0i64; self.k * (self.dim + 1)];
                        let mut clusters = blk.clusters.lock().unwrap_or_else(|p| p.into_inner());
                        if self.assign(blk.points, &mut clusters, &means, &mut acc) {
                            moved.store(true, Ordering::Relaxed);
                        }
                        for (j, a) in acc.chunks_exact(self.dim + 1).enumerate().filter(|(_, a)| a[self.dim] > 0) {
                            out.emit(j, a.to_vec());
                        }
                    },
                    |a, b| a.iter_mut().zip(b).for_each(|(x, y)| *x += y),
                );
                if !moved.into_inner() {
                    break;
                }
                for (j, sum) in sums {
                    self.update(&mut means, j, &sum);
                }
            }
            means
        });
        Self::output(means)
    }
    fn phoenix(&self, _dir: &std::path::Path) -> Option<Result<PhoenixInput, String>> {
        let Output::Ints(means) = self.serial() else { unreachable!("kmeans' result is its means") };
        let text: String = means.chunks(self.dim).map(|m| m.iter().map(|&x| (x as i32).to_string()).collect::<Vec<_>>().join(" ") + "\n").collect();
        let args = format!("dim={} clusters={} points={} max={}", self.dim, self.k, self.n, self.grid);
        Some(Ok(PhoenixInput { args, digests: digests(&text, &text, &text) }))
    }
    fn rayon(&self) -> Option<Output> {
        let mut means = self.means.clone();
        let mut clusters = vec![-1i32; self.n];
        let b = self.block();
        let width = self.k * (self.dim + 1);
        loop {
            let (acc, moved) = self
                .points
                .par_chunks(b * self.dim)
                .zip(clusters.par_chunks_mut(b))
                .fold(
                    || (vec![0i64; width], false),
                    |(mut acc, moved), (p, c)| {
                        let m = self.assign(p, c, &means, &mut acc);
                        (acc, moved | m)
                    },
                )
                .reduce(
                    || (vec![0i64; width], false),
                    |(mut a, ma), (b, mb)| {
                        a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                        (a, ma | mb)
                    },
                );
            if !moved {
                break;
            }
            for j in 0..self.k {
                self.update(&mut means, j, &acc[j * (self.dim + 1)..(j + 1) * (self.dim + 1)]);
            }
        }
        Some(Self::output(means))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_is_phoenixs_and_the_versions_agree() {
        let inst = KmeansInstance::new(500, 5, 3, 1000);
        // glibc's first rand() values, mod 1000.
        assert_eq!(&inst.points[..3], &[1804289383 % 1000, 846930886 % 1000, 1681692777 % 1000]);
        let want = inst.serial();
        let pool = finegrain::Pool::new(3, "adm-central").unwrap();
        assert_eq!(pool.install(|| inst.parallel()), want);
        assert_eq!(inst.rayon().unwrap(), want);
    }
}
