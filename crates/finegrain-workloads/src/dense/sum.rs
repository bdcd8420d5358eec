//! sum: a plain parallel loop, the peer of every loop library's "hello world".
//!
//! Sums f(i) for i in 0..n, where f(i) is the top 32 bits of the i-th output of
//! SplitMix64 seeded with `seed`. That output has a closed form (one add and the
//! finalizer), so every index is independent: the loop has no carried state and
//! measures how cheaply the runtime splits and reduces a flat range.

use crate::support::rng::{mix, GOLDEN};
use crate::{Instance, Output, Size, Workload};
use rayon::prelude::*;

pub struct Sum;

impl Workload for Sum {
    fn name(&self) -> &'static str {
        "sum"
    }
    fn description(&self) -> &'static str {
        "sum of a hash of i over a flat range (plain parallel loop with a reduction)"
    }
    fn source(&self) -> &'static str {
        "Cheng et al. (ASPLOS 2023), Figure 3(e) (sum with parallel_reduce) and section 5.3; Sanchez et al. (ASPLOS 2010), section 4 (loop tasks with reductions)"
    }
    fn api(&self) -> &'static str {
        "reduce"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let n = match size {
            Size::Test => 100_000,
            Size::Small => 1_000_000,
            Size::Full | Size::Paper => 10_000_000,
        };
        Box::new(SumInstance { n, seed })
    }
}

struct SumInstance {
    n: usize,
    seed: u64,
}

/// The high half of output `i` (0-based) of `SplitMix64::new(seed)`.
#[inline]
fn f(seed: u64, i: usize) -> u64 {
    mix(seed.wrapping_add((i as u64 + 1).wrapping_mul(GOLDEN))) >> 32
}

impl Instance for SumInstance {
    fn describe(&self) -> String {
        format!("n={}", self.n)
    }
    fn serial(&self) -> Output {
        let mut total = 0u64;
        for i in 0..self.n {
            total = total.wrapping_add(f(self.seed, i));
        }
        Output::Int(total)
    }
    fn parallel(&self) -> Output {
        let seed = self.seed;
        Output::Int(finegrain::record::region(|| finegrain::reduce(0..self.n, || 0u64, |i| f(seed, i), u64::wrapping_add)))
    }
    fn rayon(&self) -> Option<Output> {
        let seed = self.seed;
        Some(Output::Int((0..self.n).into_par_iter().map(|i| f(seed, i)).reduce(|| 0, u64::wrapping_add)))
    }
    fn peer_args(&self) -> Option<String> {
        Some(format!("n={} seed={}", self.n, self.seed))
    }
}

#[cfg(test)]
mod tests {
    use crate::support::rng::SplitMix64;

    #[test]
    fn closed_form_matches_the_generator() {
        let mut g = SplitMix64::new(42);
        for i in 0..100 {
            assert_eq!(super::f(42, i), g.next_u64() >> 32);
        }
    }
}
