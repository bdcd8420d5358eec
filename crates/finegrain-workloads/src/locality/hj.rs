//! `hj`: the probe phase of a hash join, one task per block of probe rows,
//! with one signature per task of the hash-table regions its probes touch
//! (R. Yoo, *Locality-Aware Task Management on Many-Core Processors*, PhD
//! thesis, Stanford University, 2012, section 4.4 and Table 4.4: "hj", a
//! hash-join probe per task, a clustered sharing pattern; 4,096 tasks).
//!
//! **Program.** A build table R of distinct keys with payloads is hashed
//! into a chained table stored by bucket (built serially, as in the
//! thesis, where only the probes are tasks); the probe table S is joined
//! against it, and the result is the number of matches and a wrapping
//! checksum of the matched payload pairs.
//!
//! **Input.** Clustered as in the thesis's hj: R's keys are composite (a
//! group, e.g. a customer, in the high bits; an item in the low 6 bits), and
//! the hash spreads groups but keeps one group's keys in one 64-bucket page,
//! as a table hashed on the leading key column does. Each block of probe
//! rows comes from a few groups (orders of a few customers), and blocks come
//! in no order, so blocks that touch the same pages are far apart.
//!
//! **Hint.** The thesis runs hj with its graph-based reference scheduler
//! only (no chapter 5 manager is named for it); the brief asks for a
//! pattern manager, and the one that fits input-dependent table accesses is
//! the signature manager: bit `r` of a task's signature is set if one of its
//! probes reads a bucket in the `r`-th of 1,024 equal ranges of buckets.
//!
//! **Check.** Counts and wrapping sums are exact in any order.

use super::{rayon_space, run_space};
use crate::support::rng::{mix, SplitMix64};
use crate::support::shared::SharedMut;
use crate::{Instance, Output, Size, Workload};
use finegrain::policy::locality::signature::{mark, Signature};
use finegrain::TaskSpace;

/// Keys of one group share a page of this many buckets.
const PAGE: usize = 64;
/// Groups a probe block draws its keys from.
const GROUPS_PER_BLOCK: u64 = 4;

pub(crate) struct Hj {
    pub(crate) hint: bool,
}

impl Workload for Hj {
    fn name(&self) -> &'static str {
        if self.hint {
            "hj"
        } else {
            "hj-nohint"
        }
    }
    fn description(&self) -> &'static str {
        "hash-join probes of clustered composite keys, one task per block of probe rows, as a task space with signatures"
    }
    fn source(&self) -> &'static str {
        "Yoo (PhD thesis, Stanford 2012), section 4.4 and Table 4.4 (hj, clustered)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (build, probes, block) = match size {
            Size::Test => (1 << 12, 1 << 14, 64),
            Size::Small => (1 << 16, 1 << 19, 128),
            Size::Full | Size::Paper => (1 << 20, 1 << 23, 256),
        };
        Box::new(HjInstance::generate(build, probes, block, seed, self.hint))
    }
}

struct HjInstance {
    /// Bucket `b`'s entries are `keys[start[b]..start[b + 1]]`, payloads alike.
    start: Vec<u32>,
    keys: Vec<u32>,
    payloads: Vec<u32>,
    /// The probe table.
    probe_keys: Vec<u32>,
    probe_payloads: Vec<u32>,
    /// Probe rows per task.
    block: usize,
    sigs: Vec<Signature>,
    hint: bool,
}

impl HjInstance {
    fn generate(build: usize, probes: usize, block: usize, seed: u64, hint: bool) -> HjInstance {
        assert!(build.is_power_of_two() && build >= PAGE * 4 && probes.is_multiple_of(block), "hj: bad table sizes {build}, {probes}, {block}");
        let mut rng = SplitMix64::new(seed ^ 0x686a);
        // R: half of the key space 0..2 build, drawn without replacement.
        let space = 2 * build as u32;
        let mut all: Vec<u32> = (0..space).collect();
        for i in 0..build {
            all.swap(i, i + rng.below((space as usize - i) as u64) as usize);
        }
        let r_keys = &all[..build];
        let buckets = build;
        let bucket_of = |k: u32| bucket(k, buckets);
        let mut start = vec![0u32; buckets + 1];
        for &k in r_keys {
            start[bucket_of(k) + 1] += 1;
        }
        for b in 0..buckets {
            start[b + 1] += start[b];
        }
        let mut next = start.clone();
        let (mut keys, mut payloads) = (vec![0u32; build], vec![0u32; build]);
        for &k in r_keys {
            let b = bucket_of(k);
            keys[next[b] as usize] = k;
            payloads[next[b] as usize] = rng.next_u64() as u32;
            next[b] += 1;
        }
        // S: each block draws keys from a few groups of the key space.
        let groups = space as u64 / PAGE as u64;
        let (mut probe_keys, mut probe_payloads) = (Vec::with_capacity(probes), Vec::with_capacity(probes));
        for _ in 0..probes / block {
            let mine: Vec<u64> = (0..GROUPS_PER_BLOCK).map(|_| rng.below(groups)).collect();
            for _ in 0..block {
                let g = mine[rng.below(GROUPS_PER_BLOCK) as usize];
                probe_keys.push((g * PAGE as u64 + rng.below(PAGE as u64)) as u32);
                probe_payloads.push(rng.next_u64() as u32);
            }
        }
        let sigs = probe_keys
            .chunks(block)
            .map(|ks| {
                let mut sig: Signature = Default::default();
                ks.iter().for_each(|&k| mark(&mut sig, bucket_of(k), 0, buckets));
                sig
            })
            .collect();
        HjInstance { start, keys, payloads, probe_keys, probe_payloads, block, sigs, hint }
    }

