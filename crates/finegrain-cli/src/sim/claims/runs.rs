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

/// Simulate `runs` of one trace as tasks of the pool this is called in;
/// results in `runs`' order (`super::super::parallel`).
pub fn sweep(g: &TaskGraph, runs: &[Run], seed: u64, done: &(dyn Fn(&Run) + Sync)) -> Vec<Result<SimResult, String>> {
    super::super::parallel::map_ordered(
        runs,
        |r| r.threads,
        |run| run.config(seed).and_then(|cfg| simulate(g, &cfg).map_err(|e| e.to_string())),
        done,
    )
}
