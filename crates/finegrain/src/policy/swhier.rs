//! `sw-hier`: hierarchical task queuing (Kumar, Hughes, Nguyen, "Carbon",
//! ISCA 2007, section 2.3), a refinement of one
//! central queue. Each worker works mostly on a small private queue that only
//! it touches (no lock); when the private queue fills up, its oldest half goes
//! to the global queue (under the lock); a worker whose private queue is empty
//! takes some tasks from the global queue. In the paper nothing is ever
//! taken from a private queue by another core, which is why it is kept small.
//!
//! Deviation (issue #12, item 1): a task that blocks, or computes long
//! without spawning, keeps its private queue from everyone, so a `join` whose
//! first closure waits for its second never returns. Here a worker that has
//! starved for `bound` microseconds while another worker's private queue
//! holds tasks moves the oldest of them to the global queue
//! ([`SwHier::rescue_due`]); `bound=off` keeps the paper's rule.
//!
//! The global queue's order is an option: FIFO (a central queue's usual order),
//! LIFO, or priority (given at spawn or enqueue, `finegrain::with_priority`).
//! This file holds the decisions; `unit/` carries them out.

use super::locality::steal::Stealing;
use super::unit::GlobalOrder;
use super::{Idle, OptionInfo, Order, Policy, PolicyInfo, PolicyKind, Registration, Spec, UnitPolicy, SPIN};
use crate::error::Error;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SwHier {
    /// Capacity of each private queue.
    pub private: usize,
    pub order: GlobalOrder,
    /// Share a task at once with sleeping workers (`share=idle`, default) or
    /// only spill full private queues (`share=full`, the paper's rule).
    pub share: bool,
    /// Microseconds a worker starves before it takes from another worker's
    /// private queue; `None`: never (the paper).
    pub bound_us: Option<u32>,
}

impl SwHier {
    /// A private queue holding `len` tasks is full: move this many (its oldest) out.
    pub fn spill_count(&self, len: usize) -> usize {
        if len >= self.private {
            len.div_ceil(2)
        } else {
            0
        }
    }

    /// A task was just queued privately, with `global` tasks in the global
    /// queue and `sleeping` workers asleep: move the private queue's oldest
    /// task to the global queue now? Yes when some worker sleeps and the
    /// global queue is empty: otherwise the task would stay where no idle
    /// worker can reach it until this worker's next spawn or dequeue, which
    /// a task that blocks or computes long never reaches (a `join` whose
    /// first closure waits for its second would never return). A deviation
    /// from Carbon (ISCA 2007) section 2.3, where only a full private queue
    /// spills: it adds one load per spawn, and a lock only while workers
    /// sleep with nothing to take.
    pub fn share_now(&self, global: usize, sleeping: usize) -> bool {
        self.share && sleeping > 0 && global == 0
    }

    /// A worker has starved for `starving_us`: may it move the oldest task
    /// of a private queue that holds `their_len` tasks to the global queue?
    pub fn rescue_due(&self, starving_us: u64, their_len: usize) -> bool {
        self.bound_us.is_some_and(|b| starving_us >= b as u64 && their_len > 0)
    }

    /// How long a starving worker parks before it looks at the private
    /// queues again, while some holds tasks (`None`: until woken).
    pub fn park_timeout_us(&self, others_hold_tasks: bool) -> Option<u64> {
        self.bound_us.filter(|_| others_hold_tasks).map(u64::from)
    }

    /// Tasks an empty private queue takes from a global queue holding
    /// `global` tasks, with `workers` workers: a fair share, at most half a
    /// private queue, at least one.
    pub fn fetch_count(&self, global: usize, workers: usize) -> usize {
        (global / workers.max(1)).clamp(1, (self.private / 2).max(1)).min(global)
    }
}

