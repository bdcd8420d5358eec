//! `mmm`: blocked dense matrix multiply `C = A B` as a 3-D task space of
//! block products, one task per `(i, j, k)`: `C[i][j] += A[i][k] B[k][j]`
//! (R. Yoo, *Locality-Aware Task Management on Many-Core Processors*, PhD
//! thesis, Stanford University, 2012, section 4.4, Table 4.4, and section
//! 5.4, Figure 5.4: "mmm", a linear pattern with a 3-D space run by the flux
//! manager; 32,768 tasks of about 13K instructions in chapter 5).
//!
//! **Races.** Tasks `(i, j, *)` add into the same block of C. Each task
//! computes its product into a private buffer, then adds it into `C[i][j]`
//! under that block's lock: the 3-D space of the thesis stays (a 2-D space
//! of `(i, j)` tasks looping over k would hide from the manager the sharing
//! of A and B blocks along k, which is what Figure 5.4's vector describes),
//! and a lock held for `b^2` additions is short next to the `b^3`
//! multiply-adds of the product.
//!
//! **Hint.** Space `[x, y, z] = [j, i, k]`. Neighbours along x share the A
//! block, along y the B block, along z the C block; each is `b x b` doubles
//! of a row-major matrix, `b` rows of `8 b / 64` lines, so the sharing vector
//! is `(b^2 / 8, b^2 / 8, b^2 / 8)` lines. The thesis's `(64, 256, 16)`
//! comes from its own block shapes; with square blocks the three are equal.
//!
//! **Check.** The blocks of C receive their k partial products in whatever
//! order the tasks run, so C differs from the serial result (k ascending) by
//! rounding: relative tolerance 1e-12 of each entry (all entries are sums of
//! positive products, so no cancellation).

use super::{rayon_space, run_space};
use crate::support::rng::SplitMix64;
use crate::support::tolerance::{check_floats, Scale};
use crate::{Instance, Output, Size, Workload};
use finegrain::TaskSpace;
use std::sync::Mutex;

const TOLERANCE: f64 = 1e-12;
/// Bytes in a cache line, for the sharing vector.
const LINE: usize = 64;

pub(crate) struct Mmm {
    pub(crate) hint: bool,
}

impl Workload for Mmm {
    fn name(&self) -> &'static str {
        if self.hint {
            "mmm"
        } else {
            "mmm-nohint"
        }
    }
    fn description(&self) -> &'static str {
        "blocked dense f64 matrix multiply, one task per (i, j, k) block product, as a 3-D task space with a flux hint"
    }
    fn source(&self) -> &'static str {
        "Yoo (PhD thesis, Stanford 2012), sections 4.4 and 5.4, Figure 5.4 (mmm, flux manager)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (n, b) = match size {
            Size::Test => (96, 16),
            Size::Small => (384, 32),
            Size::Full | Size::Paper => (1280, 32),
        };
        let mut rng = SplitMix64::new(seed ^ 0x006d_6d6d);
        let a = (0..n * n).map(|_| rng.unit()).collect();
        let bm = (0..n * n).map(|_| rng.unit()).collect();
        Box::new(MmmInstance { n, b, a, bm, hint: self.hint })
    }
}

struct MmmInstance {
    n: usize,
    /// Block side.
    b: usize,
    /// A and B, row-major.
    a: Vec<f64>,
    bm: Vec<f64>,
    hint: bool,
}

impl MmmInstance {
    fn blocks(&self) -> usize {
        self.n / self.b
    }

    fn sharing(&self) -> [u64; 3] {
        let block = (self.b * self.b * std::mem::size_of::<f64>() / LINE) as u64;
        [block, block, block]
    }

    /// `A[i][k] B[k][j]` into `p` (zeroed first), row by row.
    fn product(&self, i: usize, j: usize, k: usize, p: &mut [f64]) {
        let (n, b) = (self.n, self.b);
        p.fill(0.0);
        for r in 0..b {
            let arow = &self.a[(i * b + r) * n + k * b..(i * b + r) * n + k * b + b];
            let prow = &mut p[r * b..(r + 1) * b];
            for (t, &x) in arow.iter().enumerate() {
                let brow = &self.bm[(k * b + t) * n + j * b..(k * b + t) * n + j * b + b];
                for (o, &y) in prow.iter_mut().zip(brow) {
                    *o += x * y;
                }
            }
        }
    }

