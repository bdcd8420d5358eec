//! The recorder: the task being recorded, its open work stretch, and the
//! hooks the runtime's constructs call while recording.

use super::clock;
use super::REC;
use crate::taskgraph::{Builder, GraphError, LatchId, LineMap, Lines, Meta, SpaceRecord, Step, TaskGraph, TaskId, TaskKind};
use std::collections::HashMap;
use std::ops::Range;
use std::time::Instant;

/// Line runs kept per work stretch.
pub const LINE_CAP: u32 = 4096;
/// Leaves kept per loop.
pub const MAX_LEAVES: usize = 65_536;
/// The pool size loops without a grain take theirs from while recording:
/// `len / (LOOP_THREADS * 64)`, clamped to `1..=1024` (the runtime's rule,
/// for a 256-thread pool).
pub const LOOP_THREADS: usize = 256;

const PAGE: usize = 4096;
const LINE: usize = 64;

pub(crate) struct Recorder {
    b: Builder,
    /// The task whose steps are being written.
    cur: TaskId,
    /// Clock reading at the start of the open work stretch.
    mark: u64,
    /// Line runs of the open work stretch.
    lines: Vec<Lines>,
    /// Inside a [`super::declare`] block: its declarations' time is left out
    /// once, at the block's end.
    pub(crate) declaring: bool,
    /// Past the cap, one run in `stride` is kept; `skip` more are dropped
    /// before the next one kept.
    stride: u64,
    skip: u64,
    pages: HashMap<usize, u64>,
    dropped: u64,
    started: (u64, Instant),
    /// Regions (`super::region`) open around the running code.
    pub(crate) region_depth: u32,
    /// A region has been entered: from then on only work inside regions is
    /// kept.
    pub(crate) region_seen: bool,
}

impl Recorder {
    pub(crate) fn new(mut meta: Meta) -> Recorder {
        meta.clock = clock::KIND;
        meta.line_map = LineMap::PagesByFirstTouch;
        meta.line_cap = LINE_CAP;
        Recorder {
            b: Builder::new(meta),
            cur: 0,
            mark: clock::now(),
            lines: Vec::new(),
            declaring: false,
            stride: 1,
            skip: 0,
            pages: HashMap::new(),
            dropped: 0,
            started: (clock::now(), Instant::now()),
            region_depth: 0,
            region_seen: false,
        }
    }

    /// End the open work stretch at `now` (read by the hook before it
    /// reached the recorder, so the hook's own cost is not the task's).
    fn close(&mut self, now: u64) {
        let cycles = now.saturating_sub(self.mark);
        if self.outside_region() {
            // Set-up or verification around the measured region: not charged.
        } else if cycles > 0 || !self.lines.is_empty() {
            self.b.work(self.cur, cycles, &self.lines);
        }
        self.lines.clear();
        self.stride = 1;
        self.skip = 0;
    }

    /// Open a new work stretch now (after the recorder's own work).
    fn resume(&mut self) {
        self.mark = clock::now();
    }

    /// Leave the time since `t0` (the recorder's bookkeeping) out of the
    /// open stretch.
    pub(crate) fn exclude_since(&mut self, t0: u64) {
        if self.declaring {
            // Inside `declare`, which leaves out its whole time at its end.
            return;
        }
        self.mark += clock::now().saturating_sub(t0);
    }

    /// A region has been seen and none is open: work and footprints here are
    /// dropped.
    #[inline]
    fn outside_region(&self) -> bool {
        self.region_seen && self.region_depth == 0
    }

    /// Enter a region at `now`. The first region drops everything charged so
    /// far (the work and lines of every task, the page numbering), so that the
    /// trace's work and lines are the region's alone; the clock restarts.
    pub(crate) fn enter_region(&mut self, now: u64) {
        if self.region_depth == 0 {
            self.close(now);
            if !self.region_seen {
                self.region_seen = true;
                self.b.drop_work();
                self.pages.clear();
                self.dropped = 0;
            }
        }
        self.region_depth += 1;
        self.resume();
    }

    /// Leave a region at `now` (read before the recorder's own work).
    pub(crate) fn exit_region(&mut self, now: u64) {
        if self.region_depth == 1 {
            self.close(now);
        }
        self.region_depth = self.region_depth.saturating_sub(1);
        self.resume();
    }

