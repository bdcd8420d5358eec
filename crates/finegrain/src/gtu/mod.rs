//! Carbon's global task unit without a chip-wide lock (Kumar, Hughes, Nguyen,
//! "Carbon", ISCA 2007, sections 4.2 and 4.3.1).
//!
//! ## Design note
//!
//! The GTU is one *lane* per worker. A lane holds, oldest to newest, the
//! worker's software queue (entries a TQ Overflow moved out), its bounded
//! hardware deque (a ring), and its one-entry prefetch buffer (the LTU's).
//!
//! **One request at a time.** Each lane has a lock, the lane's request port:
//! a thief holds it for its whole steal, so a deque serves one steal at a
//! time, as each hardware queue serves one request per cycle. No operation
//! ever holds two lane locks, so there is no chip-wide serialisation and no
//! lock order to get wrong: a steal takes entries out of the victim's lane
//! under the victim's lock, drops it, and only then puts the extra entries
//! into its own lane.
//!
//! **The owner's end without the lock.** The owner pushes and pops plain
//! tasks at the deque's newest end without the lock, by the THE protocol of
//! Cilk-5 (Frigo, Leiserson, Randall, "The Implementation of the Cilk-5
//! Multithreaded Language", PLDI 1998, section 5): the owner moves `tail`
//! and then reads `head`; a thief, holding the lock, moves `head` and then
//! reads `tail`; each has a sequentially consistent fence between its store
//! and its load, so at least one of the two sees the other's claim when they
//! reach for the same entry, and whoever sees a conflict withdraws its claim
//! (the owner then retries under the lock, where no thief can be). A claimed
//! entry is read only after the claim succeeded. Everything else the owner
//! does takes the lock: an overflow (a full deque's oldest third moves to
//! the software queue), a loop entry (below), the software queue, and a pop
//! that met a thief. So the hot path of a `join` takes no lock: in a
//! recursion the push spills the parent's buffered task to the deque, and
//! the parent's take-back pops it again, both without the lock.
//!
//! The ring is four times the deque's capacity (rounded up to a power of
//! two), so an entry a thief has claimed but not yet read, or an underflow is
//! writing below `head`, is never the one the owner's push writes: the owner
//! writes at `tail` only while `tail - head` (as it last saw `head`) is
//! below the capacity, and a claim or a refill moves `head` by at most the
//! capacity.
//!
//! **The prefetch buffer** is the core's own register in the hardware
//! (section 4.4), reached without the GTU: here it is the lane's `slot`, one
//! atomic word (0 when empty). Only the owner fills it, with a plain store
//! when it is empty (nobody else can fill it meanwhile) or a swap when it is
//! full, whose old task goes to the deque (the paper's "the oldest task in
//! the buffer is sent to the global task unit"). It is emptied by the owner
//! (a compare-exchange of the exact task at the end of a `join`, a swap on
//! dequeue) or, with `prefetch-steal=yes`, by a thief's swap once the
//! victim's deque looked empty. Each of these is one atomic read-modify-write
//! on one word, so a buffered task leaves the slot exactly once.
//!
//! **Loop entries.** A deque entry is a task or a TQ_ENQUEUE_LOOP descriptor
//! ([`Item`]): one entry that hands out `left` tasks, one per dequeue, and
//! that a steal splits, the thief taking half of what is left as an entry of
//! its own (`loops.rs` holds the descriptor and the claiming of chunks).
//! Loop entries are created, popped and split only under the lock; the
//! owner's lock-free pop that claims one withdraws and takes the lock.
//!
//! **Overflow and underflow at any access.** Every access under the lock, by
//! the owner or by a thief, ends by checking the lane's underflow condition
//! (`policy::carbon`), so a thief that drains a deque below the TQ_SETLIMIT
//! threshold refills it from the owner's software queue at once, while the
//! owner is busy; the refill writes the entries below `head` and then moves
//! `head` down, so the owner's pop, which reads `head` after its fence, sees
//! them or sees a conflict. An overflow happens at the owner's push to a full
//! deque.
//!
//! **What thieves see.** `tail - head` entries plus `extra` (the tasks loop
//! entries hand out beyond one each, written under the lock) is what thieves
//! may take and what the GTU counts when it accepts or rejects a prefetch; the
//! owner reads `sw` (the software queue's length, written under the lock) to
//! skip the lock when it has nothing there. A push that makes a lane's work
//! visible from none (a task into an empty slot of a lane with an empty
//! deque, or a deque going from empty to not, as the owner last saw it)
//! announces new work to the sleep protocol, which a worker about to park
//! re-checks after announcing itself (`sleep/README.md`).
//!
//! The lanes are generic over the task (`unit/` stores job pointers) and
//! over [`Rules`], which `policy::carbon::Carbon` implements, so the loom
//! models below check this very code without the policy layer.
//!
//! No task is lost or run twice: a task is in exactly one of a lane's three
//! parts or in the hands of exactly one worker; it moves between the software
//! queue and the deque only under the lane lock, leaves the deque only by a
//! claim that did not conflict (or under the lock), and enters or leaves the
//! slot only by one atomic operation on it.

