//! `ft`: a 3-D FFT with NPB FT's evolve step, whose z stage reads the
//! pencils through the bit-reversal the x stage leaves behind, one task per
//! block of frequency pencils (R. Yoo, *Locality-Aware Task Management on
//! Many-Core Processors*, PhD thesis, Stanford University, 2012, section
//! 5.4, Table 5.1: NPB "ft", a non-linear pattern run by the binning
//! manager; 4,096 tasks of about 19K instructions).
//!
//! **Program.** A complex `nx x ny x nz` array (x fastest) of uniform
//! random numbers, as NPB FT's initial conditions, is transformed forward
//! in three dimensions and multiplied by NPB FT's evolution factor
//! `exp(-4 pi^2 alpha t |k|^2)`. Section 1, one task per z plane: radix-2
//! decimation-in-frequency FFTs along x, in place, left in bit-reversed order
//! (no reordering pass, as FFT codes that fuse the permutation into the next
//! stage do), then FFTs along y of each column. Section 2, the stage the
//! thesis bins: one task per block of `YB` frequency pencils `(kx, ky..)`,
//! each of which gathers its z pencil from where the x stage left it, at
//! `x = bitrev(kx)`, transforms it along z, applies the evolution factor of
//! its wavenumbers, and stores it back. The result stays in the x-bit-
//! reversed layout.
//!
//! **Hint.** A task's accesses are a non-linear function of its index:
//! frequency `kx` lives at `bitrev(kx)`, so tasks next to each other in the
//! task space read pencils `nx / 2` apart, while the `4` pencils whose
//! complex numbers share one 64-byte line (`x = 4m .. 4m + 3`) belong to
//! tasks `nx / 4` apart. The binning key is the data block a task touches:
//! its pencils' cache-line column `bitrev(kx) / 4`, then its y block. The
//! baseline's contiguous chunks split each cache line between workers; the
//! bins keep its four tasks together.
//!
//! **Deviations.** NPB FT transforms with a Stockham-style radix-2 kernel on
//! copied blocks of pencils and runs the inverse transform of the evolved
//! field each iteration; here one forward transform and one evolution, with
//! the x order left bit-reversed on purpose (that is the index map the brief
//! asks the stage to follow). Section 1 has no hint in either version: its
//! planes are disjoint.
//!
//! **Check.** Every version performs the same butterflies in the same order,
//! so the arrays are bit-identical: a digest of the result's bits. Unit
//! tests compare the transform with a naive 3-D DFT and the 1-D kernels with
//! a naive DFT.

use super::{rayon_space, run_space};
use crate::support::digest::digest_iter;
use crate::support::rng::SplitMix64;
use crate::support::shared::SharedMut;
use crate::{Instance, Output, Size, Workload};
use finegrain::TaskSpace;
use std::f64::consts::PI;

/// A complex number, `[re, im]`.
type C = [f64; 2];

/// Frequency pencils per task of section 2.
const YB: usize = 4;
/// Complex numbers in a 64-byte cache line.
const PER_LINE: usize = 4;
/// NPB FT's diffusion constant, and the time of the single evolution.
const ALPHA: f64 = 1e-6;
const TIME: f64 = 1.0;

pub(crate) struct Ft {
    pub(crate) hint: bool,
}

impl Workload for Ft {
    fn name(&self) -> &'static str {
        if self.hint {
            "ft"
        } else {
            "ft-nohint"
        }
    }
    fn description(&self) -> &'static str {
        "3-D FFT with NPB FT's evolve step: the z stage reads pencils through the x stage's bit-reversal, task spaces binned by cache-line column"
    }
    fn source(&self) -> &'static str {
        "Yoo (PhD thesis, Stanford 2012), section 5.4 (ft = NPB FT, binning manager)"
    }
    fn api(&self) -> &'static str {
        "loop-2d"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let dims = match size {
            Size::Test => [16, 16, 16],
            Size::Small => [64, 64, 64],
            Size::Full | Size::Paper => [128, 128, 128],
        };
        Box::new(FtInstance::generate(dims, seed, self.hint))
    }
}

struct FtInstance {
    dims: [usize; 3],
    input: Vec<C>,
    /// `exp(-2 pi i j / n)` for `j < n / 2`, per dimension.
    twiddles: [Vec<C>; 3],
    hint: bool,
}

