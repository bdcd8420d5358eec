//! The contact solver: projected Gauss-Seidel over sequential impulses, run
//! serially, as a finegrain task phase whose tasks lock the two bodies they
//! update and release each other across iterations without a barrier, and
//! as Rayon loops with a barrier per iteration.
//!
//! One contact is three scalar constraints (rows) between two bodies: the
//! normal row keeps them from closing the gap faster than it allows (or pushes
//! an overlap apart, a fraction `BETA` of it per step), with a non-negative
//! impulse; two friction rows cancel the sliding velocity with an impulse
//! bounded by `MU` times the normal one (Coulomb's cone, boxed). Each row's
//! impulse is equal and opposite on the two bodies, applied at the one point
//! midway between their surfaces, so linear and angular momentum are
//! conserved whatever order the rows run in.

use super::scene::{add, cross, dot, scale, sub, Props, Scene, Vel, V3};
use crate::par::Par;
use crate::support::shared::SharedMut;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Time step, seconds.
pub const DT: f64 = 1.0 / 60.0;
/// Fraction of an overlap pushed apart per step (Baumgarte stabilisation).
const BETA: f64 = 0.2;
/// Friction coefficient.
const MU: f64 = 0.5;

/// A contact's geometry for one step and its accumulated impulses.
#[derive(Copy, Clone, Debug, Default)]
pub struct Contact {
    n: V3,
    t1: V3,
    t2: V3,
    /// From each body's centre to the contact point.
    ra: V3,
    rb: V3,
    /// Effective masses of the three rows.
    mass: [f64; 3],
    /// Normal velocity the normal row aims for.
    target: f64,
    /// Accumulated impulses: normal, first and second friction.
    impulse: [f64; 3],
}

impl Contact {
    /// The contact of `a` at `xa` and `b` at `xb` for this step, with no
    /// impulse yet.
    pub fn prepare(xa: V3, xb: V3, pa: &Props, pb: &Props) -> Contact {
        let d = sub(xb, xa);
        let dist = dot(d, d).sqrt();
        let n = if dist > 1e-12 { scale(d, 1.0 / dist) } else { [0.0, 0.0, 1.0] };
        let gap = dist - pa.radius - pb.radius;
        // The contact point, midway between the surfaces: both arms end there.
        let ra = scale(n, pa.radius + 0.5 * gap);
        let rb = scale(n, -(pb.radius + 0.5 * gap));
        let t1 = if n[0].abs() > 0.57 { [n[1], -n[0], 0.0] } else { [0.0, n[2], -n[1]] };
        let t1 = scale(t1, 1.0 / dot(t1, t1).sqrt());
        let t2 = cross(n, t1);
        let eff = |dir: V3| {
            let (ca, cb) = (cross(ra, dir), cross(rb, dir));
            1.0 / (pa.inv_mass + pb.inv_mass + pa.inv_inertia * dot(ca, ca) + pb.inv_inertia * dot(cb, cb))
        };
        // A gap may close within the step; an overlap opens by BETA of itself.
        let target = if gap > 0.0 { -gap / DT } else { -BETA * gap / DT };
        Contact { n, t1, t2, ra, rb, mass: [eff(n), eff(t1), eff(t2)], target, impulse: [0.0; 3] }
    }

