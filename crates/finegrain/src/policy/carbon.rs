//! `carbon`: the Carbon hardware task unit emulated in software (Kumar,
//! Hughes, Nguyen, "Carbon: Architectural Support for Fine-Grained Parallelism
//! on Chip Multiprocessors", ISCA 2007, section 4).
//!
//! A global task unit (GTU) holds one bounded LIFO deque per worker (default
//! 32 tasks), each serving one request at a time (here: one lock per deque,
//! `gtu/`; no chip-wide lock). Each worker has a local task unit (LTU) with a
//! one-entry prefetch buffer:
//! - **enqueue** puts the task into the buffer; if the buffer is full its
//!   oldest task goes to the worker's GTU deque (Carbon, section 4.3.1). When that
//!   deque is full, an overflow moves its oldest third to the worker's
//!   unbounded software queue (the TQ Overflow exception handler); below
//!   `limit` tasks (TQ_SETLIMIT; 0 clears the overflow bit) an underflow
//!   moves them back, checked at the end of every access, a thief's too;
//! - **dequeue** returns the buffered task if there is one, then prefetches the
//!   next; otherwise it asks the GTU: the worker's own deque (newest first),
//!   refilled from the software queue when it runs low (TQ Underflow), else a
//!   steal of half the tasks of the nearest non-empty deque;
//! - a **prefetch** is refused when the GTU holds fewer tasks than there are
//!   workers, so a task never sits in one buffer while another worker starves;
//! - the buffered task is invisible to the GTU in the hardware
//!   (`prefetch-steal=no`), so a task whose owner blocks can wait there
//!   forever; by default (`prefetch-steal=yes`) a thief may take it once the
//!   owner's deque is empty, so work queued by a blocked owner reaches idle
//!   workers within one steal attempt;
//! - **loops** (TQ_ENQUEUE_LOOP) expand lazily: a loop range splits only while
//!   the GTU holds fewer tasks than there are workers.
//!
//! This file holds the decisions; `unit/` carries them out.

use super::locality::steal::Stealing;
use super::{Idle, OptionInfo, Order, Policy, PolicyInfo, PolicyKind, Registration, Spec, UnitPolicy};
use crate::error::Error;

/// Carbon's parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Carbon {
    /// Capacity of each worker's deque in the GTU.
    pub deque: usize,
    /// Capacity of each LTU's prefetch buffer (0 or 1).
    pub prefetch: usize,
    /// TQ_SETLIMIT: underflow below this many tasks in a deque (0: never).
    pub limit: usize,
    /// May a thief take a buffered task (not in the hardware)?
    pub prefetch_steal: bool,
}

impl Carbon {
    /// How many of the oldest tasks an overflow moves out of a full deque of
    /// `len` tasks (Carbon, section 4.2: "e.g., a third of them").
    pub fn overflow_count(&self, len: usize) -> usize {
        (len / 3).max(1)
    }

    /// Below this many tasks in its GTU deque a worker with tasks in software
    /// refills the deque (the TQ_SETLIMIT threshold).
    pub fn underflow_threshold(&self) -> usize {
        self.limit
    }

    /// The default TQ_SETLIMIT for a deque of `deque` tasks: a quarter.
    pub fn default_limit(deque: usize) -> usize {
        (deque / 4).max(1)
    }

    /// TQ Underflow: the overflow bit is set (`sw_len > 0`) and the deque
    /// holds fewer than `limit` tasks.
    pub fn underflows(&self, len: usize, sw_len: usize) -> bool {
        sw_len > 0 && len < self.limit
    }

    /// May a thief take the buffered task, the deque holding `len`? Only
    /// with `prefetch-steal=yes`, and only once the deque is empty (the
    /// buffer holds the newest task).
    pub fn buffer_stealable(&self, len: usize) -> bool {
        self.prefetch_steal && len == 0
    }

    /// How many tasks an underflow moves back from a software queue holding
    /// `sw_len` into a deque holding `len`: up to half the deque's capacity.
    pub fn refill_count(&self, len: usize, sw_len: usize) -> usize {
        sw_len.min((self.deque / 2).saturating_sub(len).max(1))
    }

    /// May a prefetch take a task when the GTU holds `total` tasks?
    pub fn prefetch_allowed(&self, total: usize, workers: usize) -> bool {
        self.prefetch > 0 && total >= workers
    }

    /// Victims in nearest-neighbour order on the ring of workers: `me + 1`,
    /// `me - 1`, `me + 2`, ...
    pub fn victims(me: usize, n: usize) -> impl Iterator<Item = usize> {
        (1..n).map(move |k| {
            let d = k.div_ceil(2);
            if k % 2 == 1 {
                (me + d) % n
            } else {
                (me + n - d % n) % n
            }
        })
    }

    /// Tasks a steal takes from a deque of `len`: half, rounded up.
    pub fn steal_count(len: usize) -> usize {
        len.div_ceil(2)
    }

