//! The event loop: workers take turns in simulated time; a turn runs a piece
//! of the top frame of the worker's stack, or looks for work.

use super::adm::AdmState;
use super::costs;
use super::fixed::FixedState;
use super::item::{Block, Frame, Item, Work, WorkPos};
use super::result::{Bucket, Op, OpCost, SimResult, BUCKETS, OPS};
use super::space::SpaceState;
use super::unit::UnitState;
use super::ws::WsState;
use super::{SimConfig, SimPolicy};
use crate::machine::Machine;
use crate::SimError;
use finegrain::policy::pdf::SerialPath;
use finegrain::policy::{IdleAction, Policy, PolicyKind};
use finegrain::rng::XorShift;
use finegrain::taskgraph::{Step, TaskGraph, TaskId, TaskKind};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

const NONE: u32 = u32::MAX;

/// Line numbers at and above this are the scheduler's own structures (queue
/// words, task slots, locks, latches); trace lines are far below.
pub(crate) const SCHED_LINES: u64 = 1 << 60;

/// The mechanism being simulated, with its state.
#[derive(Debug)]
pub(crate) enum Mech {
    Ws(WsState),
    Adm(AdmState),
    Unit(UnitState),
    Fixed(FixedState),
}

/// What one search for work gave.
pub(crate) enum Found {
    /// An item to run, the cycles it took to get, and where they go.
    Got(Item, u64, Bucket),
    /// Nothing yet: try again after this many cycles (a failed attempt or a
    /// backoff).
    Retry(u64, Bucket),
    /// Nothing: after this many cycles of looking (charged to `steal_fail`),
    /// sleep until woken (by new work, a message, or the latch the worker's
    /// frame waits for); the sleep counts in the bucket given.
    Sleep(u64, Bucket),
}

#[derive(Debug)]
pub(crate) struct Worker {
    pub stack: Vec<Frame>,
    /// Serial positions saved by `join`s (restored at their waits), for `pdf`.
    pub paths: Vec<SerialPath>,
    /// A turn is queued for this worker.
    pub active: bool,
    /// It sleeps (since `slept_at`) until something wakes it.
    pub asleep: bool,
    /// When it went to sleep, and which bucket its sleep counts in.
    pub slept_at: u64,
    pub sleep_bucket: Bucket,
    /// Cycles owed to message handlers run by interrupt during its turn.
    pub debt: u64,
    pub failed_rounds: u32,
    pub buckets: [u64; BUCKETS],
    pub rng: XorShift,
}

/// An event: a worker's turn or a message's arrival.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Turn(u32),
    Msg(u32),
}

pub(crate) struct Sim<'g> {
    pub g: &'g TaskGraph,
    pub m: Machine,
    pub n: usize,
    pub policy: Option<Policy>,
    pub cfg: SimConfig,
    pub w: Vec<Worker>,
    pub mech: Mech,
    /// Recorded task spaces: plans, queues and counts (`space.rs`).
    pub(crate) spaces: SpaceState,
    heap: BinaryHeap<Reverse<(u64, u64, Ev)>>,
    seq: u64,
    pub now: u64,
    /// The worker whose turn is being run (`NONE` between turns).
    turning: u32,
    latch_left: Vec<u32>,
    latch_waiter: Vec<u32>,
    latch_is_join: Vec<bool>,
    loop_left: Vec<u32>,
    loop_waiter: Vec<u32>,
    preds_left: Vec<u32>,
    /// Who made each task ready (steal counting).
    done: bool,
    end_time: u64,
    pub ops: [OpCost; OPS],
    pub tasks_run: u64,
    pub tasks_stolen: u64,
    pub messages: u64,
    pub events: u64,
    /// Dividing recorded cycles by the preset's IPC, as a multiplier.
    inv_ipc: f64,
    l1_hit: u32,
}

impl std::fmt::Debug for Sim<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sim").field("n", &self.n).field("now", &self.now).finish_non_exhaustive()
    }
}

/// Replay `g` under `cfg`.
pub fn simulate(g: &TaskGraph, cfg: &SimConfig) -> Result<SimResult, SimError> {
    g.validate()?;
    let started = Instant::now();
    let mut sim = Sim::new(g, cfg)?;
    sim.run()?;
    Ok(sim.result(started.elapsed().as_secs_f64()))
}

