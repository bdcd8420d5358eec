//! One timed run, as written to results.csv and results.json.

use finegrain::{Bucket, Stats};
use serde::ser::{Serialize, SerializeMap, Serializer};

#[derive(Clone, Debug, serde::Serialize)]
pub struct RunRecord {
    pub workload: String,
    pub size: String,
    /// The instance's `describe()`: its input parameters.
    pub input: String,
    /// `serial`, `finegrain`, `rayon`, `chili`, `tbb`, `omp`.
    pub runtime: String,
    /// The label in tables and plots (the policy spec as written, or the runtime).
    pub config: String,
    /// The full policy spec, every option spelled out (finegrain runs only).
    pub policy: Option<String>,
    pub threads: usize,
    /// Timed repetition, from 0 (warm-up runs are not recorded).
    pub rep: usize,
    pub time_ns: u64,
    /// `ok`, or what went wrong.
    pub check: String,
    /// Scheduler counters and time breakdown of this call (finegrain runs only).
    pub stats: Option<RunStats>,
    /// Report order of the configuration (see `Plan::rank`).
    #[serde(skip)]
    pub rank: usize,
}

impl RunRecord {
    pub fn ok(&self) -> bool {
        self.check == "ok"
    }
}

/// The pool-wide totals of one `Pool::measure` call.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunStats {
    pub tasks_run: u64,
    pub enqueues: u64,
    pub steal_attempts: u64,
    pub steals: u64,
    pub tasks_stolen: u64,
    pub messages: u64,
    pub parks: u64,
    /// Worker time per bucket, summed over workers, in `Bucket::ALL` order.
    pub time_ns: Buckets<u64>,
    /// The task characterisation of this call (ADM, ASPLOS 2010, Table 4).
    #[serde(flatten)]
    pub profile: TaskProfile,
    /// Sampled leaf-task lengths in ticks (`finegrain::stats::lengths`),
    /// kept to merge over repetitions.
    #[serde(skip)]
    pub task_lengths: Vec<u64>,
}

/// Tasks of a run as Sanchez, Yoo, Kozyrakis characterise their workloads
/// (ASPLOS 2010, Table 4): how many, how long, how many stolen. The mean is
/// time in tasks (with their own enqueues and dequeues) over tasks run; the median is that of the sampled leaf tasks
/// (`finegrain::stats::lengths` says which tasks are sampled); cycles are
/// ticks of the time-stamp counter.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct TaskProfile {
    /// Tasks run (per run; in a summary, the median run's).
    pub tasks: u64,
    pub mean_task_ns: Option<f64>,
    pub mean_task_cycles: Option<f64>,
    pub median_task_ns: Option<f64>,
    pub median_task_cycles: Option<f64>,
    pub task_samples: u64,
    /// Tasks stolen over tasks run.
    pub stolen_share: Option<f64>,
}

impl TaskProfile {
    /// From summed counters: tasks run, tasks stolen, nanoseconds in tasks,
    /// the merged length histogram and the counter's ticks per nanosecond.
    pub fn of(tasks: u64, stolen: u64, task_ns: u64, lengths: &[u64], ticks_per_ns: f64) -> TaskProfile {
        let mean_ns = (tasks > 0).then(|| task_ns as f64 / tasks as f64);
        let median_cycles = finegrain::stats::lengths::median(lengths);
        let cycles = |ns: Option<f64>| ns.filter(|_| ticks_per_ns > 0.0).map(|x| x * ticks_per_ns);
        TaskProfile {
            tasks,
            mean_task_ns: mean_ns,
            mean_task_cycles: cycles(mean_ns),
            median_task_ns: median_cycles.filter(|_| ticks_per_ns > 0.0).map(|c| c / ticks_per_ns),
            median_task_cycles: median_cycles,
            task_samples: lengths.iter().sum(),
            stolen_share: (tasks > 0).then(|| stolen as f64 / tasks as f64),
        }
    }

    /// CSV column names and values (empty where undefined), in column order
    /// (the task count is the `tasks_run` column already).
    pub fn columns(&self) -> [(&'static str, String); 6] {
        let f = |x: Option<f64>, digits: usize| x.map(|v| format!("{v:.digits$}")).unwrap_or_default();
        [
            ("mean_task_ns", f(self.mean_task_ns, 1)),
            ("mean_task_cycles", f(self.mean_task_cycles, 0)),
            ("median_task_ns", f(self.median_task_ns, 1)),
            ("median_task_cycles", f(self.median_task_cycles, 0)),
            ("task_samples", self.task_samples.to_string()),
            ("stolen_share", f(self.stolen_share, 4)),
        ]
    }
}

impl RunStats {
    pub fn from_stats(s: &Stats) -> RunStats {
        let t = s.total();
        RunStats {
            tasks_run: t.tasks_run,
            enqueues: t.enqueues,
            steal_attempts: t.steal_attempts,
            steals: t.steals,
            tasks_stolen: t.tasks_stolen,
            messages: t.messages,
            parks: t.parks,
            time_ns: Buckets(Bucket::ALL.iter().map(|&b| t.time(b)).collect()),
            profile: TaskProfile::of(t.tasks_run, t.tasks_stolen, t.task_span_ns(), &t.task_lengths, t.ticks_per_ns),
            task_lengths: t.task_lengths.clone(),
        }
    }

    /// Counter names and values, in CSV column order.
    pub fn counters(&self) -> [(&'static str, u64); 7] {
        [
            ("tasks_run", self.tasks_run),
            ("enqueues", self.enqueues),
            ("steal_attempts", self.steal_attempts),
            ("steals", self.steals),
            ("tasks_stolen", self.tasks_stolen),
            ("messages", self.messages),
            ("parks", self.parks),
        ]
    }
}

/// One value per bucket, in `Bucket::ALL` order; serialized as an object keyed
/// by bucket name, in bucket order (a plain map would sort the keys).
#[derive(Clone, Debug, Default)]
pub struct Buckets<T>(pub Vec<T>);

impl<T: Serialize> Serialize for Buckets<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (b, v) in Bucket::ALL.iter().zip(&self.0) {
            m.serialize_entry(b.name(), v)?;
        }
        m.end()
    }
}

/// The CSV column names of the counters (as in `RunStats::counters`).
pub fn counter_names() -> Vec<&'static str> {
    RunStats::from_stats(&Stats::default()).counters().iter().map(|c| c.0).collect()
}

/// The CSV column names of the task characterisation (`TaskProfile::columns`).
pub fn profile_names() -> Vec<&'static str> {
    TaskProfile::default().columns().iter().map(|c| c.0).collect()
}
