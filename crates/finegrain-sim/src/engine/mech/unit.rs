//! The central task unit (the runtime's `unit/`): `carbon`, `sw-hier`, `pdf`.
//!
//! - `carbon` models the hardware of Kumar, Hughes, Nguyen (ISCA 2007,
//!   section 4): a global task unit (GTU) at the chip's centre holding one
//!   bounded deque per worker, reached over the network, 8 cycles per access
//!   and one request per cycle (a [`Server`]); a local task unit per core
//!   with a prefetch buffer, filled asynchronously and refused while the GTU
//!   holds fewer tasks than there are workers; overflow and underflow
//!   exceptions moving tasks between the GTU and a software queue.
//! - `sw-hier` and `pdf` are software: one global queue under one lock, the
//!   lock a line in the cache model and a [`Server`] whose service time is
//!   the critical section, so that contention queues.
//!
//! The structure follows the runtime's `unit/mod.rs` move for move; every
//! threshold, victim, count and order is a call into `finegrain::policy`
//! (`Carbon::overflow_count`, `underflow_threshold`, `refill_count`,
//! `prefetch_allowed`, `victims`, `steal_count`; `SwHier::spill_count`,
//! `fetch_count`; `GlobalOrder::key`; `split::unit`).
//!
//! Under `carbon` with `loops=descriptor` (the default) a loop is one
//! TQ_ENQUEUE_LOOP descriptor in the enqueuer's GTU deque, as in the
//! runtime's `gtu/`: it stands for `Carbon::loop_task_size` tasks of S
//! leaves, the owner's dequeue hands out the next one, and a steal whose
//! oldest entry is a descriptor of more than one task takes half of them as
//! a descriptor of its own. The pieces it hands out do not split.
//!
//! Simplification: a task enqueued into the GTU is visible to other workers at
//! once rather than after the network latency; the enqueuing core does not
//! wait for it (the request is posted), but it occupies the unit's server.

use crate::engine::context::{Ctx, Parked};
use crate::engine::costs;
use crate::engine::item::{Item, Work};
use crate::engine::mechanism::{Found, SimMechanism};
use crate::engine::result::{Bucket, Op};
use crate::machine::Server;
use finegrain::policy::carbon::Carbon;
use finegrain::policy::pdf::SerialPath;
use finegrain::policy::swhier::SwHier;
use finegrain::policy::unit::Key;
use finegrain::policy::{split, UnitPolicy};
use std::collections::{BTreeMap, VecDeque};

#[derive(Debug)]
pub(crate) struct UnitMech {
    pub policy: UnitPolicy,
    /// `carbon`: the LTU prefetch buffer, each task with the cycle it arrives;
    /// `sw-hier`: the private queue. Newest at the back.
    pub near: Vec<VecDeque<(Item, u64)>>,
    /// `carbon`: tasks overflowed to software, newest at the back.
    pub software: Vec<VecDeque<Item>>,
    /// `carbon`: the GTU's per-worker deques.
    pub deques: Vec<VecDeque<Item>>,
    /// `sw-hier`, `pdf`: the global queue.
    pub global: BTreeMap<Key, Item>,
    pub total: usize,
    pub seq: u64,
    /// The GTU, or the global queue's lock.
    pub server: Server,
    pub parked: Parked,
}

impl UnitMech {
    pub fn new(n: usize, policy: UnitPolicy) -> UnitMech {
        UnitMech {
            policy,
            near: vec![VecDeque::new(); n],
            software: vec![VecDeque::new(); n],
            deques: vec![VecDeque::new(); n],
            global: BTreeMap::new(),
            total: 0,
            seq: 0,
            server: Server::new(),
            parked: Parked::default(),
        }
    }
}

/// Cycles the GTU takes per request: the paper's 8, or the model switch's.
fn gtu_access(cx: &Ctx<'_>) -> u64 {
    cx.cfg.model.gtu_access_cycles.unwrap_or(costs::CARBON_GTU_ACCESS)
}

const LOCK_LINE: u64 = 1 << 42;
const HEAD_LINE: u64 = (1 << 42) + 1;

