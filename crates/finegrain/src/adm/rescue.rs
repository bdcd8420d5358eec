//! A worker's two sides of a rescue (`interrupt.rs` has the protocol and its
//! design note): as a victim, answering a starving worker's request from its
//! marks, its private queue or its mailbox; as a requester, asking a busy
//! worker, collecting or withdrawing the answer; and the `busy` flags and
//! deep sleep that tell requesters whom to ask and parked workers when to
//! look again.

use super::interrupt::{self, EMPTY, PENDING};
use super::messaging::AdmWorker;
use super::tokens::{self};
use crate::job::{word_was_received, JobHeader, JobRef};
use crate::mechanism::{Handles, Mechanism};
use crate::policy::adm::Handoff;
use crate::policy::notify::{empty_answer, interrupt_now, rescue_due, rescue_victim, wake_deep_sleepers, VictimCall, WakeDeep};
use crate::stats::Counter;
use crate::sync::Ordering;
use std::time::Instant;

impl AdmWorker {
    /// Victim side of a rescue request (`interrupt.rs`): if a starving worker
    /// asks, hand it this worker's oldest task (the outermost mark not being
    /// taken back, else the front of the private queue), or EMPTY. Runs in the
    /// signal handler or at the end of a deferral section (`h` is `None`:
    /// async-signal-safe, no allocation, no lock, no message), or at a
    /// scheduling point (`h`). A task of the private queue may carry a phase's
    /// reduction tokens: it leaves only after this worker's enqueue counts
    /// went to the root (as in `give_tasks`), or, in the handler, which
    /// cannot send them, after they were lent to their phases
    /// (`tokens::lend_enqueued`).
    pub(crate) fn answer_rescue(&self, h: Option<&Handles>) {
        let sh = self.shared();
        let mine = &sh.rescue[self.index];
        if mine.req.load(Ordering::Relaxed) == 0 {
            return;
        }
        let _section = interrupt::defer();
        let r = mine.req.swap(0, Ordering::AcqRel);
        if r == 0 {
            return;
        }
        interrupt::patience_restarts(mine);
        let queue_may_give = match h {
            Some(h) => {
                self.send_enqueue_tokens(h);
                true
            }
            None => tokens::lend_enqueued(),
        };
        let job = match self.marks.take_oldest_for_rescue(self.marks.current_depth(), self.index) {
            Some(j) => Some(j),
            None if !queue_may_give => None,
            None => self.private.pop_front().map(|j| {
                if !j.is_received() {
                    // SAFETY: our own task, just taken off our own queue.
                    unsafe { JobHeader::prepare(j.as_ptr(), self.index) };
                }
                j
            }),
        };
        // A task sent to this worker (a `TASK`) that it has not received yet:
        // it was handed over while this worker was starting a task of its
        // own, and would otherwise wait in the mailbox until that ends. Its
        // sender prepared it and sent its enqueue counts before it left.
        // SAFETY: this thread is the mailbox's receiver and is not inside a
        // `recv` (`handle_mail` receives inside a deferral section); the
        // word is a job pointer a victim sent.
        let mut from_ring = false;
        let job = job.or_else(|| {
            from_ring = true;
            self.mail().take_unreceived_task().map(|p| unsafe { JobRef::from_ptr(p as *mut JobHeader) })
        });
        if job.is_some() {
            // Until the requester is flagged busy (`Shared::unblock_epoch`);
            // a job taken out of a message was counted by it, no longer.
            sh.in_flight.fetch_add(1, Ordering::SeqCst);
            if from_ring {
                sh.in_flight.fetch_sub(1, Ordering::SeqCst);
            }
        }
        sh.rescue[r - 1].ans.store(job.map_or(EMPTY, |j| j.to_word()), Ordering::Release);
    }