/// Reverse the low `bits` bits of `i`.
fn bitrev(i: usize, bits: u32) -> usize {
    if bits == 0 {
        0
    } else {
        i.reverse_bits() >> (usize::BITS - bits)
    }
}

fn mul(a: C, b: C) -> C {
    [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]
}

/// In-place radix-2 decimation-in-frequency FFT of `x` (a power of two
/// long) with twiddles `tw` (`exp(-2 pi i j / n)`): the output is in
/// bit-reversed order.
fn fft_dif(x: &mut [C], tw: &[C]) {
    let n = x.len();
    let mut len = n;
    while len >= 2 {
        let (half, step) = (len / 2, n / len);
        for s in (0..n).step_by(len) {
            for j in 0..half {
                let (a, b) = (x[s + j], x[s + j + half]);
                x[s + j] = [a[0] + b[0], a[1] + b[1]];
                x[s + j + half] = mul([a[0] - b[0], a[1] - b[1]], tw[j * step]);
            }
        }
        len /= 2;
    }
}

/// The FFT of `x` in natural order, through `scratch` (as long as `x`).
fn fft_natural(x: &mut [C], tw: &[C], scratch: &mut [C]) {
    fft_dif(x, tw);
    let bits = x.len().trailing_zeros();
    for (i, s) in scratch.iter_mut().enumerate() {
        *s = x[bitrev(i, bits)];
    }
    x.copy_from_slice(scratch);
}

/// The signed wavenumber of index `k` of `n`.
fn signed(k: usize, n: usize) -> f64 {
    if k < n / 2 {
        k as f64
    } else {
        k as f64 - n as f64
    }
}

impl FtInstance {
    fn generate(dims: [usize; 3], seed: u64, hint: bool) -> FtInstance {
        assert!(
            dims.iter().all(|&n| n.is_power_of_two()) && dims[1].is_multiple_of(YB),
            "ft: dimensions {dims:?} must be powers of two, y a multiple of {YB}"
        );
        let mut rng = SplitMix64::new(seed ^ 0x6674);
        let input = (0..dims.iter().product()).map(|_| [rng.unit(), rng.unit()]).collect();
        let twiddles = dims.map(|n| (0..n / 2).map(|j| (-2.0 * PI * j as f64 / n as f64).sin_cos()).map(|(s, c)| [c, s]).collect());
        FtInstance { dims, input, twiddles, hint }
    }

    fn xbits(&self) -> u32 {
        self.dims[0].trailing_zeros()
    }

    /// Section 1's task: plane `z` of `a`, x then y.
    fn plane(&self, a: &mut [C]) {
        let [nx, ny, _] = self.dims;
        for row in a.chunks_mut(nx) {
            fft_dif(row, &self.twiddles[0]);
        }
        let (mut col, mut scratch) = (vec![[0.0; 2]; ny], vec![[0.0; 2]; ny]);
        for x in 0..nx {
            (0..ny).for_each(|y| col[y] = a[y * nx + x]);
            fft_natural(&mut col, &self.twiddles[1], &mut scratch);
            (0..ny).for_each(|y| a[y * nx + x] = col[y]);
        }
    }

    /// The evolution factor of wavenumbers `(kx, ky, kz)`.
    fn evolve(&self, k: [usize; 3]) -> f64 {
        let k2: f64 = (0..3).map(|d| signed(k[d], self.dims[d]).powi(2)).sum();
        (-4.0 * PI * PI * ALPHA * TIME * k2).exp()
    }

    /// Section 2's task: frequency pencils `(kx, ky)` for `ky` in block
    /// `yb`, stored at `x = bitrev(kx)`.
    fn pencils(&self, a: &SharedMut<'_, C>, [kx, yb]: [usize; 2]) {
        let [nx, ny, nz] = self.dims;
        let x = bitrev(kx, self.xbits());
        let at = |ky: usize, z: usize| (z * ny + ky) * nx + x;
        finegrain::record::declare(|| {
            for ky in yb * YB..(yb + 1) * YB {
                (0..nz).for_each(|z| a.declare_write(at(ky, z)..at(ky, z) + 1));
            }
        });
        let (mut p, mut scratch) = (vec![[0.0; 2]; nz], vec![[0.0; 2]; nz]);
        for ky in yb * YB..(yb + 1) * YB {
            // SAFETY: pencil (x, ky) belongs to this task alone (bitrev is a
            // permutation of x, y blocks are disjoint), and `a` is not read
            // elsewhere during the section.
            (0..nz).for_each(|z| p[z] = unsafe { a.slice(at(ky, z)..at(ky, z) + 1) }[0]);
            self.transform_pencil(&mut p, &mut scratch, kx, ky);
            for (z, &v) in p.iter().enumerate() {
                // SAFETY: as above.
                unsafe { a.write(at(ky, z), v) };
            }
        }
    }

