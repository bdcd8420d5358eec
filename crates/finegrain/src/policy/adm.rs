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
use super::{Idle, OptionInfo, Order, Policy, PolicyInfo, PolicyKind, Registration, Spec};
use crate::error::Error;
use std::ops::Range;

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
            .map(|l| ManagerNode::new(&tree, l, tree.partition_of(l, w), self.burst).with_underflow(self.underflow))
            .collect()
    }

    /// Every manager of the tree over `n` workers, `[level][partition]` (the
    /// dedicated manager thread hosts them all).
    pub fn all_managers(&self, n: usize) -> Vec<Vec<ManagerNode>> {
        let tree = self.tree(n);
        (0..tree.levels)
            .map(|l| (0..n.div_ceil(tree.span(l)).max(1)).map(|p| ManagerNode::new(&tree, l, p, self.burst).with_underflow(self.underflow)).collect())
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
/// already, and it is starving with nothing queued, or (a worker, at level 0)
/// its count is below the underflow threshold.
#[inline]
pub fn wants_work(starving: bool, asked: bool, count: usize, underflow: usize, level: u32) -> bool {
    !asked && ((starving && count == 0) || (level == 0 && count < underflow))
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

/// What a manager decides to do after a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Ask child `victim` (worker or partition) to send `k` tasks to the
    /// stealer(s) whose first worker is `stealer_first`.
    Steal { victim: usize, stealer_first: usize, k: usize },
    /// Tell the parent manager this partition's aggregate count, whether it
    /// is starving, and whether a worker in it waits for a `join` or scope
    /// ([`ManagerNode::on_update_waiting`]).
    Update { count: usize, starving: bool, waiting: bool },
    /// Nothing left anywhere: workers may park.
    Unblock,
}

/// Where an [`Action`] of the manager of partition `part` at `level` goes: a
/// message to a worker, or to another manager of the tree. Both manager hosts
/// (workers, `manager=worker`; one thread, `manager=dedicated`) deliver these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// `STEAL` to worker `victim`: send `k` tasks to worker `stealer`.
    StealWorker { victim: usize, stealer: usize, k: usize },
    /// `STEAL` to the manager of partition `part` at `level`, for the
    /// partition that starts at worker `stealer_first`.
    StealPartition { level: u32, part: usize, stealer_first: usize, k: usize },
    /// `UPDATE` to the manager of partition `part` at `level`, from its child
    /// partition `child`.
    Update { level: u32, part: usize, child: usize, count: usize, starving: bool, waiting: bool },
    /// `UNBLOCK` to worker `w`.
    UnblockWorker(usize),
    /// `UNBLOCK` to the manager of partition `part` at `level`.
    UnblockPartition { level: u32, part: usize },
}

/// The messages that carry out `action` of the manager of partition `part`
/// at `level`: steals and unblocks go down the tree, updates up.
pub fn route(tree: &Tree, level: u32, part: usize, action: Action) -> Vec<Route> {
    match action {
        Action::Steal { victim, stealer_first, k } if level == 0 => vec![Route::StealWorker { victim, stealer: stealer_first, k }],
        Action::Steal { victim, stealer_first, k } => vec![Route::StealPartition { level: level - 1, part: victim, stealer_first, k }],
        Action::Update { count, starving, waiting } => {
            vec![Route::Update { level: level + 1, part: part / tree.radix, child: part, count, starving, waiting }]
        }
        Action::Unblock if level == 0 => tree.children(level, part).map(Route::UnblockWorker).collect(),
        Action::Unblock => tree.children(level, part).map(|c| Route::UnblockPartition { level: level - 1, part: c }).collect(),
    }
}

