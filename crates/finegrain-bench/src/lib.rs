//! Cost measurements of finegrain, kept out of the runtime's crate so that its
//! `examples/` show how to use it and its dev-dependencies stay small.
//!
//! - [`kernels`]: the fork-join workloads (fib, a tree sum, a loop sum) written
//!   once in every version measured (serial, finegrain, Rayon, chili, and a
//!   `join` with no runtime), shared by every program below.
//! - `src/bin/`: `overhead` (interleaved timings against serial code, Rayon
//!   and chili), `spawn_cost` (callgrind driver of `scripts/spawn_cost.sh`),
//!   `phase_cost`, `reduce_cost` (with `scripts/reduce_cost.sh`),
//!   `mailbox_cost` (with `scripts/mailbox_cost.sh`), and the quick fib
//!   programs `fibtest` and `fib_policy`.
//! - [`stress`] with `src/bin/stress.rs`: the randomized stress harness of
//!   issue 33 (`scripts/stress.sh`).
//! - `benches/overhead.rs`: the same comparisons under divan.
//!
//! Method and figures: `docs/benchmarks.md`.

pub mod kernels;
pub mod stress;
