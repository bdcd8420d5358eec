//! An order-sensitive digest that can be computed in parallel.
//!
//! `hash = sum over i of mix(x_i + (i + 1) * G)` (wrapping), where `mix` is the
//! SplitMix64 finalizer and G its increment. Each term depends on the position,
//! so a permuted or shifted result changes the hash; the terms are independent,
//! so the parallel versions hash their output with a parallel loop instead of a
//! serial FNV pass that would dominate the run time of the memory-bound kernels.
//! Results produced as a stream are hashed serially with [`digest_iter`], to
//! the same value.

use super::rng::{mix, GOLDEN};
use crate::par::Par;

#[inline]
fn term(i: usize, x: u64) -> u64 {
    mix(x.wrapping_add((i as u64).wrapping_add(1).wrapping_mul(GOLDEN)))
}

/// Order-sensitive hash of `key(&data[i])` for every element, each chunk declaring its
/// part of `data` read.
pub fn digest_slice<P: Par, T: Sync>(p: P, data: &[T], key: impl Fn(&T) -> u64 + Sync + Send) -> u64 {
    let fold = |h: u64, r: std::ops::Range<usize>| {
        let part = &data[r.clone()];
        finegrain::record::read(part);
        part.iter().zip(r).fold(h, |h, (x, i)| h.wrapping_add(term(i, key(x))))
    };
    p.fold_chunks(0..data.len(), 512, || 0u64, fold, u64::wrapping_add)
}

/// The same digest of a sequence given as an iterator, computed serially,
/// with the sequence's length: for results produced as a stream.
pub fn digest_iter(xs: impl IntoIterator<Item = u64>) -> (usize, u64) {
    xs.into_iter().enumerate().fold((0, 0u64), |(_, h), (i, x)| (i + 1, h.wrapping_add(term(i, x))))
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
        let h = digest_slice(Serial, &v, |&x| x);
        let pool = finegrain::Pool::new(2, "ws").unwrap();
        assert_eq!(pool.install(|| digest_slice(Finegrain, &v, |&x| x)), h);
        let mut w = v.clone();
        w.swap(10, 11);
        assert_ne!(digest_slice(Serial, &w, |&x| x), h);
        assert_eq!(digest_iter(v.iter().copied()), (v.len(), h));
        assert_eq!(digest_iter([]), (0, 0));
    }
}