impl UnitMech {
    /// One round trip to the GTU from `w` at `t`: cycles until the answer
    /// (on a machine without the hardware unit, the runtime's lock).
    fn gtu_request(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> u64 {
        if !cx.cfg.preset.task_unit_hw {
            return self.locked_op(cx, w, t, costs::LOCKED_QUEUE_OP);
        }
        let one = cx.m.center_latency(w) as u64;
        // The ideal network's GTU serves any number of requests at once
        // (ASPLOS 2010, section 6.2).
        let start = if cx.cfg.model.ideal_network { t + one } else { self.server.serve(t + one, costs::CARBON_GTU_SERVICE) };
        let c = start + gtu_access(cx) + one - t;
        cx.op(Op::UnitRequest, c);
        cx.messages += 2;
        c
    }

    /// One operation on the locked global queue: acquire (the lock line and
    /// the lock's queue), the critical section of `critical` cycles, release.
    fn locked_op(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64, critical: u64) -> u64 {
        let acquire = cx.sched_access(w, LOCK_LINE, true, t);
        let start = self.server.serve(t + acquire, critical);
        let head = cx.sched_access(w, HEAD_LINE, true, start);
        let c = start + critical + head - t;
        cx.op(Op::UnitRequest, c);
        c
    }

    fn key_of(&mut self, cx: &mut Ctx<'_>, w: usize, item: &Item) -> Key {
        let n = cx.n as u64;
        let s = &mut *self;
        s.seq += 1;
        s.policy.global_order().key(s.seq.wrapping_mul(n).wrapping_add(w as u64), 0, &item.path)
    }

    fn to_global(&mut self, cx: &mut Ctx<'_>, w: usize, items: Vec<Item>, t: u64) -> u64 {
        let c = self.locked_op(cx, w, t, costs::GLOBAL_INSERT * items.len() as u64);
        for it in items {
            let k = self.key_of(cx, w, &it);
            let s = &mut *self;
            s.global.insert(k, it);
            s.total += 1;
        }
        let wake = self.wake_cycles(cx);
        self.parked.wake_one(cx, t + c, wake);
        c
    }

    fn unit_push(&mut self, cx: &mut Ctx<'_>, w: usize, item: Item, t: u64) -> u64 {
        match self.policy {
            UnitPolicy::Carbon(c) => self.carbon_enqueue(cx, w, c, item, t),
            UnitPolicy::SwHier(h) => {
                let s = &mut *self;
                s.near[w].push_back((item, 0));
                let k = h.spill_count(s.near[w].len());
                let mut c = costs::SWHIER_PUSH;
                if k > 0 {
                    let out: Vec<Item> = s.near[w].drain(..k).map(|(i, _)| i).collect();
                    c += self.to_global(cx, w, out, t);
                }
                c
            }
            UnitPolicy::Pdf => costs::PDF_SPAWN + self.to_global(cx, w, vec![item], t),
        }
    }

    fn carbon_enqueue(&mut self, cx: &mut Ctx<'_>, w: usize, c: Carbon, item: Item, t: u64) -> u64 {
        let s = &mut *self;
        s.near[w].push_back((item, t));
        if s.near[w].len() <= c.prefetch {
            return costs::CARBON_ISA;
        }
        // The buffer is full: its oldest task goes to this worker's GTU deque.
        let (out, _) = s.near[w].pop_front().expect("non-empty");
        let mut cost = costs::CARBON_ISA;
        if s.deques[w].len() >= c.deque {
            // TQ overflow: the deque's oldest tasks go to the software queue.
            let k = c.overflow_count(s.deques[w].len());
            let moved: Vec<Item> = s.deques[w].drain(..k).collect();
            s.total -= moved.iter().map(|i| i.work.tasks()).sum::<usize>();
            s.software[w].extend(moved);
            cost += costs::CARBON_EXCEPTION + k as u64 * costs::LOCAL_PUSH;
        }
        s.deques[w].push_back(out);
        s.total += 1;
        cost + self.post_enqueue(cx, w, c, t, cost)
    }

    /// An enqueue reaching the GTU, after the core's own `cost` cycles:
    /// posted (the core does not wait, but the request takes a slot and
    /// answers a blocked dequeue), or, without the hardware unit, the
    /// runtime's emulation taking the unit's lock. Returns the core's extra
    /// cycles.
    fn post_enqueue(&mut self, cx: &mut Ctx<'_>, w: usize, c: Carbon, t: u64, cost: u64) -> u64 {
        if !cx.cfg.preset.task_unit_hw {
            let lock = self.locked_op(cx, w, t, costs::LOCKED_QUEUE_OP);
            let wake = self.wake_cycles(cx);
            self.parked.wake_one(cx, t + cost + lock, wake);
            return lock;
        }
        let one = cx.m.center_latency(w) as u64;
        self.server.serve(t + one, costs::CARBON_GTU_SERVICE);
        cx.messages += 1;
        self.answer_blocked(cx, c, t + one);
        0
    }

    /// Carbon with the hardware unit: a task reaching the GTU at `arrival`
    /// answers the oldest dequeue blocked there, and so on while tasks are
    /// left (a steal inside the unit moves several). The unit serves it (one
    /// request slot, the 8-cycle access) and the answer crosses the network
    /// to the blocked core, which resumes with the task in hand (ISCA 2007,
    /// sections 4.2-4.3: a dequeue that finds no task blocks in the unit; no
    /// software spin, yield or park).
    /// While the unit holds tasks, each blocked dequeue in turn is answered.
    fn answer_blocked(&mut self, cx: &mut Ctx<'_>, c: Carbon, arrival: u64) {
        while self.total > 0 {
            let Some(b) = self.parked.pop_asleep(cx) else { return };
            let Some((item, _)) = self.carbon_from_gtu(cx, b, c, true) else { return };
            let start = self.server.serve(arrival, costs::CARBON_GTU_SERVICE);
            let ready = start + gtu_access(cx) + cx.m.center_latency(b) as u64;
            // The answer waits in the core's buffer; its dequeue takes it there.
            self.near[b].push_back((item, ready));
            cx.messages += 1;
            cx.wake(b, ready);
        }
    }

    fn unit_wants_split(&mut self, cx: &mut Ctx<'_>, w: usize) -> bool {
        let n = cx.n;
        let s = &mut *self;
        if matches!(s.policy, UnitPolicy::Carbon(c) if c.loop_descriptor) {
            // A descriptor's piece runs its S leaves in turn.
            return false;
        }
        split::unit(s.policy, s.near[w].is_empty(), s.total, n)
    }

    fn unit_find(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> Found {
        let got = match self.policy {
            UnitPolicy::Carbon(c) => self.carbon_dequeue(cx, w, c, t),
            UnitPolicy::SwHier(h) => self.swhier_dequeue(cx, w, h, t),
            UnitPolicy::Pdf => self.pdf_dequeue(cx, w, t),
        };
        match got {
            Some((item, c, own)) => {
                let (bucket, op) = if own { (Bucket::Dequeue, Op::Dequeue) } else { (Bucket::StealOk, Op::Steal) };
                cx.op(op, c);
                Found::Got(item, c, bucket)
            }
            None => {
                // The request that found nothing is this round's cost.
                let c = self.failed_unit_request(cx, w, t);
                cx.op(Op::FailedRound, c);
                if self.blocks_in_hardware(cx) {
                    // The dequeue stays blocked in the unit until a task comes
                    // (`answer_blocked`).
                    return Found::Sleep(c, Bucket::Starved);
                }
                match cx.backoff(w, false) {
                    Some(wait) => Found::Retry(c + wait, Bucket::StealFail),
                    None => Found::Sleep(c, Bucket::Starved),
                }
            }
        }
    }

    /// Carbon on a chip with its task unit: an idle core waits in the unit's
    /// dequeue, not in software.
    fn blocks_in_hardware(&self, cx: &Ctx<'_>) -> bool {
        matches!(self.policy, UnitPolicy::Carbon(_)) && cx.cfg.preset.task_unit_hw
    }

    /// What asking the unit and finding it empty cost: the runtime reads the
    /// unit's task count first and skips the request when it is zero.
    fn failed_unit_request(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> u64 {
        match self.policy {
            UnitPolicy::Carbon(_) => self.gtu_request(cx, w, t),
            _ => cx.sched_access(w, HEAD_LINE, false, t) + costs::LOCAL_POP,
        }
    }

    fn carbon_dequeue(&mut self, cx: &mut Ctx<'_>, w: usize, c: Carbon, t: u64) -> Option<(Item, u64, bool)> {
        if let Some((item, ready)) = self.near[w].pop_back() {
            let cost = costs::CARBON_ISA + ready.saturating_sub(t);
            self.carbon_prefetch(cx, w, c, t + cost);
            let own = item.from as usize == w;
            return Some((item, cost, own));
        }
        if self.total == 0 && self.software[w].is_empty() {
            return None;
        }
        let rtt = self.gtu_request(cx, w, t);
        let (item, own) = self.carbon_from_gtu(cx, w, c, true)?;
        let cost = costs::CARBON_ISA + rtt;
        self.carbon_prefetch(cx, w, c, t + cost);
        Some((item, cost, own))
    }

    /// Refill the prefetch buffer, unless the unit holds fewer tasks than
    /// there are workers; the task arrives a round trip later.
    fn carbon_prefetch(&mut self, cx: &mut Ctx<'_>, w: usize, c: Carbon, t: u64) {
        let n = cx.n;
        let s = &mut *self;
        if !c.prefetch_allowed(s.total, n) || s.near[w].len() >= c.prefetch {
            return;
        }
        if let Some((item, _)) = self.carbon_from_gtu(cx, w, c, false) {
            let rtt = self.gtu_request(cx, w, t);
            self.near[w].push_front((item, t + rtt));
        }
    }

    /// One GTU request's effect: own deque (refilled from software when low),
    /// else half of the nearest non-empty deque.
    fn carbon_from_gtu(&mut self, cx: &mut Ctx<'_>, w: usize, c: Carbon, demand: bool) -> Option<(Item, bool)> {
        let n = cx.n;
        let s = &mut *self;
        if !demand && !c.prefetch_allowed(s.total, n) {
            return None;
        }
        if s.deques[w].len() < c.underflow_threshold() && !s.software[w].is_empty() {
            // TQ underflow: the software queue's newest tasks back under the deque.
            let k = c.refill_count(s.deques[w].len(), s.software[w].len());
            for _ in 0..k {
                let e = s.software[w].pop_back().expect("counted");
                s.total += e.work.tasks();
                s.deques[w].push_front(e);
            }
            cx.w[w].debt += costs::CARBON_EXCEPTION + k as u64 * costs::LOCAL_POP;
        }
        let s = &mut *self;
        if let Some(e) = take_newest(&mut s.deques[w]) {
            s.total -= 1;
            return Some((e, true));
        }
        for v in Carbon::victims(w, n) {
            let len = s.deques[v].len();
            if len == 0 {
                continue;
            }
            // A descriptor of several tasks at the front: half of them, as a
            // descriptor of the thief's own (the runtime's `steal_locked`).
            let front = &mut s.deques[v][0];
            if let Work::Chunks { lp, lo, hi, per } = front.work {
                let left = front.work.tasks();
                if left > 1 {
                    let k = left.div_ceil(2) as u32;
                    let mid = hi - (k * per).min(hi - lo);
                    front.work = Work::Chunks { lp, lo, hi: mid, per };
                    let taken = Item { work: Work::Chunks { lp, lo: mid, hi, per }, path: front.path.clone(), from: front.from };
                    s.deques[w].push_back(taken);
                    let e = take_newest(&mut s.deques[w]).expect("took one");
                    s.total -= 1;
                    return Some((e, false));
                }
            }
            let k = Carbon::steal_count(len);
            let taken: Vec<Item> = s.deques[v].drain(..k).collect();
            s.deques[w].extend(taken);
            let e = take_newest(&mut s.deques[w]).expect("took at least one");
            s.total -= 1;
            return Some((e, false));
        }
        None
    }

    /// `carbon`, `loops=descriptor`: TQ_ENQUEUE_LOOP. A task waiting in the
    /// prefetch buffer goes to the deque first (the descriptor is not
    /// buffered), then the descriptor, standing for `loop_task_size` tasks.
    fn carbon_enqueue_loop(&mut self, cx: &mut Ctx<'_>, w: usize, c: Carbon, lp: u32, leaves: u32, path: SerialPath, t: u64) -> u64 {
        let (per, tasks) = c.loop_task_size(leaves as usize, 1, cx.n);
        let s = &mut *self;
        while let Some((b, _)) = s.near[w].pop_front() {
            s.deques[w].push_back(b);
            s.total += 1;
        }
        s.deques[w].push_back(Item { work: Work::Chunks { lp, lo: 0, hi: leaves, per: per as u32 }, path, from: w as u32 });
        s.total += tasks;
        costs::CARBON_ISA + self.post_enqueue(cx, w, c, t, costs::CARBON_ISA)
    }

    fn swhier_dequeue(&mut self, cx: &mut Ctx<'_>, w: usize, h: SwHier, t: u64) -> Option<(Item, u64, bool)> {
        if let Some((e, _)) = self.near[w].pop_back() {
            return Some((e, costs::SWHIER_POP, true));
        }
        if self.total == 0 {
            return None;
        }
        let k = h.fetch_count(self.total.max(1), cx.n);
        let c = self.locked_op(cx, w, t, costs::GLOBAL_REMOVE * k.min(self.global.len()) as u64);
        let s = &mut *self;
        let mut got = Vec::with_capacity(k);
        while got.len() < k {
            match s.global.pop_first() {
                Some((_, e)) => got.push(e),
                None => break,
            }
        }
        s.total -= got.len();
        if got.is_empty() {
            return None;
        }
        let first = got.remove(0);
        // The rest go to the private queue, earliest in the global order on top.
        for e in got.into_iter().rev() {
            s.near[w].push_back((e, 0));
        }
        let own = first.from as usize == w;
        Some((first, c, own))
    }

    fn pdf_dequeue(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> Option<(Item, u64, bool)> {
        if self.total == 0 {
            return None;
        }
        let c = self.locked_op(cx, w, t, costs::GLOBAL_REMOVE);
        let s = &mut *self;
        let (_, e) = s.global.pop_first()?;
        s.total -= 1;
        let own = e.from as usize == w;
        Some((e, c, own))
    }
}

impl SimMechanism for UnitMech {
    fn push(&mut self, cx: &mut Ctx<'_>, w: usize, item: Item, t: u64) -> u64 {
        self.unit_push(cx, w, item, t)
    }

    fn find(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> Found {
        self.unit_find(cx, w, t)
    }

    fn wants_split(&mut self, cx: &mut Ctx<'_>, w: usize) -> bool {
        self.unit_wants_split(cx, w)
    }

    fn on_sleep(&mut self, _cx: &mut Ctx<'_>, w: usize, _at: u64) {
        self.parked.park(w);
    }

    fn start_loop(&mut self, cx: &mut Ctx<'_>, w: usize, id: u32, leaves: u32, path: SerialPath, t: u64) -> u64 {
        match self.policy {
            UnitPolicy::Carbon(c) if c.loop_descriptor && cx.n > 1 => self.carbon_enqueue_loop(cx, w, c, id, leaves, path, t),
            _ => {
                cx.w[w].stack.push(crate::engine::item::Frame::Piece { lp: id, next: 0, hi: leaves, path });
                0
            }
        }
    }

    fn serial_paths(&self) -> bool {
        self.policy.global_order() == finegrain::policy::unit::GlobalOrder::Serial
    }

    /// `sw-hier`, `pdf` and the software `carbon` park their threads; under
    /// the hardware unit a blocked dequeue is answered by the unit
    /// (`answer_blocked`: the network latency and the 8-cycle access), and
    /// nothing else wakes a core blocked there.
    fn wake_cycles(&self, cx: &Ctx<'_>) -> u64 {
        if self.blocks_in_hardware(cx) {
            0
        } else {
            cx.cfg.preset.wake_cycles
        }
    }
}

/// The newest entry of a GTU deque, one task of it: a descriptor of more
/// than one task hands out its next piece and stays.
fn take_newest(d: &mut VecDeque<Item>) -> Option<Item> {
    let back = d.back_mut()?;
    if let Work::Chunks { lp, lo, hi, per } = back.work {
        let end = (lo + per).min(hi);
        let piece = Item { work: Work::Piece { lp, lo, hi: end }, path: back.path.clone(), from: back.from };
        if end < hi {
            back.work = Work::Chunks { lp, lo: end, hi, per };
        } else {
            d.pop_back();
        }
        return Some(piece);
    }
    d.pop_back()
}