#[cfg(all(feature = "runtime", not(loom)))]
pub(crate) mod loops;

use crate::sync::{fence, lock, AtomicIsize, AtomicUsize, Mutex, Ordering};
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
        crate::job::JobRef::to_word(self)
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

/// One ring entry: an [`Item`] as two words, atomics so that a thief's read
/// of an entry it claimed and the owner's write of another never race.
struct Entry {
    job: AtomicUsize,
    left: AtomicUsize,
}

/// The owner's lock-free pop: a plain task, nothing anywhere in the lane, or
/// "take the lock" (a loop entry, the software queue, a thief in the way, or
/// not the task asked for).
enum Pop<T> {
    Got(T),
    Empty,
    Locked,
}

/// One worker's lane: software queue, deque ring, prefetch buffer.
pub(crate) struct LaneCell<T> {
    /// The software queue (oldest first), and the lane's request lock: a
    /// thief holds it for its whole steal, the owner for everything but its
    /// lock-free push and pop of plain tasks.
    software: Mutex<VecDeque<Item<T>>>,
    ring: Box<[Entry]>,
    mask: isize,
    /// Oldest deque entry; written only under the lock.
    head: AtomicIsize,
    /// One past the newest deque entry; written only by the owner.
    tail: AtomicIsize,
    /// Tasks loop entries in the deque hand out beyond one each; written
    /// only under the lock.
    extra: AtomicUsize,
    /// Entries in the software queue; written only under the lock.
    sw: AtomicUsize,
    /// The prefetch buffer: a task's word, 0 when empty.
    slot: AtomicUsize,
}

/// The global task unit: one lane per worker.
pub(crate) struct Gtu<T> {
    lanes: Box<[CachePadded<LaneCell<T>>]>,
    /// Do idle workers count buffered tasks as work (`prefetch-steal=yes`)?
    buffer_visible: bool,
}

impl<T: Word> LaneCell<T> {
    fn new(capacity: usize) -> LaneCell<T> {
        let size = (4 * capacity.max(1)).next_power_of_two();
        LaneCell {
            software: Mutex::new(VecDeque::new()),
            ring: (0..size).map(|_| Entry { job: AtomicUsize::new(0), left: AtomicUsize::new(0) }).collect(),
            mask: size as isize - 1,
            head: AtomicIsize::new(0),
            tail: AtomicIsize::new(0),
            extra: AtomicUsize::new(0),
            sw: AtomicUsize::new(0),
            slot: AtomicUsize::new(0),
        }
    }

    #[inline(always)]
    fn at(&self, i: isize) -> &Entry {
        // SAFETY: `mask` is the ring's length minus one (a power of two), so
        // the index is in bounds.
        unsafe { self.ring.get_unchecked((i & self.mask) as usize) }
    }

