//! The task structure of one run, as data: what `finegrain record` writes and
//! the simulator (`finegrain-sim`) replays.
//!
//! A [`TaskGraph`] is the program's parallelism with the scheduling left out.
//! Every task is a list of [`Step`]s run in order by whichever worker runs the
//! task: a stretch of its own work with the memory lines it touches, a spawn of
//! a child that becomes ready at that point, a wait until every task counted
//! by a latch has ended, or a parallel loop the task runs itself (its range
//! kept whole, so the simulated policy decides the splitting, as the real one
//! does). The runtime's constructs map onto these four steps:
//!
//! | construct | recorded as |
//! |---|---|
//! | `join(a, b)` | `Spawn(b)`, `a`'s steps inline, `Wait(latch of b)` |
//! | `scope` | a `Spawn` per `s.spawn` (from any task of the scope), one `Wait` at the scope's end |
//! | loops (`for_each*`, `fold_chunks`, `reduce`) | `Loop(l)`: the loop's leaves are tasks of one grain each |
//! | `phase` | a `Spawn` per initial and per enqueued task, one `Wait` |
//! | `Graph` | a `Spawn` per source node, one `Wait`; other nodes become ready when their last predecessor ends |
//!
//! Nothing here runs anything: this module is pure data and builds without the
//! `runtime` feature, like [`crate::policy`], so the simulator links it.
//!
//! A task space (`TaskSpace::run`) is recorded as a scope, one `Scope` task
//! per point in linear-index order, plus a [`SpaceRecord`] in
//! [`TaskGraph::spaces`] naming those tasks with the space's extents and
//! locality hint, so that a replay can plan them with a locality manager
//! (`policy::locality`) instead of scheduling them as an ordinary scope.
//!
//! Ids are `u32` indices into the graph's flat vectors; task 0 is the root,
//! the code that was recorded. Costs are **cycles at one thread** of the
//! recording machine (its time-stamp counter, or nanoseconds times a nominal
//! clock where there is none: [`Meta::clock`] says which), so they include that
//! machine's own cache behaviour. Lines are 64-byte lines renumbered so that
//! they do not depend on where the allocator put the data (see
//! [`Meta::line_map`]).

use crate::policy::locality::signature::Signature;
use std::ops::Range;

/// Index of a task in [`TaskGraph::tasks`].
pub type TaskId = u32;
/// Index of a latch: a count of tasks that a [`Step::Wait`] waits for.
pub type LatchId = u32;
/// Index of a loop in [`TaskGraph::loops`].
pub type LoopId = u32;

/// What construct made a task (for reports and for the per-kind statistics;
/// the simulator schedules every kind the same way).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TaskKind {
    /// The recorded code itself (task 0).
    Root = 0,
    /// The second closure of a `join`.
    Join = 1,
    /// A task spawned into a `scope`.
    Scope = 2,
    /// A task of a dynamic `phase`.
    Phase = 3,
    /// A node of a dataflow `Graph`.
    Node = 4,
    /// One leaf (one grain) of a parallel loop; never spawned on its own, run by
    /// whichever piece of the loop holds it.
    LoopLeaf = 5,
    /// A synthetic task (from a generator, not a recording).
    Synthetic = 6,
}

impl TaskKind {
    pub const ALL: [TaskKind; 7] =
        [TaskKind::Root, TaskKind::Join, TaskKind::Scope, TaskKind::Phase, TaskKind::Node, TaskKind::LoopLeaf, TaskKind::Synthetic];

    pub fn from_u8(v: u8) -> Option<TaskKind> {
        TaskKind::ALL.get(v as usize).copied()
    }

    pub fn name(self) -> &'static str {
        match self {
            TaskKind::Root => "root",
            TaskKind::Join => "join",
            TaskKind::Scope => "scope",
            TaskKind::Phase => "phase",
            TaskKind::Node => "node",
            TaskKind::LoopLeaf => "loop-leaf",
            TaskKind::Synthetic => "synthetic",
        }
    }
}

/// A run of consecutive 64-byte lines touched by a task: lines
/// `first .. first + count`, all read, or all written (a write is also a read).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lines {
    pub first: u64,
    pub count: u32,
    pub write: bool,
}

