//! Carbon's global task unit without a chip-wide lock (Kumar, Hughes, Nguyen,
//! "Carbon", ISCA 2007, sections 4.2 and 4.3.1).
//!
//! ## Design note
//!
//! The GTU is one *lane* per worker. A lane holds, oldest to newest, the
//! worker's software queue (entries a TQ Overflow moved out), its bounded
//! hardware deque, and its one-entry prefetch buffer (the LTU's). The
//! software queue and the deque sit behind the lane's own lock, so they
//! serve one request at a time, as each hardware queue does per cycle; no
//! operation ever holds two lane locks, so there is no chip-wide
//! serialisation and no lock order to get wrong. A steal takes entries out
//! of the victim's lane under the victim's lock, drops it, and only then
//! puts the extra entries into its own lane.
//!
//! The prefetch buffer is the core's own register in the hardware (section
//! 4.4), reached without the GTU: here it is the lane's `slot`, one atomic
//! word (0 when empty) outside the lock. Only the owner fills it, with a
//! plain store when it is empty (nobody else can fill it meanwhile) or a
//! swap when it is full, whose old task goes to the deque under the lock (the
//! paper's "the oldest task in the buffer is sent to the global task unit").
//! It is emptied by the owner (a compare-exchange of the exact task at the
//! end of a `join`, a swap on dequeue) or, with `prefetch-steal=yes`, by a
//! thief's swap once the victim's deque looked empty. Each of these is one
//! atomic read-modify-write on one word, so a buffered task leaves the slot
//! exactly once; the owner's stores are releases and every taker's RMW an
//! acquire, so the job's contents, written before it was buffered, are
//! visible to whoever takes it. A `join` whose second closure is still
//! buffered at its end therefore takes no lock at all.
//!
//! A deque entry is a task or a TQ_ENQUEUE_LOOP descriptor ([`Item`]): one
//! entry that hands out `left` tasks, one per dequeue, and that a steal
//! splits, the thief taking half of what is left as an entry of its own
//! (`loops.rs` holds the descriptor and the claiming of chunks).
//!
//! Every access to the lock-protected part, by the owner or by a thief,
//! ends by checking the lane's overflow and underflow conditions
//! (`policy::carbon`), so a thief that drains a deque below the TQ_SETLIMIT
//! threshold refills it from the owner's software queue at once, while the
//! owner is busy.
//!
//! `visible` is the number of tasks in the deque, what thieves may take (plus
//! the slot with `prefetch-steal=yes`) and what the GTU counts when it accepts
//! or rejects a prefetch; `held` the entries under the lock, so the owner
//! skips the lock when it has none (only the owner adds entries to its lane).
//! Both are written under the lane lock and read without it. A push that
//! makes a lane's work visible from none (a task into an empty slot of a lane
//! with an empty deque, or a deque going from empty to not) announces new
//! work to the sleep protocol, which a worker about to park re-checks after
//! announcing itself (`sleep/README.md`): a worker parks only if every lane
//! and slot was empty after its announcement.
//!
//! The lanes are generic over the task (`unit/` stores job pointers) and
//! over [`Rules`], which `policy::carbon::Carbon` implements, so the loom
//! models below check this very code without the policy layer.
//!
//! No task is lost or run twice: a task is in exactly one of a lane's three
//! parts or in the hands of exactly one worker; it moves between the
//! software queue and the deque only under the lane lock, and into or out of
//! the slot only by one atomic operation on it.

#[cfg(all(feature = "runtime", not(loom)))]
pub(crate) mod loops;

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

/// A task as one machine word, never 0 (the empty prefetch buffer).
pub(crate) trait Word: Copy + Eq {
    fn to_word(self) -> usize;
    /// # Safety
    /// `w` came from [`Word::to_word`].
    unsafe fn from_word(w: usize) -> Self;
}

#[cfg(all(feature = "runtime", not(loom)))]
impl Word for crate::job::JobRef {
    #[inline(always)]
    fn to_word(self) -> usize {
        self.as_ptr() as usize
    }
    #[inline(always)]
    unsafe fn from_word(w: usize) -> Self {
        // SAFETY: a pointer `to_word` made from a job not yet run.
        unsafe { crate::job::JobRef::from_ptr(w as *mut crate::job::JobHeader) }
    }
}

/// A deque entry: a task, or a loop descriptor (TQ_ENQUEUE_LOOP) that
/// still hands out `left` tasks, all the same job, each of which claims the
/// loop's next chunk when it runs (`loops.rs`). A plain task has `left == 1`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Item<T> {
    pub(crate) job: T,
    pub(crate) left: usize,
}

