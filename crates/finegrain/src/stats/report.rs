//! What a pool reports: per-operation, per-worker and pool-wide statistics
//! ([`OpStats`], [`WorkerStats`], [`Stats`]), read from the live counters.

use super::lengths;
use super::vocab::{sample_period, Bucket, Op, BUCKETS, OPS};
use std::fmt::Write as _;


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

/// The buckets with the sampled queue operations moved out of the buckets
/// they were spent in (module doc), never more than a bucket holds. Where
/// the estimates of both operations together exceed what a bucket holds (a
/// few long samples, each weighted by its period, in a short run), the
/// bucket is shared between them in proportion to their estimates, rather
/// than the enqueues' estimate taking it all and the dequeues' nothing.
pub(super) fn adjust(raw: &[u64; BUCKETS], moved: &[[u64; BUCKETS]; 2]) -> [u64; BUCKETS] {
    let mut time = *raw;
    let dests = [Bucket::Enqueue as usize, Bucket::Dequeue as usize];
    for b in 0..BUCKETS {
        // What leaves bucket `b` for each operation's bucket (none from the
        // operation's own bucket).
        let want: [u64; 2] = std::array::from_fn(|k| if b == dests[k] { 0 } else { moved[k][b] });
        let total = want[0].saturating_add(want[1]);
        let avail = raw[b];
        let m = if total <= avail {
            want
        } else {
            // The whole bucket, split (the remainder of the division to the dequeues).
            let m0 = (u128::from(want[0]) * u128::from(avail) / u128::from(total)) as u64;
            [m0, avail - m0]
        };
        for k in 0..2 {
            time[b] -= m[k];
            time[dests[k]] += m[k];
        }
    }
    time
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_beyond_a_bucket_share_it_in_proportion() {
        let (task, enq, deq) = (Bucket::Task as usize, Bucket::Enqueue as usize, Bucket::Dequeue as usize);
        let mut raw = [0u64; BUCKETS];
        raw[task] = 100;
        let mut moved = [[0u64; BUCKETS]; 2];
        // Within the bucket: moved as estimated.
        moved[0][task] = 30;
        moved[1][task] = 20;
        let t = adjust(&raw, &moved);
        assert_eq!((t[task], t[enq], t[deq]), (50, 30, 20));
        // Beyond it: shared 3 to 1, nothing lost or made up.
        moved[0][task] = 150;
        moved[1][task] = 50;
        let t = adjust(&raw, &moved);
        assert_eq!((t[task], t[enq], t[deq]), (0, 75, 25));
        assert_eq!(t.iter().sum::<u64>(), raw.iter().sum::<u64>());
    }
}