    /// C, gathered from its blocks, row-major.
    fn gather(&self, c: Vec<Mutex<Vec<f64>>>) -> Output {
        let (n, b, nb) = (self.n, self.b, self.blocks());
        let mut out = vec![0.0; n * n];
        for (q, blk) in c.into_iter().enumerate() {
            let blk = blk.into_inner().unwrap_or_else(|e| e.into_inner());
            let (i, j) = (q / nb, q % nb);
            for r in 0..b {
                out[(i * b + r) * n + j * b..(i * b + r) * n + j * b + b].copy_from_slice(&blk[r * b..(r + 1) * b]);
            }
        }
        Output::Floats(out)
    }

    /// Run `section` over the space with the task body, and gather C.
    fn run_with(&self, section: impl FnOnce([usize; 3], &(dyn Fn([usize; 3]) + Sync))) -> Output {
        let (b, nb) = (self.b, self.blocks());
        let c: Vec<Mutex<Vec<f64>>> = (0..nb * nb).map(|_| Mutex::new(vec![0.0; b * b])).collect();
        let task = |[j, i, k]: [usize; 3]| {
            finegrain::record::declare(|| {
                for r in 0..b {
                    finegrain::record::read(&self.a[(i * b + r) * self.n + k * b..][..b]);
                    finegrain::record::read(&self.bm[(k * b + r) * self.n + j * b..][..b]);
                }
            });
            let mut p = vec![0.0; b * b];
            self.product(i, j, k, &mut p);
            let mut blk = c[i * nb + j].lock().unwrap_or_else(|e| e.into_inner());
            finegrain::record::write(&blk);
            for (o, x) in blk.iter_mut().zip(&p) {
                *o += x;
            }
        };
        section([nb, nb, nb], &task);
        self.gather(c)
    }
}

impl Instance for MmmInstance {
    fn describe(&self) -> String {
        let nb = self.blocks();
        format!("{n} x {n} f64, {b} x {b} blocks, {t} block products", n = self.n, b = self.b, t = nb * nb * nb)
    }
    fn serial(&self) -> Output {
        let (b, nb) = (self.b, self.blocks());
        let mut c: Vec<Mutex<Vec<f64>>> = Vec::with_capacity(nb * nb);
        let mut p = vec![0.0; b * b];
        for i in 0..nb {
            for j in 0..nb {
                let mut blk = vec![0.0; b * b];
                for k in 0..nb {
                    self.product(i, j, k, &mut p);
                    blk.iter_mut().zip(&p).for_each(|(o, x)| *o += x);
                }
                c.push(Mutex::new(blk));
            }
        }
        self.gather(c)
    }
    fn parallel(&self) -> Output {
        self.run_with(|extents, task| {
            let space = TaskSpace::new(extents);
            let space = if self.hint { space.flux(self.sharing()) } else { space };
            run_space(space, task);
        })
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.run_with(|extents, task| rayon_space(extents, task)))
    }
    fn check(&self, reference: &Output, got: &Output) -> Result<(), String> {
        check_floats(reference, got, TOLERANCE, Scale::Each)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocked product equals the textbook triple loop.
    #[test]
    fn blocked_product_is_the_product() {
        let inst = (Mmm { hint: true }).prepare(Size::Test, 3);
        let reference = inst.serial();
        let mut rng = SplitMix64::new(3 ^ 0x006d_6d6d);
        let n = 96;
        let a: Vec<f64> = (0..n * n).map(|_| rng.unit()).collect();
        let bm: Vec<f64> = (0..n * n).map(|_| rng.unit()).collect();
        let naive: Vec<f64> = (0..n * n).map(|q| (0..n).map(|t| a[q / n * n + t] * bm[t * n + q % n]).sum()).collect();
        inst.check(&reference, &Output::Floats(naive)).unwrap();
    }

    #[test]
    fn hinted_and_unhinted_match_serial() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for hint in [true, false] {
            let inst = (Mmm { hint }).prepare(Size::Test, 9);
            inst.check(&inst.serial(), &pool.install(|| inst.parallel())).unwrap();
        }
    }
}
