//! What the scheduler's own operations cost on a simulated core, in cycles,
//! before the memory system and the network add theirs.
//!
//! Software operations are the instruction counts of finegrain's own runtime
//! (measured with `valgrind --tool=callgrind` by `scripts/spawn_cost.sh`:
//! `docs/benchmarks.md` has the figures) divided by the core's IPC; the queue
//! words they touch go through the cache model on top. Hardware operations
//! (ADM's messages, Carbon's task unit) take the papers' figures. Every
//! number names its source or says it is an assumption; `docs/simulation.md`
//! lists them.

use crate::machine::Preset;
use finegrain::taskgraph::Clock;

/// Work stealing: one push and its matching pop of a Chase-Lev deque (about
/// 88 instructions per spawn in the runtime, split evenly).
pub const WS_PUSH: u64 = 44;
pub const WS_POP: u64 = 44;
/// One steal attempt: read top and bottom, a compare-and-swap on top
/// (assumption: about the cost of a pop plus the CAS; the lines it touches
/// are charged by the cache model).
pub const WS_STEAL_ATTEMPT: u64 = 60;

/// Private-queue policies (ADM and the private part of `sw-hier`): a spawn
/// costs about 19 instructions in the runtime, push and pop together.
pub const LOCAL_PUSH: u64 = 10;
pub const LOCAL_POP: u64 = 9;

/// ADM: a message handler including the user-level interrupt (Sanchez, Yoo,
/// Kozyrakis, ASPLOS 2010, section 4.3: "about 50 cycles").
pub const ADM_HANDLER: u64 = 50;
/// ADM: sending one message from registers (`adm_send`; the same paper,
/// Table 1: a few cycles to fill the send buffer; assumption 5).
pub const ADM_SEND: u64 = 5;
/// ADM: the privileged handler that spills half of a full receive buffer to
/// memory (ASPLOS 2010, section 3.2; assumption: a trap plus eight
/// four-word stores, 200 cycles).
pub const ADM_OVERFLOW: u64 = 200;
/// ULI (user-level interrupts, the payload through the caches): each
/// handler's cost as ASPLOS 2010 measured it, Table 5's ULI column (average
/// over its workloads on the 128-thread CMP, interrupt and the payload's
/// cache-to-cache transfers included), where ADM's are about 50 cycles
/// ([`ADM_HANDLER`]; the same table: 52 for an update, 47 for a received
/// task). A manager's handler that receives an update costs
/// [`ULI_RECV_UPDATE`], or [`ULI_STEAL_MATCH`] when it pairs a stealer; a
/// victim's costs [`ULI_SEND_TASK`] per task it sends; a stealer's
/// [`ULI_RECV_TASK`] per task it receives. The payload's line still sets
/// the message's latency through the cache model, but is not charged again.
pub const ULI_RECV_UPDATE: u64 = 263;
pub const ULI_STEAL_MATCH: u64 = 630;
pub const ULI_SEND_TASK: u64 = 403;
pub const ULI_RECV_TASK: u64 = 300;

/// Carbon: a task-queue instruction at the core (Kumar, Hughes, Nguyen, ISCA
/// 2007, section 4.2: 5 cycles).
pub const CARBON_ISA: u64 = 5;
/// Carbon: one access to the global task unit, beside the network (the same
/// paper, section 5.1: 8 cycles).
pub const CARBON_GTU_ACCESS: u64 = 8;
/// Carbon: the unit serves one request per cycle, pipelined (section 4.3).
pub const CARBON_GTU_SERVICE: u64 = 1;
/// Carbon: an overflow or underflow exception moving tasks between the unit
/// and memory: a fixed trap cost plus a line per task (assumption: 100).
pub const CARBON_EXCEPTION: u64 = 100;

/// `sw-hier` and `pdf`: the global queue is an ordered map under one lock,
/// costed from the runtime's instruction counts (`scripts/spawn_cost.sh`
/// with `POLICY=pdf` and `POLICY=sw-hier`, fib(20) and fib(22) at one
/// thread, callgrind, 2026-11-28; `docs/simulation.md`, "Costs and
/// calibration"). `pdf` costs 2,403.8 instructions per spawn: the push's
/// critical section (`UnitWorker::to_global`, inclusive: 22,247,326
/// instructions over 32,836 calls) is [`GLOBAL_INSERT`], the removal's
/// (`take_back`: 23,939,054 over 32,836) is [`GLOBAL_REMOVE`], and the rest,
/// outside the lock (the serial position's `join` and the key), is
/// [`PDF_SPAWN`]. The lock and head lines go through the cache model on top.
pub const GLOBAL_INSERT: u64 = 678;
pub const GLOBAL_REMOVE: u64 = 729;
pub const PDF_SPAWN: u64 = 997;
/// `sw-hier`: 1,158.8 instructions per spawn, none of them global at one
/// thread: a push into the private queue with the serial position and key
/// (`join_begin`, inclusive: 20,123,470 over 32,834 calls) and a pop
/// (`take_back`: 6,593,356 over 32,836). A spill or fetch takes the global
/// lock for [`GLOBAL_INSERT`] or [`GLOBAL_REMOVE`] per task moved.
pub const SWHIER_PUSH: u64 = 613;
pub const SWHIER_POP: u64 = 201;
/// The critical section of one operation on the software emulation of
/// Carbon's unit (`carbon` on `host-2`, which has no task unit; assumption:
/// about a push or pop of a deque under a lock, 60 instructions).
pub const LOCKED_QUEUE_OP: u64 = 60;

/// Idle: one `pause` of the spin backoff and a yield of the core
/// (assumptions). Waking a parked worker is the preset's `wake_cycles`.
pub const PAUSE: u64 = 10;
pub const YIELD: u64 = 1_000;

/// Modelled core cycles per unit of a trace's work, by the trace's clock:
///
/// - `Instructions` (retired instructions): `1 / core_ipc`, the modelled
///   core's speed with a perfect memory system; the footprint's latency from
///   the cache model is the only memory time, so nothing is counted twice.
/// - `Tsc`, `NominalNs` (the recording core's cycles): `1 /
///   ipc_vs_recording_core`. The recorded cycles include the recording
///   machine's own cache misses and the cache model adds the modelled ones
///   on top: an overestimate kept for traces that have no instruction counts.
/// - `Synthetic`: 1, a generator's cycles are the modelled core's.
pub fn cycles_per_work_unit(clock: Clock, p: &Preset) -> f64 {
    match clock {
        Clock::Instructions => 1.0 / p.core_ipc.max(1e-6),
        Clock::Tsc | Clock::NominalNs => 1.0 / p.ipc_vs_recording_core.max(1e-6),
        Clock::Synthetic => 1.0,
    }
}

/// A worker's turn runs at most this many line accesses of a work step before
/// the event loop moves to another worker, so that cores interleave in
/// simulated time at this grain.
pub const LINES_PER_TURN: usize = 64;
