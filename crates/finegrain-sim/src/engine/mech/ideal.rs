//! `ideal`: a task queue with zero cost and perfect knowledge, the bound the
//! other policies are measured against (Kumar, Hughes, Nguyen, "Carbon:
//! Architectural Support for Fine-Grained Parallelism on Chip
//! Multiprocessors", ISCA 2007, section 6.1).
//!
//! Greedy list scheduling over the same task graph and the same cache model
//! as every other policy: a task's work and footprint cost what they cost
//! anywhere, but making a task ready, finding it and moving it to another
//! worker cost nothing and touch no line. Every ready task is visible to
//! every worker. A worker with nothing to run takes its own newest ready
//! task, else the oldest ready task anywhere (`policy::ideal::take`); a
//! worker that finds nothing sleeps, and each task made ready wakes one
//! sleeper in the same cycle (`policy::ideal::wake`), unless its maker is
//! about to look for work and will take it itself (perfect knowledge: a
//! spawn followed by its wait, the successor of a bottom task, so a chain
//! runs exactly as on one worker), as does a released
//! join (no latch latency). A loop makes every leaf ready at once, each a
//! task of its own (a queue with zero cost needs no descriptor and no
//! splitting: with pieces split on demand, idle workers waited for the
//! running piece's next leaf boundary, round after round, and Carbon's
//! descriptors beat the bound on short loops); a piece that does run
//! (at one worker) splits whenever a worker sleeps (`policy::ideal::split`).
//!
//! Ready tasks are kept per maker (newest at the back) and in one map from
//! their readiness order to their maker: a take removes a task from an end
//! of its maker's queue, so both stay in step.

use crate::engine::context::{Ctx, Parked};
use crate::engine::item::{Item, Work};
use crate::engine::mechanism::{Found, SimMechanism};
use crate::engine::result::{Bucket, Op};
use finegrain::policy::ideal::{self, Take};
use finegrain::policy::pdf::SerialPath;
use std::collections::{BTreeMap, VecDeque};

#[derive(Debug)]
pub(crate) struct IdealMech {
    /// Per worker, the ready tasks it made, each with its readiness order.
    own: Vec<VecDeque<(u64, Item)>>,
    /// Every ready task by readiness order, to its maker.
    ready: BTreeMap<u64, u32>,
    seq: u64,
    /// Sleeping workers, first asleep first woken.
    parked: Parked,
}

impl IdealMech {
    pub fn new(n: usize) -> IdealMech {
        IdealMech { own: vec![VecDeque::new(); n], ready: BTreeMap::new(), seq: 0, parked: Parked::default() }
    }
}

impl SimMechanism for IdealMech {
    fn push(&mut self, cx: &mut Ctx<'_>, w: usize, item: Item, t: u64) -> u64 {
        self.seq += 1;
        self.own[w].push_back((self.seq, item));
        self.ready.insert(self.seq, w as u32);
        if ideal::wake(cx.goes_idle(w), self.own[w].len(), cx.sleeping) {
            self.parked.wake_one(cx, t, 0);
        }
        0
    }

    fn find(&mut self, cx: &mut Ctx<'_>, w: usize, _t: u64) -> Found {
        let (seq, item) = match ideal::take(self.own[w].len(), self.ready.len()) {
            Some(Take::OwnNewest) => self.own[w].pop_back().expect("counted"),
            Some(Take::OldestAnywhere) => {
                let (_, maker) = self.ready.first_key_value().map(|(&s, &m)| (s, m)).expect("counted");
                self.own[maker as usize].pop_front().expect("the oldest task is at the front of its maker's queue")
            }
            None => return Found::Sleep(0, Bucket::Starved),
        };
        self.ready.remove(&seq);
        let (op, bucket) = if item.from as usize == w { (Op::Dequeue, Bucket::Dequeue) } else { (Op::Steal, Bucket::StealOk) };
        cx.op(op, 0);
        Found::Got(item, 0, bucket)
    }

    fn wants_split(&mut self, cx: &mut Ctx<'_>, _w: usize) -> bool {
        ideal::split(cx.sleeping)
    }

    fn on_sleep(&mut self, _cx: &mut Ctx<'_>, w: usize, _at: u64) {
        self.parked.park(w);
    }

    fn wake_cycles(&self, _cx: &Ctx<'_>) -> u64 {
        0
    }

    fn latch_latency(&self, _cx: &mut Ctx<'_>, _from: usize, _to: usize) -> u64 {
        0
    }

    /// Every leaf ready at once, at no cost; the oldest leaves are taken
    /// first by other workers, the newest by the enqueuer.
    fn start_loop(&mut self, cx: &mut Ctx<'_>, w: usize, id: u32, leaves: u32, path: SerialPath, t: u64) -> u64 {
        if cx.n == 1 {
            cx.w[w].stack.push(crate::engine::item::Frame::Piece { lp: id, next: 0, hi: leaves, path });
            return 0;
        }
        for i in 0..leaves {
            let item = Item { work: Work::Piece { lp: id, lo: i, hi: i + 1 }, path: path.clone(), from: w as u32 };
            self.push(cx, w, item, t);
        }
        0
    }
}
