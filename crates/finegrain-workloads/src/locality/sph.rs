//! `sph`: smoothed-particle hydrodynamics steps of a dam break, as PARSEC's
//! fluidanimate computes them, one task per cell of the particle grid (R.
//! Yoo, *Locality-Aware Task Management on Many-Core Processors*, PhD
//! thesis, Stanford University, 2012, section 5.4, Table 5.1: "sph",
//! fluidanimate, a linear pattern run by the flux manager; 1,024 tasks of
//! about 5.2K instructions).
//!
//! **Program.** Particles live in a box of `nx x ny x nz` cells whose side
//! is the kernel radius `h`, so a particle's neighbours are in the 27 cells
//! around its own. A step is: the particles are binned into cells (a stable
//! counting sort, serial, as fluidanimate's `RebuildGrid`); task space 1,
//! one task per cell, computes each of the cell's particles' density from
//! the 27 cells (poly6 kernel, the particle itself included); task space 2,
//! one task per cell, computes each particle's acceleration from the
//! pressure (spiky kernel gradient, the pressure the symmetrised mean of the
//! two particles') and the viscosity (viscosity kernel Laplacian) of its
//! neighbours, plus gravity; then, serially, walls push back penetrating
//! particles (a stiff damped spring, fluidanimate's `ProcessCollisions`)
//! and positions and velocities advance (semi-implicit Euler). Kernels and
//! constants are those of Müller, Charypar and Gross (SCA 2003), which
//! fluidanimate implements.
//!
//! **Input.** A dam break: a block of fluid on a jittered cubic lattice at
//! the rest spacing fills the lower part of one end of the tank, at rest.
//!
//! **Hint.** A cell's task reads the particles of the 27 cells around it;
//! the neighbour along any axis reads 18 of the same cells. Particles are
//! stored cell by cell, so the sharing vector is 18 cells' worth of the
//! arrays the pass reads (positions for densities; positions, velocities and
//! densities for forces), in cache lines, equal along the three axes.
//!
//! **Deviations.** fluidanimate visits each pair once and adds the result to
//! both particles (with locks on cells at thread borders); here each
//! particle sums over all its neighbours, so tasks write only their own
//! cell's particles and need no locks, at twice the pair work. One task per
//! cell, not per block of cells; integration and walls are serial (they are
//! linear in the particles, the passes are not).
//!
//! **Check.** Every version visits a particle's neighbours in the same order
//! (cells in a fixed order, particles in storage order), so positions and
//! velocities are bit-identical; unit tests check the rest density, the
//! conservation of momentum by the internal forces, and that the fluid stays
//! in the tank with bounded energy.

use super::{rayon_space, run_space};
use crate::support::rng::SplitMix64;
use crate::support::shared::SharedMut;
use crate::{Instance, Output, Size, Workload};
use finegrain::{Replay, TaskSpace};
use std::f64::consts::PI;

/// Rest particles per metre, kernel radius as a multiple of the spacing,
/// and the fluid's constants (fluidanimate's values).
const PARTICLES_PER_METRE: f64 = 128.0;
const RADIUS_MULTIPLIER: f64 = 1.695;
const REST_DENSITY: f64 = 1000.0;
const STIFFNESS: f64 = 3.0;
const VISCOSITY: f64 = 0.4;
const GRAVITY: [f64; 3] = [0.0, -9.8, 0.0];
const WALL_STIFFNESS: f64 = 30000.0;
const WALL_DAMPING: f64 = 128.0;
const DT: f64 = 0.001;
/// Bytes in a cache line, for the sharing vector.
const LINE: f64 = 64.0;

pub(crate) struct Sph {
    pub(crate) hint: bool,
}

impl Workload for Sph {
    fn name(&self) -> &'static str {
        if self.hint {
            "sph"
        } else {
            "sph-nohint"
        }
    }
    fn description(&self) -> &'static str {
        "SPH dam-break steps as in PARSEC fluidanimate: densities then forces per grid cell from its 27 neighbours, task spaces with flux hints"
    }
    fn source(&self) -> &'static str {
        "Yoo (PhD thesis, Stanford 2012), section 5.4 (sph = PARSEC fluidanimate, flux manager)"
    }
    fn api(&self) -> &'static str {
        "loop-2d"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (cells, steps) = match size {
            Size::Test => ([6, 6, 5], 2),
            Size::Small => ([16, 12, 12], 2),
            Size::Full | Size::Paper => ([32, 24, 24], 6),
        };
        Box::new(SphInstance::dam_break(cells, steps, seed, self.hint))
    }
}