    /// One Gauss-Seidel pass over the contact's three rows, updating both
    /// bodies.
    #[inline]
    pub fn solve(&mut self, va: &mut Vel, vb: &mut Vel, pa: &Props, pb: &Props) {
        let rel = |va: &Vel, vb: &Vel| sub(add(vb.v, cross(vb.w, self.rb)), add(va.v, cross(va.w, self.ra)));
        let apply = |va: &mut Vel, vb: &mut Vel, dir: V3, d: f64| {
            let p = scale(dir, d);
            va.v = sub(va.v, scale(p, pa.inv_mass));
            va.w = sub(va.w, scale(cross(self.ra, p), pa.inv_inertia));
            vb.v = add(vb.v, scale(p, pb.inv_mass));
            vb.w = add(vb.w, scale(cross(self.rb, p), pb.inv_inertia));
        };
        let vn = dot(rel(va, vb), self.n);
        let total = (self.impulse[0] + self.mass[0] * (self.target - vn)).max(0.0);
        let d = total - self.impulse[0];
        self.impulse[0] = total;
        apply(va, vb, self.n, d);
        let bound = MU * self.impulse[0];
        for (row, dir) in [(1, self.t1), (2, self.t2)] {
            let vt = dot(rel(va, vb), dir);
            let total = (self.impulse[row] - self.mass[row] * vt).clamp(-bound, bound);
            let d = total - self.impulse[row];
            self.impulse[row] = total;
            apply(va, vb, dir, d);
        }
    }
}

/// The state a run evolves: positions and velocities.
pub struct State {
    pub x: Vec<V3>,
    pub vel: Vec<Vel>,
}

impl State {
    pub fn initial(scene: &Scene) -> State {
        State { x: scene.x0.clone(), vel: scene.vel0.clone() }
    }
}

/// Move every body by its velocity over one step (a loop of tasks of 256
/// bodies).
fn integrate<P: Par>(p: P, x: &mut [V3], vel: &[Vel]) {
    p.for_each_chunk_mut(x, 256, |start, part| {
        let vel = &vel[start..start + part.len()];
        finegrain::record::read(vel);
        for (x, v) in part.iter_mut().zip(vel) {
            *x = add(*x, scale(v.v, DT));
        }
    });
}

/// `steps` steps of `iters` Gauss-Seidel sweeps over the contacts in order,
/// each step followed by the move.
pub fn serial(scene: &Scene, steps: usize, iters: usize) -> State {
    let mut s = State::initial(scene);
    let mut contacts = vec![Contact::default(); scene.pairs.len()];
    for _ in 0..steps {
        for k in 0..iters {
            for (c, &(a, b)) in scene.pairs.iter().enumerate() {
                let (a, b) = (a as usize, b as usize);
                if k == 0 {
                    contacts[c] = Contact::prepare(s.x[a], s.x[b], &scene.props[a], &scene.props[b]);
                }
                // a < b: split between them.
                let (lo, hi) = s.vel.split_at_mut(b);
                contacts[c].solve(&mut lo[a], &mut hi[0], &scene.props[a], &scene.props[b]);
            }
        }
        integrate(crate::par::Serial, &mut s.x, &s.vel);
    }
    s
}

/// The bodies' velocities shared by the tasks of a step, each guarded by its
/// own lock.
struct Bodies<'a> {
    vel: SharedMut<'a, Vel>,
    locks: &'a [Mutex<()>],
}

impl Bodies<'_> {
    /// Run `f` on the velocities of `a` and `b` (`a < b`) while holding both
    /// locks, taken in index order so that no two tasks wait on each other.
    #[inline]
    fn with_pair<R>(&self, a: usize, b: usize, f: impl FnOnce(&mut Vel, &mut Vel) -> R) -> R {
        debug_assert!(a < b);
        let _ga = self.locks[a].lock().unwrap_or_else(|e| e.into_inner());
        let _gb = self.locks[b].lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: a != b, and every access to a body's velocity during the
        // step happens under its lock, which this thread holds for both.
        let (va, vb) = unsafe { (&mut self.vel.slice(a..a + 1)[0], &mut self.vel.slice(b..b + 1)[0]) };
        finegrain::record::write(std::slice::from_ref(va));
        finegrain::record::write(std::slice::from_ref(vb));
        f(va, vb)
    }
}

