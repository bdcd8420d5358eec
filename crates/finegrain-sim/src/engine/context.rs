//! What every mechanism sees of a simulation: the graph, the machine, the
//! clock and event queue, the workers' stacks and time buckets, and the
//! counts. The event loop (`run.rs`) owns one [`Ctx`] and lends it to the
//! mechanism at each call of the [`SimMechanism`](super::mechanism::SimMechanism)
//! trait; a mechanism keeps its own state (queues, managers, the task unit)
//! and acts on the chip only through this context: `charge` and `op` to
//! account cycles, `sched_access` for a line of its own structures,
//! `schedule_msg` and `wake` to make something happen later.
//!
//! This file names no mechanism, and nothing here calls back into one: the
//! context is the bottom layer the mechanisms and the loop stand on (as a
//! zsim cache never sees the driver that calls it).

use super::config::SimConfig;
use super::costs;
use super::item::{Block, Frame};
use super::result::{Bucket, Op, OpCost, BUCKETS, OPS};
use crate::machine::Machine;
use finegrain::policy::pdf::SerialPath;
use finegrain::policy::{Idle, IdleAction, Policy};
use finegrain::rng::XorShift;
use finegrain::taskgraph::{Step, TaskGraph};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// No worker (a latch nobody waits on, no turn being run).
pub(crate) const NONE: u32 = u32::MAX;

/// Line numbers at and above this are the scheduler's own structures (queue
/// words, task slots, locks, latches); trace lines are far below.
pub(crate) const SCHED_LINES: u64 = 1 << 60;

/// One hardware thread: its stack of frames, whether it has a turn queued
/// or sleeps, and where its cycles went.
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
pub(crate) enum Ev {
    Turn(u32),
    Msg(u32),
}

/// Bits of an event key for the event itself (a worker or a message slot,
/// and which of the two), below 40 bits of sequence number.
const EV_BITS: u32 = 24;
const EV_MSG: u64 = 1 << (EV_BITS - 1);

/// `(time, sequence, event)` as one integer that orders as the tuple: the
/// time in the high 64 bits, the sequence number (unique, so the event
/// never decides) in the next 40, the event in the low 24.
#[inline]
fn event_key(at: u64, seq: u64, ev: Ev) -> u128 {
    let code = match ev {
        Ev::Turn(w) => w as u64,
        Ev::Msg(slot) => EV_MSG | slot as u64,
    };
    assert!(code & !EV_MSG < EV_MSG && seq < 1 << (64 - EV_BITS), "event key overflow");
    (at as u128) << 64 | ((seq << EV_BITS) | code) as u128
}

#[inline]
fn event_of(k: u128) -> Ev {
    let code = k as u64 & ((1 << EV_BITS) - 1);
    if code & EV_MSG != 0 {
        Ev::Msg((code & !EV_MSG) as u32)
    } else {
        Ev::Turn(code as u32)
    }
}

/// The shared state of one simulation (see the module note).
pub(crate) struct Ctx<'g> {
    pub g: &'g TaskGraph,
    pub m: Machine,
    pub n: usize,
    /// The runtime policy simulated (`None` for the static baseline and `ideal`).
    pub policy: Option<Policy>,
    pub cfg: SimConfig,
    pub w: Vec<Worker>,
    /// Per worker, the step its top frame is at when its last turn ended
    /// and, for a work step, its next line run (`u32::MAX`: none); hints
    /// to prefetch before its next turn only.
    pub next_step: Vec<[u32; 2]>,
    /// Workers asleep now.
    pub sleeping: usize,
    /// Per latch, its tasks not yet ended; per loop, its leaves not yet ended.
    pub latch_left: Vec<u32>,
    pub loop_left: Vec<u32>,
    /// Events keyed by `(time, sequence)`, packed into one `u128`
    /// (`event_key`), earliest first.
    heap: BinaryHeap<Reverse<u128>>,
    seq: u64,
    pub now: u64,
    /// The worker whose turn is being run (`NONE` between turns).
    pub turning: u32,
    /// The root task has ended (at `end_time`).
    pub done: bool,
    pub end_time: u64,
    pub ops: [OpCost; OPS],
    pub tasks_run: u64,
    pub tasks_stolen: u64,
    pub messages: u64,
    pub events: u64,
}

impl std::fmt::Debug for Ctx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx").field("n", &self.n).field("now", &self.now).finish_non_exhaustive()
    }
}

