//! The scene: a pile of spheres on a jittered face-centred cubic lattice, and
//! its contacts, the closest pairs of bodies, found once by a grid broad phase.

use crate::support::rng::SplitMix64;

pub type V3 = [f64; 3];

#[inline]
pub fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
#[inline]
pub fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
#[inline]
pub fn scale(a: V3, s: f64) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
#[inline]
pub fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
#[inline]
pub fn cross(a: V3, b: V3) -> V3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// What a body is (constant through the run).
#[derive(Copy, Clone, Debug)]
pub struct Props {
    pub radius: f64,
    pub mass: f64,
    /// 1 / mass.
    pub inv_mass: f64,
    /// 1 / moment of inertia (a solid sphere's, 2/5 m r^2, the same about
    /// every axis).
    pub inv_inertia: f64,
}

/// A body's velocity: linear and angular.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Vel {
    pub v: V3,
    pub w: V3,
}

/// Bodies, their initial state, and the contacts between them.
pub struct Scene {
    pub props: Vec<Props>,
    pub x0: Vec<V3>,
    pub vel0: Vec<Vel>,
    /// Each contact's two bodies, `a < b`, sorted; no pair twice.
    pub pairs: Vec<(u32, u32)>,
    /// The contacts of each body: `adj[start[i]..start[i + 1]]`.
    pub start: Vec<usize>,
    pub adj: Vec<u32>,
}

/// Distance between nearest lattice neighbours, the unit of length.
const SPACING: f64 = 1.0;

impl Scene {
    /// `bodies` spheres and the `contacts` closest pairs among them, from
    /// `seed`; `Err` when there are fewer candidate pairs than `contacts`.
    pub fn generate(bodies: usize, contacts: usize, seed: u64) -> Result<Scene, String> {
        if bodies < 2 {
            return Err(format!("a scene needs at least 2 bodies, not {bodies}"));
        }
        let mut g = SplitMix64::new(seed ^ 0x6770_735f_7363_656e);
        let x0 = fcc_pile(bodies, &mut g);
        let mut u = |lo: f64, hi: f64| lo + (hi - lo) * g.unit();
        let props: Vec<Props> = (0..bodies)
            .map(|_| {
                let radius = u(0.47, 0.53) * SPACING;
                let mass = u(0.8, 1.2) * 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3);
                Props { radius, mass, inv_mass: 1.0 / mass, inv_inertia: 1.0 / (0.4 * mass * radius * radius) }
            })
            .collect();
        let vel0 =
            (0..bodies).map(|_| Vel { v: [u(-1.0, 1.0), u(-1.0, 1.0), u(-1.0, 1.0)], w: [u(-1.0, 1.0), u(-1.0, 1.0), u(-1.0, 1.0)] }).collect();
        let pairs = closest_pairs(&x0, &props, contacts)?;
        let mut start = vec![0usize; bodies + 1];
        for &(a, b) in &pairs {
            start[a as usize + 1] += 1;
            start[b as usize + 1] += 1;
        }
        for i in 0..bodies {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut adj = vec![0u32; 2 * pairs.len()];
        for (c, &(a, b)) in pairs.iter().enumerate() {
            for body in [a, b] {
                adj[fill[body as usize]] = c as u32;
                fill[body as usize] += 1;
            }
        }
        Ok(Scene { props, x0, vel0, pairs, start, adj })
    }

    pub fn bodies(&self) -> usize {
        self.props.len()
    }

    pub fn contacts_of(&self, body: usize) -> &[u32] {
        &self.adj[self.start[body]..self.start[body + 1]]
    }

    /// The surface gap of contact `c` at positions `x` (negative: overlap).
    pub fn gap(&self, x: &[V3], c: usize) -> f64 {
        let (a, b) = (self.pairs[c].0 as usize, self.pairs[c].1 as usize);
        let d = sub(x[b], x[a]);
        dot(d, d).sqrt() - self.props[a].radius - self.props[b].radius
    }

    /// Sum over the contacts of the squared overlap at positions `x`.
    pub fn penetration(&self, x: &[V3]) -> f64 {
        (0..self.pairs.len()).map(|c| self.gap(x, c).min(0.0).powi(2)).sum()
    }
}

