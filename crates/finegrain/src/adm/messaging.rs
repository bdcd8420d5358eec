//! One worker's side of the message protocol: its private queue and frame
//! marks, its mailbox, its reports to its manager, and the manager roles it
//! hosts. Every decision comes from `policy/adm.rs`.

use super::frame_marks::FrameMarks;
use super::interrupt::{self, EMPTY, PENDING};
use super::mailbox::{Mailbox, Msg, MsgKind};
use super::private_queue::PrivateQueue;
use super::shared::{starving_flags, starving_word, Shared, WORKER};
use super::spawn_gate::Gate;
use super::tokens::{self, ReduceHead};
use crate::job::{word_was_received, JobHeader, JobRef};
use crate::mechanism::{Handles, Mechanism};
use crate::policy::adm::{
    decrease_window, hand_to_idle, handoff_candidates, next_report_threshold, recount_depth, report_depth, route as policy_route, Action, Handoff,
    ManagerNode, PhaseTokens, Route, Tree,
};
use crate::policy::notify::{
    empty_answer, interrupt_now, park_timeout_us, rescue_due, rescue_victim, wake_deep_sleepers, Notify, VictimCall, WakeDeep,
};
use crate::policy::search::Source;
use crate::policy::Order;
use crate::stats::{Bucket, Counter, Op};
use crate::sync::Ordering;
use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

/// One worker's state under the message policies (owner only, but for the
/// mailbox, which any thread sends to).
pub(crate) struct AdmWorker {
    shared: *const Shared,
    mailbox: *const Mailbox,
    order: Order,
    private: PrivateQueue,
    /// Queue length at which the next UPDATE is due.
    report_at: Cell<usize>,
    /// Queue lengths at which a decrease is reported, as
    /// `policy::adm::decrease_window` gives them: due iff
    /// `len.wrapping_sub(dec_lo) <= dec_span`.
    dec_lo: Cell<usize>,
    dec_span: Cell<usize>,
    /// Underflow threshold (`policy::adm::Adm::underflow`).
    underflow: usize,
    /// `handoff=` (`policy::adm::Handoff`).
    handoff: Handoff,
    /// The `busy` flags (`interrupt::Rescue`) are kept: for the interrupt,
    /// or for `handoff=idle`, which looks for a worker whose flag is down.
    track_busy: bool,
    tree: Tree,
    /// Manager nodes this worker hosts, by level.
    managers: RefCell<Vec<ManagerNode>>,
    /// "My manager knows I am starving."
    starving_reported: Cell<bool>,
    /// What this worker's last report to its manager said: the count, and
    /// whether it was starving (`UPDATE`, `STEALER_UPDATE`; a
    /// `VICTIM_UPDATE` sets the count alone).
    reported: Cell<usize>,
    believed_starving: Cell<bool>,
    believed_waiting: Cell<bool>,
    /// Told by the root that no task is left anywhere (`UNBLOCK`).
    unblocked: Cell<bool>,
    /// Pending `join` continuations (`frame_marks.rs`).
    marks: FrameMarks,
    /// Depth at which the next `join` counts its pending work again (see
    /// `refresh_limit`); 0: at the next `join`.
    report_depth: Cell<usize>,
    index: usize,
    notify: Notify,
    /// When this worker last found no work, while it has found none since.
    starving_since: Cell<Option<Instant>>,
    /// When it last interrupted a victim (`interrupt.rs`), and how often.
    last_rescue: Cell<Option<Instant>>,
    rescues: Cell<u64>,
    /// The victim of this worker's request that has not been answered yet.
    outstanding: Cell<Option<usize>>,
    /// The last look at the outstanding request's victim
    /// (`policy::notify::interrupt_now`).
    last_look: Cell<Option<VictimCall>>,
    /// Attempts in a row that got nothing.
    empty_rescues: Cell<u32>,
    /// EMPTY answers so far in the current round (`policy::notify::empty_answer`).
    empty_in_round: Cell<u32>,
    /// `Shared::epoch` when `UNBLOCK` arrived.
    unblocked_epoch: Cell<usize>,
    /// `Shared::epoch` when the run of empty answers began: new work from
    /// outside ends the backoff.
    rescue_epoch: Cell<usize>,
    /// Counted in `Shared::deep_sleepers`.
    deep: Cell<bool>,
    /// `Shared::epoch` when this worker decided to park without a timeout: a
    /// change wakes it (`signal`).
    park_epoch: Cell<Option<usize>>,
    /// Workers parked without a timeout are to be woken at this worker's
    /// next slow path (`policy::notify::wake_deep_sleepers`).
    wake_deep_due: Cell<bool>,
}

/// `TASK`'s second word for a task handed to an idle worker outside any
/// steal (`AdmWorker::hand_over`); 1 ends a steal's burst, 0 is a burst's
/// earlier task.
const HANDOFF: usize = 2;

