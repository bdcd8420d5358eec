//! `conv`: repeated 5x5 convolution of an image, computed in square output
//! blocks, one task per block (R. Yoo, *Locality-Aware Task Management on
//! Many-Core Processors*, PhD thesis, Stanford University, 2012, section
//! 4.4, Table 4.4, and section 5.4, Figure 5.4 and the workload table of
//! chapter 5: "conv", a linear pattern run by the flux manager; 16,384 tasks
//! of about 17.6K instructions).
//!
//! **Hint.** The sharing vector of the block geometry: a task reads its
//! block plus a 2-pixel halo, `(b + 4) x (b + 4)` pixels, so two neighbours
//! along x share 4 columns of `b + 4` rows (one cache line per row: 4 `f32`
//! fit in a line) and two neighbours along y share 4 rows of `b + 4` pixels
//! (`ceil(4 (b + 4) / 64)` lines each). `sharing` computes both and passes
//! them to `.flux`.
//!
//! **Deviations.** The thesis convolves once; here the filter is applied
//! `passes` times (an iterated smoothing, ping-pong between two padded
//! buffers), each pass one task space, so that the full size runs long
//! enough to time; the passes reuse their plan (`Replay`, thesis 5.5.2). The
//! border is replicated into the halo between passes, serially (a few
//! thousand pixels). The image is generated (smooth gradients, rectangles,
//! noise), not read from a file.
//!
//! **Check.** Every pixel is summed in the same order (kernel row, then
//! column) by every version, so results are bit-identical: the output is a
//! digest of the final image's bits, compared exactly.

use super::{rayon_space, run_space};
use crate::support::digest::digest_iter;
use crate::support::rng::SplitMix64;
use crate::support::shared::SharedMut;
use crate::{Instance, Output, Size, Workload};
use finegrain::{Replay, TaskSpace};

/// The kernel's radius: 5 x 5 taps.
const R: usize = 2;
const TAPS: usize = 2 * R + 1;
/// Bytes in a cache line, for the sharing vector.
const LINE: usize = 64;

pub(crate) struct Conv {
    pub(crate) hint: bool,
}

impl Workload for Conv {
    fn name(&self) -> &'static str {
        if self.hint {
            "conv"
        } else {
            "conv-nohint"
        }
    }
    fn description(&self) -> &'static str {
        "iterated 5x5 convolution of an f32 image in square blocks, one task per block, as a task space with a flux hint"
    }
    fn source(&self) -> &'static str {
        "Yoo (PhD thesis, Stanford 2012), sections 4.4 and 5.4 (conv, flux manager)"
    }
    fn api(&self) -> &'static str {
        "loop-2d"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (w, h, block, passes) = match size {
            Size::Test => (96, 64, 16, 2),
            Size::Small => (1024, 1024, 16, 2),
            Size::Full | Size::Paper => (4096, 4096, 32, 8),
        };
        Box::new(ConvInstance::generate(w, h, block, passes, seed, self.hint))
    }
}

struct ConvInstance {
    w: usize,
    h: usize,
    block: usize,
    passes: usize,
    /// The image with a replicated 2-pixel border, `(w + 4) x (h + 4)`.
    padded: Vec<f32>,
    kernel: [f32; TAPS * TAPS],
    hint: bool,
}

impl ConvInstance {
    fn generate(w: usize, h: usize, block: usize, passes: usize, seed: u64, hint: bool) -> ConvInstance {
        assert!(w.is_multiple_of(block) && h.is_multiple_of(block), "conv: {w} x {h} is not a whole number of {block}-pixel blocks");
        let mut rng = SplitMix64::new(seed ^ 0x636f_6e76);
        // Smooth gradients along x and y, a few bright and dark rectangles,
        // and sensor noise.
        let (fx, fy) = (0.5 + 4.0 * rng.unit(), 0.5 + 4.0 * rng.unit());
        let gx: Vec<f32> = (0..w).map(|x| (fx * x as f64 / w as f64 * std::f64::consts::TAU).sin() as f32).collect();
        let gy: Vec<f32> = (0..h).map(|y| (fy * y as f64 / h as f64 * std::f64::consts::TAU).cos() as f32).collect();
        let mut img: Vec<f32> = (0..w * h).map(|i| 0.5 + 0.2 * (gx[i % w] + gy[i / w]) + 0.05 * (rng.unit() as f32 - 0.5)).collect();
        for _ in 0..12 {
            let (x0, y0) = (rng.below(w as u64) as usize, rng.below(h as u64) as usize);
            let (x1, y1) = ((x0 + 1 + rng.below(w as u64 / 4) as usize).min(w), (y0 + 1 + rng.below(h as u64 / 4) as usize).min(h));
            let v = rng.unit() as f32 - 0.5;
            for y in y0..y1 {
                img[y * w + x0..y * w + x1].iter_mut().for_each(|p| *p += v);
            }
        }
        // A Gaussian kernel, jittered by the seed, normalised to sum 1.
        let sigma = 0.8 + 0.8 * rng.unit();
        let mut kernel = [0.0f32; TAPS * TAPS];
        for (t, k) in kernel.iter_mut().enumerate() {
            let (dy, dx) = ((t / TAPS) as f64 - R as f64, (t % TAPS) as f64 - R as f64);
            *k = ((-(dx * dx + dy * dy) / (2.0 * sigma * sigma)).exp() * (1.0 + 0.1 * rng.unit())) as f32;
        }
        let sum: f32 = kernel.iter().sum();
        kernel.iter_mut().for_each(|k| *k /= sum);
        let pw = w + 2 * R;
        let mut padded = vec![0.0f32; pw * (h + 2 * R)];
        for y in 0..h {
            padded[(y + R) * pw + R..(y + R) * pw + R + w].copy_from_slice(&img[y * w..(y + 1) * w]);
        }
        replicate_border(&mut padded, w, h);
        ConvInstance { w, h, block, passes, padded, kernel, hint }
    }

