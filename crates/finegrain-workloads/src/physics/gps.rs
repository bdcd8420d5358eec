//! `gps`: the game-physics constraint solver of Kumar, Hughes, Nguyen,
//! "Carbon: architectural support for fine-grained parallelism on chip
//! multiprocessors", ISCA 2007, section 5.3 and Table 2: "GPS iteratively
//! solves a set of force equations in a game physics constraint solver. The
//! equations are represented as a set of constraints, each of which involves
//! two objects. Solving a constraint on an object must be atomic. Therefore,
//! a task is to solve a single constraint, and the task dependences form a
//! graph. The benchmark is iterative, so [...] the task graph has cycles
//! rather than having a barrier between iterations." Datasets: model1, 800
//! bodies and 14,859 constraints, and model4, 4,907 bodies and 96,327
//! constraints, 20 iterations each.
//!
//! The solver is projected Gauss-Seidel over sequential impulses (the
//! solver of game engines: Catto's sequential impulses, Box2D and Bullet),
//! on spheres with rotation. A scene is a pile of spheres on a jittered
//! face-centred cubic lattice with random velocities and spins, some
//! overlapping; its contacts are the closest pairs of bodies (the lattice's
//! twelve neighbours, and some speculative contacts across small gaps). A
//! contact is three scalar constraints, one normal and two friction rows;
//! both of Carbon's constraint counts are multiples of three, and the scenes
//! have exactly their bodies and constraints: model1 is 800 bodies and 4,953
//! contacts (14,859 constraints, about 12.4 contacts per body, the kissing
//! number of a sphere pile), model4 4,907 bodies and 32,109 contacts (96,327
//! constraints). `small` is model1, `full` model4; `test` 64 bodies and 240
//! contacts.
//!
//! Parallel structure, as Carbon's: one task solves one contact (its three
//! rows) for one sweep, holding the locks of its two bodies (per-body
//! `Mutex`es, taken in index order); when it finishes it releases the next
//! sweep of every contact sharing a body with it (a dependence counter per
//! contact, `solve::Counters`), so the 20 sweeps overlap with no barrier
//! between them: the dependence graph, folded over the sweeps, is the contact
//! graph with its cycles. The tasks are those of one finegrain phase
//! (enqueue/dequeue, as Carbon's task API), which the sweep-0 tasks start.
//! The Rayon version has no dependence counters: a parallel loop per sweep
//! with a barrier between sweeps, same locks.
//!
//! Deviations: (1) Carbon's task counts (63,436 and 402,754 tasks) are about
//! 4.3 constraints per task, between one row and one contact; here a task
//! is one contact, three rows (99,060 and 642,180 tasks per solve). (2) One
//! solve of model4 takes tens of milliseconds here, so the run is several
//! time steps of a simulation (each step recomputes the contacts' geometry,
//! solves 20 sweeps and moves the bodies; the contact set is kept): 2 steps
//! at `test`, 10 at `small`, 8 at `full`. (3) The result depends on the
//! order in which the tasks lock the bodies, as Carbon's does, so the check
//! cannot be exact. It checks what holds in any order and what the solve
//! must achieve: (a) linear and angular momentum equal the initial ones to
//! 1e-10 of the sums of their terms' magnitudes (every impulse is equal and
//! opposite at one point, so only rounding changes them; a lost update of an
//! unlocked race, or a velocity or position changed after the fact, breaks
//! them); (b) the last step is solved: the normal rows' velocity shortfall
//! (`solve::residual`, at the positions before the last move) is at most
//! 1e-6 of the initial state's (measured: at most 1e-9 of it in 87 runs:
//! at `test`, 4 seeds under every policy and ws:order=fifo at 2 and 4
//! workers and Rayon; at `small`, 3 seeds under ws, ws:order=fifo,
//! adm-central and carbon at 2 and 4 workers and Rayon; two sweeps per step
//! leave far more); (c) the total squared overlap of the contacts has fallen
//! below its initial value and is at most twice the serial order's
//! (measured: 0.99-1.01 times it at `test`; 0.14-1.39 times at `small`, also
//! under adm-hier, where what is left is about 3e-5 of the initial overlap
//! and the order decides most of it). The ignored test
//! `overlap_spread` repeats the measurement.

mod scene;
mod solve;

use crate::{Instance, Output, Size, Workload};
use scene::{Scene, Vel, V3};

pub struct GamePhysics;

/// Carbon's iterations per solve (Table 2).
const SWEEPS: usize = 20;

/// How much more overlap than the serial order's the check accepts.
const OVERLAP_SLACK: f64 = 2.0;

/// Largest velocity shortfall of the last step's normal rows the check
/// accepts, relative to the initial state's.
const RESIDUAL_TOL: f64 = 1e-6;

/// Tolerance of the momenta, relative to the sums of their terms' magnitudes.
const MOMENTUM_TOL: f64 = 1e-10;

