//! loom models of the GTU's lanes (`RUSTFLAGS="--cfg loom"`, `scripts/loom.sh`).

use super::*;
use crate::sync::{thread, Arc};

impl Word for u32 {
    fn to_word(self) -> usize {
        self as usize
    }
    unsafe fn from_word(w: usize) -> u32 {
        w as u32
    }
}

/// Carbon's rules for the models: a deque of `cap` tasks, with or
/// without a (stealable) buffer.
#[derive(Copy, Clone)]
struct Model {
    cap: usize,
    buffered: bool,
}

/// A one-task deque and a stealable buffer, so that three tasks
/// exercise overflow, underflow and the buffer.
const TINY: Model = Model { cap: 1, buffered: true };

/// Room for all tasks and no buffer, so the owner's lock-free push and
/// pop meet a thief's claim in the deque itself.
const ROOMY: Model = Model { cap: 4, buffered: false };

impl Rules for Model {
    fn capacity(&self) -> usize {
        self.cap
    }
    fn buffered(&self) -> bool {
        self.buffered
    }
    fn overflow_count(&self, len: usize) -> usize {
        (len / 3).max(1)
    }
    fn underflows(&self, len: usize, sw_len: usize) -> bool {
        sw_len > 0 && len < 1
    }
    fn refill_count(&self, _len: usize, sw_len: usize) -> usize {
        sw_len.min(1)
    }
    fn steal_count(&self, len: usize) -> usize {
        len.div_ceil(2)
    }
    fn buffer_stealable(&self, len: usize) -> bool {
        self.buffered && len == 0
    }
    fn victims(&self, me: usize, n: usize) -> impl Iterator<Item = usize> {
        (1..n).map(move |k| (me + k) % n)
    }
}

/// The owner's end of a `join`: take `newest` back, then pop the rest.
fn owner_takes_back_then_drains(g: &Gtu<u32>, c: &impl Rules, newest: u32) -> Vec<u32> {
    let mut all = Vec::new();
    if g.take_back(0, c, newest) {
        all.push(newest);
    }
    while let Some(j) = g.pop_newest(0, c) {
        all.push(j);
    }
    all
}

/// Every task handed out exactly once, and nothing left behind.
fn all_exactly_once(mut all: Vec<u32>, expected: &[u32], g: &Gtu<u32>) {
    all.sort();
    assert_eq!(all, expected);
    assert!(!g.has_work());
}

/// The owner enqueues three tasks and takes the newest back while a
/// thief steals and keeps what it got: every task ends up with exactly
/// one of them.
#[test]
fn steal_against_enqueue_and_take_back() {
    crate::loom_model::model(Some(3), || {
        let c = TINY;
        let g = Arc::new(Gtu::<u32>::new(2, c.capacity(), true));
        g.enqueue(0, &c, 1);
        let t = {
            let g = g.clone();
            thread::spawn(move || {
                let got = g.steal(1, &c);
                let n: usize = got.iter().map(|i| i.left).sum();
                g.keep(1, &c, got.into_iter());
                let mut mine = Vec::new();
                while let Some(j) = g.pop_newest(1, &c) {
                    mine.push(j);
                }
                assert_eq!(mine.len(), n);
                mine
            })
        };
        g.enqueue(0, &c, 2);
        g.enqueue(0, &c, 3);
        let mut all = owner_takes_back_then_drains(&g, &c, 3);
        all.extend(t.join().unwrap());
        all_exactly_once(all, &[1, 2, 3], &g);
    });
}

/// The THE protocol: the owner pushes a third task and pops all three
/// (the take-back of the newest, then the rest) while a thief steals;
/// the last pop and the steal reach for the same entry.
#[test]
fn owner_pops_against_a_thief_claim() {
    crate::loom_model::model(Some(3), || {
        let c = ROOMY;
        let g = Arc::new(Gtu::<u32>::new(2, c.capacity(), false));
        g.enqueue(0, &c, 1);
        g.enqueue(0, &c, 2);
        let t = {
            let g = g.clone();
            thread::spawn(move || g.steal(1, &c).iter().flat_map(|i| std::iter::repeat_n(i.job, i.left)).collect::<Vec<u32>>())
        };
        g.enqueue(0, &c, 3);
        let mut all = owner_takes_back_then_drains(&g, &c, 3);
        all.extend(t.join().unwrap());
        all_exactly_once(all, &[1, 2, 3], &g);
    });
}

/// A loop entry of three tasks behind a buffered task, against a thief
/// that splits it: the loop's job is handed out exactly three times and
/// the plain task once.
#[test]
fn loop_entry_split_by_a_thief() {
    crate::loom_model::model(Some(3), || {
        let c = TINY;
        let g = Arc::new(Gtu::<u32>::new(2, c.capacity(), true));
        g.enqueue(0, &c, 1);
        g.enqueue_loop(0, &c, 7, 3);
        let t = {
            let g = g.clone();
            thread::spawn(move || {
                let got = g.steal(1, &c);
                g.keep(1, &c, got.into_iter());
                let mut mine = Vec::new();
                while let Some(j) = g.pop_newest(1, &c) {
                    mine.push(j);
                }
                mine
            })
        };
        let mut all = Vec::new();
        while let Some(j) = g.pop_newest(0, &c) {
            all.push(j);
        }
        all.extend(t.join().unwrap());
        all_exactly_once(all, &[1, 7, 7, 7], &g);
    });
}
