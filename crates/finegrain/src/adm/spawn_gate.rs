//! The spawn gate: the one cache line a `join` reads under the message-based
//! policies.
//!
//! A `join` on a private-queue worker (Sanchez, Yoo, Kozyrakis, ASPLOS 2010, section 4.1: pending work stays
//! thread-local, so offering it is a plain store) marks its job in the
//! worker's frame marks (`frame_marks.rs`), at a word found from the job's own
//! address: the job lies `d = stack_hi - &job` bytes below the top of the
//! worker's stack and its mark is `d` bytes below `marks_end`. The gate holds those two
//! words and the limit beside them, and the thread-local that names the
//! current worker points straight at the gate, so the check is one load of the
//! thread-local, loads at fixed offsets and one compare:
//!
//! ```text
//! g = CURRENT.gate;  d = g.stack_hi - &job;
//! if d < g.limit { *(g.marks_end - d) = entry_of(job) } else { slow }
//! ```
//!
//! The limit is a depth. The owner sets it to the depth at which it wants to
//! count its pending work again (to send the next `UPDATE`), never above the
//! end of the mark region; a sender drops it to zero after delivering a
//! message, so the same compare also notices mail (`Mailbox::send`, and
//! `AdmWorker::refresh_limit` for the ordering). A job on another stack
//! gives a depth beyond the limit (it wraps if the job lies above the stack),
//! so it takes the slow path, which queues it instead. Everything that is not
//! a private-queue worker (a thread outside any pool, a work-stealing or
//! central-unit worker) has a gate whose limit stays zero, so its joins take
//! the slow path, which dispatches on the mechanism. That is why the fast path
//! needs no separate test of the policy.
//!
//! `top` is the private queue's top (`private_queue.rs`): the queue holds the
//! tasks that are not `join` continuations on this stack (scope, phase and
//! graph tasks, tasks received from other workers, and the rare join that
//! cannot use a mark).
//!
//! Only the owner writes `top`, `stack_hi`, `marks_end` and `joins`; other threads
//! only ever store zero to `limit`. The line is read by the owner at every
//! `join` and written by a sender once per message.

#[cfg(all(feature = "stats", not(loom)))]
use crate::stats::Countdown;
use crate::sync::{AtomicBool, AtomicUsize};
use std::cell::Cell;

/// See the module documentation.
#[repr(C)]
pub(crate) struct Gate {
    /// Owner only: the next free slot of the private queue (a `*mut Slot` of
    /// `private_queue.rs`, typed loosely here so that the mailbox, which holds
    /// the gate and is also built for the loom models, does not depend on
    /// jobs).
    pub(crate) top: Cell<*mut ()>,
    /// A `join` whose job is this deep or deeper takes the slow path.
    pub(crate) limit: AtomicUsize,
    /// Mail is waiting (`Mailbox::has_mail`): set by every sender, cleared by
    /// the owner when it drains. On this line, beside the limit a sender
    /// zeroes anyway, so that a send takes one line from the owner, not two.
    pub(crate) signal: AtomicBool,
    /// Owner only: depth 0 of the worker's stack (`FrameMarks::stack_hi`).
    pub(crate) stack_hi: Cell<usize>,
    /// Owner only: the end of the worker's mark region: the mark of a job
    /// `d` bytes deep is `d` bytes below this (`frame_marks.rs`).
    pub(crate) marks_end: Cell<*const ()>,
    /// Owner only: joins that marked or queued their job. Counting here,
    /// on the line the spawn writes anyway, and deriving the inline runs from
    /// it (`HotCounters::publish`) makes the statistics cost one
    /// decrement and test per join: a countdown whose zero picks the joins
    /// to time (`stats/mod.rs`, `join.rs`'s `join_marked_sampled`).
    #[cfg(all(feature = "stats", not(loom)))]
    pub(crate) joins: Countdown,
}

impl Gate {
    pub(crate) fn new() -> Gate {
        Gate {
            top: Cell::new(std::ptr::null_mut()),
            limit: AtomicUsize::new(0),
            signal: AtomicBool::new(false),
            stack_hi: Cell::new(0),
            marks_end: Cell::new(std::ptr::null()),
            #[cfg(all(feature = "stats", not(loom)))]
            joins: Countdown::new(0, crate::stats::SAMPLE_PERIOD),
        }
    }

    /// Count a join that pushed onto the private queue, unsampled (no-op
    /// without `stats`).
    #[inline(always)]
    pub(crate) fn count_join(&self) {
        #[cfg(all(feature = "stats", not(loom)))]
        self.joins.add(1);
    }

    /// Joins counted so far (0 without `stats`).
    pub(crate) fn joins(&self) -> u64 {
        #[cfg(all(feature = "stats", not(loom)))]
        return self.joins.count();
        #[cfg(not(all(feature = "stats", not(loom))))]
        0
    }
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate").field("top", &self.top.get()).finish_non_exhaustive()
    }
}
