//! `adm-central` and `adm-hier`: the message-based schedulers of Sanchez, Yoo,
//! Kozyrakis, "Flexible Architectural Support for Fine-Grain Scheduling",
//! ASPLOS 2010, section 4.1 (Table 2, Figures 3 and 4), as plain decision code.
//!
//! Workers keep private queues and tell their manager their task count when it
//! crosses exponentially spaced thresholds (`UPDATE`; [`next_report_threshold`]). A manager pairs a starving
//! child with the child it believes holds the most tasks and asks the victim to
//! send half its tasks (`STEAL`); the victim sends them itself (`TASK`, at most
//! half a receive buffer per burst) and reports (`VICTIM_UPDATE`); the stealer
//! reports when the burst is over (`STEALER_UPDATE`). When every child is
//! starving and no task is left anywhere, the root says so (`UNBLOCK`) and the
//! workers park instead of asking again.
//!
//! `adm-hier` arranges managers in a tree of radix `r`: the level-0 manager of a
//! group of `r` workers is hosted by the group's first worker; a level-`L`
//! manager covers `r^(L+1)` workers and keeps only aggregate counts of its `r`
//! child partitions. Updates flow up, steal requests and unblocks flow down, and
//! in a multi-level steal the i-th worker of the victim partition sends to the
//! i-th worker of the stealer partition. `adm-central` is the same code with one
//! manager whose children are all the workers.
//!
//! Nothing here touches threads or atomics: the runtime (`adm/`) feeds
//! messages in and carries the returned [`Action`]s out, and the simulator can
//! do the same. The worker side's decisions are here too: when a count is due
//! ([`next_report_threshold`], [`report_depth`], [`recount_depth`]), how many
//! tasks a victim sends ([`Adm::burst`]) and whether a worker hands a task
//! straight to an idle one ([`hand_to_idle`], [`handoff_candidates`]).

use super::locality::steal::Stealing;
use super::notify::{Notify, DEFAULT_BOUND_US};
use super::{Idle, OptionInfo, Order, Policy, PolicyInfo, PolicyKind, Registration, Spec, ORDER, SPIN};
use crate::error::Error;
use std::ops::Range;

mod manager;
mod ranges;

pub use ranges::{offers_halves, range_cut, range_units, AdmLoops};

/// Messages one receive buffer holds: the paper's 64-word buffers hold 16
/// four-word messages (ASPLOS 2010, section 6). The runtime's mailbox ring has
/// this many slots.
pub const RECEIVE_BUFFER: usize = 16;

/// The message policies' parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Adm {
    /// Radix of the manager tree; 0: one manager over all workers (`adm-central`).
    pub radix: usize,
    /// Most tasks a victim sends per steal (default half a receive buffer, so
    /// one burst never overflows the stealer's ring).
    pub burst: usize,
    /// The managers run on one extra thread (`manager=dedicated`) instead of
    /// on workers.
    pub dedicated_manager: bool,
    /// How a busy or blocked worker learns that another waits for work
    /// (`notify=poll|interrupt`, `policy/notify.rs`).
    pub notify: Notify,
    /// Underflow threshold (ASPLOS 2010, section 4.1: "if the number of tasks
    /// of a worker S goes below an underflow threshold, the manager sends a
    /// steal request"): a worker whose reported count is below it is served
    /// like a starving one, before it runs dry. 0: only starving workers are
    /// served.
    pub underflow: usize,
    /// Whether a worker that offers work hands one task straight to an idle
    /// worker ([`Handoff`]).
    pub handoff: Handoff,
    /// `loops=`: how a parallel loop is counted and moved ([`AdmLoops`]).
    pub loops: AdmLoops,
}

/// Who gets a task straight from the worker that offers it, outside the
/// manager's steals (`handoff=idle|sleeper|manager`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Handoff {
    /// Any idle worker: one that found no work, spinning or asleep (the
    /// default; measured in `docs/policies.md`, "Hand-off to an idle worker").
    Idle,
    /// Only a worker that sleeps.
    Sleeper,
    /// Nobody: tasks move only by the manager's `STEAL`, as in the paper.
    Manager,
}

impl Handoff {
    /// The option value that selects it (`handoff=`).
    pub fn name(self) -> &'static str {
        match self {
            Handoff::Idle => "idle",
            Handoff::Sleeper => "sleeper",
            Handoff::Manager => "manager",
        }
    }
}

/// Most workers a hand-off looks at ([`handoff_candidates`]).
pub const HANDOFF_PROBES: usize = 8;

