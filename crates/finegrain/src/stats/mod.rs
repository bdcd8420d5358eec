//! Per-worker counters and execution-time breakdowns (Sanchez, Yoo, Kozyrakis, "Flexible Architectural Support for Fine-Grain
//! Scheduling", ASPLOS 2010, Figure 6, section 6.1).
//!
//! Each worker owns one `WorkerCounters`; only it writes (relaxed load + store,
//! plain moves on x86), anyone may read. Time is charged to the bucket the worker
//! is in, at the transitions between buckets, which happen only on slow paths
//! (starting to look for work, a steal succeeding, idling, parking, handling
//! mail). The buckets chain: each transition charges the interval since the
//! previous one, so a worker's buckets add up to its wall time since its
//! counters were made ([`WorkerStats::wall_ns`]); a snapshot reads them under
//! a sequence lock, so that a transition racing with it is neither lost nor
//! counted twice ([`Stats::check_sums`] checks the sum).
//!
//! Enqueue and dequeue on the fast path take a few nanoseconds, less than one
//! read of the clock (`docs/benchmarks.md`), so they are *sampled*: the
//! per-operation counter is a countdown (`Countdown`) whose decrement
//! replaces the increment; when it reaches zero, a cold path performs that one
//! operation between two clock reads, subtracts the clock's own cost
//! (`timer::overhead`) and charges `period x time` to the Enqueue or Dequeue
//! bucket, taking it out of the bucket the worker was in (usually Task).
//! Periods are drawn uniformly from `P / 2 .. 3P / 2` around the mechanism's
//! mean `P` ([`sample_period`]: [`SAMPLE_PERIOD`] where the operations are
//! lock-free, [`UNIT_SAMPLE_PERIOD`] for the central unit's locked ones), so
//! that a regular recursion does not always sample the same kind of spawn. Counts stay exact (completed periods plus the part of the current
//! one). A sample whose operation crossed a bucket transition (a push that
//! ended up handling mail) is discarded and the next operation sampled
//! instead. The scheduler operations of the ADM paper's Table 5 that run on
//! slow paths (message handling, steals) are timed one by one ([`Op`]).
//!
//! With the `stats` feature off, every probe is an empty inline function and
//! [`Stats`] reports zeros.

pub mod lengths;
pub(crate) mod timer;
pub(crate) mod trace;

mod counters;
mod report;
mod sampling;
mod vocab;
pub(crate) use counters::*;
pub use report::*;
pub(crate) use sampling::*;
pub use vocab::*;


#[cfg(all(test, feature = "stats"))]
mod tests {
    use super::*;

    fn spin_ticks(n: u64) {
        let t0 = timer::ticks();
        while timer::ticks().wrapping_sub(t0) < n {
            std::hint::spin_loop();
        }
    }

    fn stats_of(c: &WorkerCounters) -> Stats {
        Stats { policy: "test".into(), workers: vec![c.snapshot()], manager: None, enabled: true }
    }

    /// Transitions charge every interval: the buckets add up to the wall time.
    #[test]
    fn buckets_add_up_to_wall_time() {
        let c = WorkerCounters::new();
        for b in [Bucket::Task, Bucket::StealFail, Bucket::Starved, Bucket::Task, Bucket::HandlerWorker, Bucket::Task] {
            c.enter(b);
            spin_ticks(200_000);
        }
        c.relabel(Bucket::StealOk);
        spin_ticks(200_000);
        let s = stats_of(&c);
        s.check_sums(0.02).unwrap();
        assert!(s.workers[0].time(Bucket::Task) > 0 && s.workers[0].time(Bucket::StealOk) > 0);
    }

    /// The check catches an interval that no bucket was charged with.
    #[test]
    fn check_catches_an_uncharged_interval() {
        let c = WorkerCounters::new();
        c.enter(Bucket::Task);
        spin_ticks(1_000_000);
        c.drop_interval();
        c.enter(Bucket::StealFail);
        spin_ticks(1_000_000);
        let e = stats_of(&c).check_sums(0.02).expect_err("half the wall time was never charged");
        assert!(e.contains("worker 0"), "{e}");
    }

    /// Sampled operations move time out of the bucket they were spent in,
    /// and never more than it holds; the sum is unchanged.
    #[test]
    fn sampled_time_moves_between_buckets() {
        let c = WorkerCounters::new();
        c.enter(Bucket::Task);
        spin_ticks(1_000_000);
        c.sampled(Op::Enqueue, 64, 1000);
        c.sampled(Op::Dequeue, 64, 500);
        let w = c.snapshot();
        let tick_ns = 1.0 / w.ticks_per_ns;
        let enq = w.time(Bucket::Enqueue) as f64;
        assert!((enq - 64_000.0 * tick_ns).abs() <= 2.0, "{enq}");
        assert!((w.time(Bucket::Dequeue) as f64 - 32_000.0 * tick_ns).abs() <= 2.0);
        assert_eq!(w.ops[Op::Enqueue as usize].samples, 1);
        assert!(w.sum_error() < 0.001);
        // More than the bucket holds: clamped, the sum still holds.
        c.sampled(Op::Enqueue, 1 << 40, 1 << 20);
        let w = c.snapshot();
        assert_eq!(w.time(Bucket::Task), 0);
        assert!(w.sum_error() < 0.001);
    }

    /// The countdown counts exactly and samples about one in its mean period.
    #[test]
    fn countdown_counts_exactly() {
        let cd = Countdown::new(7, 64);
        let (mut sampled, mut retried) = (0u64, false);
        for i in 0..100_000u64 {
            if cd.due() {
                // Discard one sample: the next operation stands in for it.
                if !retried && i > 1000 {
                    retried = true;
                    cd.retry();
                } else {
                    cd.rearm();
                    sampled += 1;
                }
            }
            assert_eq!(cd.count(), i + 1);
        }
        cd.add(5);
        assert_eq!(cd.count(), 100_005);
        let expect = 100_000 / 64;
        assert!(sampled > expect * 9 / 10 && sampled < expect * 11 / 10, "{sampled} samples");
    }
}