/// The kernel's constants for radius `h`.
struct Kernel {
    h: f64,
    h2: f64,
    mass: f64,
    /// poly6: `W(r) = poly6 (h^2 - r^2)^3`.
    poly6: f64,
    /// Spiky gradient: `grad W = -spiky (h - r)^2 r_vec / r`.
    spiky: f64,
    /// Viscosity Laplacian: `lap W = lap (h - r)`.
    lap: f64,
}

impl Kernel {
    fn new() -> Kernel {
        let h = RADIUS_MULTIPLIER / PARTICLES_PER_METRE;
        Kernel {
            h,
            h2: h * h,
            mass: REST_DENSITY / PARTICLES_PER_METRE.powi(3),
            poly6: 315.0 / (64.0 * PI * h.powi(9)),
            spiky: 45.0 / (PI * h.powi(6)),
            lap: 45.0 / (PI * h.powi(6)),
        }
    }
}

/// The particles, stored cell by cell: cell `c`'s are `start[c]..start[c + 1]`.
#[derive(Clone)]
struct State {
    pos: Vec<[f64; 3]>,
    vel: Vec<[f64; 3]>,
    /// The particle's id (its index in the input), to report in id order.
    id: Vec<u32>,
    start: Vec<u32>,
}

struct SphInstance {
    cells: [usize; 3],
    steps: usize,
    kernel: Kernel,
    initial: State,
    hint: bool,
}

impl SphInstance {
    /// A block of fluid filling x < 0.6, y < 0.7 of a tank of `cells`.
    fn dam_break(cells: [usize; 3], steps: usize, seed: u64, hint: bool) -> SphInstance {
        assert!(cells.iter().all(|&c| c >= 3), "sph: the grid needs at least 3 cells a side, not {cells:?}");
        let kernel = Kernel::new();
        let mut rng = SplitMix64::new(seed ^ 0x737068);
        let spacing = 1.0 / PARTICLES_PER_METRE;
        let extent = [0.6, 0.7, 1.0].map(|f| f * kernel.h);
        let counts: [usize; 3] = std::array::from_fn(|d| ((cells[d] as f64 * extent[d] / spacing).floor() as usize).max(1));
        let mut pos = Vec::new();
        for k in 0..counts[2] {
            for j in 0..counts[1] {
                for i in 0..counts[0] {
                    let jitter = |rng: &mut SplitMix64| 0.1 * spacing * (rng.unit() - 0.5);
                    pos.push([
                        (i as f64 + 0.5) * spacing + jitter(&mut rng),
                        (j as f64 + 0.5) * spacing + jitter(&mut rng),
                        (k as f64 + 0.5) * spacing + jitter(&mut rng),
                    ]);
                }
            }
        }
        let n = pos.len();
        let state = State { vel: vec![[0.0; 3]; n], id: (0..n as u32).collect(), pos, start: vec![] };
        let mut inst = SphInstance { cells, steps, kernel, initial: state, hint };
        inst.initial = inst.rebin(&inst.initial);
        inst
    }

    fn ncells(&self) -> usize {
        self.cells.iter().product()
    }

    fn cell_of(&self, p: &[f64; 3]) -> usize {
        let c: [usize; 3] = std::array::from_fn(|d| ((p[d] / self.kernel.h).floor().max(0.0) as usize).min(self.cells[d] - 1));
        (c[2] * self.cells[1] + c[1]) * self.cells[0] + c[0]
    }

    /// The particles of `s` sorted by cell, stably.
    fn rebin(&self, s: &State) -> State {
        let cell: Vec<usize> = s.pos.iter().map(|p| self.cell_of(p)).collect();
        let mut start = vec![0u32; self.ncells() + 1];
        cell.iter().for_each(|&c| start[c + 1] += 1);
        for c in 0..self.ncells() {
            start[c + 1] += start[c];
        }
        let mut next = start.clone();
        let n = s.pos.len();
        let mut out = State { pos: vec![[0.0; 3]; n], vel: vec![[0.0; 3]; n], id: vec![0; n], start };
        for (i, &c) in cell.iter().enumerate() {
            let j = next[c] as usize;
            next[c] += 1;
            out.pos[j] = s.pos[i];
            out.vel[j] = s.vel[i];
            out.id[j] = s.id[i];
        }
        out
    }

