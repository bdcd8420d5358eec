//! Where a producer meets a consumer, and where the splitting is decided.
//!
//! A drive is one task holding a whole producer. It splits in half with
//! [`join`](crate::join) only when the worker's own split decision says so
//! (`policy::split`: under `ws`, when its deque is empty, so every half it
//! offered has been taken), or while a small initial budget lasts (the thread
//! count, halved at each split: about two pieces per thread, as Rayon's
//! adaptive splitter makes, so that a policy whose decision never asks for a
//! split, such as `static`, still spreads the work; a half that ran on
//! another worker gets the budget back), or while the
//! producer is longer than its `with_max_len`. It never splits below
//! `with_min_len`. Otherwise it folds one chunk and asks again: lazy binary
//! splitting (Tzannes, Caragea, Barua, Vishkin, PPoPP 2010), the rule
//! `loops.rs` uses for index ranges, applied to producers. The number of tasks
//! grows with the demand for work, never with the number of items.

use super::plumbing::{Consumer, Folder, Producer, Reducer, UnindexedConsumer, UnindexedProducer};
use crate::worker::WorkerThread;

/// Does the worker running this want to offer work? (False outside a pool.)
#[inline]
fn worker_wants_split() -> bool {
    let wt = WorkerThread::current();
    // SAFETY: a non-null current worker is live for as long as this thread runs it.
    !wt.is_null() && unsafe { (*wt).wants_split() }
}

#[inline]
fn worker_index() -> usize {
    crate::pool::current_worker_index().unwrap_or(usize::MAX)
}

/// The split state a task carries.
#[derive(Clone, Copy, Debug)]
struct Splitter {
    /// Unconditional splits left, halved on each (from `t` threads: about
    /// `2t` pieces, as Rayon's adaptive splitter makes).
    budget: usize,
    /// The budget a migrated half starts again with.
    threads: usize,
    min: usize,
    max: usize,
    /// Items folded between two looks at the split decision.
    grain: usize,
}

impl Splitter {
    fn new(len: usize, min: usize, max: usize) -> Self {
        // The pool's threads; while recording (`record/`), those of the
        // large pool a recording stands for, so the recorded graph has the
        // splits a real run would make.
        let threads = crate::pool::loop_threads().max(1);
        let min = min.max(1);
        let grain = (len / (threads * 64)).clamp(1, 1024).max(min);
        Splitter { budget: threads, threads, min, max, grain }
    }

    /// Split an indexed producer of `len` items now?
    #[inline]
    fn try_split(&mut self, len: usize) -> bool {
        if len / 2 < self.min {
            return false;
        }
        if len > self.max {
            return true;
        }
        if self.budget > 0 {
            self.budget /= 2;
            return true;
        }
        len > self.grain && worker_wants_split()
    }

    /// A half that started on another worker than its parent: work was
    /// wanted there, so it may split again toward the thread count.
    #[inline]
    fn migrated(mut self, origin: usize) -> Self {
        if worker_index() != origin {
            self.budget = self.budget.max(self.threads);
        }
        self
    }
}

/// Run `producer`'s `len` items through `consumer`, splitting lazily.
pub fn bridge_producer_consumer<P, C>(len: usize, producer: P, consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    let sp = Splitter::new(len, producer.min_len(), producer.max_len());
    helper(len, sp, producer, consumer)
}

fn helper<P, C>(mut len: usize, mut sp: Splitter, mut producer: P, mut consumer: C) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    // The results of the chunks folded here so far, joined left to right.
    let mut acc: Option<(C::Result, C::Reducer)> = None;
    let mut chunk = sp.grain;
    let join_acc = |acc: Option<(C::Result, C::Reducer)>, r: C::Result| match acc {
        Some((a, red)) => red.reduce(a, r),
        None => r,
    };
    loop {
        if consumer.full() {
            return join_acc(acc, consumer.into_folder().complete());
        }
        if sp.try_split(len) {
            let mid = len / 2;
            let (lp, rp) = producer.split_at(mid);
            let (lc, rc, red) = consumer.split_at(mid);
            let origin = worker_index();
            let (l, r) = crate::join(|| helper(mid, sp, lp, lc), || helper(len - mid, sp.migrated(origin), rp, rc));
            return join_acc(acc, red.reduce(l, r));
        }
        // The rest after a chunk must not fall below `with_min_len` either.
        if len < chunk + sp.min {
            return join_acc(acc, producer.fold_with(consumer.into_folder()).complete());
        }
        let g = chunk;
        let (p1, p2) = producer.split_at(g);
        let (c1, c2, red) = consumer.split_at(g);
        let folder = p1.fold_with(c1.into_folder());
        // A full folder wants nothing after what it has seen (a search has
        // its answer, a `try_` has failed): the rest of this task is skipped,
        // as a serial fold would skip it.
        let done = folder.full();
        let r = join_acc(acc, folder.complete());
        if done {
            return red.reduce(r, c2.into_folder().complete());
        }
        acc = Some((r, red));
        (len, producer, consumer) = (len - g, p2, c2);
        // Chunks grow while nobody wants work (fewer, larger partial
        // results for `fold` and `collect`), up to 16 grains, so a hungry
        // worker still waits at most that long for a split.
        chunk = (chunk * 2).min(sp.grain * 16);
    }
}

/// Run an unindexed producer through `consumer`, splitting while the
/// budget lasts or the worker wants work offered.
pub fn bridge_unindexed<P, C>(producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    let sp = Splitter::new(0, 1, usize::MAX);
    unindexed_helper(sp, producer, consumer)
}

fn unindexed_helper<P, C>(mut sp: Splitter, producer: P, consumer: C) -> C::Result
where
    P: UnindexedProducer,
    C: UnindexedConsumer<P::Item>,
{
    if consumer.full() {
        return consumer.into_folder().complete();
    }
    let want = if sp.budget > 0 {
        sp.budget /= 2;
        true
    } else {
        worker_wants_split()
    };
    if want {
        match producer.split() {
            (l, Some(r)) => {
                let (lc, red) = (consumer.split_off_left(), consumer.to_reducer());
                let origin = worker_index();
                let (a, b) = crate::join(|| unindexed_helper(sp, l, lc), || unindexed_helper(sp.migrated(origin), r, consumer));
                return red.reduce(a, b);
            }
            (p, None) => return p.fold_with(consumer.into_folder()).complete(),
        }
    }
    producer.fold_with(consumer.into_folder()).complete()
}

/// Run `f` on a worker: here if this thread is one (or a recording runs),
/// else in the global pool. Every consumer enters through this, so a whole
/// drive is one `install`, not one per split.
pub(crate) fn in_worker<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if !WorkerThread::current().is_null() || crate::record::active() {
        f()
    } else {
        crate::pool::global().install(f)
    }
}