/// A task of the phase: contact `contact` at sweep `iter`; or, with `iter`
/// at [`SPREAD`], the contacts `contact..hi` at sweep 0, a range that hands
/// its upper halves on as tasks and solves its first contact. The first
/// sweep's tasks thus fan out as a tree from one initial task: enqueued one
/// by one by the phase's caller, they were a serial chain of thousands of
/// spawns at the start of every step, most of the recorded span.
#[derive(Copy, Clone, Debug)]
struct Solve {
    contact: u32,
    iter: u32,
    hi: u32,
}
finegrain::phase_task!(Solve);

/// The `iter` of a range of first-sweep contacts.
const SPREAD: u32 = u32::MAX;

impl Solve {
    fn one(contact: u32, iter: u32) -> Solve {
        Solve { contact, iter, hi: 0 }
    }

    /// The first-sweep contact this task solves, after `emit` has been given
    /// the upper halves of its range.
    fn spread(self, mut emit: impl FnMut(Solve)) -> Solve {
        if self.iter != SPREAD {
            return self;
        }
        let (lo, mut hi) = (self.contact, self.hi);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            emit(Solve { contact: mid, iter: SPREAD, hi });
            hi = mid;
        }
        Solve::one(lo, 0)
    }
}

/// Dependence counters: contact `c` may run sweep `k + 1` once every contact
/// that shares a body with it (itself included) has finished sweep `k`, that
/// is once both its bodies are done with sweep `k`. A body counts its
/// contacts still to finish the sweep, a contact its bodies still to be done
/// (two): a finishing task decrements its two bodies, and a body it takes to
/// zero decrements each of its contacts; the same dependences as one counter
/// per contact over all its neighbours, with about four atomic operations
/// per task instead of about 24.
///
/// Counter `k % 2` counts for sweep `k`: nothing runs more than one sweep
/// ahead of a neighbour (a contact's sweep `k + 1` waits for its bodies'
/// sweep `k`, which waits for every contact of the bodies), so two per body
/// and per contact suffice. The task that takes a counter to zero resets it
/// for sweep `k + 2` before it goes on, and every later decrement of it comes
/// from a task that ran after that.
struct Counters {
    /// Per body: contacts still to finish the sweep.
    body: Vec<[AtomicU32; 2]>,
    degree: Vec<u32>,
    /// Per contact: bodies still to finish the previous sweep.
    contact: Vec<[AtomicU32; 2]>,
}

/// Take `slot` down by one; when that was the last unit, put it back to
/// `full` and say so.
#[inline]
fn count_down(slot: &AtomicU32, full: u32) -> bool {
    if slot.fetch_sub(1, Ordering::AcqRel) == 1 {
        slot.store(full, Ordering::Relaxed);
        return true;
    }
    false
}

impl Counters {
    fn new(scene: &Scene) -> Counters {
        let degree: Vec<u32> = (0..scene.bodies()).map(|b| scene.contacts_of(b).len() as u32).collect();
        let body = degree.iter().map(|&d| [AtomicU32::new(d), AtomicU32::new(d)]).collect();
        let contact = scene.pairs.iter().map(|_| [AtomicU32::new(2), AtomicU32::new(2)]).collect();
        Counters { body, degree, contact }
    }

    fn reset(&mut self) {
        for (c, &d) in self.body.iter_mut().zip(&self.degree) {
            *c = [AtomicU32::new(d), AtomicU32::new(d)];
        }
        for c in &mut self.contact {
            *c = [AtomicU32::new(2), AtomicU32::new(2)];
        }
    }

    /// A contact of `body` has finished sweep `iter`; `ready(q)` for each
    /// contact `q` this makes ready for sweep `iter + 1`.
    #[inline]
    fn finished(&self, scene: &Scene, body: usize, iter: u32, mut ready: impl FnMut(u32)) {
        finegrain::record::write(&self.body[body..body + 1]);
        if !count_down(&self.body[body][iter as usize % 2], self.degree[body]) {
            return;
        }
        let next = (iter as usize + 1) % 2;
        finegrain::record::declare(|| {
            for &q in scene.contacts_of(body) {
                finegrain::record::write(&self.contact[q as usize..q as usize + 1]);
            }
        });
        for &q in scene.contacts_of(body) {
            if count_down(&self.contact[q as usize][next], 2) {
                ready(q);
            }
        }
    }
}

