//! Ready work as the queues hold it, and the frames a worker runs.

use finegrain::policy::pdf::SerialPath;
use finegrain::taskgraph::{LatchId, LoopId, TaskId};

/// Ready work: a task, or a piece of a loop (leaves `lo..hi`), or Carbon's
/// loop descriptor in the task unit (TQ_ENQUEUE_LOOP: leaves `lo..hi`
/// handed out as pieces of `per` leaves, one per dequeue; never run as is).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Work {
    Task(TaskId),
    Piece { lp: LoopId, lo: u32, hi: u32 },
    Chunks { lp: LoopId, lo: u32, hi: u32, per: u32 },
}

impl Work {
    /// Tasks this entry stands for: a descriptor its chunks left, else one.
    pub(crate) fn tasks(&self) -> usize {
        match *self {
            Work::Chunks { lo, hi, per, .. } => (hi - lo).div_ceil(per.max(1)) as usize,
            _ => 1,
        }
    }
}

/// A queue entry: the work, its place in serial order (`pdf`), and the
/// worker that made it ready (to count steals).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    pub work: Work,
    pub path: SerialPath,
    pub from: u32,
}

/// What a blocked task frame waits for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Block {
    None,
    Latch(LatchId),
    Loop(LoopId),
}

/// Progress inside the current work step of a task.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct WorkPos {
    /// Line run and offset inside it of the next line.
    pub run: u32,
    pub off: u32,
    /// Lines done and in all (0 in all: not started).
    pub done: u64,
    pub total: u64,
    pub started: bool,
}

/// One frame of a worker's stack.
#[derive(Clone, Debug)]
pub(crate) enum Frame {
    Task { t: TaskId, step: u32, end: u32, pos: WorkPos, block: Block, path: SerialPath },
    Piece { lp: LoopId, next: u32, hi: u32, path: SerialPath },
}