    /// Pencil `(kx, ky)`, gathered in `p`: along z, then evolved.
    fn transform_pencil(&self, p: &mut [C], scratch: &mut [C], kx: usize, ky: usize) {
        fft_natural(p, &self.twiddles[2], scratch);
        for (kz, v) in p.iter_mut().enumerate() {
            let e = self.evolve([kx, ky, kz]);
            *v = [v[0] * e, v[1] * e];
        }
    }

    /// Section 2's binning key: the cache-line column of the task's
    /// pencils, then its y block.
    fn key(&self, [kx, yb]: [usize; 2]) -> u64 {
        ((bitrev(kx, self.xbits()) / PER_LINE) * (self.dims[1] / YB) + yb) as u64
    }

    fn max_key(&self) -> u64 {
        (self.dims[0].div_ceil(PER_LINE) * (self.dims[1] / YB) - 1) as u64
    }

    /// Both sections, section 1 over planes and section 2 over
    /// `[nx, ny / YB]` pencil blocks, each run by `section`.
    fn run_with(&self, section: impl Fn(usize, [usize; 3], &(dyn Fn([usize; 3]) + Sync))) -> Output {
        let [nx, ny, nz] = self.dims;
        let mut a = self.input.clone();
        {
            let shared = SharedMut::new(&mut a);
            section(1, [nz, 1, 1], &|[z, _, _]| {
                // SAFETY: planes are disjoint; task z alone touches plane z.
                let plane = unsafe { shared.slice(z * nx * ny..(z + 1) * nx * ny) };
                finegrain::record::declare(|| shared.declare_write(z * nx * ny..(z + 1) * nx * ny));
                self.plane(plane);
            });
        }
        {
            let shared = SharedMut::new(&mut a);
            section(2, [nx, ny / YB, 1], &|[kx, yb, _]| self.pencils(&shared, [kx, yb]));
        }
        digest(&a)
    }
}

fn digest(a: &[C]) -> Output {
    let (len, hash) = digest_iter(a.iter().flat_map(|c| [c[0].to_bits(), c[1].to_bits()]));
    Output::Digest { len, hash }
}