    /// Requester side (`interrupt.rs`): starving for longer than the bound,
    /// ask a victim and interrupt it. The request stays posted until the
    /// victim answers (in its handler, or at its next scheduling point); the
    /// answer is collected at this worker's next idle round or scheduling
    /// point, so the requester never spins for it and takes no CPU from the
    /// victim. An unanswered request is signalled again every interval.
    pub(super) fn try_rescue(&self, h: &Handles) {
        let Some(bound) = self.notify.bound_us() else { return };
        self.collect_rescue(h);
        let epoch = self.shared().epoch.load(Ordering::Relaxed);
        if epoch != self.rescue_epoch.get() {
            self.rescue_epoch.set(epoch);
            self.empty_rescues.set(0);
            self.empty_in_round.set(0);
            self.last_rescue.set(None);
        }
        let now = Instant::now();
        let since = *self.starving_since.get().get_or_insert(now);
        self.starving_since.set(Some(since));
        let us = |t: Option<Instant>| t.map_or(u64::MAX, |t| now.saturating_duration_since(t).as_micros() as u64);
        let sh = self.shared();
        if let Some(v) = self.outstanding.get() {
            // Not answered yet: the signal may have come while the victim
            // was not running; signal again once per interval.
            if us(self.last_rescue.get()) >= bound as u64 {
                self.last_rescue.set(Some(now));
                if !self.signal_victim(&sh.rescue[v]) {
                    self.move_on(h);
                }
            }
            return;
        }
        if !rescue_due(self.notify, h.workers, self.nothing_left(), us(Some(since)), us(self.last_rescue.get()), self.empty_rescues.get()) {
            return;
        }
        let attempt = self.rescues.get();
        let Some(v) = rescue_victim(h.index, h.workers, attempt, |v| sh.rescue[v].busy.load(Ordering::SeqCst) != 0) else {
            return; // nobody runs a task: nobody holds work
        };
        self.last_rescue.set(Some(now));
        self.rescues.set(attempt + 1);
        let (mine, theirs) = (&sh.rescue[h.index], &sh.rescue[v]);
        mine.ans.store(PENDING, Ordering::Relaxed);
        if theirs.req.compare_exchange(0, h.index + 1, Ordering::AcqRel, Ordering::Relaxed).is_err() {
            mine.ans.store(0, Ordering::Relaxed);
            return; // another worker is asking it
        }
        self.outstanding.set(Some(v));
        self.last_look.set(None);
        h.counters().count(Counter::Interrupts, 1);
        if !self.signal_victim(theirs) {
            self.move_on(h);
        }
    }

    /// The victim sleeps in a call a signal would make fail, and has not
    /// done so for `PATIENCE_US` yet: take the request back and ask the next
    /// busy worker at once (a victim that only sleeps holds nothing, or is
    /// interrupted once its patience runs out). A job it answered meanwhile
    /// is queued here.
    pub(super) fn move_on(&self, h: &Handles) {
        self.settle_rescue(h);
        self.last_rescue.set(None);
    }

    /// Interrupt the victim of the outstanding request, unless it is where
    /// an interrupt would make a system call fail (`policy::notify::interrupt_now`).
    /// Returns false if the victim sleeps in such a call (the caller moves
    /// on to another victim), true otherwise, signalled or not.
    pub(super) fn signal_victim(&self, r: &interrupt::Rescue) -> bool {
        let (call, asleep_us) = interrupt::victim_call(r);
        if interrupt_now(call, self.last_look.replace(Some(call)), asleep_us) {
            self.last_look.set(None);
            interrupt::interrupt(r);
            return true;
        }
        call != VictimCall::Unrestarted
    }

    /// This worker runs a task from now on: it may mark or queue work that
    /// only an interrupt can reach. Workers parked without a timeout because
    /// nobody was busy are woken, so that they park again with one.
    ///
    /// Ordering (a Dekker pair, all SeqCst): this stores `busy` then loads
    /// `deep_sleepers`; a parker increments `deep_sleepers` then loads every
    /// `busy`. One of the two sees the other's store: the parker takes a
    /// timeout, or this worker bumps the epoch and wakes it; a parker not
    /// yet on the sleep list sees the new epoch in `signal`, which the sleep
    /// protocol checks after announcing the sleep.
    #[inline]
    pub(super) fn now_busy(&self, h: &Handles) {
        if !self.track_busy {
            return;
        }
        self.leave_deep_sleep();
        let sh = self.shared();
        let r = &sh.rescue[self.index];
        if r.busy.load(Ordering::Relaxed) == 0 {
            interrupt::patience_restarts(r);
            r.busy.store(1, Ordering::SeqCst);
            if sh.deep_sleepers.load(Ordering::SeqCst) > 0 {
                self.wake_deep_now_or_at_offer(h);
            }
        }
    }

    /// Wake the workers parked without a timeout now, or at this worker's
    /// first slow path (`policy::notify::wake_deep_sleepers`).
    #[cold]
    pub(super) fn wake_deep_now_or_at_offer(&self, h: &Handles) {
        // A `join` goes to `join_slow_duties` at any depth, a push to `push_slow`.
        let next_spawn_offers = self.report_depth.get() == 0 && self.report_at.get() <= 1;
        let holds_nothing = self.private.len() == 0 && !self.marks.any_live(self.marks.current_depth());
        match wake_deep_sleepers(self.handoff == Handoff::Idle, next_spawn_offers, holds_nothing) {
            WakeDeep::Now => self.wake_deep_sleepers(h),
            WakeDeep::AtFirstOffer => self.wake_deep_due.set(true),
        }
    }

    /// Wake the workers parked without a timeout: the epoch they parked at
    /// changes (`signal`), and every parker is raised.
    #[cold]
    pub(super) fn wake_deep_sleepers(&self, h: &Handles) {
        self.wake_deep_due.set(false);
        self.shared().epoch.fetch_add(1, Ordering::SeqCst);
        h.sleep().wake_all();
    }

