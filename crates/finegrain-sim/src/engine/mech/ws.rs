//! Work stealing (the runtime's `ws/`): one Chase-Lev deque per worker, the
//! owner at the bottom, thieves at the top.
//!
//! A deque is three kinds of lines in the cache model: its `top` word
//! (written by every successful steal), its `bottom` word (written by the
//! owner), and its task slots (eight 8-byte slots per line). The owner's push
//! writes a slot and `bottom`; its pop reads them; a steal attempt reads
//! `top` and `bottom` and writes `top` (the compare-and-swap), then reads the
//! stolen slots and the tasks' descriptors, which their spawner wrote. So
//! steals cost coherence misses where the runtime's would. On a preset with
//! scratchpads (HammerBlade) the deque lives in its owner's scratchpad
//! instead, and a thief pays the remote scratchpad latency (Cheng et al.,
//! ASPLOS 2023, section 3.2).
//!
//! Decisions: the victim order of each round is
//! [`finegrain::policy::VictimOrder::round`] over a topology built from the
//! preset; the amount is [`finegrain::policy::StealAmount::count`]; the own
//! order is the policy's [`finegrain::policy::Order`]; idling is
//! [`finegrain::policy::Idle::next`]; loop splitting is
//! [`finegrain::policy::split::ws`].

use crate::engine::context::{Ctx, Parked};
use crate::engine::costs;
use crate::engine::item::{Item, Work};
use crate::engine::mechanism::{Found, SimMechanism};
use crate::engine::result::{Bucket, Op};
use crate::machine::Machine;
use finegrain::policy::{split, Order, VictimOrder};
use finegrain::topology::Topology;
use std::collections::VecDeque;

#[derive(Debug)]
pub(crate) struct WsMech {
    pub params: finegrain::policy::Ws,
    pub deques: Vec<VecDeque<Item>>,
    /// Slots ever pushed per deque (the slot line a push writes).
    pub pushed: Vec<u64>,
    /// The rest of the current steal round of each worker (victims left, in
    /// order), and the round number.
    pub victims: Vec<Vec<u32>>,
    pub rounds: Vec<usize>,
    /// Cycles spent in the current round so far.
    pub round_cycles: Vec<u64>,
    pub topo: Topology,
    pub parked: Parked,
    pub spm: bool,
}

/// Distances between workers for the `nearest` order: 1 for SMT siblings, 2
/// within a tile, 3 plus the network latency between tiles beyond.
pub(crate) fn topology_of(m: &mut Machine, n: usize) -> Topology {
    let dist = (0..n)
        .map(|a| {
            (0..n)
                .map(|b| {
                    if a == b {
                        0
                    } else if m.core_of(a) == m.core_of(b) {
                        1
                    } else if m.tile_of(a) == m.tile_of(b) {
                        2
                    } else {
                        3 + m.msg_latency(a, b)
                    }
                })
                .collect()
        })
        .collect();
    m.reset_stats();
    Topology::from_distances(dist)
}

impl WsMech {
    pub fn new(n: usize, params: finegrain::policy::Ws, m: &mut Machine, spm: bool) -> WsMech {
        WsMech {
            params,
            deques: vec![VecDeque::new(); n],
            pushed: vec![0; n],
            victims: vec![Vec::new(); n],
            rounds: vec![0; n],
            round_cycles: vec![0; n],
            topo: topology_of(m, n),
            parked: Parked::default(),
            spm,
        }
    }
}

fn deque_line(owner: usize, word: u64) -> u64 {
    ((owner as u64) << 20) + word
}

const TOP: u64 = 0;
const BOTTOM: u64 = 1;
const SLOTS: u64 = 64;
fn slot_line(owner: usize, slot: u64) -> u64 {
    deque_line(owner, 2 + (slot / 8) % SLOTS)
}
/// A task's descriptor (its closure and latch), written by its spawner in
/// its own stack or job arena: 64 lines per worker, reused (a `join`'s job
/// lives in the spawner's stack frame, a scope's in a recycled allocation).
fn descriptor_line(t: &Item) -> u64 {
    let id: u64 = match t.work {
        Work::Task(t) => t as u64,
        Work::Piece { lp, lo, .. } | Work::Chunks { lp, lo, .. } => ((lp as u64) << 16) + lo as u64,
    };
    (1 << 41) + ((t.from as u64) << 8) + id % 64
}

