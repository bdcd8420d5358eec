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

#[cfg(feature = "stats")]
use crate::sync::{bump, AtomicU64, Ordering};
use std::cell::Cell;
use std::fmt::Write as _;

/// Where a worker's time goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Bucket {
    /// Running task code.
    Task = 0,
    /// Pushing tasks (sampled: one push in about [`sample_period`] is timed).
    Enqueue = 1,
    /// Popping its own tasks (sampled as pushes are).
    Dequeue = 2,
    /// Looking for work in a round that found some.
    StealOk = 3,
    /// Looking for work in rounds that found none.
    StealFail = 4,
    /// Idle with nothing to do: spinning or yielding between searches, or parked.
    Starved = 5,
    /// Handling scheduler messages, as a worker.
    HandlerWorker = 6,
    /// Handling scheduler messages, as a manager.
    HandlerManager = 7,
}

pub(crate) const BUCKETS: usize = 8;

impl Bucket {
    pub const ALL: [Bucket; BUCKETS] = [
        Bucket::Task,
        Bucket::Enqueue,
        Bucket::Dequeue,
        Bucket::StealOk,
        Bucket::StealFail,
        Bucket::Starved,
        Bucket::HandlerWorker,
        Bucket::HandlerManager,
    ];
    pub fn name(self) -> &'static str {
        ["task", "enqueue", "dequeue", "steal_ok", "steal_fail", "starved", "handler_worker", "handler_manager"][self as usize]
    }
}

/// A scheduler operation, after the ADM paper's Table 5 (Sanchez, Yoo,
/// Kozyrakis, ASPLOS 2010, section 6.2), mapped onto what each mechanism
/// does (`stats/README.md`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Op {
    /// Offering a task: a `ws` deque push, an `adm` frame mark or private
    /// queue push, a central-unit or `static` enqueue. Sampled.
    Enqueue = 0,
    /// Taking an own task: a `join`'s take-back, a pop of the own queue (or
    /// of the central unit). Sampled.
    Dequeue = 1,
    /// One steal attempt of a `ws` thief at one victim. Timed each time.
    Steal = 2,
    /// A manager handling an `UPDATE` (or a victim's or stealer's update)
    /// that arranged no steal. Timed each time.
    ManagerUpdate = 3,
    /// A manager handling an update that matched a stealer with a victim
    /// (sent `STEAL`). Timed each time.
    StealMatch = 4,
    /// A victim handling `STEAL`: taking its oldest tasks and sending `TASK`.
    /// Timed each time.
    SendTask = 5,
    /// A stealer handling `TASK`. Timed each time.
    RecvTask = 6,
}

pub(crate) const OPS: usize = 7;

impl Op {
    pub const ALL: [Op; OPS] = [Op::Enqueue, Op::Dequeue, Op::Steal, Op::ManagerUpdate, Op::StealMatch, Op::SendTask, Op::RecvTask];
    pub fn name(self) -> &'static str {
        ["enqueue", "dequeue", "steal", "manager_update", "steal_match", "send_task", "recv_task"][self as usize]
    }
    /// Sampled (`true`) or timed one by one.
    pub fn sampled(self) -> bool {
        matches!(self, Op::Enqueue | Op::Dequeue)
    }
}

/// Mean sampling period of enqueues and dequeues where they are lock-free
/// (work-stealing deques, frame marks and private queues, `static`'s own
/// queues; module documentation). A sampled `join` costs four clock reads
/// and its bookkeeping; one in 1024 keeps that near zero per `join`
/// (`docs/benchmarks.md`, "Sampling").
pub const SAMPLE_PERIOD: u64 = 1024;

/// Mean sampling period of the central task unit's enqueues and dequeues:
/// each takes a lock, so it costs far more than a clock read and a sample
/// is cheap; and its cost is heavy-tailed (a waiter behind a preempted
/// holder waits out a time slice), so a long period would let a single
/// sample stand for far more time than the run had.
pub const UNIT_SAMPLE_PERIOD: u64 = 16;