    fn buckets(&self) -> usize {
        self.start.len() - 1
    }

    fn tasks(&self) -> usize {
        self.probe_keys.len() / self.block
    }

    /// Matches and checksum of probe rows `rows`.
    fn probe(&self, rows: std::ops::Range<usize>) -> (u64, u64) {
        let (mut count, mut sum) = (0u64, 0u64);
        for i in rows {
            let k = self.probe_keys[i];
            let b = bucket(k, self.buckets());
            let entries = self.start[b] as usize..self.start[b + 1] as usize;
            for (&rk, &rp) in self.keys[entries.clone()].iter().zip(&self.payloads[entries]) {
                if rk == k {
                    count += 1;
                    sum = sum.wrapping_add(mix(rp as u64 ^ (self.probe_payloads[i] as u64) << 32));
                }
            }
        }
        (count, sum)
    }

    fn task(&self, out: &SharedMut<'_, (u64, u64)>, t: usize) {
        let rows = t * self.block..(t + 1) * self.block;
        finegrain::record::declare(|| {
            finegrain::record::read(&self.probe_keys[rows.clone()]);
            finegrain::record::read(&self.probe_payloads[rows.clone()]);
            for &k in &self.probe_keys[rows.clone()] {
                let b = bucket(k, self.buckets());
                finegrain::record::read(&self.start[b..b + 2]);
                finegrain::record::read(&self.keys[self.start[b] as usize..self.start[b + 1] as usize]);
            }
            out.declare_write(t..t + 1);
        });
        // SAFETY: task t alone writes slot t; `out` is read after the section.
        unsafe { out.write(t, self.probe(rows)) };
    }

    fn run_with(&self, section: impl FnOnce([usize; 3], &(dyn Fn([usize; 3]) + Sync))) -> Output {
        let mut out = vec![(0u64, 0u64); self.tasks()];
        {
            let shared = SharedMut::new(&mut out);
            section([self.tasks(), 1, 1], &|[t, _, _]| self.task(&shared, t));
        }
        let (count, sum) = out.iter().fold((0u64, 0u64), |(c, s), &(a, b)| (c + a, s.wrapping_add(b)));
        Output::Ints(vec![count, sum])
    }
}

/// The bucket of key `k` in a table of `buckets` buckets: the key's group
/// (all but its low 6 bits) hashed to a page, the low bits a bucket in it.
fn bucket(k: u32, buckets: usize) -> usize {
    let pages = (buckets / PAGE) as u64;
    (mix(k as u64 / PAGE as u64) % pages) as usize * PAGE + k as usize % PAGE
}

impl Instance for HjInstance {
    fn describe(&self) -> String {
        format!(
            "{} build rows in {} buckets, {} probes, {} tasks of {}",
            self.keys.len(),
            self.buckets(),
            self.probe_keys.len(),
            self.tasks(),
            self.block
        )
    }
    fn serial(&self) -> Output {
        let (count, sum) = self.probe(0..self.probe_keys.len());
        Output::Ints(vec![count, sum])
    }
    fn parallel(&self) -> Output {
        self.run_with(|extents, task| {
            let space = TaskSpace::new(extents);
            let space = if self.hint { space.signatures(&self.sigs) } else { space };
            run_space(space, task);
        })
    }
    fn rayon(&self) -> Option<Output> {
        Some(self.run_with(|extents, task| rayon_space(extents, task)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The join's count equals a count by a sorted merge of the two tables.
    #[test]
    fn count_matches_a_merge_join() {
        let inst = HjInstance::generate(1 << 12, 1 << 13, 64, 6, true);
        let mut build = inst.keys.clone();
        build.sort_unstable();
        let expect = inst.probe_keys.iter().filter(|k| build.binary_search(k).is_ok()).count() as u64;
        let Output::Ints(v) = inst.serial() else { panic!() };
        assert_eq!(v[0], expect);
        // About half the probe keys are in R.
        assert!(expect > (1 << 13) / 3 && expect < 2 * (1 << 13) / 3, "{expect}");
    }

    /// Every build row sits in its key's bucket, and a group's keys share a page.
    #[test]
    fn buckets_hold_their_keys() {
        let inst = HjInstance::generate(1 << 12, 1 << 12, 64, 1, true);
        for b in 0..inst.buckets() {
            for &k in &inst.keys[inst.start[b] as usize..inst.start[b + 1] as usize] {
                assert_eq!(bucket(k, inst.buckets()), b);
                assert_eq!(bucket(k - k % PAGE as u32, inst.buckets()) / PAGE, b / PAGE);
            }
        }
    }

    #[test]
    fn hinted_and_unhinted_match_serial() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for hint in [true, false] {
            let inst = HjInstance::generate(1 << 12, 1 << 14, 64, 5, hint);
            assert_eq!(inst.serial(), pool.install(|| inst.parallel()));
        }
    }
}
