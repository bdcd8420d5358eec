//! A worker's live counters ([`WorkerCounters`]): written by their worker
//! only, read by anyone under a sequence lock; with the `stats` feature off,
//! a zero-sized type whose every method is empty.

use super::report::{adjust, OpStats, WorkerStats};
use super::vocab::{Bucket, Counter, Op, BUCKETS, COUNTERS, OPS};
use super::{lengths, timer};
#[cfg(feature = "stats")]
use crate::sync::{bump, AtomicU64, Ordering};


/// One worker's live counters.
#[cfg(feature = "stats")]
pub(crate) struct WorkerCounters {
    /// Odd while the owner moves between buckets (a sequence lock over
    /// `time`, `bucket` and `since`, for consistent snapshots).
    seq: AtomicU64,
    time: [AtomicU64; BUCKETS],
    counts: [AtomicU64; COUNTERS],
    bucket: AtomicU64,
    since: AtomicU64,
    /// Tick at which these counters were made: the start of the worker's
    /// wall time.
    born: u64,
    /// Per operation: timed samples, their ticks (clock cost subtracted), and
    /// (timed-each-time operations) their count.
    op_samples: [AtomicU64; OPS],
    op_ticks: [AtomicU64; OPS],
    op_count: [AtomicU64; OPS],
    /// Estimated ticks of sampled enqueues (`[0]`) and dequeues (`[1]`)
    /// (period x sampled time), by the bucket they were spent in.
    moved: [[AtomicU64; BUCKETS]; 2],
    /// Sampled task lengths in ticks, a histogram (`lengths.rs`).
    lengths: Box<[AtomicU64]>,
}

#[cfg(not(feature = "stats"))]
pub(crate) struct WorkerCounters;

impl WorkerCounters {
    pub(crate) fn new() -> Self {
        #[cfg(feature = "stats")]
        {
            let z = || AtomicU64::new(0);
            let born = timer::ticks();
            WorkerCounters {
                seq: z(),
                time: std::array::from_fn(|_| z()),
                counts: std::array::from_fn(|_| z()),
                bucket: AtomicU64::new(Bucket::StealFail as u64),
                since: AtomicU64::new(born),
                born,
                op_samples: std::array::from_fn(|_| z()),
                op_ticks: std::array::from_fn(|_| z()),
                op_count: std::array::from_fn(|_| z()),
                moved: std::array::from_fn(|_| std::array::from_fn(|_| z())),
                lengths: (0..lengths::BUCKETS).map(|_| z()).collect(),
            }
        }
        #[cfg(not(feature = "stats"))]
        WorkerCounters
    }

    #[inline(always)]
    pub(crate) fn count(&self, _c: Counter, _by: u64) {
        #[cfg(feature = "stats")]
        bump(&self.counts[_c as usize], _by);
    }

    /// A counter's value (0 without the `stats` feature).
    #[inline]
    pub(crate) fn get(&self, _c: Counter) -> u64 {
        #[cfg(feature = "stats")]
        return self.counts[_c as usize].load(Ordering::Relaxed);
        #[cfg(not(feature = "stats"))]
        0
    }

    /// Publish a counter the worker keeps in a private cell (hot counters).
    #[inline(always)]
    pub(crate) fn publish(&self, _c: Counter, _value: u64) {
        #[cfg(feature = "stats")]
        self.counts[_c as usize].store(_value, Ordering::Relaxed);
    }

    /// Owner only: open a write section of the sequence lock.
    #[cfg(feature = "stats")]
    #[inline]
    fn write_begin(&self) -> u64 {
        let s = self.seq.load(Ordering::Relaxed);
        self.seq.store(s.wrapping_add(1), Ordering::Relaxed);
        crate::sync::fence(Ordering::Release);
        s
    }

    #[cfg(feature = "stats")]
    #[inline]
    fn write_end(&self, s: u64) {
        self.seq.store(s.wrapping_add(2), Ordering::Release);
    }

    /// Move the worker into bucket `b`, charging the time since the last move.
    /// Staying in the same bucket reads no clock: the time keeps running
    /// into it either way, and a worker running one queued task after another
    /// (a phase) would otherwise read the time-stamp counter once per task,
    /// which in this VM cost more than the rest of the task's scheduling.
    #[inline]
    pub(crate) fn enter(&self, _b: Bucket) {
        #[cfg(feature = "stats")]
        {
            let cur = self.bucket.load(Ordering::Relaxed) as usize;
            if cur == _b as usize {
                return;
            }
            let now = timer::ticks();
            let s = self.write_begin();
            let since = self.since.load(Ordering::Relaxed);
            bump(&self.time[cur], now.saturating_sub(since));
            self.since.store(now, Ordering::Relaxed);
            self.bucket.store(_b as u64, Ordering::Relaxed);
            self.write_end(s);
        }
    }

    /// The tick of the last bucket transition: a task that saw it change
    /// left its task time (waited, looked for work) while it ran.
    #[cfg_attr(not(feature = "stats"), allow(dead_code))]
    #[inline]
    pub(crate) fn last_transition(&self) -> u64 {
        #[cfg(feature = "stats")]
        {
            self.since.load(Ordering::Relaxed)
        }
        #[cfg(not(feature = "stats"))]
        0
    }

