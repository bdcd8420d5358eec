//! The seam between the event loop and a scheduling mechanism.
//!
//! The loop (`run.rs`) runs the task graph: frames, steps, latches, loops,
//! the cache model of a task's footprint. Whenever it needs the scheduler it
//! asks the mechanism through [`SimMechanism`], one call per operation, as
//! the runtime's `run_loop<M: Mechanism>` asks its mechanism: make work
//! ready (`push`), find work for an idle worker (`find`), whether a running
//! loop piece should split (`wants_split`), what happens when a worker goes
//! to sleep (`on_sleep`), and, for message-based mechanisms, mail
//! (`poll_mail`, `deliver`). The loop is generic over the mechanism
//! (`run_with::<M>`), so every call is a direct, inlinable call.
//!
//! A mechanism is one file under `mech/`; it sees the simulation only
//! through the [`Ctx`] it is lent, and imports this trait and the context,
//! never the loop. Adding a policy is: a file under `mech/` implementing
//! this trait (its decisions as calls into `finegrain::policy`), and one
//! arm in `run::simulate`.

use super::context::Ctx;
use super::item::{Frame, Item};
use super::result::Bucket;
use finegrain::policy::pdf::SerialPath;

/// What one search for work gave.
pub(crate) enum Found {
    /// An item to run, the cycles it took to get, and where they go.
    Got(Item, u64, Bucket),
    /// Nothing yet: try again after this many cycles (a failed attempt or a
    /// backoff).
    Retry(u64, Bucket),
    /// Nothing: after this many cycles of looking (charged to `steal_fail`),
    /// sleep until woken (by new work, a message, or the latch the worker's
    /// frame waits for); the sleep counts in the bucket given.
    Sleep(u64, Bucket),
}

/// A scheduling mechanism as the event loop drives it (see the module note).
pub(crate) trait SimMechanism {
    /// Make `item` ready on worker `w` at `t`; returns the cycles `w` spends
    /// (the loop charges them to `enqueue`).
    fn push(&mut self, cx: &mut Ctx<'_>, w: usize, item: Item, t: u64) -> u64;

    /// Look for work for idle worker `w` at `t` (after the task spaces found
    /// none).
    fn find(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> Found;

    /// Whether `w`, running a loop piece of two leaves or more, splits it now
    /// (offering the upper half through `push`).
    fn wants_split(&mut self, cx: &mut Ctx<'_>, w: usize) -> bool;

    /// `w` has just taken the next leaf of the loop piece it runs (the
    /// piece's `next` already counts it); returns the cycles spent (ADM
    /// reports a range's leaves under `loops=range`).
    fn at_leaf(&mut self, _cx: &mut Ctx<'_>, _w: usize, _t: u64) -> u64 {
        0
    }

    /// Whether the mechanism orders tasks by their serial position
    /// (`SerialPath`, `pdf`); if not, the loop leaves every path empty.
    fn serial_paths(&self) -> bool {
        false
    }

    /// Messages by kind, for a mechanism that sends them (ADM).
    fn message_kinds(&self) -> Vec<super::result::MessageKind> {
        Vec::new()
    }

    /// `w` went to sleep at `at` (the loop has marked it asleep).
    fn on_sleep(&mut self, _cx: &mut Ctx<'_>, _w: usize, _at: u64) {}

    /// At the start of `w`'s turn: handle mail waiting for it; returns the
    /// cycles spent.
    fn poll_mail(&mut self, _cx: &mut Ctx<'_>, _w: usize, _t: u64) -> u64 {
        0
    }

    /// A message (queued by the mechanism with `Ctx::schedule_msg`) arrives.
    fn deliver(&mut self, _cx: &mut Ctx<'_>, _slot: u32, _at: u64) {}

    /// Cycles from a software wake-up (new work in a queue, a task space
    /// opening) to a sleeping worker of this mechanism running again. By
    /// default a parked thread's: the preset's `wake_cycles`. A mechanism
    /// whose idle workers wait in hardware says what its paper says (the
    /// table in `docs/simulation.md`, "Wake-up").
    fn wake_cycles(&self, cx: &Ctx<'_>) -> u64 {
        cx.cfg.preset.wake_cycles
    }

    /// Cycles from the end of the last task of a join or loop on `from` to its
    /// waiter `to` resuming: by default the latch word's trip across the
    /// network.
    fn latch_latency(&self, cx: &mut Ctx<'_>, from: usize, to: usize) -> u64 {
        cx.m.msg_latency(from, to) as u64
    }

    /// Piggybacked reductions (`reduction::How::Piggyback`, asked only of a
    /// mechanism with managers): reduction loop `lp` of `leaves` leaves
    /// begins (its caller's tokens: that many tasks, armed).
    fn arm_tokens(&mut self, _lp: u32, _leaves: u32) {}

    /// A leaf of piggybacked reduction loop `lp` ended, not its last: its
    /// token rides on the reports its worker sends anyway.
    fn leaf_token(&mut self, _lp: u32) {}

    /// The last leaf of piggybacked reduction loop `lp` ended on `from` at
    /// `t`: cycles until its waiter `to` holds the value. By default (a
    /// mechanism without managers) the shared-memory tree.
    fn piggyback_end(&mut self, cx: &mut Ctx<'_>, _lp: u32, from: usize, to: usize, t: u64) -> u64 {
        super::reduction::tree(cx, from, to, t)
    }

    /// Begin loop `id` of `leaves` leaves on `w` at `t`: by default the whole
    /// range as one piece on its stack; returns the cycles `w` spends.
    fn start_loop(&mut self, cx: &mut Ctx<'_>, w: usize, id: u32, leaves: u32, path: SerialPath, t: u64) -> u64 {
        let _ = t;
        cx.w[w].stack.push(Frame::Piece { lp: id, next: 0, hi: leaves, path });
        0
    }
}