/// The workers a hand-off from worker `me` looks at, in order: the others of
/// its level-0 partition (every worker under `adm-central`), starting after
/// it and wrapping around, at most [`HANDOFF_PROBES`] of them. Staying in
/// the partition keeps a task among the workers its manager balances (and,
/// with partitions laid over the cores, near its data).
pub fn handoff_candidates(tree: &Tree, me: usize) -> impl Iterator<Item = usize> {
    let part = tree.children(0, tree.partition_of(0, me));
    let (start, len) = (part.start, part.len());
    (1..len.min(HANDOFF_PROBES + 1)).map(move |i| start + (me - start + i) % len)
}

impl Adm {
    /// The manager tree over `n` workers.
    pub fn tree(&self, n: usize) -> Tree {
        if self.radix == 0 {
            Tree::single(n)
        } else {
            Tree::new(n, self.radix)
        }
    }

    /// The manager roles worker `w` of `n` hosts, by level (none under
    /// `manager=dedicated`, where one thread hosts them all).
    pub fn hosted_managers(&self, n: usize, w: usize) -> Vec<ManagerNode> {
        if self.dedicated_manager {
            return Vec::new();
        }
        let tree = self.tree(n);
        (0..tree.levels)
            .take_while(|&l| tree.hosts(l, w))
            .map(|l| ManagerNode::new(&tree, l, tree.partition_of(l, w), self.manager_burst()).with_underflow(self.underflow))
            .collect()
    }

    /// Every manager of the tree over `n` workers, `[level][partition]` (the
    /// dedicated manager thread hosts them all).
    /// The most tasks a level-0 manager asks one victim for. The burst
    /// bounds messages (half the receive buffer); under `loops=range` one
    /// message may carry a range of many tasks, so the manager asks for
    /// what balances the counts and the victim bounds its messages
    /// ([`Adm::burst`] there).
    pub fn manager_burst(&self) -> usize {
        match self.loops {
            AdmLoops::Range => usize::MAX,
            AdmLoops::Split => self.burst,
        }
    }

    pub fn all_managers(&self, n: usize) -> Vec<Vec<ManagerNode>> {
        let tree = self.tree(n);
        (0..tree.levels)
            .map(|l| {
                (0..n.div_ceil(tree.span(l)).max(1))
                    .map(|p| ManagerNode::new(&tree, l, p, self.manager_burst()).with_underflow(self.underflow))
                    .collect()
            })
            .collect()
    }
}

/// The stack depth at which a worker's `join`s count its pending work again,
/// after it reported `reported` tasks with its stack `current_depth` bytes
/// deep. `join`s do not count their marks one by one (that would put a shared
/// counter back on every `join`): they count again once the stack has grown
/// to twice its depth, or at the very next `join` when the manager believes
/// the worker empty. A pool of one worker never reports.
#[inline]
pub fn report_depth(workers: usize, reported: usize, current_depth: usize) -> usize {
    if workers == 1 {
        usize::MAX
    } else if reported == 0 {
        0
    } else {
        current_depth.saturating_mul(2)
    }
}

/// A `join` at depth `d` counted the pending work and no report was due: the
/// depth at which to count again (twice as deep, at least 64 bytes deeper).
#[inline]
pub fn recount_depth(d: usize) -> usize {
    d.saturating_mul(2).max(d + 64)
}

/// After offering work on a slow path: how many tasks to hand straight to an
/// idle worker ([`Handoff`]) without waiting for the manager's `STEAL`.
///
/// The code a worker runs next may not reach a scheduling point for a while
/// (a long task that does not spawn), and a request sent meanwhile would wait
/// for it; handing one task to an idle worker bounds that delay for the
/// common case of a worker that starts producing work while others wait.
/// It also takes the manager off the path of the common exchange (three
/// messages, `UPDATE`, `STEAL` and `TASK`, become one). This is a deviation
/// from the paper, where an interrupt would deliver the `STEAL` at once.
#[inline]
pub fn hand_to_idle(sleeper_exists: bool, work_pending: bool) -> usize {
    usize::from(sleeper_exists && work_pending)
}

/// The shape of the manager tree over `n` workers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    pub n: usize,
    pub radix: usize,
    /// Number of manager levels (level `levels - 1` is the root).
    pub levels: u32,
}

impl Tree {
    pub fn new(n: usize, radix: usize) -> Tree {
        let radix = radix.max(2);
        let mut levels = 1;
        let mut span = radix;
        while span < n {
            span = span.saturating_mul(radix);
            levels += 1;
        }
        Tree { n, radix, levels }
    }

    /// A single manager over all workers (`adm-central`).
    pub fn single(n: usize) -> Tree {
        Tree { n, radix: n.max(2), levels: 1 }
    }