impl AdmWorker {
    /// Worker `index` of `shared`, whose frame marks cover `mark_bytes` of
    /// stack below `stack_hi` (an address in the thread's outermost frame).
    ///
    /// # Safety
    /// `shared` outlives the worker, and the worker runs on the thread whose
    /// stack `stack_hi` names.
    pub(crate) unsafe fn new(shared: &Shared, index: usize, order: Order, stack_hi: usize, mark_bytes: usize) -> AdmWorker {
        let n = shared.workers();
        let p = shared.params;
        let mailbox: &Mailbox = &shared.mailboxes[index];
        AdmWorker {
            shared,
            mailbox,
            order,
            // SAFETY: the mailbox (and its gate) is the registry's, which
            // outlives this worker; only this worker touches the gate's top.
            private: unsafe { PrivateQueue::new(&*mailbox.gate) },
            report_at: Cell::new(if n == 1 { usize::MAX } else { 1 }),
            dec_lo: Cell::new(usize::MAX),
            dec_span: Cell::new(0),
            underflow: p.underflow,
            handoff: p.handoff,
            track_busy: p.notify != Notify::Poll || p.handoff == Handoff::Idle,
            tree: p.tree(n),
            managers: RefCell::new(p.hosted_managers(n, index)),
            starving_reported: Cell::new(false),
            reported: Cell::new(0),
            believed_starving: Cell::new(false),
            believed_waiting: Cell::new(false),
            unblocked: Cell::new(false),
            marks: FrameMarks::new(stack_hi, mark_bytes),
            report_depth: Cell::new(report_depth(n, 0, 0)),
            index,
            notify: p.notify,
            starving_since: Cell::new(None),
            last_rescue: Cell::new(None),
            rescues: Cell::new(0),
            outstanding: Cell::new(None),
            last_look: Cell::new(None),
            empty_rescues: Cell::new(0),
            empty_in_round: Cell::new(0),
            unblocked_epoch: Cell::new(0),
            rescue_epoch: Cell::new(0),
            deep: Cell::new(false),
            wake_deep_due: Cell::new(false),
            park_epoch: Cell::new(None),
        }
    }

    #[inline(always)]
    fn shared(&self) -> &Shared {
        // SAFETY: outlives the worker (`new`).
        unsafe { &*self.shared }
    }

    #[inline(always)]
    pub(crate) fn mail(&self) -> &Mailbox {
        // SAFETY: points into the registry, alive while the worker runs.
        unsafe { &*self.mailbox }
    }

    /// This worker's spawn gate.
    #[inline(always)]
    pub(crate) fn spawn_gate(&self) -> &Gate {
        &self.mail().gate
    }

    /// The spawn gate, with the stack top and mark region of this worker
    /// written in, for the thread-local that `join` reads.
    pub(crate) fn install_gate(&self) -> &Gate {
        let g = &self.mail().gate;
        g.stack_hi.set(self.marks.stack_hi());
        g.marks_end.set(self.marks.end().cast());
        if self.notify != Notify::Poll {
            // The handler reads this thread's tokens; a thread-local with a
            // destructor registers it at its first use, which allocates, so
            // that first use must not be in the handler (it deadlocked on
            // malloc's lock in `tests/blocking.rs`).
            tokens::init_here();
            interrupt::arm(self, &self.shared().rescue[self.index]);
        }
        g
    }

