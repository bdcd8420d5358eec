//! The static baseline (`static`): what a parallel-for runtime without
//! stealing does, as Cheng et al. (ASPLOS 2023, section 6) compare work
//! stealing against.
//!
//! A loop is cut into one contiguous piece per worker (fewer if it has fewer
//! leaves) before it starts; the root's spawns are dealt round-robin over the
//! workers; every other task stays on the worker that made it; nobody
//! steals. A worker with nothing left sleeps until work is dealt to it or the
//! latch its frame waits for completes. This policy has no runtime
//! counterpart and no decision in `finegrain::policy`: it is the
//! absence of scheduling decisions.

use super::costs;
use super::item::{Frame, Item, Work};
use super::result::{Bucket, Op};
use super::run::{Found, Mech, Sim};
use finegrain::policy::pdf::SerialPath;
use std::collections::VecDeque;

#[derive(Debug)]
pub(crate) struct FixedState {
    pub queues: Vec<VecDeque<Item>>,
    pub deal: usize,
}

impl FixedState {
    pub fn new(n: usize) -> FixedState {
        FixedState { queues: vec![VecDeque::new(); n], deal: 0 }
    }
}

fn queue_line(w: usize) -> u64 {
    (1 << 43) + w as u64
}

impl Sim<'_> {
    fn fixed(&mut self) -> &mut FixedState {
        match self.mech {
            Mech::Fixed(ref mut s) => s,
            _ => unreachable!("not a static simulation"),
        }
    }

    fn give(&mut self, from: usize, to: usize, item: Item, t: u64) -> u64 {
        self.fixed().queues[to].push_back(item);
        let mut c = costs::LOCAL_PUSH + self.sched_access(from, queue_line(to), true, t);
        if to != from {
            c += self.m.msg_latency(from, to) as u64;
            self.wake(to, t + c);
        }
        c
    }

    pub(crate) fn fixed_push(&mut self, w: usize, item: Item, t: u64) -> u64 {
        let from_root = matches!(self.w[w].stack.last(), Some(Frame::Task { t: 0, .. }));
        let to = if from_root {
            let n = self.n;
            let s = self.fixed();
            s.deal = (s.deal + 1) % n;
            s.deal
        } else {
            w
        };
        self.give(w, to, item, t)
    }

    pub(crate) fn fixed_find(&mut self, w: usize, t: u64) -> Found {
        match self.fixed().queues[w].pop_back() {
            Some(item) => {
                let c = costs::LOCAL_POP + self.sched_access(w, queue_line(w), true, t);
                self.op(Op::Dequeue, c);
                Found::Got(item, c, Bucket::Dequeue)
            }
            None => Found::Sleep(0, Bucket::Starved),
        }
    }

    /// Cut loop `lp` of `leaves` leaves into one piece per worker: the first
    /// stays here, piece `i` goes to worker `w + i`.
    pub(crate) fn fixed_loop(&mut self, w: usize, lp: u32, leaves: u32, path: SerialPath, t: u64) -> u64 {
        let k = (self.n as u32).min(leaves).max(1);
        let bound = |i: u32| (leaves as u64 * i as u64 / k as u64) as u32;
        let mut c = 0;
        for i in 1..k {
            let item = Item { work: Work::Piece { lp, lo: bound(i), hi: bound(i + 1) }, path, from: w as u32 };
            let to = (w + i as usize) % self.n;
            c += self.give(w, to, item, t);
        }
        self.w[w].stack.push(Frame::Piece { lp, next: 0, hi: bound(1), path });
        c
    }
}