/// The sampling period of a mechanism's enqueues and dequeues (1 would time
/// every one).
pub fn sample_period(m: crate::policy::Mechanism) -> u64 {
    match m {
        crate::policy::Mechanism::Unit => UNIT_SAMPLE_PERIOD,
        _ => SAMPLE_PERIOD,
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(usize)]
pub(crate) enum Counter {
    TasksRun = 0,
    Enqueues = 1,
    StealAttempts = 2,
    Steals = 3,
    TasksStolen = 4,
    Messages = 5,
    Parks = 6,
    Interrupts = 7,
}
#[cfg_attr(not(feature = "stats"), allow(dead_code))]
const COUNTERS: usize = 8;

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

/// The buckets with the sampled queue operations moved out of the buckets
/// they were spent in (module doc), never more than a bucket holds.
fn adjust(raw: &[u64; BUCKETS], moved: &[[u64; BUCKETS]; 2]) -> [u64; BUCKETS] {
    let mut time = *raw;
    for (k, dest) in [Bucket::Enqueue, Bucket::Dequeue].into_iter().enumerate() {
        for b in 0..BUCKETS {
            if b == dest as usize {
                continue;
            }
            let m = moved[k][b].min(time[b]);
            time[b] -= m;
            time[dest as usize] += m;
        }
    }
    time
}

/// An exact count kept as a countdown to the next sampled operation (module
/// documentation): `count = base + period - left`. The decrement and its
/// test replace an increment on the fast path; everything else is cold.
#[derive(Debug)]
#[repr(C)]
pub(crate) struct Countdown {
    /// Operations until the next sample; the one that brings it to 0 is sampled.
    pub(crate) left: Cell<u64>,
    /// Operations in completed periods (and unsampled extras).
    base: Cell<u64>,
    /// Length of the current period.
    period: Cell<u64>,
    /// Mean period: 1 times every operation.
    mean: u64,
    rng: Cell<u64>,
}

impl Countdown {
    /// A countdown that samples one operation in about `mean` (at least 1).
    pub(crate) const fn new(seed: u64, mean: u64) -> Countdown {
        let seed = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mean = if mean == 0 { 1 } else { mean };
        // The first period is the mean.
        Countdown { left: Cell::new(mean), base: Cell::new(0), period: Cell::new(mean), mean, rng: Cell::new(seed) }
    }

    /// Count one operation; `true` if it is to be sampled (then call
    /// [`Countdown::rearm`] or [`Countdown::retry`]).
    #[cfg_attr(not(feature = "stats"), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn due(&self) -> bool {
        let l = self.left.get().wrapping_sub(1);
        self.left.set(l);
        l == 0
    }

    /// The sampled operation is done: start the next period; returns the
    /// period the sample stands for.
    #[cold]
    pub(crate) fn rearm(&self) -> u64 {
        let p = self.period.get();
        self.base.set(self.base.get().wrapping_add(p));
        let mut x = self.rng.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng.set(x);
        let next = if self.mean == 1 { 1 } else { self.mean / 2 + x % self.mean };
        self.period.set(next);
        self.left.set(next);
        p
    }

    /// The sample was discarded: sample the next operation instead, for the
    /// same period.
    #[cold]
    pub(crate) fn retry(&self) {
        self.base.set(self.base.get().wrapping_add(1));
        self.left.set(1);
    }

    /// Samples this long or longer are discarded: [`PREEMPTED`] for
    /// lock-free operations; none for the central unit's, whose long waits
    /// for the lock are time really spent in the operation.
    fn discard_above(&self) -> u64 {
        if self.mean <= UNIT_SAMPLE_PERIOD {
            u64::MAX
        } else {
            PREEMPTED
        }
    }

    /// Count `n` operations that are never sampled.
    #[cfg_attr(not(feature = "stats"), allow(dead_code))]
    #[inline]
    pub(crate) fn add(&self, n: u64) {
        self.base.set(self.base.get().wrapping_add(n));
    }

    /// Operations counted so far.
    #[inline]
    pub(crate) fn count(&self) -> u64 {
        self.base.get().wrapping_add(self.period.get()).wrapping_sub(self.left.get())
    }
}

