//! MapReduce on the pool's tasks, as Phoenix does it on threads (Ranger et
//! al., "Evaluating MapReduce for Multi-core and Multiprocessor Systems",
//! HPCA 2007; Yoo, Romano, Kozyrakis, "Phoenix Rebirth", IISWC 2009; Yoo's
//! thesis, chapter 3; Talbot, Yoo, Kozyrakis, "Phoenix++", MAPREDUCE 2011).
//!
//! A job is: the input split into chunks (a slice of them; [`split_text`]
//! and [`split_slice`] cut the usual ones), a `map` that emits key/value
//! pairs for one chunk, and a `combine` that folds two values of one key.
//! Pairs go into a per-worker [container](Container) chosen by the key
//! space ([`MapReduce::dense`], [`MapReduce::hashed`],
//! [`MapReduce::buffered`]); the containers are then merged in parallel (by
//! key range, or by bucket row) into one list of `(key, value)` pairs in
//! key order.
//!
//! Where a reduction is not a fold of two values at a time, a buffered job's
//! [`run_reduce`](MapReduce::run_reduce) hands each key's values to one
//! `reduce` call as an iterator, as Phoenix 2 does.
//!
//! Map tasks are taken from one queue per [locality group](Groups), each
//! worker from its own group's first. The job owns its containers and
//! keeps their memory between runs, so an iterative job reuses it.
//!
//! There are no threads of its own: the map and merge tasks run in the
//! current pool (or the global one) under its policy.
//!
//! ```
//! use finegrain::mapreduce::{split_text, MapReduce};
//! let text = b"the cat and the hat and the bat";
//! let chunks = split_text(text, 8);
//! let mut job = MapReduce::hashed();
//! let counts = job.run(
//!     &chunks,
//!     |chunk: &&[u8], out| {
//!         for word in chunk.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty()) {
//!             out.emit(word, 1u64);
//!         }
//!     },
//!     |acc, v| *acc += v,
//! );
//! assert_eq!(counts, vec![(&b"and"[..], 2), (&b"bat"[..], 1), (&b"cat"[..], 1), (&b"hat"[..], 1), (&b"the"[..], 3)]);
//!
//! // A histogram's keys are dense: an array per worker, no hashing.
//! let pixels = [3u8, 1, 3, 0, 3];
//! let mut hist = MapReduce::dense(4);
//! let bins = hist.run(&finegrain::mapreduce::split_slice(&pixels, 2), |c: &&[u8], out| {
//!     c.iter().for_each(|&p| out.emit(p as usize, 1u32))
//! }, |a, b| *a += b);
//! assert_eq!(bins, vec![(0, 1), (1, 1), (3, 3)]);
//! ```

mod container;
mod groups;
mod reduce;

pub use container::{Buffer, Container, Dense, Hashed, DEFAULT_ROWS};
pub use groups::Groups;
pub use reduce::NoCombine;

use crate::sync::{lock, Mutex, Ordering};
use crossbeam_utils::CachePadded;

/// Where `map` sends its pairs: the current worker's container, with the
/// job's `combine`.
#[allow(missing_debug_implementations)]
pub struct Emitter<'a, C: Container, F> {
    container: &'a mut C,
    combine: &'a F,
}

impl<C: Container, F: Fn(&mut C::Value, C::Value)> Emitter<'_, C, F> {
    /// Emit one pair.
    #[inline]
    pub fn emit(&mut self, key: C::Key, value: C::Value) {
        self.container.emit(key, value, self.combine);
    }
}

impl<V: Send, F: Fn(&mut V, V)> Emitter<'_, Dense<V>, F> {
    /// Emit `(k, v)` for the `k`-th of `values`, for every one, in one pass:
    /// for a map that counts into an array of its own (a histogram's bins),
    /// one call per chunk instead of one per key. Every key of `values`
    /// counts as emitted, zeros included.
    ///
    /// ```
    /// use finegrain::mapreduce::{split_slice, MapReduce};
    /// let bytes: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 256) as u8).collect();
    /// let counts = MapReduce::dense(256).run(&split_slice(&bytes, 1000), |c: &&[u8], out| {
    ///     let mut bins = [0u64; 256];
    ///     c.iter().for_each(|&b| bins[b as usize] += 1);
    ///     out.emit_all(bins);
    /// }, |a, b| *a += b);
    /// assert_eq!(counts.iter().map(|&(_, n)| n).sum::<u64>(), 10_000);
    /// ```
    #[inline]
    pub fn emit_all(&mut self, values: impl IntoIterator<Item = V>) {
        self.container.emit_all(values, self.combine);
    }
}

