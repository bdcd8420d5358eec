//! Per-worker mailboxes of short messages: the mechanism under the message-based
//! policies (`adm-central`, `adm-hier`; protocol and measured cost in `README.md`
//! next to this file).
//!
//! A [`Mailbox`] takes messages from any number of senders and gives them to one
//! receiver: a 16-slot ring ([`RING`]) that overflows into a mutex-protected
//! queue, so a send never blocks and never drops, and each sender's messages
//! arrive in the order it sent them. The runtime gives every worker one and pairs
//! each send with its sleep protocol (a send wakes a parked receiver); the type
//! alone does not wake anyone, so a receiver outside the runtime polls
//! [`Mailbox::has_mail`]. It is public so that its cost can be measured on its own
//! (`finegrain-bench`'s `mailbox_cost`) and the protocol used directly.
//!
//! ```
//! use finegrain::mailbox::{Mailbox, Msg, MsgKind};
//! use std::sync::Arc;
//!
//! let mb = Arc::new(Mailbox::new());
//! let tx = Arc::clone(&mb);
//! // 40 messages: the first 16 fill the ring, the rest overflow.
//! std::thread::spawn(move || (0..40).for_each(|i| tx.send(Msg::new(MsgKind::Update, 1, &[i])))).join().unwrap();
//!
//! let mut got = Vec::new();
//! while mb.has_mail() {
//!     mb.begin_drain();
//!     // SAFETY: this thread is the mailbox's only receiver.
//!     while let Some(m) = unsafe { mb.try_recv() } {
//!         got.push(m.words[0]);
//!     }
//! }
//! assert_eq!(got, (0..40).collect::<Vec<_>>());
//! ```

#[cfg(all(test, loom))]
mod loom_tests;

use crate::adm::spawn_gate::Gate;
use crate::sync::{lock, try_lock, AtomicBool, AtomicUsize, Mutex, Ordering, UnsafeCell};
use crossbeam_utils::CachePadded;
use std::collections::VecDeque;
use std::mem::MaybeUninit;

/// Slots in the fast ring (Sanchez, Yoo, Kozyrakis, ASPLOS 2010, section 6: 64-word buffers, i.e. 16
/// four-word messages; `policy::adm::RECEIVE_BUFFER`); further messages wait in the overflow queue.
#[cfg(not(loom))]
pub const RING: usize = 16;
#[cfg(loom)]
pub const RING: usize = 2;

/// The kinds of the ADM runtimes' messages (Sanchez, Yoo, Kozyrakis, ASPLOS 2010, Table 2, plus the
/// three that carry phase reductions, section 4.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MsgKind {
    /// Worker/manager -> its manager: `[level, numtasks, starving]`, and
    /// optionally one phase's reduction tokens `[phase, tasks finished, partial]`
    /// in words 3-5 (0 in word 3: none).
    Update,
    /// Manager -> victim (or victim partition's manager): `[level, stealer, taskstotransfer]`.
    Steal,
    /// Victim -> stealer: `[task pointer (0 if none), islast]`.
    Task,
    /// Victim -> its manager: `[level, tasksleft, taskstransferred]`.
    VictimUpdate,
    /// Stealer -> its manager: `[level, numtasks]`.
    StealerUpdate,
    /// Manager -> workers: nothing to steal anywhere for now: `[level]`.
    Unblock,
    /// Worker/manager -> its manager: one phase's reduction tokens when no
    /// `UPDATE` is due to carry them: `[level, phase, tasks finished, partial]`.
    Reduce,
    /// Any thread -> the root manager, directly: tasks a phase enqueued, and
    /// whether its caller has enqueued them all: `[level, phase, tasks, armed]`.
    Enqueued,
    /// Root manager -> the worker that called a phase: the phase is over:
    /// `[level, phase, result]`.
    PhaseDone,
}

/// A message: a kind, a sender, and up to six words of payload (`adm_send`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Msg {
    /// What the message asks for.
    pub kind: MsgKind,
    /// The sender (in the runtime, its worker index).
    pub src: u32,
    /// Payload; the meaning of each word depends on `kind`.
    pub words: [usize; 6],
}