/// A sampled operation in progress: its start tick and the bucket
/// transition the worker had made when it started.
#[cfg_attr(not(feature = "stats"), allow(dead_code))]
pub(crate) struct Probe {
    t0: u64,
    moved0: u64,
}

impl Probe {
    #[cfg_attr(not(feature = "stats"), allow(dead_code))]
    #[inline]
    pub(crate) fn start(c: &WorkerCounters) -> Probe {
        let moved0 = c.last_transition();
        Probe { t0: timer::ticks(), moved0 }
    }

    /// The operation is done: its ticks (clock cost subtracted), or `None`
    /// if the worker changed buckets meanwhile (the sample is discarded).
    #[cfg_attr(not(feature = "stats"), allow(dead_code))]
    #[inline]
    pub(crate) fn stop(self, c: &WorkerCounters) -> Option<u64> {
        let t1 = timer::ticks();
        (c.last_transition() == self.moved0).then(|| t1.saturating_sub(self.t0).saturating_sub(timer::overhead()))
    }
}

/// Perform `f`, one operation of `op` counted by `cd`: on the fast path just
/// `f()`; when the countdown says so, `f()` timed and charged (module doc).
#[inline(always)]
pub(crate) fn counted<R>(_cd: &Countdown, _c: &WorkerCounters, _op: Op, f: impl FnOnce() -> R) -> R {
    #[cfg(feature = "stats")]
    if _cd.due() {
        return sample_one(_cd, _c, _op, f);
    }
    f()
}

#[cfg(feature = "stats")]
#[cold]
#[inline(never)]
fn sample_one<R>(cd: &Countdown, c: &WorkerCounters, op: Op, f: impl FnOnce() -> R) -> R {
    let p = Probe::start(c);
    let r = f();
    match p.stop(c).filter(|&t| t < cd.discard_above()) {
        Some(t) => {
            let period = cd.rearm();
            c.sampled(op, period, t);
        }
        None => cd.retry(),
    }
    r
}

/// A sampled lock-free operation (sampled 1 in about [`SAMPLE_PERIOD`]; the
/// central unit's, which wait on a lock, are all kept: a wait behind a
/// holder that was descheduled is time the worker spent in the operation) that took this many
/// ticks or more (about 400 ns at this machine's 2.4 ticks per ns, more
/// than a few cache misses) was interrupted or made a system call (the
/// thread descheduled, a page fault, a wake-up of a sleeping worker):
/// weighted by its period it would stand for that event a thousand times,
/// so it is discarded and the next operation sampled. The time of such
/// events stays in the bucket they happened in (`docs/benchmarks.md`).
pub(crate) const PREEMPTED: u64 = 1 << 10;

/// Record a sampled `join`'s enqueue, which took `enq` ticks (`None`:
/// crossed a transition), before the join runs its first half: the
/// countdown must be re-armed before the joins nested in that half count
/// on it. Returns the period the sample stands for, for
/// [`sampled_join_dequeue`]; a join whose enqueue was not kept samples
/// the next.
#[cfg_attr(not(feature = "stats"), allow(dead_code))]
#[cold]
pub(crate) fn sampled_join_enqueue(cd: &Countdown, c: &WorkerCounters, enq: Option<u64>) -> Option<u64> {
    match enq.filter(|t| *t < cd.discard_above()) {
        Some(t) => {
            let period = cd.rearm();
            c.sampled(Op::Enqueue, period, t);
            Some(period)
        }
        None => {
            cd.retry();
            None
        }
    }
}

/// Record the take-back of a join whose enqueue was sampled with `period`.
#[cfg_attr(not(feature = "stats"), allow(dead_code))]
#[cold]
pub(crate) fn sampled_join_dequeue(cd: &Countdown, c: &WorkerCounters, period: Option<u64>, deq: Option<u64>) {
    if let (Some(p), Some(d)) = (period, deq.filter(|t| *t < cd.discard_above())) {
        c.sampled(Op::Dequeue, p, d);
    }
}