/// One worker's part of the GTU, under the lane lock. The LTU's prefetch
/// buffer is not here: it is the lane's `slot` (see [`LaneCell`]).
pub(crate) struct Lane<T> {
    pub(crate) software: VecDeque<Item<T>>,
    pub(crate) deque: VecDeque<Item<T>>,
    /// Tasks the deque hands out: the sum of its entries' `left`.
    pub(crate) tasks: usize,
}

/// A lane and its prefetch buffer.
///
/// The buffer is the core's own register in the hardware (Carbon, section
/// 4.4: "a small set of special-purpose registers"), so the owner reaches it
/// without the GTU: here it is one atomic word, 0 when empty. Only the owner
/// fills it (a store into an empty slot, or a swap), and only it or a thief
/// empties it, by a swap or a compare-exchange to 0, so each buffered task
/// leaves it exactly once and the owner's `join` costs no lane lock when the
/// second closure is still buffered. A thief takes the buffered task only
/// with `prefetch-steal=yes` and only when the deque looked empty.
pub(crate) struct LaneCell<T> {
    lane: Mutex<Lane<T>>,
    slot: AtomicUsize,
    /// Tasks thieves may take from the deque (`Lane::tasks`), written under
    /// the lock, read without it.
    visible: AtomicUsize,
    /// Entries in the deque and software queue, written under the lock.
    held: AtomicUsize,
    _t: std::marker::PhantomData<T>,
}

/// The global task unit: one lane per worker.
pub(crate) struct Gtu<T> {
    lanes: Box<[CachePadded<LaneCell<T>>]>,
    /// Do idle workers count buffered tasks as work (`prefetch-steal=yes`)?
    buffer_visible: bool,
}

impl<T: Copy + Eq> Lane<T> {
    /// TQ_ENQUEUE into the deque: a full deque first overflows its oldest
    /// entries into the software queue.
    fn push_deque(&mut self, c: &impl Rules, it: Item<T>) {
        if self.deque.len() >= c.capacity() {
            let k = c.overflow_count(self.deque.len());
            for o in self.deque.drain(..k) {
                self.tasks -= o.left;
                self.software.push_back(o);
            }
        }
        self.tasks += it.left;
        self.deque.push_back(it);
    }

    /// The end of every access: TQ Underflow, if the overflow bit is set and
    /// the deque fell below the limit.
    fn settle(&mut self, c: &impl Rules) {
        if c.underflows(self.deque.len(), self.software.len()) {
            for _ in 0..c.refill_count(self.deque.len(), self.software.len()) {
                let Some(j) = self.software.pop_back() else { break };
                self.tasks += j.left;
                self.deque.push_front(j);
            }
        }
    }

    /// The newest task of the deque, else of the software queue: one task
    /// of a loop entry, the entry itself once it has one left.
    fn pop_back(&mut self) -> Option<T> {
        let from_deque = !self.deque.is_empty();
        let q = if from_deque { &mut self.deque } else { &mut self.software };
        let back = q.back_mut()?;
        let job = back.job;
        if back.left > 1 {
            back.left -= 1;
        } else {
            q.pop_back();
        }
        if from_deque {
            self.tasks -= 1;
        }
        Some(job)
    }

    /// Up to `steal_count` of the deque's oldest tasks, oldest first, as
    /// entries; a loop entry at the front is split instead, the thief taking
    /// half the tasks it has left, rounded up (the lazy expansion of
    /// TQ_ENQUEUE_LOOP: the entry stays one entry on both sides).
    fn steal(&mut self, c: &impl Rules) -> Vec<Item<T>> {
        let got = match self.deque.front_mut() {
            None => Vec::new(),
            Some(front) if front.left > 1 => {
                let k = front.left.div_ceil(2);
                front.left -= k;
                self.tasks -= k;
                vec![Item { job: front.job, left: k }]
            }
            Some(_) => {
                let k = c.steal_count(self.deque.len());
                let got: Vec<Item<T>> = self.deque.drain(..k).collect();
                self.tasks -= got.iter().map(|i| i.left).sum::<usize>();
                got
            }
        };
        self.settle(c);
        got
    }
}

#[cfg_attr(loom, allow(dead_code))] // the model drives only part of the API
impl<T: Word> Gtu<T> {
    /// `buffer_visible`: may thieves take buffered tasks (`prefetch-steal`)?
    pub(crate) fn new(n: usize, buffer_visible: bool) -> Gtu<T> {
        Gtu {
            lanes: (0..n)
                .map(|_| {
                    CachePadded::new(LaneCell {
                        lane: Mutex::new(Lane { software: VecDeque::new(), deque: VecDeque::new(), tasks: 0 }),
                        slot: AtomicUsize::new(0),
                        visible: AtomicUsize::new(0),
                        held: AtomicUsize::new(0),
                        _t: std::marker::PhantomData,
                    })
                })
                .collect(),
            buffer_visible,
        }
    }

