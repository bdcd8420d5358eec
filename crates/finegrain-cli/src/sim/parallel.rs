//! Independent simulations run as tasks of one finegrain pool: the project
//! runs its own sweeps on its own runtime. Each simulation stays
//! single-threaded and deterministic, and results come back in the order
//! the configurations were given, so a sweep's output is the same however
//! many workers ran it.

use finegrain::taskgraph::TaskGraph;
use finegrain_sim::engine::{simulate, SimConfig, SimResult};
use std::sync::Mutex;

/// `--jobs`, by default one per core this process may use.
pub fn jobs(jobs: Option<u16>) -> usize {
    jobs.map(usize::from).unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
}

/// A pool of `jobs` workers (`--jobs`, by default one per core).
pub fn pool(jobs: Option<u16>) -> Result<finegrain::Pool, String> {
    finegrain::Pool::builder().threads(self::jobs(jobs)).build().map_err(|e| format!("cannot start the sweep's pool: {e}"))
}

/// Run `jobs` as tasks of the pool this is called in (`Pool::install`),
/// longest first (by `weight`, e.g. thread count), and return their results
/// in `jobs`' order. `done` is called after each job, from the worker that
/// ran it.
pub fn map_ordered<J: Sync, R: Send>(jobs: &[J], weight: impl Fn(&J) -> usize, run: impl Fn(&J) -> R + Sync, done: &(dyn Fn(&J) + Sync)) -> Vec<R> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weight(&jobs[i])));
    let slots: Vec<Mutex<Option<R>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    finegrain::for_each_chunk(0..order.len(), 1, |r| {
        for k in r {
            let j = &jobs[order[k]];
            let out = run(j);
            *slots[order[k]].lock().expect("a result slot is written once") = Some(out);
            done(j);
        }
    });
    slots.into_iter().map(|s| s.into_inner().expect("a result slot is written once").expect("every job ran")).collect()
}

/// Simulate `g` under every configuration, on the pool this is called in.
pub fn simulate_all(g: &TaskGraph, cfgs: &[SimConfig], done: &(dyn Fn(&SimConfig) + Sync)) -> Vec<Result<SimResult, String>> {
    map_ordered(cfgs, |c| c.threads, |c| simulate(g, c).map_err(|e| e.to_string()), done)
}

/// CPU time this process has used (user and system), in seconds, where the
/// platform says (`/proc/self/stat`); `None` elsewhere.
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let (utime, stime): (f64, f64) = (f.get(11)?.parse().ok()?, f.get(12)?.parse().ok()?);
    // The kernel's USER_HZ is 100 on every Linux configuration in use.
    Some((utime + stime) / 100.0)
}

/// Peak resident memory of this process in MB (`VmHWM`), where known.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