/// One step of a task.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// The task's own work: `cycles` at one thread, touching the line runs
    /// `lines` (indices into [`TaskGraph::lines`]) in that order.
    Work { cycles: u64, lines: (u32, u32) },
    /// `task` becomes ready here (it goes to this worker's queue, or wherever
    /// the policy puts new tasks).
    Spawn { task: TaskId },
    /// Block until every task whose [`Task::latch`] is `latch` has ended.
    Wait { latch: LatchId },
    /// Run parallel loop `id` here and wait for all its leaves.
    Loop { id: LoopId },
}

/// One task.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Task {
    pub kind: TaskKind,
    /// Its steps: `steps.0 .. steps.1` in [`TaskGraph::steps`].
    pub steps: (u32, u32),
    /// The latch its end counts towards (none for the root and loop leaves).
    pub latch: Option<LatchId>,
    /// Graph edges: the tasks this one releases, `succs.0 .. succs.1` in
    /// [`TaskGraph::edges`]. A task with `preds > 0` is never spawned; it
    /// becomes ready on the worker that ends its last predecessor.
    pub succs: (u32, u32),
    /// How many tasks must end before this one is ready (graph nodes only).
    pub preds: u32,
}

/// A parallel loop: leaves `first_leaf .. first_leaf + leaves`, each a task of
/// kind [`TaskKind::LoopLeaf`] covering `grain` iterations of the recorded
/// range (the last one perhaps fewer).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Loop {
    pub first_leaf: TaskId,
    pub leaves: u32,
    /// Iterations per leaf in the recorded run (for reports; the simulator
    /// splits by leaves).
    pub grain: u64,
    /// Iterations of the whole loop.
    pub iterations: u64,
    /// The leaves' values are combined into one (a reduction: `reduce`,
    /// `fold_chunks`), not only awaited; how its end is simulated depends on
    /// the policy (`policy::reduce::phase_end`).
    pub reduce: bool,
}

/// How costs were measured.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Clock {
    /// The x86 time-stamp counter, read at each step boundary.
    Tsc = 0,
    /// Nanoseconds times a nominal clock (no time-stamp counter).
    NominalNs = 1,
    /// Made up by a generator, from a stated distribution.
    Synthetic = 2,
    /// Retired instructions: user-mode instruction counts (perf counters, or
    /// TSC cycles scaled by a callgrind-measured instructions-per-cycle of
    /// the workload; [`Meta::note`] says which).
    Instructions = 3,
}

impl Clock {
    pub const ALL: [Clock; 4] = [Clock::Tsc, Clock::NominalNs, Clock::Synthetic, Clock::Instructions];

    /// The clock of stored tag `v` (its `repr(u8)` value).
    pub fn from_u8(v: u8) -> Option<Clock> {
        Clock::ALL.get(v as usize).copied()
    }

    pub fn name(self) -> &'static str {
        match self {
            Clock::Tsc => "tsc",
            Clock::NominalNs => "nominal-ns",
            Clock::Synthetic => "synthetic",
            Clock::Instructions => "instructions",
        }
    }
}

/// How recorded addresses became line numbers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum LineMap {
    /// 4 KiB pages numbered in order of first touch, lines kept in place
    /// inside a page: adjacent lines stay adjacent within a page, and the
    /// numbers do not depend on the allocator.
    PagesByFirstTouch = 0,
    /// Lines chosen by a generator.
    Synthetic = 1,
}

/// What was recorded, how, and what was left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    /// The workload (or generator) name.
    pub workload: String,
    /// Its input size (or the generator's parameters).
    pub size: String,
    pub seed: u64,
    pub clock: Clock,
    /// Cycles per nanosecond of the recording clock (the TSC frequency, or the
    /// nominal clock); 0 if unknown.
    pub cycles_per_ns: f64,
    pub line_map: LineMap,
    /// At most this many line runs are kept per work step; longer footprints
    /// keep an evenly spaced sample of their runs and count the rest in
    /// `lines_dropped`.
    pub line_cap: u32,
    /// Lines declared but not kept because of `line_cap`.
    pub lines_dropped: u64,
    /// Free text: anything a reader of the trace should know (how the
    /// footprint was declared, which parts are schedule-dependent).
    pub note: String,
}

/// What [`Meta::note`] says of a recording made with a measured region
/// (`finegrain::record::region`).
pub const REGION_NOTE: &str = "measured region only: work and footprints outside finegrain::record::region (set-up, verification) are left out";

impl Meta {
    /// Was the recording limited to its measured region(s)?
    pub fn region(&self) -> bool {
        self.note.contains(REGION_NOTE)
    }

