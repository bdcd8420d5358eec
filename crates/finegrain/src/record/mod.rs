//! Recording a program's task structure: what `finegrain record` writes and
//! the simulator replays (`crate::taskgraph`).
//!
//! [`record`] runs a closure on the calling thread, outside any pool, with a
//! recorder active. Every parallel construct the closure reaches runs
//! serially (its serial elision: `join(a, b)` runs `a` then `b`, a loop runs
//! its chunks in order, a phase drains its tasks first in, first out, a graph
//! runs its nodes in a topological order) and says what it did:
//!
//! | construct | recorded as |
//! |---|---|
//! | `join(a, b)` | `Spawn(b)` in the caller, `a`'s steps inline, `Wait` |
//! | `scope` / `s.spawn` | a `Spawn` per spawn, from whichever task spawns; one `Wait` at the scope's end |
//! | `for_each*`, `fold_chunks`, `reduce`, `for_each_2d/3d` | `Loop`: one leaf task per grain of the range |
//! | `phase`, `phase_reduce*` | a `Spawn` per initial and enqueued task, one `Wait` |
//! | `Graph::run` | a `Spawn` per source node, edges as edges, one `Wait` |
//! | `TaskSpace::run` | as a scope, one task per point in linear-index order, plus a `SpaceRecord` with the extents and hint (a `bins` map evaluated once per point, its time left out) |
//! | `MapReduce::run` | the map phase as a 1-D task space, one task per chunk, hint `Homes`: the trace line of each chunk's first byte (its locality group on a simulated NUMA machine); the merge in the caller |
//!
//! Priorities (`with_priority`, `spawn_with_priority`) are recorded as
//! plain spawns.
//!
//! **Where the runtime checks.** Only on the paths a construct takes when
//! the calling thread is no pool's worker, which were there before the
//! recorder: `join`'s cold path, `Scope::spawn`'s injection path, and the
//! no-worker branch at the start of `scope`, `fold_chunks` (and so every
//! loop), `for_each_2d/3d`, `phase`, `phase_reduce*`, `Graph::run`, and the
//! default grain's pool size. A worker's path has no added instruction
//! (checked with `scripts/spawn_cost.sh`, whose instruction counts per spawn
//! are unchanged).
//!
//! **Costs** are the time-stamp counter's cycles between the recorder's
//! events, at one thread, with the recorder's own bookkeeping left out (the
//! counter is read on entry to and exit from every hook); what remains of the
//! recording's overhead in a task's cost is a few tens of cycles per event
//! (the hook's call and counter reads), which is not subtracted. Where there
//! is no time-stamp counter, nanoseconds times a nominal 1 cycle per ns
//! (`Clock::NominalNs`). `Meta::cycles_per_ns` is measured over the
//! recording: counter ticks against `Instant`.
//!
//! **Footprints** come from the program: [`read()`] and [`write()`] declare the
//! memory a task touches (the workloads declare theirs, mostly through their
//! `Par` layer). Addresses become 64-byte lines numbered page by page in order
//! of first touch (`LineMap::PagesByFirstTouch`), so a trace does not depend
//! on where the allocator put the data: line = page's first-touch number
//! times 64 plus the line's place in its page. A run continuing the
//! previous one (contiguous, same kind) extends it. A work stretch keeps at
//! most [`LINE_CAP`] runs: past it, an evenly spaced sample (every other run
//! dropped each time the cap fills, and then one run in 2, 4, ... kept), the
//! lines of the runs dropped counted in `Meta::lines_dropped`. The
//! declarations cost one thread-local check when not recording; the
//! workloads make them once per task or chunk, never per element. A
//! declaration's own time is left out of the task's cost; [`declare`] runs a
//! block of them (a walk over a gather's indices or a vertex's arcs) only
//! while recording and leaves the whole block's time out, so that declaring
//! a footprint does not make the task look longer.
//!
//! **Loops** keep their range whole: the leaves are chunks of the loop's
//! grain (for loops that take no grain, the grain the runtime would pick for
//! a [`LOOP_THREADS`]-thread pool: `len / (256 * 64)` clamped to `1..=1024`,
//! where a real pool's own size would make a serial recording's leaves
//! `len / 64`), at most [`MAX_LEAVES`] of them (a larger loop's consecutive
//! chunks are coalesced: its grain becomes `ceil(len / MAX_LEAVES)`), so the
//! simulated policy decides the splitting. The leaves run in order and their
//! results are combined in order, as the serial code would.
//!
//! The workloads (`finegrain-workloads`) declare their footprints, all but
//! `fib` and `sum`, which compute from indices alone. Where a task may stop
//! early (bfs's pull step, maxflow's pushes) the declaration is an upper
//! bound; reductions written per element (`Par::reduce`: cg's dot products,
//! canneal's final cost) declare nothing.
//!
//! **The measured region.** [`region`] marks the part of the program a
//! paper times; when a recording has one, only the work and footprints
//! inside regions are kept (`region.rs`).
//!
//! What a recording cannot show: programs whose task set depends on the
//! schedule are recorded as their serial run (maxflow's active sets, UTS's
//! and canny's phases, bfs's frontiers, cilksort's and hashjoin's data-
//! dependent splits are the ones a serial run makes; canneal's asynchronous
//! swaps see the locations a serial run leaves, and canneal-batch's claims
//! are won by the lowest proposal, so its serial run is one of the
//! runtime's);
//! and graph nodes that add nodes while the graph runs (refused).

