//! An order-sensitive digest that can be computed in parallel.
//!
//! `hash = sum over i of mix(x_i + (i + 1) * G)` (wrapping), where `mix` is the
//! SplitMix64 finalizer and G its increment. Each term depends on the position,
//! so a permuted or shifted result changes the hash; the terms are independent,
//! so the parallel versions hash their output with a parallel loop instead of a
//! serial FNV pass that would dominate the run time of the memory-bound kernels.

use crate::par::Par;

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 output function.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[inline]
fn term(i: usize, x: u64) -> u64 {
    mix(x.wrapping_add((i as u64).wrapping_add(1).wrapping_mul(GOLDEN)))
}

/// The digest of the sequence `get(0), ..., get(len - 1)`.
pub fn digest<P: Par>(p: P, len: usize, get: impl Fn(usize) -> u64 + Sync + Send) -> u64 {
    p.fold_chunks(0..len, 512, || 0u64, |h, r| r.fold(h, |h, i| h.wrapping_add(term(i, get(i)))), u64::wrapping_add)
}

/// Several digests folded into one, order-sensitively.
pub fn combine(hashes: &[u64]) -> u64 {
    hashes.iter().fold(0, |h, &x| mix(h ^ x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::par::{Finegrain, Serial};

    #[test]
    fn order_sensitive_and_backend_independent() {
        let v: Vec<u64> = (0..10_000).map(|i| i * i).collect();
        let h = digest(Serial, v.len(), |i| v[i]);
        let pool = finegrain::Pool::new(2, "ws").unwrap();
        assert_eq!(pool.install(|| digest(Finegrain, v.len(), |i| v[i])), h);
        let mut w = v.clone();
        w.swap(10, 11);
        assert_ne!(digest(Serial, w.len(), |i| w[i]), h);
    }
}
