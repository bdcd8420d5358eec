//! Termination tokens of the message policies: the piggybacked end of a
//! phase and its reduction (Sanchez, Yoo, Kozyrakis, "Flexible Architectural
//! Support for Fine-Grain Scheduling", ASPLOS 2010, section 4.2: loop
//! reductions whose partial results ride up the manager tree on the messages
//! that detect termination).
//!
//! # Design note: piggybacked reduction and termination
//!
//! Each worker keeps, per unfinished phase, three thread-local numbers (its
//! *tokens*): `e`, tasks of the phase it enqueued; `r`, tasks of the phase it
//! ran to the end; and `partial`, the values of those `r` tasks combined. It
//! never touches another thread's memory to record them. They leave the worker
//! on two paths:
//!
//! - `e` goes **directly to the root manager** (an `ENQUEUED` message) — before
//!   any of its tasks leaves this worker (`give_tasks`, the only place a task
//!   is handed to another worker), and before each report that carries `r`.
//! - `r` and `partial` go **up the manager tree**, attached as three extra
//!   words to the `UPDATE` a worker sends when it finds no work (starving=1).
//!   A manager adds what its children send (combining partials with the
//!   phase's operator) and passes its sums on, on its own next upward `UPDATE`
//!   if one is due, else on a `REDUCE` message at the end of the same drain of
//!   its mailbox.
//!
//! The phase's caller enqueues the initial tasks, then sends its `e` directly
//! to the root marked *armed*. The root adds up every phase's `e` and `r` and
//! combines the partials; a phase is complete when it is armed and `r == e`.
//! The root then sends `PHASE_DONE` with the result to the caller, which was
//! running other tasks meanwhile and handles it at its next scheduling point.
//!
//! Why the root can never see `r == e` early. Write `e(t)` for the enqueue
//! token of task `t` and `r(t)` for its completion token, and E, R for the sets
//! the root has received. Two facts about delivery:
//!
//! 1. *Causal delivery into one mailbox*: if sending message `a` happens
//!    before sending `b` (same sender, or a chain of messages in between) and
//!    both go to the same mailbox, `a` is received first. Within the ring,
//!    `b`'s sender claims a later slot (it sees `a`'s claim of `tail`); if `a`
//!    went to the overflow queue, `b`'s sender sees `overflowing` and queues
//!    after `a`, unless the receiver has already emptied the queue, `a` with
//!    it; a message in the overflow queue is read only when the ring is empty
//!    (`mailbox/README.md`, tested there). The root manager's messages all
//!    arrive in one mailbox (worker 0's, or the manager thread's under
//!    `manager=dedicated`) and are handled in that order.
//! 2. *Managers keep each phase's tokens in order*: a manager passes on all it
//!    holds for a phase whenever it passes on any, so what it forwards is
//!    always everything it received before.
//!
//! Then, for every task `t` with parent `p` (the task that enqueued it):
//!
//! - (a) `r(t)` in R implies `e(t)` in E. If `t` left its enqueuer, `e(t)` was
//!   sent to the root before `t` left, so before `r(t)` was sent by whoever ran
//!   `t`, and the `r(t)` message reaches the root's mailbox through a chain of
//!   sends that starts after that: by 1, `e(t)` arrives first. If `t` never
//!   left, the worker that enqueued and ran it sent `e(t)` directly before (or
//!   in the flush just before) the report carrying `r(t)`; same argument.
//! - (b) `r(p)` in R implies `e(t)` in E: `e(t)` was recorded on `p`'s worker
//!   while `p` ran, so before `r(p)`, and `e`s are flushed directly to the root
//!   before any report that carries `r`; by 1 and 2 it arrives first.
//! - (c) once the phase is armed, E holds every initial task's `e`: the caller
//!   sent them before (or with) the arming message, on the same direct path.
//!
//! By (a), R ⊆ E (as sets of tasks), so `|R| == |E|` means R = E. By (c) every
//! initial task is in E = R, and by (b) so is every child of a task in R, and
//! every grandchild, ...: every task of the phase has run. No partial is lost
//! (each `r` carries its value in the same message as its count, and the root
//! waits for every `r`), and none is counted twice (a token leaves a worker's
//! or manager's books when it is sent, and a message is delivered once).
//!
//! Memory safety: messages name a phase by the address of its [`ReduceHead`],
//! on the caller's stack. A manager reads it only while it holds tokens of the
//! phase, which the root has not yet received, so before the root completes
//! the phase and the caller returns; a message never carries an empty set of
//! tokens. A phase with no initial task returns the identity without a message.
//!
//! Liveness: a worker sends its `r` when it next finds no work, which every
//! worker does once the phase's tasks run out unless it is busy with other work
//! (a long unrelated task delays the result by its length). Finishing a phase
//! task clears the worker's "starving reported" flag, so its next idle moment
//! reports even if it reported before the task (a task run inside a `join`'s
//! wait); and a worker that learns it is starving from an empty `TASK` answer
//! sends its tokens then (`REDUCE`), as that answer replaces its report. The
//! root is a role of worker 0 (or the manager thread) and runs at its
//! scheduling points, like every manager.
//!
//! Cost, in messages per phase: one arming message; one `ENQUEUED` per
//! worker that enqueued tasks and handed some away or went idle; the starving
//! `UPDATE`s workers send anyway, three words longer; one `REDUCE` per manager
//! whose sums no `UPDATE` carried; one `PHASE_DONE`.
//!
//! Measured cost against the tree method: `docs/policies.md`, "Reductions",
//! and `scripts/reduce_cost.sh`.

