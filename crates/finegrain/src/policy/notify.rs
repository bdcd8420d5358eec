//! How a worker under the message policies learns that another worker waits
//! for it (`notify=poll|interrupt`), and the decisions of the interrupt path.
//!
//! Sanchez, Yoo, Kozyrakis, "Flexible Architectural Support for Fine-Grain
//! Scheduling" (ASPLOS 2010), sections 3 and 4: a message raises a user-level
//! interrupt at its receiver, whose handler runs at once unless the receiver
//! has disabled interrupts for a short section (`adm_di`/`adm_ei`, Table 1).
//!
//! - `poll`: messages are handled at the receiver's scheduling points only
//!   (every spawn, loop chunk, task boundary and idle round). A task that runs
//!   long without one, or blocks, keeps the work it queued from everyone.
//! - `interrupt`: a starving worker that has waited `bound` microseconds
//!   without receiving work asks a victim directly and interrupts it (the
//!   runtime raises a thread-directed signal); the victim's handler hands over
//!   its oldest task at once, or as soon as it leaves a deferral section.
//!
//! Only decisions live here (no threads, no clocks): the runtime (`adm/interrupt.rs`)
//! and the simulator call them with the times they measure.

/// How the receiver of a request notices it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Notify {
    /// At its next scheduling point only.
    Poll,
    /// A request unanswered after `bound_us` microseconds interrupts a victim.
    Interrupt { bound_us: u32 },
}

/// Default bound before a starving worker interrupts a victim, in
/// microseconds. Far above a scheduling point's usual delay under fine-grain
/// tasks (a few microseconds), so that in the common case no signal is sent,
/// and far below the task lengths at which a lost core costs (milliseconds).
pub const DEFAULT_BOUND_US: u32 = 100;

impl Notify {
    /// The bound, if requests interrupt.
    pub fn bound_us(self) -> Option<u32> {
        match self {
            Notify::Poll => None,
            Notify::Interrupt { bound_us } => Some(bound_us),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Notify::Poll => "poll",
            Notify::Interrupt { .. } => "interrupt",
        }
    }
}

/// Most doublings of the interval between attempts that found nothing.
pub const MAX_BACKOFF: u32 = 7;

/// The interval between a worker's attempts after `empty` attempts in a row
/// found the victims with nothing to give: the bound, doubled each time up to
/// `2^MAX_BACKOFF` times (12.8 ms for the default bound), so that a pool in
/// which one task runs long without spawning is not interrupted for nothing
/// every `bound`.
pub fn rescue_interval_us(bound_us: u32, empty: u32) -> u64 {
    (bound_us as u64) << empty.min(MAX_BACKOFF)
}

/// A rescue request came back EMPTY, the `empty_in_round`-th in a row of
/// the current round (counting this one), with `busy_others` workers busy
/// besides the requester. Does the interval double now? Once per round of
/// as many EMPTY answers as there are busy victims, not per answer: when
/// many workers block at once (a barrier), most of them hold nothing and
/// one holds the rest, and doubling at each EMPTY answer made the requester
/// take seconds to reach that one. Returns the new count in the round and
/// whether the round is over (the interval doubles).
pub fn empty_answer(empty_in_round: u32, busy_others: usize) -> (u32, bool) {
    if empty_in_round as usize >= busy_others.max(1) {
        (0, true)
    } else {
        (empty_in_round, false)
    }
}

/// Should a starving worker interrupt a victim now? It has waited
/// `starving_us` since it found no work and `since_last_us` since its last
/// attempt, after `empty` attempts in a row that got nothing;
/// `nothing_left`: the root said no task is left anywhere (`UNBLOCK`), so
/// nobody holds work to give.
pub fn rescue_due(notify: Notify, workers: usize, nothing_left: bool, starving_us: u64, since_last_us: u64, empty: u32) -> bool {
    match notify.bound_us() {
        Some(b) => workers > 1 && !nothing_left && starving_us >= b as u64 && since_last_us >= rescue_interval_us(b, empty),
        None => false,
    }
}

/// The victim of attempt number `attempt` of worker `me` of `n`: the next
/// worker after `me + attempt` (in turn) that is `busy` running a task, or
/// `None` if no other worker is. The requester does not know who holds work
/// (the managers' counts are reported only at thresholds, and the manager may
/// be the very worker that blocks), but only a worker running a task can
/// hold unshared work (its frame marks and private queue): an idle one would
/// answer "empty" and its interrupt would be spurious.
pub fn rescue_victim(me: usize, n: usize, attempt: u64, busy: impl Fn(usize) -> bool) -> Option<usize> {
    debug_assert!(me < n);
    if n < 2 {
        return None;
    }
    let first = (attempt % (n as u64 - 1)) as usize;
    (0..n - 1).map(|k| (me + 1 + (first + k) % (n - 1)) % n).find(|&v| busy(v))
}