    /// The trace line of `addr`, numbering its page as a touch would (the
    /// next page number if it is new), so that a later touch of it agrees.
    pub(crate) fn line_of(&mut self, addr: usize) -> u64 {
        let line = addr / LINE;
        let page = line * LINE / PAGE;
        let n = self.pages.len() as u64;
        let id = *self.pages.entry(page).or_insert(n);
        id * (PAGE / LINE) as u64 + ((line * LINE % PAGE) / LINE) as u64
    }

    pub(crate) fn touch(&mut self, addr: usize, bytes: usize, write: bool) {
        if bytes == 0 || self.outside_region() {
            return;
        }
        let (first, last) = (addr / LINE, (addr + bytes - 1) / LINE);
        let mut line = first;
        while line <= last {
            let page = line * LINE / PAGE;
            let in_page = (line * LINE % PAGE) / LINE;
            let page_end_line = (page + 1) * PAGE / LINE;
            let count = (last + 1).min(page_end_line) - line;
            let n = self.pages.len() as u64;
            let id = *self.pages.entry(page).or_insert(n);
            let run = Lines { first: id * (PAGE / LINE) as u64 + in_page as u64, count: count as u32, write };
            match self.lines.last_mut() {
                Some(l) if l.write == write && l.first + l.count as u64 == run.first && self.skip == 0 => l.count += run.count,
                _ => self.keep_sampled(run),
            }
            line += count;
        }
    }

    /// Keep a new run, or, past [`LINE_CAP`] runs in this stretch, an evenly
    /// spaced sample: every `stride`-th run, the stride doubling (and every
    /// other kept run dropped) each time the cap fills again.
    fn keep_sampled(&mut self, run: Lines) {
        if self.skip > 0 {
            self.skip -= 1;
            self.dropped += run.count as u64;
            return;
        }
        if self.lines.len() as u32 >= LINE_CAP {
            let mut i = 0;
            self.lines.retain(|l| {
                i += 1;
                let keep = i % 2 == 1;
                if !keep {
                    self.dropped += l.count as u64;
                }
                keep
            });
            self.stride *= 2;
        }
        self.lines.push(run);
        self.skip = self.stride - 1;
    }

    pub(crate) fn finish(mut self) -> Result<TaskGraph, GraphError> {
        self.close(clock::now());
        let (c0, t0) = self.started;
        let ns = t0.elapsed().as_nanos() as f64;
        let m = self.b.meta_mut();
        m.cycles_per_ns = if ns > 0.0 { clock::now().saturating_sub(c0) as f64 / ns } else { 0.0 };
        m.lines_dropped = self.dropped;
        if self.region_seen {
            m.note = crate::taskgraph::Meta::with_region_note(&m.note);
        }
        self.b.finish()
    }
}

/// Run `f` on the recorder (which must exist: the hooks run only while recording).
pub(crate) fn with<T>(f: impl FnOnce(&mut Recorder) -> T) -> T {
    REC.with(|r| f(r.borrow_mut().as_mut().expect("finegrain::record: the recorder is active")))
}

/// A new latch.
pub(crate) fn new_latch() -> LatchId {
    let now = clock::now();
    with(|r| {
        r.close(now);
        let l = r.b.latch();
        r.resume();
        l
    })
}

/// A new task of `kind` counted by `latch`, spawned here by the running task.
pub(crate) fn spawn_task(kind: TaskKind, latch: LatchId) -> TaskId {
    spawn_task_then(kind, latch, |_| ())
}

/// [`spawn_task`], with `then` (the caller's own bookkeeping of the new
/// task, e.g. a recorded phase's worklist) run before the spawning task's
/// clock resumes: a worklist that grows by copying is the recorder's cost,
/// not the task's. `then` must not call the recorder.
pub(crate) fn spawn_task_then(kind: TaskKind, latch: LatchId, then: impl FnOnce(TaskId)) -> TaskId {
    let now = clock::now();
    with(|r| {
        r.close(now);
        let t = r.b.task(kind, Some(latch));
        r.b.push(r.cur, Step::Spawn { task: t });
        then(t);
        r.resume();
        t
    })
}

/// A new task made ready by graph edges (not spawned).
pub(crate) fn node_task(latch: LatchId) -> TaskId {
    with(|r| r.b.task(TaskKind::Node, Some(latch)))
}

