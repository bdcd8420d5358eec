//! A synthetic netlist with the locality of a real circuit: elements have a
//! hidden "good" position on a square grid and are wired to a few elements
//! near it. They start at a random permutation of the grid's locations, so
//! annealing has a long way to go.

use crate::support::rng::SplitMix64;

/// Wires reach at most this far from an element's hidden position.
const REACH: i64 = 3;

#[derive(Clone, Debug)]
pub struct Netlist {
    pub side: usize,
    /// Element `e`'s neighbours are `adj[first[e]..first[e + 1]]`.
    pub first: Vec<u32>,
    pub adj: Vec<u32>,
    /// Location (`y * side + x`) of each element before annealing.
    pub start: Vec<u32>,
}

impl Netlist {
    pub fn elements(&self) -> usize {
        self.side * self.side
    }

    pub fn neighbours(&self, e: usize) -> &[u32] {
        &self.adj[self.first[e] as usize..self.first[e + 1] as usize]
    }

    pub fn random(side: usize, seed: u64) -> Netlist {
        let n = side * side;
        let mut rng = SplitMix64::new(seed ^ 0x0063_616e_6e65_616c);
        let mut wires = Vec::with_capacity(4 * n);
        for e in 0..n {
            let (x, y) = ((e % side) as i64, (e / side) as i64);
            for _ in 0..1 + rng.below(4) {
                let dx = rng.below(2 * REACH as u64 + 1) as i64 - REACH;
                let dy = rng.below(2 * REACH as u64 + 1) as i64 - REACH;
                let (u, v) = ((x + dx).clamp(0, side as i64 - 1), (y + dy).clamp(0, side as i64 - 1));
                let other = (v * side as i64 + u) as usize;
                if other != e {
                    wires.push((e as u32, other as u32));
                }
            }
        }
        let mut degree = vec![0u32; n + 1];
        for &(a, b) in &wires {
            degree[a as usize] += 1;
            degree[b as usize] += 1;
        }
        let mut first = vec![0u32; n + 1];
        for e in 0..n {
            first[e + 1] = first[e] + degree[e];
        }
        let mut next = first[..n].to_vec();
        let mut adj = vec![0u32; first[n] as usize];
        for &(a, b) in &wires {
            adj[next[a as usize] as usize] = b;
            next[a as usize] += 1;
            adj[next[b as usize] as usize] = a;
            next[b as usize] += 1;
        }
        // Fisher-Yates: a random initial placement.
        let mut start: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            start.swap(i, rng.below(i as u64 + 1) as usize);
        }
        Netlist { side, first, adj, start }
    }

    /// Manhattan distance between two locations.
    #[inline]
    pub fn distance(&self, p: u32, q: u32) -> i64 {
        let s = self.side as u32;
        ((p % s).abs_diff(q % s) + (p / s).abs_diff(q / s)) as i64
    }

    /// Total wire length of a placement (each wire counted once).
    pub fn routing_cost(&self, loc: impl Fn(usize) -> u32) -> i64 {
        (0..self.elements()).map(|e| self.neighbours(e).iter().map(|&n| self.distance(loc(e), loc(n as usize))).sum::<i64>()).sum::<i64>() / 2
    }
}
