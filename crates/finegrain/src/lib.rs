//! # finegrain
//!
//! A runtime for fine-grain task parallelism — tasks of a few hundred to a few
//! thousand instructions — in which the scheduler is a policy chosen at run time.
//!
//! One task API:
//! - fork-join: [`join`], [`invoke!`] (three or more closures), [`scope`];
//! - loops with lazy range splitting and reductions: [`for_each`],
//!   [`for_each_chunk`], [`reduce`], [`for_each_2d`], [`for_each_3d`];
//! - dynamic task phases with small `Copy` task descriptors: [`phase`],
//!   [`PhaseTask`];
//! - dataflow graphs: [`Graph`].
//! - parallel iterators with Rayon's names ([`iter`]; `use
//!   finegrain::prelude::*;` where a Rayon program has `use rayon::prelude::*;`).
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
//!
//! ## Features
//!
//! - `runtime` (default): the worker threads and everything that runs tasks.
//!   Without it the crate is its policy layer alone ([`policy`], [`topology`],
//!   [`rng`], [`Error`]): every scheduling decision as plain functions, with no
//!   threads and no atomics, for a simulator to call.
//! - `stats` (default, implies `runtime`): per-worker counters and the time
//!   breakdown. Off, every probe compiles to nothing.
//!
//! ## Where things are
//!
//! The source tree is a map of the runtime (the README's "Layout" has the
//! same): the public API (`join.rs`, `invoke.rs`, `scope.rs`, `loops.rs`, `phase/`,
//! `graph.rs`, `priority.rs`, `pool.rs`), the decisions (`policy/`), the one
//! worker loop (`worker.rs`) behind one seam (`mechanism.rs`), the four
//! mechanisms (`ws/`, `adm/`, `unit/`, `fixed/`), and what they share (`job/`,
//! `latch/`, `sleep/`, `stats/`, `sync.rs`).

#![warn(missing_debug_implementations, rust_2018_idioms)]
// The crate documentation links the runtime's API, which the policy layer
// alone (`--no-default-features`) does not have.
#![cfg_attr(not(feature = "runtime"), allow(rustdoc::broken_intra_doc_links))]
#![deny(unsafe_op_in_unsafe_fn)]

/// Items that exist only with the `runtime` feature (the policy layer builds
/// without it), and not in the loom build, which compiles only the protocols
/// it models.
macro_rules! cfg_runtime {
    ($($item:item)*) => {$(
        #[cfg(all(feature = "runtime", not(loom)))]
        $item
    )*};
}

// The policy layer: always built, no threads, no atomics.
#[cfg(not(loom))]
mod error;
#[cfg(not(loom))]
pub mod policy;
#[cfg(not(loom))]
pub mod rng;
#[cfg(not(loom))]
pub mod taskgraph;
#[cfg(not(loom))]
pub mod topology;
pub mod vocab;

#[cfg(not(loom))]
pub use crate::{
    error::Error,
    policy::{policies, reduce::ReduceMethod, OptionInfo, Policy, PolicyInfo},
};

// The protocols the loom models check, and what they stand on.
#[cfg(any(feature = "runtime", loom))]
pub(crate) mod adm;
#[cfg(any(feature = "runtime", loom))]
pub(crate) mod gtu;
#[cfg(any(feature = "runtime", loom))]
pub(crate) mod latch;
#[cfg(all(test, loom))]
mod loom_model;
#[cfg(any(feature = "runtime", loom))]
pub(crate) mod sleep;
#[cfg(any(feature = "runtime", loom))]
mod sync;
#[cfg(any(feature = "runtime", loom))]
pub(crate) mod ws;

/// The mailboxes of the message policies (public so their cost can be
/// measured on their own and the protocol used directly).
#[cfg(any(feature = "runtime", loom))]
pub use crate::adm::mailbox;

cfg_runtime! {
    mod affinity;
    mod broadcast;
    mod cancel;
    mod hooks;
    mod inbox;
    mod scope_fifo;
    mod spawn;
    mod yielding;
    mod fixed;
    mod graph;
    mod invoke;
    pub mod iter;
    mod job;
    mod join;
    mod loops;
    pub mod mapreduce;
    mod mechanism;
    mod phase;
    mod pool;
    pub mod prelude;
    mod priority;
    pub mod record;
    mod registry;
    mod scope;
    mod space;
    pub mod stats;
    mod task_group;
    mod unit;
    mod worker;
mod worker_trace;

    pub use crate::{
        graph::{Graph, GraphCtx, NodeId},
        invoke::invoke_all,
        join::join,
        loops::{fold_chunks, fold_chunks_with, for_each, for_each_2d, for_each_3d, for_each_chunk, reduce, reduce_with},
        phase::{phase, phase_reduce, phase_reduce_with, PhaseCtx, PhaseTask, MAX_TASK_BYTES},
        phase::reduce::Word,
        pool::{current_num_threads, current_worker_index, global, Builder, Pool, DEFAULT_STACK_SIZE, MAX_THREADS, MIN_STACK_SIZE},
        priority::with_priority,
        scope::{in_place_scope, scope, scope_with_cancel, Scope},
        scope_fifo::{in_place_scope_fifo, scope_fifo, ScopeFifo},
        spawn::{spawn, spawn_fifo},
        broadcast::{broadcast, spawn_broadcast, BroadcastContext},
        cancel::CancelToken,
        hooks::{IntoThreadNames, ThreadNamesArg},
        yielding::{current_thread_index, yield_local, yield_now, Yield},
        space::{Extents, Replay, SpaceRun, TaskSpace},
        stats::{trace::{Span, Trace}, Bucket, Op, OpStats, Stats, WorkerStats},
        task_group::{task_group, TaskGroup},
    };
}