/// The trace line of `addr` (`Recorder::line_of`).
pub(crate) fn line_of(addr: usize) -> u64 {
    with(|r| r.line_of(addr))
}

/// A task space over tasks already recorded.
pub(crate) fn space(rec: SpaceRecord) {
    with(|r| r.b.space(rec))
}

/// The distinct lines task `t` has touched so far, ascending.
pub(crate) fn task_lines(t: TaskId) -> Vec<u64> {
    with(|r| r.b.task_lines(t))
}

/// A graph edge.
pub(crate) fn edge(from: TaskId, to: TaskId) {
    with(|r| r.b.edge(from, to))
}

/// Run `f`, the recorder's own bookkeeping (building a recorded graph's
/// tasks and edges), with its time left out of the running task's stretch.
/// `f` may add tasks and edges but must not close a stretch (no spawn, wait
/// or switch).
pub(crate) fn untimed<R>(f: impl FnOnce() -> R) -> R {
    let t0 = clock::now();
    let v = f();
    with(|r| r.exclude_since(t0));
    v
}

/// Spawn `t` here (a graph source).
pub(crate) fn spawn_existing(t: TaskId) {
    let now = clock::now();
    with(|r| {
        r.close(now);
        r.b.push(r.cur, Step::Spawn { task: t });
        r.resume();
    })
}

/// Run `f` as task `t`, then go back to the running task.
pub(crate) fn run_as<R>(t: TaskId, f: impl FnOnce() -> R) -> R {
    let now = clock::now();
    let parent = with(|r| {
        r.close(now);
        let p = r.cur;
        r.cur = t;
        r.resume();
        p
    });
    let v = f();
    let now = clock::now();
    with(|r| {
        r.close(now);
        r.cur = parent;
        r.resume();
    });
    v
}

/// The running task waits for `latch`.
pub(crate) fn wait(latch: LatchId) {
    let now = clock::now();
    with(|r| {
        r.close(now);
        r.b.push(r.cur, Step::Wait { latch });
        r.resume();
    })
}

/// `join(a, b)`, recorded: `b` is a task spawned before `a` runs inline.
pub(crate) fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB,
{
    let latch = new_latch();
    let child = spawn_task(TaskKind::Join, latch);
    let ra = a();
    let rb = run_as(child, b);
    wait(latch);
    (ra, rb)
}

/// A loop over `range` in leaves of `grain` iterations (coarser if it would
/// have more than [`MAX_LEAVES`]), each leaf a task; partial results are
/// combined in order, as the runtime combines its tasks'.
pub(crate) fn fold<T, ID, F, C>(range: Range<usize>, grain: usize, identity: &ID, fold: &F, combine: &C) -> T
where
    ID: Fn() -> T,
    F: Fn(T, Range<usize>) -> T,
    C: Fn(T, T) -> T,
{
    let len = range.len();
    if len == 0 {
        return identity();
    }
    let mut g = grain.max(1);
    if len.div_ceil(g) > MAX_LEAVES {
        g = len.div_ceil(MAX_LEAVES);
    }
    let leaves = len.div_ceil(g);
    let now = clock::now();
    let first = with(|r| {
        r.close(now);
        let (id, ts) = r.b.new_loop(leaves as u32, g as u64, len as u64);
        if std::mem::size_of::<T>() > 0 {
            // A value per leaf, combined: a reduction (a loop for its
            // effects folds `()`).
            r.b.set_reduce(id);
        }
        r.b.push(r.cur, Step::Loop { id });
        r.resume();
        ts.start
    });
    // Leaf to leaf without going back to the caller in between: the loop's
    // own per-chunk cost belongs to the leaves, as in the runtime, where the
    // worker running a piece pays it.
    let caller = switch_to(first);
    let mut acc = identity();
    for k in 0..leaves {
        if k > 0 {
            switch_to(first + k as TaskId);
        }
        let lo = range.start + k * g;
        let hi = (lo + g).min(range.end);
        let part = fold(identity(), lo..hi);
        acc = combine(acc, part);
    }
    switch_to(caller);
    acc
}

/// Make `t` the running task (ending the current one's stretch); returns the
/// task that ran before.
pub(crate) fn switch_to(t: TaskId) -> TaskId {
    let now = clock::now();
    with(|r| {
        r.close(now);
        let p = r.cur;
        r.cur = t;
        r.resume();
        p
    })
}
