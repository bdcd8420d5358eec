//! Power-law graphs for pagerank and bfs: R-MAT edges and adjacency arrays.
//!
//! R-MAT (Chakrabarti et al., SDM'04) places each edge by descending `scale`
//! times into one quadrant of the adjacency matrix with probabilities
//! a, b, c, d = 0.57, 0.19, 0.19, 0.05 (the Graph500 parameters). The result
//! has a heavy-tailed degree distribution with hubs at small vertex ids, which
//! is what makes the graph loops unbalanced.

use crate::support::io::EdgeList;
use crate::support::rng::SplitMix64;

/// Quadrant thresholds out of 2^16: a, a + b, a + b + c.
const T_A: u64 = 37_356; // 0.57
const T_AB: u64 = T_A + 12_452; // + 0.19
const T_ABC: u64 = T_AB + 12_452; // + 0.19 (d = the remaining 0.05)

/// `edge_factor * 2^scale` directed R-MAT edges over `2^scale` vertices; each
/// level of descent uses 16 bits of a SplitMix64 output (four levels per draw).
pub fn rmat(scale: u32, edge_factor: usize, seed: u64) -> EdgeList {
    assert!((1..32).contains(&scale));
    let n = 1usize << scale;
    let mut g = SplitMix64::new(seed);
    let mut edges = Vec::with_capacity(n * edge_factor);
    for _ in 0..n * edge_factor {
        let (mut u, mut v) = (0u32, 0u32);
        let mut bits = 0u64;
        for level in 0..scale {
            if level % 4 == 0 {
                bits = g.next_u64();
            }
            let r = bits & 0xFFFF;
            bits >>= 16;
            // Quadrants a, b, c, d are (0,0), (0,1), (1,0), (1,1). Computed
            // with comparisons rather than branches: the choice is random, so
            // branches would mispredict at almost every level.
            let du = (r >= T_AB) as u32;
            let dv = ((r >= T_A) as u32) ^ du ^ ((r >= T_ABC) as u32);
            u = (u << 1) | du;
            v = (v << 1) | dv;
        }
        edges.push((u, v));
    }
    EdgeList { num_vertices: n, edges }
}

/// Which adjacency of an edge list to build.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Direction {
    /// `u -> v` lists `u` among `v`'s neighbours (for pull-style loops).
    In,
    /// Both: the undirected graph.
    Both,
}

/// Adjacency arrays: the neighbours of `v` are `targets[offsets[v]..offsets[v + 1]]`,
/// sorted, without duplicates or self loops.
#[derive(Clone, Debug)]
pub struct Adj {
    pub offsets: Vec<usize>,
    pub targets: Vec<u32>,
}

impl Adj {
    pub fn from_edges(el: &EdgeList, dir: Direction) -> Adj {
        let n = el.num_vertices;
        // Pack each directed pair as `source << shift | target` so that one
        // sort of plain integers orders by source, then target; duplicates
        // become adjacent.
        let shift = usize::BITS - n.leading_zeros();
        let mut keys: Vec<u64> = Vec::with_capacity(el.edges.len() * if dir == Direction::Both { 2 } else { 1 });
        for &(u, v) in el.edges.iter().filter(|(u, v)| u != v) {
            let (u, v) = (u as u64, v as u64);
            match dir {
                Direction::In => keys.push(v << shift | u),
                Direction::Both => keys.extend([u << shift | v, v << shift | u]),
            }
        }
        radix_sort(&mut keys, 2 * shift);
        keys.dedup();
        let mask = (1u64 << shift) - 1;
        let mut offsets = vec![0usize; n + 1];
        for &k in &keys {
            offsets[(k >> shift) as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let targets = keys.iter().map(|&k| (k & mask) as u32).collect();
        Adj { offsets, targets }
    }

    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn num_edges(&self) -> usize {
        self.targets.len()
    }

    #[inline]
    pub fn neighbors(&self, v: usize) -> &[u32] {
        &self.targets[self.offsets[v]..self.offsets[v + 1]]
    }

    #[inline]
    pub fn degree(&self, v: usize) -> usize {
        self.offsets[v + 1] - self.offsets[v]
    }
}

/// LSD radix sort of keys below `2^bits`, 11 bits per pass: each pass streams
/// into 2048 buckets, which is far kinder to caches and TLBs than scattering
/// every edge to its vertex's final slot.
fn radix_sort(keys: &mut Vec<u64>, bits: u32) {
    const DIGIT: u32 = 11;
    let mut buf = vec![0u64; keys.len()];
    let mut shift = 0;
    while shift < bits {
        let mut start = vec![0usize; 1 << DIGIT];
        for &k in keys.iter() {
            start[((k >> shift) as usize) & ((1 << DIGIT) - 1)] += 1;
        }
        let mut sum = 0;
        for s in start.iter_mut() {
            (*s, sum) = (sum, sum + *s);
        }
        for &k in keys.iter() {
            let d = ((k >> shift) as usize) & ((1 << DIGIT) - 1);
            buf[start[d]] = k;
            start[d] += 1;
        }
        std::mem::swap(keys, &mut buf);
        shift += DIGIT;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacency_drops_loops_and_duplicates() {
        let el = EdgeList { num_vertices: 4, edges: vec![(0, 1), (0, 1), (2, 2), (3, 0), (1, 3)] };
        let inn = Adj::from_edges(&el, Direction::In);
        assert_eq!((inn.offsets.clone(), inn.targets.clone()), (vec![0, 1, 2, 2, 3], vec![3, 0, 1]));
        let both = Adj::from_edges(&el, Direction::Both);
        assert_eq!(both.neighbors(0), [1, 3]);
        assert_eq!(both.neighbors(3), [0, 1]);
        assert_eq!(both.num_edges(), 6);
    }

    #[test]
    fn radix_sort_sorts() {
        let mut g = SplitMix64::new(4);
        let mut keys: Vec<u64> = (0..5000).map(|_| g.below(1 << 40)).collect();
        let mut want = keys.clone();
        want.sort_unstable();
        radix_sort(&mut keys, 40);
        assert_eq!(keys, want);
    }

    #[test]
    fn rmat_is_skewed() {
        let el = rmat(12, 8, 7);
        assert_eq!(el.edges.len(), 8 << 12);
        let a = Adj::from_edges(&el, Direction::In);
        let max = (0..a.num_vertices()).map(|v| a.degree(v)).max().unwrap();
        let mean = a.num_edges() / a.num_vertices();
        assert!(max > 20 * mean, "max degree {max}, mean {mean}");
    }
}