impl Workload for GamePhysics {
    fn name(&self) -> &'static str {
        "gps"
    }
    fn description(&self) -> &'static str {
        "game-physics contact solver (projected Gauss-Seidel, sequential impulses), one task per contact and sweep locking its two bodies; final state"
    }
    fn source(&self) -> &'static str {
        "Kumar et al. (Carbon, ISCA 2007), section 5.3 and Table 2 (GPS: model1 and model4, 20 iterations)"
    }
    fn api(&self) -> &'static str {
        "phase"
    }
    fn paper_size(&self) -> bool {
        true
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        self.try_prepare(size, seed).unwrap_or_else(|e| panic!("gps: {e}"))
    }
    fn try_prepare(&self, size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
        // (bodies, constraints, steps); a contact is three constraints.
        let (bodies, constraints, steps) = match size {
            Size::Test => (64, 720, 2),
            Size::Small => (800, 14_859, 10),
            Size::Full => (4_907, 96_327, 8),
            // The small scene: model4's (the full size) needs its 8 steps to
            // converge, 6.5 G cycles of work, beyond a 30-minute claims sweep.
            Size::Paper => (800, 14_859, 10),
        };
        let scene = Scene::generate(bodies, constraints / 3, seed)?;
        Ok(Box::new(GpsInstance { scene, steps }))
    }
}

struct GpsInstance {
    scene: Scene,
    steps: usize,
}

/// The state as the result: positions, velocities, spins (three values each
/// per body).
fn output(s: solve::State) -> Output {
    let mut out = Vec::with_capacity(9 * s.x.len());
    out.extend(s.x.iter().flatten());
    out.extend(s.vel.iter().flat_map(|v| v.v));
    out.extend(s.vel.iter().flat_map(|v| v.w));
    Output::Floats(out)
}

impl GpsInstance {
    /// The state in `out`, or why it is not one of this scene.
    fn state(&self, out: &Output) -> Result<(Vec<V3>, Vec<Vel>), String> {
        let n = self.scene.bodies();
        let Output::Floats(v) = out else { return Err(format!("expected the state of {n} bodies, got {out}")) };
        if v.len() != 9 * n {
            return Err(format!("expected {} values (the state of {n} bodies), got {}", 9 * n, v.len()));
        }
        if let Some(i) = v.iter().position(|x| !x.is_finite()) {
            return Err(format!("value {i} is {}", v[i]));
        }
        let at = |block: usize, i: usize| -> V3 { std::array::from_fn(|d| v[block * 3 * n + 3 * i + d]) };
        let x = (0..n).map(|i| at(0, i)).collect();
        let vel = (0..n).map(|i| Vel { v: at(1, i), w: at(2, i) }).collect();
        Ok((x, vel))
    }

    /// `Ok` if the state keeps the initial momenta and solves its last step;
    /// the overlap it leaves.
    fn conserves(&self, x: &[V3], vel: &[Vel]) -> Result<f64, String> {
        let sc = &self.scene;
        let (p0, l0) = (solve::momentum(sc, &sc.vel0), solve::angular_momentum(sc, &sc.x0, &sc.vel0));
        let (p1, l1) = (solve::momentum(sc, vel), solve::angular_momentum(sc, x, vel));
        let (sp0, sl0) = solve::momentum_scales(sc, &sc.x0, &sc.vel0);
        let (sp1, sl1) = solve::momentum_scales(sc, x, vel);
        let (sp, sl) = (sp0.max(sp1), sl0.max(sl1));
        for d in 0..3 {
            if (p1[d] - p0[d]).abs() > MOMENTUM_TOL * sp {
                return Err(format!("linear momentum {p1:?} is not the initial {p0:?} (tolerance {:.1e})", MOMENTUM_TOL * sp));
            }
            if (l1[d] - l0[d]).abs() > MOMENTUM_TOL * sl {
                return Err(format!("angular momentum {l1:?} is not the initial {l0:?} (tolerance {:.1e})", MOMENTUM_TOL * sl));
            }
        }
        let before: Vec<V3> = x.iter().zip(vel).map(|(x, v)| scene::sub(*x, scene::scale(v.v, solve::DT))).collect();
        let (left, initial) = (solve::residual(sc, &before, vel), solve::residual(sc, &sc.x0, &sc.vel0));
        if left > RESIDUAL_TOL * initial {
            return Err(format!(
                "the last step is not solved: velocity shortfall {left:.3e}, more than {RESIDUAL_TOL:.0e} of the initial {initial:.3e}"
            ));
        }
        Ok(sc.penetration(x))
    }
}

