//! `gjk`: narrow-phase collision detection between convex polytopes by the
//! GJK distance algorithm, one task per set of candidate pairs found in one
//! broad-phase grid cell (R. Yoo, *Locality-Aware Task Management on
//! Many-Core Processors*, PhD thesis, Stanford University, 2012, section
//! 4.1.1, Table 4.1: "gjk", "collision detection for pairs of likely-
//! colliding objects", tasks operating on sets of object pairs with
//! clustered sharing; 384 tasks of about 5K instructions).
//!
//! **Input.** A scene of piles of debris: clusters of convex polytopes (16
//! to 40 vertices on a randomly rotated ellipsoid, so that every vertex is
//! extreme), each object with a slow drift and spin. Objects are stored
//! cluster by cluster, as a scene graph loads them.
//!
//! **Program.** The broad phase is serial and untimed, as the hash join's
//! build is: each object's bounding sphere, fattened by its motion over all
//! frames (as engines keep fat bounding boxes so that pairs persist), is
//! inserted in a uniform grid; a pair of objects whose fat boxes overlap is
//! a candidate of the one cell holding the low corner of the overlap. The
//! tasks are the non-empty cells in the order of a hashed grid (no spatial
//! order). Then, for each of `frames` frames, one task space over the
//! tasks: each task runs GJK on each of its pairs, posed at that frame,
//! and stores the distance (0 for intersecting objects). The frames keep
//! their plan (`Replay`, thesis section 5.5.2).
//!
//! **GJK.** Gilbert, Johnson and Keerthi (IEEE J. Robotics and Automation
//! 1988), in van den Bergen's formulation (J. Graphics Tools 1999): the
//! point of the Minkowski difference `A - B` nearest the origin is
//! approached by a simplex of support points; each iteration finds the
//! simplex's point nearest the origin and its smallest sub-simplex (by
//! Voronoi regions, Ericson, *Real-Time Collision Detection*, 2005, 5.1),
//! and adds the support point in the opposite direction, until the support
//! point comes no closer (relative tolerance `1e-7`) or the origin is inside
//! a tetrahedron (intersection).
//!
//! **Hint.** The thesis names no pattern manager for gjk; its pairs share
//! objects, input-dependently, so the hint is a signature: bit `r` of a
//! task's signature is set if it reads an object in the `r`-th of 1,024
//! equal ranges of the object array.
//!
//! **Check.** Every version computes each pair with the same operations,
//! so the distances are bit-identical and compared exactly. Unit tests
//! check each pair's distance against brute force: the separating plane
//! of the witness points bounds the distance from below, the witness points
//! from above, and no sampled axis separates an intersecting pair.

use super::{rayon_space, run_space};
use crate::support::rng::{mix, SplitMix64};
use crate::support::shared::SharedMut;
use crate::{Instance, Output, Size, Workload};
use finegrain::policy::locality::signature::{mark, Signature};
use finegrain::{Replay, TaskSpace};
use std::collections::HashMap;

type V = [f64; 3];

/// Relative tolerance of GJK's termination test (squared in the test).
const EPS_REL: f64 = 1e-7;
/// Iterations GJK may take at most (it converges in far fewer).
const MAX_ITERATIONS: usize = 64;

pub(crate) struct Gjk {
    pub(crate) hint: bool,
}

impl Workload for Gjk {
    fn name(&self) -> &'static str {
        if self.hint {
            "gjk"
        } else {
            "gjk-nohint"
        }
    }
    fn description(&self) -> &'static str {
        "GJK distances between clustered convex polytopes, one task per broad-phase cell's pair set, task spaces with signatures"
    }
    fn source(&self) -> &'static str {
        "Yoo (PhD thesis, Stanford 2012), section 4.1.1 (gjk, clustered); Gilbert, Johnson, Keerthi 1988"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (clusters, per_cluster, frames) = match size {
            Size::Test => (4, 40, 2),
            Size::Small => (40, 100, 2),
            Size::Full | Size::Paper => (160, 100, 6),
        };
        Box::new(GjkInstance::generate(clusters, per_cluster, frames, seed, self.hint))
    }
}

fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn add(a: V, b: V) -> V {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn scale(a: V, s: f64) -> V {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: V, b: V) -> V {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// A rotation about unit `axis` by `angle` (Rodrigues), as rows.
fn rotation(axis: V, angle: f64) -> [V; 3] {
    let (s, c) = angle.sin_cos();
    let [x, y, z] = axis;
    let t = 1.0 - c;
    [
        [t * x * x + c, t * x * y - s * z, t * x * z + s * y],
        [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
        [t * x * z - s * y, t * y * z + s * x, t * z * z + c],
    ]
}

/// A polytope posed in the world: vertices in its own frame, rotation (rows)
/// and position.
struct Posed<'a> {
    verts: &'a [V],
    rot: [V; 3],
    at: V,
}

impl Posed<'_> {
    fn world(&self, v: V) -> V {
        add([dot(self.rot[0], v), dot(self.rot[1], v), dot(self.rot[2], v)], self.at)
    }

    /// The vertex (world) farthest along `d`.
    fn support(&self, d: V) -> V {
        // The direction in the object's frame: R^T d.
        let r = &self.rot;
        let local = [
            r[0][0] * d[0] + r[1][0] * d[1] + r[2][0] * d[2],
            r[0][1] * d[0] + r[1][1] * d[1] + r[2][1] * d[2],
            r[0][2] * d[0] + r[1][2] * d[1] + r[2][2] * d[2],
        ];
        let mut best = (f64::MIN, self.verts[0]);
        for &v in self.verts {
            let s = dot(v, local);
            if s > best.0 {
                best = (s, v);
            }
        }
        self.world(best.1)
    }
}

/// GJK's result: the distance, 0 if the objects intersect, and the witness
/// points (nearest points of A and of B; equal when they intersect).
/// The witness points are what the unit tests check GJK by.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(test), allow(dead_code))]
struct Contact {
    distance: f64,
    on_a: V,
    on_b: V,
}

/// A simplex of up to four support points `w = a - b`, with their `a`, `b`
/// and barycentric weights of the nearest point.
#[derive(Default)]
struct Simplex {
    n: usize,
    w: [V; 4],
    a: [V; 4],
    b: [V; 4],
    lambda: [f64; 4],
}

impl Simplex {
    /// Keep the vertices `keep` with weights `lambda`; returns the point.
    fn reduce(&mut self, keep: &[usize], lambda: &[f64]) -> V {
        let (w, a, b) = (self.w, self.a, self.b);
        let mut v = [0.0; 3];
        for (k, (&i, &l)) in keep.iter().zip(lambda).enumerate() {
            self.w[k] = w[i];
            self.a[k] = a[i];
            self.b[k] = b[i];
            self.lambda[k] = l;
            v = add(v, scale(w[i], l));
        }
        self.n = keep.len();
        v
    }

    /// The point of triangle `(i, j, k)` nearest the origin, as vertex
    /// indices and weights (Ericson 5.1.5, with the query point at 0).
    fn triangle(&self, i: usize, j: usize, k: usize) -> (Vec<usize>, Vec<f64>) {
        let (a, b, c) = (self.w[i], self.w[j], self.w[k]);
        let (ab, ac, ap) = (sub(b, a), sub(c, a), scale(a, -1.0));
        let (d1, d2) = (dot(ab, ap), dot(ac, ap));
        if d1 <= 0.0 && d2 <= 0.0 {
            return (vec![i], vec![1.0]);
        }
        let bp = scale(b, -1.0);
        let (d3, d4) = (dot(ab, bp), dot(ac, bp));
        if d3 >= 0.0 && d4 <= d3 {
            return (vec![j], vec![1.0]);
        }
        let vc = d1 * d4 - d3 * d2;
        if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
            let t = d1 / (d1 - d3);
            return (vec![i, j], vec![1.0 - t, t]);
        }
        let cp = scale(c, -1.0);
        let (d5, d6) = (dot(ab, cp), dot(ac, cp));
        if d6 >= 0.0 && d5 <= d6 {
            return (vec![k], vec![1.0]);
        }
        let vb = d5 * d2 - d1 * d6;
        if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
            let t = d2 / (d2 - d6);
            return (vec![i, k], vec![1.0 - t, t]);
        }
        let va = d3 * d6 - d5 * d4;
        if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
            let t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
            return (vec![j, k], vec![1.0 - t, t]);
        }
        let denom = 1.0 / (va + vb + vc);
        let (v, w) = (vb * denom, vc * denom);
        (vec![i, j, k], vec![1.0 - v - w, v, w])
    }

    /// Replace the simplex by its smallest sub-simplex holding its point
    /// nearest the origin, and return that point; `None` if the origin is
    /// inside the tetrahedron.
    fn nearest(&mut self) -> Option<V> {
        match self.n {
            1 => Some(self.reduce(&[0], &[1.0])),
            2 => {
                let (a, b) = (self.w[0], self.w[1]);
                let ab = sub(b, a);
                let len2 = dot(ab, ab);
                let t = if len2 > 0.0 { (-dot(a, ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
                Some(if t <= 0.0 {
                    self.reduce(&[0], &[1.0])
                } else if t >= 1.0 {
                    self.reduce(&[1], &[1.0])
                } else {
                    self.reduce(&[0, 1], &[1.0 - t, t])
                })
            }
            3 => {
                let (keep, lambda) = self.triangle(0, 1, 2);
                Some(self.reduce(&keep, &lambda))
            }
            _ => {
                // The faces the origin lies outside of (on the side away
                // from the opposite vertex); none: the origin is inside.
                const FACES: [[usize; 4]; 4] = [[0, 1, 2, 3], [0, 1, 3, 2], [0, 2, 3, 1], [1, 2, 3, 0]];
                let mut best: Option<(f64, Vec<usize>, Vec<f64>)> = None;
                let mut outside = false;
                for [i, j, k, o] in FACES {
                    let normal = cross(sub(self.w[j], self.w[i]), sub(self.w[k], self.w[i]));
                    let (origin_side, other_side) = (-dot(normal, self.w[i]), dot(normal, sub(self.w[o], self.w[i])));
                    // A flat tetrahedron (other_side = 0) tests every face.
                    if origin_side * other_side < 0.0 || other_side == 0.0 {
                        outside = true;
                        let (keep, lambda) = self.triangle(i, j, k);
                        let p = keep.iter().zip(&lambda).fold([0.0; 3], |p, (&m, &l)| add(p, scale(self.w[m], l)));
                        let d = dot(p, p);
                        if best.as_ref().is_none_or(|b| d < b.0) {
                            best = Some((d, keep, lambda));
                        }
                    }
                }
                if !outside {
                    // The origin's barycentric weights, by signed volumes,
                    // for the witness points.
                    let w = self.w;
                    let (e1, e2, e3, o) = (sub(w[1], w[0]), sub(w[2], w[0]), sub(w[3], w[0]), scale(w[0], -1.0));
                    let det = dot(e1, cross(e2, e3));
                    let l1 = dot(o, cross(e2, e3)) / det;
                    let l2 = dot(e1, cross(o, e3)) / det;
                    let l3 = dot(e1, cross(e2, o)) / det;
                    self.lambda = [1.0 - l1 - l2 - l3, l1, l2, l3];
                    return None;
                }
                let (_, keep, lambda) = best.expect("an outside face");
                Some(self.reduce(&keep, &lambda))
            }
        }
    }

    fn witnesses(&self) -> (V, V) {
        (0..self.n).fold(([0.0; 3], [0.0; 3]), |(pa, pb), k| (add(pa, scale(self.a[k], self.lambda[k])), add(pb, scale(self.b[k], self.lambda[k]))))
    }
}

/// The GJK distance between polytopes `a` and `b`.
fn gjk(a: &Posed<'_>, b: &Posed<'_>) -> Contact {
    let mut s = Simplex::default();
    let (sa, sb) = (a.world(a.verts[0]), b.world(b.verts[0]));
    s.n = 1;
    (s.w[0], s.a[0], s.b[0], s.lambda[0]) = (sub(sa, sb), sa, sb, 1.0);
    let mut v = s.w[0];
    for _ in 0..MAX_ITERATIONS {
        let vv = dot(v, v);
        if vv <= 1e-30 {
            break;
        }
        let d = scale(v, -1.0);
        let (pa, pb) = (a.support(d), b.support(v));
        let w = sub(pa, pb);
        // No support point closer than the simplex: v is (nearly) nearest.
        if vv - dot(v, w) <= EPS_REL * EPS_REL * vv || s.w[..s.n].contains(&w) {
            let (on_a, on_b) = s.witnesses();
            return Contact { distance: vv.sqrt(), on_a, on_b };
        }
        let n = s.n;
        (s.w[n], s.a[n], s.b[n]) = (w, pa, pb);
        s.n += 1;
        match s.nearest() {
            Some(next) => v = next,
            None => break,
        }
    }
    let (on_a, on_b) = s.witnesses();
    let vv = dot(v, v);
    // Inside a tetrahedron or at the origin: the objects intersect. A run
    // that hit the iteration cap reports its current estimate.
    let distance = if s.n == 4 || vv <= 1e-30 { 0.0 } else { vv.sqrt() };
    Contact { distance, on_a, on_b }
}

/// One object: its vertex range, and its motion.
struct Object {
    verts: std::ops::Range<usize>,
    at: V,
    drift: V,
    axis: V,
    spin: f64,
    /// Bounding radius about `at`.
    radius: f64,
}

struct GjkInstance {
    verts: Vec<V>,
    objects: Vec<Object>,
    /// Task `t`'s pairs are `pairs[start[t]..start[t + 1]]`.
    pairs: Vec<(u32, u32)>,
    start: Vec<usize>,
    frames: usize,
    sigs: Vec<Signature>,
    hint: bool,
}

impl GjkInstance {
    fn generate(clusters: usize, per_cluster: usize, frames: usize, seed: u64, hint: bool) -> GjkInstance {
        assert!(clusters > 0 && per_cluster > 1 && frames > 0, "gjk: needs a cluster of two objects and a frame");
        let mut rng = SplitMix64::new(seed ^ 0x0067_6a6b);
        let unit_vector = |rng: &mut SplitMix64| loop {
            let v = [2.0 * rng.unit() - 1.0, 2.0 * rng.unit() - 1.0, 2.0 * rng.unit() - 1.0];
            let l = dot(v, v);
            if l > 1e-4 && l <= 1.0 {
                break scale(v, 1.0 / l.sqrt());
            }
        };
        // Piles spread over a square field; objects of size about 1.
        let field = 12.0 * (clusters as f64).sqrt();
        let (mut verts, mut objects) = (Vec::new(), Vec::new());
        for _ in 0..clusters {
            let centre = [field * rng.unit(), field * rng.unit(), 2.0 * rng.unit()];
            let spread = 1.2 * (per_cluster as f64).cbrt();
            for _ in 0..per_cluster {
                let offset: V = std::array::from_fn(|_| spread * (rng.unit() + rng.unit() + rng.unit() - 1.5));
                let radii: V = std::array::from_fn(|_| 0.3 + 0.5 * rng.unit());
                let orient = rotation(unit_vector(&mut rng), std::f64::consts::TAU * rng.unit());
                let first = verts.len();
                for _ in 0..16 + rng.below(25) as usize {
                    let u = unit_vector(&mut rng);
                    let p = [u[0] * radii[0], u[1] * radii[1], u[2] * radii[2]];
                    verts.push([dot(orient[0], p), dot(orient[1], p), dot(orient[2], p)]);
                }
                let radius = verts[first..].iter().map(|v| dot(*v, *v).sqrt()).fold(0.0, f64::max);
                objects.push(Object {
                    verts: first..verts.len(),
                    at: add(centre, offset),
                    drift: scale(unit_vector(&mut rng), 0.02 * rng.unit()),
                    axis: unit_vector(&mut rng),
                    spin: 0.05 * (rng.unit() - 0.5),
                    radius,
                });
            }
        }
        let (pairs, start) = broad_phase(&objects, frames);
        let sigs = (0..start.len() - 1)
            .map(|t| {
                let mut sig: Signature = Default::default();
                for &(i, j) in &pairs[start[t]..start[t + 1]] {
                    mark(&mut sig, i as usize, 0, objects.len());
                    mark(&mut sig, j as usize, 0, objects.len());
                }
                sig
            })
            .collect();
        GjkInstance { verts, objects, pairs, start, frames, sigs, hint }
    }

    fn tasks(&self) -> usize {
        self.start.len() - 1
    }

    fn posed(&self, i: usize, frame: usize) -> Posed<'_> {
        let o = &self.objects[i];
        Posed { verts: &self.verts[o.verts.clone()], rot: rotation(o.axis, o.spin * frame as f64), at: add(o.at, scale(o.drift, frame as f64)) }
    }

    fn contact(&self, (i, j): (u32, u32), frame: usize) -> Contact {
        gjk(&self.posed(i as usize, frame), &self.posed(j as usize, frame))
    }

    /// Task `t` of frame `frame`: the distances of its pairs into `out`.
    fn task(&self, out: &SharedMut<'_, f64>, frame: usize, t: usize) {
        let range = self.start[t]..self.start[t + 1];
        finegrain::record::declare(|| {
            for &(i, j) in &self.pairs[range.clone()] {
                for o in [i, j] {
                    finegrain::record::read(&self.verts[self.objects[o as usize].verts.clone()]);
                    finegrain::record::read(std::slice::from_ref(&self.objects[o as usize]));
                }
            }
            finegrain::record::read(&self.pairs[range.clone()]);
            out.declare_write(range.clone());
        });
        for p in range {
            // SAFETY: tasks own disjoint pair ranges; `out` is read after the
            // section.
            unsafe { out.write(p, self.contact(self.pairs[p], frame).distance) };
        }
    }

    fn frames_with(&self, section: impl Fn(&SharedMut<'_, f64>, usize, &mut Replay)) -> Output {
        let mut out = vec![0.0; self.pairs.len() * self.frames];
        let mut replay = Replay::new();
        for (f, chunk) in out.chunks_mut(self.pairs.len()).enumerate() {
            section(&SharedMut::new(chunk), f, &mut replay);
        }
        Output::Floats(out)
    }
}

/// A broad-phase cell and its candidate pairs.
type CellPairs = ([i64; 3], Vec<(u32, u32)>);

/// The candidate pairs, grouped by broad-phase cell, cells in hashed
/// order: `(pairs, start)` with cell `t`'s pairs at `start[t]..start[t + 1]`.
fn broad_phase(objects: &[Object], frames: usize) -> (Vec<(u32, u32)>, Vec<usize>) {
    // Fat boxes: the bounding sphere swept by the drift over all frames.
    let boxes: Vec<(V, V)> = objects
        .iter()
        .map(|o| {
            let end = add(o.at, scale(o.drift, frames.saturating_sub(1) as f64));
            (std::array::from_fn(|d| o.at[d].min(end[d]) - o.radius), std::array::from_fn(|d| o.at[d].max(end[d]) + o.radius))
        })
        .collect();
    let side = 2.0 * objects.iter().map(|o| o.radius).fold(0.0, f64::max);
    let cell = |p: f64| (p / side).floor() as i64;
    let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    for (i, (lo, hi)) in boxes.iter().enumerate() {
        for x in cell(lo[0])..=cell(hi[0]) {
            for y in cell(lo[1])..=cell(hi[1]) {
                for z in cell(lo[2])..=cell(hi[2]) {
                    grid.entry([x, y, z]).or_default().push(i as u32);
                }
            }
        }
    }
    let mut cells: Vec<CellPairs> = Vec::new();
    for (&key, members) in &grid {
        let mut pairs = Vec::new();
        for (n, &i) in members.iter().enumerate() {
            for &j in &members[n + 1..] {
                let (a, b) = (&boxes[i as usize], &boxes[j as usize]);
                let low: V = std::array::from_fn(|d| a.0[d].max(b.0[d]));
                let overlap = (0..3).all(|d| low[d] <= a.1[d].min(b.1[d]));
                if overlap && [cell(low[0]), cell(low[1]), cell(low[2])] == key {
                    pairs.push((i.min(j), i.max(j)));
                }
            }
        }
        if !pairs.is_empty() {
            pairs.sort_unstable();
            cells.push((key, pairs));
        }
    }
    // The hashed grid's order, made deterministic.
    cells.sort_by_key(|(k, _)| (mix(k[0] as u64 ^ mix(k[1] as u64 ^ mix(k[2] as u64))), *k));
    let mut start = vec![0];
    let mut pairs = Vec::new();
    for (_, p) in cells {
        pairs.extend(p);
        start.push(pairs.len());
    }
    (pairs, start)
}

impl Instance for GjkInstance {
    fn describe(&self) -> String {
        format!("{} objects, {} candidate pairs in {} cell tasks, {} frames", self.objects.len(), self.pairs.len(), self.tasks(), self.frames)
    }
    fn serial(&self) -> Output {
        let mut out = Vec::with_capacity(self.pairs.len() * self.frames);
        for f in 0..self.frames {
            out.extend(self.pairs.iter().map(|&p| self.contact(p, f).distance));
        }
        Output::Floats(out)
    }
    fn parallel(&self) -> Output {
        self.frames_with(|out, f, replay| {
            let space = TaskSpace::new([self.tasks()]).replay(replay);
            let space = if self.hint { space.signatures(&self.sigs) } else { space };
            run_space(space, |[t, _, _]| self.task(out, f, t));
        })
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.frames_with(|out, f, _| rayon_space([self.tasks(), 1, 1], |[t, _, _]| self.task(out, f, t))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over all vertices: the gap of the two polytopes along
    /// unit `n` (positive if the plane normal to `n` separates them).
    fn gap(a: &Posed<'_>, b: &Posed<'_>, n: V) -> f64 {
        let max_a = a.verts.iter().map(|&v| dot(a.world(v), n)).fold(f64::MIN, f64::max);
        let min_b = b.verts.iter().map(|&v| dot(b.world(v), n)).fold(f64::MAX, f64::min);
        min_b - max_a
    }

    /// Every pair's distance agrees with brute force: separated pairs'
    /// witness points are at that distance and the plane between them
    /// separates the vertices; no sampled axis separates intersecting pairs,
    /// and their witness points coincide.
    #[test]
    fn distances_agree_with_brute_force() {
        let inst = GjkInstance::generate(4, 40, 2, 3, true);
        let mut rng = SplitMix64::new(8);
        let axes: Vec<V> = (0..400)
            .map(|_| loop {
                let v = [2.0 * rng.unit() - 1.0, 2.0 * rng.unit() - 1.0, 2.0 * rng.unit() - 1.0];
                if dot(v, v) > 1e-3 && dot(v, v) <= 1.0 {
                    break scale(v, 1.0 / dot(v, v).sqrt());
                }
            })
            .collect();
        let (mut hits, mut misses) = (0, 0);
        for f in 0..inst.frames {
            for &(i, j) in &inst.pairs {
                let (a, b) = (inst.posed(i as usize, f), inst.posed(j as usize, f));
                let c = gjk(&a, &b);
                let between = sub(c.on_b, c.on_a);
                if c.distance > 0.0 {
                    misses += 1;
                    let d = dot(between, between).sqrt();
                    assert!((d - c.distance).abs() < 1e-9, "{d} {}", c.distance);
                    let n = scale(between, 1.0 / d);
                    assert!(gap(&a, &b, n) > c.distance * (1.0 - 1e-6) - 1e-12, "pair {i} {j}: {} {}", gap(&a, &b, n), c.distance);
                    // No sampled axis shows a larger gap.
                    assert!(axes.iter().all(|&n| gap(&a, &b, n) <= c.distance + 1e-9));
                } else {
                    hits += 1;
                    assert!(dot(between, between) < 1e-12);
                    assert!(axes.iter().all(|&n| gap(&a, &b, n) <= 1e-9), "pair {i} {j} separated");
                }
            }
        }
        assert!(hits > 10 && misses > 10, "{hits} intersecting, {misses} apart");
    }

    /// Two unit cubes a known distance apart, and overlapping.
    #[test]
    fn cubes_at_known_distances() {
        let cube: Vec<V> = (0..8).map(|i| [(i & 1) as f64 - 0.5, (i >> 1 & 1) as f64 - 0.5, (i >> 2 & 1) as f64 - 0.5]).collect();
        let id = rotation([0.0, 0.0, 1.0], 0.0);
        let a = Posed { verts: &cube, rot: id, at: [0.0; 3] };
        let b = Posed { verts: &cube, rot: id, at: [3.0, 0.2, -0.1] };
        assert!((gjk(&a, &b).distance - 2.0).abs() < 1e-9);
        let b = Posed { verts: &cube, rot: rotation([1.0, 0.0, 0.0], 0.7), at: [0.5, 0.3, 0.0] };
        assert_eq!(gjk(&a, &b).distance, 0.0);
        // Corner to corner along the diagonal.
        let b = Posed { verts: &cube, rot: id, at: [2.0, 2.0, 2.0] };
        assert!((gjk(&a, &b).distance - 3f64.sqrt()).abs() < 1e-9);
    }

    /// Pairs are distinct, each task's objects lie near each other, and
    /// consecutive tasks are usually far apart (hashed order).
    #[test]
    fn tasks_cluster_in_space_but_not_in_order() {
        let inst = GjkInstance::generate(20, 60, 1, 2, true);
        let mut all = inst.pairs.clone();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), inst.pairs.len());
        let centre = |t: usize| inst.objects[inst.pairs[inst.start[t]].0 as usize].at;
        let far = (1..inst.tasks()).filter(|&t| dot(sub(centre(t), centre(t - 1)), sub(centre(t), centre(t - 1))) > 100.0).count();
        assert!(far > inst.tasks() / 2, "{far} of {}", inst.tasks());
    }

    #[test]
    fn hinted_and_unhinted_match_serial() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for hint in [true, false] {
            let inst = GjkInstance::generate(4, 30, 2, 5, hint);
            assert_eq!(inst.serial(), pool.install(|| inst.parallel()));
            assert_eq!(inst.serial(), inst.rayon().unwrap());
        }
    }
}
