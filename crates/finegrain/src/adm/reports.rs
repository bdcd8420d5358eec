//! A worker's reports to its managers (`README.md`, steps 2, 3 and 9):
//! where its managers run, `UPDATE`s of its count, the starving report, the
//! phase tokens that ride on them, and when the next report is due.

use super::mailbox::{Msg, MsgKind};
use super::messaging::AdmWorker;
use super::shared::starving_word;
use super::tokens::{self, ReduceHead};
use crate::mechanism::Handles;
use crate::policy::adm::{decrease_window, next_report_threshold, report_depth, PhaseTokens};
use crate::stats::Counter;

impl AdmWorker {
    /// Where this worker's level-0 manager runs: the group's first worker, or
    /// the manager thread (address `n`).
    pub(super) fn level0_host(&self, h: &Handles) -> usize {
        if self.shared().manager.is_some() {
            self.tree.n
        } else {
            self.tree.host(0, self.tree.partition_of(0, h.index))
        }
    }

    /// Where the root manager runs.
    pub(super) fn root_host(&self) -> usize {
        if self.shared().manager.is_some() {
            self.tree.n
        } else {
            0
        }
    }

    /// `adm_send` to worker `dst`, or to the manager thread (`dst == n`).
    pub(super) fn send(&self, h: &Handles, dst: usize, kind: MsgKind, payload: &[usize]) {
        if kind == MsgKind::Steal {
            // A manager's STEAL: the breakdown's steal match (`handle_mail`).
            h.counters().count(Counter::StealAttempts, 1);
        }
        self.shared().send(h.sleep(), dst, Msg::new(kind, h.index, payload));
    }

    /// Report this worker's queue length to its manager (`UPDATE`).
    ///
    /// The manager now believes this worker busy, so the flag that stands for
    /// "my manager knows I am starving" is cleared: the next time this worker
    /// finds nothing it must say so again. (Without this, a worker that
    /// reported starving inside a `join`'s wait, then resumed the outer task
    /// and pushed, parked for good: its manager never paired it again.
    /// `tests/balance.rs`.)
    pub(super) fn report(&self, h: &Handles, len: usize, starving: bool) {
        self.starving_reported.set(starving);
        self.believed_starving.set(starving);
        self.believed_waiting.set(false);
        self.set_report_at(h, len);
        if self.tree.n > 1 {
            self.send(h, self.level0_host(h), MsgKind::Update, &[0, len, starving as usize]);
        }
    }

    /// Report this worker starving (`UPDATE` with count 0), carrying the
    /// tokens of the phase reductions it took part in (`tokens.rs`): first
    /// every enqueue count directly to the root, then the finished tasks and
    /// their partial results up the tree, one phase on the `UPDATE` itself
    /// and any others on `REDUCE` messages.
    pub(super) fn report_starving(&self, h: &Handles, waiting: bool) {
        let starving = starving_word(true, waiting, None);
        self.send_enqueue_tokens(h);
        let host = self.level0_host(h);
        let mut first: Option<PhaseTokens> = None;
        tokens::take_finished(|t| match first {
            None => first = Some(t),
            Some(_) => self.send(h, host, MsgKind::Reduce, &[0, t.phase, t.ran, t.partial]),
        });
        self.set_report_at(h, 0);
        self.believed_starving.set(true);
        self.believed_waiting.set(waiting);
        match first {
            Some(t) if self.tree.n > 1 => self.send(h, host, MsgKind::Update, &[0, 0, starving, t.phase, t.ran, t.partial]),
            Some(t) => self.send(h, host, MsgKind::Reduce, &[0, t.phase, t.ran, t.partial]),
            None if self.tree.n > 1 => self.send(h, host, MsgKind::Update, &[0, 0, starving]),
            None => {}
        }
    }

    /// All reduction tokens this worker holds, without an `UPDATE`: enqueue
    /// counts to the root, finished tasks on `REDUCE` messages up the tree.
    pub(super) fn send_reduction_tokens(&self, h: &Handles) {
        self.send_enqueue_tokens(h);
        let host = self.level0_host(h);
        tokens::take_finished(|t| self.send(h, host, MsgKind::Reduce, &[0, t.phase, t.ran, t.partial]));
    }

    /// Every phase's count of tasks enqueued here, directly to the root. Sent
    /// before any task leaves this worker and before any report of finished
    /// tasks, so that the root never counts a task finished before it counts
    /// it enqueued.
    pub(super) fn send_enqueue_tokens(&self, h: &Handles) {
        let root = self.tree.root() as usize;
        let host = self.root_host();
        tokens::take_enqueued(|phase, k| self.send(h, host, MsgKind::Enqueued, &[root, phase, k, 0]));
    }

    /// The caller of a piggybacked phase has enqueued all its initial tasks:
    /// tell the root how many are still counted here, and that the phase is armed.
    pub(crate) fn arm_reduction(&self, h: &Handles, head: &ReduceHead<'_>) {
        let k = tokens::take_enqueued_of(head.key());
        self.send(h, self.root_host(), MsgKind::Enqueued, &[self.tree.root() as usize, head.key(), k, 1]);
    }

    /// The manager now believes this worker holds `reported` tasks: the next
    /// `UPDATE` is due when the count reaches the next threshold, and `join`s
    /// count their marks again at the depth `policy::adm::report_depth` says.
    pub(super) fn set_report_at(&self, h: &Handles, reported: usize) {
        self.reported.set(reported);
        self.report_at.set(if h.workers == 1 { usize::MAX } else { next_report_threshold(reported) });
        let (lo, span) = if h.workers == 1 { (usize::MAX, 0) } else { decrease_window(reported, self.underflow) };
        self.dec_lo.set(lo);
        self.dec_span.set(span);
        self.report_depth.set(report_depth(h.workers, reported, self.marks.current_depth()));
        self.refresh_limit();
    }
}
