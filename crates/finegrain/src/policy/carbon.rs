//! `carbon`: the Carbon hardware task unit emulated in software (Kumar,
//! Hughes, Nguyen, "Carbon: Architectural Support for Fine-Grained Parallelism
//! on Chip Multiprocessors", ISCA 2007, section 4).
//!
//! A global task unit (GTU) holds one bounded LIFO deque per worker (default
//! 32 tasks), each serving one request at a time (here: one lock per deque
//! that thieves hold, while the owner pushes and pops its end without it by
//! the THE protocol, `gtu/`; no chip-wide lock). Each worker has a local task unit (LTU) with a
//! one-entry prefetch buffer (here: one atomic word per worker, which its
//! owner reaches without the deque's lock):
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
//! - **loops** (TQ_ENQUEUE_LOOP, section 4.2): a loop over N iterations is
//!   one descriptor `<v1, v2, N, S>` in the enqueuer's deque (not its
//!   buffer, section 4.3.1) that the GTU expands lazily: each dequeue takes
//!   the next S iterations, a steal takes half the tasks the descriptor has
//!   left. S is the `grain` option, or with `grain=auto` chosen by
//!   [`Carbon::loop_task_size`]. `loops=split` keeps the library's lazy
//!   binary splitting instead (splitting only while the GTU holds fewer tasks
//!   than there are workers), to compare.
//!
//! `carbon-paper` is the hardware as the paper describes it, by name:
//! `prefetch-steal=no` (the rest of the defaults are the paper's already).
//!
//! This file holds the decisions; `unit/` carries them out.

use super::locality::steal::Stealing;
use super::{Idle, OptionInfo, Order, Policy, PolicyInfo, PolicyKind, Registration, Spec, UnitPolicy, SPIN};
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
    /// Loops as TQ_ENQUEUE_LOOP descriptors (`true`) or split in halves.
    pub loop_descriptor: bool,
    /// TQ_ENQUEUE_LOOP's S: iterations per task (0: `auto`).
    pub grain: usize,
    /// With `grain=auto`: tasks per worker a loop is cut into.
    pub loop_tasks: usize,
}

/// The default of `loop-tasks`: with `grain=auto`, a loop is cut into about
/// this many tasks per worker. Chosen from a sweep of `loop-tasks` on the
/// loop workloads of the default suite (`docs/policies.md`, carbon section).
pub const AUTO_TASKS_PER_WORKER: usize = 8;

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

    /// TQ_ENQUEUE_LOOP's S for a loop of `len` iterations whose body runs
    /// leaves of at most `leaf` iterations, on `workers` workers: `grain`
    /// rounded up to whole leaves, or with `grain=auto` enough leaves that
    /// the loop makes about `loop_tasks` tasks per worker (default
    /// [`AUTO_TASKS_PER_WORKER`]; at least one leaf a task). Returns (S in
    /// leaves, number of tasks).
    pub fn loop_task_size(&self, len: usize, leaf: usize, workers: usize) -> (usize, usize) {
        let leaf = leaf.max(1);
        let leaves = len.div_ceil(leaf);
        let per = if self.grain == 0 { leaves.div_ceil(workers.max(1) * self.loop_tasks.max(1)).max(1) } else { self.grain.div_ceil(leaf).max(1) };
        (per, leaves.div_ceil(per))
    }

    /// Should a loop split its range now (`loops=split`: lazy binary
    /// splitting in place of TQ_ENQUEUE_LOOP)?
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
        values: "yes | no",
        default: "yes",
        help: "may idle workers take a buffered task (no: as the hardware, which can leave it stranded behind a blocked owner)",
    },
    OptionInfo {
        name: "loops",
        values: "descriptor | split",
        default: "descriptor",
        help: "loops as one TQ_ENQUEUE_LOOP descriptor the unit expands lazily, or split lazily in halves",
    },
    OptionInfo { name: "grain", values: "auto | 1..", default: "auto", help: "TQ_ENQUEUE_LOOP's S: iterations per loop task (auto: see loop-tasks)" },
    OptionInfo { name: "loop-tasks", values: "1..=4096", default: "8", help: "with grain=auto: loop tasks per worker" },
    SPIN,
];

/// `carbon-paper`'s options: `carbon`'s with the hardware's buffer rule as
/// the default.
const PAPER_OPTIONS: &[OptionInfo] =
    &[OPTIONS[0], OPTIONS[1], OPTIONS[2], OptionInfo { default: "no", ..OPTIONS[3] }, OPTIONS[4], OPTIONS[5], OPTIONS[6], OPTIONS[7]];
const _: () = assert!(matches!(OPTIONS[3].name.as_bytes(), b"prefetch-steal") && OPTIONS.len() == 8);

pub(crate) static PAPER: Registration = Registration {
    info: PolicyInfo {
        name: "carbon-paper",
        summary: "carbon as the hardware: a prefetched task stays in its LTU, invisible to thieves",
        source:
            "Kumar, Hughes, Nguyen, Carbon: Architectural Support for Fine-Grained Parallelism on Chip Multiprocessors, ISCA 2007, sections 4.2-4.3",
        options: PAPER_OPTIONS,
    },
    build: |s| build_with(s, "carbon-paper", "no"),
    value,
};

pub(crate) static REGISTRATION: Registration = Registration {
    info: PolicyInfo {
        name: "carbon",
        summary: "Carbon's global task unit (bounded per-worker deques, one request at a time) and local prefetch buffers, in software",
        source: "Kumar, Hughes, Nguyen, Carbon: Architectural Support for Fine-Grained Parallelism on Chip Multiprocessors, ISCA 2007, section 4",
        options: OPTIONS,
    },
    build,
    value,
};