impl WsMech {
    /// A queue access: through the caches, or the owner's scratchpad.
    fn deque_access(&self, cx: &mut Ctx<'_>, w: usize, owner: usize, line: u64, write: bool, t: u64) -> u64 {
        if self.spm {
            cx.events += 1;
            if let Some(l) = cx.m.spm_latency(w, owner) {
                return l as u64;
            }
        }
        cx.sched_access(w, line, write, t)
    }
}

impl SimMechanism for WsMech {
    fn push(&mut self, cx: &mut Ctx<'_>, w: usize, item: Item, t: u64) -> u64 {
        self.deques[w].push_back(item.clone());
        self.pushed[w] += 1;
        let slot = self.pushed[w];
        let mut c = costs::WS_PUSH;
        c += cx.sched_access(w, descriptor_line(&item), true, t);
        c += self.deque_access(cx, w, w, slot_line(w, slot), true, t);
        c += self.deque_access(cx, w, w, deque_line(w, BOTTOM), true, t);
        let wake = self.wake_cycles(cx);
        self.parked.wake_one(cx, t, wake);
        c
    }

    fn wants_split(&mut self, _cx: &mut Ctx<'_>, w: usize) -> bool {
        split::ws(self.deques[w].is_empty())
    }

    fn on_sleep(&mut self, _cx: &mut Ctx<'_>, w: usize, _at: u64) {
        self.parked.park(w);
    }

    fn find(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> Found {
        // Own deque first (policy::search: Own, then Peers).
        let order = cx.policy.as_ref().map(|p| p.order).unwrap_or(Order::Lifo);
        let own = match order {
            Order::Lifo => self.deques[w].pop_back(),
            Order::Fifo => self.deques[w].pop_front(),
        };
        if let Some(item) = own {
            let slot = self.pushed[w];
            let mut c = costs::WS_POP;
            c += self.deque_access(cx, w, w, deque_line(w, BOTTOM), true, t);
            c += self.deque_access(cx, w, w, slot_line(w, slot), false, t);
            cx.op(Op::Dequeue, c);
            return Found::Got(item, c, Bucket::Dequeue);
        }
        if cx.n == 1 {
            return match cx.backoff(w, false) {
                Some(c) => Found::Retry(c, Bucket::StealFail),
                None => Found::Sleep(0, Bucket::Starved),
            };
        }
        // One steal attempt per turn, victims in the policy's order.
        if self.victims[w].is_empty() {
            let order = VictimOrder::new(self.params.victim, w, cx.n, &self.topo, self.params.radix);
            // The round's list reuses the last one's memory.
            let list = &mut self.victims[w];
            list.extend(order.round(self.rounds[w], &mut cx.w[w].rng).map(|v| v as u32));
            list.reverse();
            self.rounds[w] += 1;
        }
        let v = self.victims[w].pop().expect("a round has n - 1 victims") as usize;
        let mut c = costs::WS_STEAL_ATTEMPT;
        c += self.deque_access(cx, w, v, deque_line(v, TOP), false, t);
        c += self.deque_access(cx, w, v, deque_line(v, BOTTOM), false, t);
        let len = self.deques[v].len();
        if len > 0 {
            c += self.deque_access(cx, w, v, deque_line(v, TOP), true, t);
            let k = self.params.steal.count(len).min(len);
            let mut got: Vec<Item> = self.deques[v].drain(..k).collect();
            for it in &got {
                c += self.deque_access(cx, w, v, slot_line(v, 0), false, t);
                c += cx.sched_access(w, descriptor_line(it), false, t);
            }
            let first = got.remove(0);
            // The rest go to the thief's own deque, oldest first.
            for it in got {
                self.deques[w].push_back(it);
                self.pushed[w] += 1;
                c += costs::WS_PUSH;
            }
            // The whole round (its earlier attempts are already in steal_ok).
            let total = std::mem::take(&mut self.round_cycles[w]) + c;
            self.victims[w].clear();
            cx.op(Op::Steal, total);
            return Found::Got(first, c, Bucket::StealOk);
        }
        if !self.victims[w].is_empty() {
            // Counted as a successful round's until the round ends empty.
            self.round_cycles[w] += c;
            return Found::Retry(c, Bucket::StealOk);
        }
        // A whole round found nothing: its earlier attempts move to steal_fail.
        let earlier = std::mem::take(&mut self.round_cycles[w]);
        cx.w[w].buckets[Bucket::StealOk as usize] -= earlier;
        cx.w[w].buckets[Bucket::StealFail as usize] += earlier;
        cx.op(Op::FailedRound, earlier + c);
        match cx.backoff(w, false) {
            Some(wait) => Found::Retry(c + wait, Bucket::StealFail),
            None => Found::Sleep(c, Bucket::Starved),
        }
    }
}
