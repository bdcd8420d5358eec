//! Task lengths, sampled: the distribution behind the median task length of
//! a run (the mean needs no samples: task time over tasks run).
//!
//! Sanchez, Yoo, Kozyrakis ("Flexible architectural support for fine-grain
//! scheduling", ASPLOS 2010, Table 4) characterise each workload by its mean
//! task length in cycles and the share of its tasks that were stolen. Timing
//! every task would put two reads of the time-stamp counter on every task; in
//! the VMs this project is measured on a read costs about 100 ns
//! (`docs/benchmarks.md`), fifteen times a whole `join`. So the median comes
//! from samples, and only from tasks that leave a queue through the worker
//! loop (`WorkerThread::execute`: stolen tasks, scope spawns, phase tasks,
//! graph nodes, loop pieces, the tasks a waiting `join` runs). The half of a
//! `join` that its own caller takes back and runs inline is counted in the
//! mean but never sampled: its path has no room for a clock read. A sample is
//! kept only if no other task ran inside it and the worker never left its
//! task time (a task that waits or runs others has no length of its own to
//! report), so the median is that of leaf tasks.
//!
//! Samples are drawn at random gaps (so a periodic pattern of task lengths,
//! such as gtfold's alternating short and long cells, cannot alias with the
//! sampling): at first about one task in [`FIRST_GAP`], and the gap doubles
//! each time a worker has kept [`DOUBLE_EVERY`] more samples, so a long run
//! costs a bounded number of clock reads.
//!
//! The histogram has [`SUB`] buckets per power of two of ticks (each bucket
//! spans at most 1/4 of its lower bound), [`BUCKETS`] in all; a median read
//! from it is the midpoint of its bucket, within about 12% of the true value.

use crate::rng::XorShift;
use std::cell::Cell;

/// Buckets per power of two.
pub const SUB: usize = 4;
const LOG_SUB: usize = 2;
/// Histogram buckets: lengths below [`SUB`] one each, then [`SUB`] per power
/// of two up to 2^64.
pub const BUCKETS: usize = (64 - LOG_SUB + 1) * SUB;
/// Mean gap between samples when a worker starts.
pub const FIRST_GAP: u64 = 8;
/// Samples kept between two doublings of the gap.
pub const DOUBLE_EVERY: u64 = 256;

/// The bucket of a length of `t` ticks.
pub fn bucket_of(t: u64) -> usize {
    if t < SUB as u64 {
        return t as usize;
    }
    let octave = 63 - t.leading_zeros() as usize; // t in [2^octave, 2^(octave+1))
    let sub = ((t >> (octave - LOG_SUB)) as usize) & (SUB - 1);
    (octave - LOG_SUB + 1) * SUB + sub
}

/// The lowest length of bucket `i` and the width of the bucket.
pub fn bucket_range(i: usize) -> (u64, u64) {
    if i < SUB {
        return (i as u64, 1);
    }
    let octave = i / SUB + LOG_SUB - 1;
    let sub = (i % SUB) as u64;
    let width = 1u64 << (octave - LOG_SUB);
    ((1u64 << octave) + sub * width, width)
}

/// The median of a histogram (the midpoint of the bucket that holds it), or
/// `None` if it is empty.
pub fn median(hist: &[u64]) -> Option<f64> {
    let n: u64 = hist.iter().sum();
    if n == 0 {
        return None;
    }
    let half = n.div_ceil(2);
    let mut seen = 0;
    for (i, &c) in hist.iter().enumerate() {
        seen += c;
        if seen >= half {
            let (lo, w) = bucket_range(i);
            return Some(lo as f64 + (w as f64 - 1.0) / 2.0);
        }
    }
    None
}

/// When a worker takes its next sample (owner-only cells).
#[cfg_attr(not(feature = "stats"), allow(dead_code))]
pub(crate) struct Sampler {
    /// Tasks this worker has run through `execute`.
    seen: Cell<u64>,
    /// `seen` at which the next sample is taken.
    next: Cell<u64>,
    gap: Cell<u64>,
    kept: Cell<u64>,
    rng: Cell<XorShift>,
}

#[cfg_attr(not(feature = "stats"), allow(dead_code))]
impl Sampler {
    pub(crate) fn new(seed: u64) -> Sampler {
        let s = Sampler { seen: Cell::new(0), next: Cell::new(0), gap: Cell::new(FIRST_GAP), kept: Cell::new(0), rng: Cell::new(XorShift::new(seed)) };
        s.schedule();
        s
    }

    /// Count one task; whether it is to be sampled.
    #[inline(always)]
    pub(crate) fn due(&self) -> bool {
        let n = self.seen.get() + 1;
        self.seen.set(n);
        n >= self.next.get()
    }

    /// A sample was taken (kept or not): draw the next gap, uniform in
    /// `1..=2*gap-1` (mean `gap`).
    #[cold]
    pub(crate) fn schedule(&self) {
        let mut r = self.rng.replace(XorShift::new(0));
        let g = self.gap.get();
        let step = 1 + r.below((2 * g - 1) as usize) as u64;
        self.rng.set(r);
        self.next.set(self.seen.get() + step);
    }

    /// A sample was kept: widen the gap every [`DOUBLE_EVERY`] samples.
    #[cold]
    pub(crate) fn kept(&self) {
        let k = self.kept.get() + 1;
        self.kept.set(k);
        if k % DOUBLE_EVERY == 0 {
            self.gap.set(self.gap.get().saturating_mul(2).min(1 << 32));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_narrow() {
        let mut prev_end = 0u64;
        for i in 0..BUCKETS {
            let (lo, w) = bucket_range(i);
            assert_eq!(lo, prev_end, "bucket {i} starts where {} ended", i.wrapping_sub(1));
            assert_eq!(bucket_of(lo), i);
            assert_eq!(bucket_of(lo + (w - 1)), i);
            assert!(lo < SUB as u64 || w * SUB as u64 <= lo, "bucket {i} too wide: {lo} +{w}");
            prev_end = lo.wrapping_add(w);
        }
        assert_eq!(prev_end, 0, "the last bucket ends at 2^64");
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn median_of_a_bimodal_histogram() {
        let mut h = vec![0u64; BUCKETS];
        h[bucket_of(400)] += 30;
        h[bucket_of(16_000)] += 20;
        let m = median(&h).unwrap();
        assert!((m - 400.0).abs() / 400.0 < 0.125, "{m}");
        h[bucket_of(16_000)] += 20;
        let m = median(&h).unwrap();
        assert!((m - 16_000.0).abs() / 16_000.0 < 0.125, "{m}");
        assert_eq!(median(&[0; BUCKETS]), None);
    }

    #[test]
    fn gaps_average_out_and_widen() {
        let s = Sampler::new(3);
        let mut due = 0;
        for _ in 0..8 * 200 {
            if s.due() {
                due += 1;
                s.schedule();
            }
        }
        assert!((150..=260).contains(&due), "about one in 8: {due}");
        for _ in 0..DOUBLE_EVERY {
            s.kept();
        }
        assert_eq!(s.gap.get(), 2 * FIRST_GAP);
    }
}
