//! The manager roles a worker hosts (`manager=worker`, the default): a
//! message addressed to a manager level is decided by that level's
//! `ManagerNode` (`policy/adm/`) and its actions carried out as messages;
//! reduction tokens are forwarded up the tree. With `manager=dedicated` the
//! same decisions run on the manager thread (`manager_thread.rs`).

use super::mailbox::MsgKind;
use super::messaging::AdmWorker;
use super::shared::{ends_of, ends_word, starving_ends, starving_flags, starving_word, WORKER};
use super::tokens::{self};
use crate::mechanism::Handles;
use crate::policy::adm::{route as policy_route, Action, PhaseTokens, Route};

impl AdmWorker {
    pub(super) fn on_manager_message(&self, h: &Handles, kind: MsgKind, src: usize, w: [usize; 6]) {
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
                    node.on_update_ending(&tree, child, w[1], starving, waiting, starving_ends(w[2]))
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
                MsgKind::StealerUpdate => node.on_stealer_update(&tree, child, w[1], w[2] != 0, ends_of(w[3])),
                MsgKind::Steal => node.distribute(&tree, w[1], w[2], ends_of(w[3])),
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
    pub(super) fn forward_tokens(&self, h: &Handles) -> bool {
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
    pub(super) fn carry_out(&self, h: &Handles, level: u32, actions: Vec<Action>, epoch: Option<usize>) {
        let tree = self.tree;
        let part = tree.partition_of(level, h.index);
        for route in actions.into_iter().flat_map(|a| policy_route(&tree, level, part, a)) {
            match route {
                Route::StealWorker { victim, stealer, k, ends } => self.send(h, victim, MsgKind::Steal, &[WORKER, stealer, k, ends_word(ends)]),
                Route::StealPartition { level, part, stealer_first, k, ends } => {
                    self.send(h, tree.host(level, part), MsgKind::Steal, &[level as usize, stealer_first, k, ends_word(ends)])
                }
                Route::Update { level, part, count, starving, waiting, ends, .. } => {
                    let starving = starving_word(starving, waiting, ends);
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