    #[inline(always)]
    fn write(&self, i: isize, it: Item<T>) {
        let e = self.at(i);
        e.job.store(it.job.to_word(), Ordering::Relaxed);
        e.left.store(it.left, Ordering::Relaxed);
    }

    /// # Safety
    /// Entry `i` holds an item (it is between `head` and `tail`, claimed or
    /// under the lock).
    #[inline(always)]
    unsafe fn read(&self, i: isize) -> Item<T> {
        let e = self.at(i);
        // SAFETY: the caller's contract: the word was written by `write`.
        Item { job: unsafe { T::from_word(e.job.load(Ordering::Relaxed)) }, left: e.left.load(Ordering::Relaxed) }
    }

    /// Tasks thieves may take from the deque (a look without the lock).
    fn tasks(&self) -> usize {
        let n = self.tail.load(Ordering::Acquire) - self.head.load(Ordering::Acquire);
        n.max(0) as usize + self.extra.load(Ordering::Acquire)
    }

    /// Add `d` (may be negative) to `extra`; under the lock.
    fn add_extra(&self, d: isize) {
        let e = self.extra.load(Ordering::Relaxed) as isize + d;
        self.extra.store(e as usize, Ordering::Release);
    }

    /// Owner, no lock: push a plain task at the newest end, or overflow
    /// under the lock if the deque looks full. Returns whether the deque
    /// looked empty before.
    #[inline(always)]
    fn push_plain(&self, c: &impl Rules, job: T) -> bool {
        let t = self.tail.load(Ordering::Relaxed);
        let h = self.head.load(Ordering::Acquire);
        if t - h >= c.capacity() as isize {
            return self.push_locked(c, Item { job, left: 1 });
        }
        self.write(t, Item { job, left: 1 });
        // Release: whoever reads this `tail` (or a later one) sees the entry.
        self.tail.store(t + 1, Ordering::Release);
        h >= t
    }

    /// Owner, under the lock: push an entry, overflowing first if full.
    /// Returns whether the deque had no task before and has some now.
    #[cold]
    #[inline(never)]
    fn push_locked(&self, c: &impl Rules, it: Item<T>) -> bool {
        let mut sw = lock(&self.software);
        let before = self.tasks();
        self.push_owner_locked(c, &mut sw, it);
        self.settle(c, &mut sw);
        before == 0 && self.tasks() > 0
    }

    /// Owner, holding the lock (so nobody else moves `head` or `tail`).
    fn push_owner_locked(&self, c: &impl Rules, sw: &mut VecDeque<Item<T>>, it: Item<T>) {
        let h = self.head.load(Ordering::Relaxed);
        let t = self.tail.load(Ordering::Relaxed);
        let mut h2 = h;
        if t - h >= c.capacity() as isize {
            // TQ Overflow: the oldest entries move to the software queue.
            for _ in 0..c.overflow_count((t - h) as usize) {
                // SAFETY: between head and tail, under the lock.
                let o = unsafe { self.read(h2) };
                self.add_extra(1 - o.left as isize);
                sw.push_back(o);
                h2 += 1;
            }
            self.head.store(h2, Ordering::Release);
        }
        self.write(t, it);
        self.add_extra(it.left as isize - 1);
        self.tail.store(t + 1, Ordering::Release);
    }