/// The first `n` sites of a face-centred cubic lattice filled layer by layer
/// from the bottom, each moved by up to 4% of the spacing.
fn fcc_pile(n: usize, g: &mut SplitMix64) -> Vec<V3> {
    // Sites (i, j, k) with i + j + k even, nearest neighbours sqrt(2) apart;
    // a side x side x 2 side block holds side^3 of them.
    let side = (1..).find(|&s: &usize| s * s * s >= n).unwrap_or(1);
    let mut sites = Vec::with_capacity(n);
    'fill: for k in 0..side * 2 {
        for j in 0..side {
            for i in 0..side {
                if (i + j + k) % 2 == 0 {
                    sites.push([i as f64, j as f64, k as f64]);
                    if sites.len() == n {
                        break 'fill;
                    }
                }
            }
        }
    }
    let unit = SPACING / std::f64::consts::SQRT_2;
    sites.into_iter().map(|s| std::array::from_fn(|d| (s[d] + 0.04 * std::f64::consts::SQRT_2 * (2.0 * g.unit() - 1.0)) * unit)).collect()
}

/// The `count` pairs with the smallest surface gap, found in a grid of cells
/// as wide as the search radius (grown until enough pairs are in reach);
/// sorted by body.
fn closest_pairs(x: &[V3], props: &[Props], count: usize) -> Result<Vec<(u32, u32)>, String> {
    let n = x.len();
    if count > n * (n - 1) / 2 {
        return Err(format!("{n} bodies have only {} pairs, fewer than the {count} contacts asked for", n * (n - 1) / 2));
    }
    let lo: V3 = std::array::from_fn(|d| x.iter().map(|p| p[d]).fold(f64::INFINITY, f64::min));
    let hi: V3 = std::array::from_fn(|d| x.iter().map(|p| p[d]).fold(f64::NEG_INFINITY, f64::max));
    let mut reach = 1.5 * SPACING;
    loop {
        let dims: [usize; 3] = std::array::from_fn(|d| ((hi[d] - lo[d]) / reach) as usize + 1);
        let cell_of = |p: &V3| -> [usize; 3] { std::array::from_fn(|d| (((p[d] - lo[d]) / reach) as usize).min(dims[d] - 1)) };
        let index = |c: [usize; 3]| (c[2] * dims[1] + c[1]) * dims[0] + c[0];
        let mut cells = vec![Vec::new(); dims[0] * dims[1] * dims[2]];
        for (i, p) in x.iter().enumerate() {
            cells[index(cell_of(p))].push(i);
        }
        let mut found: Vec<(f64, u32, u32)> = Vec::new();
        for (i, p) in x.iter().enumerate() {
            let c = cell_of(p);
            for dz in c[2].saturating_sub(1)..=(c[2] + 1).min(dims[2] - 1) {
                for dy in c[1].saturating_sub(1)..=(c[1] + 1).min(dims[1] - 1) {
                    for dx in c[0].saturating_sub(1)..=(c[0] + 1).min(dims[0] - 1) {
                        for &j in &cells[index([dx, dy, dz])] {
                            let d = sub(x[j], *p);
                            let dist = dot(d, d).sqrt();
                            if j > i && dist <= reach {
                                found.push((dist - props[i].radius - props[j].radius, i as u32, j as u32));
                            }
                        }
                    }
                }
            }
        }
        if found.len() >= count {
            found.sort_by(|a, b| a.0.total_cmp(&b.0).then((a.1, a.2).cmp(&(b.1, b.2))));
            let mut pairs: Vec<(u32, u32)> = found[..count].iter().map(|&(_, a, b)| (a, b)).collect();
            pairs.sort_unstable();
            return Ok(pairs);
        }
        reach *= 1.5;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carbons_model1_has_its_contacts_among_near_neighbours() {
        let s = Scene::generate(800, 4_953, 1).unwrap();
        assert_eq!(s.pairs.len(), 4_953);
        assert!(s.pairs.windows(2).all(|w| w[0] < w[1]) && s.pairs.iter().all(|&(a, b)| a < b));
        // Every contact joins bodies about one spacing apart (the first or
        // second lattice shell), and most bodies have about 12.
        let x = &s.x0;
        for c in 0..s.pairs.len() {
            let g = s.gap(x, c);
            assert!(g > -0.2 && g < 0.6, "contact {c}: gap {g}");
        }
        let busy = (0..800).filter(|&b| (10..=16).contains(&s.contacts_of(b).len())).count();
        assert!(busy > 500, "{busy}");
        assert!(s.penetration(x) > 0.0);
        assert_eq!(s.adj.len(), 2 * 4_953);
    }

    #[test]
    fn too_many_contacts_is_an_error() {
        assert!(Scene::generate(4, 7, 1).err().unwrap().contains("only 6 pairs"));
        assert!(Scene::generate(1, 0, 1).is_err());
        assert_eq!(Scene::generate(4, 6, 1).unwrap().pairs.len(), 6);
    }
}