    fn blocks(&self) -> [usize; 3] {
        [self.w / self.block, self.h / self.block, 1]
    }

    /// Lines shared by neighbouring tasks along x and y (see the module doc).
    fn sharing(&self) -> [u64; 3] {
        let b = self.block + 2 * R;
        let along_x = b;
        let along_y = 2 * R * (b * std::mem::size_of::<f32>()).div_ceil(LINE);
        [along_x as u64, along_y as u64, 0]
    }

    fn result(&self, padded: &[f32]) -> Output {
        let pw = self.w + 2 * R;
        let (len, hash) =
            digest_iter((0..self.h).flat_map(|y| padded[(y + R) * pw + R..(y + R) * pw + R + self.w].iter().map(|p| p.to_bits() as u64)));
        Output::Digest { len, hash }
    }

    /// Run every pass, each with `section` over the blocks, ping-ponging
    /// between two padded buffers.
    fn passes_with(&self, section: impl Fn(&[f32], &SharedMut<'_, f32>, &mut Replay)) -> Output {
        let mut src = self.padded.clone();
        let mut dst = self.padded.clone();
        let mut replay = Replay::new();
        for _ in 0..self.passes {
            section(&src, &SharedMut::new(&mut dst), &mut replay);
            replicate_border(&mut dst, self.w, self.h);
            std::mem::swap(&mut src, &mut dst);
        }
        self.result(&src)
    }

    /// One task: the output block `[bx, by]` of `src` into `dst`.
    fn task(&self, src: &[f32], dst: &SharedMut<'_, f32>, [bx, by, _]: [usize; 3]) {
        let pw = self.w + 2 * R;
        let (x0, y0, b) = (bx * self.block, by * self.block, self.block);
        finegrain::record::declare(|| {
            for y in y0..y0 + b + 2 * R {
                finegrain::record::read(&src[y * pw + x0..y * pw + x0 + b + 2 * R]);
            }
            for y in y0..y0 + b {
                dst.declare_write((y + R) * pw + x0 + R..(y + R) * pw + x0 + R + b);
            }
        });
        for y in y0..y0 + b {
            // SAFETY: task [bx, by] alone writes row y's pixels x0..x0 + b
            // (blocks tile the image), and `dst` is read only after the
            // section has finished.
            let out = unsafe { dst.slice((y + R) * pw + x0 + R..(y + R) * pw + x0 + R + b) };
            convolve_row(src, pw, &self.kernel, y, x0, out);
        }
    }
}

/// Output row `y`, pixels `x0..x0 + out.len()`, of `src` (padded, row pitch
/// `pw`) under `kernel`: each pixel sums kernel row by kernel row, column by
/// column, from zero (`R` is 2: five taps a row).
fn convolve_row(src: &[f32], pw: usize, kernel: &[f32; TAPS * TAPS], y: usize, x0: usize, out: &mut [f32]) {
    out.fill(0.0);
    let n = out.len();
    for ky in 0..TAPS {
        let row = &src[(y + ky) * pw + x0..(y + ky) * pw + x0 + n + 2 * R];
        let c = &kernel[ky * TAPS..(ky + 1) * TAPS];
        // Five shifted views of one length, so that the loop has no bounds
        // checks and vectorises across x; each pixel still adds its taps
        // left to right.
        let (r0, r1, r2, r3, r4) = (&row[..n], &row[1..n + 1], &row[2..n + 2], &row[3..n + 3], &row[4..n + 4]);
        for i in 0..n {
            out[i] = out[i] + c[0] * r0[i] + c[1] * r1[i] + c[2] * r2[i] + c[3] * r3[i] + c[4] * r4[i];
        }
    }
}

/// Copy the outermost interior pixels of a padded `w x h` image into its
/// 2-pixel border (clamp-to-edge).
fn replicate_border(padded: &mut [f32], w: usize, h: usize) {
    let pw = w + 2 * R;
    for y in R..h + R {
        let (first, last) = (padded[y * pw + R], padded[y * pw + R + w - 1]);
        padded[y * pw..y * pw + R].fill(first);
        padded[y * pw + R + w..(y + 1) * pw].fill(last);
    }
    for y in 0..R {
        padded.copy_within(R * pw..(R + 1) * pw, y * pw);
        padded.copy_within((h + R - 1) * pw..(h + R) * pw, (h + R + y) * pw);
    }
}

impl Instance for ConvInstance {
    fn describe(&self) -> String {
        let [bx, by, _] = self.blocks();
        format!("{} x {} image, {} x {} blocks of {}^2 ({} tasks), {} passes", self.w, self.h, bx, by, self.block, bx * by, self.passes)
    }
    fn serial(&self) -> Output {
        let pw = self.w + 2 * R;
        let mut src = self.padded.clone();
        let mut dst = self.padded.clone();
        for _ in 0..self.passes {
            for y in 0..self.h {
                convolve_row(&src, pw, &self.kernel, y, 0, &mut dst[(y + R) * pw + R..(y + R) * pw + R + self.w]);
            }
            replicate_border(&mut dst, self.w, self.h);
            std::mem::swap(&mut src, &mut dst);
        }
        self.result(&src)
    }
    fn parallel(&self) -> Output {
        let sharing = self.sharing();
        self.passes_with(|src, dst, replay| {
            let space = TaskSpace::new(self.blocks()).replay(replay);
            let space = if self.hint { space.flux(sharing) } else { space };
            run_space(space, |p| self.task(src, dst, p));
        })
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.passes_with(|src, dst, _| rayon_space(self.blocks(), |p| self.task(src, dst, p))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A constant image stays constant under a normalised kernel (up to the
    /// kernel's rounding), and an impulse spreads into the kernel itself.
    #[test]
    fn convolution_of_known_images() {
        let mut inst = ConvInstance::generate(32, 32, 16, 1, 7, true);
        inst.padded.fill(0.25);
        let Output::Digest { .. } = inst.serial() else { panic!() };
        let pw = 32 + 2 * R;
        let mut out = vec![0.0f32; 32];
        convolve_row(&inst.padded, pw, &inst.kernel, 10, 0, &mut out);
        assert!(out.iter().all(|&v| (v - 0.25).abs() < 1e-6), "{out:?}");
        inst.padded.fill(0.0);
        inst.padded[(10 + R) * pw + 10 + R] = 1.0;
        for dy in 0..TAPS {
            convolve_row(&inst.padded, pw, &inst.kernel, 10 + dy - R, 8, &mut out[..5]);
            // Output (8 + dx, 10 + dy - 2) sees the impulse through tap
            // (2 - dy + 2, 2 - dx + 2), i.e. the kernel flipped.
            for (dx, &v) in out[..TAPS].iter().enumerate() {
                assert_eq!(v, inst.kernel[(TAPS - 1 - dy) * TAPS + (TAPS - 1 - dx)]);
            }
        }
    }

    #[test]
    fn sharing_vector_follows_the_block_geometry() {
        let inst = ConvInstance::generate(64, 64, 32, 1, 1, true);
        // 36 rows share a line each along x; 4 rows of 36 floats (3 lines) along y.
        assert_eq!(inst.sharing(), [36, 12, 0]);
    }

    /// `flux_approx` (thesis §5.5.1) finds, from the tasks' declared
    /// footprints, a vector that ranks the dimensions as the geometry does,
    /// within a line per row of the declared one.
    #[test]
    fn flux_approx_ranks_dimensions_as_the_geometry_does() {
        let inst = ConvInstance::generate(256, 256, 32, 1, 1, true);
        let pool = finegrain::Pool::new(2, "ws").unwrap();
        let src = inst.padded.clone();
        let mut dst = inst.padded.clone();
        let dst = SharedMut::new(&mut dst);
        let info = pool.install(|| TaskSpace::new(inst.blocks()).flux_approx().run(|p| inst.task(&src, &dst, p))).unwrap();
        let found = info.sharing.unwrap();
        let declared = inst.sharing();
        assert_eq!(
            finegrain::policy::locality::flux::by_sharing(found),
            finegrain::policy::locality::flux::by_sharing(declared),
            "{found:?} vs {declared:?}"
        );
        // Along x one line per row, two where the shared columns straddle a line.
        assert!(found[0] >= declared[0] && found[0] <= 2 * declared[0], "{found:?} vs {declared:?}");
    }

    #[test]
    fn hinted_and_unhinted_match_serial() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for hint in [true, false] {
            let inst = ConvInstance::generate(96, 48, 16, 3, 5, hint);
            assert_eq!(inst.serial(), pool.install(|| inst.parallel()));
        }
    }
}
