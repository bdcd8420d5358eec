//! The static baseline (`static`): what a parallel-for runtime without
//! stealing does, as Cheng et al. (ASPLOS 2023, section 6) compare work
//! stealing against.
//!
//! A loop is cut into one contiguous piece per worker (fewer if it has fewer
//! leaves) before it starts; the root's spawns are dealt round-robin over the
//! workers; every other task stays on the worker that made it; nobody
//! steals. A worker with nothing left sleeps until work is dealt to it or the
//! latch its frame waits for completes. The decisions (how a loop is cut,
//! which worker gets a piece or a spawn) are `finegrain::policy::fixed`'s,
//! the same functions the runtime's `static` policy calls.

use crate::engine::context::Ctx;
use crate::engine::costs;
use crate::engine::item::{Frame, Item, Work};
use crate::engine::mechanism::{Found, SimMechanism};
use crate::engine::result::{Bucket, Op};
use finegrain::policy::fixed;
use finegrain::policy::pdf::SerialPath;
use std::collections::VecDeque;

#[derive(Debug)]
pub(crate) struct FixedMech {
    pub queues: Vec<VecDeque<Item>>,
    /// The root task's spawns dealt so far.
    pub dealt: usize,
}

impl FixedMech {
    pub fn new(n: usize) -> FixedMech {
        FixedMech { queues: vec![VecDeque::new(); n], dealt: 0 }
    }

    fn give(&mut self, cx: &mut Ctx<'_>, from: usize, to: usize, item: Item, t: u64) -> u64 {
        self.queues[to].push_back(item);
        let mut c = costs::LOCAL_PUSH + cx.sched_access(from, queue_line(to), true, t);
        if to != from {
            c += cx.m.msg_latency(from, to) as u64;
            // The receiver, if idle, is a parked thread.
            cx.wake(to, t + c + self.wake_cycles(cx));
        }
        c
    }
}

fn queue_line(w: usize) -> u64 {
    (1 << 43) + w as u64
}

impl SimMechanism for FixedMech {
    fn push(&mut self, cx: &mut Ctx<'_>, w: usize, item: Item, t: u64) -> u64 {
        let from_root = matches!(cx.w[w].stack.last(), Some(Frame::Task { t: 0, .. }));
        let to = fixed::spawn_worker(from_root, w, self.dealt, cx.n);
        self.dealt += from_root as usize;
        self.give(cx, w, to, item, t)
    }

    fn wants_split(&mut self, _cx: &mut Ctx<'_>, _w: usize) -> bool {
        false
    }

    fn find(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> Found {
        match self.queues[w].pop_back() {
            Some(item) => {
                let c = costs::LOCAL_POP + cx.sched_access(w, queue_line(w), true, t);
                cx.op(Op::Dequeue, c);
                Found::Got(item, c, Bucket::Dequeue)
            }
            None => Found::Sleep(0, Bucket::Starved),
        }
    }

    /// Cut loop `lp` of `leaves` leaves into one piece per worker: the first
    /// stays here, piece `i` goes to worker `w + i` (`policy::fixed`).
    fn start_loop(&mut self, cx: &mut Ctx<'_>, w: usize, lp: u32, leaves: u32, path: SerialPath, t: u64) -> u64 {
        let (n, leaves) = (cx.n, leaves as usize);
        let k = fixed::pieces(leaves, n);
        let mut c = 0;
        for i in 1..k {
            let r = fixed::piece(leaves, k, i);
            let item = Item { work: Work::Piece { lp, lo: r.start as u32, hi: r.end as u32 }, path: path.clone(), from: w as u32 };
            c += self.give(cx, w, fixed::piece_worker(w, i, n), item, t);
        }
        cx.w[w].stack.push(Frame::Piece { lp, next: 0, hi: fixed::piece(leaves, k, 0).end as u32, path });
        c
    }
}