impl Msg {
    /// A message with `payload` in its first words and zeros after.
    ///
    /// # Panics
    /// If `payload` has more than 6 words.
    pub fn new(kind: MsgKind, src: usize, payload: &[usize]) -> Msg {
        let mut words = [0; 6];
        words[..payload.len()].copy_from_slice(payload);
        Msg { kind, src: src as u32, words }
    }
}

/// Ask for the line of `p` in exclusive state ahead of the stores to it
/// (`prefetchw`), so that the owner's copies of the lines a send writes (the
/// slot, the gate) are taken back in parallel rather than one after another
/// behind each fence. A hint: no effect on memory or on ordering.
#[inline(always)]
fn prefetch_for_write<T>(p: &T) {
    #[cfg(all(target_arch = "x86_64", not(loom)))]
    // SAFETY: a prefetch is a hint; it neither reads nor writes memory as far
    // as the program can tell, and `p` is a valid reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_ET0};
        _mm_prefetch::<_MM_HINT_ET0>((p as *const T).cast::<i8>());
    }
    #[cfg(not(all(target_arch = "x86_64", not(loom))))]
    let _ = p;
}

/// One line per slot: a sender writes one line and the receiver reads one.
#[repr(align(64))]
struct Slot {
    seq: AtomicUsize,
    msg: UnsafeCell<MaybeUninit<Msg>>,
}

/// One receiver's mailbox: a bounded ring of [`RING`] slots plus an unbounded
/// overflow queue. Any thread may [`send`](Mailbox::send); only one thread at a
/// time may receive ([`try_recv`](Mailbox::try_recv)). See the module
/// documentation for an example.
pub struct Mailbox {
    /// The owner's spawn gate (`spawn_gate.rs`): its queue top and the limit the
    /// top may not reach. The owner keeps the limit at "room left / next
    /// report due"; a sender drops it to zero after delivering, so the owner's
    /// only check per spawn also notices mail. See
    /// `AdmWorker::refresh_limit` for the ordering.
    pub(crate) gate: CachePadded<Gate>,
    tail: CachePadded<AtomicUsize>,
    head: CachePadded<AtomicUsize>,
    slots: Box<[Slot]>,
    overflowing: AtomicBool,
    overflow: Mutex<VecDeque<Msg>>,
}

// SAFETY: slot contents are handed from one sender to the receiver through the
// seq protocol; the overflow queue is under a mutex.
unsafe impl Send for Mailbox {}
unsafe impl Sync for Mailbox {}

impl std::fmt::Debug for Mailbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailbox")
            .field("head", &self.head.load(Ordering::Relaxed))
            .field("tail", &self.tail.load(Ordering::Relaxed))
            .field("overflowing", &self.overflowing.load(Ordering::Relaxed))
            .field("has_mail", &self.has_mail())
            .finish_non_exhaustive()
    }
}

impl Default for Mailbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Mailbox {
    /// An empty mailbox.
    pub fn new() -> Self {
        Mailbox {
            gate: CachePadded::new(Gate::new()),
            tail: CachePadded::new(AtomicUsize::new(0)),
            head: CachePadded::new(AtomicUsize::new(0)),
            slots: (0..RING).map(|i| Slot { seq: AtomicUsize::new(i), msg: UnsafeCell::new(MaybeUninit::uninit()) }).collect(),
            overflowing: AtomicBool::new(false),
            overflow: Mutex::new(VecDeque::new()),
        }
    }

    /// Anything to receive? One relaxed load: the owner's fast-path check. Set by
    /// every send, cleared by [`begin_drain`](Mailbox::begin_drain).
    #[inline(always)]
    pub fn has_mail(&self) -> bool {
        self.gate.signal.load(Ordering::Relaxed)
    }

    fn try_ring(&self, msg: Msg) -> bool {
        let mut t = self.tail.load(Ordering::Relaxed);
        loop {
            let slot = &self.slots[t % RING];
            prefetch_for_write(slot);
            let seq = slot.seq.load(Ordering::Acquire);
            if seq == t {
                match self.tail.compare_exchange_weak(t, t + 1, Ordering::Relaxed, Ordering::Relaxed) {
                    Ok(_) => {
                        // SAFETY: winning the CAS gives this sender the slot until it publishes.
                        slot.msg.with_mut(|m| unsafe { (*m).write(msg) });
                        slot.seq.store(t + 1, Ordering::Release);
                        return true;
                    }
                    Err(now) => t = now,
                }
            } else if seq < t {
                return false; // full: the slot still holds a message from a lap ago
            } else {
                t = self.tail.load(Ordering::Relaxed);
            }
        }
    }