    /// `note` with [`REGION_NOTE`] added (once).
    pub fn with_region_note(note: &str) -> String {
        match note {
            n if n.contains(REGION_NOTE) => n.to_string(),
            "" => REGION_NOTE.to_string(),
            n => format!("{n}; {REGION_NOTE}"),
        }
    }

    /// The meta of a graph made up rather than recorded: synthetic clock and
    /// lines, no cap, no note.
    pub fn synthetic(workload: impl Into<String>, size: impl Into<String>, seed: u64) -> Meta {
        Meta {
            workload: workload.into(),
            size: size.into(),
            seed,
            clock: Clock::Synthetic,
            cycles_per_ns: 0.0,
            line_map: LineMap::Synthetic,
            line_cap: 0,
            lines_dropped: 0,
            note: String::new(),
        }
    }
}

/// The task structure of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskGraph {
    pub meta: Meta,
    pub tasks: Vec<Task>,
    pub steps: Vec<Step>,
    pub lines: Vec<Lines>,
    pub edges: Vec<TaskId>,
    pub loops: Vec<Loop>,
    /// Number of latches (ids are `0..latches`).
    pub latches: u32,
    /// The task spaces, in the order they ran.
    pub spaces: Vec<SpaceRecord>,
}

/// A recorded task space (Yoo thesis §4.1): extents, hint, and its tasks in
/// linear-index order (`i + nx * (j + ny * k)`, x innermost).
#[derive(Clone, Debug, PartialEq)]
pub struct SpaceRecord {
    /// `[nx, ny, nz]`, unused dimensions 1.
    pub dims: [u32; 3],
    pub hint: SpaceHint,
    /// One task per point; `tasks[i]` is the point of linear index `i`.
    pub tasks: Vec<TaskId>,
}

/// The locality hint a task space ran with (the builder methods of
/// `TaskSpace`), in the form a manager of `policy::locality` plans from.
#[derive(Clone, Debug, PartialEq)]
pub enum SpaceHint {
    /// No hint: the baseline manager (one contiguous chunk per worker).
    None,
    /// `TaskSpace::random(seed)`.
    Random(u64),
    /// `TaskSpace::flux(sharing)`: lines shared by neighbours along x, y, z.
    Flux([u64; 3]),
    /// `TaskSpace::bins(map, min, max)`: the map evaluated once per task
    /// (linear-index order), every key in `min..=max`.
    Bins { keys: Vec<u64>, min: u64, max: u64 },
    /// `TaskSpace::signatures(sigs)`: one signature per task.
    Signatures(Vec<Signature>),
    /// `TaskSpace::schedule(plan)`: an offline plan, not recorded (a replay
    /// runs the baseline unless it is given a plan for this space).
    Plan,
    /// Locality groups (`finegrain::mapreduce`'s map phase): per task, the
    /// trace line of the first byte of the data it reads ([`NO_HOME`]:
    /// unknown). A replay on a machine with NUMA memory queues each task to
    /// the locality group whose memory holds that line
    /// (`policy::locality::groups`).
    Homes(Vec<u64>),
}

/// A task of [`SpaceHint::Homes`] whose data's place is not known.
pub const NO_HOME: u64 = u64::MAX;

impl SpaceHint {
    /// The manager this hint selects (the names of `Plan::manager`).
    pub fn manager(&self) -> &'static str {
        match self {
            SpaceHint::None => "baseline",
            SpaceHint::Random(_) => "random",
            SpaceHint::Flux(_) => "flux",
            SpaceHint::Bins { .. } => "binning",
            SpaceHint::Signatures(_) => "signature",
            SpaceHint::Plan => "plan",
            SpaceHint::Homes(_) => "groups",
        }
    }
}

impl SpaceRecord {
    /// Number of tasks the extents make (saturating at `u64::MAX`).
    pub fn len(&self) -> u64 {
        self.dims.iter().fold(1u64, |a, &d| a.saturating_mul(d as u64))
    }

