//! Per-worker counters and execution-time breakdowns (Sanchez, Yoo, Kozyrakis, "Flexible Architectural Support for Fine-Grain
//! Scheduling", ASPLOS 2010, Figure 6, section 6.1).
//!
//! Each worker owns one `WorkerCounters`; only it writes (relaxed load + store,
//! plain moves on x86), anyone may read. Time is charged to the bucket the worker
//! is in, at the transitions between buckets, which happen only on slow paths
//! (starting to look for work, a steal succeeding, parking). Enqueue and dequeue
//! on the fast path take a few nanoseconds, less than one read of the clock
//! (`docs/benchmarks.md`), so timing them one by one would mostly measure the
//! timer. Instead each pool measures its own push and pop once at start-up (a
//! tight loop over a scratch queue of the pool's mechanism), and a snapshot
//! charges `enqueues x push cost` and `dequeues x pop cost` to those buckets,
//! taking them out of the task bucket they were spent in. The fast path only
//! increments two counters.
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
    /// Pushing tasks (counted x measured cost per push).
    Enqueue = 1,
    /// Popping its own tasks (counted x measured cost per pop).
    Dequeue = 2,
    /// Looking for work in a round that found some.
    StealOk = 3,
    /// Looking for work in rounds that found none.
    StealFail = 4,
    /// Parked with nothing to do.
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
    time: [AtomicU64; BUCKETS],
    counts: [AtomicU64; COUNTERS],
    bucket: AtomicU64,
    since: AtomicU64,
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
            WorkerCounters {
                time: std::array::from_fn(|_| z()),
                counts: std::array::from_fn(|_| z()),
                bucket: AtomicU64::new(Bucket::StealFail as u64),
                since: AtomicU64::new(timer::ticks()),
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

    /// Publish a counter the worker keeps in a private cell (hot counters).
    #[inline(always)]
    pub(crate) fn publish(&self, _c: Counter, _value: u64) {
        #[cfg(feature = "stats")]
        self.counts[_c as usize].store(_value, Ordering::Relaxed);
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
            let since = self.since.load(Ordering::Relaxed);
            bump(&self.time[cur], now.saturating_sub(since));
            self.since.store(now, Ordering::Relaxed);
            self.bucket.store(_b as u64, Ordering::Relaxed);
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

    /// Re-label the time since the last transition (a steal round that was
    /// recorded as failing until it succeeded).
    #[inline]
    pub(crate) fn relabel(&self, _b: Bucket) {
        #[cfg(feature = "stats")]
        self.bucket.store(_b as u64, Ordering::Relaxed);
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

    /// `op_ns`: measured nanoseconds per (push, pop) of the pool's queues.
    pub(crate) fn snapshot(&self, _op_ns: (f64, f64)) -> WorkerStats {
        #[cfg(feature = "stats")]
        {
            let ns_per_tick = timer::calibration();
            let ns = |t: u64| (t as f64 * ns_per_tick) as u64;
            let mut time = [0u64; BUCKETS];
            for (i, t) in self.time.iter().enumerate() {
                time[i] = t.load(Ordering::Relaxed);
            }
            let cur = self.bucket.load(Ordering::Relaxed) as usize;
            time[cur] += timer::ticks().saturating_sub(self.since.load(Ordering::Relaxed));
            let c = |x: Counter| self.counts[x as usize].load(Ordering::Relaxed);
            let mut time = time.map(ns);
            // Move the fast-path queue operations out of task time (module doc).
            let dequeues = c(Counter::TasksRun).saturating_sub(c(Counter::Steals));
            for (n, cost, b) in [(c(Counter::Enqueues), _op_ns.0, Bucket::Enqueue), (dequeues, _op_ns.1, Bucket::Dequeue)] {
                let moved = ((n as f64 * cost) as u64).min(time[Bucket::Task as usize]);
                time[Bucket::Task as usize] -= moved;
                time[b as usize] += moved;
            }
            WorkerStats {
                time_ns: time,
                tasks_run: c(Counter::TasksRun),
                enqueues: c(Counter::Enqueues),
                steal_attempts: c(Counter::StealAttempts),
                steals: c(Counter::Steals),
                tasks_stolen: c(Counter::TasksStolen),
                messages: c(Counter::Messages),
                parks: c(Counter::Parks),
                interrupts: c(Counter::Interrupts),
                task_lengths: self.lengths.iter().map(|l| l.load(Ordering::Relaxed)).collect(),
                ticks_per_ns: 1.0 / ns_per_tick,
            }
        }
        #[cfg(not(feature = "stats"))]
        WorkerStats::default()
    }
}

/// The counters a worker bumps on its fast paths, kept in plain cells that
/// only it touches and published to its [`WorkerCounters`] on slow paths
/// (whenever it looks for work or finishes a task someone waits for). Joins
/// on a private queue are counted once, in the spawn gate, and those whose
/// take-back failed in `joins_slow`; [`HotCounters::publish`] derives the
/// enqueues and inline runs from them.
#[derive(Default)]
pub(crate) struct HotCounters {
    enqueues: Cell<u64>,
    tasks_run: Cell<u64>,
    joins_slow: Cell<u64>,
}

impl HotCounters {
    /// Count an enqueue (a no-op without the `stats` feature).
    #[inline(always)]
    pub(crate) fn enqueue(&self) {
        #[cfg(feature = "stats")]
        self.enqueues.set(self.enqueues.get().wrapping_add(1));
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
        to.publish(Counter::Enqueues, self.enqueues.get().wrapping_add(gate_joins));
        to.publish(Counter::TasksRun, self.runs(gate_joins));
    }
}

/// Counters and time of one worker (or their sum over a pool).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerStats {
    /// Nanoseconds per [`Bucket`], indexed by `Bucket as usize`.
    pub time_ns: [u64; BUCKETS],
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
    /// Mean task length in nanoseconds: time in tasks over tasks run (every
    /// task, inline `join` halves included), or `None` if none ran.
    pub fn mean_task_ns(&self) -> Option<f64> {
        (self.tasks_run > 0).then(|| self.time(Bucket::Task) as f64 / self.tasks_run as f64)
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
        WorkerStats {
            time_ns: std::array::from_fn(|i| d(self.time_ns[i], o.time_ns[i])),
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
    /// Whether the crate was built with the `stats` feature (otherwise all zeros).
    pub enabled: bool,
}

impl Stats {
    /// Sum over all workers.
    pub fn total(&self) -> WorkerStats {
        let mut t = WorkerStats::default();
        for w in &self.workers {
            t.add(w);
        }
        t
    }

    /// Fraction of total worker time per bucket (sums to 1 when any time was recorded).
    pub fn breakdown(&self) -> [f64; BUCKETS] {
        let t = self.total();
        let all = t.total_ns().max(1) as f64;
        t.time_ns.map(|x| x as f64 / all)
    }

    /// `self - earlier`, counter by counter (what happened in between).
    pub fn since(&self, earlier: &Stats) -> Stats {
        Stats {
            policy: self.policy.clone(),
            enabled: self.enabled,
            workers: self.workers.iter().zip(earlier.workers.iter()).map(|(a, b)| a.sub(b)).collect(),
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
        out.push_str("]}");
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
