//! Which victim a thief tries: plain decision code, no threads or atomics, so the
//! simulator replays exactly these choices.
//!
//! Sanchez, Yoo, Kozyrakis (ASPLOS 2010, section 4.1) and Kumar, Hughes,
//! Nguyen (Carbon, ISCA 2007, section 5.2) steal from the nearest neighbour; random
//! victims are the classic Cilk choice; a fixed hierarchy tries the thief's own
//! group of `radix` workers first, then the enclosing group of `radix^2`, and so on
//! (the grouping of the hierarchical schedulers, ASPLOS 2010, Figure 4).

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
pub struct VictimOrder {
    kind: VictimKind,
    order: Vec<usize>,
}

/// Hops between two workers on the ring of worker indices.
fn ring(me: usize, v: usize, n: usize) -> usize {
    let d = me.abs_diff(v);
    d.min(n - d)
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

impl VictimOrder {
    pub fn new(kind: VictimKind, me: usize, n: usize, topo: &Topology, radix: usize) -> Self {
        let mut order: Vec<usize> = (1..n).map(|k| (me + k) % n).collect();
        match kind {
            VictimKind::Random | VictimKind::RoundRobin => {}
            VictimKind::Nearest => order.sort_by_key(|&v| (topo.worker_distance(me, v), ring(me, v, n), v)),
            VictimKind::Hierarchy => order.sort_by_key(|&v| (hierarchy_level(me, v, radix), ring(me, v, n), v)),
        }
        VictimOrder { kind, order }
    }

    /// Attempts in one round of stealing (every other worker once, on average).
    #[inline]
    pub fn attempts(&self) -> usize {
        self.order.len()
    }

    /// The victim for attempt `k` of round `round`.
    #[inline]
    pub fn pick(&self, k: usize, round: usize, rng: &mut XorShift) -> usize {
        let n = self.order.len();
        match self.kind {
            VictimKind::Random => self.order[rng.below(n)],
            // Rotate the starting point each round so no victim is always first.
            VictimKind::RoundRobin => self.order[(k + round) % n],
            VictimKind::Nearest | VictimKind::Hierarchy => self.order[k],
        }
    }

    pub fn candidates(&self) -> &[usize] {
        &self.order
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
        let first: Vec<_> = o.candidates()[..3].to_vec();
        assert!(first.iter().all(|v| (4..8).contains(v)), "{first:?}");
        assert_eq!(hierarchy_level(5, 6, 4), 1);
        assert_eq!(hierarchy_level(5, 9, 4), 2);
    }

    #[test]
    fn nearest_orders_by_ring_on_flat_topology() {
        let topo = Topology::flat(8);
        let o = VictimOrder::new(VictimKind::Nearest, 0, 8, &topo, 8);
        assert_eq!(&o.candidates()[..2], &[1, 7]);
    }
}
