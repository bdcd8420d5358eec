//! loom model of the interrupt protocol (`deferral.rs`, `interrupt.rs`): a
//! requester posts a request word and raises the "signal"; the owner takes
//! its own task inside a deferral section, by a read and a later write that a
//! handler must never interleave with. The signal is delivered at every step
//! of the owner (a handler runs between two instructions), which is modelled
//! by the owner checking a raised flag at each of those points and running
//! the handler inline. The requester withdraws its request after a bounded
//! wait, as the runtime does.
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
    done: AtomicBool,
}

impl World {
    /// Answer the request, if one is posted (idempotent: the swap decides).
    fn answer(&self) {
        if self.req.swap(0, AcqRel) == 0 {
            return;
        }
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
            done: AtomicBool::new(false),
        });
        let r = Arc::clone(&w);
        let requester = thread::spawn(move || {
            r.ans.store(PENDING, Relaxed);
            r.req.store(1, Release);
            r.raised.store(true, Relaxed);
            let mut got = None;
            for _ in 0..2 {
                let a = r.ans.load(Acquire);
                if a != PENDING {
                    got = Some(a);
                    break;
                }
                thread::yield_now();
            }
            if got.is_none() {
                // Withdraw; if the owner already swapped the word, its answer comes.
                if r.req.compare_exchange(1, 0, AcqRel, Acquire).is_ok() {
                    got = Some(0);
                } else {
                    loop {
                        let a = r.ans.load(Acquire);
                        if a != PENDING {
                            got = Some(a);
                            break;
                        }
                        thread::yield_now();
                    }
                }
            }
            r.done.store(true, Release);
            got.unwrap()
        });
        w.deliver();
        w.owner_take();
        // One more scheduling point (the answer is due there if every signal
        // came inside the section); the requester withdraws if it asked later.
        w.deliver();
        w.answer();
        let got = requester.join().unwrap();
        let sent = (got == TASK) as usize;
        assert_eq!(w.owner_got.load(Relaxed) + sent + w.queue.load(Relaxed), 1, "the task is in exactly one place");
        assert_eq!(w.owner_got.load(Relaxed) + sent, 1, "the owner took it, or the requester got it");
    });
}
