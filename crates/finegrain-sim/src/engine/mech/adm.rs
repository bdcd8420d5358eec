//! ADM (the runtime's `adm/`): private queues, managers, and messages
//! (Sanchez, Yoo, Kozyrakis, "Flexible Architectural Support for Fine-Grain
//! Scheduling", ASPLOS 2010, sections 3-4, Table 2).
//!
//! Every worker keeps its tasks in a private queue that only it touches;
//! work moves only in `TASK` messages. The protocol is the runtime's
//! (`adm/README.md`, steps 2-8): a worker reports its count to its level-0
//! manager when it reaches the next threshold (`UPDATE`), reports once when
//! it starves, a manager pairs starving children with the child it believes
//! richest (`STEAL`), a victim sends up to `k` of its oldest tasks
//! (`TASK`, then `VICTIM_UPDATE`), the stealer reports when the burst is over
//! (`STEALER_UPDATE`), and the root tells everyone when nothing is left
//! (`UNBLOCK`). The managers *are* `finegrain::policy::adm::ManagerNode`s and
//! their actions travel by `finegrain::policy::adm::route`; thresholds are
//! `next_report_threshold`, the hand-off to a sleeper `hand_to_idle`, loop
//! splitting `split::adm`.
//!
//! How a message reaches its receiver is the [`Delivery`]:
//! - `Interrupt` (the paper): it arrives after the network's latency and its
//!   handler runs at once, about 50 cycles taken from whatever the receiver
//!   was doing (section 4.3);
//! - `Poll` (today's runtime): it waits in the receiver's mailbox until the
//!   receiver's next scheduling point (its next turn: a loop leaf, a spawn, a
//!   slice of a task's memory accesses), and a worker that makes work while
//!   another sleeps hands it one task directly (`hand_to_idle`);
//! - `Uli`: interrupts whose payload goes through the caches: the sender
//!   writes a mailbox line the receiver then reads (section 6.3).
//!
//! Loops follow `loops=` ([`AdmLoops`]). Under `split` (the runtime's) a
//! victim asked for tasks while it runs a loop piece and holds fewer tasks
//! than asked splits the piece first (`split::adm` with mail waiting), so a
//! steal request is answered with half of the loop. Under `range` (the
//! paper's, section 4.2) the piece a worker runs counts its leaves not yet
//! started (`range_units`; reported at each leaf when a threshold is
//! crossed), and a victim cuts what its queue cannot give off the top of
//! that piece as one task (`range_cut`).

use crate::engine::config::Delivery;
use crate::engine::context::Ctx;
use crate::engine::costs;
use crate::engine::item::{Frame, Item, Work};
use crate::engine::mechanism::{Found, SimMechanism};
use crate::engine::result::{Bucket, MessageKind, Op};
use finegrain::policy::adm::{
    decrease_due, hand_to_idle, handoff_candidates, next_report_threshold, offers_halves, range_cut, range_units, route, Action, AdmLoops, Handoff,
    ManagerNode, PhaseTokens, Route, TokenBook, Tree, RECEIVE_BUFFER,
};
use finegrain::policy::{Adm, Order};
use std::collections::{BTreeSet, VecDeque};

#[derive(Copy, Clone, Debug)]
enum ToManager {
    Update { child: usize, count: usize, starving: bool, ends: Option<u32> },
    VictimUpdate { child: usize, left: usize },
    StealerUpdate { child: usize, count: usize, starving: bool, ends: Option<u32> },
    Steal { stealer_first: usize, k: usize, ends: Option<u32> },
    Unblock,
}

#[derive(Clone, Debug)]
enum ToWorker {
    /// `ends`: whose steal the stealer's `STEALER_UPDATE` ends
    /// (`ManagerNode::on_stealer_update`).
    Steal {
        stealer: usize,
        k: usize,
        ends: Option<u32>,
    },
    /// `last`: the burst is over, ending the steal of the manager at level
    /// `ends` (`Some(0)` for a hand-off: the stealer's own manager).
    Task {
        item: Option<Item>,
        last: bool,
        ends: Option<u32>,
    },
    Unblock,
}

#[derive(Clone, Debug)]
enum Msg {
    Manager { level: u32, part: usize, m: ToManager },
    Worker { w: usize, m: ToWorker },
}

