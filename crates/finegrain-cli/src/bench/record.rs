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
