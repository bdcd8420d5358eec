//! Which victim a thief tries: plain decision code, no threads or atomics, so the
//! simulator replays exactly these choices.
//!
//! Sanchez, Yoo, Kozyrakis (ASPLOS 2010, section 4.1) and Kumar, Hughes,
//! Nguyen (Carbon, ISCA 2007, section 5.2) steal from the nearest neighbour; random
//! victims are the classic Cilk choice; a fixed hierarchy tries the thief's own
//! group of `radix` workers first, then the enclosing group of `radix^2`, and so on
//! (the grouping of the hierarchical schedulers, ASPLOS 2010, Figure 4).
//!
//! The orders are computed as they are walked, never stored: a worker's order
//! costs constant memory (the nearest order: one entry per distinct hardware
//! distance) and building it is independent of the pool's size (the nearest
//! order: one look at each CPU), so a pool of `n` workers starts in time and
//! memory linear in `n`. The nearest and hierarchical orders are the other
//! workers sorted by (class, hops on the ring of worker indices, index), the
//! class being the hardware distance or the hierarchy level: a walk takes
//! each class in turn and, within it, ring distances 1, 2, ... (the two
//! workers at one distance in index order), skipping workers of other
//! classes. A round costs a few index computations per other worker (per
//! worker and class for `nearest`), beside one steal attempt per victim.

use crate::rng::XorShift;
use crate::topology::Topology;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VictimKind {
    Random,
    RoundRobin,
    Nearest,
    Hierarchy,
}

impl VictimKind {
    pub const NAMES: [&'static str; 4] = ["random", "round-robin", "nearest", "hier"];
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "random" => Self::Random,
            "round-robin" => Self::RoundRobin,
            "nearest" => Self::Nearest,
            "hier" => Self::Hierarchy,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// The candidate victims of one worker, in the order its policy prefers.
#[derive(Clone, Debug)]
pub struct VictimOrder<'t> {
    kind: VictimKind,
    me: usize,
    n: usize,
    radix: usize,
    topo: &'t Topology,
    /// `Nearest`: the distinct hardware distances from `me` to the other
    /// workers, ascending (the classes of its order).
    distances: Vec<u32>,
    /// `Hierarchy`: levels of the hierarchy (the classes of its order).
    levels: u32,
}

/// Level of the smallest aligned group of `radix^k` workers holding both.
pub fn hierarchy_level(a: usize, b: usize, radix: usize) -> u32 {
    let radix = radix.max(2);
    let (mut a, mut b, mut level) = (a, b, 0);
    while a != b {
        a /= radix;
        b /= radix;
        level += 1;
    }
    level
}

impl<'t> VictimOrder<'t> {
    /// The order of worker `me` of `n`, on `topo` (read by `nearest` only).
    pub fn new(kind: VictimKind, me: usize, n: usize, topo: &'t Topology, radix: usize) -> Self {
        let radix = radix.max(2);
        let mut distances = Vec::new();
        let mut levels = 0;
        match kind {
            VictimKind::Nearest => {
                // Worker `v` is at the distance of CPU residue `v % c`: look at
                // each residue some other worker has, not at each worker.
                let c = topo.cpus.len();
                let others_with = |j: usize| if j < n { (n - 1 - j) / c + 1 - usize::from(j == me % c) } else { 0 };
                distances = (0..c.min(n)).filter(|&j| others_with(j) > 0).map(|j| topo.worker_distance(me, j)).collect();
                distances.sort_unstable();
                distances.dedup();
            }
            // The level whose group holds every worker.
            VictimKind::Hierarchy => levels = if n < 2 { 0 } else { hierarchy_level(0, n - 1, radix) },
            VictimKind::Random | VictimKind::RoundRobin => {}
        }
        VictimOrder { kind, me, n, radix, topo, distances, levels }
    }

    /// Attempts in one round of stealing (every other worker once, on average).
    #[inline]
    pub fn attempts(&self) -> usize {
        self.n.saturating_sub(1)
    }

    /// The victims of round `round`, one per attempt, in order.
    #[inline]
    pub fn round<'a>(&'a self, round: usize, rng: &'a mut XorShift) -> Round<'a, 't> {
        Round { order: self, rng, round, k: 0, walk: Walk::default() }
    }

    /// The victim for attempt `k` of round `round`: constant time for the
    /// random and round-robin orders, `O(k)` for the sorted ones (walk a
    /// whole round with [`round`](Self::round)).
    pub fn pick(&self, k: usize, round: usize, rng: &mut XorShift) -> usize {
        match self.kind {
            VictimKind::Random | VictimKind::RoundRobin => self.unsorted(k, round, rng),
            VictimKind::Nearest | VictimKind::Hierarchy => {
                let mut w = Walk::default();
                for _ in 0..k {
                    self.next_sorted(&mut w);
                }
                self.next_sorted(&mut w).expect("k < attempts()")
            }
        }
    }

