//! The event loop and the scheduling mechanisms.
//!
//! A simulation replays one [`TaskGraph`](finegrain::taskgraph::TaskGraph) on one machine preset with one
//! policy. Every hardware thread is a worker with a stack of frames, as in
//! the runtime: a task runs its steps in order, a `join`'s wait or a loop's
//! end blocks its frame, and a blocked worker looks for other work and runs
//! it on top (`run.rs`). Workers take turns in simulated time through one
//! event queue ordered by `(time, sequence)`, so a run is deterministic.
//!
//! The mechanisms (`ws.rs`, `adm.rs`, `unit.rs`, `fixed.rs`) model what the
//! runtime's `ws/`, `adm/` and `unit/` folders do, with costs from the
//! machine model: queue words and task slots are cache lines, messages cross
//! the network, the task unit and locks are contended servers. Every
//! *decision* they take is a call into `finegrain::policy`: victim orders
//! ([`finegrain::policy::VictimOrder`]), steal amounts, idle backoff
//! ([`finegrain::policy::Idle`]), loop splitting
//! ([`finegrain::policy::split`]), ADM's managers
//! ([`finegrain::policy::adm::ManagerNode`], `route`, report thresholds),
//! Carbon's thresholds and victims ([`finegrain::policy::carbon::Carbon`]),
//! `sw-hier`'s spill and fetch counts, and the serial order of `pdf`
//! ([`finegrain::policy::pdf::SerialPath`]).
//!
//! ```
//! use finegrain_sim::engine::{simulate, SimConfig, SimPolicy};
//! use finegrain_sim::machine::preset;
//! let g = finegrain_sim::trace::synth::generate("tree:depth=8,leaf=2000", 1).unwrap();
//! let cfg = SimConfig::new(preset("host-2").unwrap(), 2, SimPolicy::parse("ws").unwrap());
//! let r = simulate(&g, &cfg).unwrap();
//! assert!(r.makespan > 0 && r.tasks_run > 256);
//! ```

mod adm;
pub mod costs;
mod fixed;
mod item;
pub mod result;
mod run;
pub mod space;
mod unit;
mod ws;

pub use result::{Bucket, Op, OpCost, SimResult};
pub use run::simulate;
pub use space::{Locality, SpaceManager};

use crate::machine::Preset;
use crate::SimError;
use finegrain::Policy;

/// What schedules the simulated chip.
#[derive(Clone, Debug)]
pub enum SimPolicy {
    /// One of the runtime's policies, by its spec (`ws`, `adm-hier:radix=8`, ...).
    Runtime(Policy),
    /// The static-loop baseline (Cheng et al., ASPLOS 2023, section 6), the
    /// runtime's `static` (`finegrain::policy::fixed`): each loop is cut into
    /// one contiguous piece per worker, the root's spawns are dealt
    /// round-robin, everything else stays where it was made, and nobody
    /// steals.
    Static,
}

impl SimPolicy {
    /// A runtime policy spec, or `static`.
    pub fn parse(spec: &str) -> Result<SimPolicy, SimError> {
        let p = Policy::parse(spec).map_err(|e| SimError::Policy(e.to_string()))?;
        if p.kind == finegrain::policy::PolicyKind::Fixed {
            // The runtime's `static` (`policy::fixed`); its one option, the
            // idle spin, has no effect here: idle workers sleep at once.
            return Ok(SimPolicy::Static);
        }
        if let finegrain::policy::PolicyKind::Adm(a) = p.kind {
            if a.dedicated_manager {
                return Err(SimError::Policy(
                    "manager=dedicated is not modelled: the simulated managers run on their partitions' first workers".into(),
                ));
            }
        }
        Ok(SimPolicy::Runtime(p))
    }

    pub fn name(&self) -> String {
        match self {
            SimPolicy::Runtime(p) => p.canonical(),
            SimPolicy::Static => "static".into(),
        }
    }
}

/// How ADM's messages reach their receiver.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// A user-level interrupt runs the handler on arrival (the paper's ADM).
    Interrupt,
    /// The receiver handles its mail at its next scheduling point (today's
    /// runtime, which has no interrupts).
    Poll,
    /// ULI: interrupts whose payload travels through the caches (ASPLOS 2010,
    /// section 6.3).
    Uli,
}

/// One simulation's set-up.
#[derive(Clone, Debug)]
pub struct SimConfig {
    pub preset: &'static Preset,
    pub threads: usize,
    pub policy: SimPolicy,
    pub seed: u64,
    pub delivery: Delivery,
    /// How recorded task spaces are planned and stolen from (`space.rs`).
    pub locality: Locality,
}

impl SimConfig {
    pub fn new(preset: &'static Preset, threads: usize, policy: SimPolicy) -> SimConfig {
        SimConfig { preset, threads, policy, seed: 1, delivery: Delivery::Interrupt, locality: Locality::default() }
    }
}

#[cfg(test)]
mod space_tests;
#[cfg(test)]
mod tests;