    /// Run `f` on lane `i` under its lock, then settle it; returns `f`'s
    /// result and whether the lane's deque went from no task to some.
    pub(crate) fn with<R>(&self, i: usize, c: &impl Rules, f: impl FnOnce(&mut Lane<T>) -> R) -> (R, bool) {
        let cell = &self.lanes[i];
        let mut lane = lock(&cell.lane);
        let r = f(&mut lane);
        lane.settle(c);
        let v = lane.tasks;
        let was = cell.visible.load(Ordering::Relaxed);
        cell.visible.store(v, Ordering::Release);
        cell.held.store(lane.deque.len() + lane.software.len(), Ordering::Release);
        (r, was == 0 && v > 0)
    }

    /// Is any task in the GTU that an idle worker could take?
    pub(crate) fn has_work(&self) -> bool {
        self.lanes.iter().any(|l| l.visible.load(Ordering::Acquire) > 0 || (self.buffer_visible && l.slot.load(Ordering::Acquire) != 0))
    }

    /// Tasks in the hardware deques (what a prefetch request is judged by).
    pub(crate) fn queued(&self) -> usize {
        self.lanes.iter().map(|l| l.visible.load(Ordering::Relaxed)).sum()
    }

    /// Owner: TQ_ENQUEUE. The task goes to the prefetch buffer; the buffer's
    /// previous task (or the task, with no buffer) goes to the deque.
    /// Returns whether the lane had nothing a thief could take before.
    #[inline]
    pub(crate) fn enqueue(&self, me: usize, c: &impl Rules, job: T) -> bool {
        if !c.buffered() {
            return self.with(me, c, |l| l.push_deque(c, Item { job, left: 1 })).1;
        }
        let cell = &self.lanes[me];
        let w = job.to_word();
        // Only the owner fills the slot, so an empty slot stays empty until
        // this store.
        let old = if cell.slot.load(Ordering::Relaxed) == 0 {
            cell.slot.store(w, Ordering::Release);
            0
        } else {
            cell.slot.swap(w, Ordering::AcqRel)
        };
        if old == 0 {
            return self.buffer_visible && cell.visible.load(Ordering::Relaxed) == 0;
        }
        // SAFETY: `old` was stored by `to_word` and has left the slot here.
        let old = unsafe { T::from_word(old) };
        self.spill(me, c, old)
    }

    #[cold]
    #[inline(never)]
    fn spill(&self, me: usize, c: &impl Rules, old: T) -> bool {
        self.with(me, c, |l| l.push_deque(c, Item { job: old, left: 1 })).1
    }

    /// Owner: TQ_ENQUEUE_LOOP: a loop entry handing out `tasks` tasks of
    /// `job` goes straight to the deque, not the buffer (Carbon, section
    /// 4.3.1). A buffered task goes to the deque first, so the lane stays one
    /// stack, oldest to newest.
    pub(crate) fn enqueue_loop(&self, me: usize, c: &impl Rules, job: T, tasks: usize) -> bool {
        let slot = &self.lanes[me].slot;
        self.with(me, c, |l| {
            let w = slot.swap(0, Ordering::Acquire);
            if w != 0 {
                // SAFETY: stored by `to_word`, and out of the slot now.
                l.push_deque(c, Item { job: unsafe { T::from_word(w) }, left: 1 });
            }
            l.push_deque(c, Item { job, left: tasks.max(1) });
        })
        .1
    }

    /// Owner: take `job` back if it is still the newest task of the lane.
    #[inline]
    pub(crate) fn take_back(&self, me: usize, c: &impl Rules, job: T) -> bool {
        let cell = &self.lanes[me];
        let w = job.to_word();
        match cell.slot.load(Ordering::Relaxed) {
            0 => self.take_back_queued(me, c, job),
            s if s == w => cell.slot.compare_exchange(w, 0, Ordering::Acquire, Ordering::Relaxed).is_ok(),
            _ => false,
        }
    }