    /// Never true for a valid record (every extent is at least 1).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The record's own rules: extents at least 1, one task per point, hints
    /// with one entry per task and keys in their range.
    pub fn check(&self) -> Result<(), String> {
        if let Some(d) = self.dims.iter().position(|&d| d == 0) {
            return Err(format!("dimension {d} is zero"));
        }
        let n = self.len();
        if n != self.tasks.len() as u64 {
            return Err(format!("extents {:?} make {n} tasks, but it lists {}", self.dims, self.tasks.len()));
        }
        match &self.hint {
            SpaceHint::Bins { keys, min, max } => {
                if keys.len() != self.tasks.len() {
                    return Err(format!("{} bin keys for {} tasks", keys.len(), self.tasks.len()));
                }
                if min > max {
                    return Err(format!("bin key range {min}..={max} is empty"));
                }
                if let Some(i) = keys.iter().position(|k| k < min || k > max) {
                    return Err(format!("bin key {} of task {i} is outside {min}..={max}", keys[i]));
                }
            }
            SpaceHint::Signatures(s) if s.len() != self.tasks.len() => return Err(format!("{} signatures for {} tasks", s.len(), self.tasks.len())),
            SpaceHint::Homes(h) if h.len() != self.tasks.len() => return Err(format!("{} homes for {} tasks", h.len(), self.tasks.len())),
            _ => {}
        }
        Ok(())
    }
}

/// Why a task graph is not well formed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GraphError(pub String);

impl std::fmt::Display for GraphError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "malformed task graph: {}", self.0)
    }
}

impl std::error::Error for GraphError {}

fn range_ok(r: (u32, u32), len: usize) -> bool {
    r.0 <= r.1 && (r.1 as usize) <= len
}

impl TaskGraph {
    /// An empty graph: a root task with no steps.
    pub fn new(meta: Meta) -> TaskGraph {
        TaskGraph {
            meta,
            tasks: vec![Task { kind: TaskKind::Root, steps: (0, 0), latch: None, succs: (0, 0), preds: 0 }],
            steps: Vec::new(),
            lines: Vec::new(),
            edges: Vec::new(),
            loops: Vec::new(),
            latches: 0,
            spaces: Vec::new(),
        }
    }

    /// The steps of task `t`.
    pub fn steps_of(&self, t: TaskId) -> &[Step] {
        let (a, b) = self.tasks[t as usize].steps;
        &self.steps[a as usize..b as usize]
    }

    /// The line runs of a work step.
    pub fn lines_of(&self, r: (u32, u32)) -> &[Lines] {
        &self.lines[r.0 as usize..r.1 as usize]
    }

    /// The tasks `t` releases.
    pub fn succs_of(&self, t: TaskId) -> &[TaskId] {
        let (a, b) = self.tasks[t as usize].succs;
        &self.edges[a as usize..b as usize]
    }

    /// The leaf task ids of loop `l`.
    pub fn leaves_of(&self, l: LoopId) -> Range<TaskId> {
        let lp = self.loops[l as usize];
        lp.first_leaf..lp.first_leaf + lp.leaves
    }

    /// How many tasks count towards each latch.
    pub fn latch_counts(&self) -> Vec<u32> {
        let mut c = vec![0u32; self.latches as usize];
        for t in &self.tasks {
            if let Some(l) = t.latch {
                c[l as usize] += 1;
            }
        }
        c
    }

    /// Total work cycles over all tasks.
    pub fn total_cycles(&self) -> u64 {
        self.steps.iter().map(|s| if let Step::Work { cycles, .. } = s { *cycles } else { 0 }).sum()
    }