use crate::job::unwind::{combine_caught, Combine, PanicSlot};
use crate::policy::adm::{PhaseTokens, TokenBook};
use crate::sync::{AtomicBool, AtomicUsize, Ordering};
use std::cell::{Cell, RefCell};

/// A piggybacked phase's identity, on its caller's stack; messages name the
/// phase by this struct's address.
pub(crate) struct ReduceHead<'f> {
    combine: Combine<'f>,
    identity: usize,
    /// The worker that called the phase and waits for `PHASE_DONE`.
    caller: usize,
    /// Manager level of the root (for `ENQUEUED` sent by a thread that is not
    /// one of the pool's workers).
    pub(crate) root_level: u32,
    done: AtomicBool,
    result: AtomicUsize,
    /// Enqueue counts an interrupt handler took off its worker's books so
    /// that a queued task could leave (`lend_enqueued`): the root counts them
    /// as received.
    lent: AtomicUsize,
    /// A panic of the operator while a worker or manager combined partials.
    pub(crate) panic: PanicSlot,
}

impl<'f> ReduceHead<'f> {
    pub(crate) fn new(combine: Combine<'f>, identity: usize, caller: usize, root_level: u32) -> Self {
        ReduceHead {
            combine,
            identity,
            caller,
            root_level,
            done: AtomicBool::new(false),
            result: AtomicUsize::new(identity),
            lent: AtomicUsize::new(0),
            panic: PanicSlot::new(),
        }
    }

    /// The key messages carry.
    pub(crate) fn key(&self) -> usize {
        self as *const Self as usize
    }

    pub(crate) fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    pub(crate) fn result(&self) -> usize {
        self.result.load(Ordering::Relaxed)
    }
}

