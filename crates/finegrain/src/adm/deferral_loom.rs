//! loom model of the interrupt protocol (`deferral.rs`, `interrupt.rs`): a
//! requester posts a request word and raises the "signal"; the owner takes
//! its own task inside a deferral section, by a read and a later write that a
//! handler must never interleave with. The signal is delivered at every step
//! of the owner (a handler runs between two instructions), which is modelled
//! by the owner checking a raised flag at each of those points and running
//! the handler inline. The requester never waits for the answer (the runtime
//! collects it at a later idle round); it looks once, then withdraws. No
//! model thread spins, which keeps the model within loom's branch limit.
//!
//! Checked: the one task is taken exactly once (by the owner or sent to the
//! requester), the handler never acts inside a section, and the requester
//! always ends with an answer or a withdrawn request.

use super::deferral::Deferral;
use crate::loom_model::model;
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering::*};
use loom::sync::Arc;
use loom::thread;

const PENDING: usize = 1;
const EMPTY: usize = 2;
const TASK: usize = 3;

struct World {
    def: Deferral,
    raised: AtomicBool,
    /// The owner's queue: how many tasks it holds.
    queue: AtomicUsize,
    /// The owner is between the read and the write of its own take.
    in_take: AtomicBool,
    /// Request word: 0 none, 1 the requester asks.
    req: AtomicUsize,
    /// The requester's answer slot.
    ans: AtomicUsize,
    owner_got: AtomicUsize,
    /// Some handler or scheduling point swapped the request word.
    answered: AtomicBool,
}

impl World {
    /// Answer the request, if one is posted (idempotent: the swap decides).
    fn answer(&self) {
        if self.req.swap(0, AcqRel) == 0 {
            return;
        }
        self.answered.store(true, Relaxed);
        assert!(!self.in_take.load(Relaxed), "handler acted inside a section");
        let n = self.queue.load(Relaxed);
        let a = if n > 0 {
            self.queue.store(n - 1, Relaxed);
            TASK
        } else {
            EMPTY
        };
        self.ans.store(a, Release);
    }

    /// A delivery point: the signal, if raised, runs the handler here.
    fn deliver(&self) {
        if self.raised.swap(false, Relaxed) && self.def.may_handle() {
            self.answer();
        }
    }

    fn owner_take(&self) {
        self.def.enter();
        self.deliver();
        self.in_take.store(true, Relaxed);
        let n = self.queue.load(Relaxed);
        self.deliver();
        if n > 0 {
            self.queue.store(n - 1, Relaxed);
            self.owner_got.fetch_add(1, Relaxed);
        }
        self.in_take.store(false, Relaxed);
        self.deliver();
        if self.def.leave() {
            self.answer();
        }
    }
}

/// The requester as in the runtime: it posts, signals, and never waits; it
/// looks at its answer at a later idle round, and withdraws if none came
/// (here at once: the worker stops). `None`: the withdrawal failed, so the
/// owner swapped the request word and its answer is on its way.
fn post_then_withdraw(raised: &AtomicBool, req: &AtomicUsize, ans: &AtomicUsize) -> Option<usize> {
    ans.store(PENDING, Relaxed);
    // Claimed by a compare-exchange from 0, as `try_rescue` does.
    assert!(req.compare_exchange(0, 1, AcqRel, Relaxed).is_ok(), "one requester");
    raised.store(true, Relaxed);
    let a = ans.load(Acquire);
    if a != PENDING {
        return Some(a);
    }
    match req.compare_exchange(1, 0, AcqRel, Acquire) {
        Ok(_) => Some(0),
        Err(v) => {
            assert_eq!(v, 0, "nobody else posts");
            None
        }
    }
}

#[test]
fn loom_deferral_task_taken_exactly_once() {
    model(Some(3), || {
        let w = Arc::new(World {
            def: Deferral::new(),
            raised: AtomicBool::new(false),
            queue: AtomicUsize::new(1),
            in_take: AtomicBool::new(false),
            req: AtomicUsize::new(0),
            ans: AtomicUsize::new(0),
            owner_got: AtomicUsize::new(0),
            answered: AtomicBool::new(false),
        });
        let r = Arc::clone(&w);
        let requester = thread::spawn(move || post_then_withdraw(&r.raised, &r.req, &r.ans));
        w.deliver();
        w.owner_take();
        // One more scheduling point (the answer is due there if every signal
        // came inside the section).
        w.deliver();
        w.answer();
        let got = requester.join().unwrap().unwrap_or_else(|| {
            // The owner swapped the request word: it has answered by now.
            let a = w.ans.load(Acquire);
            assert_ne!(a, PENDING, "a swapped request was never answered");
            assert!(w.answered.load(Relaxed));
            a
        });
        let sent = (got == TASK) as usize;
        assert_eq!(w.owner_got.load(Relaxed) + sent + w.queue.load(Relaxed), 1, "the task is in exactly one place");
        assert_eq!(w.owner_got.load(Relaxed) + sent, 1, "the owner took it, or the requester got it");
    });
}

/// The `join`'s take-back of its mark (`FrameMarks::take_back`): the owner
/// marks its job, runs `a`, then clears the mark with one store and reads
/// the note word beside it; a handler delivered at any point between (the
/// signal of a requester) takes a live mark, leaves the note and answers with
/// the job. Checked: the job runs exactly once, inline or at the requester,
/// and the owner sees the note exactly when the requester got the job.
#[test]
fn loom_take_back_one_store_decides() {
    const ENTRY: usize = 7;
    const NOTE: usize = 1;
    struct Marks {
        raised: AtomicBool,
        req: AtomicUsize,
        ans: AtomicUsize,
        mark: AtomicUsize,
        note: AtomicUsize,
    }
    impl Marks {
        fn handler(&self) {
            if self.req.swap(0, AcqRel) == 0 {
                return;
            }
            let a = if self.mark.load(Relaxed) > NOTE {
                self.mark.store(0, Relaxed);
                self.note.store(NOTE, Relaxed);
                TASK
            } else {
                EMPTY
            };
            self.ans.store(a, Release);
        }
        fn deliver(&self) {
            if self.raised.swap(false, Relaxed) {
                self.handler();
            }
        }
    }
    model(Some(3), || {
        let w = Arc::new(Marks {
            raised: AtomicBool::new(false),
            req: AtomicUsize::new(0),
            ans: AtomicUsize::new(0),
            mark: AtomicUsize::new(0),
            note: AtomicUsize::new(0),
        });
        let r = Arc::clone(&w);
        let requester = thread::spawn(move || post_then_withdraw(&r.raised, &r.req, &r.ans));
        w.deliver();
        w.mark.store(ENTRY, Relaxed);
        // While `a` runs.
        w.deliver();
        // The take-back: one store, then the note.
        w.mark.store(0, Relaxed);
        w.deliver();
        let ours = w.note.load(Relaxed) != NOTE;
        if !ours {
            w.note.store(0, Relaxed);
        }
        w.deliver();
        w.handler(); // a later scheduling point answers a request still posted
        let got = requester.join().unwrap().unwrap_or_else(|| {
            let a = w.ans.load(Acquire);
            assert_ne!(a, PENDING, "a swapped request was never answered");
            a
        });
        let sent = (got == TASK) as usize;
        assert_eq!(ours as usize + sent, 1, "the job runs exactly once");
        assert_eq!(w.mark.load(Relaxed), 0);
        assert_eq!(w.note.load(Relaxed), 0, "no note outlives its join");
    });
}
