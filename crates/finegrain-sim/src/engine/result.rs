//! What one simulation measured.

use crate::machine::MemStats;

/// Where a simulated worker's time goes: the runtime's own buckets
/// (`finegrain::vocab`), so that simulated and measured breakdowns read alike.
pub use finegrain::vocab::{Bucket, BUCKETS};

/// Scheduler operations whose cost the simulator measures (the counterpart
/// of ASPLOS 2010's Table 5: cycles per enqueue, dequeue, manager update,
/// steal, sent and received task).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Op {
    Enqueue = 0,
    Dequeue = 1,
    /// A round of looking for work that found some (all its attempts).
    Steal = 2,
    /// A round that found nothing.
    FailedRound = 3,
    /// A manager handling an update (ADM).
    ManagerUpdate = 4,
    /// A victim sending a task (ADM).
    SendTask = 5,
    /// A stealer receiving a task (ADM).
    ReceiveTask = 6,
    /// A request to a central unit, from issue to answer (Carbon's GTU, the
    /// lock of `sw-hier` and `pdf`), queueing included.
    UnitRequest = 7,
    /// The end of a reduction loop, from its last leaf's end to its waiter
    /// holding the value (`engine/reduction.rs`; ASPLOS 2010, section 6.1,
    /// compares these for cg).
    Reduction = 8,
}

pub const OPS: usize = 9;

impl Op {
    pub const ALL: [Op; OPS] =
        [Op::Enqueue, Op::Dequeue, Op::Steal, Op::FailedRound, Op::ManagerUpdate, Op::SendTask, Op::ReceiveTask, Op::UnitRequest, Op::Reduction];
    pub fn name(self) -> &'static str {
        ["enqueue", "dequeue", "steal", "failed_round", "manager_update", "send_task", "receive_task", "unit_request", "reduction"][self as usize]
    }
}

/// Count and total cycles of one kind of operation.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct OpCost {
    pub count: u64,
    pub cycles: u64,
}

impl OpCost {
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.cycles as f64 / self.count as f64
        }
    }
}

/// One kind of message (ADM's, ASPLOS 2010, Table 2): how many were sent,
/// and their cycles from send to the start of their handler, summed (the
/// network, a receiver busy with another handler, or under polling the wait
/// for the receiver's next scheduling point).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MessageKind {
    pub name: &'static str,
    pub count: u64,
    pub latency: u64,
}

impl MessageKind {
    /// Mean cycles from send to handler (0 if none was sent).
    pub fn mean_latency(&self) -> f64 {
        self.latency as f64 / self.count.max(1) as f64
    }
}

/// The outcome of one simulation.
#[derive(Clone, Debug)]
pub struct SimResult {
    pub preset: &'static str,
    pub policy: String,
    pub threads: usize,
    /// Simulated cycles from the start to the end of the root task.
    pub makespan: u64,
    /// Cycles per bucket, summed over workers (each worker's buckets add up to
    /// the makespan, give or take its last turn).
    pub buckets: [u64; BUCKETS],
    pub ops: [OpCost; OPS],
    pub tasks_run: u64,
    /// Tasks run by a worker other than the one that made them ready.
    pub tasks_stolen: u64,
    pub messages: u64,
    /// Messages by kind (empty for mechanisms that send none).
    pub message_kinds: Vec<MessageKind>,
    /// Work cycles of the trace (at the recording machine's clock) and the
    /// same divided by the preset's IPC.
    pub work_cycles: u64,
    /// Tasks of recorded task spaces run, those run by a thread other than
    /// the one planned, and the steals that moved them.
    pub space_tasks: u64,
    pub space_stolen: u64,
    pub space_steals: u64,
    /// Per thread, the space tasks it started, in order (only with
    /// `Locality::log_starts`).
    pub space_starts: Vec<Vec<u32>>,
    /// Under `pdf` (on a graph without dataflow nodes): the most tasks
    /// started ahead of the earliest unstarted one in serial order, and the
    /// task tree's depth `D` (the bound is `threads x D`; `premature.rs`).
    pub premature: Option<(u64, u32)>,
    pub mem: MemStats,
    /// Events processed: worker turns, cache accesses, messages.
    pub events: u64,
    /// Host wall-clock time of the simulation.
    pub wall_s: f64,
}

impl SimResult {
    pub fn bucket(&self, b: Bucket) -> u64 {
        self.buckets[b as usize]
    }
    pub fn op(&self, o: Op) -> OpCost {
        self.ops[o as usize]
    }
    /// Share of all workers' time in bucket `b`.
    pub fn share(&self, b: Bucket) -> f64 {
        let total: u64 = self.buckets.iter().sum();
        if total == 0 {
            0.0
        } else {
            self.buckets[b as usize] as f64 / total as f64
        }
    }
    /// The sum of task execution times (work and memory stalls, all
    /// threads): the thesis's measure of locality (Yoo, §5.4).
    pub fn task_cycles(&self) -> u64 {
        self.bucket(Bucket::Task)
    }

    /// Misses per thousand instructions at L1, L2 and L3. Instructions are
    /// the trace's work cycles, taken as one instruction per recorded cycle
    /// (the recording machine counts no instructions; an assumption).
    pub fn mpki(&self) -> [f64; 3] {
        let i = self.work_cycles;
        [MemStats::mpki(&self.mem.l1, i), MemStats::mpki(&self.mem.l2, i), MemStats::mpki(&self.mem.l3, i)]
    }

    pub fn events_per_s(&self) -> f64 {
        if self.wall_s > 0.0 {
            self.events as f64 / self.wall_s
        } else {
            0.0
        }
    }
}