/// One manager: approximate counts of its children (ASPLOS 2010, section 4.1).
#[derive(Clone, Debug)]
pub struct ManagerNode {
    pub level: u32,
    pub partition: usize,
    children: Range<usize>,
    counts: Vec<usize>,
    starving: Vec<bool>,
    /// The child starves while it waits for a `join` or a scope whose tasks
    /// run elsewhere (a worker), or holds such a worker (a partition).
    waiting: Vec<bool>,
    /// A steal for this child is in flight.
    asked: Vec<bool>,
    is_root: bool,
    /// Largest burst one victim sends.
    burst: usize,
    /// Underflow threshold ([`Adm::underflow`]); workers only.
    underflow: usize,
    reported: Option<(usize, bool, bool)>,
    unblocked: bool,
    /// Reduction tokens received and not yet passed on (the root keeps each
    /// phase's totals here until the phase is complete).
    pub tokens: TokenBook,
}

impl ManagerNode {
    pub fn new(tree: &Tree, level: u32, partition: usize, burst: usize) -> ManagerNode {
        let children = tree.children(level, partition);
        let k = children.len();
        ManagerNode {
            level,
            partition,
            children,
            counts: vec![0; k],
            // Until a child reports, assume it is busy (workers start in the main loop
            // and report as soon as they find nothing).
            starving: vec![false; k],
            waiting: vec![false; k],
            asked: vec![false; k],
            is_root: level == tree.root(),
            burst: burst.max(1),
            underflow: 0,
            reported: None,
            unblocked: false,
            tokens: TokenBook::default(),
        }
    }

    /// This manager with underflow threshold `u` ([`Adm::underflow`]).
    pub fn with_underflow(mut self, u: usize) -> ManagerNode {
        self.underflow = u;
        self
    }

    fn idx(&self, child: usize) -> Option<usize> {
        self.children.contains(&child).then(|| child - self.children.start)
    }

    pub fn total(&self) -> usize {
        self.counts.iter().sum()
    }

    /// The partition has idle workers and no queued tasks to feed them.
    pub fn partition_starving(&self) -> bool {
        self.total() == 0 && self.starving.iter().any(|&s| s)
    }

    /// `UPDATE` (or an aggregate update from a child manager).
    pub fn on_update(&mut self, tree: &Tree, child: usize, count: usize, starving: bool) -> Vec<Action> {
        self.on_update_waiting(tree, child, count, starving, false)
    }

    /// `UPDATE` with the child's `waiting` flag: a worker that starves while
    /// it waits for a `join` (or a scope) whose other half runs elsewhere.
    /// It is served like any starving child, but it is not *done*: it resumes
    /// when what it waits for finishes, so while any child waits the root
    /// does not declare the end of the phase (`UNBLOCK`). The paper's
    /// runtime has no nested waits (a worker blocks only at the end of a
    /// phase, section 4.1), so there "all blocked" means "phase over".
    pub fn on_update_waiting(&mut self, tree: &Tree, child: usize, count: usize, starving: bool, waiting: bool) -> Vec<Action> {
        if let Some(i) = self.idx(child) {
            self.counts[i] = count;
            self.starving[i] = starving;
            self.waiting[i] = starving && waiting;
            if self.level > 0 {
                // A child partition's report follows any steal into it.
                self.asked[i] = false;
            }
        }
        self.decide(tree)
    }

    /// `VICTIM_UPDATE`: the victim's real count after sending.
    pub fn on_victim_update(&mut self, tree: &Tree, child: usize, left: usize) -> Vec<Action> {
        if let Some(i) = self.idx(child) {
            self.counts[i] = left;
        }
        self.decide(tree)
    }

    /// `STEALER_UPDATE`: the burst into `child` is over.
    pub fn on_stealer_update(&mut self, tree: &Tree, child: usize, count: usize, starving: bool) -> Vec<Action> {
        if let Some(i) = self.idx(child) {
            self.counts[i] = count;
            self.starving[i] = starving;
            self.waiting[i] = false;
            self.asked[i] = false;
        }
        self.decide(tree)
    }

