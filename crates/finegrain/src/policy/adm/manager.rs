//! A manager's decisions (`ManagerNode`): what it believes of its children,
//! whom it pairs, how a steal is spread over a partition, when it unblocks,
//! how each action is routed (`route`), and the phase tokens it counts on
//! the way to the root (`TokenBook`).

use super::{next_report_threshold, steal_amount, wants_work, Tree};
use std::ops::Range;

/// What a manager decides to do after a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Ask child `victim` (worker or partition) to send `k` tasks to the
    /// stealer(s) whose first worker is `stealer_first`. `ends`: the level
    /// of the manager that waits for this steal to end, whose end the
    /// stealer's `STEALER_UPDATE` reports (`None`: one share of a steal
    /// split over a partition, whose end another share reports).
    Steal { victim: usize, stealer_first: usize, k: usize, ends: Option<u32> },
    /// Tell the parent manager this partition's aggregate count, whether it
    /// is starving, and whether a worker in it waits for a `join` or scope
    /// ([`ManagerNode::on_update_waiting`]). `ends`: this report passes up
    /// the end of a steal into this partition that the manager at that
    /// level decided ([`ManagerNode::on_update_ending`]).
    Update { count: usize, starving: bool, waiting: bool, ends: Option<u32> },
    /// Nothing left anywhere: workers may park.
    Unblock,
}

/// Where an [`Action`] of the manager of partition `part` at `level` goes: a
/// message to a worker, or to another manager of the tree. Both manager hosts
/// (workers, `manager=worker`; one thread, `manager=dedicated`) deliver these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// `STEAL` to worker `victim`: send `k` tasks to worker `stealer`, whose
    /// `STEALER_UPDATE` reports the end for the manager at level `ends`.
    StealWorker { victim: usize, stealer: usize, k: usize, ends: Option<u32> },
    /// `STEAL` to the manager of partition `part` at `level`, for the
    /// partition that starts at worker `stealer_first`.
    StealPartition { level: u32, part: usize, stealer_first: usize, k: usize, ends: Option<u32> },
    /// `UPDATE` to the manager of partition `part` at `level`, from its child
    /// partition `child`.
    Update { level: u32, part: usize, child: usize, count: usize, starving: bool, waiting: bool, ends: Option<u32> },
    /// `UNBLOCK` to worker `w`.
    UnblockWorker(usize),
    /// `UNBLOCK` to the manager of partition `part` at `level`.
    UnblockPartition { level: u32, part: usize },
}

