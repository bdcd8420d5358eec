//! Carbon's global task unit without a chip-wide lock (Kumar, Hughes, Nguyen,
//! "Carbon", ISCA 2007, sections 4.2 and 4.3.1).
//!
//! ## Design note
//!
//! The GTU is one *lane* per worker. A lane holds, oldest to newest, the
//! worker's software queue (tasks a TQ Overflow moved out), its bounded
//! hardware deque, and its one-entry prefetch buffer (the LTU's). Each lane
//! sits behind its own lock, so it serves one request at a time, as each
//! hardware queue does per cycle; no operation ever holds two lane locks, so
//! there is no chip-wide serialisation and no lock order to get wrong. A steal
//! takes tasks out of the victim's lane under the victim's lock, drops it, and
//! only then puts the extra tasks into its own lane.
//!
//! Every access, by the owner or by a thief, ends by checking the lane's
//! overflow and underflow conditions (`policy::carbon`), so a thief that
//! drains a deque below the TQ_SETLIMIT threshold refills it from the
//! owner's software queue at once, while the owner is busy.
//!
//! `visible` is what thieves may take (the deque, plus the buffered task when
//! `prefetch-steal=yes`), written under the lane lock and read without it by
//! thieves and by the sleep protocol; `queued` is the deque alone (what the
//! GTU counts when it accepts or rejects a prefetch). A push that makes a
//! lane visible from empty announces new work to the sleep protocol, which a
//! worker about to park re-checks after announcing itself (`sleep/README.md`):
//! a worker parks only if every lane was empty after its announcement, and
//! the next push to any lane is then an empty-to-visible one, which wakes it.
//!
//! The lanes are generic over the task (`unit/` stores job pointers) and
//! over [`Rules`], which `policy::carbon::Carbon` implements, so the loom
//! model below checks this very code without the policy layer.
//!
//! No task is lost or run twice: a task is in exactly one of a lane's three
//! parts or in the hands of exactly one worker, and moves only under the lock
//! of the lane it leaves or enters.

use crate::sync::{lock, AtomicUsize, Mutex, Ordering};
use crossbeam_utils::CachePadded;
use std::collections::VecDeque;

/// The decisions the lanes carry out (`policy::carbon::Carbon`).
pub(crate) trait Rules: Copy {
    /// Deque capacity.
    fn capacity(&self) -> usize;
    /// Is there a one-entry prefetch buffer?
    fn buffered(&self) -> bool;
    /// How many of the oldest tasks an overflow moves out of a full deque.
    fn overflow_count(&self, len: usize) -> usize;
    /// Does a deque of `len` with `sw_len` tasks in software underflow?
    fn underflows(&self, len: usize, sw_len: usize) -> bool;
    /// How many tasks an underflow moves back.
    fn refill_count(&self, len: usize, sw_len: usize) -> usize;
    /// How many tasks a steal takes from a deque of `len`.
    fn steal_count(&self, len: usize) -> usize;
    /// May a thief take the buffered task when the deque holds `len`?
    fn buffer_stealable(&self, len: usize) -> bool;
    /// Victims of worker `me` of `n`, in order.
    fn victims(&self, me: usize, n: usize) -> impl Iterator<Item = usize>;
}

/// One worker's part of the GTU and its LTU buffer.
pub(crate) struct Lane<T> {
    pub(crate) software: VecDeque<T>,
    pub(crate) deque: VecDeque<T>,
    pub(crate) buffer: Option<T>,
}

pub(crate) struct LaneCell<T> {
    lane: Mutex<Lane<T>>,
    visible: AtomicUsize,
    queued: AtomicUsize,
}

/// The global task unit: one lane per worker.
pub(crate) struct Gtu<T> {
    lanes: Box<[CachePadded<LaneCell<T>>]>,
}

impl<T: Copy + Eq> Lane<T> {
    /// TQ_ENQUEUE into the deque: a full deque first overflows its oldest
    /// tasks into the software queue.
    fn push_deque(&mut self, c: &impl Rules, job: T) {
        if self.deque.len() >= c.capacity() {
            let k = c.overflow_count(self.deque.len());
            self.software.extend(self.deque.drain(..k));
        }
        self.deque.push_back(job);
    }