    /// This worker found no work: it holds none (its marks and queue are
    /// empty, or it would have found them).
    #[inline]
    pub(super) fn now_idle(&self) {
        if !self.track_busy {
            return;
        }
        self.leave_deep_sleep();
        let r = &self.shared().rescue[self.index];
        if r.busy.load(Ordering::Relaxed) != 0 {
            r.busy.store(0, Ordering::SeqCst);
        }
        // It offered nothing while busy: nothing of its own waits.
        self.wake_deep_due.set(false);
    }

    pub(super) fn leave_deep_sleep(&self) {
        self.park_epoch.set(None);
        if self.deep.replace(false) {
            self.shared().deep_sleepers.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// How many workers other than this one run a task?
    pub(super) fn busy_others(&self) -> usize {
        let sh = self.shared();
        (0..sh.workers()).filter(|&v| v != self.index && sh.rescue[v].busy.load(Ordering::SeqCst) != 0).count()
    }

    /// Is a worker other than this one running a task?
    pub(super) fn other_busy(&self) -> bool {
        let sh = self.shared();
        (0..sh.workers()).any(|v| v != self.index && sh.rescue[v].busy.load(Ordering::SeqCst) != 0)
    }

    /// Take the answer to this worker's outstanding request, if it came: a
    /// job goes on the private queue as a received task.
    #[inline]
    pub(super) fn collect_rescue(&self, h: &Handles) {
        if self.outstanding.get().is_none() {
            return;
        }
        let mine = &self.shared().rescue[h.index];
        let ans = mine.ans.load(Ordering::Acquire);
        if ans == PENDING {
            return;
        }
        self.outstanding.set(None);
        mine.ans.store(0, Ordering::Relaxed);
        if ans > EMPTY {
            self.empty_rescues.set(0);
            self.empty_in_round.set(0);
        } else {
            let (k, doubled) = empty_answer(self.empty_in_round.get() + 1, self.busy_others());
            self.empty_in_round.set(k);
            if doubled {
                self.empty_rescues.set(self.empty_rescues.get().saturating_add(1));
            }
        }
        if ans > EMPTY {
            self.received_rescued(h, ans);
        }
    }

    /// Withdraw an outstanding request (the worker stops); if the victim has
    /// already taken it, wait for its answer, which can only be EMPTY: a
    /// pool stops only when no task is left.
    pub(super) fn withdraw_rescue(&self) {
        let ans = self.take_back_request();
        debug_assert!(ans <= EMPTY, "a task answered to a stopping worker");
    }

    /// This worker found work while a request of its own was still out: take
    /// the request back, or, if the victim has already taken it, wait for the
    /// answer (its handler is a few instructions from storing it) and queue
    /// the job it carries. Left out, a job answered now would sit in the
    /// answer slot, where nobody else can reach it, for as long as the task
    /// this worker is about to run (`tests/blocking.rs`, `coarse_scope`:
    /// a worker that asked for work and was then handed a task by a push's
    /// hand-off ran it for 500 ms with the second task in its slot).
    #[cold]
    #[inline(never)]
    pub(super) fn settle_rescue(&self, h: &Handles) {
        let ans = self.take_back_request();
        if ans > EMPTY {
            self.received_rescued(h, ans);
        }
    }

    /// A rescue's answer carried job `ans`: busy from now on (this worker
    /// runs it next), then no longer on its way (`Shared::unblock_epoch`);
    /// the job goes on the private queue as a received task.
    pub(super) fn received_rescued(&self, h: &Handles, ans: usize) {
        self.now_busy(h);
        self.shared().in_flight.fetch_sub(1, Ordering::SeqCst);
        // SAFETY: the victim took this job off its marks or queue for us
        // alone and prepared it to run elsewhere (`answer_rescue`).
        self.private.push(unsafe { JobRef::from_ptr(ans as *mut JobHeader) }.mark_received());
        h.counters().count(Counter::Steals, 1);
        h.counters().count(Counter::TasksStolen, u64::from(!word_was_received(ans)));
    }

    /// Withdraw the outstanding request, if any: 0 if it was withdrawn before
    /// the victim saw it, else the victim's answer (EMPTY or a job).
    pub(super) fn take_back_request(&self) -> usize {
        let Some(v) = self.outstanding.take() else { return 0 };
        let sh = self.shared();
        let mine = &sh.rescue[self.index];
        let mut ans = 0;
        if sh.rescue[v].req.compare_exchange(self.index + 1, 0, Ordering::AcqRel, Ordering::Acquire).is_err() {
            loop {
                ans = mine.ans.load(Ordering::Acquire);
                if ans != PENDING {
                    break;
                }
                crate::sync::thread::yield_now();
            }
        }
        mine.ans.store(0, Ordering::Relaxed);
        ans
    }
}
