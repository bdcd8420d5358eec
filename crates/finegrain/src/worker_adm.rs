//! The worker side of the message-based policies (`adm-central`, `adm-hier`):
//! carrying the decisions of `policy/adm.rs` out through mailboxes.
//!
//! A worker receives at its scheduling points: when a spawn finds mail waiting
//! (one relaxed load per spawn), before and after each task it takes from its
//! queue, and in its idle loop. The manager role is a set of [`ManagerNode`]s
//! hosted by particular workers (level-0 manager of a group: its first worker)
//! and handled at the same points, like 000's workers that switch to the
//! manager role when a message arrives.
//!
//! Delay bound: a steal request waits at most until the victim's next
//! scheduling point. Every `join`, `spawn`, phase `enqueue` and graph node is
//! one, and loops check their mailbox before every chunk (and split the range
//! to answer a request), so the delay is bounded by the longest stretch of user
//! code without a spawn or a loop chunk — tasks in the papers' range (hundreds
//! to thousands of instructions) answer within microseconds. A task that is
//! long *and* opaque delays requests to its own worker only; tasks it has not
//! spawned yet cannot be stolen anyway.

use crate::job::JobRef;
use crate::mailbox::{Msg, MsgKind};
use crate::policy::adm::{next_report_threshold, Action, ManagerNode, PhaseTokens, Tree};
use crate::policy::{IdleAction, Policy, PolicyKind};
use crate::reduce::ReduceHead;
use crate::registry::Registry;
use crate::stats::{Bucket, Counter};
use crate::sync::{AtomicUsize, Ordering};
use crate::worker::WorkerThread;

/// `level` word of a message addressed to a worker rather than a manager.
pub(crate) const WORKER: usize = usize::MAX;

pub(crate) fn tree_of(p: &Policy, n: usize) -> Tree {
    if p.radix == 0 {
        Tree::central(n)
    } else {
        Tree::new(n, p.radix)
    }
}

/// Most tasks a victim sends per steal.
pub(crate) fn burst_of(p: &Policy) -> usize {
    match p.steal {
        crate::policy::StealAmount::UpTo(k) => k,
        _ => crate::mailbox::RING / 2,
    }
}

/// The manager roles worker `w` hosts, by level (none under
/// `manager=dedicated`: `manager_thread.rs` hosts them all).
pub(crate) fn hosted_managers(p: &Policy, n: usize, w: usize) -> Vec<ManagerNode> {
    if p.kind != PolicyKind::Messaging || p.dedicated_manager {
        return Vec::new();
    }
    let tree = tree_of(p, n);
    let burst = burst_of(p);
    (0..tree.levels).take_while(|&l| tree.hosts(l, w)).map(|l| ManagerNode::new(&tree, l, tree.partition_of(l, w), burst)).collect()
}

/// Deliver `msg` to the root manager: worker 0, or the manager thread.
pub(crate) fn send_to_root(reg: &Registry, msg: Msg) {
    match &reg.manager {
        Some(dm) => dm.send(msg),
        None => reg.send(0, msg),
    }
}

impl WorkerThread {
    /// Where this worker's level-0 manager runs: the group's first worker, or
    /// the manager thread (address `n`).
    fn level0_host(&self) -> usize {
        if self.registry().manager.is_some() {
            self.tree.n
        } else {
            self.tree.host(0, self.tree.partition_of(0, self.index))
        }
    }

    /// Where the root manager runs.
    fn root_host(&self) -> usize {
        if self.registry().manager.is_some() {
            self.tree.n
        } else {
            0
        }
    }

    /// `adm_send` to worker `dst`, or to the manager thread (`dst == n`).
    fn send(&self, dst: usize, kind: MsgKind, payload: &[usize]) {
        let reg = self.registry();
        let msg = Msg::new(kind, self.index, payload);
        match &reg.manager {
            Some(dm) if dst == self.tree.n => dm.send(msg),
            _ => reg.send(dst, msg),
        }
    }

    /// Report this worker's queue length to its manager (`UPDATE`).
    ///
    /// The manager now believes this worker busy, so the flag that stands for
    /// "my manager knows I am starving" is cleared: the next time this worker
    /// finds nothing it must say so again. (Without this, a worker that
    /// reported starving inside a `join`'s wait, then resumed the outer task
    /// and pushed, parked for good: its manager never paired it again.
    /// `tests/balance.rs`.)
    fn report(&self, len: usize, starving: bool) {
        self.starving_reported.set(starving);
        self.set_report_at(len);
        if self.tree.n > 1 {
            self.send(self.level0_host(), MsgKind::Update, &[0, len, starving as usize]);
        }
    }

