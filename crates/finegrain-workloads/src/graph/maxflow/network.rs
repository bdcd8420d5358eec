//! A random level graph (the "RLG" family of the maxflow literature, which
//! Sanchez et al. (ASPLOS 2010) use as input, Table 4): `levels` columns of
//! `width` vertices; each vertex sends a few arcs of random capacity to random
//! vertices of the next column and one to a random vertex of its own column,
//! the source feeds the first column and the last column drains into the sink.

use crate::support::rng::SplitMix64;

/// A flow network in CSR form: the arcs leaving `v` are
/// `first[v]..first[v + 1]`; arc `a` goes to `head[a]`, `rev[a]` is its
/// reverse arc, and `cap[a]` its capacity (0 for the reverse of an input edge).
#[derive(Clone, Debug)]
pub struct Network {
    pub n: usize,
    pub source: usize,
    pub sink: usize,
    pub first: Vec<u32>,
    pub head: Vec<u32>,
    pub rev: Vec<u32>,
    pub cap: Vec<i64>,
}

impl Network {
    pub fn arcs(&self, v: usize) -> std::ops::Range<usize> {
        self.first[v] as usize..self.first[v + 1] as usize
    }

    /// Build from directed edges `(from, to, capacity)`.
    pub fn from_edges(n: usize, source: usize, sink: usize, edges: &[(u32, u32, i64)]) -> Network {
        let mut degree = vec![0u32; n + 1];
        for &(u, v, _) in edges {
            degree[u as usize] += 1;
            degree[v as usize] += 1;
        }
        let mut first = vec![0u32; n + 1];
        for v in 0..n {
            first[v + 1] = first[v] + degree[v];
        }
        let m = first[n] as usize;
        let (mut head, mut rev, mut cap) = (vec![0u32; m], vec![0u32; m], vec![0i64; m]);
        let mut next: Vec<u32> = first[..n].to_vec();
        for &(u, v, c) in edges {
            let a = next[u as usize];
            let b = next[v as usize];
            next[u as usize] += 1;
            next[v as usize] += 1;
            head[a as usize] = v;
            rev[a as usize] = b;
            cap[a as usize] = c;
            head[b as usize] = u;
            rev[b as usize] = a;
        }
        Network { n, source, sink, first, head, rev, cap }
    }

    pub fn random_levels(levels: usize, width: usize, seed: u64) -> Network {
        const OUT_DEGREE: usize = 3;
        const MAX_CAP: u64 = 10_000;
        let mut rng = SplitMix64::new(seed ^ 0x6d61_7866_6c6f_7721);
        let inner = levels * width;
        let (source, sink) = (inner, inner + 1);
        let id = |level: usize, k: usize| (level * width + k) as u32;
        let mut edges = Vec::with_capacity(inner * (OUT_DEGREE + 1) + 2 * width);
        for k in 0..width {
            edges.push((source as u32, id(0, k), (MAX_CAP * OUT_DEGREE as u64) as i64));
            edges.push((id(levels - 1, k), sink as u32, (MAX_CAP * OUT_DEGREE as u64) as i64));
        }
        for level in 0..levels {
            for k in 0..width {
                if level + 1 < levels {
                    for _ in 0..OUT_DEGREE {
                        let to = id(level + 1, rng.below(width as u64) as usize);
                        edges.push((id(level, k), to, 1 + rng.below(MAX_CAP) as i64));
                    }
                }
                // Arcs within a column give flow somewhere to go sideways, so
                // vertices get relabeled above their neighbours and push back.
                let side = rng.below(width as u64) as usize;
                if side != k {
                    edges.push((id(level, k), id(level, side), 1 + rng.below(MAX_CAP / 4) as i64));
                }
            }
        }
        Network::from_edges(inner + 2, source, sink, &edges)
    }

    #[cfg(test)]
    /// The capacity of the cut between `reachable` (which holds the source)
    /// and the rest: an upper bound on any flow, equal to it for a minimum cut.
    pub fn cut_capacity(&self, reachable: &[bool]) -> i64 {
        (0..self.n)
            .filter(|&v| reachable[v])
            .flat_map(|v| self.arcs(v).map(move |a| (v, a)))
            .filter(|&(_, a)| !reachable[self.head[a] as usize])
            .map(|(_, a)| self.cap[a])
            .sum()
    }
}
