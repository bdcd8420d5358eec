//! Per-configuration statistics over the repetitions: what the table, the JSON
//! summary and the plots show.

use super::record::{Buckets, RunRecord, TaskProfile};
use crate::sample::Summary;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct SummaryRow {
    pub workload: String,
    pub input: String,
    pub runtime: String,
    pub config: String,
    pub policy: Option<String>,
    pub threads: usize,
    /// Runs whose result passed the check; only these are in the statistics.
    pub ok_runs: usize,
    pub failed_runs: usize,
    pub time_ns: Option<Summary>,
    /// Serial median time over this configuration's median time: the Rust
    /// serial reference's, or for a C++ peer its own serial program's.
    pub speedup: Option<f64>,
    /// The runtime whose serial program `speedup` is measured against.
    pub speedup_over: String,
    /// Share of total worker time per bucket, over all passing runs (finegrain only).
    pub breakdown: Option<Buckets<f64>>,
    /// The task characterisation over all passing runs (finegrain only):
    /// `tasks` per run (the median), the mean and median task length and the
    /// share stolen over all runs' tasks together.
    pub tasks: Option<TaskProfile>,
    #[serde(skip)]
    pub rank: usize,
}

/// One row per (workload, configuration, threads), in run order of workloads and
/// report order of configurations.
pub fn summarize(records: &[RunRecord]) -> Vec<SummaryRow> {
    let mut workloads: Vec<&str> = Vec::new();
    for r in records {
        if !workloads.contains(&r.workload.as_str()) {
            workloads.push(&r.workload);
        }
    }
    let mut rows = Vec::new();
    for w in workloads {
        let of_w: Vec<&RunRecord> = records.iter().filter(|r| r.workload == w).collect();
        let mut keys: Vec<(usize, usize)> = of_w.iter().map(|r| (r.rank, r.threads)).collect();
        keys.sort_unstable();
        keys.dedup();
        let mut w_rows: Vec<SummaryRow> = keys.iter().map(|&(rank, t)| row(&of_w, rank, t)).collect();
        let median_of = |runtime: &str| w_rows.iter().find(|r| r.runtime == runtime).and_then(|r| r.time_ns).map(|s| s.median);
        let baselines: Vec<(String, Option<f64>)> = w_rows
            .iter()
            .map(|r| {
                // A peer against its own serial program, when it ran; every
                // other runtime (and a peer whose serial did not run) against
                // the Rust serial reference.
                let own = crate::peers::own_baseline(&r.runtime);
                match own.and_then(|name| median_of(name).map(|m| (name, m))) {
                    Some((name, m)) => (name.to_string(), Some(m)),
                    None => ("serial".to_string(), median_of("serial")),
                }
            })
            .collect();
        for (r, (over, serial)) in w_rows.iter_mut().zip(baselines) {
            r.speedup = match (serial, r.time_ns) {
                (Some(s), Some(t)) if t.median > 0.0 => Some(s / t.median),
                _ => None,
            };
            r.speedup_over = over;
        }
        rows.extend(w_rows);
    }
    rows
}

fn row(of_w: &[&RunRecord], rank: usize, threads: usize) -> SummaryRow {
    let runs: Vec<&RunRecord> = of_w.iter().copied().filter(|r| r.rank == rank && r.threads == threads).collect();
    let ok: Vec<&RunRecord> = runs.iter().copied().filter(|r| r.ok()).collect();
    let times: Vec<f64> = ok.iter().map(|r| r.time_ns as f64).collect();
    let first = runs[0];
    SummaryRow {
        workload: first.workload.clone(),
        input: first.input.clone(),
        runtime: first.runtime.clone(),
        config: first.config.clone(),
        policy: first.policy.clone(),
        threads,
        ok_runs: ok.len(),
        failed_runs: runs.len() - ok.len(),
        time_ns: Summary::of(&times),
        speedup: None,
        speedup_over: String::new(),
        breakdown: breakdown(&ok),
        tasks: profile(&ok),
        rank,
    }
}

