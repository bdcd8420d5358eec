//! pca: the row means and the covariance matrix of a random integer matrix,
//! the first steps of principal component analysis (Phoenix's pca, Ranger
//! et al., HPCA 2007, Table 2). The input is Phoenix's: a square matrix of
//! `rand() % grid` values from glibc's `rand()` in its initial state
//! ([`GlibcRand`]); the seed is not used. Two MapReduce jobs, as in
//! Phoenix: the mean of each row (an integer, truncated), then the
//! covariance of every pair of rows `i <= j`, `sum_k (a_ik - m_i)(a_jk -
//! m_j) / (n - 1)`, truncated. (Phoenix 2 runs the covariance sum over
//! `num_rows` columns, which is the column count only for a square matrix:
//! the inputs here are square.) The result is the upper triangle, row by
//! row.

use finegrain::mapreduce::MapReduce;
use rayon::prelude::*;

use super::{digests, GlibcRand};
use crate::support::digest::digest_iter;
use crate::{Instance, Output, PhoenixInput, Size, Workload};

pub struct Pca;

/// Phoenix's default value range.
const GRID: i32 = 100;

impl Workload for Pca {
    fn name(&self) -> &'static str {
        "pca"
    }
    fn description(&self) -> &'static str {
        "MapReduce: row means and row-pair covariances of a random integer matrix, two jobs"
    }
    fn source(&self) -> &'static str {
        "Ranger et al., Phoenix (HPCA 2007), Table 2; Yoo, thesis (Stanford 2012), section 3.3.3 (map chunk size)"
    }
    fn api(&self) -> &'static str {
        "mapreduce"
    }
    fn prepare(&self, size: Size, _seed: u64) -> Box<dyn Instance> {
        let n = match size {
            Size::Test => 48,
            Size::Small => 256,
            Size::Full | Size::Paper => 1000,
        };
        Box::new(PcaInstance::new(n, GRID))
    }
}

pub(super) struct PcaInstance {
    pub(super) matrix: Vec<i32>,
    pub(super) n: usize,
    pub(super) grid: i32,
}

impl PcaInstance {
    pub(super) fn new(n: usize, grid: i32) -> PcaInstance {
        let mut g = GlibcRand::new(1);
        PcaInstance { matrix: (0..n * n).map(|_| g.rand() % grid).collect(), n, grid }
    }
    fn row(&self, i: usize) -> &[i32] {
        &self.matrix[i * self.n..(i + 1) * self.n]
    }
    fn mean(&self, i: usize) -> i32 {
        self.row(i).iter().sum::<i32>() / self.n as i32
    }
    fn cov(&self, i: usize, j: usize, means: &[i32]) -> i32 {
        let (a, b, mi, mj) = (self.row(i), self.row(j), means[i], means[j]);
        let s = a.iter().zip(b).map(|(&x, &y)| (x - mi) * (y - mj)).fold(0i32, i32::wrapping_add);
        s / (self.n as i32 - 1).max(1)
    }
    /// The pairs `(i, j)`, `i <= j`, in row order, cut into map tasks of
    /// about `per` pairs each: `(first row, first column, pairs)`.
    fn pair_blocks(&self, per: usize) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < self.n {
            let mut left = per;
            let start = (i, j);
            let mut count = 0;
            while i < self.n && left > 0 {
                let take = (self.n - j).min(left);
                count += take;
                left -= take;
                j += take;
                if j == self.n {
                    i += 1;
                    j = i;
                }
            }
            out.push((start.0, start.1, count));
        }
        out
    }
    /// The covariances of a block, in pair order.
    fn block_covs(&self, (i0, j0, count): (usize, usize, usize), means: &[i32], mut f: impl FnMut(i32)) {
        let (mut i, mut j) = (i0, j0);
        for _ in 0..count {
            f(self.cov(i, j, means));
            j += 1;
            if j == self.n {
                i += 1;
                j = i;
            }
        }
    }
    fn output(covs: impl IntoIterator<Item = i32>) -> Output {
        let (len, hash) = digest_iter(covs.into_iter().map(|c| c as u32 as u64));
        Output::Digest { len, hash }
    }
    fn rows_per_task(&self) -> usize {
        (self.n / 64).max(1)
    }
    fn pairs_per_task(&self) -> usize {
        (self.n * (self.n + 1) / 2 / 512).max(1)
    }
}