/// The messages that carry out `action` of the manager of partition `part`
/// at `level`: steals and unblocks go down the tree, updates up.
pub fn route(tree: &Tree, level: u32, part: usize, action: Action) -> Vec<Route> {
    match action {
        Action::Steal { victim, stealer_first, k, ends } if level == 0 => vec![Route::StealWorker { victim, stealer: stealer_first, k, ends }],
        Action::Steal { victim, stealer_first, k, ends } => vec![Route::StealPartition { level: level - 1, part: victim, stealer_first, k, ends }],
        Action::Update { count, starving, waiting, ends } => {
            vec![Route::Update { level: level + 1, part: part / tree.radix, child: part, count, starving, waiting, ends }]
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
    /// Underflow threshold ([`super::Adm::underflow`]); workers only.
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

    /// This manager with underflow threshold `u` ([`super::Adm::underflow`]).
    pub fn with_underflow(mut self, u: usize) -> ManagerNode {
        self.underflow = u;
        self
    }

    fn idx(&self, child: usize) -> Option<usize> {
        self.children.contains(&child).then(|| child - self.children.start)
    }

    /// Children with a steal in flight (decided, its end not back yet).
    pub fn in_flight(&self) -> usize {
        self.asked.iter().filter(|&&a| a).count()
    }

    pub fn total(&self) -> usize {
        self.counts.iter().sum()
    }

    /// The partition cannot feed its own hungry children: more of them
    /// starve than it holds queued tasks (at level 0, more idle workers than
    /// tasks). Its parent then serves it from outside, as a level-0 manager
    /// serves a worker below the underflow threshold; with only "nothing
    /// queued and someone idle", a partition of 64 workers holding three
    /// tasks was left to feed 63 idle workers from them.
    pub fn partition_starving(&self) -> bool {
        self.starving.iter().filter(|&&s| s).count() > self.total()
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
        self.on_update_ending(tree, child, count, starving, waiting, None)
    }

    /// An `UPDATE` from a child partition that may pass up the end of a
    /// steal into it (`ends`: the level of the manager that decided it).
    ///
    /// A manager above level 0 serves a starving child partition once at a
    /// time, as a level-0 manager serves a worker: the steal is in flight
    /// until its end comes back. Table 2 of ASPLOS 2010 gives `STEAL` and
    /// `STEALER_UPDATE` a level field; here the stealer worker's
    /// `STEALER_UPDATE` goes to its level-0 manager, and each manager below
    /// the deciding level passes the end up in its next `UPDATE`, sent at
    /// once. Without it a manager cannot tell a partition being fed from one
    /// forgotten: it either pairs it again on every message (serving it
    /// twice) or never (leaving it idle), and the hierarchy loses most of
    /// its workers at three levels (`docs/policies.md`).
    pub fn on_update_ending(&mut self, tree: &Tree, child: usize, count: usize, starving: bool, waiting: bool, ends: Option<u32>) -> Vec<Action> {
        if let Some(i) = self.idx(child) {
            self.counts[i] = count;
            self.starving[i] = starving;
            self.waiting[i] = starving && waiting;
            if ends == Some(self.level) {
                self.asked[i] = false;
            }
        }
        self.decide(tree, ends.filter(|&l| l > self.level))
    }

    /// `VICTIM_UPDATE`: the victim's real count after sending.
    pub fn on_victim_update(&mut self, tree: &Tree, child: usize, left: usize) -> Vec<Action> {
        if let Some(i) = self.idx(child) {
            self.counts[i] = left;
        }
        self.decide(tree, None)
    }

    /// `STEALER_UPDATE`: the burst into worker `child` is over. `ends`: the
    /// level of the manager whose steal it ends (`Some(0)`: this one's; a
    /// higher level: passed up in an `UPDATE` at once; `None`: one share of a
    /// steal split over a partition, which ends nothing).
    pub fn on_stealer_update(&mut self, tree: &Tree, child: usize, count: usize, starving: bool, ends: Option<u32>) -> Vec<Action> {
        if let Some(i) = self.idx(child) {
            self.counts[i] = count;
            self.starving[i] = starving;
            self.waiting[i] = false;
            if ends == Some(self.level) {
                self.asked[i] = false;
            }
        }
        self.decide(tree, ends.filter(|&l| l > self.level))
    }

    /// Rebalance, then unblock (the root) or report up (any other manager)
    /// when what it reported last has changed, or when `pass_up` is the end
    /// of a steal a manager above waits for.
    fn decide(&mut self, tree: &Tree, pass_up: Option<u32>) -> Vec<Action> {
        let mut out = Vec::new();
        self.rebalance(tree, &mut out);
        let any_waiting = self.waiting.iter().any(|&w| w);
        let all_idle = self.starving.iter().all(|&s| s) && self.total() == 0 && !any_waiting;
        if self.is_root {
            debug_assert!(pass_up.is_none(), "no manager above the root");
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
            if changed || pass_up.is_some() {
                self.reported = Some(now);
                out.push(Action::Update { count: now.0, starving: now.1, waiting: now.2, ends: pass_up });
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
            // In flight until its end comes back (`on_stealer_update`,
            // `on_update_ending`).
            self.asked[s] = true;
            out.push(Action::Steal {
                victim: self.children.start + v,
                stealer_first: tree.child_first_worker(self.level, self.children.start + s),
                k,
                ends: Some(self.level),
            });
        }
    }

    /// A `STEAL` for this whole partition (sent by the parent): split `k` over
    /// the children by their counts; child `i` sends to the `i`-th part of the
    /// stealer partition that starts at worker `stealer_first`. The first
    /// share carries `ends`, the end the deciding manager waits for; if no
    /// child is believed to hold a task, an empty steal goes down to the
    /// first child all the same, so that the end is reported (its victim
    /// answers with an empty last `TASK`).
    pub fn distribute(&mut self, tree: &Tree, stealer_first: usize, k: usize, ends: Option<u32>) -> Vec<Action> {
        // The parent now believes `k` fewer tasks here: so does the memo of
        // what this manager reported, or a partition the parent believes
        // empty would never report the work it still holds (its count is
        // not below what it last reported, so no threshold is crossed).
        if let Some(r) = &mut self.reported {
            r.0 = r.0.saturating_sub(k);
        }
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
            let ends = if out.is_empty() { ends } else { None };
            out.push(Action::Steal { victim: self.children.start + i, stealer_first: target, k: share, ends });
        }
        if out.is_empty() && ends.is_some() {
            out.push(Action::Steal { victim: self.children.start, stealer_first, k: 0, ends });
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