    /// Report this worker starving (`UPDATE` with count 0), carrying the
    /// tokens of the phase reductions it took part in (design note in
    /// `reduce.rs`): first every enqueue count directly to the root, then the
    /// finished tasks and their partial results up the tree, one phase on the
    /// `UPDATE` itself and any others on `REDUCE` messages.
    fn report_starving(&self) {
        self.send_enqueue_tokens();
        let host = self.level0_host();
        let mut first: Option<PhaseTokens> = None;
        crate::reduce::take_finished(|t| match first {
            None => first = Some(t),
            Some(_) => self.send(host, MsgKind::Reduce, &[0, t.phase, t.ran, t.partial]),
        });
        self.set_report_at(0);
        match first {
            Some(t) if self.tree.n > 1 => self.send(host, MsgKind::Update, &[0, 0, 1, t.phase, t.ran, t.partial]),
            Some(t) => self.send(host, MsgKind::Reduce, &[0, t.phase, t.ran, t.partial]),
            None if self.tree.n > 1 => self.send(host, MsgKind::Update, &[0, 0, 1]),
            None => {}
        }
    }

    /// All reduction tokens this worker holds, without an `UPDATE`: enqueue
    /// counts to the root, finished tasks on `REDUCE` messages up the tree.
    fn send_reduction_tokens(&self) {
        self.send_enqueue_tokens();
        let host = self.level0_host();
        crate::reduce::take_finished(|t| self.send(host, MsgKind::Reduce, &[0, t.phase, t.ran, t.partial]));
    }

    /// Every phase's count of tasks enqueued here, directly to the root. Sent
    /// before any task leaves this worker and before any report of finished
    /// tasks, so that the root never counts a task finished before it counts
    /// it enqueued.
    fn send_enqueue_tokens(&self) {
        let root = self.tree.root() as usize;
        let host = self.root_host();
        crate::reduce::take_enqueued(|phase, k| self.send(host, MsgKind::Enqueued, &[root, phase, k, 0]));
    }

    /// The caller of a piggybacked phase has enqueued all its initial tasks:
    /// tell the root how many are still counted here, and that the phase is armed.
    pub(crate) fn arm_reduction(&self, head: &ReduceHead<'_>) {
        let k = crate::reduce::take_enqueued_of(head.key());
        self.send(self.root_host(), MsgKind::Enqueued, &[self.tree.root() as usize, head.key(), k, 1]);
    }

    /// The manager now believes this worker holds `reported` tasks: the next
    /// `UPDATE` is due when the count reaches the next threshold. Marks are
    /// not counted one by one (that would put a shared counter back on every
    /// `join`), so the gate makes `join`s count them again only when the
    /// stack grows past twice its current depth, or at the very next `join`
    /// if the manager believes there is nothing here.
    fn set_report_at(&self, reported: usize) {
        if self.tree.n == 1 {
            self.report_at.set(usize::MAX);
            self.report_depth.set(usize::MAX);
        } else {
            self.report_at.set(next_report_threshold(reported));
            self.report_depth.set(if reported == 0 { 0 } else { self.marks.current_depth().saturating_mul(2) });
        }
        self.refresh_limit();
    }

    /// Tasks waiting here: the private queue and the live marks above the
    /// caller's frame.
    fn pending(&self) -> usize {
        self.private.len() + self.marks.count(self.marks.current_depth())
    }

    /// Recompute the gate's limit (`gate.rs`): the depth at which a `join`
    /// counts its pending work again, capped at the mark region. Ordering: the
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

    /// A spawn reached its limit: buffer full, an UPDATE due, or mail waiting.
    ///
    /// If some worker is asleep right now, hand it our oldest task directly
    /// instead of waiting for the manager's `STEAL`: the code this worker runs
    /// next may not reach a scheduling point for a while (a long task that does
    /// not spawn), and a request sent meanwhile would wait for it. This bounds
    /// the delay for the common case of a worker that starts producing work
    /// while others sleep (measured by `tests/idle.rs`).
    #[cold]
    #[inline(never)]
    pub(crate) fn push_slow(&self, job: JobRef) {
        self.private.push(job);
        self.after_offering(self.pending());
    }

