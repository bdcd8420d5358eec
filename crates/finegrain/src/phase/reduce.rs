//! Phase reductions: [`phase_reduce`](crate::phase_reduce) combines one value
//! per task of a dynamic phase. Two methods, chosen by `policy::reduce`
//! ([`ReduceMethod`](crate::ReduceMethod)):
//!
//! - **piggyback** (the default under `adm-central` and `adm-hier`): the
//!   partial results and the phase's termination both travel on the messages
//!   the managers exchange anyway; no shared counter, no shared slot. The
//!   protocol, its proof and its measured cost are in `adm/README.md`; the
//!   code in `adm/tokens.rs`.
//! - **tree** (the default under every other policy, here): X10-style
//!   termination (one shared counter, as [`phase`](crate::phase)) and one
//!   cache-padded partial per worker, combined through a radix-8 tree when the
//!   counter reaches zero.

use crate::job::unwind::{combine_caught, Combine, PanicSlot};
use crate::latch::WorkerLatch;
use crate::sync::{AtomicUsize, Ordering};
use crossbeam_utils::CachePadded;

/// A value that [`phase_reduce`](crate::phase_reduce) can combine: one machine
/// word, so that a partial result fits in one word of a message.
pub trait Word: Copy + Send + Sync + 'static {
    /// The value as a word (any encoding that [`Word::from_word`] undoes).
    fn to_word(self) -> usize;
    /// The value back from [`Word::to_word`].
    fn from_word(w: usize) -> Self;
}

macro_rules! int_word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            #[inline]
            fn to_word(self) -> usize {
                self as usize
            }
            #[inline]
            fn from_word(w: usize) -> Self {
                w as $t
            }
        }
    )*};
}
int_word!(u8, u16, u32, usize, i8, i16, i32, isize);
#[cfg(target_pointer_width = "64")]
int_word!(u64, i64);

impl Word for bool {
    #[inline]
    fn to_word(self) -> usize {
        self as usize
    }
    #[inline]
    fn from_word(w: usize) -> Self {
        w != 0
    }
}

impl Word for f32 {
    #[inline]
    fn to_word(self) -> usize {
        self.to_bits() as usize
    }
    #[inline]
    fn from_word(w: usize) -> Self {
        f32::from_bits(w as u32)
    }
}

#[cfg(target_pointer_width = "64")]
impl Word for f64 {
    #[inline]
    fn to_word(self) -> usize {
        self.to_bits() as usize
    }
    #[inline]
    fn from_word(w: usize) -> Self {
        f64::from_bits(w as u64)
    }
}

use crate::policy::reduce::TREE_RADIX;

/// End of a tree-reduced phase: X10-style counter (one unit for the caller's
/// setup plus one per task not yet finished) and one cache-padded partial per
/// worker, written only by that worker. The thread that takes the counter to
/// zero combines the partials in radix-8 tree order (the counter's
/// acquire-release decrements order every task's slot write before it), stores
/// the result and sets the latch the caller waits on.
pub(crate) struct TreeEnd<'f> {
    count: CachePadded<AtomicUsize>,
    slots: Box<[Slot]>,
    combine: Combine<'f>,
    result: AtomicUsize,
    pub(crate) panic: PanicSlot,
    pub(crate) latch: WorkerLatch,
}

/// One worker's partial, 128 bytes from the next one, so no two share a cache
/// line (or an adjacent-line prefetch pair). Padding rather than alignment:
/// an over-aligned allocation costs about a thousand instructions per phase in
/// glibc's `posix_memalign` (callgrind).
struct Slot {
    v: AtomicUsize,
    _pad: [usize; 15],
}

impl<'f> TreeEnd<'f> {
    pub(crate) fn new(workers: usize, combine: Combine<'f>, identity: usize, latch: WorkerLatch) -> Self {
        TreeEnd {
            count: CachePadded::new(AtomicUsize::new(1)),
            slots: (0..workers).map(|_| Slot { v: AtomicUsize::new(identity), _pad: [0; 15] }).collect(),
            combine,
            result: AtomicUsize::new(identity),
            panic: PanicSlot::new(),
            latch,
        }
    }