    /// Deliver `msg` (`adm_send`); never blocks, never drops. Into the ring if
    /// it has room and nothing is waiting in the overflow queue, else into the
    /// overflow queue under its lock. Does not wake a parked receiver: the
    /// runtime's `Registry::send` does that after calling this.
    pub fn send(&self, msg: Msg) {
        prefetch_for_write(&*self.gate);
        if self.overflowing.load(Ordering::Acquire) || !self.try_ring(msg) {
            let mut q = lock(&self.overflow);
            q.push_back(msg);
            self.overflowing.store(true, Ordering::Release);
        }
        // The fence orders the message before the signal for a receiver that
        // clears the signal and then looks (found by the loom model: a release
        // publish plus a SeqCst signal store is not enough in the C11 model).
        crate::sync::full_fence();
        self.gate.signal.store(true, Ordering::SeqCst);
        self.gate.limit.store(0, Ordering::SeqCst);
    }

    /// Receiver only: clear the signal before draining, so a message sent during
    /// the drain sets it again. Then call [`try_recv`](Mailbox::try_recv) until
    /// it returns `None`.
    #[inline]
    pub fn begin_drain(&self) {
        self.gate.signal.store(false, Ordering::Relaxed);
        crate::sync::full_fence();
    }

    /// `adm_rx` without blocking: the next message, if any.
    ///
    /// `None` also while a sender has claimed a ring slot but not yet filled it;
    /// the signal then stays set, so a receiver that loops on
    /// [`has_mail`](Mailbox::has_mail) comes back for it.
    ///
    /// # Safety
    /// The caller is the mailbox's only receiver: no other thread calls
    /// `try_recv` on the same mailbox at the same time (two receivers could read
    /// a slot while a sender refills it).
    #[inline]
    pub unsafe fn try_recv(&self) -> Option<Msg> {
        self.recv()
    }

    /// [`try_recv`](Mailbox::try_recv) for the runtime, whose receiver is the
    /// mailbox's worker (the only thread that drains it).
    pub(crate) fn recv(&self) -> Option<Msg> {
        let h = self.head.load(Ordering::Relaxed);
        let slot = &self.slots[h % RING];
        if slot.seq.load(Ordering::Acquire) == h + 1 {
            // SAFETY: published by its sender (seq == h + 1), read once by the only receiver.
            let m = slot.msg.with_mut(|m| unsafe { (*m).assume_init_read() });
            slot.seq.store(h + RING, Ordering::Release);
            self.head.store(h + 1, Ordering::Relaxed);
            return Some(m);
        }
        // Nothing published in the ring. A sender that has claimed the slot
        // but not yet published it raises the signal after it does (`send`),
        // and that store comes after this receiver's `begin_drain` cleared
        // it, so the receiver comes back without looking at the tail here
        // (a line every sender writes). Only the overflow queue needs the
        // tail: reading it while a ring slot is mid-send would overtake that
        // message.
        if self.overflowing.load(Ordering::Acquire) {
            if self.tail.load(Ordering::Acquire) != h {
                self.gate.signal.store(true, Ordering::Relaxed);
                return None;
            }
            let mut q = lock(&self.overflow);
            // Re-check the ring under the lock: the lock orders us after the
            // sender that overflowed, and so after every ring slot it claimed
            // earlier; the unlocked check above may have read a stale tail.
            if self.tail.load(Ordering::Acquire) != h {
                self.gate.signal.store(true, Ordering::Relaxed);
                return None;
            }
            let m = q.pop_front();
            if q.is_empty() {
                self.overflowing.store(false, Ordering::Release);
            }
            return m;
        }
        None
    }
}