    /// A `join` at depth `d` has marked its job but its gate said no: mail is
    /// waiting, or the pending work is due to be counted (the stack passed
    /// `report_depth`). The same duties as a queue push's slow path.
    #[cold]
    #[inline(never)]
    pub(crate) fn join_slow_duties(&self, d: usize) {
        let n = self.pending();
        if d >= self.report_depth.get() && n < self.report_at.get() {
            // Counted, no UPDATE due: look again when the stack is twice as deep.
            self.report_depth.set(d.saturating_mul(2).max(d + 64));
        }
        self.after_offering(n);
    }

    /// After a task was queued or marked on a slow path, with `n` tasks now
    /// pending here: send the `UPDATE` if due, answer mail, feed a sleeper,
    /// reset the gate.
    fn after_offering(&self, n: usize) {
        if n >= self.report_at.get() {
            self.report(n, false);
        }
        self.handle_mail();
        if let Some(s) = self.registry().sleep.a_sleeper_other_than(self.index) {
            // Anything left after the mail: a look, not a count.
            if self.private.len() > 0 || self.marks.any_live(self.marks.current_depth()) {
                self.give_tasks(s, 1);
            }
        }
        self.refresh_limit();
    }

    /// `adm_rx` every waiting message and act on it.
    pub(crate) fn handle_mail(&self) {
        let mb = self.mail();
        if !mb.has_mail() {
            return;
        }
        let resume = self.counters().current();
        loop {
            mb.begin_drain();
            while let Some(m) = mb.recv() {
                self.counters().count(Counter::Messages, 1);
                let manager_msg = !matches!(m.kind, MsgKind::Task) && m.words[0] != WORKER;
                self.counters().enter(if manager_msg { Bucket::HandlerManager } else { Bucket::HandlerWorker });
                self.on_message(m);
            }
            // Reduction tokens this worker's managers received in this drain go
            // up together; if that was to itself (a higher level it hosts),
            // handle them now.
            if !self.forward_tokens() {
                break;
            }
        }
        self.counters().enter(resume);
        self.refresh_limit();
    }

    fn on_message(&self, m: Msg) {
        let src = m.src as usize;
        let w = m.words;
        match m.kind {
            MsgKind::Task => {
                if w[0] != 0 {
                    // SAFETY: the victim sent a pointer to a job it took off its queue
                    // and will not run itself. Marked, so that handing it on keeps
                    // the owner written by the first hand-over.
                    self.private.push(unsafe { JobRef::from_ptr(w[0] as *mut _) }.mark_received());
                    self.counters().count(Counter::TasksStolen, 1);
                }
                if w[1] != 0 {
                    self.counters().count(Counter::Steals, 1);
                    let len = self.pending();
                    if len == 0 {
                        // This counts as this worker's starving report: the
                        // reduction tokens it holds must not wait for another.
                        self.send_reduction_tokens();
                    }
                    self.starving_reported.set(len == 0);
                    self.unblocked.set(false);
                    self.set_report_at(len);
                    self.send(self.level0_host(), MsgKind::StealerUpdate, &[0, len, (len == 0) as usize]);
                }
            }
            MsgKind::Steal if w[0] == WORKER => self.give_tasks(w[1], w[2]),
            MsgKind::Unblock if w[0] == WORKER => self.unblocked.set(true),
            // SAFETY: the root sends PHASE_DONE to the phase's caller, which
            // waits for it (reduce.rs).
            MsgKind::PhaseDone if w[0] == WORKER => unsafe { crate::reduce::deliver(w[1], w[2]) },
            _ => self.on_manager_message(m.kind, src, w),
        }
    }