impl<'g> Ctx<'g> {
    pub(crate) fn new(g: &'g TaskGraph, cfg: &SimConfig, m: Machine, policy: Option<Policy>) -> Ctx<'g> {
        let n = cfg.threads;
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
        Ctx {
            g,
            m,
            n,
            policy,
            cfg: cfg.clone(),
            w,
            next_step: vec![[u32::MAX; 2]; n],
            sleeping: 0,
            latch_left: g.latch_counts(),
            loop_left: g.loops.iter().map(|l| l.leaves).collect(),
            heap: BinaryHeap::new(),
            seq: 0,
            now: 0,
            turning: NONE,
            done: false,
            end_time: 0,
            ops: [OpCost::default(); OPS],
            tasks_run: 0,
            tasks_stolen: 0,
            messages: 0,
            events: 0,
        }
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
        self.heap.push(Reverse(event_key(at, self.seq, ev)));
    }

    /// Asks the host to bring into its cache what the next event's turn
    /// reads first (a hint: it changes nothing but timing).
    #[inline]
    pub(crate) fn prefetch_next(&self) {
        if let Some(&Reverse(k)) = self.heap.peek() {
            if let Ev::Turn(w) = event_of(k) {
                let w = w as usize;
                crate::machine::prefetch(&self.w[w]);
                let [step, run] = self.next_step[w];
                if let Some(s) = self.g.steps.get(step as usize) {
                    crate::machine::prefetch(s);
                }
                if let Some(r) = self.g.lines.get(run as usize) {
                    crate::machine::prefetch(r);
                }
            }
        }
    }

    /// The next event, earliest first (ties in the order they were queued).
    pub(crate) fn next_event(&mut self) -> Option<(u64, Ev)> {
        self.heap.pop().map(|Reverse(k)| ((k >> 64) as u64, event_of(k)))
    }

    // ---- workers ----

    /// Wake a sleeping worker at `at` (no-op if it is active).
    pub(crate) fn wake(&mut self, w: usize, at: u64) {
        if !self.w[w].asleep || self.done || self.turning == w as u32 {
            return;
        }
        let wk = &mut self.w[w];
        let slept = at.saturating_sub(wk.slept_at);
        wk.buckets[wk.sleep_bucket as usize] += slept;
        wk.asleep = false;
        self.sleeping -= 1;
        self.schedule_turn(w, at.max(self.w[w].slept_at));
    }

    /// Put `w` to sleep from `at`, its sleep counted in `bucket`.
    pub(crate) fn sleep(&mut self, w: usize, at: u64, bucket: Bucket) {
        let wk = &mut self.w[w];
        debug_assert!(!wk.asleep, "worker {w} sleeps already");
        wk.asleep = true;
        self.sleeping += 1;
        wk.slept_at = at;
        wk.sleep_bucket = bucket;
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

    /// The idle step after a round that found nothing: the policy's backoff
    /// (`Idle::next`), as cycles to wait, or `None` to park.
    pub(crate) fn backoff(&mut self, w: usize, nothing_left: bool) -> Option<u64> {
        let idle = self.policy.as_ref().map(|p| p.idle).unwrap_or(Idle::with_spin(0));
        self.w[w].failed_rounds = self.w[w].failed_rounds.saturating_add(1);
        match idle.next(self.w[w].failed_rounds - 1, nothing_left) {
            IdleAction::Spin { pauses } => Some(pauses as u64 * costs::PAUSE),
            IdleAction::Yield => Some(costs::YIELD),
            IdleAction::Park => None,
        }
    }

    /// Whether `w`'s next turn will look for work: its stack is empty, or its
    /// top frame waits (or is about to wait) for a latch or loop not yet done.
    pub(crate) fn goes_idle(&self, w: usize) -> bool {
        match self.w[w].stack.last() {
            None => true,
            Some(Frame::Piece { .. }) => false,
            Some(&Frame::Task { step, end, block, .. }) => match block {
                Block::Latch(l) => self.latch_left[l as usize] > 0,
                Block::Loop(lp) => self.loop_left[lp as usize] > 0,
                Block::None => step < end && matches!(self.g.steps[step as usize], Step::Wait { latch } if self.latch_left[latch as usize] > 0),
            },
        }
    }

    /// The loop piece nearest the top of `w`'s stack.
    pub(crate) fn top_piece(&self, w: usize) -> Option<usize> {
        self.w[w].stack.iter().rposition(|f| matches!(f, Frame::Piece { .. }))
    }

    /// The loop piece nearest the top of `w`'s stack, if it has two leaves
    /// or more left (the leaf running above it is already taken).
    pub(crate) fn splittable_piece(&self, w: usize) -> Option<usize> {
        let i = self.w[w].stack.iter().rposition(|f| matches!(f, Frame::Piece { .. }))?;
        matches!(self.w[w].stack[i], Frame::Piece { next, hi, .. } if hi - next >= 2).then_some(i)
    }
}

/// Software-parked workers, first parked first woken: what `ws` and the
/// task-unit policies keep so that new work can wake one of them.
#[derive(Debug, Default)]
pub(crate) struct Parked(VecDeque<u32>);

impl Parked {
    pub(crate) fn park(&mut self, w: usize) {
        self.0.push_back(w as u32);
    }

    /// The first parked worker still asleep (workers woken meanwhile by
    /// something else are dropped), taken off the list.
    pub(crate) fn pop_asleep(&mut self, cx: &Ctx<'_>) -> Option<usize> {
        while let Some(p) = self.0.pop_front() {
            if cx.w[p as usize].asleep {
                return Some(p as usize);
            }
        }
        None
    }

    /// Wake the first still-sleeping parked worker `latency` cycles after `at`.
    pub(crate) fn wake_one(&mut self, cx: &mut Ctx<'_>, at: u64, latency: u64) {
        if let Some(p) = self.pop_asleep(cx) {
            cx.wake(p, at + latency);
        }
    }
}
