//! `par_bridge`: a serial iterator driven by parallel tasks. The iterator
//! sits behind a mutex; each task (one per worker at most) takes small
//! batches from it and feeds them to its own folder. Items arrive in no
//! particular order (as with Rayon's `par_bridge`).

use super::bridge::bridge_unindexed;
use super::plumbing::{Folder, UnindexedConsumer, UnindexedProducer};
use super::par_iter::ParallelIterator;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The most items a task takes per lock.
const MAX_BATCH: usize = 16;

/// `par_bridge()` for any serial iterator whose items can be sent.
pub trait ParallelBridge: Sized {
    /// Drive this serial iterator from parallel tasks.
    fn par_bridge(self) -> IterBridge<Self>;
}

impl<I: Iterator + Send> ParallelBridge for I
where
    I::Item: Send,
{
    fn par_bridge(self) -> IterBridge<Self> {
        IterBridge { iter: self }
    }
}

/// `par_bridge`'s iterator.
#[derive(Clone, Debug)]
#[must_use = "iterators are lazy"]
pub struct IterBridge<I> {
    iter: I,
}

impl<I: Iterator + Send> ParallelIterator for IterBridge<I>
where
    I::Item: Send,
{
    type Item = I::Item;
    fn drive_unindexed<C: UnindexedConsumer<I::Item>>(self, consumer: C) -> C::Result {
        let shared = Shared {
            iter: Mutex::new(self.iter),
            done: AtomicBool::new(false),
            tasks: AtomicUsize::new(crate::pool::current_num_threads().saturating_sub(1)),
        };
        bridge_unindexed(Puller { shared: &shared }, consumer)
    }
}

struct Shared<I> {
    iter: Mutex<I>,
    /// The iterator returned `None` (or panicked): nobody pulls again.
    done: AtomicBool,
    /// More tasks that may still be started.
    tasks: AtomicUsize,
}

struct Puller<'s, I> {
    shared: &'s Shared<I>,
}

impl<I: Iterator + Send> UnindexedProducer for Puller<'_, I>
where
    I::Item: Send,
{
    type Item = I::Item;
    fn split(self) -> (Self, Option<Self>) {
        let s = self.shared;
        let more = !s.done.load(Ordering::Relaxed) && s.tasks.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1)).is_ok();
        (self, more.then_some(Puller { shared: s }))
    }
    fn fold_with<F: Folder<I::Item>>(self, mut folder: F) -> F {
        let s = self.shared;
        let mut batch = Vec::with_capacity(MAX_BATCH);
        let mut want = 1;
        while !folder.full() && !s.done.load(Ordering::Relaxed) {
            {
                let mut it = s.iter.lock().unwrap_or_else(|p| p.into_inner());
                // Marks the iterator finished if `next` panics, so no other task pulls from it.
                let guard = DoneOnUnwind(&s.done);
                batch.extend(it.by_ref().take(want));
                std::mem::forget(guard);
            }
            if batch.len() < want {
                s.done.store(true, Ordering::Relaxed);
            }
            folder = folder.consume_iter(batch.drain(..));
            want = (want * 2).min(MAX_BATCH);
        }
        folder
    }
}

struct DoneOnUnwind<'a>(&'a AtomicBool);

impl Drop for DoneOnUnwind<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