    /// Owner, no lock: claim the newest deque entry if it is a plain task
    /// (and, with `want`, that task).
    #[inline(always)]
    fn pop_plain(&self, want: Option<T>) -> Pop<T> {
        let t = self.tail.load(Ordering::Relaxed);
        // `sw` before `head`: a refill moves `head` before it lowers `sw`.
        let s = self.sw.load(Ordering::Acquire);
        if t <= self.head.load(Ordering::Acquire) {
            return if s == 0 { Pop::Empty } else { Pop::Locked };
        }
        self.tail.store(t - 1, Ordering::Release);
        fence(Ordering::SeqCst);
        if self.head.load(Ordering::Acquire) <= t - 1 {
            // Claimed: no thief can take entry t - 1 now.
            // SAFETY: between head and tail, and claimed.
            let it = unsafe { self.read(t - 1) };
            if it.left == 1 && want.is_none_or(|w| w == it.job) {
                return Pop::Got(it.job);
            }
        }
        // A thief in the way, a loop entry, or another task: put it back.
        self.tail.store(t, Ordering::Release);
        Pop::Locked
    }

    /// Owner, under the lock: the newest task of the deque, else (unless
    /// `deque_only`) of the software queue; one task of a loop entry.
    #[cold]
    #[inline(never)]
    fn pop_locked(&self, c: &impl Rules, deque_only: bool) -> Option<T> {
        let mut sw = lock(&self.software);
        let h = self.head.load(Ordering::Relaxed);
        let t = self.tail.load(Ordering::Relaxed);
        let job = if t > h {
            let e = self.at(t - 1);
            // SAFETY: between head and tail, under the lock.
            let it = unsafe { self.read(t - 1) };
            if it.left > 1 {
                e.left.store(it.left - 1, Ordering::Relaxed);
                self.add_extra(-1);
            } else {
                self.tail.store(t - 1, Ordering::Release);
            }
            Some(it.job)
        } else if deque_only {
            None
        } else {
            let back = sw.back_mut()?;
            let job = back.job;
            if back.left > 1 {
                back.left -= 1;
            } else {
                sw.pop_back();
            }
            Some(job)
        };
        self.settle(c, &mut sw);
        job
    }

    /// Owner, under the lock: take `job` back if it is the newest task.
    #[cold]
    #[inline(never)]
    fn take_back_locked(&self, c: &impl Rules, job: T) -> bool {
        let mut sw = lock(&self.software);
        let h = self.head.load(Ordering::Relaxed);
        let t = self.tail.load(Ordering::Relaxed);
        let one = Item { job, left: 1 };
        let got = if t > h {
            // SAFETY: between head and tail, under the lock.
            let taken = unsafe { self.read(t - 1) } == one;
            if taken {
                self.tail.store(t - 1, Ordering::Release);
            }
            taken
        } else if sw.back() == Some(&one) {
            sw.pop_back();
            true
        } else {
            false
        };
        self.settle(c, &mut sw);
        got
    }

    /// Thief, under the lock: up to `steal_count` of the deque's oldest
    /// entries, oldest first; a loop entry at the front is split instead,
    /// the thief taking half the tasks it has left, rounded up (the lazy
    /// expansion of TQ_ENQUEUE_LOOP: the entry stays one entry on both
    /// sides).
    fn steal_locked(&self, c: &impl Rules) -> Vec<Item<T>> {
        let mut sw = lock(&self.software);
        // The owner's lock-free pop may have emptied the deque with tasks
        // left in the software queue: refill first (an access under the
        // lock, as every other one ends with this check).
        self.settle(c, &mut sw);
        let h = self.head.load(Ordering::Relaxed);
        let mut t = self.tail.load(Ordering::Acquire);
        let got = loop {
            if t <= h {
                break Vec::new();
            }
            let k = c.steal_count((t - h) as usize).max(1) as isize;
            self.head.store(h + k, Ordering::Release);
            fence(Ordering::SeqCst);
            let t2 = self.tail.load(Ordering::Acquire);
            if h + k > t2 {
                // The owner is popping into the claim: withdraw, and try
                // again with what it leaves.
                self.head.store(h, Ordering::Release);
                t = t2;
                continue;
            }
            // SAFETY: claimed, so between head and tail and ours.
            let front = unsafe { self.read(h) };
            if front.left > 1 {
                let k = front.left.div_ceil(2);
                self.at(h).left.store(front.left - k, Ordering::Relaxed);
                self.add_extra(-(k as isize));
                // The entry stays: give back the whole claim.
                self.head.store(h, Ordering::Release);
                break vec![Item { job: front.job, left: k }];
            }
            // SAFETY: as above, for the whole claim.
            let got: Vec<Item<T>> = (h..h + k).map(|i| unsafe { self.read(i) }).collect();
            self.add_extra(-got.iter().map(|i| i.left as isize - 1).sum::<isize>());
            break got;
        };
        self.settle(c, &mut sw);
        got
    }