impl<V: Send + Default, F: Fn(&mut V, V)> Emitter<'_, Dense<V>, F> {
    /// The worker's own array of one value per key, to add into directly:
    /// for a map that counts (a histogram's bins), no array of the task's
    /// own to zero and hand over at every chunk. Each slot starts at
    /// `V::default()` in every run and is combined into its key at the
    /// merge, so every key counts as emitted, defaults included; the same
    /// array is lent to every map task the worker runs, so a slot must be
    /// folded into, never overwritten.
    ///
    /// ```
    /// use finegrain::mapreduce::{split_slice, MapReduce};
    /// let bytes: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 256) as u8).collect();
    /// let counts = MapReduce::dense(256).run(&split_slice(&bytes, 1000), |c: &&[u8], out| {
    ///     let bins = out.slots();
    ///     c.iter().for_each(|&b| bins[b as usize] += 1);
    /// }, |a: &mut u64, b| *a += b);
    /// assert_eq!(counts.len(), 256);
    /// assert_eq!(counts.iter().map(|&(_, n)| n).sum::<u64>(), 10_000);
    /// ```
    #[inline]
    pub fn slots(&mut self) -> &mut [V] {
        self.container.lend()
    }
}

/// What the last run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Map tasks (chunks) run.
    pub map_tasks: u64,
    /// Of those, taken from the taking worker's own locality group.
    pub local: u64,
    /// Locality groups of the run.
    pub groups: usize,
    /// Containers the map phase filled (one per worker that ran a map
    /// task, more where a map task ran inside another).
    pub containers: usize,
}

impl RunStats {
    /// The share of map tasks run in their own locality group (the
    /// thesis's locality-group hit rate, section 3.3.2).
    pub fn local_share(&self) -> f64 {
        if self.map_tasks == 0 {
            1.0
        } else {
            self.local as f64 / self.map_tasks as f64
        }
    }
}

/// A MapReduce job over containers `C`; run it any number of times.
#[allow(missing_debug_implementations)]
pub struct MapReduce<C: Container> {
    cfg: C::Config,
    groups: Groups,
    sorted: bool,
    /// Spare containers per worker (index `w + 1`; 0 for callers outside a
    /// pool), taken by a map task and put back after it: a map task that
    /// runs inside another on the same worker takes a second one.
    slots: Vec<CachePadded<Mutex<Vec<C>>>>,
    last: RunStats,
}

impl<V: Send> MapReduce<Dense<V>> {
    /// Keys `0..keys` (`usize`): an array of values per worker.
    pub fn dense(keys: usize) -> Self {
        Self::with_config(keys)
    }
}

impl<K: std::hash::Hash + Eq + Ord + Send, V: Send> MapReduce<Hashed<K, V>> {
    /// Any hashable key: a hash table per worker, merged in
    /// [`DEFAULT_ROWS`] bucket rows.
    pub fn hashed() -> Self {
        Self::with_config(DEFAULT_ROWS)
    }
    /// Hashed, merged in `rows` bucket rows (the thesis sizes them to the number of
    /// distinct keys, section 3.3.3; at least 1).
    pub fn hashed_rows(rows: usize) -> Self {
        Self::with_config(rows.max(1))
    }
}

impl<K: Ord + Send, V: Send> MapReduce<Buffer<K, V>> {
    /// Every pair kept, none combined: the output holds each emitted pair.
    pub fn buffered() -> Self {
        Self::with_config(())
    }
}

impl<C: Container> MapReduce<C> {
    fn with_config(cfg: C::Config) -> Self {
        MapReduce { cfg, groups: Groups::default(), sorted: true, slots: Vec::new(), last: RunStats::default() }
    }

    /// How map tasks are grouped ([`Groups::Machine`] by default).
    pub fn groups(mut self, groups: Groups) -> Self {
        self.groups = groups;
        self
    }

    /// Leave the output in the merge's order rather than sorting it by
    /// key (hashed and buffered containers; a dense one is in key order).
    pub fn unsorted(mut self) -> Self {
        self.sorted = false;
        self
    }

    /// What the last [`run`](Self::run) did.
    pub fn last_run(&self) -> &RunStats {
        &self.last
    }

