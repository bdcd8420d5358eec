//! `bprj`: parallel-beam backprojection of a volume from its projections,
//! one task per cubic sub-volume (R. Yoo, *Locality-Aware Task Management on
//! Many-Core Processors*, PhD thesis, Stanford University, 2012, section
//! 4.4, Table 4.4, and section 5.4: "bprj", backprojection of a sub-volume,
//! a non-linear pattern run by the binning manager; 4,096 tasks).
//!
//! **Program.** `P` projections of an `N^3` volume at angles `pi p / P`
//! about the z axis, each a detector of `U x N` cells (`U` covers the
//! volume's diagonal). Voxel `(x, y, z)` receives, for every projection in
//! order, the detector row `z` linearly interpolated at
//! `u = (x - c) cos t + (y - c) sin t + U / 2`. The projections are the
//! analytic line integrals of a phantom of spheres, so the data is that of
//! a real scan (without filtering: the ramp filter is a separate, per-row
//! stage the thesis does not include either).
//!
//! **Hint.** A sub-volume reads, from every projection, the detector rows of
//! its z range and, along u, a window around its centre's projection
//! `r cos(t - phi)`: a sinusoid fixed by the centre's polar coordinates
//! `(r, phi)`. Sub-volumes with the same rows and nearby `(r, phi)` read
//! nearly the same cells at every angle. The key is therefore the
//! sub-volume's z band, then its ring `r`, then its sector `phi`, as one
//! integer (`key`); the binning manager cuts that range into equal bins. The
//! thesis says only that it bins by the projected footprint; this polar key
//! is our reading of it.
//!
//! **Deviations.** The sub-volume side is 8 voxels at every size; the
//! thesis's volume and detector sizes are not given.
//!
//! **Check.** Every voxel sums its projections in the same order in every
//! version, with the same expression for `u`, so the volumes are
//! bit-identical: the output is a digest of the volume's bits.

use super::{rayon_space, run_space};
use crate::support::digest::digest_iter;
use crate::support::rng::SplitMix64;
use crate::support::shared::SharedMut;
use crate::{Instance, Output, Size, Workload};
use finegrain::TaskSpace;

/// Sub-volume side, voxels.
const SUB: usize = 8;
/// Sectors of the polar key.
const SECTORS: u64 = 16;

pub(crate) struct Bprj {
    pub(crate) hint: bool,
}

impl Workload for Bprj {
    fn name(&self) -> &'static str {
        if self.hint {
            "bprj"
        } else {
            "bprj-nohint"
        }
    }
    fn description(&self) -> &'static str {
        "parallel-beam backprojection of a sphere phantom's projections, one task per 8^3 sub-volume, as a task space with a binning hint"
    }
    fn source(&self) -> &'static str {
        "Yoo (PhD thesis, Stanford 2012), sections 4.4 and 5.4 (bprj, binning manager)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (n, p) = match size {
            Size::Test => (32, 16),
            Size::Small => (64, 24),
            Size::Full | Size::Paper => (128, 128),
        };
        Box::new(BprjInstance::generate(n, p, seed, self.hint))
    }
}

struct BprjInstance {
    /// Volume side.
    n: usize,
    /// Detector width.
    u: usize,
    /// `cos t`, `sin t` of each projection.
    angles: Vec<(f32, f32)>,
    /// Projection `p`, row `v`, cell `u` at `(p * n + v) * u + u`.
    proj: Vec<f32>,
    hint: bool,
}