/// The clock, for [`timed_since`] (0 without the `stats` feature).
#[inline(always)]
pub(crate) fn clock() -> u64 {
    #[cfg(feature = "stats")]
    return timer::ticks();
    #[cfg(not(feature = "stats"))]
    0
}

/// Record one slow-path operation of kind `op` that started at `t0` ([`clock`]).
#[inline]
pub(crate) fn timed_since(_c: &WorkerCounters, _op: Op, _t0: u64) {
    #[cfg(feature = "stats")]
    _c.timed(_op, timer::ticks().saturating_sub(_t0).saturating_sub(timer::overhead()));
}

/// Time one slow-path operation `f` of kind `op` (`WorkerCounters::timed`).
#[inline]
pub(crate) fn timed<R>(_c: &WorkerCounters, _op: Op, f: impl FnOnce() -> R) -> R {
    #[cfg(feature = "stats")]
    {
        let t0 = timer::ticks();
        let r = f();
        _c.timed(_op, timer::ticks().saturating_sub(t0).saturating_sub(timer::overhead()));
        r
    }
    #[cfg(not(feature = "stats"))]
    f()
}

/// The counters a worker bumps on its fast paths, kept in plain cells that
/// only it touches and published to its [`WorkerCounters`] on slow paths
/// (whenever it looks for work or finishes a task someone waits for). Joins
/// on a private queue are counted once, in the spawn gate, and those whose
/// take-back failed in `joins_slow`; [`HotCounters::publish`] derives the
/// enqueues and inline runs from them. Enqueues and dequeues are counted by
/// countdowns that also pick the operations to sample (module doc).
pub(crate) struct HotCounters {
    /// Enqueues (`ws` pushes and joins, central-unit and `static` pushes,
    /// private-queue pushes); a sampled `join` also times its take-back.
    pub(crate) enq: Countdown,
    /// Dequeues outside a join's take-back (the own queue in the worker
    /// loop, the central unit's and `static`'s take-backs); only its samples
    /// are used, the count of dequeues is derived from tasks run.
    pub(crate) deq: Countdown,
    tasks_run: Cell<u64>,
    joins_slow: Cell<u64>,
}

impl HotCounters {
    /// `period`: [`sample_period`] of the worker's mechanism.
    pub(crate) fn new(seed: u64, period: u64) -> HotCounters {
        HotCounters { enq: Countdown::new(2 * seed + 1, period), deq: Countdown::new(2 * seed + 2, period), tasks_run: Cell::new(0), joins_slow: Cell::new(0) }
    }

    /// Count an enqueue that is never sampled (a no-op without the `stats` feature).
    #[inline(always)]
    pub(crate) fn enqueue(&self) {
        #[cfg(feature = "stats")]
        self.enq.add(1);
    }

    /// Perform the enqueue `f`, counted and perhaps sampled.
    #[inline(always)]
    pub(crate) fn enqueue_op<R>(&self, c: &WorkerCounters, f: impl FnOnce() -> R) -> R {
        counted(&self.enq, c, Op::Enqueue, f)
    }

    /// Perform the dequeue `f`, perhaps sampled.
    #[inline(always)]
    pub(crate) fn dequeue_op<R>(&self, c: &WorkerCounters, f: impl FnOnce() -> R) -> R {
        counted(&self.deq, c, Op::Dequeue, f)
    }

    /// Count a task run (a no-op without the `stats` feature).
    #[inline(always)]
    pub(crate) fn task_run(&self) {
        #[cfg(feature = "stats")]
        self.tasks_run.set(self.tasks_run.get().wrapping_add(1));
    }

    /// A private-queue join's fast take-back failed (see `publish`).
    #[inline(always)]
    pub(crate) fn join_slow(&self) {
        #[cfg(feature = "stats")]
        self.joins_slow.set(self.joins_slow.get().wrapping_add(1));
    }

    /// Tasks run so far, as [`HotCounters::publish`] counts them.
    #[inline]
    pub(crate) fn runs(&self, gate_joins: u64) -> u64 {
        self.tasks_run.get().wrapping_add(gate_joins).wrapping_sub(self.joins_slow.get())
    }

