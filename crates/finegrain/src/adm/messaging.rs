//! One worker's side of the message protocol: its private queue and frame
//! marks, its mailbox, its reports to its manager, and the manager roles it
//! hosts. Every decision comes from `policy/adm/`.

use super::frame_marks::FrameMarks;
use super::interrupt::{self};
use super::loop_ranges::LoopRanges;
use super::mailbox::{Mailbox, Msg, MsgKind};
use super::private_queue::PrivateQueue;
use super::shared::{Shared, WORKER};
use super::spawn_gate::Gate;
use super::tokens::{self};
use crate::job::{word_was_received, JobHeader, JobRef};
use crate::mechanism::{Handles, LoopStep, Mechanism};
use crate::policy::adm::{hand_to_idle, handoff_candidates, recount_depth, report_depth, Handoff, ManagerNode, Tree};
use crate::policy::notify::{park_timeout_us, Notify, VictimCall};
use crate::policy::search::Source;
use crate::policy::Order;
use crate::stats::{Bucket, Counter, Op};
use crate::sync::Ordering;
use std::cell::{Cell, RefCell};
use std::time::{Duration, Instant};

/// One worker's state under the message policies (owner only, but for the
/// mailbox, which any thread sends to).
pub(crate) struct AdmWorker {
    pub(super) shared: *const Shared,
    pub(super) mailbox: *const Mailbox,
    pub(super) order: Order,
    pub(super) private: PrivateQueue,
    /// Queue length at which the next UPDATE is due.
    pub(super) report_at: Cell<usize>,
    /// Queue lengths at which a decrease is reported, as
    /// `policy::adm::decrease_window` gives them: due iff
    /// `len.wrapping_sub(dec_lo) <= dec_span`.
    pub(super) dec_lo: Cell<usize>,
    pub(super) dec_span: Cell<usize>,
    /// Underflow threshold (`policy::adm::Adm::underflow`).
    pub(super) underflow: usize,
    /// `handoff=` (`policy::adm::Handoff`).
    pub(super) handoff: Handoff,
    /// The `busy` flags (`interrupt::Rescue`) are kept: for the interrupt,
    /// or for `handoff=idle`, which looks for a worker whose flag is down.
    pub(super) track_busy: bool,
    pub(super) tree: Tree,
    /// Manager nodes this worker hosts, by level.
    pub(super) managers: RefCell<Vec<ManagerNode>>,
    /// "My manager knows I am starving."
    pub(super) starving_reported: Cell<bool>,
    /// What this worker's last report to its manager said: the count, and
    /// whether it was starving (`UPDATE`, `STEALER_UPDATE`; a
    /// `VICTIM_UPDATE` sets the count alone).
    pub(super) reported: Cell<usize>,
    pub(super) believed_starving: Cell<bool>,
    pub(super) believed_waiting: Cell<bool>,
    /// `loops=range`: the running loop's chunks and the steals it owes (`victim.rs`).
    pub(super) ranges: LoopRanges,
    /// Told by the root that no task is left anywhere (`UNBLOCK`).
    pub(super) unblocked: Cell<bool>,
    /// Pending `join` continuations (`frame_marks.rs`).
    pub(super) marks: FrameMarks,
    /// Depth at which the next `join` counts its pending work again (see
    /// `refresh_limit`); 0: at the next `join`.
    pub(super) report_depth: Cell<usize>,
    pub(super) index: usize,
    pub(super) notify: Notify,
    /// When this worker last found no work, while it has found none since.
    pub(super) starving_since: Cell<Option<Instant>>,
    /// When it last interrupted a victim (`interrupt.rs`), and how often.
    pub(super) last_rescue: Cell<Option<Instant>>,
    pub(super) rescues: Cell<u64>,
    /// The victim of this worker's request that has not been answered yet.
    pub(super) outstanding: Cell<Option<usize>>,
    /// The last look at the outstanding request's victim
    /// (`policy::notify::interrupt_now`).
    pub(super) last_look: Cell<Option<VictimCall>>,
    /// Attempts in a row that got nothing.
    pub(super) empty_rescues: Cell<u32>,
    /// EMPTY answers so far in the current round (`policy::notify::empty_answer`).
    pub(super) empty_in_round: Cell<u32>,
    /// `Shared::epoch` when `UNBLOCK` arrived.
    pub(super) unblocked_epoch: Cell<usize>,
    /// `Shared::epoch` when the run of empty answers began: new work from
    /// outside ends the backoff.
    pub(super) rescue_epoch: Cell<usize>,
    /// Counted in `Shared::deep_sleepers`.
    pub(super) deep: Cell<bool>,
    /// `Shared::epoch` when this worker decided to park without a timeout: a
    /// change wakes it (`signal`).
    pub(super) park_epoch: Cell<Option<usize>>,
    /// Workers parked without a timeout are to be woken at this worker's
    /// next slow path (`policy::notify::wake_deep_sleepers`).
    pub(super) wake_deep_due: Cell<bool>,
}

/// `TASK`'s second word for a task handed to an idle worker outside any
/// steal (`AdmWorker::hand_over`); 1 ends a steal's burst, 0 is a burst's
/// earlier task.
pub(super) const HANDOFF: usize = 2;

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
            ranges: LoopRanges::new(&p),
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
    pub(super) fn shared(&self) -> &Shared {
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

    /// Tasks waiting here: the private queue and the live marks above the
    /// caller's frame.
    pub(super) fn pending(&self) -> usize {
        self.private.len() + self.marks.count(self.marks.current_depth()) + self.ranges.left.get()
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
    pub(super) fn any_pending(&self) -> bool {
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
    pub(super) fn push_uncounted(&self, h: &Handles, job: JobRef) {
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
    pub(super) fn after_offering(&self, h: &Handles, mut n: usize) {
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
    pub(super) fn hand_over(&self, h: &Handles, s: usize) -> bool {
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
    pub(super) fn take_oldest_work(&self, h: &Handles, k: usize, mut each: impl FnMut(JobRef)) {
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
    pub(super) fn an_idle_worker(&self, h: &Handles) -> Option<usize> {
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
    pub(super) fn decreased(&self, h: &Handles) {
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
    pub(super) fn recv_deferred(&self, mb: &Mailbox) -> Option<Msg> {
        if self.notify == Notify::Poll {
            return mb.recv();
        }
        let _section = interrupt::defer();
        mb.recv()
    }

    pub(super) fn on_message(&self, h: &Handles, m: Msg) {
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
                    // Word 2 of the last TASK: whose steal this ends.
                    self.send(h, self.level0_host(h), MsgKind::StealerUpdate, &[0, len, (len == 0) as usize, w[2]]);
                }
            }
            MsgKind::Steal if w[0] == WORKER => self.give_tasks(h, w[1], w[2], w[3]),
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
    fn loop_step(&self, h: &Handles, left: usize) -> LoopStep {
        self.range_step(h, left)
    }

    fn loop_cut_offered(&self, h: &Handles) {
        self.pay_owed(h)
    }

    #[inline(always)]
    fn loop_done(&self, h: &Handles) {
        self.range_done(h)
    }

    #[inline(always)]
    fn gate_joins(&self) -> u64 {
        self.mail().gate.joins()
    }
}
