//! The event loop: workers take turns in simulated time; a turn runs a piece
//! of the top frame of the worker's stack, or looks for work.
//!
//! The loop owns the task graph's progress (frames, steps, latches, loops,
//! graph edges, a work step's footprint through the cache model) and asks
//! the mechanism `M` for everything a scheduler decides. It is generic over
//! `M: SimMechanism`, so each mechanism gets its own monomorphised loop, as
//! the runtime's `run_loop<M: Mechanism>`; [`simulate`] matches the policy
//! once and calls `run_with::<WsMech>` and so on.

use super::config::{SimConfig, SimPolicy};
use super::context::{Ctx, Ev, NONE};
use super::costs;
use super::item::{Block, Frame, Item, Work, WorkPos};
use super::mech::adm::AdmMech;
use super::mech::fixed::FixedMech;
use super::mech::ideal::IdealMech;
use super::mech::unit::UnitMech;
use super::mech::ws::WsMech;
use super::mechanism::{Found, SimMechanism};
use super::premature::Premature;
use super::reduction::{self, How};
use super::result::{Bucket, Op, SimResult, BUCKETS};
use super::space::SpaceState;
use crate::machine::Machine;
use crate::SimError;
use finegrain::policy::pdf::SerialPath;
use finegrain::policy::PolicyKind;
use finegrain::taskgraph::{Step, TaskGraph, TaskId, TaskKind};
use std::time::Instant;

/// One simulation: the shared context, the mechanism, and what the loop
/// itself tracks (task spaces, latches, loops, graph predecessors).
pub(crate) struct Sim<'g, M> {
    pub cx: Ctx<'g>,
    pub mech: M,
    /// Recorded task spaces: plans, queues and counts (`space.rs`).
    spaces: SpaceState,
    latch_waiter: Vec<u32>,
    latch_is_join: Vec<bool>,
    /// The line of each latch's word once its first task is spawned: its
    /// spawner's frame's (`latch_frame_line`), 0 before.
    latch_home: Vec<u64>,
    /// The mechanism orders tasks by their serial position (`pdf`): keep the
    /// frames' `SerialPath`s; otherwise they stay empty, untouched.
    paths_on: bool,
    loop_waiter: Vec<u32>,
    /// How the reduction loops end under this policy (`reduction::how`).
    reduce_how: How,
    /// Per loop, when its waiter may go on: its last leaf's end, plus the
    /// reduction's end for a reduction loop (`u64::MAX` before).
    loop_ready: Vec<u64>,
    /// Under `pdf`: the premature tasks counted at each start.
    premature: Option<Premature>,
    preds_left: Vec<u32>,
    /// Modelled core cycles per unit of recorded work (`costs::cycles_per_work_unit`).
    inv_ipc: f64,
    l1_hit: u32,
}

impl<M> std::fmt::Debug for Sim<'_, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sim").field("cx", &self.cx).finish_non_exhaustive()
    }
}

/// Replay `g` under `cfg`: the policy is matched once, and the loop runs
/// monomorphised for its mechanism.
pub fn simulate(g: &TaskGraph, cfg: &SimConfig) -> Result<SimResult, SimError> {
    g.validate()?;
    let n = cfg.threads;
    let spm = cfg.preset.spm.is_some();
    match &cfg.policy {
        SimPolicy::Static => run_with(g, cfg, None, |_| FixedMech::new(n)),
        SimPolicy::Ideal => run_with(g, cfg, None, |_| IdealMech::new(n)),
        SimPolicy::Runtime(p) => match p.kind {
            PolicyKind::Ws(ws) => run_with(g, cfg, Some(p.clone()), |m| WsMech::new(n, ws, m, spm)),
            PolicyKind::Adm(a) => run_with(g, cfg, Some(p.clone()), |_| AdmMech::new(n, a)),
            PolicyKind::Unit(u) => run_with(g, cfg, Some(p.clone()), |_| UnitMech::new(n, u)),
            // `SimPolicy::parse` gives `Static`; built by hand, it idles by its spin.
            PolicyKind::Fixed => run_with(g, cfg, Some(p.clone()), |_| FixedMech::new(n)),
        },
    }
}