    /// Publish to `to`; `gate_joins` is the number of joins the spawn gate
    /// counted (each one enqueue, and one inline run unless its take-back
    /// failed, in which case whatever ran was counted as it ran).
    #[inline]
    pub(crate) fn publish(&self, to: &WorkerCounters, gate_joins: u64) {
        to.publish(Counter::Enqueues, self.enq.count().wrapping_add(gate_joins));
        to.publish(Counter::TasksRun, self.runs(gate_joins));
    }
}

/// Count and time of one kind of [`Op`] on one worker (or a pool).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct OpStats {
    /// Operations performed (exact).
    pub count: u64,
    /// Operations timed (all of them for slow-path operations, about one in
    /// [`sample_period`] for enqueues and dequeues).
    pub samples: u64,
    /// Ticks of the timed operations, the clock's own cost subtracted.
    pub sample_ticks: u64,
}

impl OpStats {
    /// Mean ticks (time-stamp-counter cycles) per timed operation.
    pub fn ticks_per_op(&self) -> Option<f64> {
        (self.samples > 0).then(|| self.sample_ticks as f64 / self.samples as f64)
    }
    fn add(&mut self, o: &OpStats) {
        self.count += o.count;
        self.samples += o.samples;
        self.sample_ticks += o.sample_ticks;
    }
    fn sub(&self, o: &OpStats) -> OpStats {
        OpStats {
            count: self.count.saturating_sub(o.count),
            samples: self.samples.saturating_sub(o.samples),
            sample_ticks: self.sample_ticks.saturating_sub(o.sample_ticks),
        }
    }
}

/// Counters and time of one worker (or their sum over a pool).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerStats {
    /// Nanoseconds per [`Bucket`], indexed by `Bucket as usize`.
    pub time_ns: [u64; BUCKETS],
    /// The buckets as timed at the transitions, before the sampled queue
    /// operations were moved out of them (what [`Stats::since`] subtracts).
    #[doc(hidden)]
    pub raw_ns: [u64; BUCKETS],
    /// Estimated enqueue (`[0]`) and dequeue (`[1]`) time by the bucket it
    /// was spent in.
    #[doc(hidden)]
    pub moved_ns: [[u64; BUCKETS]; 2],
    /// The worker's wall time over the same span (since its counters were
    /// made, or between the two snapshots of [`Stats::since`]): the buckets
    /// add up to it ([`Stats::check_sums`]).
    pub wall_ns: u64,
    /// Tasks executed (join halves that were run as tasks, scope spawns, phase tasks, graph nodes, loop halves).
    pub tasks_run: u64,
    /// Tasks pushed onto a queue.
    pub enqueues: u64,
    pub steal_attempts: u64,
    /// Successful steals (each takes one or more tasks).
    pub steals: u64,
    pub tasks_stolen: u64,
    pub messages: u64,
    /// Times the worker parked.
    pub parks: u64,
    /// Signals this worker sent to interrupt a victim (`notify=interrupt`
    /// of the message policies).
    pub interrupts: u64,
    /// Sampled lengths of leaf tasks, in ticks of the time-stamp counter: a
    /// histogram over the buckets of [`lengths`] (empty when nothing was
    /// sampled). See [`WorkerStats::median_task_ticks`].
    pub task_lengths: Vec<u64>,
    /// Per [`Op`], indexed by `Op as usize`: the ADM paper's Table 5.
    pub ops: [OpStats; OPS],
    /// Time-stamp-counter ticks (cycles at the counter's rate) per
    /// nanosecond, as measured when the snapshot was taken (0 without the
    /// `stats` feature).
    pub ticks_per_ns: f64,
}

impl Eq for WorkerStats {}

