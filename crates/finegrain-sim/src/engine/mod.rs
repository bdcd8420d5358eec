//! The event loop and the scheduling mechanisms.
//!
//! A simulation replays one [`TaskGraph`](finegrain::taskgraph::TaskGraph) on one machine preset with one
//! policy. Every hardware thread is a worker with a stack of frames, as in
//! the runtime: a task runs its steps in order, a `join`'s wait or a loop's
//! end blocks its frame, and a blocked worker looks for other work and runs
//! it on top (`run.rs`). Workers take turns in simulated time through one
//! event queue ordered by `(time, sequence)`, so a run is deterministic.
//!
//! The layers, bottom up, each importing only those below it:
//!
//! - `config.rs`: the set-up ([`SimConfig`], [`SimPolicy`], [`Delivery`],
//!   task-space options);
//! - `context.rs`: what a mechanism sees (graph, machine, clock and event
//!   queue, workers, counts; `charge`, `wake`, `sched_access`, ...);
//! - `mechanism.rs`: the `SimMechanism` trait, one call per scheduler
//!   operation (push, find, split, sleep, mail);
//! - `mech/`: one file per mechanism implementing it;
//! - `space.rs`: recorded task spaces, a layer the loop consults before the
//!   mechanism;
//! - `run.rs`: the event loop, generic over the mechanism and matched once
//!   per simulation in [`simulate`].
//!
//! The mechanisms (`mech/ws.rs`, `adm.rs`, `unit.rs`, `fixed.rs`) model what the
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

mod config;
mod context;
pub mod costs;
mod item;
mod mech;
mod mechanism;
mod premature;
mod reduction;
pub mod result;
mod run;
pub mod space;

pub use config::{Delivery, ModelSwitches, SimConfig, SimPolicy, IDEAL_NETWORK_CYCLES};
pub use result::{Bucket, MessageKind, Op, OpCost, SimResult};
pub use run::simulate;
pub use space::{Locality, SpaceManager};

#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod reduction_tests;
#[cfg(test)]
mod space_tests;
#[cfg(test)]
mod tests;
