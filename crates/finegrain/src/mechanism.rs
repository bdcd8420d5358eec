//! The seam between the one worker loop (`worker.rs`) and the four
//! mechanisms that hold tasks: work-stealing deques (`ws/`), private queues
//! with mailboxes (`adm/`), the central task unit (`unit/`), and the static
//! baseline's queues that nobody steals from (`fixed/`).
//!
//! A mechanism is one folder with a per-pool part (its `Shared`, held by the
//! registry) and a per-worker part that implements [`Mechanism`]. It makes no
//! decisions of its own: it asks `policy/` (victims, amounts, orders, split
//! rules, manager actions) and carries the answers out. It sees the rest of
//! the runtime only through [`Handles`], so it never imports `worker.rs` or
//! `registry.rs`, and the worker loop reaches it by static dispatch: the loop
//! is generic over the mechanism and monomorphised once per mechanism, and a
//! push or pop from user code matches the worker's mechanism once.

use crate::job::JobRef;
use crate::policy::search::Source;
use crate::policy::Policy;
use crate::sleep::Sleep;
use crate::stats::{HotCounters, WorkerCounters};

/// What a mechanism may touch of the worker that runs it: its index, the
/// pool's size, policy and sleep state, and its counters.
///
/// Raw pointers into the registry, which outlives every worker.
pub(crate) struct Handles {
    pub(crate) index: usize,
    pub(crate) workers: usize,
    policy: *const Policy,
    sleep: *const Sleep,
    counters: *const WorkerCounters,
    pub(crate) hot: HotCounters,
}

impl Handles {
    /// # Safety
    /// The three pointees outlive the handles.
    pub(crate) unsafe fn new(index: usize, workers: usize, policy: &Policy, sleep: &Sleep, counters: &WorkerCounters) -> Handles {
        Handles { index, workers, policy, sleep, counters, hot: HotCounters::new(index as u64, crate::stats::sample_period(policy.mechanism())) }
    }

    #[inline(always)]
    pub(crate) fn policy(&self) -> &Policy {
        // SAFETY: outlives the handles (`new`'s contract).
        unsafe { &*self.policy }
    }

    #[inline(always)]
    pub(crate) fn sleep(&self) -> &Sleep {
        // SAFETY: as above.
        unsafe { &*self.sleep }
    }

    #[inline(always)]
    pub(crate) fn counters(&self) -> &WorkerCounters {
        // SAFETY: as above.
        unsafe { &*self.counters }
    }
}

/// What a mechanism hands the worker loop: a job, or a job with what it
/// needs to run (the central unit's serial position).
pub(crate) trait Task: Sized {
    /// A job submitted from outside the pool, as this kind of task.
    fn injected(job: JobRef) -> Self;
    /// The job to run.
    fn job(self) -> JobRef;
}

impl Task for JobRef {
    #[inline(always)]
    fn injected(job: JobRef) -> JobRef {
        job
    }
    #[inline(always)]
    fn job(self) -> JobRef {
        self
    }
}

/// What a loop task does before its next chunk ([`Mechanism::loop_step`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum LoopStep {
    /// Run the chunk.
    Go,
    /// Offer the upper half of what is left as one task (lazy binary
    /// splitting).
    Half,
    /// Offer this many chunks off the top of what is left as one task, which
    /// a steal is owed ([`Mechanism::loop_cut_offered`] sends it).
    Cut(usize),
}

/// A per-worker mechanism, driven by the one worker loop.
pub(crate) trait Mechanism {
    /// What [`pop`](Mechanism::pop) hands out.
    type Task: Task;

    /// Where an idle worker looks for work, in order (`policy::search`).
    const SEARCH: &'static [Source];

    /// Does taking an own task go through shared state (the central unit),
    /// so that the time spent there counts as looking for work rather than
    /// as running tasks in the breakdown?
    const POP_IS_SEARCH: bool = false;

    /// Queue a task of this worker's (a scope, phase or graph task).
    fn push(&self, h: &Handles, job: JobRef);