impl Msg {
    /// Its kind's index in [`KINDS`].
    fn kind(&self) -> usize {
        match self {
            Msg::Manager { m: ToManager::Update { .. }, .. } => 0,
            Msg::Manager { m: ToManager::VictimUpdate { .. }, .. } => 1,
            Msg::Manager { m: ToManager::StealerUpdate { .. }, .. } => 2,
            Msg::Manager { m: ToManager::Steal { .. }, .. } | Msg::Worker { m: ToWorker::Steal { .. }, .. } => 3,
            Msg::Worker { m: ToWorker::Task { .. }, .. } => 4,
            Msg::Manager { m: ToManager::Unblock, .. } | Msg::Worker { m: ToWorker::Unblock, .. } => 5,
        }
    }
}

/// The message kinds of ASPLOS 2010, Table 2, as [`MessageKind`] names.
const KINDS: [&str; 6] = ["UPDATE", "VICTIM_UPDATE", "STEALER_UPDATE", "STEAL", "TASK", "UNBLOCK"];

#[derive(Debug)]
pub(crate) struct AdmMech {
    /// `handoff=`: to whom a slow path hands a task (`hand_to_idle`).
    handoff: Handoff,
    /// `underflow=`: with the last report, when a dequeue reports a decrease
    /// (`decrease_due`).
    underflow: usize,
    /// `loops=`: how a loop piece counts and moves.
    loops: AdmLoops,
    /// Most `TASK` messages per steal (under `loops=range`; under `split`
    /// the managers ask for no more).
    burst: usize,
    pub tree: Tree,
    pub queues: Vec<VecDeque<Item>>,
    /// What each queue holds, in tasks as the reports count them
    /// ([`AdmMech::units`]).
    qunits: Vec<usize>,
    /// The count each worker last reported.
    pub reported: Vec<usize>,
    /// A starving report was sent and no report of work since.
    pub starving: Vec<bool>,
    /// The root said nothing is left.
    pub nothing_left: Vec<bool>,
    /// Managers, `[level][partition]`.
    pub managers: Vec<Vec<ManagerNode>>,
    /// Messages on their way, each with the cycle it was sent at.
    msgs: Vec<Option<(Msg, u64)>>,
    free: Vec<u32>,
    /// `Poll`: delivered messages waiting for their receiver's turn.
    mail: Vec<VecDeque<(Msg, u64)>>,
    /// Starving workers asleep (candidates for `hand_to_idle`).
    sleepers: BTreeSet<u32>,
    /// Messages that found their receiver's buffer full (`Poll` only: an
    /// interrupt empties the buffer as each message arrives).
    pub overflows: u64,
    /// Interrupts: when each worker's current handler ends.
    handler_busy: Vec<u64>,
    /// Per message kind ([`KINDS`]): sent, and cycles from send to handler.
    kinds: [MessageKind; 6],
    /// The root manager's reduction tokens, per reduction loop.
    tokens: TokenBook,
}

impl AdmMech {
    pub fn new(n: usize, a: Adm) -> AdmMech {
        AdmMech {
            handoff: a.handoff,
            underflow: a.underflow,
            loops: a.loops,
            burst: a.burst.max(1),
            tree: a.tree(n),
            queues: vec![VecDeque::new(); n],
            qunits: vec![0; n],
            reported: vec![0; n],
            starving: vec![false; n],
            nothing_left: vec![false; n],
            managers: a.all_managers(n),
            msgs: Vec::new(),
            free: Vec::new(),
            mail: vec![VecDeque::new(); n],
            sleepers: BTreeSet::new(),
            overflows: 0,
            handler_busy: vec![0; n],
            kinds: KINDS.map(|name| MessageKind { name, ..MessageKind::default() }),
            tokens: TokenBook::default(),
        }
    }
}

fn mailbox_line(w: usize) -> u64 {
    (1 << 44) + w as u64
}

impl AdmMech {
    /// Tasks a queued item counts as: a loop piece under `loops=range`
    /// counts its leaves, anything else one.
    fn units(&self, item: &Item) -> usize {
        match item.work {
            Work::Piece { lo, hi, .. } if self.loops == AdmLoops::Range => (hi - lo) as usize,
            _ => 1,
        }
    }

    fn enqueue(&mut self, w: usize, item: Item) {
        self.qunits[w] += self.units(&item);
        self.queues[w].push_back(item);
    }

    fn dequeue(&mut self, w: usize, newest: bool) -> Option<Item> {
        let item = if newest { self.queues[w].pop_back() } else { self.queues[w].pop_front() }?;
        self.qunits[w] -= self.units(&item);
        Some(item)
    }