/// How long a starving worker may park before it looks again (so that it can
/// interrupt a victim): the interval of its next attempt while it has not
/// been told `UNBLOCK` and some other worker is busy running a task (and so
/// may hold work it has not shared). `None`: park until woken; nobody can
/// hold unshared work, and a worker that starts running a task wakes the
/// workers parked this way (`adm/interrupt.rs`).
pub fn park_timeout_us(notify: Notify, workers: usize, nothing_left: bool, other_busy: bool, empty: u32) -> Option<u64> {
    match notify.bound_us() {
        Some(b) if workers > 1 && !nothing_left && other_busy => Some(rescue_interval_us(b, empty)),
        _ => None,
    }
}

/// A worker that starts running a task while others are parked without a
/// timeout (`park_timeout_us` gave `None`): when to wake them, so that they
/// park again with one and can interrupt it if it then runs long holding
/// work it has not shared.
///
/// - `Now`: at once.
/// - `AtFirstOffer`: at the first slow path that offers work, after the
///   hand-off. Chosen when the worker hands a task to an idle worker
///   (`handoff_to_idle`), its very next `join` and push are slow paths
///   (`next_spawn_offers`: its manager believes it empty, `adm::report_depth`
///   and `adm::next_report_threshold` for a count of 0) and it holds nothing
///   besides the task it starts (`holds_nothing`; a burst of stolen tasks,
///   say, waits in its queue). Then the wake comes before any of its work
///   could wait, and the first task goes to a worker already being woken by
///   its message. A worker that never spawns holds nothing to take.
///
/// Why not always at once: on a 2-vCPU VM, a worker woken at the moment its
/// waker started running (a job taken from outside, a `join` resumed) took
/// about 1 ms to start in most rounds of `steal_latency`, against about
/// 15 µs when woken by the hand-off's own message (`docs/policies.md`,
/// "Hand-off to an idle worker").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WakeDeep {
    Now,
    AtFirstOffer,
}

#[inline]
pub fn wake_deep_sleepers(handoff_to_idle: bool, next_spawn_offers: bool, holds_nothing: bool) -> WakeDeep {
    if handoff_to_idle && next_spawn_offers && holds_nothing {
        WakeDeep::AtFirstOffer
    } else {
        WakeDeep::Now
    }
}

/// Where a victim's thread is when a requester is about to interrupt it
/// (`/proc/self/task/TID/syscall` and `status` in the runtime).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VictimCall {
    /// Blocked in a system call that an interrupt makes fail with `EINTR`
    /// even under `SA_RESTART` (a sleep, `poll`, `select`, `epoll_wait`, a
    /// signal wait, System V IPC: signal(7)).
    Unrestarted,
    /// Runnable: in user code, or just woken inside a system call and about
    /// to return from it. `blocked`: how many times the thread has blocked
    /// so far (its voluntary context switches); `ran_ns`: its time on a CPU.
    Running { blocked: u64, ran_ns: u64 },
    /// Blocked in a call that `SA_RESTART` restarts (a futex: locks,
    /// condition variables, channels), or unknown.
    Other,
}

/// How long a posted request may go without a signal because its victim
/// was in a call the signal would interrupt ([`interrupt_now`]), in
/// microseconds. A victim that sleeps in a loop (a retry loop, polling a
/// lock) would otherwise never be interrupted, and what it holds queued
/// would wait for as long as the loop runs: forever, if the loop waits for
/// that very work (a lock whose holder waits for a `join` half queued on the
/// sleeper). Past it, the signal goes out and such a call may fail with
/// `EINTR` (`docs/blocking.md`).
pub const PATIENCE_US: u64 = 50_000;

