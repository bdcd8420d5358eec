//! The dedicated manager thread's mailbox and parking (`manager=dedicated`;
//! the protocol is in `manager_thread.rs`'s notes, "Parking").

use super::mailbox::{Mailbox, Msg};
use crate::sync::{full_fence, AtomicBool, Ordering, Signal};
use crossbeam_utils::CachePadded;

/// The dedicated manager's mailbox and parking state (in the registry).
pub(crate) struct Dedicated {
    pub(crate) mailbox: CachePadded<Mailbox>,
    sleeping: CachePadded<AtomicBool>,
    woken: Signal,
    pub(crate) stop: AtomicBool,
    /// The manager thread's own row of the time breakdown (`stats/`): it
    /// handles messages (HandlerManager) or waits for them (Starved).
    pub(crate) counters: CachePadded<crate::stats::WorkerCounters>,
}

impl Dedicated {
    pub(crate) fn new() -> Dedicated {
        Dedicated {
            mailbox: CachePadded::new(Mailbox::new()),
            sleeping: CachePadded::new(AtomicBool::new(false)),
            woken: Signal::new(),
            stop: AtomicBool::new(false),
            counters: CachePadded::new(crate::stats::WorkerCounters::new()),
        }
    }

    /// `adm_send` to the manager thread: deliver, then wake it if it sleeps.
    pub(crate) fn send(&self, msg: Msg) {
        self.mailbox.send(msg);
        full_fence();
        if self.sleeping.load(Ordering::Relaxed) {
            self.unpark();
        }
    }

    fn unpark(&self) {
        self.woken.raise(false);
    }

    /// Block until mail (or the stop request) arrives.
    pub(crate) fn park(&self) {
        self.sleeping.store(true, Ordering::SeqCst);
        full_fence();
        if !self.mailbox.has_mail() && !self.stop.load(Ordering::Acquire) {
            self.woken.wait(true);
        }
        self.sleeping.store(false, Ordering::Relaxed);
    }

    /// Worker 0's main loop has ended: let the thread finish.
    pub(crate) fn request_stop(&self) {
        self.stop.store(true, Ordering::Release);
        self.unpark();
    }
}