impl WorkerStats {
    pub fn time(&self, b: Bucket) -> u64 {
        self.time_ns[b as usize]
    }
    pub fn total_ns(&self) -> u64 {
        self.time_ns.iter().sum()
    }
    /// How far the buckets' sum is from the wall time, as a fraction of the
    /// wall time (0 when no time was recorded).
    pub fn sum_error(&self) -> f64 {
        if self.wall_ns == 0 {
            return if self.total_ns() == 0 { 0.0 } else { 1.0 };
        }
        (self.total_ns() as f64 - self.wall_ns as f64).abs() / self.wall_ns as f64
    }
    /// Mean cost of operation `op` in ticks (time-stamp-counter cycles) and
    /// nanoseconds, from its timed samples.
    pub fn op_cost(&self, op: Op) -> Option<(f64, f64)> {
        let t = self.ops[op as usize].ticks_per_op()?;
        Some((t, if self.ticks_per_ns > 0.0 { t / self.ticks_per_ns } else { 0.0 }))
    }
    /// Mean task length in nanoseconds: time in tasks over tasks run (every
    /// task, inline `join` halves included), or `None` if none ran. A task's
    /// own enqueues and take-backs count in its length ([`task_span_ns`]).
    ///
    /// [`task_span_ns`]: WorkerStats::task_span_ns
    pub fn mean_task_ns(&self) -> Option<f64> {
        (self.tasks_run > 0).then(|| self.task_span_ns() as f64 / self.tasks_run as f64)
    }
    /// Time in tasks with their enqueues and dequeues: the length ADM
    /// (ASPLOS 2010, Table 4) gives a task, from its start to its end. The
    /// sampled split between these buckets is an estimate with the variance
    /// of one operation times its period, and where it exceeds the task
    /// time it is clamped, so in a short run (a debug build in CI) the Task
    /// bucket alone could read 0; their sum is measured at transitions.
    pub fn task_span_ns(&self) -> u64 {
        self.time(Bucket::Task) + self.time(Bucket::Enqueue) + self.time(Bucket::Dequeue)
    }
    /// Median length of the sampled leaf tasks in ticks of the time-stamp
    /// counter (cycles at its rate), or `None` if none was sampled. Sampling
    /// and what it leaves out: [`lengths`].
    pub fn median_task_ticks(&self) -> Option<f64> {
        lengths::median(&self.task_lengths)
    }
    /// Tasks sampled for [`WorkerStats::median_task_ticks`].
    pub fn task_samples(&self) -> u64 {
        self.task_lengths.iter().sum()
    }
    fn add(&mut self, o: &WorkerStats) {
        for i in 0..BUCKETS {
            self.time_ns[i] += o.time_ns[i];
        }
        self.wall_ns += o.wall_ns;
        for i in 0..BUCKETS {
            self.raw_ns[i] += o.raw_ns[i];
            self.moved_ns[0][i] += o.moved_ns[0][i];
            self.moved_ns[1][i] += o.moved_ns[1][i];
        }
        for i in 0..OPS {
            self.ops[i].add(&o.ops[i]);
        }
        self.tasks_run += o.tasks_run;
        self.enqueues += o.enqueues;
        self.steal_attempts += o.steal_attempts;
        self.steals += o.steals;
        self.tasks_stolen += o.tasks_stolen;
        self.messages += o.messages;
        self.parks += o.parks;
        self.interrupts += o.interrupts;
        if self.task_lengths.len() < o.task_lengths.len() {
            self.task_lengths.resize(o.task_lengths.len(), 0);
        }
        for (a, b) in self.task_lengths.iter_mut().zip(&o.task_lengths) {
            *a += b;
        }
        if self.ticks_per_ns == 0.0 {
            self.ticks_per_ns = o.ticks_per_ns;
        }
    }
    fn sub(&self, o: &WorkerStats) -> WorkerStats {
        let d = |a: u64, b: u64| a.saturating_sub(b);
        // Subtract what was measured, then move the sampled operations: the
        // moved time of a span can exceed what a bucket gained in that span.
        let raw: [u64; BUCKETS] = std::array::from_fn(|i| d(self.raw_ns[i], o.raw_ns[i]));
        let moved: [[u64; BUCKETS]; 2] = std::array::from_fn(|k| std::array::from_fn(|i| d(self.moved_ns[k][i], o.moved_ns[k][i])));
        WorkerStats {
            time_ns: adjust(&raw, &moved),
            raw_ns: raw,
            moved_ns: moved,
            wall_ns: d(self.wall_ns, o.wall_ns),
            ops: std::array::from_fn(|i| self.ops[i].sub(&o.ops[i])),
            tasks_run: d(self.tasks_run, o.tasks_run),
            enqueues: d(self.enqueues, o.enqueues),
            steal_attempts: d(self.steal_attempts, o.steal_attempts),
            steals: d(self.steals, o.steals),
            tasks_stolen: d(self.tasks_stolen, o.tasks_stolen),
            messages: d(self.messages, o.messages),
            parks: d(self.parks, o.parks),
            interrupts: d(self.interrupts, o.interrupts),
            task_lengths: self.task_lengths.iter().enumerate().map(|(i, &a)| d(a, o.task_lengths.get(i).copied().unwrap_or(0))).collect(),
            ticks_per_ns: self.ticks_per_ns,
        }
    }
    fn json(&self, out: &mut String) {
        out.push_str("{\"time_ns\":{");
        for (i, b) in Bucket::ALL.iter().enumerate() {
            let _ = write!(out, "{}\"{}\":{}", if i > 0 { "," } else { "" }, b.name(), self.time_ns[i]);
        }
        let _ = write!(
            out,
            "}},\"tasks_run\":{},\"enqueues\":{},\"steal_attempts\":{},\"steals\":{},\"tasks_stolen\":{},\"messages\":{},\"parks\":{},\"interrupts\":{},\"task_samples\":{}",
            self.tasks_run,
            self.enqueues,
            self.steal_attempts,
            self.steals,
            self.tasks_stolen,
            self.messages,
            self.parks,
            self.interrupts,
            self.task_samples()
        );
        let num = |x: Option<f64>| x.map_or("null".to_string(), |v| format!("{v:.1}"));
        let _ = write!(out, ",\"wall_ns\":{},\"ops\":{{", self.wall_ns);
        for (i, op) in Op::ALL.iter().enumerate() {
            let o = &self.ops[i];
            let _ = write!(
                out,
                "{}\"{}\":{{\"count\":{},\"samples\":{},\"ticks_per_op\":{}}}",
                if i > 0 { "," } else { "" },
                op.name(),
                o.count,
                o.samples,
                num(o.ticks_per_op())
            );
        }
        out.push('}');
        let _ = write!(
            out,
            ",\"mean_task_ns\":{},\"median_task_ticks\":{},\"ticks_per_ns\":{:.4}}}",
            num(self.mean_task_ns()),
            num(self.median_task_ticks()),
            self.ticks_per_ns
        );
    }
}

