//! The victim's side of a `STEAL` (`README.md`, step 5), and `loops=range`:
//! a loop counted by its chunks and cut when a steal asks (Sanchez, Yoo,
//! Kozyrakis, ASPLOS 2010, section 4.2; the decisions are
//! `policy::adm::{range_units, range_cut}`).
//!
//! Under `loops=range` a worker running a loop publishes, before each chunk,
//! how many chunks of its range it has not started ([`LoopRanges::left`]);
//! they count among the tasks it reports. A `STEAL` that asks for more than
//! the queue and the frame marks hold is sent what they hold, and the rest
//! is *owed*: the loop answers at its next chunk, before running it, by
//! offering `range_cut` chunks off the top of its range as one task (a
//! `join` whose first closure sends it, [`AdmWorker::pay_owed`]). The steal
//! waits at most one chunk of the loop, as a steal request waits for the
//! next scheduling point in any case. A loop that ends, or that has nothing
//! left to cut, settles what it owes with what the queue holds, or an empty
//! last `TASK`, so every `STEAL` is answered once and ends with the word its
//! manager waits for (`ends`).
//!
//! Piggybacked loop reductions (`loops.rs`, `lbs_task`) run as phase tasks
//! and still offer halves.

use super::loop_ranges::MAX_OWED;
use super::mailbox::MsgKind;
use super::messaging::AdmWorker;
use crate::job::JobRef;
use crate::mechanism::{Handles, LoopStep};
use crate::policy::adm::{range_cut, range_units, AdmLoops};
use crate::stats::Op;
use crate::sync::Ordering;

impl AdmWorker {
    /// Victim side of `STEAL`: send up to `k` of the oldest tasks to
    /// `stealer`: the oldest marked `join` continuations first (the outermost,
    /// usually the largest), then the oldest tasks of the private queue.
    /// Table 5's "send task": timed one by one, whether a STEAL asked for
    /// the tasks or a sleeper is fed directly.
    /// `ends`: the [`ends_word`](super::shared::ends_word) of the steal,
    /// which the last `TASK` carries to the stealer.
    pub(super) fn give_tasks(&self, h: &Handles, stealer: usize, k: usize, ends: usize) {
        crate::stats::timed(h.counters(), Op::SendTask, || self.give_tasks_untimed(h, stealer, k, ends))
    }

    pub(super) fn give_tasks_untimed(&self, h: &Handles, stealer: usize, k: usize, ends: usize) {
        let r = &self.ranges;
        let ranged = r.running();
        // At most a burst of messages (under `split` the manager asks for no
        // more); a cut of the range will be the last.
        let cap = if ranged && r.burst > 1 { r.burst - 1 } else { r.burst };
        let mut jobs: Vec<JobRef> = Vec::with_capacity(k.min(16));
        self.take_oldest_work(h, k.min(cap), |j| jobs.push(j));
        let n = jobs.len();
        let owes = ranged && n < k && r.owed.borrow().len() < MAX_OWED;
        if owes {
            r.owed.borrow_mut().push((stealer, k - n, ends, n));
        }
        for (i, j) in jobs.into_iter().enumerate() {
            // Until the stealer is flagged busy (`Shared::unblock_epoch`).
            self.shared().in_flight.fetch_add(1, Ordering::SeqCst);
            let last = !owes && i + 1 == n;
            self.send(h, stealer, MsgKind::Task, &[j.to_word(), last as usize, if last { ends } else { 0 }]);
        }
        if owes {
            return;
        }
        if n == 0 {
            self.send(h, stealer, MsgKind::Task, &[0, 1, ends]);
        }
        let left = self.pending();
        self.set_report_at(h, left);
        self.send(h, self.level0_host(h), MsgKind::VictimUpdate, &[0, left, n]);
    }

    /// `Mechanism::loop_step`: under `split`, offer halves
    /// (`policy::adm::offers_halves`); under `range`, publish the chunks
    /// left, answer mail, cut what a steal is owed, report a count that
    /// crossed a threshold either way.
    #[inline]
    pub(super) fn range_step(&self, h: &Handles, left: usize) -> LoopStep {
        let r = &self.ranges;
        if r.loops == AdmLoops::Split {
            return if left > 0 && crate::policy::adm::offers_halves(AdmLoops::Split, self.mail().has_mail(), || !self.any_pending()) {
                LoopStep::Half
            } else {
                LoopStep::Go
            };
        }
        r.left.set(range_units(r.loops, left));
        if self.mail().has_mail() {
            self.handle_mail(h);
        }
        let first = r.owed.borrow().first().copied();
        if let Some((_, k, _, _)) = first {
            let cut = range_cut(r.loops, k, left);
            if cut > 0 {
                return LoopStep::Cut(cut);
            }
            self.pay_owed(h);
        }
        let n = self.private.len() + left;
        if n >= self.report_at.get() || n.wrapping_sub(self.dec_lo.get()) <= self.dec_span.get() {
            self.report(h, self.pending(), false);
        }
        LoopStep::Go
    }

    /// Answer the oldest owed steal with this worker's oldest task (after a
    /// cut: the cut, the only task pending) or, if none is left, an empty
    /// last `TASK`; then the `VICTIM_UPDATE` its manager waits for.
    pub(super) fn pay_owed(&self, h: &Handles) {
        let first = {
            let mut owed = self.ranges.owed.borrow_mut();
            (!owed.is_empty()).then(|| owed.remove(0))
        };
        let Some((stealer, _, ends, sent)) = first else { return };
        crate::stats::timed(h.counters(), Op::SendTask, || {
            let mut job = None;
            self.take_oldest_work(h, 1, |j| job = Some(j));
            let word = match job {
                Some(j) => {
                    self.shared().in_flight.fetch_add(1, Ordering::SeqCst);
                    j.to_word()
                }
                None => 0,
            };
            self.send(h, stealer, MsgKind::Task, &[word, 1, ends]);
            let left = self.pending();
            self.set_report_at(h, left);
            self.send(h, self.level0_host(h), MsgKind::VictimUpdate, &[0, left, sent + job.is_some() as usize]);
        })
    }

    /// `Mechanism::loop_done`: the loop's range is run; what it still owes
    /// is settled from the queue (or empty).
    #[inline]
    pub(super) fn range_done(&self, h: &Handles) {
        if self.ranges.loops == AdmLoops::Range {
            self.ranges.left.set(0);
            while !self.ranges.owed.borrow().is_empty() {
                self.pay_owed(h);
            }
        }
    }
}