/// As [`serial`], each step one task phase: a task solves one contact for one
/// sweep with both bodies locked, then counts itself done for both bodies,
/// releasing the next sweep of the contacts of a body it was the last of. Sweeps overlap (no barrier between them);
/// only the move between steps waits for the whole phase.
pub fn parallel<P: Par>(p: P, scene: &Scene, steps: usize, iters: usize) -> State {
    parallel_counted(p, scene, steps, iters, None)
}

/// [`parallel`], adding the number of tasks run to `tasks`.
fn parallel_counted<P: Par>(p: P, scene: &Scene, steps: usize, iters: usize, tasks: Option<&AtomicUsize>) -> State {
    let mut s = State::initial(scene);
    let mut contacts = vec![Contact::default(); scene.pairs.len()];
    let mut counters = Counters::new(scene);
    let locks: Vec<Mutex<()>> = (0..scene.bodies()).map(|_| Mutex::new(())).collect();
    let iters = iters as u32;
    // The measured region is the steps: not the state, contacts, counters
    // and locks allocated for them (the root's longest stretch of the trace).
    p.region(|| {
        for _ in 0..steps {
            if iters > 0 {
                counters.reset();
                let (x, props) = (&s.x, &scene.props);
                let bodies = Bodies { vel: SharedMut::new(&mut s.vel), locks: &locks };
                let shared = SharedMut::new(&mut contacts);
                let counters = &counters;
                let n = scene.pairs.len() as u32;
                let initial = (n > 0).then_some(Solve { contact: 0, iter: SPREAD, hi: n });
                finegrain::phase(initial, |ctx, t| {
                    let t = t.spread(|range| ctx.enqueue(range));
                    if let Some(n) = tasks {
                        n.fetch_add(1, Ordering::Relaxed);
                    }
                    let c = t.contact as usize;
                    let (a, b) = (scene.pairs[c].0 as usize, scene.pairs[c].1 as usize);
                    // SAFETY: one task per contact runs at a time: its sweep
                    // k + 1 waits for its own sweep k (a contact is its own
                    // predecessor).
                    let con = unsafe { &mut shared.slice(c..c + 1)[0] };
                    finegrain::record::write(std::slice::from_ref(con));
                    if t.iter == 0 {
                        finegrain::record::read(&x[a..a + 1]);
                        finegrain::record::read(&x[b..b + 1]);
                        *con = Contact::prepare(x[a], x[b], &props[a], &props[b]);
                    }
                    bodies.with_pair(a, b, |va, vb| con.solve(va, vb, &props[a], &props[b]));
                    let next = t.iter + 1;
                    if next < iters {
                        for body in [a, b] {
                            counters.finished(scene, body, t.iter, |q| ctx.enqueue(Solve::one(q, next)));
                        }
                    }
                });
            }
            integrate(p, &mut s.x, &s.vel);
        }
    });
    s
}

/// As [`serial`] in Rayon: each sweep a parallel loop over the contacts,
/// locking both bodies, with a barrier between sweeps.
pub fn rayon(scene: &Scene, steps: usize, iters: usize) -> State {
    let mut s = State::initial(scene);
    let mut contacts = vec![Contact::default(); scene.pairs.len()];
    let locks: Vec<Mutex<()>> = (0..scene.bodies()).map(|_| Mutex::new(())).collect();
    for _ in 0..steps {
        {
            let (x, props) = (&s.x, &scene.props);
            let bodies = Bodies { vel: SharedMut::new(&mut s.vel), locks: &locks };
            for k in 0..iters {
                contacts.par_iter_mut().zip(&scene.pairs).for_each(|(con, &(a, b))| {
                    let (a, b) = (a as usize, b as usize);
                    if k == 0 {
                        *con = Contact::prepare(x[a], x[b], &props[a], &props[b]);
                    }
                    bodies.with_pair(a, b, |va, vb| con.solve(va, vb, &props[a], &props[b]));
                });
            }
        }
        integrate(crate::par::Rayon, &mut s.x, &s.vel);
    }
    s
}