/// Replay `g` under `cfg` with the mechanism `make` builds (on the machine).
fn run_with<M: SimMechanism>(
    g: &TaskGraph,
    cfg: &SimConfig,
    policy: Option<finegrain::Policy>,
    make: impl FnOnce(&mut Machine) -> M,
) -> Result<SimResult, SimError> {
    let started = Instant::now();
    let mut sim = Sim::new(g, cfg, policy, make)?;
    sim.run()?;
    if let Some(why) = sim.cx.m.naming_failure() {
        return Err(SimError::Trace(why));
    }
    Ok(sim.result(started.elapsed().as_secs_f64()))
}

impl<'g, M: SimMechanism> Sim<'g, M> {
    pub(crate) fn new(
        g: &'g TaskGraph,
        cfg: &SimConfig,
        policy: Option<finegrain::Policy>,
        make: impl FnOnce(&mut Machine) -> M,
    ) -> Result<Sim<'g, M>, SimError> {
        let n = cfg.threads;
        let mut m = Machine::new(cfg.preset, n)?;
        let mech = make(&mut m);
        // After the mechanism has read the chip's distances (victim orders).
        if cfg.model.ideal_network {
            m.set_ideal_network(super::config::IDEAL_NETWORK_CYCLES);
        }
        m.set_perfect_memory(cfg.model.perfect_memory);
        let paths_on = mech.serial_paths();
        let mut latch_is_join = vec![false; g.latches as usize];
        for t in &g.tasks {
            if let (Some(l), TaskKind::Join) = (t.latch, t.kind) {
                latch_is_join[l as usize] = true;
            }
        }
        let l1_hit = cfg.preset.l1.hit_cycles;
        let spaces = SpaceState::new(g, &cfg.locality, n, &m, cfg.seed)?;
        let cx = Ctx::new(g, cfg, m, policy);
        let reduce_how = reduction::how(&cx, matches!(cfg.policy, SimPolicy::Ideal));
        Ok(Sim {
            cx,
            mech,
            spaces,
            latch_waiter: vec![NONE; g.latches as usize],
            latch_home: vec![0; g.latches as usize],
            paths_on,
            latch_is_join,
            loop_waiter: vec![NONE; g.loops.len()],
            reduce_how,
            loop_ready: vec![u64::MAX; g.loops.len()],
            premature: if paths_on { Premature::new(g) } else { None },
            preds_left: g.tasks.iter().map(|t| t.preds).collect(),
            inv_ipc: costs::cycles_per_work_unit(g.meta.clock, cfg.preset),
            l1_hit,
        })
    }

    pub(crate) fn run(&mut self) -> Result<(), SimError> {
        // The root runs on worker 0; the others start looking for work.
        let root = self.task_frame(0, SerialPath::default());
        self.cx.w[0].stack.push(root);
        for w in 0..self.cx.n {
            self.cx.schedule_turn(w, 0);
        }
        while let Some((at, ev)) = self.cx.next_event() {
            self.cx.now = at;
            self.cx.events += 1;
            match ev {
                Ev::Turn(w) => {
                    let w = w as usize;
                    self.cx.prefetch_next();
                    self.cx.w[w].active = false;
                    self.cx.turning = w as u32;
                    self.turn(w, at);
                    self.cx.turning = NONE;
                    self.cx.next_step[w] = match self.cx.w[w].stack.last() {
                        Some(&Frame::Task { step, pos, .. }) => [step, if pos.started { pos.run } else { u32::MAX }],
                        _ => [u32::MAX; 2],
                    };
                }
                Ev::Msg(slot) => self.mech.deliver(&mut self.cx, slot, at),
            }
            if self.cx.done {
                return Ok(());
            }
        }
        let left: u32 = self.cx.latch_left.iter().sum();
        Err(SimError::Deadlock(format!(
            "no event left at cycle {} with the root unfinished ({} tasks run, {} latched tasks outstanding): a cycle among graph edges?",
            self.cx.now, self.cx.tasks_run, left
        )))
    }

    // ---- one turn ----

    fn turn(&mut self, w: usize, at: u64) {
        let mut t = at + std::mem::take(&mut self.cx.w[w].debt);
        t += self.mech.poll_mail(&mut self.cx, w, t);
        if self.cx.done {
            return;
        }
        match self.cx.w[w].stack.last() {
            None => self.look_for_work(w, t),
            Some(Frame::Piece { .. }) => self.piece_turn(w, t),
            Some(Frame::Task { .. }) => self.task_turn(w, t),
        }
    }

    fn look_for_work(&mut self, w: usize, mut t: u64) {
        let found = match self.spaces.space_find(&mut self.cx, w, t) {
            Ok((item, cycles, bucket)) => Found::Got(item, cycles, bucket),
            Err(looked) => {
                t += looked;
                self.mech.find(&mut self.cx, w, t)
            }
        };
        match found {
            Found::Got(item, cycles, bucket) => {
                self.cx.charge(w, bucket, cycles);
                self.cx.w[w].failed_rounds = 0;
                if item.from as usize != w {
                    self.cx.tasks_stolen += 1;
                }
                self.start(w, item);
                self.cx.schedule_turn(w, t + cycles);
            }
            Found::Retry(cycles, bucket) => {
                self.cx.charge(w, bucket, cycles);
                self.cx.schedule_turn(w, t + cycles.max(1));
            }
            Found::Sleep(cycles, bucket) => {
                self.cx.charge(w, Bucket::StealFail, cycles);
                self.cx.sleep(w, t + cycles, bucket);
                self.mech.on_sleep(&mut self.cx, w, t + cycles);
            }
        }
    }

    /// Put ready work on top of `w`'s stack.
    fn start(&mut self, w: usize, item: Item) {
        let f = match item.work {
            Work::Task(t) => self.task_frame(t, item.path),
            Work::Piece { lp, lo, hi } => Frame::Piece { lp, next: lo, hi, path: item.path },
            // (The unit hands a descriptor out as pieces; whole, it is one.)
            Work::Chunks { lp, lo, hi, .. } => Frame::Piece { lp, next: lo, hi, path: item.path },
        };
        self.cx.w[w].stack.push(f);
    }

    /// The frame of task `t`, starting now.
    fn task_frame(&mut self, t: TaskId, path: SerialPath) -> Frame {
        if let Some(p) = &mut self.premature {
            p.start(t);
        }
        let (a, b) = self.cx.g.tasks[t as usize].steps;
        Frame::Task { t, step: a, end: b, pos: WorkPos::default(), block: Block::None, path }
    }

    fn piece_turn(&mut self, w: usize, t: u64) {
        let Some(&Frame::Piece { lp, next, hi, .. }) = self.cx.w[w].stack.last() else { unreachable!() };
        if next >= hi {
            self.cx.w[w].stack.pop();
            return self.after_frame(w, t);
        }
        let mut cost = 0;
        let here = if hi - next >= 2 && self.mech.wants_split(&mut self.cx, w) {
            let mid = next + (hi - next) / 2;
            let paths = if self.paths_on { self.top_path(w).join() } else { SerialPath::default().join() };
            let item = Item { work: Work::Piece { lp, lo: mid, hi }, path: paths.b, from: w as u32 };
            cost += self.push(w, item, t);
            if let Some(Frame::Piece { hi: h, path: p, .. }) = self.cx.w[w].stack.last_mut() {
                *h = mid;
                *p = paths.a.clone();
            }
            paths.a
        } else if self.paths_on {
            self.top_path(w)
        } else {
            SerialPath::default()
        };
        let leaf = self.cx.g.loops[lp as usize].first_leaf + next;
        if let Some(Frame::Piece { next: nx, .. }) = self.cx.w[w].stack.last_mut() {
            *nx += 1;
        }
        cost += self.mech.at_leaf(&mut self.cx, w, t + cost);
        let f = self.task_frame(leaf, here);
        self.cx.w[w].stack.push(f);
        self.cx.schedule_turn(w, t + cost.max(1));
    }

    /// The serial position of `w`'s top frame (`pdf`).
    fn top_path(&self, w: usize) -> SerialPath {
        match self.cx.w[w].stack.last() {
            Some(Frame::Task { path, .. }) | Some(Frame::Piece { path, .. }) => path.clone(),
            None => SerialPath::default(),
        }
    }

    fn task_turn(&mut self, w: usize, t: u64) {
        let Some(&Frame::Task { t: task, step, end, block, .. }) = self.cx.w[w].stack.last() else { unreachable!() };
        // A blocked frame: go on if what it waits for is done, else look for work.
        match block {
            Block::None => {}
            Block::Latch(l) => {
                if self.cx.latch_left[l as usize] > 0 {
                    self.latch_waiter[l as usize] = w as u32;
                    return self.look_for_work(w, t);
                }
                self.set_block(w, Block::None);
                if self.latch_is_join[l as usize] && self.paths_on {
                    if let Some(p) = self.cx.w[w].paths.pop() {
                        self.set_path(w, p);
                    }
                }
            }
            Block::Loop(lp) => {
                if self.cx.loop_left[lp as usize] > 0 {
                    self.loop_waiter[lp as usize] = w as u32;
                    return self.look_for_work(w, t);
                }
                let ready = self.loop_ready[lp as usize];
                if ready > t {
                    // A reduction's value is on its way: wait for it.
                    self.cx.charge(w, Bucket::Starved, ready - t);
                    return self.cx.schedule_turn(w, ready);
                }
                self.set_block(w, Block::None);
            }
        }
        if step >= end {
            self.cx.w[w].stack.pop();
            self.finish_task(w, task, t);
            return self.after_frame(w, t);
        }
        match self.cx.g.steps[step as usize] {
            Step::Work { cycles, lines } => self.work_turn(w, t, cycles, lines),
            Step::Spawn { task: child } => {
                self.advance(w);
                if let Some(l) = self.cx.g.tasks[child as usize].latch {
                    if self.latch_home[l as usize] == 0 {
                        self.latch_home[l as usize] = latch_frame_line(w, self.cx.w[w].stack.len());
                    }
                }
                let wake = self.mech.wake_cycles(&self.cx);
                if let Some(cost) = self.spaces.space_spawn(&mut self.cx, child, t, wake) {
                    // A task of a recorded space: already in its planned queue.
                    self.cx.charge(w, Bucket::Enqueue, cost);
                    self.cx.op(Op::Enqueue, cost);
                    return self.cx.schedule_turn(w, t + cost.max(1));
                }
                let child_path = if !self.paths_on {
                    SerialPath::default()
                } else if self.cx.g.tasks[child as usize].kind == TaskKind::Join {
                    let p = self.top_path(w).join();
                    self.cx.w[w].paths.push(p.after.clone());
                    self.set_path(w, p.a);
                    p.b
                } else {
                    let p = self.top_path(w).spawn();
                    self.set_path(w, p.rest);
                    p.task
                };
                let cost = self.push(w, Item { work: Work::Task(child), path: child_path, from: w as u32 }, t);
                self.cx.schedule_turn(w, t + cost.max(1));
            }
            Step::Wait { latch } => {
                self.advance(w);
                self.set_block(w, Block::Latch(latch));
                self.cx.schedule_turn(w, t + 1);
            }
            Step::Loop { id } => {
                self.advance(w);
                self.set_block(w, Block::Loop(id));
                let lp = self.cx.g.loops[id as usize];
                // Its waiter, known before it blocks (a reduction's value goes to it).
                self.loop_waiter[id as usize] = w as u32;
                if lp.reduce && self.reduce_how == How::Piggyback {
                    self.mech.arm_tokens(id, lp.leaves);
                }
                let path = if self.paths_on { self.top_path(w) } else { SerialPath::default() };
                let cost = self.mech.start_loop(&mut self.cx, w, id, lp.leaves, path, t);
                self.cx.schedule_turn(w, t + cost.max(1));
            }
        }
    }

    fn work_turn(&mut self, w: usize, t: u64, cycles: u64, lines: (u32, u32)) {
        let Some(Frame::Task { pos, .. }) = self.cx.w[w].stack.last_mut() else { unreachable!() };
        if !pos.started {
            pos.started = true;
            pos.total = self.cx.g.lines_of(lines).iter().map(|r| r.count as u64).sum();
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
            let run = self.cx.g.lines[p.run as usize];
            let line = run.first + p.off as u64;
            let lat = self.cx.m.access(w, line, run.write, clock) as u64;
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
        self.cx.events += k as u64;
        // This turn's share of the work cycles, scaled by the core's IPC.
        let share = |done: u64| (cycles as u128 * done as u128 / p.total.max(1) as u128) as u64;
        let part = if p.total == 0 { cycles } else { share(p.done) - share(before) };
        let work = (part as f64 * self.inv_ipc).round() as u64;
        let cost = work + mem;
        let finished = p.done >= p.total;
        if let Some(Frame::Task { pos, .. }) = self.cx.w[w].stack.last_mut() {
            *pos = p;
        }
        if finished {
            self.advance(w);
        }
        self.cx.charge(w, Bucket::Task, cost);
        self.cx.schedule_turn(w, t + cost.max(1));
    }

    fn advance(&mut self, w: usize) {
        if let Some(Frame::Task { step, pos, .. }) = self.cx.w[w].stack.last_mut() {
            *step += 1;
            *pos = WorkPos::default();
        }
    }

    fn set_block(&mut self, w: usize, b: Block) {
        if let Some(Frame::Task { block, .. }) = self.cx.w[w].stack.last_mut() {
            *block = b;
        }
    }

    fn set_path(&mut self, w: usize, p: SerialPath) {
        if let Some(Frame::Task { path, .. }) = self.cx.w[w].stack.last_mut() {
            *path = p;
        }
    }

    /// A frame was popped: go on with the one below (or look for work).
    fn after_frame(&mut self, w: usize, t: u64) {
        if self.cx.done {
            return;
        }
        self.cx.schedule_turn(w, t + 1);
    }

    fn finish_task(&mut self, w: usize, task: TaskId, t: u64) {
        self.cx.tasks_run += 1;
        if task == 0 {
            self.cx.done = true;
            self.cx.end_time = t;
            return;
        }
        let info = &self.cx.g.tasks[task as usize];
        if info.kind == TaskKind::LoopLeaf {
            if let Some(Frame::Piece { lp, .. }) = self.cx.w[w].stack.last() {
                let lp = *lp as usize;
                self.cx.loop_left[lp] -= 1;
                let last = self.cx.loop_left[lp] == 0;
                let mut end = t;
                if self.cx.g.loops[lp].reduce {
                    end = self.reduction_leaf(w, lp, last, t);
                }
                if last {
                    self.loop_ready[lp] = end;
                    let waiter = self.loop_waiter[lp];
                    self.release_waiter(w, waiter, end);
                }
            }
        }
        if let Some(l) = info.latch {
            let l = l as usize;
            self.cx.latch_left[l] -= 1;
            if self.cx.latch_left[l] == 0 {
                // The latch word: written by the last finisher, read by the waiter.
                let line = match self.latch_home[l] {
                    0 => latch_line(l),
                    home => home,
                };
                self.cx.sched_access(w, line, true, t);
                let waiter = self.latch_waiter[l];
                self.release_waiter(w, waiter, t);
            }
        }
        let (a, b) = info.succs;
        let path = if self.paths_on { self.top_path(w) } else { SerialPath::default() };
        for i in a..b {
            let s = self.cx.g.edges[i as usize];
            self.preds_left[s as usize] -= 1;
            if self.preds_left[s as usize] == 0 {
                let path = if self.paths_on { path.spawn().task } else { SerialPath::default() };
                let item = Item { work: Work::Task(s), path, from: w as u32 };
                let c = self.push(w, item, t);
                self.cx.w[w].debt += c;
            }
        }
    }

    /// A leaf of reduction loop `lp` ended on `w` at `t` (the `last` one or
    /// not): its value kept as the policy keeps it; returns when the loop's
    /// waiter may go on (`t` but for the last leaf).
    fn reduction_leaf(&mut self, w: usize, lp: usize, last: bool, t: u64) -> u64 {
        let mut end = t;
        match self.reduce_how {
            How::Tree => {
                let c = reduction::slot_write(&mut self.cx, w, t);
                self.cx.charge(w, Bucket::Task, c);
                self.cx.w[w].debt += c;
                end += c;
            }
            How::Piggyback if !last => self.mech.leaf_token(lp as u32),
            How::Piggyback | How::Free => {}
        }
        if !last {
            return t;
        }
        let waiter = self.loop_waiter[lp] as usize;
        let c = match self.reduce_how {
            How::Tree => reduction::tree(&mut self.cx, w, waiter, end),
            How::Piggyback => self.mech.piggyback_end(&mut self.cx, lp as u32, w, waiter, end),
            How::Free => 0,
        };
        self.cx.op(Op::Reduction, end + c - t);
        end + c
    }

    fn release_waiter(&mut self, from: usize, waiter: u32, t: u64) {
        if waiter == NONE || waiter as usize == from {
            return;
        }
        let lat = self.mech.latch_latency(&mut self.cx, from, waiter as usize);
        self.cx.wake(waiter as usize, t + lat);
    }

    /// Make `item` ready on `w` at `t` through the mechanism; returns the
    /// cycles `w` spends, charged to `enqueue`.
    fn push(&mut self, w: usize, item: Item, t: u64) -> u64 {
        let c = self.mech.push(&mut self.cx, w, item, t);
        self.cx.charge(w, Bucket::Enqueue, c);
        self.cx.op(Op::Enqueue, c);
        c
    }

    fn result(&mut self, wall_s: f64) -> SimResult {
        let mut buckets = [0u64; BUCKETS];
        for wk in &self.cx.w {
            for (b, v) in buckets.iter_mut().zip(wk.buckets) {
                *b += v;
            }
        }
        // Sleepers still asleep at the end count their sleep up to the end.
        for wk in &self.cx.w {
            if wk.asleep && wk.slept_at < self.cx.end_time {
                buckets[wk.sleep_bucket as usize] += self.cx.end_time - wk.slept_at;
            }
        }
        SimResult {
            preset: self.cx.cfg.preset.name,
            policy: self.cx.cfg.policy.name(),
            threads: self.cx.n,
            makespan: self.cx.end_time,
            buckets,
            ops: self.cx.ops,
            tasks_run: self.cx.tasks_run,
            tasks_stolen: self.cx.tasks_stolen,
            messages: self.cx.messages,
            message_kinds: self.mech.message_kinds(),
            work_cycles: self.cx.g.total_cycles(),
            space_tasks: self.spaces.tasks,
            space_stolen: self.spaces.stolen,
            space_steals: self.spaces.steals,
            space_starts: std::mem::take(&mut self.spaces.starts),
            premature: self.premature.as_ref().map(|p| (p.most, p.depth)),
            mem: self.cx.m.stats().clone(),
            events: self.cx.events,
            wall_s,
        }
    }
}

/// The line of latch `l` when no spawn placed it (its tasks were all made
/// ready by graph edges): a line of its own.
pub(crate) fn latch_line(l: usize) -> u64 {
    (1 << 40) + l as u64
}

/// The latch word of a join or scope waited on by the frame at `depth` of
/// `worker`'s stack: it lives in that frame, as the runtime's latch lives in
/// the `join`'s stack frame, so the same worker joining again at that depth
/// finds the line in its cache (a fresh line per latch cost about one
/// memory miss per join).
pub(crate) fn latch_frame_line(worker: usize, depth: usize) -> u64 {
    (1 << 45) + ((worker as u64) << 20) + depth as u64
}
