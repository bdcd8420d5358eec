//! The vocabulary shared by the runtime's statistics (`stats/`), the
//! benchmarks, the traces and the simulator (`finegrain-sim`): where a
//! worker's time goes. Part of the policy layer (no threads, no atomics), so
//! that the simulator, which links that layer alone, breaks its simulated
//! time down into the very buckets the runtime measures.
//!
//! The buckets follow the execution-time breakdown of Sanchez, Yoo,
//! Kozyrakis, "Flexible Architectural Support for Fine-Grain Scheduling",
//! ASPLOS 2010, Figure 6.

/// Where a worker's time goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Bucket {
    /// Running task code (in the simulator: its work and its memory accesses).
    Task = 0,
    /// Putting tasks in queues, or sending them to a task unit (the runtime
    /// samples these operations: `stats/README.md`).
    Enqueue = 1,
    /// Taking its own tasks back (sampled as pushes are).
    Dequeue = 2,
    /// Looking for work in a round that found some.
    StealOk = 3,
    /// Looking for work in rounds that found none (in the simulator, under
    /// ADM, also waiting for the answer to a starving report).
    StealFail = 4,
    /// Idle with nothing to do: spinning or yielding between searches, or parked.
    Starved = 5,
    /// Handling scheduler messages, as a worker.
    HandlerWorker = 6,
    /// Handling scheduler messages, as a manager.
    HandlerManager = 7,
}

/// How many [`Bucket`]s there are.
pub const BUCKETS: usize = 8;

impl Bucket {
    /// Every bucket, in the order of their indices.
    pub const ALL: [Bucket; BUCKETS] = [
        Bucket::Task,
        Bucket::Enqueue,
        Bucket::Dequeue,
        Bucket::StealOk,
        Bucket::StealFail,
        Bucket::Starved,
        Bucket::HandlerWorker,
        Bucket::HandlerManager,
    ];

    /// The bucket's name in reports, CSV columns and traces.
    pub fn name(self) -> &'static str {
        ["task", "enqueue", "dequeue", "steal_ok", "steal_fail", "starved", "handler_worker", "handler_manager"][self as usize]
    }
}
