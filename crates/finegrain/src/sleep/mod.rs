//! Parking and waking idle workers. The protocol and its proof sketch are in
//! `README.md` next to this file.

#[cfg(all(test, loom))]
mod loom_tests;

use crate::sync::{full_fence, lock, AtomicBool, AtomicUsize, Mutex, Ordering, Signal};
use crossbeam_utils::CachePadded;

/// The states of a latch a worker may sleep on (`latch/`, and a `join`'s job
/// header): unset, its waiter announced it is about to park, set.
pub(crate) const UNSET: usize = 0;
pub(crate) const SLEEPING: usize = 1;
pub(crate) const SET: usize = 2;

pub(crate) struct Sleep {
    num_sleeping: CachePadded<AtomicUsize>,
    /// Per worker: announced sleep and not yet deregistered (for message senders).
    sleeping: Box<[CachePadded<AtomicBool>]>,
    idle: Mutex<Vec<usize>>,
    parkers: Box<[CachePadded<Signal>]>,
    /// The worker keeping the watch (`policy::idle::watch_interval_us`), or `NO_WATCHER`.
    watcher: CachePadded<AtomicUsize>,
}

const NO_WATCHER: usize = usize::MAX;

impl Sleep {
    pub(crate) fn new(n: usize) -> Self {
        Sleep {
            num_sleeping: CachePadded::new(AtomicUsize::new(0)),
            sleeping: (0..n).map(|_| CachePadded::new(AtomicBool::new(false))).collect(),
            idle: Mutex::new(Vec::with_capacity(n)),
            parkers: (0..n).map(|_| CachePadded::new(Signal::new())).collect(),
            watcher: CachePadded::new(AtomicUsize::new(NO_WATCHER)),
        }
    }

    /// Announce sleep, re-check `has_work`, and park unless work or the latch
    /// turned up. Returns after any wake; the caller scans for work again.
    #[cold]
    #[cfg_attr(not(loom), allow(dead_code))]
    pub(crate) fn sleep(&self, me: usize, latch: Option<&AtomicUsize>, has_work: impl Fn() -> bool) {
        self.sleep_for(me, latch, None, None, has_work);
    }

    /// [`sleep`](Sleep::sleep), returning after `timeout` at the latest.
    /// `watch`: with no timeout of its own, the sleeper may keep the pool's
    /// watch if nobody else does: it parks for the interval `watch(misses,
    /// sleepers, workers)` gives (`policy::idle::watch_interval_us`; `None`:
    /// no watch), and each time it expires looks at `has_work` and parks
    /// again unless it finds some, `misses` counting the watches that found
    /// nothing. Returns whether it kept the watch.
    #[cold]
    pub(crate) fn sleep_for(
        &self,
        me: usize,
        latch: Option<&AtomicUsize>,
        timeout: Option<std::time::Duration>,
        watch: Option<&dyn Fn(u32, usize, usize) -> Option<u64>>,
        has_work: impl Fn() -> bool,
    ) -> bool {
        let sleepers = {
            let mut idle = lock(&self.idle);
            idle.push(me);
            self.num_sleeping.store(idle.len(), Ordering::SeqCst);
            self.sleeping[me].store(true, Ordering::SeqCst);
            idle.len()
        };
        let n = self.parkers.len();
        let mut watching = match (timeout, watch) {
            (None, Some(interval)) => {
                interval(0, sleepers, n).filter(|_| self.watcher.compare_exchange(NO_WATCHER, me, Ordering::SeqCst, Ordering::Relaxed).is_ok())
            }
            _ => None,
        };
        let watched = watching.is_some();
        full_fence();
        let mut park = !has_work();
        if park {
            if let Some(l) = latch {
                park = l.compare_exchange(UNSET, SLEEPING, Ordering::AcqRel, Ordering::Acquire).is_ok();
            }
        }
        if park {
            let mut misses = 0;
            loop {
                match timeout.or(watching.map(std::time::Duration::from_micros)) {
                    None => self.parkers[me].wait(true),
                    Some(t) => {
                        if self.parkers[me].wait_timeout(true, t) || timeout.is_some() || has_work() {
                            break;
                        }
                        // The watch found nothing: keep it, longer, while
                        // some worker is awake; else give it up and park.
                        misses += 1;
                        watching = watch.and_then(|interval| interval(misses, self.num_sleeping.load(Ordering::SeqCst), n));
                        if watching.is_none() {
                            self.watcher.store(NO_WATCHER, Ordering::SeqCst);
                        }
                        continue;
                    }
                }
                break;
            }
            if let Some(l) = latch {
                let _ = l.compare_exchange(SLEEPING, UNSET, Ordering::AcqRel, Ordering::Acquire);
            }
        }
        if watching.is_some() {
            self.watcher.store(NO_WATCHER, Ordering::SeqCst);
        }
        self.deregister(me);
        watched
    }