/// How far velocities `vel` are from satisfying the normal rows of the
/// contacts at positions `x`: the sum over the contacts of the squared
/// shortfall of their normal velocity below its target (zero for a solved
/// step: a pair then separates at least as fast as its row asks).
pub fn residual(scene: &Scene, x: &[V3], vel: &[Vel]) -> f64 {
    scene
        .pairs
        .iter()
        .map(|&(a, b)| {
            let (a, b) = (a as usize, b as usize);
            let c = Contact::prepare(x[a], x[b], &scene.props[a], &scene.props[b]);
            let rel = sub(add(vel[b].v, cross(vel[b].w, c.rb)), add(vel[a].v, cross(vel[a].w, c.ra)));
            (c.target - dot(rel, c.n)).max(0.0).powi(2)
        })
        .sum()
}

/// Total linear momentum.
pub fn momentum(scene: &Scene, vel: &[Vel]) -> V3 {
    vel.iter().zip(&scene.props).fold([0.0; 3], |m, (v, p)| add(m, scale(v.v, p.mass)))
}

/// Total angular momentum about the origin: orbital plus spin.
pub fn angular_momentum(scene: &Scene, x: &[V3], vel: &[Vel]) -> V3 {
    x.iter().zip(vel).zip(&scene.props).fold([0.0; 3], |l, ((x, v), p)| add(l, add(cross(*x, scale(v.v, p.mass)), scale(v.w, 1.0 / p.inv_inertia))))
}

