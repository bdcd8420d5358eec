//! # finegrain
//!
//! A runtime for fine-grain task parallelism — tasks of a few hundred to a few
//! thousand instructions — in which the scheduler is a policy chosen at run time.
//!
//! One task API:
//! - fork-join: [`join`], [`scope`];
//! - loops with lazy range splitting and reductions: [`for_each`],
//!   [`for_each_chunk`], [`reduce`], [`for_each_2d`], [`for_each_3d`];
//! - dynamic task phases with small `Copy` task descriptors: [`phase`];
//! - dataflow graphs: [`Graph`].
//!
//! Scheduling policies plug in behind one seam ([`policy`]) and are picked by a
//! spec string: `Pool::builder().policy("ws:victim=nearest,steal=half")`. See
//! [`policies`] for the list, with options and defaults.
//!
//! ```
//! let pool = finegrain::Pool::builder().threads(2).policy("ws").build().unwrap();
//! let total = pool.install(|| finegrain::reduce(0..1000, || 0u64, |i| i as u64, |a, b| a + b));
//! assert_eq!(total, 499_500);
//! println!("{}", pool.stats());
//! ```
//!
//! Code outside any pool uses a global pool, sized by `FINEGRAIN_THREADS` (else
//! the CPUs this process may use) and running `FINEGRAIN_POLICY` (else `ws`).

#![warn(missing_debug_implementations, rust_2018_idioms)]
#![deny(unsafe_op_in_unsafe_fn)]

mod sync;

pub(crate) mod gate;

#[cfg(all(test, loom))]
mod loom_model;

pub(crate) mod deque;
pub(crate) mod latch;
pub mod mailbox;
pub(crate) mod sleep;

#[cfg(not(loom))]
mod affinity;
#[cfg(not(loom))]
mod block_cache;
#[cfg(not(loom))]
mod central;
#[cfg(not(loom))]
mod error;
#[cfg(not(loom))]
mod graph;
#[cfg(not(loom))]
mod job;
#[cfg(not(loom))]
mod join;
#[cfg(not(loom))]
mod loops;
#[cfg(not(loom))]
mod manager_thread;
#[cfg(not(loom))]
mod marks;
#[cfg(not(loom))]
mod owed;
#[cfg(not(loom))]
mod panic_slot;
#[cfg(not(loom))]
mod phase;
#[cfg(not(loom))]
pub mod policy;
#[cfg(not(loom))]
mod pool;
#[cfg(not(loom))]
mod priority;
#[cfg(not(loom))]
mod private_queue;
#[cfg(not(loom))]
mod reduce;
#[cfg(not(loom))]
mod registry;
#[cfg(not(loom))]
pub mod rng;
#[cfg(not(loom))]
mod scope;
#[cfg(not(loom))]
pub mod stats;
#[cfg(not(loom))]
mod timer;
#[cfg(not(loom))]
pub mod topology;
#[cfg(not(loom))]
mod trace;
#[cfg(not(loom))]
mod worker;
#[cfg(not(loom))]
mod worker_adm;

#[cfg(not(loom))]
pub use crate::{
    error::Error,
    graph::{Graph, GraphCtx, NodeId},
    join::join,
    loops::{fold_chunks, for_each, for_each_2d, for_each_3d, for_each_chunk, reduce},
    phase::{phase, phase_reduce, phase_reduce_with, PhaseCtx, MAX_TASK_BYTES},
    policy::{policies, OptionInfo, Policy, PolicyInfo},
    pool::{current_num_threads, current_worker_index, global, Builder, Pool, DEFAULT_STACK_SIZE},
    priority::with_priority,
    reduce::{ReduceMethod, Word},
    scope::{scope, Scope},
    stats::{Bucket, Stats, WorkerStats},
    trace::{Span, Trace},
};