impl Mailbox {
    /// Receiver's thread only, and never while a [`recv`](Mailbox::recv) of
    /// it is under way (the rescue handler, `adm/interrupt.rs`, which the
    /// runtime keeps out of `recv` by a deferral section): take the task out
    /// of the oldest `TASK` message that carries one and has not been
    /// received, leaving the message with no task (word 0 zero) so that it
    /// still does its other duties when it is received.
    ///
    /// The ring first: published slots between `head` and `tail` belong to
    /// the receiver until it releases them, so they are read and written here
    /// without atomics; a slot still being written ends the search (its
    /// sender will finish in a moment, and the requester asks again). Then
    /// the overflow queue, if its lock is free: a worker blocked inside a task
    /// receives nothing, so the managers' `STEAL`s and `UNBLOCK`s fill its
    /// ring and a `TASK` handed to it waits behind them in the overflow
    /// queue (found by the stress harness under `manager=dedicated` at 32
    /// workers: 16 messages in the ring, the `TASK` fifth of 18 in the
    /// queue). Only `try_lock` is used, which is one compare-and-swap: the
    /// receiver never holds the lock outside `recv`, so the lock is only ever
    /// held by a sender on another thread, and a failed try answers "none
    /// now" (the requester asks again); releasing it is one swap and, if a
    /// sender waits, a `futex` wake, both async-signal-safe. Nothing is
    /// allocated.
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn take_unreceived_task(&self) -> Option<usize> {
        let take = |m: &mut Msg| (m.kind == MsgKind::Task && m.words[0] != 0).then(|| std::mem::take(&mut m.words[0]));
        let h = self.head.load(Ordering::Relaxed);
        let t = self.tail.load(Ordering::Acquire);
        let mut pos = h;
        while pos != t && pos.wrapping_sub(h) < RING {
            let slot = &self.slots[pos % RING];
            if slot.seq.load(Ordering::Acquire) != pos + 1 {
                return None; // its sender is mid-send
            }
            // SAFETY: published and not yet released, so only the receiver,
            // this thread, touches it; no `recv` is under way (the contract).
            let job = slot.msg.with_mut(|m| take(unsafe { (*m).assume_init_mut() }));
            if job.is_some() {
                return job;
            }
            pos += 1;
        }
        if !self.overflowing.load(Ordering::Acquire) {
            return None;
        }
        try_lock(&self.overflow)?.iter_mut().find_map(take)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_task_in_the_ring_can_be_taken_out_once() {
        let mb = Mailbox::new();
        mb.send(Msg::new(MsgKind::Update, 3, &[0, 1, 0]));
        mb.send(Msg::new(MsgKind::Task, 1, &[0, 0]));
        mb.send(Msg::new(MsgKind::Task, 1, &[0x1000, 0]));
        mb.send(Msg::new(MsgKind::Task, 1, &[0x2000, 1]));
        assert_eq!(mb.take_unreceived_task(), Some(0x1000));
        assert_eq!(mb.take_unreceived_task(), Some(0x2000));
        assert_eq!(mb.take_unreceived_task(), None);
        mb.begin_drain();
        let got: Vec<(MsgKind, [usize; 2])> = std::iter::from_fn(|| mb.recv()).map(|m| (m.kind, [m.words[0], m.words[1]])).collect();
        // Every message still arrives, in order, with its task taken out.
        assert_eq!(got, vec![(MsgKind::Update, [0, 1]), (MsgKind::Task, [0, 0]), (MsgKind::Task, [0, 0]), (MsgKind::Task, [0, 1])]);
    }

    /// A `TASK` behind a full ring (a blocked receiver's mailbox) can be
    /// taken out of the overflow queue, and not while a sender holds its lock.
    #[test]
    fn a_task_in_the_overflow_queue_can_be_taken_out() {
        let mb = Mailbox::new();
        for i in 0..RING {
            mb.send(Msg::new(MsgKind::Steal, 32, &[0, i, 1]));
        }
        mb.send(Msg::new(MsgKind::Unblock, 32, &[0, 7]));
        mb.send(Msg::new(MsgKind::Task, 1, &[0x3000, 1]));
        {
            let _sender = lock(&mb.overflow);
            assert_eq!(mb.take_unreceived_task(), None);
        }
        assert_eq!(mb.take_unreceived_task(), Some(0x3000));
        assert_eq!(mb.take_unreceived_task(), None);
        mb.begin_drain();
        let got: Vec<(MsgKind, usize)> = std::iter::from_fn(|| mb.recv()).map(|m| (m.kind, m.words[0])).collect();
        assert_eq!(got.len(), RING + 2);
        assert_eq!(got[RING..], [(MsgKind::Unblock, 0), (MsgKind::Task, 0)]);
    }

    #[test]
    fn overflow_keeps_order_and_delivers_everything() {
        let mb = Mailbox::new();
        for i in 0..(RING * 3) {
            mb.send(Msg::new(MsgKind::Task, 0, &[i]));
        }
        mb.begin_drain();
        let got: Vec<usize> = std::iter::from_fn(|| mb.recv()).map(|m| m.words[0]).collect();
        assert_eq!(got, (0..RING * 3).collect::<Vec<_>>());
    }

    /// Causal order into one mailbox (README, Invariants): A sends `a` to R,
    /// then a token to B; B, on receiving it, sends `b` to R. R must receive
    /// `a` before `b`, whether either went through the ring or the overflow
    /// queue. A third sender keeps R's ring filling up and overflowing.
    #[test]
    fn causal_order_through_a_third_mailbox() {
        let r = Arc::new(Mailbox::new());
        let b = Arc::new(Mailbox::new());
        let rounds = 20_000;
        let noise = {
            let r = Arc::clone(&r);
            std::thread::spawn(move || {
                for i in 0..rounds * 2 {
                    r.send(Msg::new(MsgKind::Update, 9, &[i]));
                }
            })
        };
        let relay = {
            let (r, b) = (Arc::clone(&r), Arc::clone(&b));
            std::thread::spawn(move || {
                let mut got = 0;
                while got < rounds {
                    if b.has_mail() {
                        b.begin_drain();
                        while let Some(m) = b.recv() {
                            r.send(Msg::new(MsgKind::Reduce, 2, &[m.words[0]]));
                            got += 1;
                        }
                    }
                    std::hint::spin_loop();
                }
            })
        };
        let sender = {
            let (r, b) = (Arc::clone(&r), Arc::clone(&b));
            std::thread::spawn(move || {
                for i in 0..rounds {
                    r.send(Msg::new(MsgKind::Enqueued, 1, &[i]));
                    b.send(Msg::new(MsgKind::Task, 1, &[i]));
                }
            })
        };
        // The receiver: every `b` (from the relay) must come after its `a`.
        let mut seen_a = vec![false; rounds];
        let (mut got_a, mut got_b, mut noise_got) = (0, 0, 0);
        while got_a + got_b + noise_got < rounds * 4 {
            r.begin_drain();
            while let Some(m) = r.recv() {
                match m.kind {
                    MsgKind::Enqueued => {
                        seen_a[m.words[0]] = true;
                        got_a += 1;
                    }
                    MsgKind::Reduce => {
                        assert!(seen_a[m.words[0]], "b {} overtook its a", m.words[0]);
                        got_b += 1;
                    }
                    _ => noise_got += 1,
                }
            }
            std::hint::spin_loop();
        }
        for h in [noise, relay, sender] {
            h.join().unwrap();
        }
    }

    #[test]
    fn per_sender_order_under_contention() {
        let mb = Arc::new(Mailbox::new());
        let senders = 4;
        let per = 20_000;
        let hs: Vec<_> = (0..senders)
            .map(|s| {
                let mb = Arc::clone(&mb);
                std::thread::spawn(move || {
                    for i in 0..per {
                        mb.send(Msg::new(MsgKind::Update, s, &[i]));
                    }
                })
            })
            .collect();
        let mut next = vec![0usize; senders];
        let mut got = 0;
        while got < senders * per {
            mb.begin_drain();
            while let Some(m) = mb.recv() {
                let s = m.src as usize;
                assert_eq!(m.words[0], next[s], "sender {s} out of order");
                next[s] += 1;
                got += 1;
            }
            std::hint::spin_loop();
        }
        for h in hs {
            h.join().unwrap();
        }
        assert!(mb.recv().is_none());
    }
}
