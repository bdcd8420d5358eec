//! `manager=dedicated` for `adm-central` and `adm-hier`: every manager role —
//! the one manager of `adm-central`, the whole tree of `adm-hier` — runs on
//! one extra thread that runs no tasks and blocks in a receive on its own
//! mailbox (Sanchez, Yoo, Kozyrakis, ASPLOS 2010, section 4.1: "a thread can act as
//! a dedicated worker, as a dedicated manager, or as both").
//!
//! The decisions are the same [`ManagerNode`] functions as with the default
//! `manager=worker`, where each manager is a role of its group's first worker;
//! only the routing differs. Workers address the manager thread as worker
//! `n` (one past the last worker) and send it what they would send their
//! level-0 manager or the root; messages between managers (`UPDATE`s up,
//! `STEAL`s and `UNBLOCK`s down, reduction tokens up) stay inside this thread,
//! on a local queue, instead of going through mailboxes.
//!
//! Parking: the thread announces it is about to sleep (`sleeping`), fences,
//! and re-checks its mailbox; a sender publishes its message (the mailbox's
//! send ends with a fence and the signal store), fences, and looks at
//! `sleeping`: one of the two sees the other (the Dekker pairing of
//! `sleep/README.md`). It is not one of the pool's sleepers, so a worker's
//! "new work" notification never picks it.
//!
//! Lifetime: worker 0 starts it when its main loop starts and joins it when
//! that loop ends (the pool's `terminate`), so it lives exactly as long as the
//! pool's workers and the pool joins it by joining worker 0.
//!
//! Invariants carried over from the worker-hosted managers: every message a
//! worker sends a manager reaches it (one mailbox, guaranteed delivery), each
//! worker's messages in order, and a message sent after another (by any chain
//! of messages) is received after it — the causal order the piggybacked
//! reductions need (`tokens.rs`): their enqueue counts and finished-task counts
//! now arrive in the same mailbox, and forwarding between levels happens here,
//! after receipt, so it only ever delays finished-task counts.

use super::dedicated::Dedicated;
use super::mailbox::{Msg, MsgKind};
use super::shared::{ends_of, ends_word, starving_ends, starving_flags, Shared, WORKER};
use super::tokens;
use crate::policy::adm::{route, Action, ManagerNode, PhaseTokens, Route, Tree};
use crate::sleep::Sleep;
use crate::stats::{Bucket, Counter, Op};
use crate::sync::Ordering;
use std::collections::VecDeque;

/// Work between managers, kept on this thread.
enum Event {
    /// Child partition `child` of (`level`, `part`) reports, with tokens.
    /// `ends`: the end of a steal it passes up.
    Update { level: u32, part: usize, child: usize, count: usize, starving: bool, waiting: bool, ends: Option<u32>, tokens: Option<PhaseTokens> },
    /// The parent asks partition (`level`, `part`) for `k` tasks.
    Steal { level: u32, part: usize, stealer_first: usize, k: usize, ends: Option<u32> },
    /// Nothing left anywhere: pass it down.
    /// `epoch`: the one its root decided it at (`AdmWorker::carry_out`).
    Unblock { level: u32, part: usize, epoch: usize },
}

struct Managers<'r> {
    shared: &'r Shared,
    sleep: &'r Sleep,
    tree: Tree,
    /// `nodes[level][partition]`.
    nodes: Vec<Vec<ManagerNode>>,
    events: VecDeque<Event>,
    /// This thread's address in messages.
    me: usize,
    /// `STEAL`s sent so far: a message whose handling sent one was a steal
    /// match (the time breakdown's `Op::StealMatch`).
    steals_sent: u64,
}