    fn decide(&mut self, tree: &Tree) -> Vec<Action> {
        let mut out = Vec::new();
        self.rebalance(tree, &mut out);
        let any_waiting = self.waiting.iter().any(|&w| w);
        let all_idle = self.starving.iter().all(|&s| s) && self.total() == 0 && !any_waiting;
        if self.is_root {
            if all_idle && !self.unblocked && self.asked.iter().all(|a| !a) {
                self.unblocked = true;
                out.push(Action::Unblock);
            } else if !all_idle {
                self.unblocked = false;
            }
        } else {
            let now = (self.total(), self.partition_starving(), any_waiting);
            let changed = match self.reported {
                None => true,
                Some((c, s, w)) => s != now.1 || w != now.2 || now.0 >= next_report_threshold(c) || (now.0 == 0) != (c == 0),
            };
            if changed {
                self.reported = Some(now);
                out.push(Action::Update { count: now.0, starving: now.1, waiting: now.2 });
            }
        }
        out
    }

    /// Pair every starving child that is not already being served with the
    /// child believed to hold the most tasks; ask for half of them.
    fn rebalance(&mut self, tree: &Tree, out: &mut Vec<Action>) {
        for s in 0..self.counts.len() {
            if !wants_work(self.starving[s], self.asked[s], self.counts[s], self.underflow, self.level) {
                continue;
            }
            let victim = (0..self.counts.len()).filter(|&v| v != s).max_by_key(|&v| self.counts[v]);
            let Some(v) = victim else { break };
            let mut k = steal_amount(self.counts[v], self.counts[s], self.starving[s]);
            if k == 0 {
                continue;
            }
            if self.level == 0 {
                k = k.min(self.burst);
            }
            self.counts[v] -= k;
            // A worker's steal is in flight until its STEALER_UPDATE. A steal
            // into a partition is not tracked: the partition's manager may
            // spread the burst among its workers at once, leaving its own
            // report (zero, starving) unchanged, so no message would ever
            // clear the flag and the partition would never be served again
            // (found by the simulator at 32 threads, radix 8). Until the
            // partition reports work, a later decision may pair it again;
            // the victim's believed count shrinks by `k` each time, so this
            // is bounded.
            self.asked[s] = self.level == 0;
            out.push(Action::Steal {
                victim: self.children.start + v,
                stealer_first: tree.child_first_worker(self.level, self.children.start + s),
                k,
            });
        }
    }

    /// A `STEAL` for this whole partition (sent by the parent): split `k` over
    /// the children by their counts; child `i` sends to the `i`-th part of the
    /// stealer partition that starts at worker `stealer_first`.
    pub fn distribute(&mut self, tree: &Tree, stealer_first: usize, k: usize) -> Vec<Action> {
        let total = self.total().max(1);
        let mut out = Vec::new();
        let mut left = k;
        let stealer_span = if self.level == 0 { 1 } else { tree.span(self.level - 1) };
        let width = self.children.len();
        for i in 0..width {
            if left == 0 {
                break;
            }
            let share = if self.counts[i] == 0 { 0 } else { (k * self.counts[i]).div_ceil(total).min(left).max(1) };
            if share == 0 {
                continue;
            }
            left -= share;
            self.counts[i] = self.counts[i].saturating_sub(share);
            let mut target = stealer_first + i * stealer_span;
            if target >= tree.n {
                target = stealer_first;
            }
            let share = if self.level == 0 { share.min(self.burst) } else { share };
            out.push(Action::Steal { victim: self.children.start + i, stealer_first: target, k: share });
        }
        out
    }
}

/// The reduction tokens of one phase (ASPLOS 2010, section 4.2: loop
/// reductions piggybacked on the termination messages), as a worker or manager
/// holds them and as they travel towards the root manager. The protocol and
/// why it loses nothing: `adm/README.md`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PhaseTokens {
    /// Opaque key of the phase (the runtime uses the address of its state).
    pub phase: usize,
    /// Tasks of the phase enqueued (these travel directly to the root).
    pub enqueued: usize,
    /// Tasks of the phase that finished.
    pub ran: usize,
    /// Their values combined; meaningful only when `ran > 0`.
    pub partial: usize,
    /// The phase's caller has enqueued all of its initial tasks.
    pub armed: bool,
}

