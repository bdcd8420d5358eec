//! `brmap`: barrel-distortion lens correction of a panning video, each
//! output pixel bilinearly interpolated at its distorted position in the
//! input frame, one task per rectangle of output pixels (R. Yoo,
//! *Locality-Aware Task Management on Many-Core Processors*, PhD thesis,
//! Stanford University, 2012, section 4.1.1, Table 4.1: "brmap", pixel remap
//! of a sub-image, "row-wise neighbouring rectangles share cache lines",
//! structured sharing; 4,977 tasks of about 1.3K instructions).
//!
//! **Program.** The radial (Brown-Conrady) lens model: output pixel `p`,
//! at normalised offset `q = (p - c) / R` from the image centre, shows the
//! input at `c + R q (1 + k1 |q|^2 + k2 |q|^4)`; the value there is the
//! bilinear interpolation of the four input pixels around it (zero outside
//! the frame). Each frame of the video is a window of a larger generated
//! scene (gradients, rectangles, noise), moved by a few pixels a frame, as a
//! panning camera sees it; each frame is one task space of `32 x 8`
//! rectangles, which keeps its plan across frames (`Replay`, thesis section
//! 5.5.2).
//!
//! **Hint.** The sharing vector from the geometry: the input cache lines
//! (16 `f32`s) the four interpolation taps of a rectangle's pixels touch,
//! intersected with those of its neighbour along x and along y, averaged
//! over a grid of sample rectangles (the distortion grows towards the
//! corners), once per input with the scene, untimed. Row-wise neighbours share the cache lines where their source
//! spans meet on every row; neighbours along y share the one or two source
//! rows between them.
//!
//! **Deviations.** The thesis gives no lens model or image size; the
//! coefficients are those of a wide-angle lens with barrel distortion
//! (`k1 = -0.18`, `k2 = 0.03`: the corrected image's corners come from
//! about 0.8 of their radius, inside the frame), the scene is generated.
//!
//! **Check.** Every version computes each pixel with the same expression,
//! so the frames are bit-identical: the output is one digest per frame.
//! Unit tests check that zero distortion copies the frame and that the
//! remap of a linear ramp is exact up to `f32` rounding.

use super::{rayon_space, run_space};
use crate::support::digest::digest_iter;
use crate::support::rng::SplitMix64;
use crate::support::shared::SharedMut;
use crate::{Instance, Output, Size, Workload};
use finegrain::{Replay, TaskSpace};
use std::collections::HashSet;

/// A task's rectangle of output pixels.
const BW: usize = 32;
const BH: usize = 8;
/// `f32`s in a cache line.
const PER_LINE: usize = 16;
/// Lens coefficients and the pan per frame (pixels, x and y).
const K1: f32 = -0.18;
const K2: f32 = 0.03;
const PAN: [usize; 2] = [3, 2];

pub(crate) struct Brmap {
    pub(crate) hint: bool,
}

impl Workload for Brmap {
    fn name(&self) -> &'static str {
        if self.hint {
            "brmap"
        } else {
            "brmap-nohint"
        }
    }
    fn description(&self) -> &'static str {
        "barrel-distortion lens correction of a panning video with bilinear interpolation, one task per 32x8 rectangle, task spaces with flux hints"
    }
    fn source(&self) -> &'static str {
        "Yoo (PhD thesis, Stanford 2012), section 4.1.1 (brmap, structured sharing)"
    }
    fn api(&self) -> &'static str {
        "loop-2d"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (w, h, frames) = match size {
            Size::Test => (96, 64, 2),
            Size::Small => (512, 384, 2),
            Size::Full | Size::Paper => (2048, 1536, 4),
        };
        Box::new(BrmapInstance::generate(w, h, frames, seed, self.hint))
    }
}

struct BrmapInstance {
    /// Frame size.
    w: usize,
    h: usize,
    frames: usize,
    /// The scene, `sw` pixels a row; frame `f` is its window at `f * PAN`.
    scene: Vec<f32>,
    sw: usize,
    k: [f32; 2],
    /// The flux hint, computed once per input (untimed).
    sharing: [u64; 3],
    hint: bool,
}