/// Run `work` (worker 0's main loop) with the manager thread beside it: the
/// thread starts first and is stopped and joined when `work` returns.
pub(crate) fn run_beside(shared: &Shared, sleep: &Sleep, dm: &Dedicated, work: impl FnOnce()) {
    // Named after the workers: `<prefix>-0` gives `<prefix>-manager`.
    let me = std::thread::current();
    let prefix = me.name().and_then(|n| n.strip_suffix("-0")).unwrap_or("finegrain");
    std::thread::scope(|s| {
        let manager = match std::thread::Builder::new().name(format!("{prefix}-manager")).spawn_scoped(s, || run(shared, sleep, dm)) {
            Ok(h) => h,
            Err(e) => panic!("finegrain: cannot start the manager thread: {e}"),
        };
        work();
        dm.request_stop();
        // Joined here (not only by the scope), so the OS thread has exited
        // before worker 0 does.
        if let Err(p) = manager.join() {
            std::panic::resume_unwind(p);
        }
    });
}

/// The manager thread: until stopped, receive, decide, send.
fn run(shared: &Shared, sleep: &Sleep, dm: &Dedicated) {
    let n = shared.workers();
    let tree = shared.params().tree(n);
    let nodes = shared.params().all_managers(n);
    let mut m = Managers { shared, sleep, tree, nodes, events: VecDeque::new(), me: n, steals_sent: 0 };
    // Its own row of the breakdown: handling (HandlerManager) or waiting.
    let c = &*dm.counters;
    while !dm.stop.load(Ordering::Acquire) {
        if !dm.mailbox.has_mail() {
            c.enter(Bucket::Starved);
            dm.park();
            continue;
        }
        c.enter(Bucket::HandlerManager);
        dm.mailbox.begin_drain();
        while let Some(msg) = dm.mailbox.recv() {
            c.count(Counter::Messages, 1);
            let (kind, steals0) = (msg.kind, m.steals_sent);
            let t0 = crate::stats::clock();
            m.on_worker_message(msg);
            m.run_events();
            if matches!(kind, MsgKind::Update | MsgKind::VictimUpdate | MsgKind::StealerUpdate) {
                crate::stats::timed_since(c, if m.steals_sent != steals0 { Op::StealMatch } else { Op::ManagerUpdate }, t0);
            }
        }
        // Tokens the level-0 (and inner) managers received in this drain go up
        // together, as with worker-hosted managers.
        m.forward_tokens();
        m.run_events();
    }
}

