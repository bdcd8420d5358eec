//! The simulations a claims table needs, named by what they simulate, and
//! run as one sweep on a finegrain pool.
//!
//! Every claim names its runs as [`Run`] keys; the harness collects the
//! distinct keys, loads each workload's trace once, and simulates all of that
//! workload's runs as independent tasks of one pool (`sweep`). Each
//! simulation stays single-threaded and deterministic; results are stored by
//! the run's place in the list, so the output does not depend on which
//! worker ran what or in what order.

use finegrain::taskgraph::TaskGraph;
use finegrain_sim::engine::{simulate, Delivery, SimConfig, SimPolicy, SimResult};
use finegrain_sim::machine::preset;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// A change to the modelled machine or protocol for one experiment.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Variant {
    /// The preset as the paper describes it, ADM messages by interrupt.
    Paper,
    /// ADM's messages as ULI: interrupts whose payload goes through the
    /// caches (ASPLOS 2010, section 6.3).
    Uli,
    /// A network with no latency and no contention (ASPLOS 2010, section 6.2).
    IdealNetwork,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Paper => "paper",
            Variant::Uli => "uli",
            Variant::IdealNetwork => "ideal-network",
        }
    }
}

/// One simulation: a workload's trace on a preset under a policy spec.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Run {
    pub workload: &'static str,
    pub preset: &'static str,
    pub policy: String,
    pub threads: usize,
    pub variant: Variant,
}

impl Run {
    pub fn new(workload: &'static str, preset: &'static str, policy: &str, threads: usize) -> Run {
        Run { workload, preset, policy: policy.to_string(), threads, variant: Variant::Paper }
    }

    pub fn with(mut self, v: Variant) -> Run {
        self.variant = v;
        self
    }

    pub fn label(&self) -> String {
        let v = if self.variant == Variant::Paper { String::new() } else { format!(", {}", self.variant.name()) };
        format!("{} on {} under {} at {} threads{v}", self.workload, self.preset, self.policy, self.threads)
    }

    /// The simulation's set-up, or why it cannot be simulated.
    pub fn config(&self, seed: u64) -> Result<SimConfig, String> {
        let p = preset(self.preset).map_err(|e| e.to_string())?;
        if self.threads > p.max_threads() {
            return Err(format!("{} threads is more than preset {} has", self.threads, self.preset));
        }
        let policy = SimPolicy::parse(&self.policy).map_err(|e| format!("{}: {e}", self.policy))?;
        let mut cfg = SimConfig::new(p, self.threads, policy);
        cfg.seed = seed;
        cfg.delivery = match self.variant {
            Variant::Uli => Delivery::Uli,
            Variant::Paper | Variant::IdealNetwork => Delivery::Interrupt,
        };
        if self.variant == Variant::IdealNetwork {
            return Err("the ideal network is not modelled yet".into());
        }
        Ok(cfg)
    }
}

/// What each run gave: its result, or why it could not be simulated.
pub type Results = BTreeMap<Run, Result<SimResult, String>>;

/// Simulate `runs` of one trace, each as one task of the pool this is
/// called in. Results come back in `runs`' order, whatever order the
/// workers took them in; the longest simulations (most threads) are started
/// first so that the pool's workers finish together.
pub fn sweep(g: &TaskGraph, runs: &[Run], seed: u64, done: &(dyn Fn(&Run) + Sync)) -> Vec<Result<SimResult, String>> {
    let mut order: Vec<usize> = (0..runs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(runs[i].threads));
    let slots: Vec<Mutex<Option<Result<SimResult, String>>>> = runs.iter().map(|_| Mutex::new(None)).collect();
    finegrain::for_each_chunk(0..order.len(), 1, |r| {
        for k in r {
            let run = &runs[order[k]];
            let out = run.config(seed).and_then(|cfg| simulate(g, &cfg).map_err(|e| e.to_string()));
            *slots[order[k]].lock().expect("a result slot is written once") = Some(out);
            done(run);
        }
    });
    slots.into_iter().map(|s| s.into_inner().expect("a result slot is written once").expect("every run was simulated")).collect()
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