    /// The end of every access under the lock: TQ Underflow, if the
    /// overflow bit is set and the deque fell below the limit. The entries
    /// are written below `head` before `head` moves down to them, so the
    /// owner's concurrent pop sees them or a conflict.
    fn settle(&self, c: &impl Rules, sw: &mut VecDeque<Item<T>>) {
        if sw.is_empty() {
            self.sw.store(0, Ordering::Release);
            return;
        }
        let h = self.head.load(Ordering::Relaxed);
        let len = (self.tail.load(Ordering::Acquire) - h).max(0) as usize;
        if c.underflows(len, sw.len()) {
            let mut h2 = h;
            for _ in 0..c.refill_count(len, sw.len()) {
                let Some(j) = sw.pop_back() else { break };
                h2 -= 1;
                self.write(h2, j);
                self.add_extra(j.left as isize - 1);
            }
            self.head.store(h2, Ordering::Release);
        }
        self.sw.store(sw.len(), Ordering::Release);
    }
}

#[cfg_attr(loom, allow(dead_code))] // the model drives only part of the API
impl<T: Word> Gtu<T> {
    /// `capacity`: entries per deque; `buffer_visible`: may thieves take
    /// buffered tasks (`prefetch-steal`)?
    pub(crate) fn new(n: usize, capacity: usize, buffer_visible: bool) -> Gtu<T> {
        Gtu { lanes: (0..n).map(|_| CachePadded::new(LaneCell::new(capacity))).collect(), buffer_visible }
    }

    /// Worker `me`'s lane.
    #[inline(always)]
    fn lane(&self, me: usize) -> &LaneCell<T> {
        debug_assert!(me < self.lanes.len());
        // SAFETY: workers are numbered below the lane count, which is the
        // pool's worker count (`unit::Shared::new`).
        unsafe { self.lanes.get_unchecked(me) }
    }

    /// Is any task in the GTU that an idle worker could take?
    pub(crate) fn has_work(&self) -> bool {
        self.lanes.iter().any(|l| l.tasks() > 0 || l.sw.load(Ordering::Acquire) > 0 || (self.buffer_visible && l.slot.load(Ordering::Acquire) != 0))
    }

    /// Tasks in the hardware deques (what a prefetch request is judged by).
    pub(crate) fn queued(&self) -> usize {
        self.lanes.iter().map(|l| l.tasks()).sum()
    }