    pub fn root(&self) -> u32 {
        self.levels - 1
    }

    /// Workers covered by one manager of `level`.
    pub fn span(&self, level: u32) -> usize {
        self.radix.saturating_pow(level + 1)
    }

    /// The partition of `level` that holds worker `w`.
    pub fn partition_of(&self, level: u32, w: usize) -> usize {
        w / self.span(level)
    }

    /// The worker that hosts the manager of partition `p` at `level`.
    pub fn host(&self, level: u32, p: usize) -> usize {
        p * self.span(level)
    }

    /// Does worker `w` host a manager at `level`?
    pub fn hosts(&self, level: u32, w: usize) -> bool {
        level <= self.root() && w % self.span(level) == 0
    }

    /// First worker of partition `p` at `level`.
    pub fn first_worker(&self, level: u32, p: usize) -> usize {
        p * self.span(level)
    }

    /// Children of partition `p` at `level`: worker ids at level 0, else
    /// partition indices at `level - 1`.
    pub fn children(&self, level: u32, p: usize) -> Range<usize> {
        let count = if level == 0 { self.n } else { self.n.div_ceil(self.span(level - 1)) };
        (p * self.radix).min(count)..((p + 1) * self.radix).min(count)
    }

    /// First worker of child `c` of a manager at `level`.
    pub fn child_first_worker(&self, level: u32, c: usize) -> usize {
        if level == 0 {
            c
        } else {
            self.first_worker(level - 1, c)
        }
    }
}

/// The exponential reporting thresholds of ASPLOS 2010, section 4.1: a worker reports
/// when its queue reaches the next power of two above what it last reported.
#[inline]
pub fn next_report_threshold(reported: usize) -> usize {
    (reported + 1).next_power_of_two().max(1)
}

/// How far a count must fall, as a factor of the last report, before a
/// decrease is reported. With 2 (a report at every halving) a queue that
/// swings between 4 and 8 tasks reports both ways on every swing: `uts` sent
/// 20 times the messages of the build without decrease reports
/// (`docs/policies.md`, "UPDATEs on decrease"); 4 leaves a band of a factor
/// of two between an increase and a decrease report.
pub const DECREASE_FACTOR: usize = 4;

/// The counts at which a worker that last reported `reported` tasks reports
/// a decrease (`UPDATE` on dequeue, ASPLOS 2010, section 4.1: updates are
/// sent from the enqueue *and* dequeue functions, at exponentially varying
/// thresholds). A decrease is due when the count has fallen to a quarter
/// ([`DECREASE_FACTOR`]) of the last report, or has fallen below the `underflow` threshold from at or above it
/// (so the manager learns of it while the worker still has work to run). A
/// count of zero is left to the starving report unless `underflow` is on.
///
/// Returned as `(lo, span)`: due iff `count.wrapping_sub(lo) <= span` (one
/// comparison on the dequeue path); an empty window is `(usize::MAX, 0)`.
#[inline]
pub fn decrease_window(reported: usize, underflow: usize) -> (usize, usize) {
    const NEVER: (usize, usize) = (usize::MAX, 0);
    if reported == 0 {
        return NEVER;
    }
    let crossing = underflow > 0 && reported >= underflow;
    let hi = if crossing { (reported / DECREASE_FACTOR).max(underflow - 1) } else { reported / DECREASE_FACTOR };
    let lo = if crossing { 0 } else { 1 };
    if hi < lo {
        NEVER
    } else {
        (lo, hi - lo)
    }
}

/// Is a decrease to `count` due after reporting `reported` ([`decrease_window`])?
#[inline]
pub fn decrease_due(reported: usize, count: usize, underflow: usize) -> bool {
    let (lo, span) = decrease_window(reported, underflow);
    count.wrapping_sub(lo) <= span
}

/// Should a manager serve child `s` as a stealer: it is not being served
/// already, and it is starving (a worker: with nothing queued; a partition:
/// with more hungry children than queued tasks,
/// [`ManagerNode::partition_starving`]), or (a worker, at level 0) its count
/// is below the underflow threshold.
#[inline]
pub fn wants_work(starving: bool, asked: bool, count: usize, underflow: usize, level: u32) -> bool {
    !asked && ((starving && (count == 0 || level > 0)) || (level == 0 && count < underflow))
}

/// Tasks to move from a victim believed to hold `victim` tasks to a stealer
/// believed to hold `stealer` (`starving`: it has run dry): half the
/// difference, so that neither ends with fewer than the other; 0 if the victim
/// has too few to share.
#[inline]
pub fn steal_amount(victim: usize, stealer: usize, starving: bool) -> usize {
    if starving {
        victim.saturating_sub(stealer).div_ceil(2)
    } else {
        victim.saturating_sub(stealer) / 2
    }
}