    /// Every other worker once, in the order of preference (for the random
    /// and round-robin orders: ring order from the next worker up).
    pub fn candidates(&self) -> impl Iterator<Item = usize> + '_ {
        let mut w = Walk::default();
        let sorted = matches!(self.kind, VictimKind::Nearest | VictimKind::Hierarchy);
        (0..self.attempts()).map(move |k| if sorted { self.next_sorted(&mut w).expect("attempts() of them") } else { (self.me + 1 + k) % self.n })
    }

    #[inline]
    fn unsorted(&self, k: usize, round: usize, rng: &mut XorShift) -> usize {
        let others = self.n - 1;
        let i = match self.kind {
            VictimKind::Random => rng.below(others),
            // Rotate the starting point each round so no victim is always first.
            _ => (k + round) % others,
        };
        (self.me + 1 + i) % self.n
    }

    fn classes(&self) -> usize {
        match self.kind {
            VictimKind::Nearest => self.distances.len(),
            _ => self.levels as usize,
        }
    }

    /// Largest ring distance of a worker of class `class`.
    fn reach(&self, class: usize) -> usize {
        let half = self.n / 2;
        match self.kind {
            // A worker sharing a group of radix^level with `me` is fewer than
            // radix^level indices away, so fewer hops on the ring.
            VictimKind::Hierarchy => self.radix.saturating_pow(class as u32 + 1).saturating_sub(1).min(half),
            _ => half,
        }
    }

    fn in_class(&self, class: usize, v: usize) -> bool {
        match self.kind {
            VictimKind::Nearest => self.topo.worker_distance(self.me, v) == self.distances[class],
            _ => hierarchy_level(self.me, v, self.radix) == class as u32 + 1,
        }
    }

    /// The next victim of a sorted order (module documentation).
    fn next_sorted(&self, w: &mut Walk) -> Option<usize> {
        let n = self.n;
        loop {
            if let Some(v) = w.second.take() {
                if self.in_class(w.class, v) {
                    return Some(v);
                }
            }
            w.hops += 1;
            if w.hops > self.reach(w.class) {
                w.class += 1;
                w.hops = 0;
                if w.class >= self.classes() {
                    return None;
                }
                continue;
            }
            let (a, b) = ((self.me + w.hops) % n, (self.me + n - w.hops) % n);
            let (lo, hi) = (a.min(b), a.max(b));
            if hi != lo {
                w.second = Some(hi);
            }
            if self.in_class(w.class, lo) {
                return Some(lo);
            }
        }
    }
}

/// Where a walk of a sorted order stands: class, ring distance, and the
/// larger-index worker at that distance if it is still to be looked at.
#[derive(Clone, Debug, Default)]
struct Walk {
    class: usize,
    hops: usize,
    second: Option<usize>,
}

/// The victims of one round of stealing ([`VictimOrder::round`]).
#[derive(Debug)]
pub struct Round<'a, 't> {
    order: &'a VictimOrder<'t>,
    rng: &'a mut XorShift,
    round: usize,
    k: usize,
    walk: Walk,
}

