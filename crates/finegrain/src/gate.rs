//! The spawn gate: the one cache line a spawn reads under the message-based
//! policies.
//!
//! A spawn on a private queue (000 section 4.1: the queue stays thread-local, so
//! pushing is a plain store) needs two words: where the next task goes (the
//! queue's top) and how far it may go before something else must happen (the
//! limit). Both live here, side by side, and the thread-local that names the
//! current worker points straight at this struct, so the check is one load of
//! the thread-local, two loads at fixed offsets, one compare:
//!
//! ```text
//! g = CURRENT.gate;  if g.top < g.limit { *g.top = job; g.top += 1 } else { slow }
//! ```
//!
//! The limit is the address the top may not reach. The owner sets it to the
//! address at which its next `UPDATE` is due (or the end of its buffer); a
//! sender drops it to zero after delivering a message, so the same compare
//! also notices mail (`Mailbox::send`, and `WorkerThread::refresh_limit` for
//! the ordering). Everything that is not a private-queue worker — a thread
//! outside any pool, a work-stealing or central-unit worker — has a gate whose
//! limit stays zero, so its spawns take the slow path, which dispatches on the
//! mechanism. That is why the fast path needs no separate test of the policy.
//!
//! Only the owner writes `top` and `joins`; other threads only ever store zero
//! to `limit`. The line is written by the owner at every spawn and by a sender
//! once per message, so sharing it costs a miss per message, not per spawn.

use crate::sync::AtomicUsize;
use std::cell::Cell;

/// See the module documentation.
#[repr(C)]
pub(crate) struct Gate {
    /// Owner only: the next free slot of the private queue (a `*mut Slot` of
    /// `private_queue.rs`, typed loosely here so that the mailbox, which holds
    /// the gate and is also built for the loom models, does not depend on
    /// jobs).
    pub(crate) top: Cell<*mut ()>,
    /// A spawn takes the slow path once `top` reaches this address.
    pub(crate) limit: AtomicUsize,
    /// Owner only: joins that pushed onto the private queue. Counting here,
    /// on the line the spawn writes anyway, and deriving the inline runs from
    /// it (`WorkerThread::flush_counters`) makes the statistics cost one
    /// increment per join.
    #[cfg(feature = "stats")]
    pub(crate) joins: Cell<u64>,
}

impl Gate {
    pub(crate) fn new() -> Gate {
        Gate {
            top: Cell::new(std::ptr::null_mut()),
            limit: AtomicUsize::new(0),
            #[cfg(feature = "stats")]
            joins: Cell::new(0),
        }
    }

    /// Count a join that pushed onto the private queue (no-op without `stats`).
    #[inline(always)]
    pub(crate) fn count_join(&self) {
        #[cfg(feature = "stats")]
        self.joins.set(self.joins.get().wrapping_add(1));
    }

    /// Joins counted so far (0 without `stats`).
    pub(crate) fn joins(&self) -> u64 {
        #[cfg(feature = "stats")]
        return self.joins.get();
        #[cfg(not(feature = "stats"))]
        0
    }
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate").field("top", &self.top.get()).finish_non_exhaustive()
    }
}