    /// The end of every access: TQ Underflow, if the overflow bit is set and
    /// the deque fell below the limit.
    fn settle(&mut self, c: &impl Rules) {
        if c.underflows(self.deque.len(), self.software.len()) {
            for _ in 0..c.refill_count(self.deque.len(), self.software.len()) {
                let Some(j) = self.software.pop_back() else { break };
                self.deque.push_front(j);
            }
        }
    }

    fn visible(&self, c: &impl Rules) -> usize {
        self.deque.len() + usize::from(self.buffer.is_some() && c.buffer_stealable(0))
    }

    /// Up to `steal_count` of the oldest tasks a thief may take, oldest first.
    fn steal(&mut self, c: &impl Rules) -> Vec<T> {
        let got: Vec<T> = if !self.deque.is_empty() {
            let k = c.steal_count(self.deque.len());
            self.deque.drain(..k).collect()
        } else if c.buffer_stealable(self.deque.len()) {
            self.buffer.take().into_iter().collect()
        } else {
            Vec::new()
        };
        self.settle(c);
        got
    }
}

#[cfg_attr(loom, allow(dead_code))] // the model drives only part of the API
impl<T: Copy + Eq> Gtu<T> {
    pub(crate) fn new(n: usize) -> Gtu<T> {
        Gtu {
            lanes: (0..n)
                .map(|_| {
                    CachePadded::new(LaneCell {
                        lane: Mutex::new(Lane { software: VecDeque::new(), deque: VecDeque::new(), buffer: None }),
                        visible: AtomicUsize::new(0),
                        queued: AtomicUsize::new(0),
                    })
                })
                .collect(),
        }
    }

    /// Run `f` on lane `i` under its lock, then settle it; returns `f`'s
    /// result and whether the lane went from nothing visible to something.
    pub(crate) fn with<R>(&self, i: usize, c: &impl Rules, f: impl FnOnce(&mut Lane<T>) -> R) -> (R, bool) {
        let cell = &self.lanes[i];
        let mut lane = lock(&cell.lane);
        let r = f(&mut lane);
        lane.settle(c);
        let v = lane.visible(c);
        let was = cell.visible.load(Ordering::Relaxed);
        cell.visible.store(v, Ordering::Release);
        cell.queued.store(lane.deque.len(), Ordering::Relaxed);
        (r, was == 0 && v > 0)
    }

    /// Is any task in the GTU that an idle worker could take?
    pub(crate) fn has_work(&self) -> bool {
        self.lanes.iter().any(|l| l.visible.load(Ordering::Acquire) > 0)
    }

    /// Tasks in the hardware deques (what a prefetch request is judged by).
    pub(crate) fn queued(&self) -> usize {
        self.lanes.iter().map(|l| l.queued.load(Ordering::Relaxed)).sum()
    }

    /// Owner: TQ_ENQUEUE. The task goes to the prefetch buffer; the buffer's
    /// previous task (or the task, with no buffer) goes to the deque.
    pub(crate) fn enqueue(&self, me: usize, c: &impl Rules, job: T) -> bool {
        self.with(me, c, |l| {
            let out = if c.buffered() { l.buffer.replace(job) } else { Some(job) };
            if let Some(o) = out {
                l.push_deque(c, o);
            }
        })
        .1
    }

    /// Owner: take `job` back if it is still the newest task of the lane.
    pub(crate) fn take_back(&self, me: usize, c: &impl Rules, job: T) -> bool {
        self.with(me, c, |l| {
            if l.buffer == Some(job) {
                l.buffer = None;
            } else if l.buffer.is_none() && l.deque.back() == Some(&job) {
                l.deque.pop_back();
            } else if l.buffer.is_none() && l.deque.is_empty() && l.software.back() == Some(&job) {
                l.software.pop_back();
            } else {
                return false;
            }
            true
        })
        .0
    }

