//! A pool of sparse vectors (sorted, distinct indices) and a list of pairs to
//! add, each with its own scale factors.

use crate::support::rng::SplitMix64;

/// Indices lie in `0..UNIVERSE`; vectors hold 16 to 1024 of them, so a pair's
/// overlap ranges from nearly none to most of the shorter one.
const UNIVERSE: u64 = 4096;

#[derive(Clone, Debug)]
pub struct Pool {
    /// Vector `v` is `index[start[v]..start[v + 1]]` with values alongside.
    pub start: Vec<usize>,
    pub index: Vec<u32>,
    pub value: Vec<f64>,
}

impl Pool {
    pub fn vector(&self, v: u32) -> (&[u32], &[f64]) {
        let r = self.start[v as usize]..self.start[v as usize + 1];
        (&self.index[r.clone()], &self.value[r])
    }

    pub fn random(vectors: usize, rng: &mut SplitMix64) -> Pool {
        let mut pool = Pool { start: vec![0], index: Vec::new(), value: Vec::new() };
        for _ in 0..vectors {
            // Lengths spread log-uniformly, so pair tasks vary in length.
            let len = (16.0 * 64f64.powf(rng.unit())) as u64;
            // Sorted distinct indices: random gaps averaging UNIVERSE / len.
            let mut i = rng.below(UNIVERSE / len);
            while i < UNIVERSE {
                pool.index.push(i as u32);
                pool.value.push(rng.unit() * 2.0 - 1.0);
                i += 1 + rng.below(2 * UNIVERSE / len);
            }
            pool.start.push(pool.index.len());
        }
        pool
    }
}

/// `a * x + b * y` for vectors `x` and `y` of the pool.
#[derive(Copy, Clone, Debug)]
pub struct Pair {
    pub x: u32,
    pub y: u32,
    pub a: f64,
    pub b: f64,
}

pub fn random_pairs(count: usize, vectors: usize, rng: &mut SplitMix64) -> Vec<Pair> {
    (0..count)
        .map(|_| Pair {
            x: rng.below(vectors as u64) as u32,
            y: rng.below(vectors as u64) as u32,
            a: rng.unit() * 4.0 - 2.0,
            b: rng.unit() * 4.0 - 2.0,
        })
        .collect()
}