impl BprjInstance {
    fn generate(n: usize, p: usize, seed: u64, hint: bool) -> BprjInstance {
        assert!(n.is_multiple_of(SUB) && p > 0, "bprj: volume side {n} must be a multiple of {SUB}, with at least one projection");
        let mut rng = SplitMix64::new(seed ^ 0x6270_726a);
        let u = (n as f64 * std::f64::consts::SQRT_2).ceil() as usize + 4;
        let c = (n as f64 - 1.0) / 2.0;
        // Spheres: centre, radius, density; a large body with smaller
        // inclusions, all inside the volume.
        let mut spheres = vec![(c, c, c, 0.45 * n as f64, 1.0)];
        for _ in 0..10 {
            let r = n as f64 * (0.03 + 0.1 * rng.unit());
            let at = |rng: &mut SplitMix64| c + (rng.unit() - 0.5) * (0.6 * n as f64);
            spheres.push((at(&mut rng), at(&mut rng), at(&mut rng), r, rng.unit() - 0.3));
        }
        let angles: Vec<(f32, f32)> = (0..p).map(|k| std::f64::consts::PI * k as f64 / p as f64).map(|t| (t.cos() as f32, t.sin() as f32)).collect();
        let mut proj = vec![0.0f32; p * n * u];
        for (k, &(cs, sn)) in angles.iter().enumerate() {
            for v in 0..n {
                for (cell, out) in proj[(k * n + v) * u..(k * n + v + 1) * u].iter_mut().enumerate() {
                    let s = cell as f64 - u as f64 / 2.0;
                    *out = spheres
                        .iter()
                        .map(|&(x, y, z, r, rho)| {
                            let uc = (x - c) * cs as f64 + (y - c) * sn as f64;
                            let d2 = (s - uc).powi(2) + (v as f64 - z).powi(2);
                            if d2 < r * r {
                                2.0 * rho * (r * r - d2).sqrt()
                            } else {
                                0.0
                            }
                        })
                        .sum::<f64>() as f32;
                }
            }
        }
        BprjInstance { n, u, angles, proj, hint }
    }

    fn subs(&self) -> usize {
        self.n / SUB
    }

    /// The detector coordinate of voxel column `(x, y)` in projection `k`.
    #[inline]
    fn u_of(&self, k: usize, x: usize, y: usize) -> f32 {
        let c = (self.n as f32 - 1.0) / 2.0;
        let (cs, sn) = self.angles[k];
        (x as f32 - c) * cs + (y as f32 - c) * sn + self.u as f32 / 2.0
    }

    /// Backproject voxels `x0..x0 + out.len()` of row `(y, z)` into `out`.
    fn row(&self, y: usize, z: usize, x0: usize, out: &mut [f32]) {
        out.fill(0.0);
        for k in 0..self.angles.len() {
            let det = &self.proj[(k * self.n + z) * self.u..(k * self.n + z + 1) * self.u];
            for (i, o) in out.iter_mut().enumerate() {
                let u = self.u_of(k, x0 + i, y);
                let (cell, f) = (u.floor() as usize, u - u.floor());
                *o += (1.0 - f) * det[cell] + f * det[cell + 1];
            }
        }
    }

    /// The binning key of sub-volume `[bx, by, bz]`: its z band, then its
    /// centre's ring, then its sector (see the module doc).
    fn key(&self, [bx, by, bz]: [usize; 3]) -> u64 {
        let (rings, half) = (self.subs() as u64, self.subs() as f64 / 2.0);
        let (dx, dy) = (bx as f64 + 0.5 - half, by as f64 + 0.5 - half);
        let ring = ((dx * dx + dy * dy).sqrt() / (half * std::f64::consts::SQRT_2) * rings as f64) as u64;
        let sector = ((dy.atan2(dx) + std::f64::consts::PI) / std::f64::consts::TAU * SECTORS as f64) as u64;
        (bz as u64 * rings + ring.min(rings - 1)) * SECTORS + sector.min(SECTORS - 1)
    }

    fn max_key(&self) -> u64 {
        self.subs() as u64 * self.subs() as u64 * SECTORS - 1
    }