    /// The particle ranges of the (up to) 27 cells around cell `[x, y, z]`,
    /// z outermost, x innermost.
    fn neighbours(&self, s: &State, [x, y, z]: [usize; 3]) -> Vec<std::ops::Range<usize>> {
        let [nx, ny, nz] = self.cells;
        let span = |c: usize, n: usize| c.saturating_sub(1)..(c + 2).min(n);
        let mut near = Vec::with_capacity(27);
        for k in span(z, nz) {
            for j in span(y, ny) {
                for i in span(x, nx) {
                    let c = (k * ny + j) * nx + i;
                    near.push(s.start[c] as usize..s.start[c + 1] as usize);
                }
            }
        }
        near
    }

    fn cell_range(&self, s: &State, [x, y, z]: [usize; 3]) -> std::ops::Range<usize> {
        let c = (z * self.cells[1] + y) * self.cells[0] + x;
        s.start[c] as usize..s.start[c + 1] as usize
    }

    /// The density of particle `i`.
    fn density(&self, s: &State, i: usize, near: &[std::ops::Range<usize>]) -> f64 {
        let (k, p) = (&self.kernel, s.pos[i]);
        let mut sum = 0.0;
        for r in near {
            for q in &s.pos[r.clone()] {
                let d2 = (q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2) + (q[2] - p[2]).powi(2);
                if d2 < k.h2 {
                    sum += (k.h2 - d2).powi(3);
                }
            }
        }
        k.mass * k.poly6 * sum
    }

    /// The acceleration of particle `i` from the pressure and viscosity of
    /// its neighbours, plus gravity.
    fn acceleration(&self, s: &State, rho: &[f64], i: usize, near: &[std::ops::Range<usize>]) -> [f64; 3] {
        let k = &self.kernel;
        let (p, v) = (s.pos[i], s.vel[i]);
        let pi = STIFFNESS * (rho[i] - REST_DENSITY);
        let mut f = [0.0; 3];
        for r in near {
            for j in r.clone() {
                if j == i {
                    continue;
                }
                let d = [p[0] - s.pos[j][0], p[1] - s.pos[j][1], p[2] - s.pos[j][2]];
                let d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                if d2 < k.h2 && d2 > 1e-24 {
                    let dist = d2.sqrt();
                    let hr = k.h - dist;
                    let pj = STIFFNESS * (rho[j] - REST_DENSITY);
                    // -m (p_i + p_j) / (2 rho_i rho_j) grad W, with grad W = -spiky hr^2 d / dist.
                    let pressure = k.mass * (pi + pj) / (2.0 * rho[i] * rho[j]) * k.spiky * hr * hr / dist;
                    let viscous = VISCOSITY * k.mass / (rho[i] * rho[j]) * k.lap * hr;
                    for a in 0..3 {
                        f[a] += pressure * d[a] + viscous * (s.vel[j][a] - v[a]);
                    }
                }
            }
        }
        std::array::from_fn(|a| f[a] + GRAVITY[a])
    }

    /// Walls and the Euler step, particle by particle, then rebinning.
    fn advance(&self, s: &State, acc: &[[f64; 3]]) -> State {
        let high: [f64; 3] = std::array::from_fn(|d| self.cells[d] as f64 * self.kernel.h);
        let margin = 0.25 / PARTICLES_PER_METRE;
        let mut next = s.clone();
        for ((p, v), &a) in next.pos.iter_mut().zip(next.vel.iter_mut()).zip(acc) {
            let mut a = a;
            for d in 0..3 {
                let below = margin - p[d];
                if below > 0.0 {
                    a[d] += WALL_STIFFNESS * below - WALL_DAMPING * v[d];
                }
                let above = p[d] - (high[d] - margin);
                if above > 0.0 {
                    a[d] += -WALL_STIFFNESS * above - WALL_DAMPING * v[d];
                }
                v[d] += a[d] * DT;
                p[d] += v[d] * DT;
            }
        }
        self.rebin(&next)
    }

    /// Densities of cell `c`'s particles into `rho`.
    fn density_task(&self, s: &State, rho: &SharedMut<'_, f64>, c: [usize; 3]) {
        let near = self.neighbours(s, c);
        let mine = self.cell_range(s, c);
        finegrain::record::declare(|| {
            near.iter().for_each(|r| finegrain::record::read(&s.pos[r.clone()]));
            rho.declare_write(mine.clone());
        });
        for i in mine {
            // SAFETY: cells partition the particles, so this task alone
            // writes cell c's densities; `rho` is read after the section.
            unsafe { rho.write(i, self.density(s, i, &near)) };
        }
    }

