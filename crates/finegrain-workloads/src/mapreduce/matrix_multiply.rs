//! matrix_multiply: the product of two square integer matrices, a block of
//! rows per map task (Phoenix's matrix_multiply, Ranger et al., HPCA 2007,
//! Table 2). The input is as Phoenix's program creates it: values
//! `rand() % 11` from glibc's `rand()` (here in its initial state,
//! [`GlibcRand`]; Phoenix seeds it with the time), A's `n²` first, then
//! B's. Phoenix's job is map-only: each map task writes its rows of the
//! product (in Phoenix++'s i-k-j loop order). The result is a digest of
//! the product, row by row.

use finegrain::mapreduce::{Chunk, MapReduce};
use rayon::prelude::*;
use std::sync::Mutex;

use super::{digests, write_file, GlibcRand};
use crate::support::digest::digest_iter;
use crate::{Instance, Output, PhoenixInput, Size, Workload};

pub struct MatrixMultiply;

impl Workload for MatrixMultiply {
    fn name(&self) -> &'static str {
        "matrix_multiply"
    }
    fn description(&self) -> &'static str {
        "MapReduce: integer matrix product, a block of rows per map task (map only)"
    }
    fn source(&self) -> &'static str {
        "Ranger et al., Phoenix (HPCA 2007), Table 2; Yoo, thesis (Stanford 2012), section 3.3.1"
    }
    fn api(&self) -> &'static str {
        "mapreduce"
    }
    fn prepare(&self, size: Size, _seed: u64) -> Box<dyn Instance> {
        let n = match size {
            Size::Test => 40,
            Size::Small => 200,
            Size::Full | Size::Paper => 512,
        };
        Box::new(MatrixMultiplyInstance::new(n))
    }
}

pub(super) struct MatrixMultiplyInstance {
    pub(super) a: Vec<i32>,
    pub(super) b: Vec<i32>,
    pub(super) n: usize,
}

/// The rows `first..` of the product a map task writes.
struct Rows<'a> {
    first: usize,
    out: Mutex<&'a mut [i32]>,
}
impl Chunk for Rows<'_> {}

impl MatrixMultiplyInstance {
    pub(super) fn new(n: usize) -> MatrixMultiplyInstance {
        let mut g = GlibcRand::new(1);
        let a = (0..n * n).map(|_| g.rand() % 11).collect();
        let b = (0..n * n).map(|_| g.rand() % 11).collect();
        MatrixMultiplyInstance { a, b, n }
    }
    /// Rows `first..first + out.len() / n` of A times B in Phoenix++'s
    /// loop order (i-k-j: each row of C gathers `a[i][k]` times row k of B,
    /// which streams B's rows; Phoenix 2's i-j-k walks B's columns and
    /// measured 2.2x slower here). Integer arithmetic: the order does not
    /// change the product.
    fn rows(&self, first: usize, out: &mut [i32]) {
        let n = self.n;
        for (r, row) in out.chunks_exact_mut(n).enumerate() {
            row.iter_mut().for_each(|c| *c = 0);
            let a = &self.a[(first + r) * n..(first + r + 1) * n];
            for (k, &x) in a.iter().enumerate() {
                for (c, &y) in row.iter_mut().zip(&self.b[k * n..(k + 1) * n]) {
                    *c = c.wrapping_add(x.wrapping_mul(y));
                }
            }
        }
    }
    fn block(&self) -> usize {
        (self.n / 64).max(1)
    }
    fn output(c: &[i32]) -> Output {
        let (len, hash) = digest_iter(c.iter().map(|&x| x as u32 as u64));
        Output::Digest { len, hash }
    }
}

impl Instance for MatrixMultiplyInstance {
    fn describe(&self) -> String {
        format!("{n}x{n} matrices, values below 11 (Phoenix's input)", n = self.n)
    }
    fn serial(&self) -> Output {
        let mut c = vec![0i32; self.n * self.n];
        self.rows(0, &mut c);
        Self::output(&c)
    }
    fn parallel(&self) -> Output {
        let mut c = vec![0i32; self.n * self.n];
        let rows_per = self.block();
        finegrain::record::region(|| {
            let blocks: Vec<Rows<'_>> =
                c.chunks_mut(rows_per * self.n).enumerate().map(|(i, out)| Rows { first: i * rows_per, out: Mutex::new(out) }).collect();
            let mut job = MapReduce::<finegrain::mapreduce::Buffer<usize, ()>>::buffered();
            job.run(
                &blocks,
                |blk: &Rows<'_>, _out| {
                    let mut out = blk.out.lock().unwrap_or_else(|p| p.into_inner());
                    finegrain::record::write(&out[..]);
                    finegrain::record::read(&self.b);
                    self.rows(blk.first, &mut out);
                },
                |_, _| {},
            );
        });
        Self::output(&c)
    }
    fn phoenix(&self, dir: &std::path::Path) -> Option<Result<PhoenixInput, String>> {
        let ints = |m: &[i32]| m.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let folder = dir.join("matrix_multiply");
        let written = std::fs::create_dir_all(&folder)
            .map_err(|e| format!("{}: {e}", folder.display()))
            .and_then(|()| write_file(&folder, "matrix_file_A.txt", &ints(&self.a)))
            .and_then(|_| write_file(&folder, "matrix_file_B.txt", &ints(&self.b)));
        let mut c = vec![0i32; self.n * self.n];
        self.rows(0, &mut c);
        let total = c.iter().fold(0i32, |s, &x| s.wrapping_add(x));
        Some(written.map(|_| PhoenixInput {
            args: format!("input={} side={} row_block={}", folder.display(), self.n, self.block()),
            digests: digests(&format!("{total}\n"), "", &format!("{total}\n")),
        }))
    }
    fn rayon(&self) -> Option<Output> {
        let mut c = vec![0i32; self.n * self.n];
        let rows_per = self.block();
        c.par_chunks_mut(rows_per * self.n).enumerate().for_each(|(i, out)| self.rows(i * rows_per, out));
        Some(Self::output(&c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_product_is_right_and_the_versions_agree() {
        let inst = MatrixMultiplyInstance::new(7);
        let mut c = vec![0; 49];
        inst.rows(0, &mut c);
        let want: i32 = (0..7).map(|k| inst.a[2 * 7 + k] * inst.b[k * 7 + 3]).sum();
        assert_eq!(c[2 * 7 + 3], want);
        let want = inst.serial();
        let pool = finegrain::Pool::new(2, "ws").unwrap();
        assert_eq!(pool.install(|| inst.parallel()), want);
        assert_eq!(inst.rayon().unwrap(), want);
    }
}