impl PhaseTokens {
    pub fn is_empty(&self) -> bool {
        self.enqueued == 0 && self.ran == 0 && !self.armed
    }
}

/// Reduction tokens per phase: what a manager has received and not yet passed
/// up, or, at the root, each unfinished phase's running totals.
#[derive(Clone, Debug, Default)]
pub struct TokenBook {
    entries: Vec<PhaseTokens>,
}

impl TokenBook {
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Add `t` to its phase's entry; `combine` joins two partials (both from
    /// tasks that ran). Returns the updated entry.
    pub fn add(&mut self, t: PhaseTokens, combine: impl FnOnce(usize, usize) -> usize) -> PhaseTokens {
        match self.entries.iter_mut().find(|e| e.phase == t.phase) {
            Some(e) => {
                if t.ran > 0 {
                    e.partial = if e.ran > 0 { combine(e.partial, t.partial) } else { t.partial };
                }
                e.enqueued += t.enqueued;
                e.ran += t.ran;
                e.armed |= t.armed;
                *e
            }
            None => {
                self.entries.push(t);
                t
            }
        }
    }

    /// Remove and return some phase's tokens (a manager passing them up).
    pub fn take_any(&mut self) -> Option<PhaseTokens> {
        self.entries.pop()
    }

    /// At the root: if `phase` is complete — armed, and as many tasks finished
    /// as were enqueued, counting `lent` enqueues that reached the root
    /// outside messages (the runtime's interrupt handler) — remove it and
    /// return its totals.
    pub fn take_complete(&mut self, phase: usize, lent: usize) -> Option<PhaseTokens> {
        let i = self.entries.iter().position(|e| e.phase == phase)?;
        let e = self.entries[i];
        (e.armed && e.ran == e.enqueued + lent).then(|| self.entries.swap_remove(i))
    }
}

const OPTIONS: &[OptionInfo] = &[
    OptionInfo { name: "radix", values: "2..=1024", default: "8", help: "manager tree radix (adm-hier only)" },
    OptionInfo { name: "order", values: "lifo | fifo", default: "lifo", help: "order in which a worker runs its own tasks" },
    OptionInfo { name: "burst", values: "1..=1024", default: "8", help: "most tasks a victim sends per steal (half the 16-message receive buffer)" },
    OptionInfo { name: "spin", values: "0..=100000", default: "64", help: "idle rounds before yielding, then parking" },
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
];

/// Default underflow threshold ([`Adm::underflow`]); chosen by measurement
/// (`docs/policies.md`, "Underflow threshold").
pub const DEFAULT_UNDERFLOW: usize = 0;

fn build(spec: &mut Spec<'_>, hier: bool) -> Result<Policy, Error> {
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
    let handoff = match spec.choice("handoff", &["idle", "sleeper", "manager"], "idle")? {
        "sleeper" => Handoff::Sleeper,
        "manager" => Handoff::Manager,
        _ => Handoff::Idle,
    };
    Ok(Policy {
        name: if hier { "adm-hier" } else { "adm-central" },
        kind: PolicyKind::Adm(Adm { radix, burst, dedicated_manager, notify, underflow, handoff }),
        order,
        idle: Idle::with_spin(spin),
        space_steal: Stealing::Baseline,
    })
}

const ADM_CENTRAL_OPTIONS: &[OptionInfo] = &[OPTIONS[1], OPTIONS[2], OPTIONS[3], OPTIONS[4], OPTIONS[5], OPTIONS[6]];