fn value(p: &Policy, option: &str) -> Option<String> {
    let PolicyKind::Unit(UnitPolicy::Carbon(c)) = p.kind else { return None };
    Some(match option {
        "deque" => c.deque.to_string(),
        "prefetch" => c.prefetch.to_string(),
        "limit" => c.limit.to_string(),
        "prefetch-steal" => (if c.prefetch_steal { "yes" } else { "no" }).to_string(),
        "loops" => (if c.loop_descriptor { "descriptor" } else { "split" }).to_string(),
        "grain" => {
            if c.grain == 0 {
                "auto".to_string()
            } else {
                c.grain.to_string()
            }
        }
        "loop-tasks" => c.loop_tasks.to_string(),
        _ => return p.common_value(option),
    })
}

fn build(spec: &mut Spec<'_>) -> Result<Policy, Error> {
    build_with(spec, "carbon", "yes")
}

fn build_with(spec: &mut Spec<'_>, name: &'static str, prefetch_steal: &'static str) -> Result<Policy, Error> {
    let deque = spec.int("deque", 1, 65536, 32)?;
    let prefetch = spec.int("prefetch", 0, 1, 1)?;
    let limit = spec.int("limit", 0, deque, Carbon::default_limit(deque))?;
    let prefetch_steal = spec.choice("prefetch-steal", &["yes", "no"], prefetch_steal)? == "yes";
    let loop_descriptor = spec.choice("loops", &["descriptor", "split"], "descriptor")? == "descriptor";
    let grain = match spec.raw("grain") {
        None | Some("auto") => 0,
        Some(v) => match v.parse::<usize>() {
            Ok(k) if k >= 1 => k,
            _ => return Err(Error::BadValue { policy: "carbon", option: "grain", value: v.to_string(), valid: "auto | a positive integer".into() }),
        },
    };
    let loop_tasks = spec.int("loop-tasks", 1, 4096, AUTO_TASKS_PER_WORKER)?;
    let spin = spec.int("spin", 0, 100_000, 64)? as u32;
    Ok(Policy {
        name,
        kind: PolicyKind::Unit(UnitPolicy::Carbon(Carbon { deque, prefetch, limit, prefetch_steal, loop_descriptor, grain, loop_tasks })),
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
        let c =
            Carbon { deque: 32, prefetch: 1, limit: Carbon::default_limit(32), prefetch_steal: true, loop_descriptor: true, grain: 0, loop_tasks: 8 };
        assert_eq!(c.overflow_count(32), 10);
        assert_eq!(c.underflow_threshold(), 8);
        assert_eq!(c.refill_count(3, 100), 13);
        assert_eq!(c.refill_count(3, 2), 2);
        assert!(!c.prefetch_allowed(3, 4) && c.prefetch_allowed(4, 4));
        assert_eq!(Carbon::steal_count(5), 3);
        assert_eq!(Carbon { deque: 1, prefetch: 0, limit: 1, ..c }.overflow_count(1), 1);
        assert!(c.underflows(7, 1) && !c.underflows(8, 1) && !c.underflows(0, 0));
        assert!(c.buffer_stealable(0) && !c.buffer_stealable(1));
        assert!(!Carbon { prefetch_steal: false, ..c }.buffer_stealable(0));
        assert!(!Carbon { limit: 0, ..c }.underflows(0, 5));
    }

    #[test]
    fn loop_task_sizes() {
        let c = Carbon { deque: 32, prefetch: 1, limit: 8, prefetch_steal: true, loop_descriptor: true, grain: 0, loop_tasks: 8 };
        // auto: 8 tasks per worker, whole leaves.
        assert_eq!(c.loop_task_size(1600, 1, 2), (100, 16));
        assert_eq!(c.loop_task_size(1600, 10, 2), (10, 16));
        assert_eq!(c.loop_task_size(5, 1, 4), (1, 5));
        assert_eq!(c.loop_task_size(1, 1, 1), (1, 1));
        assert_eq!(Carbon { loop_tasks: 1, ..c }.loop_task_size(1600, 1, 2), (800, 2));
        // grain=N: N iterations rounded up to leaves; the last task is short.
        let g = Carbon { grain: 100, ..c };
        assert_eq!(g.loop_task_size(1000, 1, 2), (100, 10));
        assert_eq!(g.loop_task_size(1001, 30, 2), (4, 9));
        for len in 1..200 {
            for leaf in 1..7 {
                for grain in [0, 1, 3, 50] {
                    let (per, tasks) = Carbon { grain, ..c }.loop_task_size(len, leaf, 3);
                    let leaves = len.div_ceil(leaf);
                    assert!(per >= 1 && tasks * per >= leaves && (tasks - 1) * per < leaves, "{len} {leaf} {grain}");
                }
            }
        }
    }

    #[test]
    fn grain_option() {
        let p = |s: &str| crate::policy::Policy::parse(s);
        let grain = |s: &str| match p(s).unwrap().kind {
            PolicyKind::Unit(UnitPolicy::Carbon(c)) => (c.grain, c.loop_descriptor),
            _ => unreachable!(),
        };
        assert_eq!(grain("carbon"), (0, true));
        assert_eq!(grain("carbon:grain=64"), (64, true));
        assert_eq!(grain("carbon:grain=auto,loops=split"), (0, false));
        for bad in ["carbon:grain=0", "carbon:grain=x", "carbon:grain=-1", "carbon:loops=binary", "carbon:loop-tasks=0"] {
            let e = p(bad).unwrap_err().to_string();
            assert!(e.contains("grain") || e.contains("loops") || e.contains("loop-tasks"), "{bad}: {e}");
        }
    }
}
