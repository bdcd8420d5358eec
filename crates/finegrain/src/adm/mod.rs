//! Private queues and messages: the mechanism of `adm-central` and
//! `adm-hier` (Sanchez, Yoo, Kozyrakis, "Flexible Architectural Support for
//! Fine-Grain Scheduling", ASPLOS 2010, section 4.1), carrying the decisions
//! of `policy/adm/` out through mailboxes. The numbered protocol is in
//! `README.md` next to this file.
//!
//! | file | what |
//! |---|---|
//! | `messaging.rs` | one worker's side: queue, marks, mail, reports, hosted managers |
//! | `spawn_gate.rs` | the one cache line a `join` reads: stack top, mark region end, limit |
//! | `frame_marks.rs` | pending `join` continuations, found by their stack depth |
//! | `private_queue.rs` | the owner-only queue of every other task |
//! | `mailbox/` | per-worker mailboxes of short messages (design note, loom models) |
//! | `interrupt.rs`, `deferral.rs` | `notify=interrupt`: rescue requests, the signal handler, deferral sections |
//! | `victim.rs`, `loop_ranges.rs` | a victim's answer to `STEAL`, and `loops=range`: loops counted by chunks, cut when a steal asks |
//! | `tokens.rs` | termination and reduction tokens of phases (design note, proof) |
//! | `shared.rs` | the pool's mailboxes and how a message reaches its receiver |
//! | `manager_thread.rs`, `dedicated.rs` | `manager=dedicated`: every manager on one extra thread, and its mailbox |
//!
//! A worker receives at its scheduling points: when a spawn finds mail waiting
//! (one relaxed load per spawn), before and after each task it takes from its
//! queue, and in its idle loop. The manager role is a set of [`ManagerNode`]s
//! hosted by particular workers (level-0 manager of a group: its first worker)
//! and handled at the same points, like the paper's workers that switch to the
//! manager role when a message arrives.
//!
//! Delay bound: a steal request waits at most until the victim's next
//! scheduling point. Every `join`, `spawn`, phase `enqueue` and graph node is
//! one, and loops check their mailbox before every chunk (and split the range
//! to answer a request), so the delay is bounded by the longest stretch of user
//! code without a spawn or a loop chunk. A task that is long *and* opaque
//! delays requests to its own worker only; tasks it has not spawned yet cannot
//! be stolen anyway.

#[cfg(not(loom))]
mod dedicated;
pub(crate) mod deferral;
#[cfg(all(test, loom))]
mod deferral_loom;
#[cfg(not(loom))]
pub(crate) mod frame_marks;
#[cfg(not(loom))]
pub(crate) mod interrupt;
pub mod mailbox;
#[cfg(not(loom))]
pub(crate) mod manager_thread;
#[cfg(not(loom))]
pub(crate) mod private_queue;
#[cfg(not(loom))]
mod shared;
pub(crate) mod spawn_gate;
#[cfg(not(loom))]
pub(crate) mod tokens;

#[cfg(not(loom))]
pub(crate) use messaging::AdmWorker;
#[cfg(not(loom))]
pub(crate) use shared::Shared;

#[cfg(not(loom))]
mod hosted_managers;
#[cfg(not(loom))]
mod loop_ranges;
#[cfg(not(loom))]
mod messaging;
#[cfg(not(loom))]
mod reports;
#[cfg(not(loom))]
mod rescue;
#[cfg(not(loom))]
mod victim;