/// The head a message names.
///
/// # Safety
/// `key` came from [`ReduceHead::key`] of a phase that is not complete (see the
/// design note: a message naming a phase always carries tokens the root has not
/// received yet).
unsafe fn head<'a>(key: usize) -> &'a ReduceHead<'a> {
    // SAFETY: caller's contract.
    unsafe { &*(key as *const ReduceHead<'a>) }
}

/// A manager of `root` or below received `t`: add it to `book`. At the root,
/// returns `(caller, result)` if the phase is now complete.
///
/// # Safety
/// `t.phase` names a live phase (true of every message that carries tokens).
pub(crate) unsafe fn absorb_tokens(book: &mut TokenBook, t: PhaseTokens, is_root: bool) -> Option<(usize, usize)> {
    // SAFETY: caller's contract.
    let h = unsafe { head(t.phase) };
    book.add(t, |a, b| combine_caught(h.combine, &h.panic, a, b));
    if !is_root {
        return None;
    }
    book.take_complete(t.phase, h.lent.load(Ordering::Acquire)).map(|done| (h.caller, done.partial))
}

/// The caller's side of `PHASE_DONE`.
///
/// # Safety
/// `key` names a phase called by this worker and still waiting.
pub(crate) unsafe fn deliver(key: usize, result: usize) {
    // SAFETY: caller's contract.
    let h = unsafe { head(key) };
    h.result.store(result, Ordering::Relaxed);
    h.done.store(true, Ordering::Release);
}

/// One worker's tokens of one phase.
#[derive(Copy, Clone)]
struct Pending {
    /// The phase's key; 0 marks an unused entry.
    phase: usize,
    enqueued: usize,
    ran: usize,
    partial: usize,
}

const UNUSED: Pending = Pending { phase: 0, enqueued: 0, ran: 0, partial: 0 };

/// The calling worker's tokens, per unfinished piggybacked phase: the first in
/// plain cells (one phase at a time is the common case), others in a list.
/// Only workers of the phase's own pool write here.
struct Tokens {
    phase: Cell<usize>,
    enqueued: Cell<usize>,
    ran: Cell<usize>,
    partial: Cell<usize>,
    more: RefCell<Vec<Pending>>,
}

thread_local! {
    static TOKENS: Tokens = const {
        Tokens { phase: Cell::new(0), enqueued: Cell::new(0), ran: Cell::new(0), partial: Cell::new(0), more: RefCell::new(Vec::new()) }
    };
}

impl Tokens {
    fn get_first(&self) -> Pending {
        Pending { phase: self.phase.get(), enqueued: self.enqueued.get(), ran: self.ran.get(), partial: self.partial.get() }
    }
    fn set_first(&self, e: Pending) {
        self.phase.set(e.phase);
        self.enqueued.set(e.enqueued);
        self.ran.set(e.ran);
        self.partial.set(e.partial);
    }
}

/// Update this worker's entry for `key` (created with partial `identity` if
/// missing) outside the fast path.
#[cold]
fn with_other_entry(t: &Tokens, key: usize, identity: usize, f: impl FnOnce(&mut Pending)) {
    let fresh = Pending { phase: key, enqueued: 0, ran: 0, partial: identity };
    if t.phase.get() == 0 {
        let mut e = fresh;
        f(&mut e);
        return t.set_first(e);
    }
    let mut more = t.more.borrow_mut();
    let i = match more.iter().position(|e| e.phase == key) {
        Some(i) => i,
        None => {
            more.push(fresh);
            more.len() - 1
        }
    };
    f(&mut more[i])
}

/// A task of the phase was enqueued on this worker.
#[inline]
pub(crate) fn note_enqueued(h: &ReduceHead<'_>) {
    let _section = super::interrupt::defer();
    let key = h.key();
    TOKENS.with(|t| {
        if t.phase.get() == key {
            t.enqueued.set(t.enqueued.get() + 1);
        } else {
            with_other_entry(t, key, h.identity, |e| e.enqueued += 1);
        }
    })
}

/// A task of the phase finished on this worker with `value` (`None`: it panicked).
#[inline]
pub(crate) fn note_finished(h: &ReduceHead<'_>, value: Option<usize>) {
    let _section = super::interrupt::defer();
    let key = h.key();
    TOKENS.with(|t| {
        if t.phase.get() == key {
            if let Some(v) = value {
                t.partial.set(combine_caught(h.combine, &h.panic, t.partial.get(), v));
            }
            t.ran.set(t.ran.get() + 1);
        } else {
            with_other_entry(t, key, h.identity, |e| {
                if let Some(v) = value {
                    e.partial = combine_caught(h.combine, &h.panic, e.partial, v);
                }
                e.ran += 1;
            });
        }
    })
}

/// Visit every entry (and drop those `f` leaves empty).
fn for_each_entry(mut f: impl FnMut(&mut Pending)) {
    let _section = super::interrupt::defer();
    TOKENS.with(|t| {
        let mut e = t.get_first();
        if e.phase != 0 {
            f(&mut e);
            t.set_first(if e.enqueued == 0 && e.ran == 0 { UNUSED } else { e });
        }
        let mut more = t.more.borrow_mut();
        if !more.is_empty() {
            more.iter_mut().for_each(&mut f);
            more.retain(|e| e.enqueued > 0 || e.ran > 0);
        }
    })
}

/// Use this thread's tokens once, outside any signal handler: the first use
/// of a thread-local whose type has a destructor registers that destructor
/// (`__cxa_thread_atexit_impl`, which allocates), so it must not happen in
/// the interrupt handler (`interrupt.rs`), which lends them through
/// [`lend_enqueued`].
pub(crate) fn init_here() {
    TOKENS.with(|_| ());
}

/// Take every enqueue count waiting here off this worker's books and add it
/// to its phase's `lent`, which the root counts as received; returns whether
/// none is left waiting. Only then may a task leave the private queue
/// without `take_enqueued` first: the interrupt handler (`adm/interrupt.rs`),
/// which cannot send, calls this before it hands a queued task to a
/// requester, so that a phase task that enqueued a sibling and then blocks
/// (waiting for that sibling) gives it up. Why the root still never ends a
/// phase early: the count is in `lent` before the task leaves, so before any
/// report of it finishing is sent, and before any later report of this
/// worker's; the root reads `lent` (acquire) after receiving such a report,
/// at the end of a chain of messages that starts after the lending, so it
/// sees it. Only the handler writes the books outside a deferral section
/// (`note_enqueued` and the others run inside one), so it never interrupts
/// a read-modify-write of them. Async-signal-safe: cells and atomics, and
/// the list only if no borrow of it is live (else it answers no). Each
/// phase with a count here is live: the root cannot complete it before it
/// receives that count.
pub(crate) fn lend_enqueued() -> bool {
    TOKENS.with(|t| {
        let e = t.enqueued.get();
        if e > 0 {
            // SAFETY: a phase with enqueue counts here is live (above).
            unsafe { head(t.phase.get()) }.lent.fetch_add(e, Ordering::Release);
            t.enqueued.set(0);
        }
        match t.more.try_borrow_mut() {
            Ok(mut more) => {
                for p in more.iter_mut().filter(|p| p.enqueued > 0) {
                    // SAFETY: as above.
                    unsafe { head(p.phase) }.lent.fetch_add(p.enqueued, Ordering::Release);
                    p.enqueued = 0;
                }
                true
            }
            Err(_) => false,
        }
    })
}

/// Does this worker hold no token of any phase (nothing enqueued or
/// finished here that the root has not been told)?
pub(crate) fn none_here() -> bool {
    TOKENS.with(|t| t.get_first().phase == 0 && t.more.borrow().is_empty())
}

/// Hand every phase's enqueue count to `send` (phase, count) and clear it.
pub(crate) fn take_enqueued(mut send: impl FnMut(usize, usize)) {
    for_each_entry(|e| {
        if e.enqueued > 0 {
            send(e.phase, std::mem::take(&mut e.enqueued));
        }
    })
}

/// This phase's enqueue count, cleared.
pub(crate) fn take_enqueued_of(key: usize) -> usize {
    let mut n = 0;
    for_each_entry(|e| {
        if e.phase == key {
            n = std::mem::take(&mut e.enqueued);
        }
    });
    n
}

/// Hand every phase's finished-task tokens to `send` and forget them. Call
/// [`take_enqueued`] first (the enqueue counts must reach the root first).
pub(crate) fn take_finished(mut send: impl FnMut(PhaseTokens)) {
    for_each_entry(|e| {
        debug_assert_eq!(e.enqueued, 0, "enqueue counts are sent before finished tasks");
        if e.ran > 0 {
            send(PhaseTokens { phase: e.phase, enqueued: 0, ran: std::mem::take(&mut e.ran), partial: e.partial, armed: false });
        }
    })
}