    /// What `w` reports: its queue, and under `loops=range` the leaves of
    /// the loop piece it runs that it has not started.
    fn count(&self, cx: &Ctx<'_>, w: usize) -> usize {
        let left = match self.loops {
            AdmLoops::Range => cx.top_piece(w).map_or(0, |i| match cx.w[w].stack[i] {
                Frame::Piece { next, hi, .. } => (hi - next) as usize,
                _ => 0,
            }),
            AdmLoops::Split => 0,
        };
        self.qunits[w] + range_units(self.loops, left)
    }

    /// The items a victim asked for `k` tasks sends: its oldest first, a
    /// queued piece cut when it holds more than is owed; under
    /// `loops=range`, what is still owed cut off the top of the piece it
    /// runs (`range_cut`); under `split`, the piece it runs split in half
    /// first when the queue holds fewer than `k` (`split::adm`).
    fn take_for_steal(&mut self, cx: &mut Ctx<'_>, w: usize, k: usize) -> Vec<Item> {
        let mut items = Vec::new();
        if self.loops == AdmLoops::Split {
            if self.queues[w].len() < k && offers_halves(self.loops, true, || true) {
                if let Some(i) = cx.splittable_piece(w) {
                    self.split_piece(cx, w, i);
                }
            }
            for _ in 0..k.min(self.queues[w].len()) {
                items.extend(self.dequeue(w, false));
            }
            return items;
        }
        let mut got = 0;
        // At most `burst` messages; the last may be a cut of the running range.
        let cap = if cx.top_piece(w).is_some() && self.burst > 1 { self.burst - 1 } else { self.burst };
        while got < k && items.len() < cap {
            let Some(front) = self.queues[w].front_mut() else { break };
            let need = k - got;
            if let Work::Piece { lp, lo, hi } = &mut front.work {
                if (*hi - *lo) as usize > need {
                    let cut = need as u32;
                    *hi -= cut;
                    let item = Item { work: Work::Piece { lp: *lp, lo: *hi, hi: *hi + cut }, path: front.path.clone(), from: w as u32 };
                    self.qunits[w] -= need;
                    items.push(item);
                    got = k;
                    break;
                }
            }
            let item = self.dequeue(w, false).expect("a front item");
            got += self.units(&item);
            items.push(item);
        }
        if got < k && items.len() < self.burst {
            if let Some(i) = cx.top_piece(w) {
                if let Frame::Piece { lp, next, hi, path } = &mut cx.w[w].stack[i] {
                    let cut = range_cut(self.loops, k - got, (*hi - *next) as usize) as u32;
                    if cut > 0 {
                        *hi -= cut;
                        items.push(Item { work: Work::Piece { lp: *lp, lo: *hi, hi: *hi + cut }, path: path.clone(), from: w as u32 });
                    }
                }
            }
        }
        items
    }

    fn receiver(&mut self, m: &Msg) -> usize {
        match *m {
            Msg::Manager { level, part, .. } => self.tree.host(level, part),
            Msg::Worker { w, .. } => w,
        }
    }

    /// Send `m` from worker `from` at `t`; returns the sender's cycles.
    fn send(&mut self, cx: &mut Ctx<'_>, from: usize, m: Msg, t: u64) -> u64 {
        let to = self.receiver(&m);
        let mut lat = cx.m.msg_latency(from, to) as u64;
        let c = costs::ADM_SEND;
        if cx.cfg.delivery == Delivery::Uli {
            // The payload goes through the receiver's mailbox line: its
            // latency, as the cache model gives it (the cost is Table 5's,
            // charged by the handlers).
            lat += cx.sched_access(from, mailbox_line(to), true, t);
        }
        cx.messages += 1;
        let s = &mut *self;
        s.kinds[m.kind()].count += 1;
        let slot = match s.free.pop() {
            Some(i) => {
                s.msgs[i as usize] = Some((m, t));
                i
            }
            None => {
                s.msgs.push(Some((m, t)));
                (s.msgs.len() - 1) as u32
            }
        };
        cx.schedule_msg(t + lat, slot);
        c
    }