    /// Should a loop split its range now (lazy TQ_ENQUEUE_LOOP expansion)?
    pub fn loop_should_split(total: usize, workers: usize) -> bool {
        total < workers
    }
}

const OPTIONS: &[OptionInfo] = &[
    OptionInfo { name: "deque", values: "1..=65536", default: "32", help: "tasks per worker deque in the global task unit" },
    OptionInfo { name: "prefetch", values: "0..=1", default: "1", help: "tasks in each local task unit's prefetch buffer (0: no buffering)" },
    OptionInfo {
        name: "limit",
        values: "0..=65536",
        default: "8",
        help: "TQ_SETLIMIT: refill a deque from software below this many tasks (0: never; default a quarter of deque)",
    },
    OptionInfo {
        name: "prefetch-steal",
        values: "yes, no",
        default: "yes",
        help: "may idle workers take a buffered task (no: as the hardware, which can leave it stranded behind a blocked owner)",
    },
    OptionInfo { name: "spin", values: "0..=100000", default: "64", help: "idle rounds before yielding, then parking" },
];

pub(crate) static REGISTRATION: Registration = Registration {
    info: PolicyInfo {
        name: "carbon",
        summary: "Carbon's global task unit (bounded per-worker deques, one request at a time) and local prefetch buffers, in software",
        source: "Kumar, Hughes, Nguyen, Carbon: Architectural Support for Fine-Grained Parallelism on Chip Multiprocessors, ISCA 2007, section 4",
        options: OPTIONS,
    },
    build,
};

fn build(spec: &mut Spec<'_>) -> Result<Policy, Error> {
    let deque = spec.int("deque", 1, 65536, 32)?;
    let prefetch = spec.int("prefetch", 0, 1, 1)?;
    let limit = spec.int("limit", 0, deque, Carbon::default_limit(deque))?;
    let prefetch_steal = spec.choice("prefetch-steal", &["yes", "no"], "yes")? == "yes";
    let spin = spec.int("spin", 0, 100_000, 64)? as u32;
    Ok(Policy {
        name: "carbon",
        kind: PolicyKind::Unit(UnitPolicy::Carbon(Carbon { deque, prefetch, limit, prefetch_steal })),
        order: Order::Lifo,
        idle: Idle::with_spin(spin),
        space_steal: Stealing::Baseline,
    })
}

#[cfg(feature = "runtime")]
impl crate::gtu::Rules for Carbon {
    fn capacity(&self) -> usize {
        self.deque
    }
    fn buffered(&self) -> bool {
        self.prefetch > 0
    }
    fn overflow_count(&self, len: usize) -> usize {
        Carbon::overflow_count(self, len)
    }
    fn underflows(&self, len: usize, sw_len: usize) -> bool {
        Carbon::underflows(self, len, sw_len)
    }
    fn refill_count(&self, len: usize, sw_len: usize) -> usize {
        Carbon::refill_count(self, len, sw_len)
    }
    fn steal_count(&self, len: usize) -> usize {
        Carbon::steal_count(len)
    }
    fn buffer_stealable(&self, len: usize) -> bool {
        Carbon::buffer_stealable(self, len)
    }
    fn victims(&self, me: usize, n: usize) -> impl Iterator<Item = usize> {
        Carbon::victims(me, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_neighbours_alternate_sides() {
        assert_eq!(Carbon::victims(0, 5).collect::<Vec<_>>(), vec![1, 4, 2, 3]);
        assert_eq!(Carbon::victims(2, 4).collect::<Vec<_>>(), vec![3, 1, 0]);
        assert_eq!(Carbon::victims(0, 1).count(), 0);
        for n in 1..10 {
            for me in 0..n {
                let mut v: Vec<_> = Carbon::victims(me, n).collect();
                v.sort();
                v.dedup();
                assert_eq!(v.len(), n - 1, "every other worker once (n={n}, me={me})");
                assert!(!v.contains(&me));
            }
        }
    }

    #[test]
    fn thresholds() {
        let c = Carbon { deque: 32, prefetch: 1, limit: Carbon::default_limit(32), prefetch_steal: true };
        assert_eq!(c.overflow_count(32), 10);
        assert_eq!(c.underflow_threshold(), 8);
        assert_eq!(c.refill_count(3, 100), 13);
        assert_eq!(c.refill_count(3, 2), 2);
        assert!(!c.prefetch_allowed(3, 4) && c.prefetch_allowed(4, 4));
        assert_eq!(Carbon::steal_count(5), 3);
        assert_eq!(Carbon { deque: 1, prefetch: 0, limit: 1, prefetch_steal: false }.overflow_count(1), 1);
        assert!(c.underflows(7, 1) && !c.underflows(8, 1) && !c.underflows(0, 0));
        assert!(c.buffer_stealable(0) && !c.buffer_stealable(1));
        assert!(!Carbon { prefetch_steal: false, ..c }.buffer_stealable(0));
        assert!(!Carbon { limit: 0, ..c }.underflows(0, 5));
    }
}