    #[inline]
    pub(crate) fn increment(&self) {
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    /// Worker `w` finished a task with `value`: fold it into `w`'s own slot.
    #[inline]
    pub(crate) fn add(&self, w: usize, value: usize) {
        let s = &self.slots[w].v;
        s.store(combine_caught(self.combine, &self.panic, s.load(Ordering::Relaxed), value), Ordering::Relaxed);
    }

    /// Release one unit; the last one combines and sets the latch.
    ///
    /// # Safety
    /// `this` is live until the count reaches zero; it may be freed right
    /// after the latch is set.
    pub(crate) unsafe fn decrement(this: *const Self) {
        // SAFETY: forwarded contract.
        unsafe { Self::decrement_by(this, 1) }
    }

    /// Release `n` units at once (a worker's tally, `latch/tally.rs`).
    ///
    /// # Safety
    /// As [`TreeEnd::decrement`], and the caller holds `n` units.
    pub(crate) unsafe fn decrement_by(this: *const Self, n: usize) {
        // SAFETY: live until the count reaches zero (caller's contract).
        let t = unsafe { &*this };
        if t.count.fetch_sub(n, Ordering::AcqRel) == n {
            t.result.store(t.reduce_tree(0, t.slots.len()), Ordering::Relaxed);
            // SAFETY: we took the count to zero; the caller waits for this latch.
            unsafe { WorkerLatch::set(&t.latch) };
        }
    }

    /// Combine slots `lo..hi`: up to `TREE_RADIX` leaves directly, else
    /// `TREE_RADIX` subtrees.
    fn reduce_tree(&self, lo: usize, hi: usize) -> usize {
        let leaf = |i: usize| self.slots[i].v.load(Ordering::Relaxed);
        if hi - lo <= TREE_RADIX {
            return (lo + 1..hi).fold(leaf(lo), |acc, i| combine_caught(self.combine, &self.panic, acc, leaf(i)));
        }
        let step = (hi - lo).div_ceil(TREE_RADIX);
        let mut acc = self.reduce_tree(lo, lo + step);
        let mut c = lo + step;
        while c < hi {
            let v = self.reduce_tree(c, (c + step).min(hi));
            acc = combine_caught(self.combine, &self.panic, acc, v);
            c += step;
        }
        acc
    }

    pub(crate) fn result(&self) -> usize {
        self.result.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        fn rt<T: Word + PartialEq + std::fmt::Debug>(v: T) {
            assert_eq!(T::from_word(v.to_word()), v);
        }
        rt(-5i32);
        rt(i8::MIN);
        rt(u16::MAX);
        rt(true);
        rt(-1.5f32);
        #[cfg(target_pointer_width = "64")]
        {
            rt(u64::MAX);
            rt(i64::MIN);
            rt(f64::NEG_INFINITY);
            rt(0.1f64);
        }
    }

    #[test]
    fn tree_order_covers_every_slot_once() {
        // Concatenation is associative but not commutative: the result shows
        // the order and that every slot is used exactly once.
        for n in [1, 2, 7, 8, 9, 63, 64, 65, 200] {
            let cat = |a: usize, b: usize| a * 1000 + b;
            let op: &(dyn Fn(usize, usize) -> usize + Sync) = &|a, b| if n <= 2 { cat(a, b) } else { a + b };
            let sleep = crate::sleep::Sleep::new(1);
            let t = TreeEnd::new(n, op, 0, WorkerLatch::new(&sleep, 0));
            for w in 0..n {
                t.add(w, w + 1);
            }
            // SAFETY: `t` outlives the call.
            unsafe { TreeEnd::decrement(&t) };
            let want = if n == 1 {
                1
            } else if n == 2 {
                1002
            } else {
                n * (n + 1) / 2
            };
            assert_eq!(t.result(), want, "n = {n}");
        }
    }
}