    /// Map every chunk, combine the values of each key, and return the
    /// pairs in key order. A panic in `map` or `combine` reaches the
    /// caller once every task has stopped; the job stays usable.
    pub fn run<T, M, F>(&mut self, chunks: &[T], map: M, combine: F) -> Vec<(C::Key, C::Value)>
    where
        T: Chunk,
        M: Fn(&T, &mut Emitter<'_, C, F>) + Sync,
        F: Fn(&mut C::Value, C::Value) + Sync,
    {
        let workers = crate::current_num_threads().max(1);
        if self.slots.len() < workers + 1 {
            self.slots.resize_with(workers + 1, || CachePadded::new(Mutex::new(Vec::new())));
        }
        // A run that panicked may have left pairs behind.
        for slot in &self.slots {
            lock(slot).iter_mut().for_each(C::clear);
        }
        let addrs: Vec<*const u8> = chunks.iter().map(Chunk::memory).collect();
        // While recording, the map phase is a task space whose groups the
        // replay plans for its own machine: no queues of this host's.
        let recording = crate::record::active();
        let queues = groups::Queues::new(if recording { &Groups::One } else { &self.groups }, workers, &addrs);
        let (slots, cfg) = (&self.slots, &self.cfg);
        let drain = || {
            let w = crate::current_worker_index();
            let slot = &slots[w.map_or(0, |w| (w + 1) % slots.len())];
            let mut container = lock(slot).pop().unwrap_or_else(|| C::with_config(cfg));
            let mut out = Emitter { container: &mut container, combine: &combine };
            while let Some(c) = queues.next(w) {
                map(&chunks[c], &mut out);
            }
            lock(slot).push(container);
        };
        let drainers = workers.min(chunks.len());
        if recording {
            // Recording (one thread): a task per map task, so the trace has
            // the job's parallelism for the simulator to schedule.
            let one = |c: usize| {
                let slot = &slots[0];
                let mut container = lock(slot).pop().unwrap_or_else(|| C::with_config(cfg));
                map(&chunks[c], &mut Emitter { container: &mut container, combine: &combine });
                lock(slot).push(container);
            };
            record_map(&addrs, one);
        } else if drainers <= 1 {
            drain();
        } else {
            crate::scope(|s| {
                for _ in 1..drainers {
                    s.spawn(|_| drain());
                }
                drain();
            });
        }
        let mut parts: Vec<C> = Vec::new();
        for slot in &self.slots {
            parts.append(&mut lock(slot));
        }
        let out = C::merge(&mut parts, &self.cfg, &combine, self.sorted);
        self.last = RunStats {
            map_tasks: chunks.len() as u64,
            local: queues.local.load(Ordering::Relaxed),
            groups: queues.groups(),
            containers: parts.len(),
        };
        // Back to the slots, emptied, for the next run.
        for (i, p) in parts.into_iter().enumerate() {
            lock(&self.slots[i % self.slots.len()]).push(p);
        }
        out
    }
}

/// The map phase while recording: one task per chunk, in order, recorded
/// as a task space whose hint is each chunk's home (the trace line of its
/// first byte), so that a replay on a NUMA machine can queue each map task
/// to the locality group that holds its chunk (`policy::locality::groups`).
#[cold]
fn record_map(addrs: &[*const u8], one: impl Fn(usize)) {
    use crate::taskgraph::{SpaceHint, SpaceRecord, TaskKind, NO_HOME};
    let n = addrs.len();
    if n == 0 {
        return;
    }
    let latch = crate::record::new_latch();
    let mut tasks = Vec::with_capacity(n);
    let mut homes = Vec::with_capacity(n);
    for (c, &a) in addrs.iter().enumerate() {
        homes.push(if a.is_null() { NO_HOME } else { crate::record::untimed(|| crate::record::line_of(a as usize)) });
        let id = crate::record::spawn_task(TaskKind::Scope, latch);
        tasks.push(id);
        crate::record::run_as(id, || one(c));
    }
    crate::record::wait(latch);
    if let Ok(n) = u32::try_from(n) {
        crate::record::space(SpaceRecord { dims: [n, 1, 1], hint: SpaceHint::Homes(homes), tasks });
    }
}

/// A piece of a job's input. [`memory`](Chunk::memory) says where its data
/// live, so a map task can be queued to the locality group whose memory
/// holds them; the default (null) deals the chunk to a group by its place
/// in the list. Slices, vectors, strings and ranges implement it; a type of
/// the user's implements it with `impl Chunk for MyPiece {}` or says where.
pub trait Chunk: Sync {
    fn memory(&self) -> *const u8 {
        std::ptr::null()
    }
}

impl<T: Sync> Chunk for &[T] {
    fn memory(&self) -> *const u8 {
        self.as_ptr().cast()
    }
}
impl<T: Sync> Chunk for Vec<T> {
    fn memory(&self) -> *const u8 {
        self.as_ptr().cast()
    }
}
impl Chunk for &str {
    fn memory(&self) -> *const u8 {
        self.as_ptr()
    }
}
impl Chunk for String {
    fn memory(&self) -> *const u8 {
        self.as_ptr()
    }
}
impl Chunk for std::ops::Range<usize> {}
impl Chunk for (usize, usize) {}

/// `text` cut into pieces of about `bytes` bytes, each ending after an
/// ASCII whitespace byte (or at the end), so no word is split.
pub fn split_text(text: &[u8], bytes: usize) -> Vec<&[u8]> {
    let bytes = bytes.max(1);
    let mut out = Vec::with_capacity(text.len() / bytes + 1);
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = bytes.min(rest.len());
        while end < rest.len() && !rest[end - 1].is_ascii_whitespace() {
            end += 1;
        }
        let (piece, tail) = rest.split_at(end);
        out.push(piece);
        rest = tail;
    }
    out
}

/// `items` in pieces of `len` items (the last shorter).
pub fn split_slice<T>(items: &[T], len: usize) -> Vec<&[T]> {
    items.chunks(len.max(1)).collect()
}

#[cfg(test)]
mod tests;