    fn deregister(&self, me: usize) {
        let mut idle = lock(&self.idle);
        self.sleeping[me].store(false, Ordering::SeqCst);
        if let Some(pos) = idle.iter().position(|&i| i == me) {
            idle.swap_remove(pos);
            self.num_sleeping.store(idle.len(), Ordering::SeqCst);
        }
    }

    /// Called after making work visible that a sleeping worker could take.
    #[inline]
    pub(crate) fn notify_new_work(&self) {
        full_fence();
        if self.num_sleeping.load(Ordering::Relaxed) > 0 {
            self.wake_one();
        }
    }

    #[cold]
    fn wake_one(&self) {
        let picked = {
            let mut idle = lock(&self.idle);
            let p = idle.pop();
            if let Some(i) = p {
                self.sleeping[i].store(false, Ordering::SeqCst);
            }
            self.num_sleeping.store(idle.len(), Ordering::SeqCst);
            p
        };
        if let Some(i) = picked {
            self.parkers[i].raise(false);
        }
    }

    /// Does nobody keep the watch now (`policy::idle::watch_interval_us`)?
    #[inline]
    pub(crate) fn unwatched(&self) -> bool {
        self.watcher.load(Ordering::SeqCst) == NO_WATCHER
    }

    /// How many workers are asleep (a relaxed look).
    #[inline]
    pub(crate) fn sleeping(&self) -> usize {
        self.num_sleeping.load(Ordering::Relaxed)
    }

    /// Some worker other than `me` that is asleep right now, if any.
    pub(crate) fn a_sleeper_other_than(&self, me: usize) -> Option<usize> {
        if self.num_sleeping.load(Ordering::Relaxed) == 0 {
            return None;
        }
        lock(&self.idle).iter().copied().find(|&i| i != me)
    }

    /// After making a message visible to worker `i`: wake it if it is asleep.
    /// (Dekker pairing: the sender fences between publishing and this load; the
    /// sleeper fences between announcing and its final mailbox check.)
    #[inline]
    pub(crate) fn wake_if_sleeping(&self, i: usize) {
        full_fence();
        if self.sleeping[i].load(Ordering::Relaxed) {
            self.wake_specific(i);
        }
    }

    /// Set a latch that worker `owner` may be asleep on, waking it if so.
    ///
    /// # Safety
    /// `state` must be live until the swap; it is not touched afterwards (the
    /// owner may free it as soon as it observes `SET`).
    #[inline]
    pub(crate) unsafe fn set_latch(&self, state: *const AtomicUsize, owner: usize) {
        // SAFETY: caller's contract.
        if unsafe { (*state).swap(SET, Ordering::AcqRel) } == SLEEPING {
            self.wake_specific(owner);
        }
    }

    /// Wake worker `i` (whose latch was just set), whether or not it is listed.
    #[cold]
    pub(crate) fn wake_specific(&self, i: usize) {
        self.deregister(i);
        self.parkers[i].raise(false);
    }

    pub(crate) fn wake_all(&self) {
        {
            let mut idle = lock(&self.idle);
            idle.clear();
            self.num_sleeping.store(0, Ordering::SeqCst);
            for s in self.sleeping.iter() {
                s.store(false, Ordering::SeqCst);
            }
        }
        for p in self.parkers.iter() {
            p.raise(false);
        }
    }
}