    /// Add one sampled task length (`lengths.rs`).
    #[cfg_attr(not(feature = "stats"), allow(dead_code))]
    #[cold]
    pub(crate) fn task_length(&self, _ticks: u64) {
        #[cfg(feature = "stats")]
        bump(&self.lengths[lengths::bucket_of(_ticks)], 1);
    }

    /// One sampled enqueue or dequeue that took `ticks` (clock cost
    /// subtracted), standing for `period` operations: charge `period x
    /// ticks` to its bucket, out of the bucket the worker is in.
    #[cfg_attr(not(feature = "stats"), allow(dead_code))]
    #[cold]
    pub(crate) fn sampled(&self, _op: Op, _period: u64, _ticks: u64) {
        #[cfg(feature = "stats")]
        {
            debug_assert!(_op.sampled());
            bump(&self.op_samples[_op as usize], 1);
            bump(&self.op_ticks[_op as usize], _ticks);
            let cur = self.bucket.load(Ordering::Relaxed) as usize;
            bump(&self.moved[(_op == Op::Dequeue) as usize][cur], _period.saturating_mul(_ticks));
        }
    }

    /// One slow-path operation that took `ticks` (clock cost subtracted). Its
    /// time is already in the bucket it ran in (a handler, a steal round).
    #[cfg_attr(not(feature = "stats"), allow(dead_code))]
    #[inline]
    pub(crate) fn timed(&self, _op: Op, _ticks: u64) {
        #[cfg(feature = "stats")]
        {
            bump(&self.op_count[_op as usize], 1);
            bump(&self.op_samples[_op as usize], 1);
            bump(&self.op_ticks[_op as usize], _ticks);
        }
    }

    /// For tests of the accounting: lose the time since the last transition,
    /// as a transition that forgot to charge it would.
    #[cfg(all(test, feature = "stats"))]
    pub(crate) fn drop_interval(&self) {
        self.since.store(timer::ticks(), Ordering::Relaxed);
    }

    /// Re-label the time since the last transition (a steal round that was
    /// recorded as failing until it succeeded).
    #[inline]
    pub(crate) fn relabel(&self, _b: Bucket) {
        #[cfg(feature = "stats")]
        {
            let s = self.write_begin();
            self.bucket.store(_b as u64, Ordering::Relaxed);
            self.write_end(s);
        }
    }

    #[inline(always)]
    pub(crate) fn current(&self) -> Bucket {
        #[cfg(feature = "stats")]
        {
            Bucket::ALL[self.bucket.load(Ordering::Relaxed) as usize]
        }
        #[cfg(not(feature = "stats"))]
        Bucket::Task
    }

    /// The counters as they are now (nanoseconds, buckets consistent with
    /// each other and with the wall time).
    pub(crate) fn snapshot(&self) -> WorkerStats {
        #[cfg(feature = "stats")]
        {
            let ns_per_tick = timer::calibration();
            let ns = |t: u64| (t as f64 * ns_per_tick) as u64;
            // The buckets, the open interval and the wall time, all at one
            // `now`, read under the sequence lock.
            let (time, now) = loop {
                let s1 = self.seq.load(Ordering::Acquire);
                if s1 & 1 == 1 {
                    std::hint::spin_loop();
                    continue;
                }
                let mut time = [0u64; BUCKETS];
                for (i, t) in self.time.iter().enumerate() {
                    time[i] = t.load(Ordering::Relaxed);
                }
                let cur = self.bucket.load(Ordering::Relaxed) as usize;
                let since = self.since.load(Ordering::Relaxed);
                let now = timer::ticks().max(since);
                crate::sync::fence(Ordering::Acquire);
                if self.seq.load(Ordering::Relaxed) == s1 {
                    time[cur] += now - since;
                    break (time, now);
                }
            };
            let raw = time.map(ns);
            let moved: [[u64; BUCKETS]; 2] = std::array::from_fn(|k| std::array::from_fn(|b| ns(self.moved[k][b].load(Ordering::Relaxed))));
            let c = |x: Counter| self.counts[x as usize].load(Ordering::Relaxed);
            let dequeues = c(Counter::TasksRun).saturating_sub(c(Counter::Steals));
            let ops = std::array::from_fn(|i| {
                let op = Op::ALL[i];
                OpStats {
                    count: match op {
                        Op::Enqueue => c(Counter::Enqueues),
                        Op::Dequeue => dequeues,
                        _ => self.op_count[i].load(Ordering::Relaxed),
                    },
                    samples: self.op_samples[i].load(Ordering::Relaxed),
                    sample_ticks: self.op_ticks[i].load(Ordering::Relaxed),
                }
            });
            WorkerStats {
                time_ns: adjust(&raw, &moved),
                raw_ns: raw,
                moved_ns: moved,
                wall_ns: ns(now.saturating_sub(self.born)),
                tasks_run: c(Counter::TasksRun),
                enqueues: c(Counter::Enqueues),
                steal_attempts: c(Counter::StealAttempts),
                steals: c(Counter::Steals),
                tasks_stolen: c(Counter::TasksStolen),
                messages: c(Counter::Messages),
                parks: c(Counter::Parks),
                interrupts: c(Counter::Interrupts),
                task_lengths: self.lengths.iter().map(|l| l.load(Ordering::Relaxed)).collect(),
                ops,
                ticks_per_ns: 1.0 / ns_per_tick,
            }
        }
        #[cfg(not(feature = "stats"))]
        WorkerStats::default()
    }
}