mod clock;
mod prefault;
mod probe;
mod region;
mod state;

pub use prefault::PrefaultAlloc;
pub use region::{measured, region};
pub use state::{LINE_CAP, LOOP_THREADS, MAX_LEAVES};
pub(crate) use probe::probe;
pub(crate) use state::{edge, fold, join, line_of, new_latch, node_task, run_as, space, spawn_existing, spawn_task, spawn_task_then, switch_to, task_lines, untimed, wait};

use crate::taskgraph::{Meta, TaskGraph};
use state::Recorder;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};

/// `FLAGS` bits: this thread records (`record`), or probes footprints
/// (`probe`, for `TaskSpace::flux_approx`).
const RECORDING: u8 = 1;
const PROBING: u8 = 2;

thread_local! {
    static FLAGS: Cell<u8> = const { Cell::new(0) };
    static REC: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// Is this thread recording?
#[inline]
pub fn active() -> bool {
    FLAGS.with(|a| a.get() & RECORDING != 0)
}

/// Does a footprint declaration go anywhere (recording or probing)? One
/// thread-local load, as `active` was before probing existed.
#[inline]
fn declaring() -> bool {
    FLAGS.with(|a| a.get() != 0)
}

/// Why a recording could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordError {
    /// `record` was called on a pool's worker (a recording runs outside any pool).
    InsidePool,
    /// `record` was called while this thread was already recording.
    Nested,
    /// The recorded structure does not validate (a bug in the recorder).
    Malformed(String),
}

impl std::fmt::Display for RecordError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RecordError::InsidePool => write!(f, "finegrain::record::record must be called outside any pool (it runs the program serially)"),
            RecordError::Nested => write!(f, "finegrain::record::record is already recording on this thread"),
            RecordError::Malformed(s) => write!(f, "the recorded task graph is malformed: {s}"),
        }
    }
}

impl std::error::Error for RecordError {}

