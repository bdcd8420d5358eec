//! # finegrain-sim
//!
//! A deterministic discrete-event simulator of many-core chips that replays a
//! [`finegrain::taskgraph::TaskGraph`] (recorded from a real workload by
//! `finegrain record`, or made by a generator in [`trace::synth`]) under one of
//! finegrain's scheduling policies. The scheduling *decisions* (victim, amount,
//! order, manager pairing, prefetch refusal, split) are calls into
//! `finegrain::policy`, the same functions the runtime calls; the simulator
//! models only the *mechanisms* (queues, messages, the task unit) and the
//! machine (cores, caches, network, memory).
//!
//! - [`trace`]: the trace file format and the synthetic generators;
//! - [`machine`]: machine presets, caches with a directory, the network,
//!   contended servers;
//! - [`engine`]: the event loop and the scheduling mechanisms.

#![warn(missing_debug_implementations, rust_2018_idioms)]

pub mod engine;
pub mod error;
pub mod machine;
pub mod reference;
pub mod trace;

pub use error::SimError;