    /// One task: sub-volume `[bx, by, bz]` into `vol`.
    fn task(&self, vol: &SharedMut<'_, f32>, [bx, by, bz]: [usize; 3]) {
        let n = self.n;
        let (x0, y0, z0) = (bx * SUB, by * SUB, bz * SUB);
        finegrain::record::declare(|| {
            for k in 0..self.angles.len() {
                let us = [(x0, y0), (x0 + SUB - 1, y0), (x0, y0 + SUB - 1), (x0 + SUB - 1, y0 + SUB - 1)].map(|(x, y)| self.u_of(k, x, y));
                let lo = us.iter().fold(f32::MAX, |m, &u| m.min(u)).floor() as usize;
                let hi = us.iter().fold(f32::MIN, |m, &u| m.max(u)).floor() as usize + 2;
                for z in z0..z0 + SUB {
                    finegrain::record::read(&self.proj[(k * n + z) * self.u + lo..(k * n + z) * self.u + hi]);
                }
            }
            for z in z0..z0 + SUB {
                for y in y0..y0 + SUB {
                    vol.declare_write((z * n + y) * n + x0..(z * n + y) * n + x0 + SUB);
                }
            }
        });
        for z in z0..z0 + SUB {
            for y in y0..y0 + SUB {
                // SAFETY: sub-volumes tile the volume, so this task alone
                // writes these voxels; `vol` is read after the section.
                let out = unsafe { vol.slice((z * n + y) * n + x0..(z * n + y) * n + x0 + SUB) };
                self.row(y, z, x0, out);
            }
        }
    }

    fn run_with(&self, section: impl FnOnce([usize; 3], &(dyn Fn([usize; 3]) + Sync))) -> Output {
        let mut vol = vec![0.0f32; self.n * self.n * self.n];
        {
            let shared = SharedMut::new(&mut vol);
            section([self.subs(); 3], &|p| self.task(&shared, p));
        }
        digest(&vol)
    }
}

fn digest(vol: &[f32]) -> Output {
    let (len, hash) = digest_iter(vol.iter().map(|v| v.to_bits() as u64));
    Output::Digest { len, hash }
}

impl Instance for BprjInstance {
    fn describe(&self) -> String {
        let s = self.subs();
        format!("{n}^3 volume, {} projections of {} x {n}, {} sub-volumes of {SUB}^3", self.angles.len(), self.u, s * s * s, n = self.n)
    }
    fn serial(&self) -> Output {
        let n = self.n;
        let mut vol = vec![0.0f32; n * n * n];
        for (r, out) in vol.chunks_mut(n).enumerate() {
            self.row(r % n, r / n, 0, out);
        }
        digest(&vol)
    }
    fn parallel(&self) -> Output {
        let key = |p: [usize; 3]| self.key(p);
        self.run_with(|extents, task| {
            let space = TaskSpace::new(extents);
            let space = if self.hint { space.bins(&key, 0, self.max_key()) } else { space };
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

    /// The projections are consistent: every projection of the phantom
    /// integrates to the same mass (the volume does not depend on the
    /// angle), up to the detector's sampling.
    #[test]
    fn projections_conserve_mass() {
        let inst = BprjInstance::generate(32, 8, 3, true);
        let per = 32 * inst.u;
        let mass: Vec<f64> = (0..8).map(|k| inst.proj[k * per..(k + 1) * per].iter().map(|&v| v as f64).sum()).collect();
        for m in &mass {
            assert!((m - mass[0]).abs() < 0.02 * mass[0], "{mass:?}");
        }
    }

    /// The backprojection peaks inside the phantom, not outside it.
    #[test]
    fn backprojection_is_brightest_inside() {
        let inst = BprjInstance::generate(32, 16, 3, true);
        let mut centre = [0.0f32; 1];
        let mut corner = [0.0f32; 1];
        inst.row(16, 16, 16, &mut centre);
        inst.row(0, 0, 0, &mut corner);
        assert!(centre[0] > 4.0 * corner[0].max(0.0), "{centre:?} {corner:?}");
    }

    #[test]
    fn keys_cover_their_range_and_follow_z() {
        let inst = BprjInstance::generate(64, 4, 1, true);
        let s = inst.subs();
        let mut seen = vec![false; inst.max_key() as usize + 1];
        for p in (0..s * s * s).map(|t| [t % s, t / s % s, t / (s * s)]) {
            let k = inst.key(p);
            assert!(k <= inst.max_key());
            assert_eq!(k / (s as u64 * SECTORS), p[2] as u64);
            seen[k as usize] = true;
        }
        assert!(seen.iter().filter(|&&b| b).count() > s * s / 2);
    }

    #[test]
    fn hinted_and_unhinted_match_serial() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for hint in [true, false] {
            let inst = BprjInstance::generate(32, 8, 5, hint);
            assert_eq!(inst.serial(), pool.install(|| inst.parallel()));
        }
    }
}