pub use manager::*;

const OPTIONS: &[OptionInfo] = &[
    OptionInfo { name: "radix", values: "2..=1024", default: "8", help: "manager tree radix (adm-hier only)" },
    ORDER,
    OptionInfo { name: "burst", values: "1..=1024", default: "8", help: "most tasks a victim sends per steal (half the 16-message receive buffer)" },
    SPIN,
    OptionInfo {
        name: "manager",
        values: "worker | dedicated",
        default: "worker",
        help: "where the managers run: on workers (the group's first), or on one extra thread that runs no tasks",
    },
    OptionInfo {
        name: "notify",
        values: "poll | interrupt",
        default: "interrupt",
        help: "how a busy or blocked worker learns that another waits: at its next scheduling point only, or by an interrupt after `bound`",
    },
    OptionInfo {
        name: "bound",
        values: "1..=1000000",
        default: "100",
        help: "microseconds a starving worker waits before it interrupts a victim (notify=interrupt)",
    },
    OptionInfo {
        name: "handoff",
        values: "idle | sleeper | manager",
        default: "idle",
        help: "a worker that offers work hands one task itself to an idle worker (idle) or a sleeping one (sleeper), or only the manager's steal requests move tasks, as in the paper (manager)",
    },
    OptionInfo {
        name: "underflow",
        values: "0..=1024",
        default: "0",
        help: "a worker with fewer tasks than this is sent work before it runs dry (0: only when it has run dry)",
    },
    OptionInfo {
        name: "loops",
        values: "split | range",
        default: "split",
        help: "a loop offers halves lazily (split), or is one task counted by its leaves and cut when a steal asks (range, the paper)",
    },
];

/// Default underflow threshold ([`Adm::underflow`]); chosen by measurement
/// (`docs/policies.md`, "Underflow threshold").
pub const DEFAULT_UNDERFLOW: usize = 0;