    /// Accelerations of cell `c`'s particles into `acc`.
    fn force_task(&self, s: &State, rho: &[f64], acc: &SharedMut<'_, [f64; 3]>, c: [usize; 3]) {
        let near = self.neighbours(s, c);
        let mine = self.cell_range(s, c);
        finegrain::record::declare(|| {
            for r in &near {
                finegrain::record::read(&s.pos[r.clone()]);
                finegrain::record::read(&s.vel[r.clone()]);
                finegrain::record::read(&rho[r.clone()]);
            }
            acc.declare_write(mine.clone());
        });
        for i in mine {
            // SAFETY: as in `density_task`, for `acc`.
            unsafe { acc.write(i, self.acceleration(s, rho, i, &near)) };
        }
    }

    /// Lines shared by neighbouring cells' tasks when each particle carries
    /// `bytes` of what the pass reads: 18 of the 27 cells, at the mean
    /// occupancy of the occupied cells.
    fn sharing(&self, bytes: usize) -> [u64; 3] {
        let occupied = self.initial.start.windows(2).filter(|w| w[1] > w[0]).count().max(1);
        let per_cell = self.initial.pos.len() as f64 / occupied as f64;
        let s = (18.0 * per_cell * bytes as f64 / LINE).ceil().max(1.0) as u64;
        [s, s, s]
    }

    /// Every step with `sections(state, rho, acc)` running the two passes.
    fn steps_with(&self, sections: impl Fn(&State, &mut [f64], &mut [[f64; 3]], &mut [Replay; 2])) -> Output {
        let mut s = self.initial.clone();
        let mut rho = vec![0.0; s.pos.len()];
        let mut acc = vec![[0.0; 3]; s.pos.len()];
        let mut replays = [Replay::new(), Replay::new()];
        for _ in 0..self.steps {
            sections(&s, &mut rho, &mut acc, &mut replays);
            s = self.advance(&s, &acc);
        }
        result(&s)
    }
}

/// Positions then velocities, in particle id order.
fn result(s: &State) -> Output {
    let n = s.pos.len();
    let mut out = vec![0.0; 6 * n];
    for (j, &id) in s.id.iter().enumerate() {
        out[3 * id as usize..3 * id as usize + 3].copy_from_slice(&s.pos[j]);
        out[3 * (n + id as usize)..3 * (n + id as usize) + 3].copy_from_slice(&s.vel[j]);
    }
    Output::Floats(out)
}

