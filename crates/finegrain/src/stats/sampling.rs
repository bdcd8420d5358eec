//! Sampled fast-path operations (module docs of `stats`): the countdowns
//! that count enqueues and dequeues and pick the ones to time, the probes
//! that time them, and the hot counters a worker publishes on slow paths.

use super::counters::WorkerCounters;
use super::timer;
use super::vocab::{Counter, Op, UNIT_SAMPLE_PERIOD};
use std::cell::Cell;


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