impl Instance for GpsInstance {
    fn describe(&self) -> String {
        let c = self.scene.pairs.len();
        format!("{} bodies, {c} contacts ({} constraints), {} steps of {SWEEPS} sweeps", self.scene.bodies(), 3 * c, self.steps)
    }
    fn serial(&self) -> Output {
        output(solve::serial(&self.scene, self.steps, SWEEPS))
    }
    fn parallel(&self) -> Output {
        // The measured region is inside: the steps, not their set-up.
        output(solve::parallel(crate::par::Finegrain, &self.scene, self.steps, SWEEPS))
    }
    fn rayon(&self) -> Option<Output> {
        Some(output(solve::rayon(&self.scene, self.steps, SWEEPS)))
    }
    fn check(&self, reference: &Output, got: &Output) -> Result<(), String> {
        let (rx, rv) = self.state(reference).map_err(|e| format!("reference: {e}"))?;
        let (gx, gv) = self.state(got)?;
        let want = self.conserves(&rx, &rv).map_err(|e| format!("reference: {e}"))?;
        let have = self.conserves(&gx, &gv)?;
        let initial = self.scene.penetration(&self.scene.x0);
        if have >= initial {
            return Err(format!("overlap {have:.4e} did not fall below the initial {initial:.4e}"));
        }
        if have > OVERLAP_SLACK * want {
            return Err(format!("overlap {have:.4e} is more than {OVERLAP_SLACK} times the serial order's {want:.4e}"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_have_carbons_bodies_and_constraints() {
        for (size, bodies, constraints) in [(Size::Small, 800, 14_859), (Size::Full, 4_907, 96_327)] {
            let inst = GamePhysics.try_prepare(size, 1).unwrap();
            let d = inst.describe();
            assert!(d.starts_with(&format!("{bodies} bodies")) && d.contains(&format!("({constraints} constraints)")), "{d}");
        }
    }

    #[test]
    fn check_rejects_lost_updates_and_unsolved_states() {
        let inst = GpsInstance { scene: Scene::generate(64, 240, 5).unwrap(), steps: 2 };
        let reference = inst.serial();
        inst.check(&reference, &reference).unwrap();
        let Output::Floats(v) = &reference else { unreachable!() };
        let n = inst.scene.bodies();
        // One body's velocity change lost, as an unlocked race would.
        let mut lost = v.clone();
        lost[3 * n] = inst.scene.vel0[0].v[0];
        assert!(inst.check(&reference, &Output::Floats(lost)).unwrap_err().contains("momentum"));
        // The initial state: momenta kept, nothing solved.
        let initial = output(solve::State::initial(&inst.scene));
        assert!(inst.check(&reference, &initial).unwrap_err().contains("not solved"));
        assert!(inst.check(&reference, &Output::Floats(v[..9 * n - 1].to_vec())).is_err());
        // Two sweeps per step instead of 20: momenta kept, steps not solved.
        let rough = output(solve::serial(&inst.scene, 2, 2));
        assert!(inst.check(&reference, &rough).unwrap_err().contains("not solved"));
    }

    /// The spread of the parallel orders' overlap around the serial order's,
    /// the measurement behind `OVERLAP_SLACK` (`cargo test --release -p
    /// finegrain-workloads --lib -- --ignored overlap_spread --nocapture`).
    #[test]
    #[ignore]
    fn overlap_spread() {
        let size = match std::env::var("GPS_SIZE").as_deref() {
            Ok("full") => Size::Full,
            Ok("test") => Size::Test,
            _ => Size::Small,
        };
        let mut specs: Vec<String> = finegrain::policies().map(|p| p.name.to_string()).collect();
        specs.push("ws:order=fifo".into());
        let mut ratios = Vec::new();
        for seed in [1, 2, 3, 7] {
            let (bodies, contacts, steps) = match size {
                Size::Test => (64, 240, 2),
                Size::Small => (800, 4_953, 10),
                Size::Full | Size::Paper => (4_907, 32_109, 8),
            };
            let inst = GpsInstance { scene: Scene::generate(bodies, contacts, seed).unwrap(), steps };
            let reference = inst.serial();
            let (rx, rv) = inst.state(&reference).unwrap();
            let want = inst.conserves(&rx, &rv).unwrap();
            for spec in &specs {
                for threads in [2, 4] {
                    let pool = finegrain::Pool::new(threads, spec).unwrap();
                    let got = pool.install(|| inst.parallel());
                    let (gx, gv) = inst.state(&got).unwrap();
                    let have = inst.conserves(&gx, &gv).unwrap();
                    let prev =
                        |x: &[V3], v: &[Vel]| -> Vec<V3> { x.iter().zip(v).map(|(x, v)| scene::sub(*x, scene::scale(v.v, solve::DT))).collect() };
                    let r_want = solve::residual(&inst.scene, &prev(&rx, &rv), &rv);
                    let r_have = solve::residual(&inst.scene, &prev(&gx, &gv), &gv);
                    let r0 = solve::residual(&inst.scene, &inst.scene.x0, &inst.scene.vel0);
                    let p0 = inst.scene.penetration(&inst.scene.x0);
                    println!("seed {seed} {spec} x{threads}: overlap {have:.4e} vs serial {want:.4e} (initial {p0:.3e}): ratio {:.4}; residual {r_have:.4e} vs serial {r_want:.4e} (initial {r0:.3e}): ratio {:.4}", have / want, r_have / r_want);
                    ratios.push(have / want);
                }
            }
            let r = inst.rayon().unwrap();
            let (gx, gv) = inst.state(&r).unwrap();
            ratios.push(inst.conserves(&gx, &gv).unwrap() / want);
            println!("seed {seed} rayon: ratio {:.4}", ratios.last().unwrap());
        }
        let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(l, h), &r| (l.min(r), h.max(r)));
        println!("ratios {lo:.4}..{hi:.4} over {} runs", ratios.len());
        assert!(hi <= OVERLAP_SLACK);
    }
}
