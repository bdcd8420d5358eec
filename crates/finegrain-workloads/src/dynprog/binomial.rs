//! `binomial-batch`: American option prices on binomial lattices for a batch of
//! contracts (Kumar, Hughes, Nguyen, "Carbon: architectural support for
//! fine-grained parallelism on chip multiprocessors", ISCA 2007, section 5.3,
//! Table 2: "1D Binomial Tree used for option pricing"), parallel over
//! contracts and, for deep lattices, over blocks of nodes within bands of
//! levels. `binomial` (`tree`) is the paper's structure: one option, its
//! lattice cut into tiles that form a task tree from the leaves.

mod lattice;
mod tree;

use crate::par::{Finegrain, Par, Rayon};
use crate::support::rng::SplitMix64;
use crate::support::tolerance::{check_floats, Scale};
use crate::{Instance, Output, Size, Workload};
use lattice::{Contract, Lattice};
pub use tree::Binomial;

/// Lattices at least this deep are also split inside; shallower ones are one
/// task each (a 64-step lattice is about two thousand node updates).
const DEEP: usize = 1024;

/// Every driver computes each node with the same operations in the same
/// order, so prices match exactly in practice; the check allows rounding.
const TOLERANCE: f64 = 1e-12;

pub struct BinomialBatch;

impl Workload for BinomialBatch {
    fn name(&self) -> &'static str {
        "binomial-batch"
    }
    fn description(&self) -> &'static str {
        "American options priced on Cox-Ross-Rubinstein binomial lattices; parallel over contracts and within deep lattices"
    }
    fn source(&self) -> &'static str {
        "Kumar et al. (Carbon, ISCA 2007), section 5.3 (BT, Table 2)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (count, deepest) = match size {
            Size::Test => (40, 2 * DEEP),
            Size::Small => (800, 2 * DEEP),
            Size::Full | Size::Paper => (12_000, 4096),
        };
        let mut rng = SplitMix64::new(seed ^ 0x6269_6e6f_6d69_616c);
        let contracts = (0..count).map(|k| contract(&mut rng, if k % 200 == 7 { Some(deepest) } else { None })).collect();
        Box::new(BinomialInstance { contracts })
    }
}

/// Most contracts have 32 to 256 steps; `deep` ones (one in 200) have
/// between half of `deep` and `deep`.
fn contract(rng: &mut SplitMix64, deep: Option<usize>) -> Contract {
    let steps = match deep {
        Some(d) => d / 2 + rng.below(d as u64 / 2 + 1) as usize,
        None => 32 + rng.below(225) as usize,
    };
    Contract {
        spot: 50.0 + 100.0 * rng.unit(),
        strike: 50.0 + 100.0 * rng.unit(),
        rate: 0.01 + 0.05 * rng.unit(),
        volatility: 0.1 + 0.5 * rng.unit(),
        years: 0.25 + 2.0 * rng.unit(),
        steps,
        put: rng.below(4) != 0,
    }
}

struct BinomialInstance {
    contracts: Vec<Contract>,
}

impl BinomialInstance {
    fn parallel_on<P: Par>(&self, par: P) -> Output {
        let mut prices = vec![0.0; self.contracts.len()];
        par.for_each_chunk_mut(&mut prices, 1, |k, out| {
            let c = &self.contracts[k];
            finegrain::record::read(std::slice::from_ref(c));
            let lattice = Lattice::new(c);
            out[0] = if c.steps >= DEEP { lattice.price_parallel(par) } else { lattice.price_serial() };
        });
        Output::Floats(prices)
    }
}

impl Instance for BinomialInstance {
    fn describe(&self) -> String {
        let nodes: usize = self.contracts.iter().map(|c| c.steps * (c.steps + 1) / 2).sum();
        let deep = self.contracts.iter().filter(|c| c.steps >= DEEP).count();
        format!("{} contracts ({deep} deep), {nodes} lattice nodes", self.contracts.len())
    }
    fn serial(&self) -> Output {
        Output::Floats(self.contracts.iter().map(|c| Lattice::new(c).price_serial()).collect())
    }
    fn parallel(&self) -> Output {
        finegrain::record::region(|| self.parallel_on(Finegrain))
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.parallel_on(Rayon))
    }
    fn check(&self, reference: &Output, got: &Output) -> Result<(), String> {
        check_floats(reference, got, TOLERANCE, Scale::Largest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(steps: usize) -> Contract {
        Contract { spot: 100.0, strike: 100.0, rate: 0.05, volatility: 0.2, years: 1.0, steps, put: true }
    }

    /// The textbook value of this at-the-money American put is about 6.09
    /// (a European put is 5.57; early exercise adds about half a dollar).
    #[test]
    fn american_put_matches_the_textbook_value() {
        let v = Lattice::new(&put(2000)).price_serial();
        assert!((v - 6.09).abs() < 0.01, "{v}");
    }

    /// A call on a stock without dividends is never exercised early, so the
    /// lattice converges to Black-Scholes (10.4506 for these parameters).
    #[test]
    fn american_call_matches_black_scholes() {
        let v = Lattice::new(&Contract { put: false, ..put(2000) }).price_serial();
        assert!((v - 10.4506).abs() < 0.01, "{v}");
    }

    #[test]
    fn bands_are_bit_identical_to_levels() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for steps in [1, 15, 16, 17, 255, 256, 257, 1000] {
            let l = Lattice::new(&put(steps));
            assert_eq!(l.price_serial().to_bits(), pool.install(|| l.price_parallel(Finegrain)).to_bits(), "{steps} steps");
        }
    }
}