    /// One of this worker's own tasks, in the policy's order, ready to run here.
    fn pop(&self, h: &Handles) -> Option<Self::Task>;

    /// A task from one of the other sources of [`SEARCH`](Mechanism::SEARCH)
    /// (`Peers`, `OwnMarks`); `in_join`: the worker waits inside a `join`.
    fn find(&self, h: &Handles, source: Source, in_join: bool) -> Option<Self::Task>;

    /// A worker waiting in a `join` or scope past half its stack
    /// (`WorkerThread::too_deep_to_help`) helps only with the newest of its
    /// own queued tasks pushed below stack address `below`, the frame it
    /// waits in: what that frame spawned and a serial run would nest next (a
    /// scope's own spawns, which no other worker may be there to run), so
    /// the stack grows no deeper than the program's recursion from there.
    /// `None`: no such task, or the mechanism never gets that deep (only the
    /// central unit's orders take old tasks while waiting).
    #[inline(always)]
    fn take_newest(&self, _h: &Handles, _below: usize) -> Option<Self::Task> {
        None
    }

    /// Run a task this mechanism handed out; `exec` runs a job.
    #[inline(always)]
    fn run(&self, t: Self::Task, exec: impl FnOnce(JobRef)) {
        exec(t.job())
    }

    /// A scheduling point: handle whatever arrived (messages).
    #[inline(always)]
    fn poll(&self, _h: &Handles) {}

    /// The worker found a task and runs it.
    #[inline(always)]
    fn found_work(&self, _h: &Handles) {}

    /// Work a woken worker could take besides the registry's queues
    /// (`Registry::has_work`): `sw-hier`'s private queues, which idle workers
    /// rescue after the bound. Asked when a worker passes a wake on
    /// (`policy::idle::pass_on_wake`).
    #[inline(always)]
    fn work_for_sleepers(&self) -> bool {
        false
    }

    /// A `join`'s wait is over: the worker goes back to the task that waited.
    #[inline(always)]
    fn resumed(&self, _h: &Handles) {}

    /// The task found is a job from outside the pool.
    #[inline(always)]
    fn took_injected(&self, _h: &Handles) {}

    /// Every source came up empty: say so to whoever needs to know (a
    /// manager), before the worker idles. `waiting`: the worker idles inside
    /// a `join` or scope, waiting for work that runs elsewhere.
    #[inline(always)]
    fn out_of_work(&self, _h: &Handles, _waiting: bool) {}

    /// The worker has been told no task is left anywhere (`UNBLOCK`).
    #[inline(always)]
    fn nothing_left(&self) -> bool {
        false
    }

    /// Something arrived that the worker should look at at once (mail): stop
    /// spinning, do not park.
    #[inline(always)]
    fn signal(&self) -> bool {
        false
    }

    /// Should a loop split its range now (`policy::split`)?
    fn wants_split(&self, h: &Handles) -> bool;

    /// A loop task is about to run its next chunk, with `left` chunks of its
    /// range after that one: by default, offer half when there is more than
    /// one chunk and [`wants_split`](Self::wants_split) says so.
    #[inline(always)]
    fn loop_step(&self, h: &Handles, left: usize) -> LoopStep {
        if left > 0 && self.wants_split(h) {
            LoopStep::Half
        } else {
            LoopStep::Go
        }
    }

    /// The chunks a [`LoopStep::Cut`] asked for are now this worker's newest
    /// task: send them where they are owed.
    #[inline(always)]
    fn loop_cut_offered(&self, _h: &Handles) {}

    /// A loop task on this worker has run its range to the end.
    #[inline(always)]
    fn loop_done(&self, _h: &Handles) {}

    /// How long an idle worker may park before it looks again (`None`: until
    /// woken): the message policies' interrupt path (`policy::notify`).
    #[inline(always)]
    fn park_timeout(&self, _h: &Handles) -> Option<std::time::Duration> {
        None
    }

    /// Joins counted in this mechanism's spawn gate (message policies).
    #[inline(always)]
    fn gate_joins(&self) -> u64 {
        0
    }
}