impl Instance for PcaInstance {
    fn describe(&self) -> String {
        format!("{n}x{n} matrix, values below {} (Phoenix's input)", self.grid, n = self.n)
    }
    fn serial(&self) -> Output {
        let means: Vec<i32> = (0..self.n).map(|i| self.mean(i)).collect();
        let mut covs = Vec::with_capacity(self.n * (self.n + 1) / 2);
        for i in 0..self.n {
            for j in i..self.n {
                covs.push(self.cov(i, j, &means));
            }
        }
        Self::output(covs)
    }
    fn parallel(&self) -> Output {
        let rows: Vec<std::ops::Range<usize>> =
            (0..self.n).step_by(self.rows_per_task()).map(|i| i..(i + self.rows_per_task()).min(self.n)).collect();
        let blocks = self.pair_blocks(self.pairs_per_task());
        let covs = finegrain::record::region(|| {
            let mut mean_job = MapReduce::dense(self.n);
            let means: Vec<i32> = mean_job
                .run(
                    &rows,
                    |r: &std::ops::Range<usize>, out| {
                        finegrain::record::read(&self.matrix[r.start * self.n..r.end * self.n]);
                        r.clone().for_each(|i| out.emit(i, self.mean(i)));
                    },
                    |_, _| unreachable!("one mean per row"),
                )
                .into_iter()
                .map(|(_, m)| m)
                .collect();
            // Block index -> its covariances, in pair order.
            let numbered: Vec<(usize, usize)> = (0..blocks.len()).map(|b| (b, 0)).collect();
            let mut cov_job = MapReduce::buffered().unsorted();
            let mut parts = cov_job.run(
                &numbered,
                |&(b, _): &(usize, usize), out| {
                    let mut v = Vec::with_capacity(blocks[b].2);
                    self.block_covs(blocks[b], &means, |c| v.push(c));
                    out.emit(b, v);
                },
                |_, _| unreachable!("buffers do not combine"),
            );
            parts.sort_unstable_by_key(|p| p.0);
            parts
        });
        Self::output(covs.into_iter().flat_map(|(_, v)| v))
    }
    fn phoenix(&self, _dir: &std::path::Path) -> Option<Result<PhoenixInput, String>> {
        let means: Vec<i32> = (0..self.n).map(|i| self.mean(i)).collect();
        let mut full = vec![0i32; self.n * self.n];
        let mut sum = 0i64;
        for i in 0..self.n {
            for j in i..self.n {
                let c = self.cov(i, j, &means);
                full[i * self.n + j] = c;
                full[j * self.n + i] = c;
                sum += i64::from(c);
            }
        }
        let seq: String = full.chunks(self.n).map(|r| r.iter().map(i32::to_string).collect::<Vec<_>>().join(" ") + "\n").collect();
        let args = format!("rows={n} cols={n} max={}", self.grid, n = self.n);
        Some(Ok(PhoenixInput { args, digests: digests(&format!("{sum}\n"), &seq, &format!("{sum}\n")) }))
    }
    fn rayon(&self) -> Option<Output> {
        let means: Vec<i32> = (0..self.n).into_par_iter().map(|i| self.mean(i)).collect();
        let blocks = self.pair_blocks(self.pairs_per_task());
        let parts: Vec<Vec<i32>> = blocks
            .par_iter()
            .map(|&b| {
                let mut v = Vec::with_capacity(b.2);
                self.block_covs(b, &means, |c| v.push(c));
                v
            })
            .collect();
        Some(Self::output(parts.into_iter().flatten()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_blocks_cover_the_triangle_once_and_the_versions_agree() {
        let inst = PcaInstance::new(9, 100);
        for per in [1, 4, 7, 45, 100] {
            let blocks = inst.pair_blocks(per);
            assert_eq!(blocks.iter().map(|b| b.2).sum::<usize>(), 45, "per {per}");
        }
        let want = inst.serial();
        let pool = finegrain::Pool::new(2, "carbon").unwrap();
        assert_eq!(pool.install(|| inst.parallel()), want);
        assert_eq!(inst.rayon().unwrap(), want);
    }
}