    /// Owner: TQ_ENQUEUE. The task goes to the prefetch buffer; the buffer's
    /// previous task (or the task, with no buffer) goes to the deque.
    /// Returns whether the lane had nothing a thief could take before.
    #[inline(always)]
    pub(crate) fn enqueue(&self, me: usize, c: &impl Rules, job: T) -> bool {
        let cell = self.lane(me);
        if !c.buffered() {
            return cell.push_plain(c, job);
        }
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
            return self.buffer_visible && cell.tasks() == 0;
        }
        // SAFETY: `old` was stored by `to_word` and has left the slot here.
        cell.push_plain(c, unsafe { T::from_word(old) })
    }

    /// Owner: TQ_ENQUEUE_LOOP: a loop entry handing out `tasks` tasks of
    /// `job` goes straight to the deque, not the buffer (Carbon, section
    /// 4.3.1). A buffered task goes to the deque first, so the lane stays one
    /// stack, oldest to newest.
    pub(crate) fn enqueue_loop(&self, me: usize, c: &impl Rules, job: T, tasks: usize) -> bool {
        let cell = self.lane(me);
        let mut sw = lock(&cell.software);
        let before = cell.tasks();
        let w = cell.slot.swap(0, Ordering::Acquire);
        if w != 0 {
            // SAFETY: stored by `to_word`, and out of the slot now.
            cell.push_owner_locked(c, &mut sw, Item { job: unsafe { T::from_word(w) }, left: 1 });
        }
        cell.push_owner_locked(c, &mut sw, Item { job, left: tasks.max(1) });
        cell.settle(c, &mut sw);
        before == 0 && cell.tasks() > 0
    }

    /// Owner: take `job` back if it is still the newest task of the lane.
    #[inline(always)]
    pub(crate) fn take_back(&self, me: usize, c: &impl Rules, job: T) -> bool {
        let cell = self.lane(me);
        let w = job.to_word();
        match cell.slot.load(Ordering::Relaxed) {
            0 => match cell.pop_plain(Some(job)) {
                Pop::Got(_) => true,
                Pop::Empty => false,
                Pop::Locked => cell.take_back_locked(c, job),
            },
            s if s == w => cell.slot.compare_exchange(w, 0, Ordering::Acquire, Ordering::Relaxed).is_ok(),
            _ => false,
        }
    }

    /// Owner: its newest task (TQ_DEQUEUE on its own lane, or a `join`
    /// running what is left above its second closure).
    #[inline]
    pub(crate) fn pop_newest(&self, me: usize, c: &impl Rules) -> Option<T> {
        let cell = self.lane(me);
        if cell.slot.load(Ordering::Relaxed) != 0 {
            let w = cell.slot.swap(0, Ordering::Acquire);
            if w != 0 {
                // SAFETY: stored by `to_word`, and out of the slot now.
                return Some(unsafe { T::from_word(w) });
            }
        }
        match cell.pop_plain(None) {
            Pop::Got(j) => Some(j),
            Pop::Empty => None,
            Pop::Locked => cell.pop_locked(c, false),
        }
    }

    /// Steal from the nearest lane with something visible: the victim's
    /// oldest entries, oldest first; or, with `prefetch-steal=yes`, the task
    /// in the buffer of a victim whose deque is empty.
    pub(crate) fn steal(&self, me: usize, c: &impl Rules) -> Vec<Item<T>> {
        let n = self.lanes.len();
        for v in c.victims(me, n) {
            let cell = &self.lanes[v];
            if cell.tasks() > 0 || cell.sw.load(Ordering::Acquire) > 0 {
                let got = cell.steal_locked(c);
                if !got.is_empty() {
                    return got;
                }
            }
            if c.buffer_stealable(0) && cell.slot.load(Ordering::Relaxed) != 0 && cell.tasks() == 0 {
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
        let cell = self.lane(me);
        let mut sw = lock(&cell.software);
        let before = cell.tasks();
        for it in items {
            cell.push_owner_locked(c, &mut sw, it);
        }
        cell.settle(c, &mut sw);
        before == 0 && cell.tasks() > 0
    }

    /// Owner: fill an empty prefetch buffer with `job`.
    pub(crate) fn buffer(&self, me: usize, c: &impl Rules, job: T) -> bool {
        self.enqueue(me, c, job)
    }

    /// Owner: is its buffer empty?
    pub(crate) fn buffer_empty(&self, me: usize) -> bool {
        self.lane(me).slot.load(Ordering::Relaxed) == 0
    }

    /// Owner, prefetch request: one task of its deque's newest entry, if any.
    pub(crate) fn own_newest_queued(&self, me: usize, c: &impl Rules) -> Option<T> {
        let cell = self.lane(me);
        match cell.pop_plain(None) {
            Pop::Got(j) => Some(j),
            Pop::Empty => None,
            Pop::Locked => cell.pop_locked(c, true),
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests;