impl BrmapInstance {
    fn generate(w: usize, h: usize, frames: usize, seed: u64, hint: bool) -> BrmapInstance {
        assert!(w.is_multiple_of(BW) && h.is_multiple_of(BH) && frames > 0, "brmap: {w} x {h} is not a whole number of {BW} x {BH} rectangles");
        let mut rng = SplitMix64::new(seed ^ 0x6272_6d61);
        let (sw, sh) = (w + PAN[0] * frames, h + PAN[1] * frames);
        let (fx, fy) = (1.0 + 6.0 * rng.unit(), 1.0 + 6.0 * rng.unit());
        let mut scene: Vec<f32> = (0..sw * sh)
            .map(|i| {
                let (x, y) = ((i % sw) as f64 / sw as f64, (i / sw) as f64 / sh as f64);
                (0.5 + 0.2 * (fx * x * std::f64::consts::TAU).sin() + 0.2 * (fy * y * std::f64::consts::TAU).cos() + 0.05 * (rng.unit() - 0.5)) as f32
            })
            .collect();
        for _ in 0..40 {
            let (x0, y0) = (rng.below(sw as u64) as usize, rng.below(sh as u64) as usize);
            let (x1, y1) = ((x0 + 1 + rng.below(sw as u64 / 6) as usize).min(sw), (y0 + 1 + rng.below(sh as u64 / 6) as usize).min(sh));
            let v = rng.unit() as f32 - 0.5;
            for y in y0..y1 {
                scene[y * sw + x0..y * sw + x1].iter_mut().for_each(|p| *p += v);
            }
        }
        let mut inst = BrmapInstance { w, h, frames, scene, sw, k: [K1, K2], sharing: [0; 3], hint };
        inst.sharing = inst.sharing();
        inst
    }

    fn rects(&self) -> [usize; 3] {
        [self.w / BW, self.h / BH, 1]
    }

    /// The input position output pixel `(x, y)` shows.
    #[inline]
    fn source(&self, x: usize, y: usize) -> (f32, f32) {
        let (cx, cy) = ((self.w as f32 - 1.0) / 2.0, (self.h as f32 - 1.0) / 2.0);
        let r = cx.max(cy);
        let (qx, qy) = ((x as f32 - cx) / r, (y as f32 - cy) / r);
        let r2 = qx * qx + qy * qy;
        let s = 1.0 + self.k[0] * r2 + self.k[1] * r2 * r2;
        (cx + r * qx * s, cy + r * qy * s)
    }

    /// The four taps (frame coordinates, top-left) and the weights of the
    /// bilinear interpolation at `(sx, sy)`; `None` outside the frame.
    #[inline]
    fn taps(&self, (sx, sy): (f32, f32)) -> Option<(usize, usize, f32, f32)> {
        if sx < 0.0 || sy < 0.0 || sx > (self.w - 1) as f32 || sy > (self.h - 1) as f32 {
            return None;
        }
        let (x0, y0) = ((sx as usize).min(self.w - 2), (sy as usize).min(self.h - 2));
        Some((x0, y0, sx - x0 as f32, sy - y0 as f32))
    }

    /// Output row `y`, pixels `x0..x0 + out.len()`, of frame `f`.
    fn row(&self, f: usize, y: usize, x0: usize, out: &mut [f32]) {
        let base = f * PAN[1] * self.sw + f * PAN[0];
        for (i, o) in out.iter_mut().enumerate() {
            *o = match self.taps(self.source(x0 + i, y)) {
                None => 0.0,
                Some((tx, ty, fx, fy)) => {
                    let p = base + ty * self.sw + tx;
                    let (a, b, c, d) = (self.scene[p], self.scene[p + 1], self.scene[p + self.sw], self.scene[p + self.sw + 1]);
                    (1.0 - fy) * ((1.0 - fx) * a + fx * b) + fy * ((1.0 - fx) * c + fx * d)
                }
            };
        }
    }

    /// The scene's cache lines rectangle `[bx, by]` of frame `f` reads.
    fn footprint(&self, f: usize, [bx, by]: [usize; 2]) -> HashSet<usize> {
        let base = f * PAN[1] * self.sw + f * PAN[0];
        let mut lines = HashSet::new();
        for y in by * BH..(by + 1) * BH {
            for x in bx * BW..(bx + 1) * BW {
                if let Some((tx, ty, _, _)) = self.taps(self.source(x, y)) {
                    for p in [ty * self.sw + tx, ty * self.sw + tx + 1, (ty + 1) * self.sw + tx, (ty + 1) * self.sw + tx + 1] {
                        lines.insert((base + p) / PER_LINE);
                    }
                }
            }
        }
        lines
    }

    /// Input lines shared with the neighbour along x and along y, the mean
    /// over a grid of up to 8 x 8 sample rectangles.
    fn sharing(&self) -> [u64; 3] {
        let [nx, ny, _] = self.rects();
        let (mut along, mut samples) = ([0usize; 2], 0);
        for by in (0..ny - 1).step_by((ny / 8).max(1)) {
            for bx in (0..nx - 1).step_by((nx / 8).max(1)) {
                let mine = self.footprint(0, [bx, by]);
                along[0] += mine.intersection(&self.footprint(0, [bx + 1, by])).count();
                along[1] += mine.intersection(&self.footprint(0, [bx, by + 1])).count();
                samples += 1;
            }
        }
        let mean = |s: usize| (s as f64 / samples.max(1) as f64).round() as u64;
        [mean(along[0]), mean(along[1]), 0]
    }