/// The magnitudes the momenta are sums of, for their tolerances.
pub fn momentum_scales(scene: &Scene, x: &[V3], vel: &[Vel]) -> (f64, f64) {
    let norm = |a: V3| dot(a, a).sqrt();
    vel.iter()
        .zip(x)
        .zip(&scene.props)
        .fold((0.0, 0.0), |(p, l), ((v, x), pr)| (p + pr.mass * norm(v.v), l + norm(*x) * pr.mass * norm(v.v) + norm(v.w) / pr.inv_inertia))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A range spread out task by task solves each of its contacts once, at
    /// sweep 0, in a tree of depth about log2 of its length.
    #[test]
    fn a_spread_range_solves_each_contact_once() {
        for n in [1u32, 2, 7, 64, 1000] {
            let mut work = vec![(Solve { contact: 0, iter: SPREAD, hi: n }, 0u32)];
            let (mut seen, mut deepest) = (vec![0u32; n as usize], 0);
            while let Some((t, depth)) = work.pop() {
                let mut emitted = Vec::new();
                let one = t.spread(|r| emitted.push(r));
                assert_eq!((one.iter, one.hi), (0, 0));
                seen[one.contact as usize] += 1;
                deepest = deepest.max(depth);
                work.extend(emitted.into_iter().map(|r| (r, depth + 1)));
            }
            assert!(seen.iter().all(|&k| k == 1), "n={n}: {seen:?}");
            assert!(deepest <= n.ilog2() + 1, "n={n}: depth {deepest}");
        }
        assert_eq!(Solve::one(5, 3).spread(|_| panic!("not a range")).contact, 5);
    }

    fn props(r: f64, m: f64) -> Props {
        Props { radius: r, mass: m, inv_mass: 1.0 / m, inv_inertia: 1.0 / (0.4 * m * r * r) }
    }

    #[test]
    fn a_head_on_collision_stops_the_approach_and_conserves_momentum() {
        let (pa, pb) = (props(0.5, 1.0), props(0.5, 3.0));
        // Touching, approaching at 2 along x.
        let mut c = Contact::prepare([0.0; 3], [1.0, 0.0, 0.0], &pa, &pb);
        let mut va = Vel { v: [1.0, 0.0, 0.0], w: [0.0; 3] };
        let mut vb = Vel { v: [-1.0, 0.0, 0.0], w: [0.0; 3] };
        c.solve(&mut va, &mut vb, &pa, &pb);
        // Perfectly inelastic along the normal: a common velocity, momentum kept.
        assert!((va.v[0] - vb.v[0]).abs() < 1e-12);
        assert!((va.v[0] * 1.0 + vb.v[0] * 3.0 - (1.0 - 3.0)).abs() < 1e-12);
        assert!(c.impulse[0] > 0.0);
    }

    #[test]
    fn separating_bodies_feel_no_impulse() {
        let (pa, pb) = (props(0.5, 1.0), props(0.5, 1.0));
        let mut c = Contact::prepare([0.0; 3], [1.2, 0.0, 0.0], &pa, &pb);
        let mut va = Vel { v: [-1.0, 0.3, 0.0], w: [0.0, 0.0, 1.0] };
        let mut vb = Vel { v: [1.0, 0.0, 0.0], w: [0.0; 3] };
        let before = (va, vb);
        c.solve(&mut va, &mut vb, &pa, &pb);
        assert_eq!((va, vb), before);
        assert_eq!(c.impulse, [0.0; 3]);
    }

    #[test]
    fn friction_is_bounded_by_the_normal_impulse() {
        let (pa, pb) = (props(0.5, 1.0), props(0.5, 1.0));
        let mut c = Contact::prepare([0.0; 3], [0.0, 0.0, 0.99], &pa, &pb);
        // Sliding fast along x, pressing lightly along z.
        let mut va = Vel { v: [5.0, 0.0, 0.1], w: [0.0; 3] };
        let mut vb = Vel::default();
        c.solve(&mut va, &mut vb, &pa, &pb);
        let friction = (c.impulse[1].powi(2) + c.impulse[2].powi(2)).sqrt();
        assert!(c.impulse[0] > 0.0 && friction > 0.0);
        assert!(c.impulse[1].abs() <= MU * c.impulse[0] + 1e-15 && c.impulse[2].abs() <= MU * c.impulse[0] + 1e-15);
    }

    #[test]
    fn the_solver_reduces_overlap_and_conserves_momenta() {
        let scene = Scene::generate(100, 400, 3).unwrap();
        let s = serial(&scene, 4, 20);
        let (p0, l0) = (momentum(&scene, &scene.vel0), angular_momentum(&scene, &scene.x0, &scene.vel0));
        let (sp, sl) = momentum_scales(&scene, &scene.x0, &scene.vel0);
        let (p1, l1) = (momentum(&scene, &s.vel), angular_momentum(&scene, &s.x, &s.vel));
        for d in 0..3 {
            assert!((p1[d] - p0[d]).abs() < 1e-12 * sp, "{p0:?} {p1:?}");
            assert!((l1[d] - l0[d]).abs() < 1e-12 * sl, "{l0:?} {l1:?}");
        }
        assert!(scene.penetration(&s.x) < 0.5 * scene.penetration(&scene.x0));
    }

    #[test]
    fn every_contact_runs_once_per_sweep() {
        let scene = Scene::generate(60, 200, 9).unwrap();
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for (steps, iters) in [(1, 1), (1, 2), (2, 20)] {
            let tasks = AtomicUsize::new(0);
            let got = pool.install(|| parallel_counted(crate::par::Finegrain, &scene, steps, iters, Some(&tasks)));
            assert_eq!(tasks.into_inner(), steps * iters * 200);
            // The same physics as the serial order, up to the order.
            let want = serial(&scene, steps, iters);
            let pen = |s: &State| scene.penetration(&s.x);
            assert!((pen(&got) - pen(&want)).abs() <= 0.2 * pen(&want), "{iters} sweeps: {} vs {}", pen(&got), pen(&want));
        }
    }
}