const OPTIONS: &[OptionInfo] = &[
    OptionInfo {
        name: "private",
        values: "1..=65536",
        default: "8",
        help: "tasks a private queue holds before half of them move to the global queue",
    },
    OptionInfo {
        name: "order",
        values: "fifo | lifo | priority",
        default: "fifo",
        help: "order of the global queue (priority: highest first, FIFO among equals)",
    },
    SPIN,
    OptionInfo {
        name: "share",
        values: "idle | full",
        default: "idle",
        help: "when private tasks move to the global queue: also as soon as a worker sleeps and the global queue is empty, or only when the private queue is full (the paper)",
    },
    OptionInfo {
        name: "bound",
        values: "1..=1000000 | off",
        default: "100",
        help: "microseconds a starving worker waits before it moves the oldest task of another worker's private queue to the global queue (off: never, the paper)",
    },
];

pub(crate) static REGISTRATION: Registration = Registration {
    info: PolicyInfo {
        name: "sw-hier",
        summary: "hierarchical task queuing: small lock-free private queues spilling into one locked global queue",
        source: "Kumar, Hughes, Nguyen, Carbon: Architectural Support for Fine-Grained Parallelism on Chip Multiprocessors, ISCA 2007, section 2.3",
        options: OPTIONS,
    },
    build,
    value,
};

fn value(p: &Policy, option: &str) -> Option<String> {
    let PolicyKind::Unit(UnitPolicy::SwHier(s)) = p.kind else { return None };
    Some(match option {
        "private" => s.private.to_string(),
        // The global queue's order, not the worker-owned `order` of `common_value`.
        "order" => s.order.name().to_string(),
        "share" => (if s.share { "idle" } else { "full" }).to_string(),
        "bound" => s.bound_us.map_or("off".to_string(), |b| b.to_string()),
        _ => return p.common_value(option),
    })
}

fn build(spec: &mut Spec<'_>) -> Result<Policy, Error> {
    let private = spec.int("private", 1, 65536, 8)?;
    let order = match spec.choice("order", &["fifo", "lifo", "priority"], "fifo")? {
        "lifo" => GlobalOrder::Lifo,
        "priority" => GlobalOrder::Priority,
        _ => GlobalOrder::Fifo,
    };
    let spin = spec.int("spin", 0, 100_000, 64)? as u32;
    let share = spec.choice("share", &["idle", "full"], "idle")? == "idle";
    let bound_us = match spec.raw("bound") {
        None => Some(super::notify::DEFAULT_BOUND_US),
        Some("off") => None,
        Some(v) => match v.parse::<u32>() {
            Ok(x) if (1..=1_000_000).contains(&x) => Some(x),
            _ => {
                return Err(Error::BadValue {
                    policy: "sw-hier",
                    option: "bound",
                    value: v.to_string(),
                    valid: "an integer in 1..=1000000, or off".to_string(),
                })
            }
        },
    };
    Ok(Policy {
        name: "sw-hier",
        kind: PolicyKind::Unit(UnitPolicy::SwHier(SwHier { private, order, share, bound_us })),
        order: Order::Lifo,
        idle: Idle::with_spin(spin),
        space_steal: Stealing::Baseline,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spill_and_fetch() {
        let s = SwHier { private: 8, order: GlobalOrder::Fifo, share: true, bound_us: Some(100) };
        assert!(s.share_now(0, 1));
        assert!(!s.share_now(1, 1), "the global queue has work to take");
        assert!(!s.share_now(0, 0), "nobody sleeps");
        assert!(!SwHier { share: false, ..s }.share_now(0, 1));
        assert!(s.rescue_due(100, 1));
        assert!(!s.rescue_due(99, 1), "not starving long enough");
        assert!(!s.rescue_due(1000, 0), "nothing to take");
        assert!(!SwHier { bound_us: None, ..s }.rescue_due(1000, 1), "bound=off: the paper");
        assert_eq!(s.park_timeout_us(true), Some(100));
        assert_eq!(s.park_timeout_us(false), None);
        assert_eq!(s.spill_count(7), 0);
        assert_eq!(s.spill_count(8), 4);
        assert_eq!(s.fetch_count(100, 4), 4);
        assert_eq!(s.fetch_count(3, 4), 1);
        assert_eq!(s.fetch_count(1, 1), 1);
        let one = SwHier { private: 1, order: GlobalOrder::Fifo, share: true, bound_us: Some(100) };
        assert_eq!(one.spill_count(1), 1);
        assert_eq!(one.fetch_count(10, 2), 1);
    }
}