impl Iterator for Round<'_, '_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let o = self.order;
        if self.k >= o.attempts() {
            return None;
        }
        let v = match o.kind {
            VictimKind::Random | VictimKind::RoundRobin => o.unsorted(self.k, self.round, self.rng),
            VictimKind::Nearest | VictimKind::Hierarchy => o.next_sorted(&mut self.walk)?,
        };
        self.k += 1;
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_victim_is_another_worker() {
        let topo = Topology::flat(8);
        let mut rng = XorShift::new(7);
        for kind in [VictimKind::Random, VictimKind::RoundRobin, VictimKind::Nearest, VictimKind::Hierarchy] {
            for me in 0..8 {
                let o = VictimOrder::new(kind, me, 8, &topo, 4);
                assert_eq!(o.attempts(), 7);
                for round in 0..3 {
                    for k in 0..o.attempts() {
                        let v = o.pick(k, round, &mut rng);
                        assert!(v < 8 && v != me, "{kind:?} picked {v} for {me}");
                    }
                }
            }
        }
    }

    #[test]
    fn hierarchy_tries_own_group_first() {
        let topo = Topology::flat(16);
        let o = VictimOrder::new(VictimKind::Hierarchy, 5, 16, &topo, 4);
        let first: Vec<_> = o.candidates().take(3).collect();
        assert!(first.iter().all(|v| (4..8).contains(v)), "{first:?}");
        assert_eq!(hierarchy_level(5, 6, 4), 1);
        assert_eq!(hierarchy_level(5, 9, 4), 2);
    }

    #[test]
    fn nearest_orders_by_ring_on_flat_topology() {
        let topo = Topology::flat(8);
        let o = VictimOrder::new(VictimKind::Nearest, 0, 8, &topo, 8);
        assert_eq!(o.candidates().take(2).collect::<Vec<_>>(), [1, 7]);
    }

    /// Hops between two workers on the ring of worker indices.
    fn ring(me: usize, v: usize, n: usize) -> usize {
        let d = me.abs_diff(v);
        d.min(n - d)
    }

    /// The orders as they were computed before they were walked: every other
    /// worker, sorted by the policy's key.
    fn sorted_reference(kind: VictimKind, me: usize, n: usize, topo: &Topology, radix: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (1..n).map(|k| (me + k) % n).collect();
        match kind {
            VictimKind::Random | VictimKind::RoundRobin => {}
            VictimKind::Nearest => order.sort_by_key(|&v| (topo.worker_distance(me, v), ring(me, v, n), v)),
            VictimKind::Hierarchy => order.sort_by_key(|&v| (hierarchy_level(me, v, radix), ring(me, v, n), v)),
        }
        order
    }

    /// What the stored order picked: attempt `k` of `round`.
    fn reference_pick(kind: VictimKind, order: &[usize], k: usize, round: usize, rng: &mut XorShift) -> usize {
        match kind {
            VictimKind::Random => order[rng.below(order.len())],
            VictimKind::RoundRobin => order[(k + round) % order.len()],
            VictimKind::Nearest | VictimKind::Hierarchy => order[k],
        }
    }

    /// Compare every worker's rounds with the stored orders', random draws included.
    fn same_as_reference(kind: VictimKind, n: usize, topo: &Topology, radix: usize) {
        for me in 0..n {
            let want = sorted_reference(kind, me, n, topo, radix);
            let o = VictimOrder::new(kind, me, n, topo, radix);
            assert_eq!(o.attempts(), want.len());
            assert_eq!(o.candidates().collect::<Vec<_>>(), want, "{kind:?} me {me} of {n}, radix {radix}");
            for round in 0..3 {
                let (mut r1, mut r2) = (XorShift::new(me as u64 + 11), XorShift::new(me as u64 + 11));
                let got: Vec<usize> = o.round(round, &mut r1).collect();
                let old: Vec<usize> = (0..want.len()).map(|k| reference_pick(kind, &want, k, round, &mut r2)).collect();
                assert_eq!(got, old, "{kind:?} me {me} of {n}, radix {radix}, round {round}");
                if n > 1 {
                    let k = round * 7 % want.len();
                    let (mut r1, mut r2) = (XorShift::new(3), XorShift::new(3));
                    assert_eq!(o.pick(k, round, &mut r1), reference_pick(kind, &want, k, round, &mut r2));
                }
            }
        }
    }

    #[test]
    fn walked_orders_are_the_sorted_orders_on_flat_topologies() {
        for n in 1..=40 {
            let topo = Topology::flat(n);
            for kind in [VictimKind::Random, VictimKind::RoundRobin, VictimKind::Nearest] {
                same_as_reference(kind, n, &topo, 4);
            }
            for radix in [0, 1, 2, 3, 4, 5, 8, 64] {
                same_as_reference(VictimKind::Hierarchy, n, &topo, radix);
            }
        }
    }

    #[test]
    fn walked_nearest_order_is_the_sorted_order_on_uneven_topologies() {
        // Eight CPUs: SMT pairs, L2 per four, two packages on two NUMA nodes
        // (the distances `Topology::detect` derives), and an irregular one.
        let machine = |i: usize, j: usize| -> u32 {
            if i == j {
                0
            } else if i / 2 == j / 2 {
                1
            } else if i / 4 == j / 4 {
                2
            } else {
                30
            }
        };
        let irregular = |i: usize, j: usize| -> u32 {
            if i == j {
                0
            } else {
                ((i * 7 + j * 7) % 5) as u32 + 1
            }
        };
        for dist in [&machine as &dyn Fn(usize, usize) -> u32, &irregular] {
            let topo = Topology::from_distances((0..8).map(|i| (0..8).map(|j| dist(i, j)).collect()).collect());
            // Fewer workers than CPUs, as many, and more (several per CPU).
            for n in 1..=27 {
                same_as_reference(VictimKind::Nearest, n, &topo, 8);
            }
        }
    }

    #[test]
    fn an_order_holds_no_list_of_workers() {
        let topo = Topology::flat(4);
        let o = VictimOrder::new(VictimKind::Nearest, 3, 1 << 20, &topo, 8);
        assert!(o.distances.len() <= 2);
        // Workers on the same CPU as worker 3 first (distance 0), by ring distance.
        assert_eq!(o.candidates().take(4).collect::<Vec<_>>(), [7, (1 << 20) - 1, 11, (1 << 20) - 5]);
    }
}