    /// Owner: its newest task (TQ_DEQUEUE on its own lane, or a `join`
    /// running what is left above its second closure).
    pub(crate) fn pop_newest(&self, me: usize, c: &impl Rules) -> Option<T> {
        self.with(me, c, |l| l.buffer.take().or_else(|| l.deque.pop_back()).or_else(|| l.software.pop_back())).0
    }

    /// Steal from the nearest lane with something visible: the victim's
    /// oldest tasks. Returns them oldest first.
    pub(crate) fn steal(&self, me: usize, c: &impl Rules) -> Vec<T> {
        let n = self.lanes.len();
        for v in c.victims(me, n) {
            if self.lanes[v].visible.load(Ordering::Acquire) == 0 {
                continue;
            }
            let (got, _) = self.with(v, c, |l| l.steal(c));
            if !got.is_empty() {
                return got;
            }
        }
        Vec::new()
    }

    /// Owner: put stolen tasks (oldest first) into the own deque.
    pub(crate) fn keep(&self, me: usize, c: &impl Rules, jobs: impl Iterator<Item = T>) -> bool {
        self.with(me, c, |l| {
            for j in jobs {
                l.push_deque(c, j);
            }
        })
        .1
    }

    /// Owner: fill an empty prefetch buffer with `job`.
    pub(crate) fn buffer(&self, me: usize, c: &impl Rules, job: T) -> bool {
        self.with(me, c, |l| {
            if let Some(o) = l.buffer.replace(job) {
                l.push_deque(c, o);
            }
        })
        .1
    }

    /// Owner: is its buffer empty?
    pub(crate) fn buffer_empty(&self, me: usize) -> bool {
        lock(&self.lanes[me].lane).buffer.is_none()
    }

    /// Owner, prefetch request: its deque's newest task, if any.
    pub(crate) fn own_newest_queued(&self, me: usize, c: &impl Rules) -> Option<T> {
        self.with(me, c, |l| l.deque.pop_back()).0
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::sync::{thread, Arc};

    /// Carbon's rules with a one-task deque and a stealable buffer, so that
    /// three tasks exercise overflow, underflow and the buffer.
    #[derive(Copy, Clone)]
    struct Tiny;
    impl Rules for Tiny {
        fn capacity(&self) -> usize {
            1
        }
        fn buffered(&self) -> bool {
            true
        }
        fn overflow_count(&self, len: usize) -> usize {
            (len / 3).max(1)
        }
        fn underflows(&self, len: usize, sw_len: usize) -> bool {
            sw_len > 0 && len < 1
        }
        fn refill_count(&self, _len: usize, sw_len: usize) -> usize {
            sw_len.min(1)
        }
        fn steal_count(&self, len: usize) -> usize {
            len.div_ceil(2)
        }
        fn buffer_stealable(&self, len: usize) -> bool {
            len == 0
        }
        fn victims(&self, me: usize, n: usize) -> impl Iterator<Item = usize> {
            (1..n).map(move |k| (me + k) % n)
        }
    }

    /// The owner enqueues three tasks and takes the newest back while a
    /// thief steals and keeps what it got: every task ends up with exactly
    /// one of them.
    #[test]
    fn steal_against_enqueue_and_take_back() {
        crate::loom_model::model(Some(3), || {
            let c = Tiny;
            let g = Arc::new(Gtu::<u32>::new(2));
            g.enqueue(0, &c, 1);
            let t = {
                let g = g.clone();
                thread::spawn(move || {
                    let got = g.steal(1, &c);
                    let n = got.len();
                    g.keep(1, &c, got.into_iter());
                    let mut mine = Vec::new();
                    while let Some(j) = g.pop_newest(1, &c) {
                        mine.push(j);
                    }
                    assert_eq!(mine.len(), n);
                    mine
                })
            };
            g.enqueue(0, &c, 2);
            g.enqueue(0, &c, 3);
            let mut all = Vec::new();
            if g.take_back(0, &c, 3) {
                all.push(3);
            }
            while let Some(j) = g.pop_newest(0, &c) {
                all.push(j);
            }
            all.extend(t.join().unwrap());
            all.sort();
            assert_eq!(all, vec![1, 2, 3]);
            assert!(!g.has_work());
        });
    }
}
