//! The pool-wide part of the message mechanism: every worker's mailbox, the
//! dedicated manager's if there is one, and how a message reaches them.

use super::dedicated::Dedicated;
use super::interrupt::Rescue;
use super::mailbox::{Mailbox, Msg};
use crate::policy::adm::Adm;
use crate::sleep::Sleep;
use crossbeam_utils::CachePadded;

// The mailbox ring is the paper's receive buffer, whose half is the default burst.
const _: () = assert!(super::mailbox::RING == crate::policy::adm::RECEIVE_BUFFER);

/// `level` word of a message addressed to a worker rather than a manager.
pub(crate) const WORKER: usize = usize::MAX;

/// Word 2 of an `UPDATE` or `STEALER_UPDATE`: bit 0, starving; bit 1,
/// starving while waiting for a `join` or scope
/// (`policy::adm::ManagerNode::on_update_waiting`); from bit 2 up, the
/// [`ends_word`] of the steal this report passes up
/// (`ManagerNode::on_update_ending`).
pub(crate) fn starving_word(starving: bool, waiting: bool, ends: Option<u32>) -> usize {
    starving as usize | ((starving && waiting) as usize) << 1 | ends_word(ends) << 2
}

/// The two flags of [`starving_word`].
pub(crate) fn starving_flags(w: usize) -> (bool, bool) {
    (w & 1 != 0, w & 2 != 0)
}

/// The end a [`starving_word`] passes up.
pub(crate) fn starving_ends(w: usize) -> Option<u32> {
    ends_of(w >> 2)
}

/// A steal's `ends` (`policy::adm::Action::Steal`) as one word of a
/// `STEAL`, `TASK` or `STEALER_UPDATE`: 0 for none, else the level plus one.
pub(crate) fn ends_word(ends: Option<u32>) -> usize {
    ends.map_or(0, |l| l as usize + 1)
}

/// The `ends` of an [`ends_word`].
pub(crate) fn ends_of(w: usize) -> Option<u32> {
    w.checked_sub(1).map(|l| l as u32)
}

/// The pool's mailboxes, and the dedicated manager's if there is one.
pub(crate) struct Shared {
    pub(crate) mailboxes: Box<[CachePadded<Mailbox>]>,
    /// `manager=dedicated`: the manager thread's mailbox (`manager_thread.rs`).
    pub(crate) manager: Option<Box<Dedicated>>,
    pub(crate) params: Adm,
    /// Every worker's interrupt record (`interrupt.rs`).
    pub(crate) rescue: Box<[CachePadded<Rescue>]>,
    /// Bumped when a worker told `UNBLOCK` finds work again (a job from
    /// outside the pool): an `UNBLOCK` received before is out of date.
    pub(crate) epoch: CachePadded<crate::sync::AtomicUsize>,
    /// Workers parked without a timeout under `notify=interrupt` (nobody was
    /// busy, or `UNBLOCK`): a worker that becomes busy wakes them
    /// (`AdmWorker::now_busy`).
    pub(crate) deep_sleepers: CachePadded<crate::sync::AtomicUsize>,
    /// Tasks on their way between workers: a `TASK` (a hand-off's, or a
    /// steal's) not yet received, a rescue's answer not yet collected. Counted up before the task leaves, down once its receiver
    /// is flagged busy (`unblock_epoch`).
    pub(crate) in_flight: CachePadded<crate::sync::AtomicUsize>,
}

impl Shared {
    pub(crate) fn new(n: usize, params: Adm) -> Shared {
        Shared {
            mailboxes: (0..n).map(|_| CachePadded::new(Mailbox::new())).collect(),
            manager: params.dedicated_manager.then(|| Box::new(Dedicated::new())),
            params,
            rescue: (0..n).map(|_| CachePadded::new(Rescue::default())).collect(),
            epoch: CachePadded::new(crate::sync::AtomicUsize::new(0)),
            deep_sleepers: CachePadded::new(crate::sync::AtomicUsize::new(0)),
            in_flight: CachePadded::new(crate::sync::AtomicUsize::new(0)),
        }
    }

    /// The epoch an `UNBLOCK` sent now carries. A manager decides `UNBLOCK`
    /// on the counts its workers last reported, which can be older than a
    /// job a worker has just taken from outside the pool, or a task handed
    /// to an idle worker (hand-offs and rescues are not reported). Such a
    /// worker is flagged busy before it bumps the epoch
    /// (`AdmWorker::took_injected`), and a task on its way is counted in
    /// `in_flight` until its receiver is flagged busy; here the epoch is read
    /// first, then `in_flight`, then the flags (all SeqCst). So an epoch that
    /// already includes a bump comes with its flag visible, and a task
    /// received between the two reads comes with its receiver's flag: the
    /// `UNBLOCK` then carries an epoch that is already out of date, and its
    /// receivers keep looking for work (and may interrupt the busy worker)
    /// instead of parking for good while that work blocks. Without the flags
    /// (`notify=poll`) nobody is ever flagged and this is the epoch.
    pub(crate) fn unblock_epoch(&self) -> usize {
        use crate::sync::Ordering::SeqCst;
        let e = self.epoch.load(SeqCst);
        if self.in_flight.load(SeqCst) != 0 || self.rescue.iter().any(|r| r.busy.load(SeqCst) != 0) {
            e.wrapping_sub(1)
        } else {
            e
        }
    }

    pub(crate) fn params(&self) -> Adm {
        self.params
    }

    pub(crate) fn workers(&self) -> usize {
        self.mailboxes.len()
    }

    pub(crate) fn dedicated(&self) -> Option<&Dedicated> {
        self.manager.as_deref()
    }

    /// `adm_send` to worker `dst`, or to the manager thread (`dst == n`),
    /// waking the receiver if it sleeps.
    pub(crate) fn send(&self, sleep: &Sleep, dst: usize, msg: Msg) {
        match &self.manager {
            Some(dm) if dst == self.mailboxes.len() => dm.send(msg),
            _ => {
                self.mailboxes[dst].send(msg);
                sleep.wake_if_sleeping(dst);
            }
        }
    }

    /// Deliver `msg` to the root manager: worker 0, or the manager thread.
    pub(crate) fn send_to_root(&self, sleep: &Sleep, msg: Msg) {
        let root = if self.manager.is_some() { self.mailboxes.len() } else { 0 };
        self.send(sleep, root, msg)
    }
}
