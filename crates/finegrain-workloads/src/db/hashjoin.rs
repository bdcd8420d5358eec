//! `hashjoin`: an equi-join of two generated relations by hashing: build a
//! table on the smaller, probe it with every tuple of the larger (Sanchez, Yoo,
//! Kozyrakis, "Flexible architectural support for fine-grain scheduling",
//! ASPLOS 2010, section 5.2, Table 4). Output: the number of matching pairs and
//! a checksum of them.

mod partitioned;
mod table;

use crate::par::{Finegrain, Rayon};
use crate::support::rng::SplitMix64;
use crate::{Instance, Output, Size, Workload};
use table::{Matches, Table, Tuple};

pub struct HashJoin;

impl Workload for HashJoin {
    fn name(&self) -> &'static str {
        "hashjoin"
    }
    fn description(&self) -> &'static str {
        "hash join of two relations with skewed keys: count and checksum of matches (parallel: radix partitioning, per-partition tables, probe tasks)"
    }
    fn source(&self) -> &'static str {
        "Sanchez et al. (ASPLOS 2010), section 5.2 (hashjoin, Table 4)"
    }
    fn api(&self) -> &'static str {
        "phase"
    }
    fn paper_size(&self) -> bool {
        true
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (build, probe): (usize, usize) = match size {
            Size::Test => (2_000, 8_000),
            Size::Small => (100_000, 400_000),
            Size::Full => (4_000_000, 8_000_000),
            Size::Paper => (2_000_000, 8_000_000),
        };
        let mut rng = SplitMix64::new(seed ^ 0x6861_7368_6a6f_696e);
        // Build keys cover 0..build with repeats; probe keys reach twice as
        // far (about half find nothing), and one probe in four draws from a
        // skewed distribution that makes the low keys hot.
        let keys = build as u64;
        let r = (0..build).map(|i| Tuple { key: rng.below(keys) as u32, payload: i as u32 }).collect();
        let s = (0..probe)
            .map(|i| {
                let key = if rng.below(4) == 0 { (keys as f64 * rng.unit().powi(3)) as u64 } else { rng.below(2 * keys) };
                Tuple { key: key as u32, payload: i as u32 }
            })
            .collect();
        // Partitions of about a thousand build tuples: tables of 16 KiB.
        let bits = (build / 1000).max(1).ilog2().max(1);
        Box::new(JoinInstance { r, s, bits })
    }
}

struct JoinInstance {
    r: Vec<Tuple>,
    s: Vec<Tuple>,
    bits: u32,
}

fn output(m: Matches) -> Output {
    Output::Ints(vec![m.count, m.checksum])
}

impl Instance for JoinInstance {
    fn describe(&self) -> String {
        format!("{} build x {} probe tuples, {} partitions", self.r.len(), self.s.len(), 1 << self.bits)
    }
    fn serial(&self) -> Output {
        let table = Table::build(&self.r);
        let mut m = Matches::default();
        for &s in &self.s {
            table.probe(s, &mut m);
        }
        output(m)
    }
    fn parallel(&self) -> Output {
        // The partitioned relations and the tables leave the region with the
        // result: freeing them is not part of the join a paper times.
        let (m, _buffers) = finegrain::record::region(|| {
            let r = partitioned::partition(Finegrain, &self.r, self.bits);
            let s = partitioned::partition(Finegrain, &self.s, self.bits);
            let tables = partitioned::build(Finegrain, &r);
            (partitioned::probe_finegrain(&tables, &s), (r, s, tables))
        });
        output(m)
    }
    fn rayon(&self) -> Option<Output> {
        let r = partitioned::partition(Rayon, &self.r, self.bits);
        let s = partitioned::partition(Rayon, &self.s, self.bits);
        let tables = partitioned::build(Rayon, &r);
        Some(output(partitioned::probe_rayon(&tables, &s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a join by nested loops.
    #[test]
    fn matches_nested_loop_join() {
        let inst = HashJoin.prepare(Size::Test, 3);
        let mut rng = SplitMix64::new(9);
        let r: Vec<Tuple> = (0..300).map(|i| Tuple { key: rng.below(100) as u32, payload: i }).collect();
        let s: Vec<Tuple> = (0..500).map(|i| Tuple { key: rng.below(150) as u32, payload: i }).collect();
        let mut want = Matches::default();
        for &x in &s {
            for &y in &r {
                if x.key == y.key {
                    want.count += 1;
                    want.checksum = want.checksum.wrapping_add(table::mix(y, x));
                }
            }
        }
        let small = JoinInstance { r, s, bits: 3 };
        assert_eq!(small.serial(), output(want));
        let pool = finegrain::Pool::new(2, "ws").unwrap();
        assert_eq!(pool.install(|| small.parallel()), output(want));
        assert!(matches!(inst.serial(), Output::Ints(v) if v[0] > 0));
    }

    #[test]
    fn partitions_keep_every_tuple() {
        let input: Vec<Tuple> = (0..200_000).map(|i| Tuple { key: i * 7 % 1000, payload: i }).collect();
        let p = finegrain::Pool::new(4, "ws").unwrap().install(|| partitioned::partition(Finegrain, &input, 4));
        let mut got = p.tuples.clone();
        got.sort_by_key(|t| t.payload);
        assert_eq!(got, input);
        assert_eq!(p.start.len(), 17);
    }
}