    /// One task: rectangle `[bx, by]` of frame `f` into `out`.
    fn task(&self, out: &SharedMut<'_, f32>, f: usize, [bx, by, _]: [usize; 3]) {
        let (x0, w) = (bx * BW, self.w);
        finegrain::record::declare(|| {
            let lines = self.footprint(f, [bx, by]);
            finegrain::record::read_elements(&self.scene, lines.into_iter().map(|l| l * PER_LINE));
            for y in by * BH..(by + 1) * BH {
                out.declare_write(y * w + x0..y * w + x0 + BW);
            }
        });
        for y in by * BH..(by + 1) * BH {
            // SAFETY: rectangles tile the frame, so this task alone writes
            // these pixels; `out` is read after the section.
            let row = unsafe { out.slice(y * w + x0..y * w + x0 + BW) };
            self.row(f, y, x0, row);
        }
    }

    fn frames_with(&self, section: impl Fn(&SharedMut<'_, f32>, usize, &mut Replay)) -> Output {
        let mut out = vec![0.0f32; self.w * self.h];
        let mut replay = Replay::new();
        let mut digests = Vec::with_capacity(self.frames);
        for f in 0..self.frames {
            section(&SharedMut::new(&mut out), f, &mut replay);
            digests.push(digest(&out));
        }
        Output::Ints(digests)
    }
}

fn digest(frame: &[f32]) -> u64 {
    digest_iter(frame.iter().map(|v| v.to_bits() as u64)).1
}

impl Instance for BrmapInstance {
    fn describe(&self) -> String {
        let [nx, ny, _] = self.rects();
        format!("{} x {} frames, {} frames, {nx} x {ny} rectangles of {BW} x {BH}", self.w, self.h, self.frames)
    }
    fn serial(&self) -> Output {
        let mut out = vec![0.0f32; self.w * self.h];
        let digests = (0..self.frames)
            .map(|f| {
                for (y, row) in out.chunks_mut(self.w).enumerate() {
                    self.row(f, y, 0, row);
                }
                digest(&out)
            })
            .collect();
        Output::Ints(digests)
    }
    fn parallel(&self) -> Output {
        let sharing = self.sharing;
        self.frames_with(|out, f, replay| {
            let space = TaskSpace::new(self.rects()).replay(replay);
            let space = if self.hint { space.flux(sharing) } else { space };
            run_space(space, |p| self.task(out, f, p));
        })
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.frames_with(|out, f, _| rayon_space(self.rects(), |p| self.task(out, f, p))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without distortion the remap copies the frame exactly.
    #[test]
    fn zero_distortion_copies_the_frame() {
        let mut inst = BrmapInstance::generate(64, 32, 2, 1, true);
        inst.k = [0.0, 0.0];
        let mut row = vec![0.0f32; 64];
        for f in 0..2 {
            for y in 0..32 {
                inst.row(f, y, 0, &mut row);
                let base = f * PAN[1] * inst.sw + f * PAN[0] + y * inst.sw;
                assert_eq!(row, inst.scene[base..base + 64], "frame {f} row {y}");
            }
        }
    }

    /// Bilinear interpolation of a linear ramp is exact: each pixel equals
    /// the ramp at its distorted position, to f32 rounding; corners fall
    /// outside the barrel and are black.
    #[test]
    fn remap_of_a_ramp_is_exact() {
        let mut inst = BrmapInstance::generate(96, 64, 1, 2, true);
        inst.k = [0.15, 0.02];
        let ramp = |x: f32, y: f32| 0.01 * x + 0.02 * y + 1.0;
        for (i, v) in inst.scene.iter_mut().enumerate() {
            *v = ramp((i % inst.sw) as f32, (i / inst.sw) as f32);
        }
        let mut row = vec![0.0f32; 96];
        let mut black = 0;
        for y in 0..64 {
            inst.row(0, y, 0, &mut row);
            for (x, &v) in row.iter().enumerate() {
                let (sx, sy) = inst.source(x, y);
                if inst.taps((sx, sy)).is_some() {
                    assert!((v - ramp(sx, sy)).abs() < 1e-5 * ramp(sx, sy), "({x}, {y}): {v} {}", ramp(sx, sy));
                } else {
                    assert_eq!(v, 0.0);
                    black += 1;
                }
            }
        }
        assert!(black > 0 && black < 96 * 64 / 4, "{black}");
    }

    /// Row-wise neighbours share more input lines than neighbours along y,
    /// as the thesis describes brmap.
    #[test]
    fn row_neighbours_share_more() {
        let inst = BrmapInstance::generate(512, 256, 1, 3, true);
        let [sx, sy, sz] = inst.sharing();
        assert!(sx > sy && sy > 0 && sz == 0, "{sx} {sy}");
    }

    #[test]
    fn hinted_and_unhinted_match_serial() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for hint in [true, false] {
            let inst = BrmapInstance::generate(96, 64, 3, 5, hint);
            assert_eq!(inst.serial(), pool.install(|| inst.parallel()));
            assert_eq!(inst.serial(), inst.rayon().unwrap());
        }
    }
}