    /// Check every index and the structural rules the simulator relies on:
    /// ranges in bounds, every non-root task made ready exactly once (spawned
    /// once, released by graph edges, or a loop leaf), `preds` equal to the
    /// number of edges into a task, latches in range, and loops whose leaves
    /// are leaf tasks. A graph that passes cannot make the simulator index
    /// out of bounds; cycles among graph edges show up as a deadlock the
    /// simulator reports. Task spaces must pass [`SpaceRecord::check`] and
    /// list tasks that exist, are spawned (not the root, a loop leaf or a
    /// graph node), and belong to one space once.
    pub fn validate(&self) -> Result<(), GraphError> {
        let n = self.tasks.len();
        let err = |s: String| Err(GraphError(s));
        if n == 0 {
            return err("no tasks (task 0 must be the root)".into());
        }
        if n > u32::MAX as usize {
            return err("too many tasks".into());
        }
        if self.tasks[0].kind != TaskKind::Root && self.tasks[0].kind != TaskKind::Synthetic {
            return err("task 0 is not a root".into());
        }
        let mut made_ready = vec![0u32; n];
        let mut preds = vec![0u32; n];
        for (i, t) in self.tasks.iter().enumerate() {
            if !range_ok(t.steps, self.steps.len()) {
                return err(format!("task {i}: steps {:?} out of bounds ({} steps)", t.steps, self.steps.len()));
            }
            if !range_ok(t.succs, self.edges.len()) {
                return err(format!("task {i}: edges {:?} out of bounds ({} edges)", t.succs, self.edges.len()));
            }
            if let Some(l) = t.latch {
                if l >= self.latches {
                    return err(format!("task {i}: latch {l} out of range ({} latches)", self.latches));
                }
            }
            for &s in self.succs_of(i as u32) {
                if s as usize >= n || s == 0 {
                    return err(format!("task {i}: edge to task {s}, which is the root or out of range"));
                }
                preds[s as usize] += 1;
            }
            for st in self.steps_of(i as u32) {
                match *st {
                    Step::Work { lines, .. } => {
                        if !range_ok(lines, self.lines.len()) {
                            return err(format!("task {i}: lines {lines:?} out of bounds ({} runs)", self.lines.len()));
                        }
                    }
                    Step::Spawn { task } => {
                        if task as usize >= n || task == 0 {
                            return err(format!("task {i}: spawns task {task}, the root or out of range"));
                        }
                        made_ready[task as usize] += 1;
                    }
                    Step::Wait { latch } => {
                        if latch >= self.latches {
                            return err(format!("task {i}: waits on latch {latch} out of range"));
                        }
                    }
                    Step::Loop { id } => {
                        if id as usize >= self.loops.len() {
                            return err(format!("task {i}: runs loop {id} out of range ({} loops)", self.loops.len()));
                        }
                    }
                }
            }
        }
        for (l, lp) in self.loops.iter().enumerate() {
            let end = lp.first_leaf as u64 + lp.leaves as u64;
            if lp.leaves == 0 || end > n as u64 || lp.first_leaf == 0 {
                return err(format!("loop {l}: leaves {}..{end} out of range", lp.first_leaf));
            }
            for t in lp.first_leaf..end as u32 {
                if self.tasks[t as usize].kind != TaskKind::LoopLeaf {
                    return err(format!("loop {l}: task {t} is not a loop leaf"));
                }
                made_ready[t as usize] += 1;
            }
        }
        for (i, t) in self.tasks.iter().enumerate().skip(1) {
            if t.preds != preds[i] {
                return err(format!("task {i}: preds {} but {} edges lead to it", t.preds, preds[i]));
            }
            let ways = made_ready[i] + u32::from(preds[i] > 0);
            if ways != 1 {
                return err(format!("task {i}: made ready {ways} times (must be once: spawned, released by edges, or a loop leaf)"));
            }
            if t.kind == TaskKind::LoopLeaf && t.latch.is_some() {
                return err(format!("task {i}: a loop leaf with a latch"));
            }
        }
        let mut in_space = vec![false; n];
        for (k, sp) in self.spaces.iter().enumerate() {
            sp.check().or_else(|e| err(format!("task space {k}: {e}")))?;
            for &t in &sp.tasks {
                let Some(task) = self.tasks.get(t as usize) else {
                    return err(format!("task space {k}: task {t} out of range ({n} tasks)"));
                };
                if t == 0 || task.kind == TaskKind::LoopLeaf || task.preds > 0 {
                    return err(format!("task space {k}: task {t} is the root, a loop leaf or a graph node, not a spawned task"));
                }
                if std::mem::replace(&mut in_space[t as usize], true) {
                    return err(format!("task space {k}: task {t} is in a task space twice"));
                }
            }
        }
        Ok(())
    }

    /// The task space each task belongs to, if any (`None` for most).
    pub fn space_of_tasks(&self) -> Vec<Option<u32>> {
        let mut v = vec![None; self.tasks.len()];
        for (k, sp) in self.spaces.iter().enumerate() {
            for &t in &sp.tasks {
                v[t as usize] = Some(k as u32);
            }
        }
        v
    }
}

/// Builds a [`TaskGraph`] task by task: the recorder and the synthetic
/// generators share it so that both produce graphs that validate.
#[derive(Debug)]
pub struct Builder {
    g: TaskGraph,
    /// Steps of tasks still being written, by task.
    open: Vec<Option<Vec<Step>>>,
    succs: Vec<Vec<TaskId>>,
}

impl Builder {
    pub fn new(meta: Meta) -> Builder {
        let g = TaskGraph::new(meta);
        Builder { g, open: vec![Some(Vec::new())], succs: vec![Vec::new()] }
    }