    /// `take_back` with an empty buffer: the deque's or software queue's newest.
    #[cold]
    #[inline(never)]
    fn take_back_queued(&self, me: usize, c: &impl Rules, job: T) -> bool {
        let one = Item { job, left: 1 };
        self.with(me, c, |l| {
            if l.deque.back() == Some(&one) {
                l.deque.pop_back();
                l.tasks -= 1;
            } else if l.deque.is_empty() && l.software.back() == Some(&one) {
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
    #[inline]
    pub(crate) fn pop_newest(&self, me: usize, c: &impl Rules) -> Option<T> {
        let cell = &self.lanes[me];
        if cell.slot.load(Ordering::Relaxed) != 0 {
            let w = cell.slot.swap(0, Ordering::Acquire);
            if w != 0 {
                // SAFETY: stored by `to_word`, and out of the slot now.
                return Some(unsafe { T::from_word(w) });
            }
        }
        // Only the owner adds entries, so none held now means none.
        if cell.held.load(Ordering::Acquire) == 0 {
            return None;
        }
        self.with(me, c, |l| l.pop_back()).0
    }

    /// Steal from the nearest lane with something visible: the victim's
    /// oldest entries, oldest first; or, with `prefetch-steal=yes`, the task
    /// in the buffer of a victim whose deque is empty.
    pub(crate) fn steal(&self, me: usize, c: &impl Rules) -> Vec<Item<T>> {
        let n = self.lanes.len();
        for v in c.victims(me, n) {
            let cell = &self.lanes[v];
            if cell.visible.load(Ordering::Acquire) > 0 {
                let (got, _) = self.with(v, c, |l| l.steal(c));
                if !got.is_empty() {
                    return got;
                }
            }
            if c.buffer_stealable(0) && cell.slot.load(Ordering::Relaxed) != 0 && cell.visible.load(Ordering::Acquire) == 0 {
                let w = cell.slot.swap(0, Ordering::Acquire);
                if w != 0 {
                    // SAFETY: stored by `to_word`, and out of the slot now.
                    return vec![Item { job: unsafe { T::from_word(w) }, left: 1 }];
                }
            }
        }
        Vec::new()
    }

    /// Owner: put stolen entries (oldest first) into the own deque.
    pub(crate) fn keep(&self, me: usize, c: &impl Rules, items: impl Iterator<Item = Item<T>>) -> bool {
        self.with(me, c, |l| {
            for it in items {
                l.push_deque(c, it);
            }
        })
        .1
    }

    /// Owner: fill an empty prefetch buffer with `job`.
    pub(crate) fn buffer(&self, me: usize, c: &impl Rules, job: T) -> bool {
        self.enqueue(me, c, job)
    }

    /// Owner: is its buffer empty?
    pub(crate) fn buffer_empty(&self, me: usize) -> bool {
        self.lanes[me].slot.load(Ordering::Relaxed) == 0
    }

    /// Owner, prefetch request: one task of its deque's newest entry, if any.
    pub(crate) fn own_newest_queued(&self, me: usize, c: &impl Rules) -> Option<T> {
        if self.lanes[me].visible.load(Ordering::Acquire) == 0 {
            return None;
        }
        self.with(me, c, |l| if l.deque.is_empty() { None } else { l.pop_back() }).0
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use crate::sync::{thread, Arc};

    impl Word for u32 {
        fn to_word(self) -> usize {
            self as usize
        }
        unsafe fn from_word(w: usize) -> u32 {
            w as u32
        }
    }

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
            let g = Arc::new(Gtu::<u32>::new(2, true));
            g.enqueue(0, &c, 1);
            let t = {
                let g = g.clone();
                thread::spawn(move || {
                    let got = g.steal(1, &c);
                    let n: usize = got.iter().map(|i| i.left).sum();
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

    /// A loop entry of three tasks behind a buffered task, against a thief
    /// that splits it: the loop's job is handed out exactly three times and
    /// the plain task once.
    #[test]
    fn loop_entry_split_by_a_thief() {
        crate::loom_model::model(Some(3), || {
            let c = Tiny;
            let g = Arc::new(Gtu::<u32>::new(2, true));
            g.enqueue(0, &c, 1);
            g.enqueue_loop(0, &c, 7, 3);
            let t = {
                let g = g.clone();
                thread::spawn(move || {
                    let got = g.steal(1, &c);
                    g.keep(1, &c, got.into_iter());
                    let mut mine = Vec::new();
                    while let Some(j) = g.pop_newest(1, &c) {
                        mine.push(j);
                    }
                    mine
                })
            };
            let mut all = Vec::new();
            while let Some(j) = g.pop_newest(0, &c) {
                all.push(j);
            }
            all.extend(t.join().unwrap());
            all.sort();
            assert_eq!(all, vec![1, 7, 7, 7]);
            assert!(!g.has_work());
        });
    }
}
