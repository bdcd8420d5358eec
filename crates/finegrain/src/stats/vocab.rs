//! The vocabulary the breakdown speaks: where a worker's time goes
//! ([`Bucket`]), the scheduler operations timed one by one ([`Op`]), the
//! events counted ([`Counter`]), and how often queue operations are sampled.


pub use crate::vocab::{Bucket, BUCKETS};

/// A scheduler operation, after the ADM paper's Table 5 (Sanchez, Yoo,
/// Kozyrakis, ASPLOS 2010, section 6.2), mapped onto what each mechanism
/// does (`stats/README.md`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Op {
    /// Offering a task: a `ws` deque push, an `adm` frame mark or private
    /// queue push, a central-unit or `static` enqueue. Sampled.
    Enqueue = 0,
    /// Taking an own task: a `join`'s take-back, a pop of the own queue (or
    /// of the central unit). Sampled.
    Dequeue = 1,
    /// One steal attempt of a `ws` thief at one victim. Timed each time.
    Steal = 2,
    /// A manager handling an `UPDATE` (or a victim's or stealer's update)
    /// that arranged no steal. Timed each time.
    ManagerUpdate = 3,
    /// A manager handling an update that matched a stealer with a victim
    /// (sent `STEAL`). Timed each time.
    StealMatch = 4,
    /// A victim handling `STEAL`: taking its oldest tasks and sending `TASK`.
    /// Timed each time.
    SendTask = 5,
    /// A stealer handling `TASK`. Timed each time.
    RecvTask = 6,
}

pub(crate) const OPS: usize = 7;

impl Op {
    pub const ALL: [Op; OPS] = [Op::Enqueue, Op::Dequeue, Op::Steal, Op::ManagerUpdate, Op::StealMatch, Op::SendTask, Op::RecvTask];
    pub fn name(self) -> &'static str {
        ["enqueue", "dequeue", "steal", "manager_update", "steal_match", "send_task", "recv_task"][self as usize]
    }
    /// Sampled (`true`) or timed one by one.
    pub fn sampled(self) -> bool {
        matches!(self, Op::Enqueue | Op::Dequeue)
    }
}

/// Mean sampling period of enqueues and dequeues where they are lock-free
/// (work-stealing deques, frame marks and private queues, `static`'s own
/// queues; module documentation). A sampled `join` costs four clock reads
/// and its bookkeeping; one in 1024 keeps that near zero per `join`
/// (`docs/benchmarks.md`, "Sampling").
pub const SAMPLE_PERIOD: u64 = 1024;

/// Mean sampling period of the central task unit's enqueues and dequeues:
/// each takes a lock, so it costs far more than a clock read and a sample
/// is cheap; and its cost is heavy-tailed (a waiter behind a preempted
/// holder waits out a time slice), so a long period would let a single
/// sample stand for far more time than the run had.
pub const UNIT_SAMPLE_PERIOD: u64 = 16;

/// The sampling period of a mechanism's enqueues and dequeues (1 would time
/// every one).
pub fn sample_period(m: crate::policy::Mechanism) -> u64 {
    match m {
        crate::policy::Mechanism::Unit => UNIT_SAMPLE_PERIOD,
        _ => SAMPLE_PERIOD,
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(usize)]
pub(crate) enum Counter {
    TasksRun = 0,
    Enqueues = 1,
    StealAttempts = 2,
    Steals = 3,
    TasksStolen = 4,
    Messages = 5,
    Parks = 6,
    Interrupts = 7,
}
#[cfg_attr(not(feature = "stats"), allow(dead_code))]
pub(super) const COUNTERS: usize = 8;