/// The runs' tasks pooled: counts and times summed, histograms merged; the
/// task count is the median run's.
fn profile(runs: &[&RunRecord]) -> Option<TaskProfile> {
    let stats: Vec<_> = runs.iter().filter_map(|r| r.stats.as_ref()).filter(|s| s.tasks_run > 0).collect();
    if stats.is_empty() {
        return None;
    }
    let (mut tasks, mut stolen, mut task_ns, mut lengths) = (0, 0, 0, Vec::<u64>::new());
    // A task's length includes its own enqueues and take-backs
    // (`WorkerStats::task_span_ns`).
    let span = [finegrain::Bucket::Task, finegrain::Bucket::Enqueue, finegrain::Bucket::Dequeue];
    for s in &stats {
        tasks += s.tasks_run;
        stolen += s.tasks_stolen;
        task_ns += span.iter().map(|&b| s.time_ns.0.get(b as usize).copied().unwrap_or(0)).sum::<u64>();
        lengths.resize(lengths.len().max(s.task_lengths.len()), 0);
        for (a, b) in lengths.iter_mut().zip(&s.task_lengths) {
            *a += b;
        }
    }
    let ticks_per_ns =
        stats.iter().map(|s| s.profile.mean_task_cycles.zip(s.profile.mean_task_ns)).find_map(|x| x.map(|(c, n)| c / n)).unwrap_or(0.0);
    let mut per_run: Vec<u64> = stats.iter().map(|s| s.tasks_run).collect();
    per_run.sort_unstable();
    Some(TaskProfile { tasks: per_run[per_run.len() / 2], ..TaskProfile::of(tasks, stolen, task_ns, &lengths, ticks_per_ns) })
}

/// Bucket shares of the summed worker time of all runs (long runs weigh more,
/// as they would in one long execution).
fn breakdown(runs: &[&RunRecord]) -> Option<Buckets<f64>> {
    let mut sums: Vec<u64> = Vec::new();
    for s in runs.iter().filter_map(|r| r.stats.as_ref()) {
        sums.resize(s.time_ns.0.len(), 0);
        for (acc, v) in sums.iter_mut().zip(&s.time_ns.0) {
            *acc += v;
        }
    }
    let total: u64 = sums.iter().sum();
    (total > 0).then(|| Buckets(sums.iter().map(|&v| v as f64 / total as f64).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(runtime: &str, rank: usize, threads: usize, time_ns: u64) -> RunRecord {
        RunRecord {
            workload: "sum".into(),
            size: "test".into(),
            input: String::new(),
            runtime: runtime.into(),
            config: runtime.into(),
            policy: None,
            threads,
            rep: 0,
            time_ns,
            check: "ok".into(),
            stats: None,
            rank,
        }
    }

    #[test]
    fn task_profiles_pool_the_runs() {
        use finegrain::stats::lengths::bucket_of;
        let mut runs = Vec::new();
        for (tasks, stolen, task_ns, len) in [(100, 10, 100_000, 2_000u64), (300, 20, 200_000, 2_000), (200, 0, 300_000, 50_000)] {
            let mut hist = vec![0; finegrain::stats::lengths::BUCKETS];
            hist[bucket_of(len)] = 10;
            let mut stats = finegrain::Stats::default();
            let mut w =
                finegrain::WorkerStats { tasks_run: tasks, tasks_stolen: stolen, task_lengths: hist, ticks_per_ns: 2.0, ..Default::default() };
            w.time_ns[finegrain::Bucket::Task as usize] = task_ns;
            stats.workers.push(w);
            runs.push(RunRecord { stats: Some(super::super::record::RunStats::from_stats(&stats)), ..rec("finegrain", 1, 2, 1000) });
        }
        let p = summarize(&runs)[0].tasks.unwrap();
        assert_eq!(p.tasks, 200, "the median run's count");
        assert_eq!(p.mean_task_ns, Some(1000.0), "600 us over 600 tasks");
        assert_eq!(p.mean_task_cycles, Some(2000.0));
        assert_eq!(p.stolen_share, Some(30.0 / 600.0));
        assert_eq!(p.task_samples, 30);
        let m = p.median_task_cycles.unwrap();
        assert!((m - 2000.0).abs() < 250.0, "20 of 30 samples are 2,000 ticks: {m}");
        assert!((p.median_task_ns.unwrap() - m / 2.0).abs() < 1e-9);
    }

    #[test]
    fn peers_are_measured_against_their_own_serial_program() {
        let rows = summarize(&[
            rec("serial", 0, 1, 1000),
            rec("finegrain", 1, 2, 500),
            rec("tbb-serial", 3, 1, 700),
            rec("tbb", 4, 2, 350),
            rec("omp", 6, 2, 250),
        ]);
        let speed = |rt: &str| rows.iter().find(|r| r.runtime == rt).map(|r| (r.speedup.unwrap(), r.speedup_over.clone())).unwrap();
        assert_eq!(speed("finegrain"), (2.0, "serial".to_string()));
        assert_eq!(speed("tbb"), (2.0, "tbb-serial".to_string()), "700 / 350, not 1000 / 350");
        assert_eq!(speed("omp"), (4.0, "serial".to_string()), "no omp-serial row: the Rust serial, and said so");
        assert_eq!(speed("tbb-serial").1, "serial");
    }
}
