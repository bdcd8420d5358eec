//! Work stealing: the mechanism of `ws` (Sanchez, Yoo, Kozyrakis, "Flexible
//! Architectural Support for Fine-Grain Scheduling", ASPLOS 2010, section
//! 4.1, their software baseline).
//!
//! Every worker owns a Chase-Lev deque (`deque/`, with its design note and
//! loom models): the owner pushes and pops at the bottom without a lock,
//! thieves take from the top. A thief asks `policy::victim` whom to try and
//! `policy::StealAmount` how many tasks to take; it keeps the first and puts
//! the rest on its own deque.

pub(crate) mod deque;
#[cfg(not(loom))]
mod stealing;

#[cfg(not(loom))]
pub(crate) use stealing::{Shared, WsWorker};
