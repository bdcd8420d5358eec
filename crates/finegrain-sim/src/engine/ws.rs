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

use super::costs;
use super::item::{Item, Work};
use super::result::{Bucket, Op};
use super::run::{Found, Mech, Sim};
use crate::machine::Machine;
use finegrain::policy::{split, Order, VictimOrder};
use finegrain::topology::Topology;
use std::collections::VecDeque;

#[derive(Debug)]
pub(crate) struct WsState {
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
    pub parked: VecDeque<u32>,
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

impl WsState {
    pub fn new(n: usize, params: finegrain::policy::Ws, m: &mut Machine, spm: bool) -> WsState {
        WsState {
            params,
            deques: vec![VecDeque::new(); n],
            pushed: vec![0; n],
            victims: vec![Vec::new(); n],
            rounds: vec![0; n],
            round_cycles: vec![0; n],
            topo: topology_of(m, n),
            parked: VecDeque::new(),
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
        Work::Piece { lp, lo, .. } => ((lp as u64) << 16) + lo as u64,
    };
    (1 << 41) + ((t.from as u64) << 8) + id % 64
}

impl Sim<'_> {
    fn ws(&mut self) -> &mut WsState {
        match self.mech {
            Mech::Ws(ref mut s) => s,
            _ => unreachable!("not a work-stealing simulation"),
        }
    }

    /// A queue access: through the caches, or the owner's scratchpad.
    fn deque_access(&mut self, w: usize, owner: usize, line: u64, write: bool, t: u64) -> u64 {
        if self.ws().spm {
            self.events += 1;
            if let Some(l) = self.m.spm_latency(w, owner) {
                return l as u64;
            }
        }
        self.sched_access(w, line, write, t)
    }

    pub(crate) fn ws_push(&mut self, w: usize, item: Item, t: u64) -> u64 {
        let slot = {
            let s = self.ws();
            s.deques[w].push_back(item.clone());
            s.pushed[w] += 1;
            s.pushed[w]
        };
        let mut c = costs::WS_PUSH;
        c += self.sched_access(w, descriptor_line(&item), true, t);
        c += self.deque_access(w, w, slot_line(w, slot), true, t);
        c += self.deque_access(w, w, deque_line(w, BOTTOM), true, t);
        self.wake_one(t);
        c
    }

    pub(crate) fn ws_wants_split(&mut self, w: usize) -> bool {
        split::ws(self.ws().deques[w].is_empty())
    }

    pub(crate) fn ws_find(&mut self, w: usize, t: u64) -> Found {
        // Own deque first (policy::search: Own, then Peers).
        let order = self.policy.as_ref().map(|p| p.order).unwrap_or(Order::Lifo);
        let own = {
            let s = self.ws();
            match order {
                Order::Lifo => s.deques[w].pop_back(),
                Order::Fifo => s.deques[w].pop_front(),
            }
        };
        if let Some(item) = own {
            let slot = self.ws().pushed[w];
            let mut c = costs::WS_POP;
            c += self.deque_access(w, w, deque_line(w, BOTTOM), true, t);
            c += self.deque_access(w, w, slot_line(w, slot), false, t);
            self.op(Op::Dequeue, c);
            return Found::Got(item, c, Bucket::Dequeue);
        }
        if self.n == 1 {
            return match self.backoff(w, false) {
                Some(c) => Found::Retry(c, Bucket::StealFail),
                None => Found::Sleep(0, Bucket::Starved),
            };
        }
        // One steal attempt per turn, victims in the policy's order.
        if self.ws().victims[w].is_empty() {
            let (kind, radix, n) = (self.ws().params.victim, self.ws().params.radix, self.n);
            let round = self.ws().rounds[w];
            let mut rng = std::mem::replace(&mut self.w[w].rng, finegrain::rng::XorShift::new(1));
            let list: Vec<u32> = {
                let s = self.ws();
                let order = VictimOrder::new(kind, w, n, &s.topo, radix);
                order.round(round, &mut rng).map(|v| v as u32).collect()
            };
            self.w[w].rng = rng;
            let s = self.ws();
            s.rounds[w] += 1;
            s.victims[w] = list;
            s.victims[w].reverse();
        }
        let v = self.ws().victims[w].pop().expect("a round has n - 1 victims") as usize;
        let mut c = costs::WS_STEAL_ATTEMPT;
        c += self.deque_access(w, v, deque_line(v, TOP), false, t);
        c += self.deque_access(w, v, deque_line(v, BOTTOM), false, t);
        let len = self.ws().deques[v].len();
        if len > 0 {
            c += self.deque_access(w, v, deque_line(v, TOP), true, t);
            let k = self.ws().params.steal.count(len).min(len);
            let mut got: Vec<Item> = self.ws().deques[v].drain(..k).collect();
            for it in &got {
                c += self.deque_access(w, v, slot_line(v, 0), false, t);
                c += self.sched_access(w, descriptor_line(it), false, t);
            }
            let first = got.remove(0);
            // The rest go to the thief's own deque, oldest first.
            for it in got {
                let s = self.ws();
                s.deques[w].push_back(it);
                s.pushed[w] += 1;
                c += costs::WS_PUSH;
            }
            // The whole round (its earlier attempts are already in steal_ok).
            let total = std::mem::take(&mut self.ws().round_cycles[w]) + c;
            self.ws().victims[w].clear();
            self.op(Op::Steal, total);
            return Found::Got(first, c, Bucket::StealOk);
        }
        if !self.ws().victims[w].is_empty() {
            // Counted as a successful round's until the round ends empty.
            self.ws().round_cycles[w] += c;
            return Found::Retry(c, Bucket::StealOk);
        }
        // A whole round found nothing: its earlier attempts move to steal_fail.
        let earlier = std::mem::take(&mut self.ws().round_cycles[w]);
        self.w[w].buckets[Bucket::StealOk as usize] -= earlier;
        self.w[w].buckets[Bucket::StealFail as usize] += earlier;
        self.op(Op::FailedRound, earlier + c);
        match self.backoff(w, false) {
            Some(wait) => Found::Retry(c + wait, Bucket::StealFail),
            None => Found::Sleep(c, Bucket::Starved),
        }
    }
}