    /// A new task (its steps are written with [`Builder::push`] until
    /// [`Builder::finish`] builds the graph).
    pub fn task(&mut self, kind: TaskKind, latch: Option<LatchId>) -> TaskId {
        let id = self.g.tasks.len() as TaskId;
        self.g.tasks.push(Task { kind, steps: (0, 0), latch, succs: (0, 0), preds: 0 });
        self.open.push(Some(Vec::new()));
        self.succs.push(Vec::new());
        id
    }

    /// A new latch.
    pub fn latch(&mut self) -> LatchId {
        self.g.latches += 1;
        self.g.latches - 1
    }

    /// Append a step to task `t`.
    pub fn push(&mut self, t: TaskId, s: Step) {
        self.open[t as usize].as_mut().expect("task already closed").push(s);
    }

    /// Append work to task `t`, merging with a preceding work step when
    /// neither touches memory.
    pub fn work(&mut self, t: TaskId, cycles: u64, lines: &[Lines]) {
        let start = self.g.lines.len() as u32;
        self.g.lines.extend_from_slice(lines);
        let end = self.g.lines.len() as u32;
        let steps = self.open[t as usize].as_mut().expect("task already closed");
        if let Some(Step::Work { cycles: c, lines: l }) = steps.last_mut() {
            if l.1 == start {
                *c += cycles;
                l.1 = end;
                return;
            }
        }
        steps.push(Step::Work { cycles, lines: (start, end) });
    }

    /// A graph edge: `to` becomes ready when `from` (and its other
    /// predecessors) have ended.
    pub fn edge(&mut self, from: TaskId, to: TaskId) {
        self.succs[from as usize].push(to);
        self.g.tasks[to as usize].preds += 1;
    }

    /// A loop over `leaves` new leaf tasks (returned as a range), run by the
    /// task that pushes `Step::Loop { id }`.
    pub fn new_loop(&mut self, leaves: u32, grain: u64, iterations: u64) -> (LoopId, Range<TaskId>) {
        let first = self.g.tasks.len() as TaskId;
        for _ in 0..leaves {
            self.task(TaskKind::LoopLeaf, None);
        }
        let id = self.g.loops.len() as LoopId;
        self.g.loops.push(Loop { first_leaf: first, leaves, grain, iterations, reduce: false });
        (id, first..first + leaves)
    }

    /// Mark loop `id` a reduction (its leaves' values are combined into one).
    pub fn set_reduce(&mut self, id: LoopId) {
        self.g.loops[id as usize].reduce = true;
    }

    /// Record a task space over tasks made with [`Builder::task`] (checked
    /// by [`Builder::finish`]).
    pub fn space(&mut self, rec: SpaceRecord) {
        self.g.spaces.push(rec);
    }

    /// The distinct lines task `t`'s work steps written so far touch,
    /// ascending.
    pub fn task_lines(&self, t: TaskId) -> Vec<u64> {
        let mut v: Vec<u64> = Vec::new();
        for s in self.open[t as usize].iter().flatten() {
            if let Step::Work { lines, .. } = *s {
                for r in &self.g.lines[lines.0 as usize..lines.1 as usize] {
                    v.extend(r.first..r.first + r.count as u64);
                }
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Drop every work step written so far, and every line run: what a
    /// recording does when it enters its first measured region. Spawns,
    /// waits, loops and edges stay.
    pub fn drop_work(&mut self) {
        for steps in self.open.iter_mut().flatten() {
            steps.retain(|s| !matches!(s, Step::Work { .. }));
        }
        self.g.lines.clear();
    }

    pub fn meta_mut(&mut self) -> &mut Meta {
        &mut self.g.meta
    }

    /// Lay the steps and edges out flat (tasks in id order) and validate.
    pub fn finish(mut self) -> Result<TaskGraph, GraphError> {
        let mut steps = Vec::with_capacity(self.open.iter().map(|s| s.as_ref().map_or(0, Vec::len)).sum());
        for (i, s) in self.open.iter_mut().enumerate() {
            let s = s.take().unwrap_or_default();
            let a = steps.len() as u32;
            steps.extend(s);
            self.g.tasks[i].steps = (a, steps.len() as u32);
        }
        let mut edges = Vec::new();
        for (i, s) in self.succs.iter().enumerate() {
            let a = edges.len() as u32;
            edges.extend_from_slice(s);
            self.g.tasks[i].succs = (a, edges.len() as u32);
        }
        self.g.steps = steps;
        self.g.edges = edges;
        self.g.validate()?;
        Ok(self.g)
    }
}

mod repeat;

#[cfg(test)]
mod tests;
