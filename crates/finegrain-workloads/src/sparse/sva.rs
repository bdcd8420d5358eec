//! `sva`: scaled addition of many pairs of sparse vectors, `a x + b y`, each a
//! merge of sorted index lists (Kumar, Hughes, Nguyen, "Carbon: architectural
//! support for fine-grained parallelism on chip multiprocessors", ISCA 2007,
//! section 5.3, Table 2: "Scaled Vector Addition, V3 = a x V1 + b x V2", here
//! on sparse vectors).

mod add;
mod vectors;

use crate::par::{Finegrain, Rayon};
use crate::support::rng::SplitMix64;
use crate::{Instance, Output, Size, Workload};
use vectors::{Pair, Pool};

pub struct SparseVectorAdd;

impl Workload for SparseVectorAdd {
    fn name(&self) -> &'static str {
        "sva"
    }
    fn description(&self) -> &'static str {
        "scaled sums a*x + b*y of many pairs of sparse vectors by merging sorted index lists; digest of the sums"
    }
    fn source(&self) -> &'static str {
        "Kumar et al. (Carbon, ISCA 2007), section 5.3 (SVA, Table 2)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (vectors, pairs) = match size {
            Size::Test => (64, 300),
            Size::Small => (2_000, 10_000),
            Size::Full | Size::Paper => (20_000, 300_000),
        };
        let mut rng = SplitMix64::new(seed ^ 0x7376_615f_7061_6972);
        let pool = Pool::random(vectors, &mut rng);
        let pairs = vectors::random_pairs(pairs, vectors, &mut rng);
        Box::new(SvaInstance { pool, pairs })
    }
}

struct SvaInstance {
    pool: Pool,
    pairs: Vec<Pair>,
}

impl Instance for SvaInstance {
    fn describe(&self) -> String {
        let v = self.pool.start.len() - 1;
        format!("{} pairs of {v} vectors ({} nonzeros)", self.pairs.len(), self.pool.index.len())
    }
    fn serial(&self) -> Output {
        add::serial(&self.pool, &self.pairs)
    }
    fn parallel(&self) -> Output {
        finegrain::record::region(|| add::parallel(Finegrain, &self.pool, &self.pairs))
    }
    fn rayon(&self) -> Option<Output> {
        Some(add::parallel(Rayon, &self.pool, &self.pairs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_adds_matching_indices_and_keeps_the_rest() {
        let pool = Pool { start: vec![0, 3, 6], index: vec![1, 4, 9, 0, 4, 12], value: vec![1.0, 2.0, 3.0, 10.0, 20.0, 30.0] };
        let mut out = Vec::new();
        add::add(&pool, Pair { x: 0, y: 1, a: 2.0, b: 0.5 }, &mut out);
        assert_eq!(out, [(0, 5.0), (1, 2.0), (4, 14.0), (9, 6.0), (12, 15.0)]);
    }

    #[test]
    fn generated_vectors_are_sorted_and_distinct() {
        let pool = Pool::random(50, &mut SplitMix64::new(1));
        for v in 0..50 {
            let (idx, _) = pool.vector(v);
            assert!(!idx.is_empty() && idx.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