/// A snapshot of a pool's counters: per worker and summed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub policy: String,
    pub workers: Vec<WorkerStats>,
    /// The dedicated manager thread (`manager=dedicated`), a row of its own:
    /// it runs no tasks, so its time is handling messages or waiting for
    /// them. Counted in [`Stats::total`].
    pub manager: Option<WorkerStats>,
    /// Whether the crate was built with the `stats` feature (otherwise all zeros).
    pub enabled: bool,
}

impl Stats {
    /// Sum over all workers.
    pub fn total(&self) -> WorkerStats {
        let mut t = WorkerStats::default();
        for w in self.workers.iter().chain(&self.manager) {
            t.add(w);
        }
        t
    }

    /// Every row (the workers, then the manager thread if any), named.
    pub fn rows(&self) -> impl Iterator<Item = (String, &WorkerStats)> {
        self.workers.iter().enumerate().map(|(i, w)| (format!("worker {i}"), w)).chain(self.manager.iter().map(|m| ("manager".to_string(), m)))
    }

    /// Check that in every row the buckets add up to the row's wall time
    /// within `tolerance` (a fraction: 0.02 for 2%); the error names the
    /// first row that does not. Trivially true without the `stats` feature.
    pub fn check_sums(&self, tolerance: f64) -> Result<(), String> {
        for (name, w) in self.rows() {
            let e = w.sum_error();
            if e > tolerance {
                return Err(format!(
                    "{}: {name}: buckets sum to {} ns, wall time {} ns ({:.2}% off)",
                    self.policy,
                    w.total_ns(),
                    w.wall_ns,
                    100.0 * e
                ));
            }
        }
        Ok(())
    }