/// Interrupt the victim now, given this look at it and the previous one (an
/// interval earlier, for the same request), when requesters have found it
/// asleep in a call a signal would make fail at every look for `waited_us`? Not while it is blocked in a call the interrupt would make
/// fail: the request stays posted and is looked at again one interval later
/// (or answered at the victim's next scheduling point). If it is runnable,
/// only if it was runnable at the previous look too, has not blocked in
/// between, and has run on a CPU meanwhile: a thread just woken from a sleep
/// or a `poll` is runnable while still inside the call (a `poll` whose
/// timeout expired returns `EINTR` if a signal comes before it leaves), and
/// on a loaded machine it can wait for a CPU longer than an interval; one
/// that computes without a scheduling point stays runnable, blocks nowhere
/// and runs. So a computing victim is interrupted an interval later than at
/// once (more while it gets no CPU), and one that sleeps in a loop only
/// after [`PATIENCE_US`]; meanwhile requesters ask other victims.
pub fn interrupt_now(now: VictimCall, before: Option<VictimCall>, waited_us: u64) -> bool {
    if waited_us >= PATIENCE_US {
        return true;
    }
    match (now, before) {
        (VictimCall::Unrestarted, _) => false,
        (VictimCall::Running { blocked, ran_ns }, Some(VictimCall::Running { blocked: b, ran_ns: r })) => blocked == b && ran_ns > r,
        (VictimCall::Running { .. }, _) => false,
        (VictimCall::Other, _) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn victims_cycle_over_the_busy_others() {
        let all = |_| true;
        let v: Vec<usize> = (0..6).map(|a| rescue_victim(1, 4, a, all).unwrap()).collect();
        assert_eq!(v, vec![2, 3, 0, 2, 3, 0]);
        assert_eq!((0..3).map(|a| rescue_victim(0, 2, a, all).unwrap()).collect::<Vec<_>>(), vec![1, 1, 1]);
        let only0 = |v| v == 0;
        assert_eq!((0..3).map(|a| rescue_victim(1, 4, a, only0)).collect::<Vec<_>>(), vec![Some(0); 3]);
        assert_eq!(rescue_victim(1, 4, 0, |v| v == 1), None, "only the requester itself is busy");
        assert_eq!(rescue_victim(0, 1, 0, all), None, "alone");
    }

    #[test]
    fn rescue_only_when_interrupting_after_the_bound() {
        let i = Notify::Interrupt { bound_us: 100 };
        assert!(rescue_due(i, 2, false, 100, 100, 0));
        assert!(!rescue_due(i, 2, false, 99, 1000, 0), "not starving long enough");
        assert!(!rescue_due(i, 2, false, 1000, 99, 0), "tried too recently");
        assert!(!rescue_due(i, 2, false, 1000, 399, 2), "backing off after empty answers");
        assert!(rescue_due(i, 2, false, 1000, 400, 2));
        assert!(!rescue_due(i, 2, true, 1000, 1000, 0), "unblocked");
        assert!(!rescue_due(i, 1, false, 1000, 1000, 0), "alone");
        assert!(!rescue_due(Notify::Poll, 2, false, 1000, 1000, 0));
        assert_eq!(park_timeout_us(i, 2, false, true, 0), Some(100));
        assert_eq!(park_timeout_us(i, 2, false, true, 50), Some(12_800));
        assert_eq!(park_timeout_us(i, 2, true, true, 0), None, "unblocked");
        assert_eq!(park_timeout_us(i, 2, false, false, 0), None, "nobody busy: nobody holds work");
        assert_eq!(park_timeout_us(Notify::Poll, 2, false, true, 0), None);
    }

    #[test]
    fn victims_in_unrestarted_calls_are_left_alone_and_runnable_ones_looked_at_twice() {
        let run = |blocked, ran_ns| VictimCall::Running { blocked, ran_ns };
        let now = |call, before| interrupt_now(call, before, 100);
        assert!(!now(VictimCall::Unrestarted, Some(run(3, 10))));
        assert!(!now(run(3, 10), None), "perhaps just woken inside a call");
        assert!(!now(run(4, 20), Some(run(3, 10))), "it blocked in between: sleeping in a loop");
        assert!(!now(run(3, 10), Some(run(3, 10))), "it did not run: perhaps still waiting for a CPU inside the call");
        assert!(!now(run(3, 10), Some(VictimCall::Unrestarted)));
        assert!(now(run(3, 20), Some(run(3, 10))), "runnable, running, never blocking: computing");
        assert!(now(VictimCall::Other, None), "a futex wait restarts");
        assert!(interrupt_now(VictimCall::Unrestarted, None, PATIENCE_US), "a sleeper in a loop is interrupted in the end");
    }

    #[test]
    fn the_interval_doubles_once_per_round_of_busy_victims() {
        assert_eq!(empty_answer(1, 1), (0, true), "one victim: every EMPTY doubles");
        assert_eq!(empty_answer(1, 0), (0, true), "nobody busy any more");
        assert_eq!(empty_answer(3, 8), (3, false));
        assert_eq!(empty_answer(8, 8), (0, true));
    }

    #[test]
    fn deep_sleepers_wait_for_the_first_offer_only_when_it_hands_off() {
        assert_eq!(wake_deep_sleepers(true, true, true), WakeDeep::AtFirstOffer);
        assert_eq!(wake_deep_sleepers(true, false, true), WakeDeep::Now, "its next join may not be a slow path");
        assert_eq!(wake_deep_sleepers(false, true, true), WakeDeep::Now, "its first offer goes to the manager");
        assert_eq!(wake_deep_sleepers(true, true, false), WakeDeep::Now, "it holds work already");
    }
}