/// `adm-paper-*`: the defaults that differ from the runtime's, as ASPLOS 2010
/// (Table 2, sections 4.1-4.2) has them: tasks move only on the managers'
/// steal requests, and a loop is one range task cut when stolen.
#[derive(Copy, Clone)]
struct Defaults {
    /// The names of the central and the hierarchical variant.
    names: [&'static str; 2],
    handoff: &'static str,
    loops: &'static str,
}

const RUNTIME: Defaults = Defaults { names: ["adm-central", "adm-hier"], handoff: "idle", loops: "split" };
const PAPER: Defaults = Defaults { names: ["adm-paper-central", "adm-paper-hier"], handoff: "manager", loops: "range" };

fn build(spec: &mut Spec<'_>, hier: bool) -> Result<Policy, Error> {
    build_with(spec, hier, RUNTIME)
}

fn build_with(spec: &mut Spec<'_>, hier: bool, d: Defaults) -> Result<Policy, Error> {
    let radix = if hier { spec.int("radix", 2, 1024, 8)? } else { 0 };
    let order = match spec.choice("order", &["lifo", "fifo"], "lifo")? {
        "fifo" => Order::Fifo,
        _ => Order::Lifo,
    };
    let burst = spec.int("burst", 1, 1024, RECEIVE_BUFFER / 2)?;
    let spin = spec.int("spin", 0, 100_000, 64)? as u32;
    let dedicated_manager = spec.choice("manager", &["worker", "dedicated"], "worker")? == "dedicated";
    let interrupt = spec.choice("notify", &["poll", "interrupt"], "interrupt")? == "interrupt";
    let bound_us = spec.int("bound", 1, 1_000_000, DEFAULT_BOUND_US as usize)? as u32;
    let notify = if interrupt { Notify::Interrupt { bound_us } } else { Notify::Poll };
    let underflow = spec.int("underflow", 0, 1024, DEFAULT_UNDERFLOW)?;
    let handoff = match spec.choice("handoff", &["idle", "sleeper", "manager"], d.handoff)? {
        "sleeper" => Handoff::Sleeper,
        "manager" => Handoff::Manager,
        _ => Handoff::Idle,
    };
    let loops = match spec.choice("loops", &["split", "range"], d.loops)? {
        "range" => AdmLoops::Range,
        _ => AdmLoops::Split,
    };
    Ok(Policy {
        name: d.names[hier as usize],
        kind: PolicyKind::Adm(Adm { radix, burst, dedicated_manager, notify, underflow, handoff, loops }),
        order,
        idle: Idle::with_spin(spin),
        space_steal: Stealing::Baseline,
    })
}

/// Every option but `radix`.
const ADM_CENTRAL_OPTIONS: &[OptionInfo] =
    &[OPTIONS[1], OPTIONS[2], OPTIONS[3], OPTIONS[4], OPTIONS[5], OPTIONS[6], OPTIONS[7], OPTIONS[8], OPTIONS[9]];
const _: () = assert!(OPTIONS.len() == 10);

fn value(p: &Policy, option: &str) -> Option<String> {
    let PolicyKind::Adm(a) = p.kind else { return None };
    Some(match option {
        "radix" => a.radix.to_string(),
        "burst" => a.burst.to_string(),
        "manager" => (if a.dedicated_manager { "dedicated" } else { "worker" }).to_string(),
        "notify" => a.notify.name().to_string(),
        // Read only under `notify=interrupt`; the default stands for it otherwise.
        "bound" => a.notify.bound_us().unwrap_or(DEFAULT_BOUND_US).to_string(),
        "handoff" => a.handoff.name().to_string(),
        "underflow" => a.underflow.to_string(),
        "loops" => a.loops.name().to_string(),
        _ => return p.common_value(option),
    })
}

pub(crate) static ADM_CENTRAL: Registration = Registration {
    info: PolicyInfo {
        name: "adm-central",
        summary: "private queues; one manager pairs stealers and victims by messages",
        source: "Sanchez, Yoo, Kozyrakis, Flexible Architectural Support for Fine-Grain Scheduling, ASPLOS 2010, section 4.1, Table 2, Figure 3",
        options: ADM_CENTRAL_OPTIONS,
    },
    build: |s| build(s, false),
    value,
};

/// [`OPTIONS`] with the paper's defaults ([`PAPER`]).
const PAPER_OPTIONS: &[OptionInfo] = &[
    OPTIONS[0],
    OPTIONS[1],
    OPTIONS[2],
    OPTIONS[3],
    OPTIONS[4],
    OPTIONS[5],
    OPTIONS[6],
    OptionInfo { default: PAPER.handoff, ..OPTIONS[7] },
    OPTIONS[8],
    OptionInfo { default: PAPER.loops, ..OPTIONS[9] },
];
const PAPER_CENTRAL_OPTIONS: &[OptionInfo] = &[
    PAPER_OPTIONS[1],
    PAPER_OPTIONS[2],
    PAPER_OPTIONS[3],
    PAPER_OPTIONS[4],
    PAPER_OPTIONS[5],
    PAPER_OPTIONS[6],
    PAPER_OPTIONS[7],
    PAPER_OPTIONS[8],
    PAPER_OPTIONS[9],
];
const _: () = assert!(matches!(OPTIONS[7].name.as_bytes(), b"handoff") && matches!(OPTIONS[9].name.as_bytes(), b"loops"));

pub(crate) static ADM_PAPER_CENTRAL: Registration = Registration {
    info: PolicyInfo {
        name: "adm-paper-central",
        summary: "adm-central with the paper's protocol as defaults: steals only through the manager, loops as ranges cut when stolen",
        source: "Sanchez, Yoo, Kozyrakis, Flexible Architectural Support for Fine-Grain Scheduling, ASPLOS 2010, sections 4.1-4.2, Table 2",
        options: PAPER_CENTRAL_OPTIONS,
    },
    build: |s| build_with(s, false, PAPER),
    value,
};

pub(crate) static ADM_PAPER_HIER: Registration = Registration {
    info: PolicyInfo {
        name: "adm-paper-hier",
        summary: "adm-hier with the paper's protocol as defaults: steals only through the managers, loops as ranges cut when stolen",
        source: "Sanchez, Yoo, Kozyrakis, Flexible Architectural Support for Fine-Grain Scheduling, ASPLOS 2010, sections 4.1-4.2, Table 2, Figure 4",
        options: PAPER_OPTIONS,
    },
    build: |s| build_with(s, true, PAPER),
    value,
};

pub(crate) static ADM_HIER: Registration = Registration {
    info: PolicyInfo {
        name: "adm-hier",
        summary: "private queues; a radix-r tree of managers balances load by messages",
        source: "Sanchez, Yoo, Kozyrakis, Flexible Architectural Support for Fine-Grain Scheduling, ASPLOS 2010, section 4.1, Table 2, Figure 4",
        options: OPTIONS,
    },
    build: |s| build(s, true),
    value,
};

#[cfg(test)]
mod hier_tests;
#[cfg(test)]
mod tests;