/// Run `f` serially on this thread and record its task structure. `meta`
/// names what is recorded; its clock, line map, cap and dropped-line fields
/// are filled in here. A panic in `f` is resumed after the recorder is
/// cleared.
///
/// ```
/// use finegrain::taskgraph::{Clock, LineMap, Meta, TaskKind};
/// let meta = Meta { workload: "fib".into(), size: "10".into(), seed: 0, clock: Clock::Tsc, cycles_per_ns: 0.0,
///                   line_map: LineMap::PagesByFirstTouch, line_cap: 0, lines_dropped: 0, note: String::new() };
/// fn fib(n: u64) -> u64 { if n < 2 { n } else { let (a, b) = finegrain::join(|| fib(n - 1), || fib(n - 2)); a + b } }
/// let (v, g) = finegrain::record::record(meta, || fib(10)).unwrap();
/// assert_eq!(v, 55);
/// assert_eq!(g.tasks.iter().filter(|t| t.kind == TaskKind::Join).count(), 88);
/// ```
pub fn record<R>(meta: Meta, f: impl FnOnce() -> R) -> Result<(R, TaskGraph), RecordError> {
    if !crate::worker::WorkerThread::current().is_null() {
        return Err(RecordError::InsidePool);
    }
    if active() {
        return Err(RecordError::Nested);
    }
    REC.with(|r| *r.borrow_mut() = Some(Recorder::new(meta)));
    FLAGS.with(|a| a.set(a.get() | RECORDING));
    let out = panic::catch_unwind(AssertUnwindSafe(f));
    FLAGS.with(|a| a.set(a.get() & !RECORDING));
    let rec = REC.with(|r| r.borrow_mut().take()).expect("the recorder outlives the recording");
    let v = match out {
        Ok(v) => v,
        Err(p) => panic::resume_unwind(p),
    };
    let g = rec.finish().map_err(|e| RecordError::Malformed(e.0))?;
    Ok((v, g))
}

/// Declare that the running task reads `data` (no-op unless recording).
#[inline]
pub fn read<T>(data: &[T]) {
    if declaring() {
        touch(data.as_ptr() as usize, std::mem::size_of_val(data), false);
    }
}

/// Declare that the running task writes `data` (no-op unless recording).
#[inline]
pub fn write<T>(data: &[T]) {
    if declaring() {
        touch(data.as_ptr() as usize, std::mem::size_of_val(data), true);
    }
}

/// Run `f`, which declares a task's footprint, only while recording, and
/// leave all of its time out of the task's cost: for declarations that walk
/// the task's data (a gather, a list of scattered elements), whose loops
/// would otherwise be charged to the task. One thread-local check when not
/// recording.
///
/// ```
/// let (x, idx) = (vec![0.0f64; 1000], [3usize, 900, 4]);
/// finegrain::record::declare(|| {
///     for &i in &idx {
///         finegrain::record::read(&x[i..i + 1]);
///     }
/// });
/// ```
#[inline]
pub fn declare(f: impl FnOnce()) {
    if declaring() {
        declare_now(f)
    }
}

#[inline(never)]
fn declare_now(f: impl FnOnce()) {
    if !active() {
        return f(); // probing: no task cost to leave out
    }
    let t0 = clock::now();
    let outer = state::with(|r| std::mem::replace(&mut r.declaring, true));
    // Restore the flag even if `f` panics (the panic then leaves `record`).
    struct Restore(bool, u64);
    impl Drop for Restore {
        fn drop(&mut self) {
            state::with(|r| {
                r.declaring = self.0;
                r.exclude_since(self.1);
            });
        }
    }
    let _restore = Restore(outer, t0);
    f();
}

/// Declare `bytes` bytes at `addr` read or written (no-op unless recording
/// or probing).
#[inline(never)]
pub fn touch(addr: usize, bytes: usize, write: bool) {
    if bytes == 0 || !declaring() {
        return;
    }
    if !active() {
        return probe::touch(addr, bytes);
    }
    let t0 = clock::now();
    state::with(|r| {
        r.touch(addr, bytes, write);
        r.exclude_since(t0);
    });
}

/// Declare the elements `data[i]` for each `i` of `indices` read (a gather:
/// one declaration for all of them; no-op unless recording).
///
/// ```
/// let x = [1.0f64; 100];
/// finegrain::record::read_elements(&x, [3usize, 70, 4].into_iter());
/// ```
#[inline(never)]
pub fn read_elements<T>(data: &[T], indices: impl Iterator<Item = usize>) {
    if !active() {
        if declaring() {
            for i in indices {
                probe::touch(&data[i] as *const T as usize, std::mem::size_of::<T>());
            }
        }
        return;
    }
    let t0 = clock::now();
    let size = std::mem::size_of::<T>();
    state::with(|r| {
        for i in indices {
            let e = &data[i];
            r.touch(e as *const T as usize, size, false);
        }
        r.exclude_since(t0);
    });
}