    fn adm_deliver(&mut self, cx: &mut Ctx<'_>, slot: u32, at: u64) {
        let to = {
            let (m, _) = self.msgs[slot as usize].clone().expect("a live message");
            self.receiver(&m)
        };
        // One core runs one handler at a time: a message arriving while the
        // receiver's previous handler runs waits for it (so a busy manager
        // queues its requests, as a central manager does at scale).
        if cx.cfg.delivery != Delivery::Poll {
            let busy = self.handler_busy[to];
            if busy > at {
                cx.schedule_msg(busy, slot);
                return;
            }
        }
        let (m, sent) = {
            let s = &mut *self;
            s.free.push(slot);
            s.msgs[slot as usize].take().expect("a live message")
        };
        if cx.cfg.delivery == Delivery::Poll {
            if self.mail[to].len() >= RECEIVE_BUFFER {
                // The receive buffer is full: the overflow handler spills half
                // of it to memory (ASPLOS 2010, section 3.2), on the
                // receiver's time.
                self.overflows += 1;
                let c = costs::ADM_OVERFLOW;
                cx.charge(to, Bucket::HandlerWorker, c);
                if !cx.w[to].asleep {
                    cx.w[to].debt += c;
                }
            }
            self.mail[to].push_back((m, sent));
            if cx.w[to].asleep {
                // Polling: the sleeper is a parked thread (`wake_cycles`).
                self.sleepers.remove(&(to as u32));
                cx.wake(to, at + self.wake_cycles(cx));
            }
            return;
        }
        // An interrupt: the handler runs now, on the receiver's time.
        let mut at_recv = at;
        if cx.cfg.delivery == Delivery::Uli {
            at_recv += cx.sched_access(to, mailbox_line(to), false, at);
        }
        let (c, bucket) = self.handle(cx, to, m, sent, at_recv);
        // Under ULI the line's read is part of Table 5's handler cost.
        let c = c.max(at_recv - at);
        self.handler_busy[to] = at + c;
        cx.charge(to, bucket, c);
        if !cx.w[to].asleep {
            cx.w[to].debt += c;
        } else {
            // Asleep: the handler's time comes out of the sleep.
            let wk = &mut cx.w[to];
            if at > wk.slept_at {
                wk.buckets[wk.sleep_bucket as usize] += at - wk.slept_at;
            }
            wk.slept_at = wk.slept_at.max(at + c);
            let has_work = !self.queues[to].is_empty();
            if has_work {
                self.sleepers.remove(&(to as u32));
                cx.wake(to, at + c);
            }
        }
    }

