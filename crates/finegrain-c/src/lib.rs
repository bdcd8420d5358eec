//! The C API of finegrain: `libfinegrain.so` / `libfinegrain.a` (built by
//! the package in `lib/`) and `include/finegrain.h` (generated from these
//! sources by cbindgen; `tests/header.rs` fails when the committed header
//! differs, `FG_BLESS=1` rewrites it). `docs/c-api.md` has the guide.
//!
//! - pools: [`fg_pool_new`], [`fg_pool_destroy`], [`fg_pool_run`],
//!   [`fg_pool_stats`], [`fg_pool_stats_json`];
//! - fork-join: [`fg_invoke`], [`fg_scope_run`] / [`fg_spawn`] /
//!   [`fg_sync`], [`fg_parallel_for`], [`fg_parallel_reduce_u64`];
//! - the papers' interfaces: ADM's phases ([`fg_phase_run`],
//!   [`fg_phase_enqueue`]), Carbon's task queue ([`fg_tq_section`],
//!   [`fg_tq_enqueue`], [`fg_tq_enqueue_loop`], [`fg_tq_setlimit`]), the
//!   thesis's task spaces ([`fg_taskq_enqueue`], [`fg_taskq_wait`] and the
//!   hint setters), and dataflow graphs ([`fg_graph_new`], ...).
//!
//! Every function returns an [`fg_status`] (or a value that cannot fail)
//! and runs behind one boundary (`status.rs`): a panic is caught there, so
//! nothing unwinds into C.

#![allow(non_camel_case_types)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_debug_implementations, rust_2018_idioms)]

mod adm;
mod carbon;
mod fork_join;
mod graph;
mod loops;
mod pool;
mod stats;
mod status;
mod thesis;

pub use crate::{adm::*, carbon::*, fork_join::*, graph::*, loops::*, pool::*, stats::*, status::*, thesis::*};