impl<'g> Sim<'g> {
    pub(crate) fn new(g: &'g TaskGraph, cfg: &SimConfig) -> Result<Sim<'g>, SimError> {
        let n = cfg.threads;
        let mut m = Machine::new(cfg.preset, n)?;
        let (policy, mech) = match &cfg.policy {
            SimPolicy::Static => (None, Mech::Fixed(FixedState::new(n))),
            SimPolicy::Runtime(p) => {
                let mech = match p.kind {
                    PolicyKind::Ws(ws) => Mech::Ws(WsState::new(n, ws, &mut m, cfg.preset.spm.is_some())),
                    PolicyKind::Adm(a) => Mech::Adm(AdmState::new(n, a)),
                    PolicyKind::Unit(u) => Mech::Unit(UnitState::new(n, u)),
                    // `SimPolicy::parse` gives `Static`; built by hand, it idles by its spin.
                    PolicyKind::Fixed => Mech::Fixed(FixedState::new(n)),
                };
                (Some(p.clone()), mech)
            }
        };
        let mut latch_is_join = vec![false; g.latches as usize];
        for t in &g.tasks {
            if let (Some(l), TaskKind::Join) = (t.latch, t.kind) {
                latch_is_join[l as usize] = true;
            }
        }
        let mut seed = XorShift::new(cfg.seed.max(1));
        let w = (0..n)
            .map(|_| Worker {
                stack: Vec::new(),
                paths: Vec::new(),
                active: false,
                asleep: false,
                slept_at: 0,
                sleep_bucket: Bucket::Starved,
                debt: 0,
                failed_rounds: 0,
                buckets: [0; BUCKETS],
                rng: XorShift::new(seed.next_u64() | 1),
            })
            .collect();
        let l1_hit = cfg.preset.l1.hit_cycles;
        let tiles: Vec<usize> = (0..n).map(|w| m.tile_of(w)).collect();
        let spaces = SpaceState::new(g, &cfg.locality, n, tiles, cfg.seed)?;
        Ok(Sim {
            spaces,
            g,
            n,
            policy,
            cfg: cfg.clone(),
            w,
            mech,
            heap: BinaryHeap::new(),
            seq: 0,
            now: 0,
            turning: NONE,
            latch_left: g.latch_counts(),
            latch_waiter: vec![NONE; g.latches as usize],
            latch_is_join,
            loop_left: g.loops.iter().map(|l| l.leaves).collect(),
            loop_waiter: vec![NONE; g.loops.len()],
            preds_left: g.tasks.iter().map(|t| t.preds).collect(),
            done: false,
            end_time: 0,
            ops: [OpCost::default(); OPS],
            tasks_run: 0,
            tasks_stolen: 0,
            messages: 0,
            events: 0,
            // Recorded cycles are the recording core's, scaled to the preset's
            // core; generated ones are already in the modelled core's cycles.
            inv_ipc: if g.meta.clock == finegrain::taskgraph::Clock::Synthetic { 1.0 } else { 1.0 / cfg.preset.ipc.max(1e-6) },
            l1_hit,
            m,
        })
    }

    // ---- the event queue ----

    pub(crate) fn schedule_turn(&mut self, w: usize, at: u64) {
        debug_assert!(!self.w[w].active, "worker {w} already has a turn");
        self.w[w].active = true;
        self.push_event(at, Ev::Turn(w as u32));
    }

    pub(crate) fn schedule_msg(&mut self, at: u64, slot: u32) {
        self.push_event(at, Ev::Msg(slot));
    }

    fn push_event(&mut self, at: u64, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq, ev)));
    }

    /// Wake a sleeping worker at `at` (no-op if it is active).
    pub(crate) fn wake(&mut self, w: usize, at: u64) {
        if !self.w[w].asleep || self.done || self.turning == w as u32 {
            return;
        }
        let wk = &mut self.w[w];
        let slept = at.saturating_sub(wk.slept_at);
        wk.buckets[wk.sleep_bucket as usize] += slept;
        wk.asleep = false;
        self.schedule_turn(w, at.max(self.w[w].slept_at));
    }

    fn sleep(&mut self, w: usize, at: u64, bucket: Bucket) {
        let wk = &mut self.w[w];
        wk.asleep = true;
        wk.slept_at = at;
        wk.sleep_bucket = bucket;
        self.on_sleep(w, at);
    }

    pub(crate) fn charge(&mut self, w: usize, b: Bucket, cycles: u64) {
        self.w[w].buckets[b as usize] += cycles;
    }

    pub(crate) fn op(&mut self, o: Op, cycles: u64) {
        let c = &mut self.ops[o as usize];
        c.count += 1;
        c.cycles += cycles;
    }

    /// A memory access by worker `w` to a scheduler line.
    pub(crate) fn sched_access(&mut self, w: usize, line: u64, write: bool, at: u64) -> u64 {
        self.events += 1;
        self.m.access(w, SCHED_LINES + line, write, at) as u64
    }

    pub(crate) fn run(&mut self) -> Result<(), SimError> {
        // The root runs on worker 0; the others start looking for work.
        self.w[0].stack.push(Frame::Task {
            t: 0,
            step: self.g.tasks[0].steps.0,
            end: self.g.tasks[0].steps.1,
            pos: WorkPos::default(),
            block: Block::None,
            path: SerialPath::default(),
        });
        for w in 0..self.n {
            self.schedule_turn(w, 0);
        }
        while let Some(Reverse((at, _, ev))) = self.heap.pop() {
            self.now = at;
            self.events += 1;
            match ev {
                Ev::Turn(w) => {
                    let w = w as usize;
                    self.w[w].active = false;
                    self.turning = w as u32;
                    self.turn(w, at);
                    self.turning = NONE;
                }
                Ev::Msg(slot) => self.deliver(slot, at),
            }
            if self.done {
                return Ok(());
            }
        }
        let left: u32 = self.latch_left.iter().sum();
        Err(SimError::Deadlock(format!(
            "no event left at cycle {} with the root unfinished ({} tasks run, {} latched tasks outstanding): a cycle among graph edges?",
            self.now, self.tasks_run, left
        )))
    }

    // ---- one turn ----

    fn turn(&mut self, w: usize, at: u64) {
        let mut t = at + std::mem::take(&mut self.w[w].debt);
        t += self.poll_mail(w, t);
        if self.done {
            return;
        }
        match self.w[w].stack.last() {
            None => self.look_for_work(w, t),
            Some(Frame::Piece { .. }) => self.piece_turn(w, t),
            Some(Frame::Task { .. }) => self.task_turn(w, t),
        }
    }

    fn look_for_work(&mut self, w: usize, mut t: u64) {
        let found = match self.space_find(w, t) {
            Ok((item, cycles, bucket)) => Found::Got(item, cycles, bucket),
            Err(looked) => {
                t += looked;
                self.find(w, t)
            }
        };
        match found {
            Found::Got(item, cycles, bucket) => {
                self.charge(w, bucket, cycles);
                self.w[w].failed_rounds = 0;
                if item.from as usize != w {
                    self.tasks_stolen += 1;
                }
                self.start(w, item);
                self.schedule_turn(w, t + cycles);
            }
            Found::Retry(cycles, bucket) => {
                self.charge(w, bucket, cycles);
                self.schedule_turn(w, t + cycles.max(1));
            }
            Found::Sleep(cycles, bucket) => {
                self.charge(w, Bucket::StealFail, cycles);
                self.sleep(w, t + cycles, bucket)
            }
        }
    }

    /// The idle step after a round that found nothing: the policy's backoff
    /// (`Idle::next`), as cycles to wait, or `None` to park.
    pub(crate) fn backoff(&mut self, w: usize, nothing_left: bool) -> Option<u64> {
        let idle = self.policy.as_ref().map(|p| p.idle).unwrap_or(finegrain::policy::Idle::with_spin(0));
        self.w[w].failed_rounds = self.w[w].failed_rounds.saturating_add(1);
        match idle.next(self.w[w].failed_rounds - 1, nothing_left) {
            IdleAction::Spin { pauses } => Some(pauses as u64 * costs::PAUSE),
            IdleAction::Yield => Some(costs::YIELD),
            IdleAction::Park => None,
        }
    }

    /// Put ready work on top of `w`'s stack.
    fn start(&mut self, w: usize, item: Item) {
        let f = match item.work {
            Work::Task(t) => self.task_frame(t, item.path),
            Work::Piece { lp, lo, hi } => Frame::Piece { lp, next: lo, hi, path: item.path },
        };
        self.w[w].stack.push(f);
    }

    fn task_frame(&self, t: TaskId, path: SerialPath) -> Frame {
        let (a, b) = self.g.tasks[t as usize].steps;
        Frame::Task { t, step: a, end: b, pos: WorkPos::default(), block: Block::None, path }
    }

    fn piece_turn(&mut self, w: usize, t: u64) {
        let Some(Frame::Piece { lp, next, hi, path }) = self.w[w].stack.last().cloned() else { unreachable!() };
        if next >= hi {
            self.w[w].stack.pop();
            return self.after_frame(w, t);
        }
        let mut cost = 0;
        let mut here = path.clone();
        if hi - next >= 2 && self.wants_split(w) {
            let mid = next + (hi - next) / 2;
            let paths = path.join();
            here = paths.a;
            let item = Item { work: Work::Piece { lp, lo: mid, hi }, path: paths.b, from: w as u32 };
            cost += self.push(w, item, t);
            if let Some(Frame::Piece { hi: h, path: p, .. }) = self.w[w].stack.last_mut() {
                *h = mid;
                *p = here.clone();
            }
        }
        let leaf = self.g.loops[lp as usize].first_leaf + next;
        if let Some(Frame::Piece { next: nx, .. }) = self.w[w].stack.last_mut() {
            *nx += 1;
        }
        let f = self.task_frame(leaf, here);
        self.w[w].stack.push(f);
        self.schedule_turn(w, t + cost.max(1));
    }

    fn task_turn(&mut self, w: usize, t: u64) {
        let Some(Frame::Task { t: task, step, end, block, path, .. }) = self.w[w].stack.last().cloned() else { unreachable!() };
        // A blocked frame: go on if what it waits for is done, else look for work.
        match block {
            Block::None => {}
            Block::Latch(l) => {
                if self.latch_left[l as usize] > 0 {
                    self.latch_waiter[l as usize] = w as u32;
                    return self.look_for_work(w, t);
                }
                self.set_block(w, Block::None);
                if self.latch_is_join[l as usize] {
                    let p = self.w[w].paths.pop().unwrap_or_else(|| path.clone());
                    self.set_path(w, p);
                }
            }
            Block::Loop(lp) => {
                if self.loop_left[lp as usize] > 0 {
                    self.loop_waiter[lp as usize] = w as u32;
                    return self.look_for_work(w, t);
                }
                self.set_block(w, Block::None);
            }
        }
        if step >= end {
            self.w[w].stack.pop();
            self.finish_task(w, task, t);
            return self.after_frame(w, t);
        }
        match self.g.steps[step as usize] {
            Step::Work { cycles, lines } => self.work_turn(w, t, cycles, lines),
            Step::Spawn { task: child } => {
                self.advance(w);
                if let Some(cost) = self.space_spawn(child, t) {
                    // A task of a recorded space: already in its planned queue.
                    self.charge(w, Bucket::Enqueue, cost);
                    self.op(Op::Enqueue, cost);
                    return self.schedule_turn(w, t + cost.max(1));
                }
                let child_path = if self.g.tasks[child as usize].kind == TaskKind::Join {
                    let p = path.join();
                    self.w[w].paths.push(p.after.clone());
                    self.set_path(w, p.a);
                    p.b
                } else {
                    let p = path.spawn();
                    self.set_path(w, p.rest);
                    p.task
                };
                let cost = self.push(w, Item { work: Work::Task(child), path: child_path, from: w as u32 }, t);
                self.schedule_turn(w, t + cost.max(1));
            }
            Step::Wait { latch } => {
                self.advance(w);
                self.set_block(w, Block::Latch(latch));
                self.schedule_turn(w, t + 1);
            }
            Step::Loop { id } => {
                self.advance(w);
                self.set_block(w, Block::Loop(id));
                let lp = self.g.loops[id as usize];
                let cost = self.start_loop(w, id, lp.leaves, path, t);
                self.schedule_turn(w, t + cost.max(1));
            }
        }
    }

    /// Begin loop `id` on `w`: the whole range as one piece on its stack
    /// (the static baseline cuts it first).
    fn start_loop(&mut self, w: usize, id: u32, leaves: u32, path: SerialPath, t: u64) -> u64 {
        if let Mech::Fixed(_) = self.mech {
            return self.fixed_loop(w, id, leaves, path, t);
        }
        self.w[w].stack.push(Frame::Piece { lp: id, next: 0, hi: leaves, path });
        0
    }

    fn work_turn(&mut self, w: usize, t: u64, cycles: u64, lines: (u32, u32)) {
        let Some(Frame::Task { pos, .. }) = self.w[w].stack.last_mut() else { unreachable!() };
        if !pos.started {
            pos.started = true;
            pos.total = self.g.lines_of(lines).iter().map(|r| r.count as u64).sum();
            pos.run = lines.0;
            pos.off = 0;
            pos.done = 0;
        }
        let mut p = *pos;
        let before = p.done;
        let mut mem = 0u64;
        let mut clock = t;
        let mut k = 0;
        while p.done < p.total && k < costs::LINES_PER_TURN {
            let run = self.g.lines[p.run as usize];
            let line = run.first + p.off as u64;
            let lat = self.m.access(w, line, run.write, clock) as u64;
            let extra = lat.saturating_sub(self.l1_hit as u64);
            mem += extra;
            clock += extra;
            p.off += 1;
            p.done += 1;
            k += 1;
            if p.off >= run.count {
                p.run += 1;
                p.off = 0;
            }
        }
        self.events += k as u64;
        // This turn's share of the work cycles, scaled by the core's IPC.
        let share = |done: u64| (cycles as u128 * done as u128 / p.total.max(1) as u128) as u64;
        let part = if p.total == 0 { cycles } else { share(p.done) - share(before) };
        let work = (part as f64 * self.inv_ipc).round() as u64;
        let cost = work + mem;
        let finished = p.done >= p.total;
        if let Some(Frame::Task { pos, .. }) = self.w[w].stack.last_mut() {
            *pos = p;
        }
        if finished {
            self.advance(w);
        }
        self.charge(w, Bucket::Task, cost);
        self.schedule_turn(w, t + cost.max(1));
    }

    fn advance(&mut self, w: usize) {
        if let Some(Frame::Task { step, pos, .. }) = self.w[w].stack.last_mut() {
            *step += 1;
            *pos = WorkPos::default();
        }
    }

    fn set_block(&mut self, w: usize, b: Block) {
        if let Some(Frame::Task { block, .. }) = self.w[w].stack.last_mut() {
            *block = b;
        }
    }

    fn set_path(&mut self, w: usize, p: SerialPath) {
        if let Some(Frame::Task { path, .. }) = self.w[w].stack.last_mut() {
            *path = p;
        }
    }

    /// A frame was popped: go on with the one below (or look for work).
    fn after_frame(&mut self, w: usize, t: u64) {
        if self.done {
            return;
        }
        self.schedule_turn(w, t + 1);
    }

    fn finish_task(&mut self, w: usize, task: TaskId, t: u64) {
        self.tasks_run += 1;
        if task == 0 {
            self.done = true;
            self.end_time = t;
            return;
        }
        let info = &self.g.tasks[task as usize];
        if info.kind == TaskKind::LoopLeaf {
            if let Some(Frame::Piece { lp, .. }) = self.w[w].stack.last() {
                let lp = *lp as usize;
                self.loop_left[lp] -= 1;
                if self.loop_left[lp] == 0 {
                    let waiter = self.loop_waiter[lp];
                    self.release_waiter(w, waiter, t);
                }
            }
        }
        if let Some(l) = info.latch {
            let l = l as usize;
            self.latch_left[l] -= 1;
            if self.latch_left[l] == 0 {
                // The latch word: written by the last finisher, read by the waiter.
                self.sched_access(w, latch_line(l), true, t);
                let waiter = self.latch_waiter[l];
                self.release_waiter(w, waiter, t);
            }
        }
        let (a, b) = info.succs;
        let path = match self.w[w].stack.last() {
            Some(Frame::Task { path, .. }) | Some(Frame::Piece { path, .. }) => path.clone(),
            None => SerialPath::default(),
        };
        for i in a..b {
            let s = self.g.edges[i as usize];
            self.preds_left[s as usize] -= 1;
            if self.preds_left[s as usize] == 0 {
                let item = Item { work: Work::Task(s), path: path.spawn().task, from: w as u32 };
                let c = self.push(w, item, t);
                self.w[w].debt += c;
            }
        }
    }

    fn release_waiter(&mut self, from: usize, waiter: u32, t: u64) {
        if waiter == NONE || waiter as usize == from {
            return;
        }
        let lat = self.m.msg_latency(from, waiter as usize) as u64;
        self.wake(waiter as usize, t + lat);
    }

    // ---- dispatch to the mechanism (one match per operation) ----

    /// Make `item` ready on `w` at `t`; returns the cycles `w` spends.
    pub(crate) fn push(&mut self, w: usize, item: Item, t: u64) -> u64 {
        let c = match self.mech {
            Mech::Ws(_) => self.ws_push(w, item, t),
            Mech::Adm(_) => self.adm_push(w, item, t),
            Mech::Unit(_) => self.unit_push(w, item, t),
            Mech::Fixed(_) => self.fixed_push(w, item, t),
        };
        self.charge(w, Bucket::Enqueue, c);
        self.op(Op::Enqueue, c);
        c
    }

    fn find(&mut self, w: usize, t: u64) -> Found {
        match self.mech {
            Mech::Ws(_) => self.ws_find(w, t),
            Mech::Adm(_) => self.adm_find(w, t),
            Mech::Unit(_) => self.unit_find(w, t),
            Mech::Fixed(_) => self.fixed_find(w, t),
        }
    }

    fn wants_split(&mut self, w: usize) -> bool {
        match self.mech {
            Mech::Ws(_) => self.ws_wants_split(w),
            Mech::Adm(_) => self.adm_wants_split(w),
            Mech::Unit(_) => self.unit_wants_split(w),
            Mech::Fixed(_) => false,
        }
    }

    fn on_sleep(&mut self, w: usize, at: u64) {
        match self.mech {
            Mech::Ws(ref mut s) => s.parked.push_back(w as u32),
            Mech::Unit(ref mut s) => s.parked.push_back(w as u32),
            Mech::Adm(_) | Mech::Fixed(_) => {}
        }
        let _ = at;
    }

    /// Wake one parked worker (after new stealable work appeared).
    pub(crate) fn wake_one(&mut self, at: u64) {
        loop {
            let next = match self.mech {
                Mech::Ws(ref mut s) => s.parked.pop_front(),
                Mech::Unit(ref mut s) => s.parked.pop_front(),
                Mech::Adm(_) | Mech::Fixed(_) => None,
            };
            match next {
                // Skip workers woken meanwhile by something else.
                Some(p) if !self.w[p as usize].asleep => continue,
                Some(p) => return self.wake(p as usize, at + self.cfg.preset.wake_cycles),
                None => return,
            }
        }
    }

    fn poll_mail(&mut self, w: usize, t: u64) -> u64 {
        match self.mech {
            Mech::Adm(_) => self.adm_poll(w, t),
            _ => 0,
        }
    }

    fn deliver(&mut self, slot: u32, at: u64) {
        if let Mech::Adm(_) = self.mech {
            self.adm_deliver(slot, at);
        }
    }

    /// The loop piece nearest the top of `w`'s stack, if it has two leaves
    /// or more left (the leaf running above it is already taken).
    pub(crate) fn splittable_piece(&self, w: usize) -> Option<usize> {
        let i = self.w[w].stack.iter().rposition(|f| matches!(f, Frame::Piece { .. }))?;
        matches!(self.w[w].stack[i], Frame::Piece { next, hi, .. } if hi - next >= 2).then_some(i)
    }

    fn result(&mut self, wall_s: f64) -> SimResult {
        let mut buckets = [0u64; BUCKETS];
        for wk in &self.w {
            for (b, v) in buckets.iter_mut().zip(wk.buckets) {
                *b += v;
            }
        }
        // Sleepers still asleep at the end count their sleep up to the end.
        for wk in &self.w {
            if wk.asleep && wk.slept_at < self.end_time {
                buckets[wk.sleep_bucket as usize] += self.end_time - wk.slept_at;
            }
        }
        SimResult {
            preset: self.cfg.preset.name,
            policy: self.cfg.policy.name(),
            threads: self.n,
            makespan: self.end_time,
            buckets,
            ops: self.ops,
            tasks_run: self.tasks_run,
            tasks_stolen: self.tasks_stolen,
            messages: self.messages,
            work_cycles: self.g.total_cycles(),
            space_tasks: self.spaces.tasks,
            space_stolen: self.spaces.stolen,
            space_steals: self.spaces.steals,
            space_starts: std::mem::take(&mut self.spaces.starts),
            mem: self.m.stats().clone(),
            events: self.events,
            wall_s,
        }
    }
}

/// The line of latch `l` (written by the last task to end, read by the waiter).
pub(crate) fn latch_line(l: usize) -> u64 {
    (1 << 40) + l as u64
}