    /// `Poll`: handle the mail waiting at `w`'s scheduling point.
    fn adm_poll(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> u64 {
        if cx.cfg.delivery != Delivery::Poll {
            return 0;
        }
        let mut total = 0;
        while let Some((m, sent)) = self.mail[w].pop_front() {
            let (c, bucket) = self.handle(cx, w, m, sent, t + total);
            cx.charge(w, bucket, c);
            total += c;
        }
        total
    }

    /// Run the handler of `m`, sent at `sent`, at its receiver `to`: cycles
    /// and bucket.
    fn handle(&mut self, cx: &mut Ctx<'_>, to: usize, m: Msg, sent: u64, t: u64) -> (u64, Bucket) {
        self.kinds[m.kind()].latency += t.saturating_sub(sent);
        match m {
            Msg::Manager { level, part, m } => {
                let c = self.manager(cx, to, level, part, m, t);
                cx.op(Op::ManagerUpdate, c);
                (c, Bucket::HandlerManager)
            }
            Msg::Worker { w, m } => (self.worker_msg(cx, w, m, t), Bucket::HandlerWorker),
        }
    }

    fn manager(&mut self, cx: &mut Ctx<'_>, host: usize, level: u32, part: usize, m: ToManager, t: u64) -> u64 {
        let actions = {
            let s = &mut *self;
            let tree = s.tree;
            let node = &mut s.managers[level as usize][part];
            match m {
                ToManager::Update { child, count, starving, ends } => node.on_update_ending(&tree, child, count, starving, false, ends),
                ToManager::VictimUpdate { child, left } => node.on_victim_update(&tree, child, left),
                ToManager::StealerUpdate { child, count, starving, ends } => node.on_stealer_update(&tree, child, count, starving, ends),
                ToManager::Steal { stealer_first, k, ends } => node.distribute(&tree, stealer_first, k, ends),
                ToManager::Unblock => vec![Action::Unblock],
            }
        };
        let uli = cx.cfg.delivery == Delivery::Uli;
        let mut c = match () {
            _ if !uli => costs::ADM_HANDLER,
            _ if actions.iter().any(|a| matches!(a, Action::Steal { .. })) => costs::ULI_STEAL_MATCH,
            _ => costs::ULI_RECV_UPDATE,
        };
        let tree = self.tree;
        for a in actions {
            for r in route(&tree, level, part, a) {
                let msg = match r {
                    Route::StealWorker { victim, stealer, k, ends } => Msg::Worker { w: victim, m: ToWorker::Steal { stealer, k, ends } },
                    Route::StealPartition { level, part, stealer_first, k, ends } => {
                        Msg::Manager { level, part, m: ToManager::Steal { stealer_first, k, ends } }
                    }
                    Route::Update { level, part, child, count, starving, ends, .. } => {
                        if level > tree.root() {
                            continue;
                        }
                        Msg::Manager { level, part, m: ToManager::Update { child, count, starving, ends } }
                    }
                    Route::UnblockWorker(w) => Msg::Worker { w, m: ToWorker::Unblock },
                    Route::UnblockPartition { level, part } => Msg::Manager { level, part, m: ToManager::Unblock },
                };
                c += self.send(cx, host, msg, t + c);
            }
        }
        c
    }

    fn to_own_manager(&mut self, cx: &mut Ctx<'_>, w: usize, m: ToManager, t: u64) -> u64 {
        let part = self.tree.partition_of(0, w);
        self.send(cx, w, Msg::Manager { level: 0, part, m }, t)
    }

    fn worker_msg(&mut self, cx: &mut Ctx<'_>, w: usize, m: ToWorker, t: u64) -> u64 {
        let uli = cx.cfg.delivery == Delivery::Uli;
        // Under ULI a handler's cost is Table 5's per task below; one that
        // moves no task costs an update's.
        let mut c = if uli { 0 } else { costs::ADM_HANDLER };
        let no_task = |m: &ToWorker| matches!(m, ToWorker::Unblock | ToWorker::Task { item: None, .. });
        if uli && no_task(&m) {
            c = costs::ULI_RECV_UPDATE;
        }
        match m {
            ToWorker::Steal { stealer, k, ends } => {
                let items = self.take_for_steal(cx, w, k);
                let k = items.len();
                if k == 0 {
                    if uli {
                        c += costs::ULI_RECV_UPDATE;
                    }
                    c += self.send(cx, w, Msg::Worker { w: stealer, m: ToWorker::Task { item: None, last: true, ends } }, t + c);
                }
                for (i, item) in items.into_iter().enumerate() {
                    let before = c;
                    c += if uli { costs::ULI_SEND_TASK } else { costs::LOCAL_POP };
                    c += self.send(cx, w, Msg::Worker { w: stealer, m: ToWorker::Task { item: Some(item), last: i + 1 == k, ends } }, t + c);
                    cx.op(Op::SendTask, c - before);
                }
                let left = self.count(cx, w);
                self.reported[w] = left;
                c += self.to_own_manager(cx, w, ToManager::VictimUpdate { child: w, left }, t + c);
            }
            ToWorker::Task { item, last, ends } => {
                if let Some(item) = item {
                    self.enqueue(w, item);
                    self.nothing_left[w] = false;
                    let recv = if uli { costs::ULI_RECV_TASK } else { costs::ADM_HANDLER + costs::LOCAL_PUSH };
                    c += recv - if uli { 0 } else { costs::ADM_HANDLER };
                    cx.op(Op::ReceiveTask, recv);
                }
                if last {
                    let count = self.count(cx, w);
                    let s = &mut *self;
                    let starving = count == 0 && s.starving[w];
                    if count > 0 {
                        s.starving[w] = false;
                        s.reported[w] = count;
                    }
                    c += self.to_own_manager(cx, w, ToManager::StealerUpdate { child: w, count, starving, ends }, t + c);
                }
            }
            ToWorker::Unblock => {
                self.nothing_left[w] = true;
                if cx.w[w].asleep && cx.w[w].sleep_bucket == Bucket::StealFail {
                    // From here on the sleep is starvation, not a pending steal.
                    let wk = &mut cx.w[w];
                    if t > wk.slept_at {
                        wk.buckets[Bucket::StealFail as usize] += t - wk.slept_at;
                        wk.slept_at = t;
                    }
                    wk.sleep_bucket = Bucket::Starved;
                }
            }
        }
        c
    }

    /// Offer the upper half of the loop piece at `i` in `w`'s stack.
    fn split_piece(&mut self, cx: &mut Ctx<'_>, w: usize, i: usize) {
        if let Frame::Piece { lp, next, hi, path } = &mut cx.w[w].stack[i] {
            let mid = *next + (*hi - *next) / 2;
            let paths = path.join();
            let item = Item { work: Work::Piece { lp: *lp, lo: mid, hi: *hi }, path: paths.b, from: w as u32 };
            *hi = mid;
            *path = paths.a;
            self.enqueue(w, item);
        }
    }

    /// A push, with the runtime's slow path (`AdmWorker::after_offering`)
    /// when the count reaches the report threshold or mail waits: under
    /// `Poll`, hand the oldest task to an idle worker first (the runtime's
    /// deviation, `handoff=`), then report what is left if still due.
    fn adm_push(&mut self, cx: &mut Ctx<'_>, w: usize, item: Item, t: u64) -> u64 {
        let mut c = costs::LOCAL_PUSH;
        self.enqueue(w, item);
        self.nothing_left[w] = false;
        let mut count = self.count(cx, w);
        let slow = count >= next_report_threshold(self.reported[w]) || !self.mail[w].is_empty();
        if cx.n == 1 || !slow {
            return c;
        }
        if cx.cfg.delivery == Delivery::Poll {
            let idle = self.idle_for_handoff(w);
            if let Some(v) = idle.filter(|_| hand_to_idle(true, count > 0) == 1) {
                let item = self.dequeue(w, false).expect("count > 0");
                count = self.count(cx, w);
                self.sleepers.remove(&(v as u32));
                c += self.send(cx, w, Msg::Worker { w: v, m: ToWorker::Task { item: Some(item), last: true, ends: None } }, t + c);
            }
        }
        if count >= next_report_threshold(self.reported[w]) {
            let s = &mut *self;
            s.reported[w] = count;
            s.starving[w] = false;
            c += self.to_own_manager(cx, w, ToManager::Update { child: w, count, starving: false, ends: None }, t + c);
        }
        c
    }

    /// The worker a hand-off from `w` goes to, as the runtime picks it: an
    /// idle one among `handoff_candidates` (`handoff=idle`; the simulator's
    /// idle workers sleep, so idle means asleep here), any sleeper
    /// (`handoff=sleeper`), or none (`handoff=manager`).
    fn idle_for_handoff(&mut self, w: usize) -> Option<usize> {
        let s = &mut *self;
        match s.handoff {
            Handoff::Idle => handoff_candidates(&s.tree, w).find(|&v| s.sleepers.contains(&(v as u32))),
            Handoff::Sleeper => s.sleepers.iter().map(|&v| v as usize).find(|&v| v != w),
            Handoff::Manager => None,
        }
    }

    fn adm_wants_split(&mut self, w: usize) -> bool {
        let s = &mut *self;
        let has_mail = !s.mail[w].is_empty();
        let empty = s.queues[w].is_empty();
        offers_halves(s.loops, has_mail, || empty)
    }

    fn adm_find(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> Found {
        let order = cx.policy.as_ref().map(|p| p.order).unwrap_or(Order::Lifo);
        let own = self.dequeue(w, order == Order::Lifo);
        if let Some(item) = own {
            // The runtime's `found_work`: the next time it runs dry it reports again.
            self.starving[w] = false;
            let mut c = costs::LOCAL_POP;
            // The runtime's dequeue (`AdmWorker::decreased`): a fall into the
            // decrease window is reported.
            // A piece taken off the queue goes on counting once it runs.
            let count = self.count(cx, w) + if self.loops == AdmLoops::Range { self.units(&item) } else { 0 };
            if cx.n > 1 && decrease_due(self.reported[w], count, self.underflow) {
                self.reported[w] = count;
                c += self.to_own_manager(cx, w, ToManager::Update { child: w, count, starving: false, ends: None }, t);
            }
            cx.op(Op::Dequeue, c);
            return Found::Got(item, c, Bucket::Dequeue);
        }
        if cx.n == 1 {
            return Found::Sleep(0, Bucket::Starved);
        }
        let s = &mut *self;
        let mut c = 0;
        if !s.starving[w] {
            s.starving[w] = true;
            s.reported[w] = 0;
            c = self.to_own_manager(cx, w, ToManager::Update { child: w, count: 0, starving: true, ends: None }, t);
        }
        self.sleepers.insert(w as u32);
        let nothing = self.nothing_left[w];
        Found::Sleep(c, if nothing { Bucket::Starved } else { Bucket::StealFail })
    }
}

impl SimMechanism for AdmMech {
    fn push(&mut self, cx: &mut Ctx<'_>, w: usize, item: Item, t: u64) -> u64 {
        self.adm_push(cx, w, item, t)
    }

    fn find(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> Found {
        self.adm_find(cx, w, t)
    }

    fn wants_split(&mut self, _cx: &mut Ctx<'_>, w: usize) -> bool {
        self.adm_wants_split(w)
    }

    /// Under `loops=range` the running piece is part of the count: report
    /// when a leaf taken (or a piece begun) crosses a threshold either way.
    fn at_leaf(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> u64 {
        if self.loops != AdmLoops::Range || cx.n == 1 {
            return 0;
        }
        let count = self.count(cx, w);
        let r = self.reported[w];
        if count >= next_report_threshold(r) || decrease_due(r, count, self.underflow) {
            self.reported[w] = count;
            self.starving[w] = false;
            return self.to_own_manager(cx, w, ToManager::Update { child: w, count, starving: false, ends: None }, t);
        }
        0
    }

    fn poll_mail(&mut self, cx: &mut Ctx<'_>, w: usize, t: u64) -> u64 {
        self.adm_poll(cx, w, t)
    }

    fn deliver(&mut self, cx: &mut Ctx<'_>, slot: u32, at: u64) {
        self.adm_deliver(cx, slot, at)
    }

    /// A sleeper waits in `adm_rx` for a message: under interrupts (and ULI)
    /// the message's arrival runs its handler at once (about 50 cycles,
    /// ASPLOS 2010, section 4.3), which is the whole wake-up; under polling
    /// (today's runtime) it is a parked thread.
    fn message_kinds(&self) -> Vec<MessageKind> {
        self.kinds.to_vec()
    }

    fn arm_tokens(&mut self, lp: u32, leaves: u32) {
        let t = PhaseTokens { phase: lp as usize, enqueued: leaves as usize, ran: 0, partial: 0, armed: true };
        self.tokens.add(t, |a, b| a + b);
    }

    /// A leaf's token rides on a report its worker sends anyway (the
    /// starving report, or the next threshold's): it costs nothing.
    fn leaf_token(&mut self, lp: u32) {
        self.tokens.add(PhaseTokens { phase: lp as usize, enqueued: 0, ran: 1, partial: 0, armed: false }, |a, b| a + b);
    }

    /// The last leaf's token travels with `from`'s report up its managers to
    /// the root, which completes the loop (`TokenBook::take_complete`), and
    /// the value comes down with `UNBLOCK` through the waiter's managers
    /// (ASPLOS 2010, section 4.2). Each hop costs the network's latency, a
    /// send, and the receiver's handler once its previous handler is over;
    /// the hops are not queued behind other mail.
    fn piggyback_end(&mut self, cx: &mut Ctx<'_>, lp: u32, from: usize, to: usize, t: u64) -> u64 {
        let uli = cx.cfg.delivery == Delivery::Uli;
        let handler = if uli { costs::ULI_RECV_UPDATE } else { costs::ADM_HANDLER };
        let mut at = t;
        let mut here = from;
        let hop = |cx: &mut Ctx<'_>, busy: &[u64], to: usize, at: u64, here: usize| {
            let arrive = at + costs::ADM_SEND + cx.m.msg_latency(here, to) as u64;
            arrive.max(busy[to]) + handler
        };
        let root = self.tree.root();
        for level in 0..=root {
            let host = self.tree.host(level, self.tree.partition_of(level, from));
            at = hop(cx, &self.handler_busy, host, at, here);
            here = host;
        }
        self.leaf_token(lp);
        let done = self.tokens.take_complete(lp as usize, 0);
        debug_assert!(done.is_some(), "reduction loop {lp}: the root's tokens do not complete it");
        for level in (0..root).rev() {
            let host = self.tree.host(level, self.tree.partition_of(level, to));
            at = hop(cx, &self.handler_busy, host, at, here);
            here = host;
        }
        hop(cx, &self.handler_busy, to, at, here) - t
    }

    fn wake_cycles(&self, cx: &Ctx<'_>) -> u64 {
        match cx.cfg.delivery {
            Delivery::Poll => cx.cfg.preset.wake_cycles,
            Delivery::Interrupt | Delivery::Uli => 0,
        }
    }
}