    /// The worker leaves its thread: no interrupt reaches it any more.
    pub(crate) fn uninstall(&self) {
        if self.notify != Notify::Poll {
            self.withdraw_rescue();
            interrupt::disarm(&self.shared().rescue[self.index]);
        }
    }

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
    fn try_rescue(&self, h: &Handles) {
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
    fn move_on(&self, h: &Handles) {
        self.settle_rescue(h);
        self.last_rescue.set(None);
    }

    /// Interrupt the victim of the outstanding request, unless it is where
    /// an interrupt would make a system call fail (`policy::notify::interrupt_now`).
    /// Returns false if the victim sleeps in such a call (the caller moves
    /// on to another victim), true otherwise, signalled or not.
    fn signal_victim(&self, r: &interrupt::Rescue) -> bool {
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
    fn now_busy(&self, h: &Handles) {
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
    fn wake_deep_now_or_at_offer(&self, h: &Handles) {
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
    fn wake_deep_sleepers(&self, h: &Handles) {
        self.wake_deep_due.set(false);
        self.shared().epoch.fetch_add(1, Ordering::SeqCst);
        h.sleep().wake_all();
    }

    /// This worker found no work: it holds none (its marks and queue are
    /// empty, or it would have found them).
    #[inline]
    fn now_idle(&self) {
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

    fn leave_deep_sleep(&self) {
        self.park_epoch.set(None);
        if self.deep.replace(false) {
            self.shared().deep_sleepers.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// How many workers other than this one run a task?
    fn busy_others(&self) -> usize {
        let sh = self.shared();
        (0..sh.workers()).filter(|&v| v != self.index && sh.rescue[v].busy.load(Ordering::SeqCst) != 0).count()
    }

    /// Is a worker other than this one running a task?
    fn other_busy(&self) -> bool {
        let sh = self.shared();
        (0..sh.workers()).any(|v| v != self.index && sh.rescue[v].busy.load(Ordering::SeqCst) != 0)
    }

    /// Take the answer to this worker's outstanding request, if it came: a
    /// job goes on the private queue as a received task.
    #[inline]
    fn collect_rescue(&self, h: &Handles) {
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
    fn withdraw_rescue(&self) {
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
    fn settle_rescue(&self, h: &Handles) {
        let ans = self.take_back_request();
        if ans > EMPTY {
            self.received_rescued(h, ans);
        }
    }

    /// A rescue's answer carried job `ans`: busy from now on (this worker
    /// runs it next), then no longer on its way (`Shared::unblock_epoch`);
    /// the job goes on the private queue as a received task.
    fn received_rescued(&self, h: &Handles, ans: usize) {
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
    fn take_back_request(&self) -> usize {
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

    pub(crate) fn marks(&self) -> &FrameMarks {
        &self.marks
    }

    /// Manager level of the root (the `ENQUEUED` messages name it).
    pub(crate) fn root_level(&self) -> u32 {
        self.tree.root()
    }

    /// A task carrying phase tokens finished here: the tokens leave at this
    /// worker's next starving report, so make sure there is one even if it
    /// reported before the task ran (`tokens.rs`, liveness).
    pub(crate) fn tokens_pending(&self) {
        self.starving_reported.set(false);
    }

    /// Where this worker's level-0 manager runs: the group's first worker, or
    /// the manager thread (address `n`).
    fn level0_host(&self, h: &Handles) -> usize {
        if self.shared().manager.is_some() {
            self.tree.n
        } else {
            self.tree.host(0, self.tree.partition_of(0, h.index))
        }
    }

    /// Where the root manager runs.
    fn root_host(&self) -> usize {
        if self.shared().manager.is_some() {
            self.tree.n
        } else {
            0
        }
    }

    /// `adm_send` to worker `dst`, or to the manager thread (`dst == n`).
    fn send(&self, h: &Handles, dst: usize, kind: MsgKind, payload: &[usize]) {
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
    fn report(&self, h: &Handles, len: usize, starving: bool) {
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
    fn report_starving(&self, h: &Handles, waiting: bool) {
        let starving = starving_word(true, waiting);
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
    fn send_reduction_tokens(&self, h: &Handles) {
        self.send_enqueue_tokens(h);
        let host = self.level0_host(h);
        tokens::take_finished(|t| self.send(h, host, MsgKind::Reduce, &[0, t.phase, t.ran, t.partial]));
    }

    /// Every phase's count of tasks enqueued here, directly to the root. Sent
    /// before any task leaves this worker and before any report of finished
    /// tasks, so that the root never counts a task finished before it counts
    /// it enqueued.
    fn send_enqueue_tokens(&self, h: &Handles) {
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
    fn set_report_at(&self, h: &Handles, reported: usize) {
        self.reported.set(reported);
        self.report_at.set(if h.workers == 1 { usize::MAX } else { next_report_threshold(reported) });
        let (lo, span) = if h.workers == 1 { (usize::MAX, 0) } else { decrease_window(reported, self.underflow) };
        self.dec_lo.set(lo);
        self.dec_span.set(span);
        self.report_depth.set(report_depth(h.workers, reported, self.marks.current_depth()));
        self.refresh_limit();
    }

    /// Tasks waiting here: the private queue and the live marks above the
    /// caller's frame.
    fn pending(&self) -> usize {
        self.private.len() + self.marks.count(self.marks.current_depth())
    }

    /// Should a piggybacked loop task split its range (`loops::lbs_task`)?
    /// When mail waits, or this worker's private queue, where the halves it
    /// offers go, is empty. Unlike `wants_split`, the frame marks of the
    /// enclosing frames are not looked at (a scan of the stack words between
    /// this task and the outermost frame, hundreds of instructions per chunk
    /// on the deep stack a phase task runs on): splitting while they are live
    /// only offers one more task.
    #[inline]
    pub(crate) fn wants_task_split(&self) -> bool {
        self.private.len() == 0 || self.mail().has_mail()
    }

    /// Anything waiting here? A look, not a count.
    #[inline]
    fn any_pending(&self) -> bool {
        self.private.len() > 0 || self.marks.any_live(self.marks.current_depth())
    }

    /// Recompute the gate's limit (`spawn_gate.rs`): the depth at which a
    /// `join` counts its pending work again, capped at the mark region. Ordering: the
    /// store, a full fence, then a look at the mail signal; a sender stores the
    /// signal then zero to the limit. If the look misses the signal, the
    /// sender's zero lands after our store.
    pub(crate) fn refresh_limit(&self) {
        let due = self.report_depth.get().min(self.marks.limit_bound());
        let mb = self.mail();
        mb.gate.limit.store(due, Ordering::SeqCst);
        crate::sync::full_fence();
        if mb.has_mail() {
            mb.gate.limit.store(0, Ordering::SeqCst);
        }
    }

    /// Queue a task (a scope, phase or graph task, or a `join` whose job is
    /// outside the mark region). One check covers a full buffer, a due
    /// UPDATE and waiting mail: each makes the gate's limit zero or the queue
    /// reach its count.
    #[inline(always)]
    pub(crate) fn push_job(&self, h: &Handles, job: JobRef) {
        h.hot.enqueue_op(h.counters(), || self.push_uncounted(h, job))
    }

    #[inline(always)]
    fn push_uncounted(&self, h: &Handles, job: JobRef) {
        if self.mail().gate.limit.load(Ordering::Relaxed) == 0 || self.private.len() + 1 >= self.report_at.get() {
            return self.push_slow(h, job);
        }
        self.private.push(job);
    }

    /// A push reached its limit: buffer full, an UPDATE due, or mail waiting.
    #[cold]
    #[inline(never)]
    pub(crate) fn push_slow(&self, h: &Handles, job: JobRef) {
        self.private.push(job);
        self.after_offering(h, self.pending());
    }

    /// A `join` at depth `d` has marked its job but its gate said no: mail is
    /// waiting, or the pending work is due to be counted (the stack passed
    /// `report_depth`). The same duties as a queue push's slow path.
    #[cold]
    #[inline(never)]
    pub(crate) fn join_slow_duties(&self, h: &Handles, d: usize) {
        let n = self.pending();
        if d >= self.report_depth.get() && n < self.report_at.get() {
            // Counted, no UPDATE due: look again deeper.
            self.report_depth.set(recount_depth(d));
        }
        self.after_offering(h, n);
    }

    /// After a task was queued or marked on a slow path, with `n` tasks now
    /// pending here: hand one to an idle worker (`policy::adm::hand_to_idle`),
    /// send the `UPDATE` if due for what is left, answer mail, reset the gate.
    fn after_offering(&self, h: &Handles, mut n: usize) {
        let idle = match self.handoff {
            _ if n == 0 => None,
            Handoff::Idle => self.an_idle_worker(h),
            Handoff::Sleeper => h.sleep().a_sleeper_other_than(h.index),
            Handoff::Manager => None,
        };
        if let Some(s) = idle {
            if hand_to_idle(true, n > 0) > 0 && self.hand_over(h, s) {
                n -= 1;
            }
        }
        if n >= self.report_at.get() {
            self.report(h, n, false);
        }
        if self.wake_deep_due.get() {
            self.wake_deep_sleepers(h);
        }
        self.handle_mail(h);
        self.refresh_limit();
    }

    /// Hand this worker's oldest task to idle worker `s` (`TASK[job,
    /// HANDOFF]`), outside any steal the manager arranged. The manager is
    /// not told: the count it believes is what this worker last reported,
    /// which the caller settles; the receiver reports for itself.
    fn hand_over(&self, h: &Handles, s: usize) -> bool {
        crate::stats::timed(h.counters(), Op::SendTask, || {
            let mut job = None;
            self.take_oldest_work(h, 1, |j| job = Some(j));
            job.inspect(|j| {
                // Until its receiver is flagged busy (`Shared::unblock_epoch`).
                self.shared().in_flight.fetch_add(1, Ordering::SeqCst);
                self.send(h, s, MsgKind::Task, &[j.to_word(), HANDOFF])
            })
            .is_some()
        })
    }

    /// Take up to `k` of this worker's oldest tasks to send away, oldest
    /// first: the outermost marked `join` continuations (usually the
    /// largest), then the front of the private queue, each prepared to run
    /// elsewhere. This worker's enqueue counts go to the root first (a task
    /// may carry a phase's tokens: `tokens.rs`).
    fn take_oldest_work(&self, h: &Handles, k: usize, mut each: impl FnMut(JobRef)) {
        self.send_enqueue_tokens(h);
        let mut n = self.marks.take_oldest(self.marks.current_depth(), k, h.index, &mut each);
        while n < k {
            let Some(j) = self.private.pop_front() else { break };
            each(self.leaving_private(h, j));
            n += 1;
        }
    }

    /// A worker whose `busy` flag is down (it found no work and holds none),
    /// among `policy::adm::handoff_candidates`. A hint: it may find work
    /// before the task arrives, and then takes it at its next scheduling
    /// point, or an idle worker's rescue request takes it out of its ring.
    fn an_idle_worker(&self, h: &Handles) -> Option<usize> {
        let sh = self.shared();
        handoff_candidates(&self.tree, h.index).find(|&v| sh.rescue[v].busy.load(Ordering::Relaxed) == 0)
    }

    /// This worker is about to release the latch of a task it ran for
    /// another worker (`JobLatch`): if it holds nothing else, it is idle
    /// from now on, and says so before the owner of the latch can resume and
    /// offer its next task (`handoff=idle`), not after its own next search.
    #[inline]
    pub(crate) fn finishing_for_another(&self) {
        if self.track_busy && self.private.len() == 0 && !self.marks.any_live(self.marks.current_depth()) {
            self.now_idle();
        }
    }

    /// A dequeue took the queue into the decrease window
    /// (`policy::adm::decrease_window`): count everything pending (the marks
    /// too) and send the `UPDATE` if the count is still in the window.
    #[cold]
    #[inline(never)]
    fn decreased(&self, h: &Handles) {
        let n = self.pending();
        if n.wrapping_sub(self.dec_lo.get()) <= self.dec_span.get() {
            self.report(h, n, false);
        }
    }

    /// A task leaves this worker's private queue other than by a `join`'s
    /// take-back: to run here through its header, or to be handed over. A task
    /// this worker pushed itself gets its owner and latch state written now
    /// (see `JobHeader`); a received one already has them.
    #[inline]
    pub(crate) fn leaving_private(&self, h: &Handles, j: JobRef) -> JobRef {
        if !j.is_received() {
            // SAFETY: our own task, just taken off our own queue: only this thread has it.
            unsafe { JobHeader::prepare(j.as_ptr(), h.index) };
        }
        j
    }

    /// The newest task of the private queue (a `join` whose take-back found
    /// something else on top).
    #[inline]
    pub(crate) fn pop_newest(&self) -> Option<JobRef> {
        self.private.pop_back()
    }

    /// `adm_rx` every waiting message and act on it.
    pub(crate) fn handle_mail(&self, h: &Handles) {
        let mb = self.mail();
        if !mb.has_mail() {
            return;
        }
        let resume = h.counters().current();
        loop {
            mb.begin_drain();
            // Received inside a deferral section: the rescue handler may take
            // a task out of a `TASK` still in the ring (`answer_rescue`), but
            // not out of one being copied out.
            while let Some(m) = self.recv_deferred(mb) {
                h.counters().count(Counter::Messages, 1);
                let manager_msg = !matches!(m.kind, MsgKind::Task) && m.words[0] != WORKER;
                h.counters().enter(if manager_msg { Bucket::HandlerManager } else { Bucket::HandlerWorker });
                let (kind, victim, steals0) = (m.kind, m.words[0] == WORKER, h.counters().get(Counter::StealAttempts));
                let t0 = crate::stats::clock();
                self.on_message(h, m);
                // Table 5's operations (`stats::Op`), timed one by one.
                let op = match kind {
                    MsgKind::Task => Some(Op::RecvTask),
                    // Timed in `give_tasks`.
                    MsgKind::Steal if victim => None,
                    MsgKind::Steal | MsgKind::Update | MsgKind::VictimUpdate | MsgKind::StealerUpdate => {
                        Some(if h.counters().get(Counter::StealAttempts) != steals0 { Op::StealMatch } else { Op::ManagerUpdate })
                    }
                    _ => None,
                };
                if let Some(op) = op {
                    crate::stats::timed_since(h.counters(), op, t0);
                }
            }
            // Reduction tokens this worker's managers received in this drain go
            // up together; if that was to itself (a higher level it hosts),
            // handle them now.
            if !self.forward_tokens(h) {
                break;
            }
        }
        h.counters().enter(resume);
        self.refresh_limit();
    }

    #[inline]
    fn recv_deferred(&self, mb: &Mailbox) -> Option<Msg> {
        if self.notify == Notify::Poll {
            return mb.recv();
        }
        let _section = interrupt::defer();
        mb.recv()
    }

    fn on_message(&self, h: &Handles, m: Msg) {
        let src = m.src as usize;
        let w = m.words;
        match m.kind {
            MsgKind::Task => {
                if w[0] != 0 {
                    // Busy before the task stops counting as on its way
                    // (`Shared::unblock_epoch`). (A rescue that took the job
                    // out of this message moved its count to the answer.)
                    self.now_busy(h);
                    self.shared().in_flight.fetch_sub(1, Ordering::SeqCst);
                    // SAFETY: the victim sent a pointer to a job it took off its queue
                    // and will not run itself. Marked, so that handing it on keeps
                    // the owner written by the first hand-over.
                    self.private.push(unsafe { JobRef::from_ptr(w[0] as *mut _) }.mark_received());
                    // Once per task, however often it moves (a worker hands
                    // on what it was handed: `take_oldest_work`).
                    h.counters().count(Counter::TasksStolen, u64::from(!word_was_received(w[0])));
                }
                if w[1] == HANDOFF {
                    // Handed over while this worker was idle: it runs this
                    // task next, so its count is what else it holds. Its
                    // manager hears only if that changes what it believes.
                    h.counters().count(Counter::Steals, 1);
                    self.unblocked.set(false);
                    let len = self.pending().saturating_sub(1);
                    if len != self.reported.get() {
                        self.report(h, len, false);
                    }
                } else if w[1] != 0 {
                    h.counters().count(Counter::Steals, 1);
                    let len = self.pending();
                    if len == 0 {
                        // This counts as this worker's starving report: the
                        // reduction tokens it holds must not wait for another.
                        self.send_reduction_tokens(h);
                    }
                    self.starving_reported.set(len == 0);
                    self.believed_starving.set(len == 0);
                    self.believed_waiting.set(false);
                    self.unblocked.set(false);
                    self.set_report_at(h, len);
                    self.send(h, self.level0_host(h), MsgKind::StealerUpdate, &[0, len, (len == 0) as usize]);
                }
            }
            MsgKind::Steal if w[0] == WORKER => self.give_tasks(h, w[1], w[2]),
            MsgKind::Unblock if w[0] == WORKER => {
                // The epoch the sender saw: an UNBLOCK decided before a job
                // came in from outside is out of date when it arrives.
                self.unblocked.set(true);
                self.unblocked_epoch.set(w[1]);
            }
            // SAFETY: the root sends PHASE_DONE to the phase's caller, which
            // waits for it (tokens.rs).
            MsgKind::PhaseDone if w[0] == WORKER => unsafe { tokens::deliver(w[1], w[2]) },
            _ => self.on_manager_message(h, m.kind, src, w),
        }
    }

    /// Victim side of `STEAL`: send up to `k` of the oldest tasks to
    /// `stealer`: the oldest marked `join` continuations first (the outermost,
    /// usually the largest), then the oldest tasks of the private queue.
    /// Table 5's "send task": timed one by one, whether a STEAL asked for
    /// the tasks or a sleeper is fed directly.
    fn give_tasks(&self, h: &Handles, stealer: usize, k: usize) {
        crate::stats::timed(h.counters(), Op::SendTask, || self.give_tasks_untimed(h, stealer, k))
    }

    fn give_tasks_untimed(&self, h: &Handles, stealer: usize, k: usize) {
        let mut jobs: Vec<JobRef> = Vec::with_capacity(k.min(16));
        self.take_oldest_work(h, k, |j| jobs.push(j));
        let n = jobs.len();
        for (i, j) in jobs.into_iter().enumerate() {
            // Until the stealer is flagged busy (`Shared::unblock_epoch`).
            self.shared().in_flight.fetch_add(1, Ordering::SeqCst);
            self.send(h, stealer, MsgKind::Task, &[j.to_word(), (i + 1 == n) as usize]);
        }
        if n == 0 {
            self.send(h, stealer, MsgKind::Task, &[0, 1]);
        }
        let left = self.pending();
        self.set_report_at(h, left);
        self.send(h, self.level0_host(h), MsgKind::VictimUpdate, &[0, left, n]);
    }

    fn on_manager_message(&self, h: &Handles, kind: MsgKind, src: usize, w: [usize; 6]) {
        let level = w[0] as u32;
        let tree = self.tree;
        let actions = {
            let mut managers = self.managers.borrow_mut();
            let Some(node) = managers.get_mut(level as usize) else {
                debug_assert!(false, "worker {} got {kind:?} for level {level} it does not host", h.index);
                return;
            };
            // The child a message comes from: a worker at level 0, else the child
            // partition whose manager's host sent it.
            let child = if level == 0 { src } else { tree.partition_of(level - 1, src) };
            let is_root = level == tree.root();
            let tokens = |phase, enqueued, ran, partial, armed| PhaseTokens { phase, enqueued, ran, partial, armed };
            // SAFETY (all three): a message names a phase only while carrying
            // tokens the root has not counted yet, so the phase is live (tokens.rs).
            let mut done = None;
            let actions = match kind {
                MsgKind::Update => {
                    if w[3] != 0 {
                        done = unsafe { tokens::absorb_tokens(&mut node.tokens, tokens(w[3], 0, w[4], w[5], false), is_root) };
                    }
                    let (starving, waiting) = starving_flags(w[2]);
                    node.on_update_waiting(&tree, child, w[1], starving, waiting)
                }
                MsgKind::Reduce => {
                    done = unsafe { tokens::absorb_tokens(&mut node.tokens, tokens(w[1], 0, w[2], w[3], false), is_root) };
                    Vec::new()
                }
                MsgKind::Enqueued => {
                    debug_assert!(is_root, "enqueue counts go to the root");
                    done = unsafe { tokens::absorb_tokens(&mut node.tokens, tokens(w[1], w[2], 0, 0, w[3] != 0), is_root) };
                    Vec::new()
                }
                MsgKind::VictimUpdate => node.on_victim_update(&tree, child, w[1]),
                MsgKind::StealerUpdate => node.on_stealer_update(&tree, child, w[1], w[2] != 0),
                MsgKind::Steal => node.distribute(&tree, w[1], w[2]),
                MsgKind::Unblock => vec![Action::Unblock],
                MsgKind::Task | MsgKind::PhaseDone => Vec::new(),
            };
            if let Some((caller, result)) = done {
                let phase = if kind == MsgKind::Update { w[3] } else { w[1] };
                self.send(h, caller, MsgKind::PhaseDone, &[WORKER, phase, result]);
            }
            actions
        };
        // An UNBLOCK from above carries the epoch its root decided it at.
        let epoch = (kind == MsgKind::Unblock).then_some(w[1]);
        self.carry_out(h, level, actions, epoch);
    }

    /// Pass the reduction tokens this worker's non-root managers hold up to
    /// their parents (`REDUCE`). Returns whether one went to this worker itself.
    fn forward_tokens(&self, h: &Handles) -> bool {
        let tree = self.tree;
        let mut to_self = false;
        loop {
            let next = {
                let mut managers = self.managers.borrow_mut();
                managers.iter_mut().filter(|m| m.level < tree.root()).find_map(|m| m.tokens.take_any().map(|t| (m.level, t)))
            };
            let Some((level, t)) = next else { break };
            let parent = tree.host(level + 1, tree.partition_of(level + 1, h.index));
            self.send(h, parent, MsgKind::Reduce, &[(level + 1) as usize, t.phase, t.ran, t.partial]);
            to_self |= parent == h.index;
        }
        to_self
    }

    /// Deliver the actions of the manager this worker hosts at `level`
    /// (`policy::adm::route`): a manager elsewhere is reached through the
    /// worker that hosts it.
    ///
    /// An `UNBLOCK` carries the epoch at which the root decided it
    /// (`Shared::unblock_epoch`), down every level, not the epoch when a
    /// lower manager's host passes it on: that host may do so only after a
    /// job came in from outside and its tasks were handed to idle workers
    /// that are not flagged busy yet, and an epoch read then would look
    /// current, leaving its workers parked for good beside that work.
    /// `epoch`: the one an `UNBLOCK` from above carried (`None`: this is the
    /// root, deciding now).
    fn carry_out(&self, h: &Handles, level: u32, actions: Vec<Action>, epoch: Option<usize>) {
        let tree = self.tree;
        let part = tree.partition_of(level, h.index);
        for route in actions.into_iter().flat_map(|a| policy_route(&tree, level, part, a)) {
            match route {
                Route::StealWorker { victim, stealer, k } => self.send(h, victim, MsgKind::Steal, &[WORKER, stealer, k]),
                Route::StealPartition { level, part, stealer_first, k } => {
                    self.send(h, tree.host(level, part), MsgKind::Steal, &[level as usize, stealer_first, k])
                }
                Route::Update { level, part, count, starving, waiting, .. } => {
                    let starving = starving_word(starving, waiting);
                    // One phase's reduction tokens ride along, if this manager holds any.
                    let t = self.managers.borrow_mut().get_mut(level as usize - 1).and_then(|m| m.tokens.take_any());
                    let host = tree.host(level, part);
                    match t {
                        Some(t) => self.send(h, host, MsgKind::Update, &[level as usize, count, starving, t.phase, t.ran, t.partial]),
                        None => self.send(h, host, MsgKind::Update, &[level as usize, count, starving]),
                    }
                }
                Route::UnblockWorker(w) => self.send(h, w, MsgKind::Unblock, &[WORKER, epoch.unwrap_or_else(|| self.shared().unblock_epoch())]),
                Route::UnblockPartition { level, part } => {
                    self.send(h, tree.host(level, part), MsgKind::Unblock, &[level as usize, epoch.unwrap_or_else(|| self.shared().unblock_epoch())])
                }
            }
        }
    }
}

impl Mechanism for AdmWorker {
    type Task = JobRef;
    const SEARCH: &'static [Source] = crate::policy::search::order(crate::policy::Mechanism::Adm);

    #[inline(always)]
    fn push(&self, h: &Handles, job: JobRef) {
        self.push_job(h, job)
    }

    #[inline(always)]
    fn pop(&self, h: &Handles) -> Option<JobRef> {
        let j = match self.order {
            Order::Lifo => self.private.pop_back(),
            Order::Fifo => self.private.pop_front(),
        };
        let j = j?;
        if self.private.len().wrapping_sub(self.dec_lo.get()) <= self.dec_span.get() {
            self.decreased(h);
        }
        Some(self.leaving_private(h, j))
    }

    /// Inside a `join`'s wait, this worker's own older continuations may be
    /// marked above: run the newest, as it would pop its queue.
    fn find(&self, h: &Handles, source: Source, in_join: bool) -> Option<JobRef> {
        match source {
            Source::OwnMarks if in_join => self.marks.take_newest(self.marks.current_depth(), h.index),
            _ => None,
        }
    }

    #[inline]
    fn poll(&self, h: &Handles) {
        self.answer_rescue(Some(h));
        self.collect_rescue(h);
        self.handle_mail(h)
    }

    #[inline]
    fn found_work(&self, h: &Handles) {
        if self.outstanding.get().is_some() {
            self.settle_rescue(h);
        }
        self.starving_reported.set(false);
        self.starving_since.set(None);
        self.empty_rescues.set(0);
        self.empty_in_round.set(0);
        self.now_busy(h);
    }

    /// Back to the task that waited in a `join`: busy again. If it had gone
    /// idle while waiting, it bumps the epoch once flagged busy: its wait
    /// ended because another worker finished the other half, which no
    /// manager hears of, and that worker lowered its own flag before it
    /// released the latch; an `UNBLOCK` decided in between saw nobody busy
    /// and nothing on its way (`Shared::unblock_epoch`), and must not stand
    /// while this worker goes on to queue work and perhaps block.
    #[inline]
    fn resumed(&self, h: &Handles) {
        let was_idle = self.track_busy && self.shared().rescue[self.index].busy.load(Ordering::Relaxed) == 0;
        self.found_work(h);
        if was_idle {
            self.shared().epoch.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// A job from outside the pool starts here: every `UNBLOCK` the others
    /// received is out of date. Under `notify=interrupt`, wake them, so that
    /// they can interrupt this worker if it runs long without spawning.
    fn took_injected(&self, h: &Handles) {
        if self.notify != Notify::Poll && h.workers > 1 {
            self.unblocked.set(false);
            // Busy before the bump (`Shared::unblock_epoch`).
            self.now_busy(h);
            self.shared().epoch.fetch_add(1, Ordering::SeqCst);
            self.wake_deep_now_or_at_offer(h);
        }
    }

    /// Tell the manager, once, that this worker is starving.
    fn out_of_work(&self, h: &Handles, waiting: bool) {
        self.now_idle();
        if !self.starving_reported.get() {
            self.starving_reported.set(true);
            self.unblocked.set(false);
            h.hot.publish(h.counters(), self.gate_joins());
            // Its manager may still believe it starving, as it was when it
            // was last handed a task or resumed from a wait (neither is
            // reported: `on_message`, `after_offering`); then, with no token
            // to carry, there is nothing to say.
            let believed = self.believed_starving.get() && self.believed_waiting.get() == waiting && self.reported.get() == 0;
            if !believed || !tokens::none_here() {
                self.report_starving(h, waiting);
            }
        }
        self.try_rescue(h);
    }

    /// Under `notify=interrupt`, a starving worker not told `UNBLOCK` parks
    /// for the interval of its next attempt while another worker is busy (it
    /// may hold unshared work), and without a timeout otherwise (see
    /// `now_busy` for why it is then woken when that changes).
    fn park_timeout(&self, h: &Handles) -> Option<Duration> {
        let bound = self.notify.bound_us()?;
        // An answer may still come for an outstanding request (even after
        // `UNBLOCK`): look for it every bound.
        if self.outstanding.get().is_some() {
            return Some(Duration::from_micros(bound as u64));
        }
        let sh = self.shared();
        let epoch = sh.epoch.load(Ordering::SeqCst);
        if !self.deep.replace(true) {
            sh.deep_sleepers.fetch_add(1, Ordering::SeqCst);
        }
        // A task on its way makes its receiver busy soon (`Shared::in_flight`;
        // read after `deep_sleepers`, and the receiver flags itself busy
        // before it stops counting the task, so one of the two is seen).
        let others = self.other_busy() || sh.in_flight.load(Ordering::SeqCst) != 0;
        let t = park_timeout_us(self.notify, h.workers, self.nothing_left(), others, self.empty_rescues.get());
        if t.is_some() {
            self.leave_deep_sleep();
        } else {
            self.park_epoch.set(Some(epoch));
            // Woken by new work: the bound counts from then.
            self.starving_since.set(None);
        }
        t.map(Duration::from_micros)
    }

    #[inline]
    fn nothing_left(&self) -> bool {
        self.unblocked.get() && self.shared().epoch.load(Ordering::Relaxed) == self.unblocked_epoch.get()
    }

    /// Mail, or (parked without a timeout) a change of the epoch.
    #[inline]
    fn signal(&self) -> bool {
        self.mail().has_mail() || self.park_epoch.get().is_some_and(|e| e != self.shared().epoch.load(Ordering::Relaxed))
    }

    /// Split when mail waits (a steal request, perhaps) or nothing else is
    /// pending here.
    #[inline(always)]
    fn wants_split(&self, _h: &Handles) -> bool {
        crate::policy::split::adm(self.mail().has_mail(), || !self.any_pending())
    }

    #[inline(always)]
    fn gate_joins(&self) -> u64 {
        self.mail().gate.joins()
    }
}