pub(crate) static ADM_CENTRAL: Registration = Registration {
    info: PolicyInfo {
        name: "adm-central",
        summary: "private queues; one manager pairs stealers and victims by messages",
        source: "Sanchez, Yoo, Kozyrakis, Flexible Architectural Support for Fine-Grain Scheduling, ASPLOS 2010, section 4.1, Table 2, Figure 3",
        options: ADM_CENTRAL_OPTIONS,
    },
    build: |s| build(s, false),
};

pub(crate) static ADM_HIER: Registration = Registration {
    info: PolicyInfo {
        name: "adm-hier",
        summary: "private queues; a radix-r tree of managers balances load by messages",
        source: "Sanchez, Yoo, Kozyrakis, Flexible Architectural Support for Fine-Grain Scheduling, ASPLOS 2010, section 4.1, Table 2, Figure 4",
        options: OPTIONS,
    },
    build: |s| build(s, true),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_served_once_can_be_served_again() {
        // 32 workers, radix 8: the root manages four partitions of eight.
        let tree = Tree::new(32, 8);
        let mut root = ManagerNode::new(&tree, 1, 0, 8);
        for p in 1..4 {
            assert!(root.on_update(&tree, p, 0, true).iter().all(|a| !matches!(a, Action::Steal { .. })));
        }
        let first = root.on_update(&tree, 0, 4, false);
        assert!(first.contains(&Action::Steal { victim: 0, stealer_first: 16, k: 1 }), "{first:?}");
        // Partition 2 spreads its one task inside at once; its report
        // (nothing, starving) does not change, so it sends none. When
        // partition 0 reports more work, partition 2 is served again.
        let later = root.on_update(&tree, 0, 16, false);
        assert!(later.iter().any(|a| matches!(a, Action::Steal { stealer_first: 16, .. })), "{later:?}");
    }

    #[test]
    fn tree_shape() {
        let t = Tree::new(64, 8);
        assert_eq!(t.levels, 2);
        assert_eq!(t.children(0, 1), 8..16);
        assert_eq!(t.children(1, 0), 0..8);
        assert!(t.hosts(1, 0) && t.hosts(0, 8) && !t.hosts(1, 8));
        assert_eq!(Tree::new(8, 8).levels, 1);
        assert_eq!(Tree::new(9, 8).levels, 2);
        let t = Tree::new(10, 4);
        assert_eq!(t.children(0, 2), 8..10);
        assert_eq!(t.children(1, 0), 0..3);
    }

    #[test]
    fn central_pairs_starving_with_fullest() {
        let t = Tree::single(4);
        let mut m = ManagerNode::new(&t, 0, 0, 8);
        assert!(m.on_update(&t, 1, 6, false).is_empty());
        assert!(m.on_update(&t, 2, 2, false).is_empty());
        let a = m.on_update(&t, 3, 0, true);
        assert_eq!(a, vec![Action::Steal { victim: 1, stealer_first: 3, k: 3 }]);
        // Already asked: no second request until the stealer reports.
        assert!(m.on_update(&t, 3, 0, true).is_empty());
        let a = m.on_stealer_update(&t, 3, 0, true);
        assert_eq!(a, vec![Action::Steal { victim: 1, stealer_first: 3, k: 2 }]);
    }

    #[test]
    fn root_unblocks_when_everyone_starves() {
        let t = Tree::single(2);
        let mut m = ManagerNode::new(&t, 0, 0, 8);
        assert!(m.on_update(&t, 0, 0, true).is_empty());
        assert_eq!(m.on_update(&t, 1, 0, true), vec![Action::Unblock]);
        assert!(m.on_update(&t, 1, 0, true).is_empty(), "unblock once");
    }

    #[test]
    fn hier_level0_reports_up_and_parent_steals_across_partitions() {
        let t = Tree::new(8, 4);
        let mut g0 = ManagerNode::new(&t, 0, 0, 8);
        let mut root = ManagerNode::new(&t, 1, 0, 8);
        // Group 0 all starving: it reports a starving partition.
        let mut ups = Vec::new();
        for w in 0..4 {
            ups.extend(g0.on_update(&t, w, 0, true));
        }
        assert_eq!(ups.last(), Some(&Action::Update { count: 0, starving: true, waiting: false }));
        assert!(root.on_update(&t, 1, 16, false).is_empty());
        let a = root.on_update(&t, 0, 0, true);
        assert_eq!(a, vec![Action::Steal { victim: 1, stealer_first: 0, k: 8 }]);
        // Group 1's manager splits it: i-th victim worker -> i-th stealer worker.
        let mut g1 = ManagerNode::new(&t, 0, 1, 8);
        for (w, c) in [(4, 8), (5, 8), (6, 0), (7, 0)] {
            g1.on_update(&t, w, c, false);
        }
        let d = g1.distribute(&t, 0, 8);
        assert_eq!(d, vec![Action::Steal { victim: 4, stealer_first: 0, k: 4 }, Action::Steal { victim: 5, stealer_first: 1, k: 4 }]);
    }

    #[test]
    fn token_book_completes_only_when_armed_and_balanced() {
        let add = |a: usize, b: usize| a + b;
        let t = |enqueued, ran, partial, armed| PhaseTokens { phase: 7, enqueued, ran, partial, armed };
        let mut root = TokenBook::default();
        // A worker's finished tasks may arrive before the caller arms the phase.
        root.add(t(0, 2, 5, false), add);
        assert_eq!(root.take_complete(7, 0), None);
        root.add(t(2, 0, 0, false), add);
        assert_eq!(root.take_complete(7, 0), None, "balanced but not armed");
        root.add(t(1, 0, 0, true), add);
        assert_eq!(root.take_complete(7, 0), None, "armed but one task outstanding");
        root.add(t(0, 1, 10, false), add);
        assert_eq!(root.take_complete(7, 1), None, "an enqueue lent outside messages: one more to finish");
        assert_eq!(root.take_complete(7, 0), Some(t(3, 3, 15, true)));
        assert!(root.is_empty());
        // An entry of finished tasks without value-less ones keeps its partial.
        let mut m = TokenBook::default();
        m.add(t(4, 0, 99, false), add);
        assert_eq!(m.add(t(0, 1, 3, false), add).partial, 3);
        assert_eq!(m.take_any().map(|e| (e.enqueued, e.ran, e.partial)), Some((4, 1, 3)));
        assert_eq!(m.take_any(), None);
    }

    #[test]
    fn routes_go_down_for_steals_and_unblocks_and_up_for_updates() {
        let t = Tree::new(16, 4);
        assert_eq!(route(&t, 0, 1, Action::Steal { victim: 5, stealer_first: 6, k: 2 }), vec![Route::StealWorker { victim: 5, stealer: 6, k: 2 }]);
        assert_eq!(
            route(&t, 1, 0, Action::Steal { victim: 2, stealer_first: 4, k: 8 }),
            vec![Route::StealPartition { level: 0, part: 2, stealer_first: 4, k: 8 }]
        );
        assert_eq!(
            route(&t, 0, 3, Action::Update { count: 7, starving: false, waiting: false }),
            vec![Route::Update { level: 1, part: 0, child: 3, count: 7, starving: false, waiting: false }]
        );
        assert_eq!(route(&t, 0, 1, Action::Unblock), (4..8).map(Route::UnblockWorker).collect::<Vec<_>>());
        assert_eq!(route(&t, 1, 0, Action::Unblock), (0..4).map(|part| Route::UnblockPartition { level: 0, part }).collect::<Vec<_>>());
    }

    #[test]
    fn decreases_are_reported_at_a_quarter_and_at_underflow() {
        // No underflow: a fall to a quarter, zero left to the starving report.
        assert!(!decrease_due(0, 0, 0));
        assert!(!decrease_due(1, 0, 0), "zero: the starving report says it");
        assert!(!decrease_due(8, 3, 0) && !decrease_due(8, 4, 0));
        assert!(decrease_due(8, 2, 0) && decrease_due(8, 1, 0));
        assert!(!decrease_due(8, 0, 0));
        // Underflow 2: falling below it is reported at once, zero included.
        assert!(decrease_due(2, 1, 2) && decrease_due(2, 0, 2));
        assert!(decrease_due(16, 1, 2) && decrease_due(16, 4, 2) && !decrease_due(16, 5, 2));
        // Already below the underflow when reported: the quarter rule only.
        assert!(!decrease_due(1, 0, 2));
        assert!(decrease_due(7, 1, 8) && !decrease_due(7, 2, 8) && !decrease_due(7, 0, 8));
        // The window is one comparison.
        for reported in 0..40 {
            for u in 0..6 {
                let (lo, span) = decrease_window(reported, u);
                for c in 0..reported + 2 {
                    let want = c < reported && ((c >= 1 && c <= reported / DECREASE_FACTOR) || (u > 0 && reported >= u && c < u));
                    assert_eq!(c.wrapping_sub(lo) <= span, want, "reported {reported}, underflow {u}, count {c}");
                }
            }
        }
    }

    #[test]
    fn underflow_serves_a_worker_before_it_runs_dry() {
        let t = Tree::single(3);
        // Without underflow a worker with nothing queued but still running is left alone.
        let mut m = ManagerNode::new(&t, 0, 0, 8);
        assert!(m.on_update(&t, 1, 8, false).is_empty());
        assert!(m.on_update(&t, 2, 1, false).is_empty());
        assert!(m.on_update(&t, 2, 0, false).is_empty());
        // With underflow 2 the same worker is sent half the difference at count 1.
        let mut m = ManagerNode::new(&t, 0, 0, 8).with_underflow(2);
        assert!(m.on_update(&t, 0, 0, false).is_empty(), "nobody has tasks to give");
        // Worker 1 reports 8: worker 0 (0 tasks) and worker 2 (not reported
        // yet, believed 0) are both below the underflow; each gets half the
        // difference from what the victim is believed to hold.
        let a = m.on_update(&t, 1, 8, false);
        assert_eq!(a, vec![Action::Steal { victim: 1, stealer_first: 0, k: 4 }, Action::Steal { victim: 1, stealer_first: 2, k: 2 }]);
        // No request while one is in flight.
        assert!(m.on_update(&t, 0, 1, false).is_empty());
        // Steal over: worker 0 holds 1, below the underflow, and the victim
        // (believed 2) has one to spare for it: 0 more (half of 2 - 1).
        assert!(m.on_stealer_update(&t, 0, 1, false).is_empty());
        // The victim reports 6 left: worker 0, below the underflow, is served again.
        let a = m.on_victim_update(&t, 1, 6);
        assert_eq!(a, vec![Action::Steal { victim: 1, stealer_first: 0, k: 2 }]);
        assert_eq!(steal_amount(5, 1, false), 2);
        assert_eq!(steal_amount(1, 0, true), 1);
        assert_eq!(steal_amount(1, 0, false), 0);
        assert!(wants_work(true, false, 0, 0, 0) && !wants_work(true, true, 0, 0, 0) && !wants_work(false, false, 0, 0, 0));
        assert!(wants_work(false, false, 1, 2, 0) && !wants_work(false, false, 1, 2, 1));
    }

    #[test]
    fn underflow_is_an_option_with_a_clear_error() {
        let p = Policy::parse("adm-central:underflow=3").unwrap();
        assert!(matches!(p.kind, PolicyKind::Adm(Adm { underflow: 3, .. })));
        let p = Policy::parse("adm-hier:underflow=0,radix=4").unwrap();
        assert!(matches!(p.kind, PolicyKind::Adm(Adm { underflow: 0, radix: 4, .. })));
        for bad in ["adm-central:underflow=-1", "adm-central:underflow=x", "adm-hier:underflow=5000"] {
            let e = Policy::parse(bad).unwrap_err().to_string();
            assert!(e.contains("underflow"), "{bad}: {e}");
        }
    }

    #[test]
    fn thresholds_are_exponential() {
        assert_eq!([0, 1, 2, 3, 4, 7, 8].map(next_report_threshold), [1, 2, 4, 4, 8, 8, 16]);
    }

    #[test]
    fn counting_depths_double() {
        assert_eq!(report_depth(1, 5, 100), usize::MAX, "one worker never reports");
        assert_eq!(report_depth(4, 0, 100), 0, "believed empty: count at the next join");
        assert_eq!(report_depth(4, 3, 100), 200);
        assert_eq!(recount_depth(10), 74);
        assert_eq!(recount_depth(1000), 2000);
        assert_eq!(recount_depth(usize::MAX / 2 + 1), usize::MAX);
        assert_eq!(hand_to_idle(true, true), 1);
        assert_eq!(hand_to_idle(true, false) + hand_to_idle(false, true), 0);
    }

    #[test]
    fn handoff_looks_at_its_own_partition_after_itself() {
        let central = Tree::single(20);
        assert_eq!(handoff_candidates(&central, 3).collect::<Vec<_>>(), vec![4, 5, 6, 7, 8, 9, 10, 11], "at most HANDOFF_PROBES");
        assert_eq!(handoff_candidates(&central, 19).take(2).collect::<Vec<_>>(), vec![0, 1], "wraps around");
        assert_eq!(handoff_candidates(&Tree::single(2), 1).collect::<Vec<_>>(), vec![0]);
        assert_eq!(handoff_candidates(&Tree::single(1), 0).count(), 0, "alone: nobody");
        let hier = Adm { radix: 4, burst: 8, dedicated_manager: false, notify: Notify::Poll, underflow: 0, handoff: Handoff::Idle }.tree(16);
        assert_eq!(handoff_candidates(&hier, 6).collect::<Vec<_>>(), vec![7, 4, 5], "the other workers of group 4..8");
    }

    #[test]
    fn params_give_the_tree_and_the_hosts() {
        let a = Adm { radix: 4, burst: 8, dedicated_manager: false, notify: Notify::Poll, underflow: 0, handoff: Handoff::Idle };
        assert_eq!(a.tree(16).levels, 2);
        assert_eq!(a.hosted_managers(16, 0).len(), 2);
        assert_eq!(a.hosted_managers(16, 4).len(), 1);
        assert!(a.hosted_managers(16, 5).is_empty());
        let all = a.all_managers(16);
        assert_eq!((all.len(), all[0].len(), all[1].len()), (2, 4, 1));
        let single = Adm { radix: 0, ..a };
        assert_eq!(single.tree(16), Tree::single(16));
        assert!(Adm { dedicated_manager: true, ..a }.hosted_managers(16, 0).is_empty());
        let p = Policy::parse("adm-central").unwrap();
        assert!(matches!(
            p.kind,
            PolicyKind::Adm(Adm {
                radix: 0,
                burst: 8,
                dedicated_manager: false,
                notify: Notify::Interrupt { bound_us: 100 },
                underflow: DEFAULT_UNDERFLOW,
                handoff: Handoff::Idle
            })
        ));
        assert!(matches!(Policy::parse("adm-hier:handoff=manager").unwrap().kind, PolicyKind::Adm(Adm { handoff: Handoff::Manager, .. })));
        assert!(matches!(Policy::parse("adm-hier:handoff=sleeper").unwrap().kind, PolicyKind::Adm(Adm { handoff: Handoff::Sleeper, .. })));
        assert!(Policy::parse("adm-central:handoff=nobody").unwrap_err().to_string().contains("handoff"));
    }
}