impl Managers<'_> {
    fn send(&self, worker: usize, kind: MsgKind, payload: &[usize]) {
        self.shared.send(self.sleep, worker, Msg::new(kind, self.me, payload));
    }

    /// A message from a worker: to its level-0 manager, or (enqueue counts)
    /// to the root.
    fn on_worker_message(&mut self, msg: Msg) {
        let w = msg.words;
        let src = msg.src as usize;
        let root = self.tree.root();
        let tokens = |phase, enqueued, ran, partial, armed| PhaseTokens { phase, enqueued, ran, partial, armed };
        match msg.kind {
            MsgKind::Enqueued => self.absorb(root, 0, tokens(w[1], w[2], 0, 0, w[3] != 0)),
            MsgKind::Reduce => self.absorb(0, self.tree.partition_of(0, src), tokens(w[1], 0, w[2], w[3], false)),
            MsgKind::Update | MsgKind::VictimUpdate | MsgKind::StealerUpdate => {
                let part = self.tree.partition_of(0, src);
                if msg.kind == MsgKind::Update && w[3] != 0 {
                    self.absorb(0, part, tokens(w[3], 0, w[4], w[5], false));
                }
                let tree = self.tree;
                let node = &mut self.nodes[0][part];
                let actions = match msg.kind {
                    MsgKind::Update => {
                        let (starving, waiting) = starving_flags(w[2]);
                        node.on_update_ending(&tree, src, w[1], starving, waiting, starving_ends(w[2]))
                    }
                    MsgKind::VictimUpdate => node.on_victim_update(&tree, src, w[1]),
                    _ => node.on_stealer_update(&tree, src, w[1], w[2] != 0, ends_of(w[3])),
                };
                self.carry_out(0, part, actions);
            }
            MsgKind::Steal | MsgKind::Task | MsgKind::Unblock | MsgKind::PhaseDone => {
                debug_assert!(false, "the manager thread got {:?} from worker {src}", msg.kind);
            }
        }
    }

    fn run_events(&mut self) {
        let tree = self.tree;
        while let Some(e) = self.events.pop_front() {
            let (level, part, actions) = match e {
                Event::Update { level, part, child, count, starving, waiting, ends, tokens } => {
                    if let Some(t) = tokens {
                        self.absorb(level, part, t);
                    }
                    (level, part, self.nodes[level as usize][part].on_update_ending(&tree, child, count, starving, waiting, ends))
                }
                Event::Steal { level, part, stealer_first, k, ends } => {
                    (level, part, self.nodes[level as usize][part].distribute(&tree, stealer_first, k, ends))
                }
                Event::Unblock { level, part, epoch } => {
                    self.carry_out_at(level, part, vec![Action::Unblock], Some(epoch));
                    continue;
                }
            };
            self.carry_out(level, part, actions);
        }
    }

    /// Add reduction tokens at (`level`, `part`); at the root, finish the
    /// phase if they complete it.
    fn absorb(&mut self, level: u32, part: usize, t: PhaseTokens) {
        let is_root = level == self.tree.root();
        let book = &mut self.nodes[level as usize][part].tokens;
        // SAFETY: a message names a phase only while it carries tokens the root
        // has not counted, so the phase is live (tokens.rs).
        if let Some((caller, result)) = unsafe { tokens::absorb_tokens(book, t, is_root) } {
            self.send(caller, MsgKind::PhaseDone, &[WORKER, t.phase, result]);
        }
    }

    /// Deliver the actions of manager (`level`, `part`) (`policy::adm::route`):
    /// to workers by message, to other managers on this thread's own queue.
    fn carry_out(&mut self, level: u32, part: usize, actions: Vec<Action>) {
        self.carry_out_at(level, part, actions, None)
    }

    /// `carry_out`, an `UNBLOCK` carrying `epoch` (`None`: decided now, at
    /// the root; see `AdmWorker::carry_out`).
    fn carry_out_at(&mut self, level: u32, part: usize, actions: Vec<Action>, epoch: Option<usize>) {
        let tree = self.tree;
        for r in actions.into_iter().flat_map(|a| route(&tree, level, part, a)) {
            match r {
                Route::StealWorker { victim, stealer, k, ends } => {
                    self.steals_sent += 1;
                    self.send(victim, MsgKind::Steal, &[WORKER, stealer, k, ends_word(ends)])
                }
                Route::StealPartition { level, part, stealer_first, k, ends } => {
                    self.events.push_back(Event::Steal { level, part, stealer_first, k, ends })
                }
                Route::Update { level, part, child, count, starving, waiting, ends } => {
                    let tokens = self.nodes[level as usize - 1][child].tokens.take_any();
                    self.events.push_back(Event::Update { level, part, child, count, starving, waiting, ends, tokens });
                }
                Route::UnblockWorker(w) => self.send(w, MsgKind::Unblock, &[WORKER, epoch.unwrap_or_else(|| self.shared.unblock_epoch())]),
                Route::UnblockPartition { level, part } => {
                    let epoch = epoch.unwrap_or_else(|| self.shared.unblock_epoch());
                    self.events.push_back(Event::Unblock { level, part, epoch })
                }
            }
        }
    }

    /// Pass every non-root manager's tokens to its parent, level by level
    /// from the bottom, so that one pass takes them all to the root.
    fn forward_tokens(&mut self) {
        let root = self.tree.root();
        for level in 0..root {
            for part in 0..self.nodes[level as usize].len() {
                while let Some(tokens) = self.nodes[level as usize][part].tokens.take_any() {
                    self.absorb(level + 1, part / self.tree.radix, tokens);
                }
            }
        }
    }
}