impl Instance for FtInstance {
    fn describe(&self) -> String {
        let [nx, ny, nz] = self.dims;
        format!("{nx} x {ny} x {nz} complex, {nz} plane tasks, {} pencil-block tasks of {YB}", nx * ny / YB)
    }
    fn serial(&self) -> Output {
        let [nx, ny, nz] = self.dims;
        let mut a = self.input.clone();
        for plane in a.chunks_mut(nx * ny) {
            self.plane(plane);
        }
        let (mut p, mut scratch) = (vec![[0.0; 2]; nz], vec![[0.0; 2]; nz]);
        for kx in 0..nx {
            let x = bitrev(kx, self.xbits());
            for ky in 0..ny {
                (0..nz).for_each(|z| p[z] = a[(z * ny + ky) * nx + x]);
                self.transform_pencil(&mut p, &mut scratch, kx, ky);
                (0..nz).for_each(|z| a[(z * ny + ky) * nx + x] = p[z]);
            }
        }
        digest(&a)
    }
    fn parallel(&self) -> Output {
        let key = |[kx, yb, _]: [usize; 3]| self.key([kx, yb]);
        self.run_with(|stage, extents, task| {
            let space = TaskSpace::new(extents);
            let space = if self.hint && stage == 2 { space.bins(&key, 0, self.max_key()) } else { space };
            run_space(space, task);
        })
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.run_with(|_, extents, task| rayon_space(extents, task)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_dft(x: &[C]) -> Vec<C> {
        let n = x.len();
        (0..n)
            .map(|k| {
                x.iter().enumerate().fold([0.0, 0.0], |acc, (j, v)| {
                    let (s, c) = (-2.0 * PI * (j * k % n) as f64 / n as f64).sin_cos();
                    let t = mul(*v, [c, s]);
                    [acc[0] + t[0], acc[1] + t[1]]
                })
            })
            .collect()
    }

    #[test]
    fn kernels_match_a_naive_dft() {
        let mut rng = SplitMix64::new(3);
        for n in [1, 2, 8, 32] {
            let x: Vec<C> = (0..n).map(|_| [rng.unit() - 0.5, rng.unit() - 0.5]).collect();
            let tw: Vec<C> = (0..n / 2).map(|j| (-2.0 * PI * j as f64 / n as f64).sin_cos()).map(|(s, c)| [c, s]).collect();
            let expect = naive_dft(&x);
            let mut dif = x.clone();
            fft_dif(&mut dif, &tw);
            let mut nat = x.clone();
            fft_natural(&mut nat, &tw, &mut vec![[0.0; 2]; n]);
            for k in 0..n {
                let b = bitrev(k, n.trailing_zeros());
                assert!((dif[b][0] - expect[k][0]).abs() < 1e-12 && (dif[b][1] - expect[k][1]).abs() < 1e-12, "n {n} k {k}");
                assert!((nat[k][0] - expect[k][0]).abs() < 1e-12 && (nat[k][1] - expect[k][1]).abs() < 1e-12, "n {n} k {k}");
            }
        }
    }

    /// The whole program equals a naive 3-D DFT times the evolution factor,
    /// read through the x bit-reversal.
    #[test]
    fn transform_matches_a_naive_3d_dft() {
        let inst = FtInstance::generate([8, 4, 8], 2, true);
        let [nx, ny, nz] = inst.dims;
        let mut a = inst.input.clone();
        for plane in a.chunks_mut(nx * ny) {
            inst.plane(plane);
        }
        let shared = SharedMut::new(&mut a);
        (0..nx).for_each(|kx| (0..ny / YB).for_each(|yb| inst.pencils(&shared, [kx, yb])));
        for kz in 0..nz {
            for ky in 0..ny {
                for kx in 0..nx {
                    let mut sum = [0.0, 0.0];
                    for (i, v) in inst.input.iter().enumerate() {
                        let (x, y, z) = (i % nx, i / nx % ny, i / (nx * ny));
                        let phase = -2.0 * PI * ((x * kx) as f64 / nx as f64 + (y * ky) as f64 / ny as f64 + (z * kz) as f64 / nz as f64);
                        let t = mul(*v, [phase.cos(), phase.sin()]);
                        sum = [sum[0] + t[0], sum[1] + t[1]];
                    }
                    let e = inst.evolve([kx, ky, kz]);
                    let got = a[(kz * ny + ky) * nx + bitrev(kx, 3)];
                    assert!((got[0] - e * sum[0]).abs() < 1e-9 && (got[1] - e * sum[1]).abs() < 1e-9, "{kx} {ky} {kz}: {got:?} {sum:?}");
                }
            }
        }
    }

    /// Tasks with one key read the same cache lines: the four of a key are
    /// `nx / 4` apart in the task space.
    #[test]
    fn keys_group_the_tasks_of_a_cache_line() {
        let inst = FtInstance::generate([32, 8, 4], 1, true);
        let mut members = vec![vec![]; inst.max_key() as usize + 1];
        for kx in 0..32 {
            for yb in 0..2 {
                members[inst.key([kx, yb]) as usize].push((kx, bitrev(kx, 5)));
            }
        }
        for m in &members {
            assert_eq!(m.len(), PER_LINE);
            assert!(m.iter().all(|&(_, x)| x / PER_LINE == m[0].1 / PER_LINE));
            assert!(m.windows(2).all(|w| w[1].0 - w[0].0 == 32 / PER_LINE));
        }
    }

    #[test]
    fn hinted_and_unhinted_match_serial() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for hint in [true, false] {
            let inst = FtInstance::generate([16, 8, 8], 5, hint);
            assert_eq!(inst.serial(), pool.install(|| inst.parallel()));
            assert_eq!(inst.serial(), inst.rayon().unwrap());
        }
    }
}