    /// Victim side of `STEAL`: send up to `k` of the oldest tasks to
    /// `stealer`: the oldest marked `join` continuations first (the outermost,
    /// usually the largest), then the oldest tasks of the private queue.
    fn give_tasks(&self, stealer: usize, k: usize) {
        self.send_enqueue_tokens();
        let mut jobs: Vec<JobRef> = Vec::with_capacity(k.min(16));
        self.marks.take_oldest(self.marks.current_depth(), k, self.index, |j| jobs.push(j));
        while jobs.len() < k {
            match self.private.pop_front() {
                Some(j) => jobs.push(self.leaving_private(j)),
                None => break,
            }
        }
        let n = jobs.len();
        for (i, j) in jobs.into_iter().enumerate() {
            self.send(stealer, MsgKind::Task, &[j.header() as usize, (i + 1 == n) as usize]);
        }
        if n == 0 {
            self.send(stealer, MsgKind::Task, &[0, 1]);
        }
        let left = self.pending();
        self.set_report_at(left);
        self.send(self.level0_host(), MsgKind::VictimUpdate, &[0, left, n]);
    }

    fn on_manager_message(&self, kind: MsgKind, src: usize, w: [usize; 6]) {
        let level = w[0] as u32;
        let tree = self.tree;
        let actions = {
            let mut managers = self.managers.borrow_mut();
            let Some(node) = managers.get_mut(level as usize) else {
                debug_assert!(false, "worker {} got {kind:?} for level {level} it does not host", self.index);
                return;
            };
            // The child a message comes from: a worker at level 0, else the child
            // partition whose manager's host sent it.
            let child = if level == 0 { src } else { tree.partition_of(level - 1, src) };
            let is_root = level == tree.root();
            let tokens = |phase, enqueued, ran, partial, armed| PhaseTokens { phase, enqueued, ran, partial, armed };
            // SAFETY (all three): a message names a phase only while carrying
            // tokens the root has not counted yet, so the phase is live (reduce.rs).
            let mut done = None;
            let actions = match kind {
                MsgKind::Update => {
                    if w[3] != 0 {
                        done = unsafe { crate::reduce::absorb_tokens(&mut node.tokens, tokens(w[3], 0, w[4], w[5], false), is_root) };
                    }
                    node.on_update(&tree, child, w[1], w[2] != 0)
                }
                MsgKind::Reduce => {
                    done = unsafe { crate::reduce::absorb_tokens(&mut node.tokens, tokens(w[1], 0, w[2], w[3], false), is_root) };
                    Vec::new()
                }
                MsgKind::Enqueued => {
                    debug_assert!(is_root, "enqueue counts go to the root");
                    done = unsafe { crate::reduce::absorb_tokens(&mut node.tokens, tokens(w[1], w[2], 0, 0, w[3] != 0), is_root) };
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
                self.send(caller, MsgKind::PhaseDone, &[WORKER, phase, result]);
            }
            actions
        };
        self.carry_out(level, actions);
    }

    /// Pass the reduction tokens this worker's non-root managers hold up to
    /// their parents (`REDUCE`). Returns whether one went to this worker itself.
    fn forward_tokens(&self) -> bool {
        let tree = self.tree;
        let mut to_self = false;
        loop {
            let next = {
                let mut managers = self.managers.borrow_mut();
                managers.iter_mut().filter(|m| m.level < tree.root()).find_map(|m| m.tokens.take_any().map(|t| (m.level, t)))
            };
            let Some((level, t)) = next else { break };
            let parent = tree.host(level + 1, tree.partition_of(level + 1, self.index));
            self.send(parent, MsgKind::Reduce, &[(level + 1) as usize, t.phase, t.ran, t.partial]);
            to_self |= parent == self.index;
        }
        to_self
    }

    fn carry_out(&self, level: u32, actions: Vec<Action>) {
        let tree = self.tree;
        let part = tree.partition_of(level, self.index);
        for a in actions {
            match a {
                Action::Steal { victim, stealer_first, k } => {
                    if level == 0 {
                        self.send(victim, MsgKind::Steal, &[WORKER, stealer_first, k]);
                    } else {
                        self.send(tree.host(level - 1, victim), MsgKind::Steal, &[(level - 1) as usize, stealer_first, k]);
                    }
                }
                Action::Update { count, starving } => {
                    let parent = tree.host(level + 1, part / tree.radix);
                    // One phase's reduction tokens ride along, if this manager holds any.
                    let t = self.managers.borrow_mut().get_mut(level as usize).and_then(|m| m.tokens.take_any());
                    match t {
                        Some(t) => self.send(parent, MsgKind::Update, &[(level + 1) as usize, count, starving as usize, t.phase, t.ran, t.partial]),
                        None => self.send(parent, MsgKind::Update, &[(level + 1) as usize, count, starving as usize]),
                    }
                }
                Action::Unblock => {
                    for c in tree.children(level, part) {
                        if level == 0 {
                            self.send(c, MsgKind::Unblock, &[WORKER]);
                        } else {
                            self.send(tree.host(level - 1, c), MsgKind::Unblock, &[(level - 1) as usize]);
                        }
                    }
                }
            }
        }
    }

    /// Entry from `WorkerThread::main_loop` (no latch) and `wait_until`: under
    /// `manager=dedicated`, worker 0's main loop starts the manager thread
    /// and joins it when the loop ends (`manager_thread.rs`).
    #[cold]
    pub(crate) fn work_until_adm(&self, latch: Option<&AtomicUsize>, done: impl Fn() -> bool) {
        let reg = self.registry();
        match (&reg.manager, latch) {
            (Some(dm), None) if self.index == 0 => self.main_loop_with_manager_thread(dm, done),
            _ => self.run_until_adm(latch, done),
        }
    }

    #[cold]
    fn main_loop_with_manager_thread(&self, dm: &crate::manager_thread::Dedicated, done: impl Fn() -> bool) {
        let reg = self.registry();
        // Named after the workers: `<prefix>-0` gives `<prefix>-manager`.
        let me = std::thread::current();
        let prefix = me.name().and_then(|n| n.strip_suffix("-0")).unwrap_or("finegrain");
        std::thread::scope(|s| {
            let manager = match std::thread::Builder::new().name(format!("{prefix}-manager")).spawn_scoped(s, || crate::manager_thread::run(reg, dm))
            {
                Ok(h) => h,
                Err(e) => panic!("finegrain: cannot start the manager thread: {e}"),
            };
            self.run_until_adm(None, done);
            dm.request_stop();
            // Joined here (not only by the scope), so the OS thread has exited
            // before worker 0 does.
            if let Err(p) = manager.join() {
                std::panic::resume_unwind(p);
            }
        });
    }

    /// The idle loop of the message-based policies: run own tasks, answer mail,
    /// tell the manager when starving, park when told there is nothing to steal.
    #[cold]
    pub(crate) fn run_until_adm(&self, latch: Option<&AtomicUsize>, done: impl Fn() -> bool) {
        let reg = self.registry();
        let idle = reg.policy.idle;
        let resume = self.counters().current();
        let mut failed: u32 = 0;
        let here = self.marks.current_depth();
        let mut no_marks = false;
        loop {
            self.handle_mail();
            if done() {
                break;
            }
            // Inside a `join` (a latch to wait on), this worker's own older
            // continuations may be marked above: run the newest, as it would
            // pop its queue. Once none is found none can appear above this
            // frame while it waits (new marks are deeper and cleared before
            // the task that made them returns), so the scan is not repeated.
            let job = self.pop().or_else(|| {
                if latch.is_none() || no_marks {
                    return None;
                }
                let j = self.marks.take_newest(here, self.index);
                no_marks = j.is_none();
                j
            });
            let job = job.or_else(|| self.take_injected());
            if let Some(j) = job {
                self.starving_reported.set(false);
                self.counters().enter(Bucket::Task);
                self.execute(j);
                failed = 0;
                continue;
            }
            // Out of work: release the units of tree-reduced phases held (`owed.rs`).
            crate::owed::flush();
            self.counters().enter(Bucket::StealFail);
            if !self.starving_reported.get() {
                self.starving_reported.set(true);
                self.unblocked.set(false);
                self.flush_counters();
                self.report_starving();
            }
            let action = if self.unblocked.get() { IdleAction::Park } else { idle.action(failed) };
            match action {
                IdleAction::Spin => {
                    for _ in 0..(1u32 << failed.min(6)) {
                        if self.mail().has_mail() {
                            break;
                        }
                        std::hint::spin_loop();
                    }
                }
                IdleAction::Yield => crate::sync::thread::yield_now(),
                IdleAction::Park => {
                    self.counters().enter(Bucket::Starved);
                    self.counters().count(Counter::Parks, 1);
                    let mb = self.mail();
                    reg.sleep.sleep(self.index, latch, || mb.has_mail() || !reg.injector.is_empty() || done() || reg.terminate_requested());
                    self.counters().enter(Bucket::StealFail);
                    failed = 0;
                    continue;
                }
            }
            failed = failed.saturating_add(1);
        }
        self.counters().enter(resume);
    }
}
