//! A simulation's set-up: the policy, how ADM's messages are delivered, the
//! machine preset and thread count, the seed and the task-space options.
//! Every mechanism reads it; it names no mechanism.

use crate::machine::Preset;
use crate::SimError;
use finegrain::policy::locality::steal::Stealing;
use finegrain::policy::locality::Plan;
use finegrain::Policy;
use std::collections::HashMap;

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
    /// A task queue with zero cost and perfect knowledge, the upper bound
    /// (Kumar, Hughes, Nguyen, ISCA 2007, section 6.1; `mech/ideal.rs`,
    /// decisions in `finegrain::policy::ideal`). Simulator only.
    Ideal,
}

impl SimPolicy {
    /// A runtime policy spec, `static`, or `ideal`.
    pub fn parse(spec: &str) -> Result<SimPolicy, SimError> {
        if spec.trim() == "ideal" {
            return Ok(SimPolicy::Ideal);
        }
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
            SimPolicy::Ideal => "ideal".into(),
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
    /// Model features switched off, for experiments and for isolating what
    /// a result depends on.
    pub model: ModelSwitches,
}

/// Features of the machine model that an experiment may switch off.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelSwitches {
    /// The scheduler's own traffic (ADM's messages, requests to Carbon's
    /// task unit, wake-up signals) crosses an idealized interconnect: a
    /// fixed latency between any two points and infinite bandwidth, and
    /// Carbon's global task unit serves any number of requests at once.
    /// Coherence traffic still uses the modelled network. This is Sanchez,
    /// Yoo, Kozyrakis (ASPLOS 2010), section 6.2, Figure 8.
    pub ideal_network: bool,
    /// Every memory access, data or scheduler line, costs an L1 hit: no
    /// misses, no coherence, no memory contention.
    pub perfect_memory: bool,
    /// Carbon's global task unit takes this many cycles per request instead
    /// of its 8 (`costs::CARBON_GTU_ACCESS`): Kumar, Hughes, Nguyen (ISCA
    /// 2007), section 6.2, Figure 6(b), raise it to 280, a memory access.
    pub gtu_access_cycles: Option<u64>,
}

/// The idealized interconnect's fixed latency (ASPLOS 2010, section 6.2:
/// 25 cycles between any source and destination).
pub const IDEAL_NETWORK_CYCLES: u32 = 25;

impl SimConfig {
    pub fn new(preset: &'static Preset, threads: usize, policy: SimPolicy) -> SimConfig {
        SimConfig { preset, threads, policy, seed: 1, delivery: Delivery::Interrupt, locality: Locality::default(), model: ModelSwitches::default() }
    }
}

/// Which manager plans the recorded spaces.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum SpaceManager {
    /// The manager of each space's recorded hint (a space recorded with an
    /// offline plan runs the baseline).
    #[default]
    Hint,
    /// The thesis's baseline: one contiguous chunk per thread (§5.4.1).
    Baseline,
    /// A random partition in random order (§4.4.1), seeded by the run's seed.
    Random,
    /// A plan per space index (for the simulated thread count); spaces
    /// without one use their hint's manager.
    Plans(HashMap<usize, Plan>),
}

impl SpaceManager {
    /// `hint`, `baseline` or `random`.
    pub fn parse(s: &str) -> Result<SpaceManager, SimError> {
        match s {
            "hint" => Ok(SpaceManager::Hint),
            "baseline" => Ok(SpaceManager::Baseline),
            "random" => Ok(SpaceManager::Random),
            _ => Err(SimError::Policy(format!("unknown task space manager {s:?} (hint, baseline, random)"))),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            SpaceManager::Hint => "hint",
            SpaceManager::Baseline => "baseline",
            SpaceManager::Random => "random",
            SpaceManager::Plans(_) => "plans",
        }
    }
}

/// How recorded task spaces are planned and stolen from.
#[derive(Clone, Debug, PartialEq)]
pub struct Locality {
    pub manager: SpaceManager,
    pub stealing: Stealing,
    /// Threads (the last ones) that never take from a space.
    pub offline: usize,
    /// Keep, per thread, the space tasks it started, in order
    /// ([`super::SimResult::space_starts`]).
    pub log_starts: bool,
}

impl Default for Locality {
    fn default() -> Locality {
        Locality { manager: SpaceManager::Hint, stealing: Stealing::Baseline, offline: 0, log_starts: false }
    }
}
