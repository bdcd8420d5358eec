//! The simulations a claims table needs, named by what they simulate, and
//! run as one sweep on a finegrain pool.
//!
//! Every claim names its runs as [`Run`] keys; the harness collects the
//! distinct keys, loads each workload's trace once, and simulates all of that
//! workload's runs as independent tasks of one pool (`sweep.rs`). Each
//! simulation stays single-threaded and deterministic; results are stored by
//! the run's place in the list, so the output does not depend on which
//! worker ran what or in what order.

use finegrain::policy::locality::steal::Stealing;
use finegrain::taskgraph::TaskGraph;
use finegrain_sim::engine::{simulate, Delivery, Locality, SimConfig, SimPolicy, SimResult, SpaceManager};
use finegrain_sim::machine::preset;
use std::collections::BTreeMap;

/// How ADM's messages are delivered in one experiment.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Variant {
    /// As the paper describes ADM: messages by interrupt.
    Paper,
    /// ULI: interrupts whose payload goes through the caches (ASPLOS 2010,
    /// section 6.3).
    Uli,
}

/// One feature of the machine model switched off, for an experiment that
/// needs it (ASPLOS 2010, section 6.2's ideal network) or to isolate why a
/// claim does not hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Switch {
    None,
    /// Messages and coherence traffic cross the network in zero cycles.
    IdealNetwork,
    /// Every memory access costs an L1 hit: no misses, no coherence.
    PerfectMemory,
    /// Carbon's global task unit at 280 cycles a request instead of 8
    /// (ISCA 2007, section 6.2).
    SlowGtu,
}

impl Switch {
    pub const ISOLATING: [Switch; 2] = [Switch::IdealNetwork, Switch::PerfectMemory];
    pub fn name(self) -> &'static str {
        match self {
            Switch::None => "none",
            Switch::IdealNetwork => "ideal network",
            Switch::PerfectMemory => "perfect memory",
            Switch::SlowGtu => "GTU at 280 cycles",
        }
    }
}

/// How a run schedules the trace's task spaces (a MapReduce map phase).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Spaces {
    /// Each space by its recorded hint (locality groups for a map phase),
    /// thieves trying their own chip's threads first (Yoo's thesis §3.2.1:
    /// the local group's queue, then remote ones).
    Hint,
    /// Phoenix without locality groups: one contiguous piece per thread,
    /// thieves trying victims from a random start.
    Baseline,
}

/// One simulation: a workload's trace on a preset under a policy spec.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Run {
    pub workload: &'static str,
    pub preset: &'static str,
    pub policy: String,
    pub threads: usize,
    pub variant: Variant,
    pub switch: Switch,
    pub spaces: Spaces,
}

impl Run {
    pub fn new(workload: &'static str, preset: &'static str, policy: &str, threads: usize) -> Run {
        Run { workload, preset, policy: policy.to_string(), threads, variant: Variant::Paper, switch: Switch::None, spaces: Spaces::Hint }
    }

    /// The run with its task spaces under the baseline manager.
    pub fn baseline_spaces(mut self) -> Run {
        self.spaces = Spaces::Baseline;
        self
    }

    pub fn uli(mut self) -> Run {
        self.variant = Variant::Uli;
        self
    }

    pub fn switched(mut self, s: Switch) -> Run {
        self.switch = s;
        self
    }

    pub fn label(&self) -> String {
        let v = if self.variant == Variant::Uli { ", ULI" } else { "" };
        let s = if self.switch == Switch::None { String::new() } else { format!(", {}", self.switch.name()) };
        let sp = if self.spaces == Spaces::Baseline { ", spaces by the baseline" } else { "" };
        format!("{} on {} under {} at {} threads{v}{s}{sp}", self.workload, self.preset, self.policy, self.threads)
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
            Variant::Paper => Delivery::Interrupt,
        };
        cfg.model.ideal_network = self.switch == Switch::IdealNetwork;
        cfg.model.perfect_memory = self.switch == Switch::PerfectMemory;
        cfg.model.gtu_access_cycles = (self.switch == Switch::SlowGtu).then_some(280);
        cfg.locality = match self.spaces {
            Spaces::Hint => Locality { manager: SpaceManager::Hint, stealing: Stealing::Nearest, ..Locality::default() },
            Spaces::Baseline => Locality { manager: SpaceManager::Baseline, stealing: Stealing::Baseline, ..Locality::default() },
        };
        Ok(cfg)
    }
}

/// What each run gave: its result, or why it could not be simulated.
pub type Results = BTreeMap<Run, Result<SimResult, String>>;

/// Simulate one run of trace `g` (`sweep.rs` runs them as tasks of a pool).
pub fn simulate_run(g: &TaskGraph, run: &Run, seed: u64) -> Result<SimResult, String> {
    run.config(seed).and_then(|cfg| simulate(g, &cfg).map_err(|e| e.to_string()))
}