    /// The ADM paper's Table 5 for this run: per operation, its count, the
    /// number timed and its mean cost in ticks and nanoseconds (sampling
    /// stated in the header). Operations that did not occur are left out.
    pub fn ops_table(&self) -> String {
        let t = self.total();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}: per-operation costs (enqueue/dequeue: {}; others timed each time; clock cost subtracted)",
            self.policy,
            match crate::Policy::parse(&self.policy).map(|p| sample_period(p.mechanism())) {
                Ok(1) => "every one timed".to_string(),
                Ok(p) => format!("1 in ~{p} timed"),
                Err(_) => "sampled".to_string(),
            }
        );
        let _ = writeln!(out, "{:<16}{:>14}{:>12}{:>12}{:>10}", "operation", "count", "timed", "cycles", "ns");
        for op in Op::ALL {
            let o = &t.ops[op as usize];
            if o.count == 0 && o.samples == 0 {
                continue;
            }
            let (cy, ns) = t.op_cost(op).map_or(("-".to_string(), "-".to_string()), |(c, n)| (format!("{c:.1}"), format!("{n:.1}")));
            let _ = writeln!(out, "{:<16}{:>14}{:>12}{:>12}{:>10}", op.name(), o.count, o.samples, cy, ns);
        }
        out
    }

    /// Fraction of total worker time per bucket (sums to 1 when any time was recorded).
    pub fn breakdown(&self) -> [f64; BUCKETS] {
        let t = self.total();
        let all = t.total_ns().max(1) as f64;
        t.time_ns.map(|x| x as f64 / all)
    }

    /// Add `other`'s counters to these, row by row (the statistics of several
    /// runs of one configuration on one pool).
    pub fn add(&mut self, other: &Stats) {
        if self.workers.len() < other.workers.len() {
            self.workers.resize(other.workers.len(), WorkerStats::default());
        }
        for (a, b) in self.workers.iter_mut().zip(&other.workers) {
            a.add(b);
        }
        match (&mut self.manager, &other.manager) {
            (Some(a), Some(b)) => a.add(b),
            (a @ None, Some(b)) => *a = Some(b.clone()),
            _ => {}
        }
        self.enabled |= other.enabled;
    }

    /// `self - earlier`, counter by counter (what happened in between).
    pub fn since(&self, earlier: &Stats) -> Stats {
        Stats {
            policy: self.policy.clone(),
            enabled: self.enabled,
            workers: self.workers.iter().zip(earlier.workers.iter()).map(|(a, b)| a.sub(b)).collect(),
            manager: match (&self.manager, &earlier.manager) {
                (Some(a), Some(b)) => Some(a.sub(b)),
                (a, _) => a.clone(),
            },
        }
    }

    /// The snapshot as a JSON object (`policy`, `enabled`, `total`, `workers`).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        let _ = write!(out, "{{\"policy\":\"{}\",\"enabled\":{},\"total\":", self.policy.replace('"', "\\\""), self.enabled);
        self.total().json(&mut out);
        out.push_str(",\"workers\":[");
        for (i, w) in self.workers.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            w.json(&mut out);
        }
        out.push(']');
        if let Some(m) = &self.manager {
            out.push_str(",\"manager\":");
            m.json(&mut out);
        }
        out.push('}');
        out
    }
}

impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t = self.total();
        let b = self.breakdown();
        write!(f, "tasks {} steals {}/{} stolen {} parks {} ", t.tasks_run, t.steals, t.steal_attempts, t.tasks_stolen, t.parks)?;
        if t.interrupts > 0 {
            write!(f, "interrupts {} ", t.interrupts)?;
        }
        write!(f, "|")?;
        for (i, bucket) in Bucket::ALL.iter().enumerate() {
            if b[i] > 0.0005 {
                write!(f, " {} {:.1}%", bucket.name(), 100.0 * b[i])?;
            }
        }
        Ok(())
    }
}

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