impl Instance for SphInstance {
    fn describe(&self) -> String {
        let [x, y, z] = self.cells;
        format!("{} particles, {x} x {y} x {z} cells ({} tasks a pass), {} steps", self.initial.pos.len(), self.ncells(), self.steps)
    }
    fn serial(&self) -> Output {
        let [nx, ny, nz] = self.cells;
        let cells = || (0..nz).flat_map(move |z| (0..ny).flat_map(move |y| (0..nx).map(move |x| [x, y, z])));
        let mut s = self.initial.clone();
        let mut rho = vec![0.0; s.pos.len()];
        let mut acc = vec![[0.0; 3]; s.pos.len()];
        for _ in 0..self.steps {
            for c in cells() {
                let near = self.neighbours(&s, c);
                for i in self.cell_range(&s, c) {
                    rho[i] = self.density(&s, i, &near);
                }
            }
            for c in cells() {
                let near = self.neighbours(&s, c);
                for i in self.cell_range(&s, c) {
                    acc[i] = self.acceleration(&s, &rho, i, &near);
                }
            }
            s = self.advance(&s, &acc);
        }
        result(&s)
    }
    fn parallel(&self) -> Output {
        let (pos_only, pos_vel_rho) = (self.sharing(24), self.sharing(56));
        self.steps_with(|s, rho, acc, [r1, r2]| {
            {
                let shared = SharedMut::new(rho);
                let space = TaskSpace::new(self.cells).replay(r1);
                let space = if self.hint { space.flux(pos_only) } else { space };
                run_space(space, |c| self.density_task(s, &shared, c));
            }
            let shared = SharedMut::new(acc);
            let space = TaskSpace::new(self.cells).replay(r2);
            let space = if self.hint { space.flux(pos_vel_rho) } else { space };
            run_space(space, |c| self.force_task(s, rho, &shared, c));
        })
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.steps_with(|s, rho, acc, _| {
            {
                let shared = SharedMut::new(rho);
                rayon_space(self.cells, |c| self.density_task(s, &shared, c));
            }
            let shared = SharedMut::new(acc);
            rayon_space(self.cells, |c| self.force_task(s, rho, &shared, c));
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passes(inst: &SphInstance, s: &State) -> (Vec<f64>, Vec<[f64; 3]>) {
        let [nx, ny, nz] = inst.cells;
        let mut rho = vec![0.0; s.pos.len()];
        let mut acc = vec![[0.0; 3]; s.pos.len()];
        let cells: Vec<[usize; 3]> = (0..nx * ny * nz).map(|t| [t % nx, t / nx % ny, t / (nx * ny)]).collect();
        for &c in &cells {
            let near = inst.neighbours(s, c);
            inst.cell_range(s, c).for_each(|i| rho[i] = inst.density(s, i, &near));
        }
        for &c in &cells {
            let near = inst.neighbours(s, c);
            inst.cell_range(s, c).for_each(|i| acc[i] = inst.acceleration(s, &rho, i, &near));
        }
        (rho, acc)
    }

    /// Inside the block, on the rest lattice, the SPH density is near the
    /// rest density (the kernel and the particle mass agree).
    #[test]
    fn interior_density_is_near_rest() {
        let inst = SphInstance::dam_break([12, 12, 12], 1, 3, true);
        let (rho, _) = passes(&inst, &inst.initial);
        let h = inst.kernel.h;
        let inner: Vec<f64> = (0..rho.len())
            .filter(|&i| inst.initial.pos[i].iter().zip([0.6, 0.7, 1.0]).all(|(&p, f)| p > 1.5 * h && p < 12.0 * f * h - 1.5 * h))
            .map(|i| rho[i])
            .collect();
        assert!(inner.len() > 100);
        for r in inner {
            assert!((r / REST_DENSITY - 1.0).abs() < 0.15, "{r}");
        }
    }

    /// Pressure and viscosity forces are equal and opposite between two
    /// particles of equal mass: without gravity their sum over the fluid
    /// vanishes to rounding.
    #[test]
    fn internal_forces_conserve_momentum() {
        let mut inst = SphInstance::dam_break([8, 8, 8], 1, 9, true);
        let mut rng = SplitMix64::new(2);
        inst.initial.vel.iter_mut().for_each(|v| *v = [rng.unit() - 0.5, rng.unit() - 0.5, rng.unit() - 0.5]);
        // Squeeze the fluid so that pressures are large and uneven.
        inst.initial.pos.iter_mut().for_each(|p| p.iter_mut().for_each(|x| *x *= 0.8));
        inst.initial = inst.rebin(&inst.initial);
        let (_, acc) = passes(&inst, &inst.initial);
        let mut total = [0.0; 3];
        let mut scale = 0.0;
        for a in &acc {
            for d in 0..3 {
                let internal = a[d] - GRAVITY[d];
                total[d] += internal;
                scale += internal.abs();
            }
        }
        assert!(scale > 0.0);
        assert!(total.iter().all(|t| t.abs() < 1e-9 * scale), "{total:?} of {scale}");
    }

    /// The dam collapses under gravity: after some steps every particle is
    /// inside the tank, none is faster than free fall from the tank's height
    /// allows, and the fluid has moved down.
    #[test]
    fn fluid_falls_and_stays_in_the_tank() {
        let inst = SphInstance::dam_break([6, 6, 4], 40, 1, true);
        let Output::Floats(out) = inst.serial() else { panic!() };
        let n = inst.initial.pos.len();
        let high: Vec<f64> = inst.cells.iter().map(|&c| c as f64 * inst.kernel.h).collect();
        let vmax = (2.0 * 9.8 * high[1]).sqrt() * 1.5;
        let y0: f64 = inst.initial.pos.iter().map(|p| p[1]).sum::<f64>() / n as f64;
        let y1: f64 = (0..n).map(|i| out[3 * i + 1]).sum::<f64>() / n as f64;
        for i in 0..n {
            for d in 0..3 {
                assert!(out[3 * i + d] > -0.1 * inst.kernel.h && out[3 * i + d] < high[d] + 0.1 * inst.kernel.h);
            }
            let v2: f64 = (0..3).map(|d| out[3 * (n + i) + d].powi(2)).sum();
            assert!(v2.sqrt() < vmax, "{}", v2.sqrt());
        }
        assert!(y1 < y0, "{y1} {y0}");
    }

    #[test]
    fn hinted_and_unhinted_match_serial() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for hint in [true, false] {
            let inst = SphInstance::dam_break([6, 5, 5], 2, 5, hint);
            assert_eq!(inst.serial(), pool.install(|| inst.parallel()));
            assert_eq!(inst.serial(), inst.rayon().unwrap());
        }
    }
}
