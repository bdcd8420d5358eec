//! What a worker that found no work does next: spin, yield the core, or park.
//!
//! Every mechanism's idle loop (one loop, `worker.rs`) asks
//! [`Idle::next_timed`] after each round that found nothing, with how long it
//! has been without work; the simulator, which has no wall clock, asks
//! [`Idle::next`] (the rounds alone). A worker whose thread has just started
//! asks [`park_at_start`] first.
//!
//! The budget is a time, not a count of rounds: after its spinning and
//! yielding rounds a worker stays awake, yielding its core, for
//! [`DEFAULT_AWAKE_US`] more, then parks. A parked worker costs nothing but
//! takes a wake-up, which on a virtual machine can be late by a scheduling
//! tick (`docs/policies.md`, "The idle budget"); a worker that is still
//! awake when work comes sees it at its next round. A round-based budget
//! lasts a few microseconds on an idle machine and far longer on a loaded one;
//! a time lasts the same on both. Where the others stand (facts, not code):
//! LLVM's OpenMP runtime keeps a waiting thread busy for `KMP_BLOCKTIME`,
//! 200 ms by default (0 on hybrid CPUs), measured with the time-stamp
//! counter, yielding while the machine is oversubscribed; libgomp spins
//! `GOMP_SPINCOUNT` = 300,000 times (100 when oversubscribed); oneTBB pauses
//! `2 * (slots + 1)` times, yields 100 times, and since 2021.13 a worker
//! keeps yielding for 1 ms (by the steady clock) before it leaves an arena,
//! unless another arena wants threads; Rayon yields 32 rounds, announces that
//! it is sleepy, yields once more and sleeps. Like oneTBB, a worker here gives
//! the budget up when another pool of the process is called from outside
//! (`pool_in_use`): an idle pool's workers then yield to it, not against it.

use super::Mechanism;

/// Rounds of yielding after the spinning rounds, before a worker parks, when
/// its time budget is spent (or zero).
pub const DEFAULT_YIELD_ROUNDS: u32 = 16;

/// Most CPU pause hints in one spinning round: the backoff doubles from one
/// pause per round up to this many.
pub const MAX_SPIN_PAUSES: u32 = 64;

/// How long an idle worker stays awake after its spinning and yielding
/// rounds before it parks, in microseconds (the common option `awake`).
/// Longer than the gaps between the parts of a run of a few milliseconds
/// (and `steal_latency`'s pauses of 1 to 3 ms), so that such a run never
/// waits on a parked worker; short enough that a pool left idle is silent
/// long before the idle-CPU test's 50 ms (`tests/idle.rs`). The
/// measurements behind it, and what it costs on a machine with no idle CPU
/// (where `awake=0` is the better choice): `docs/policies.md`, "The idle
/// budget".
pub const DEFAULT_AWAKE_US: u32 = 5_000;

/// Largest `awake` a spec may give, in microseconds (one second).
pub const MAX_AWAKE_US: u32 = 1_000_000;

/// Within the budget, how the worker stays awake: 0, by yielding its core
/// (the common option `nap`); else by parking for at most this many
/// microseconds at a time. `docs/policies.md`, "The idle budget", has the
/// measurements that chose it.
pub const DEFAULT_NAP_US: u32 = 0;

/// Largest `nap` a spec may give, in microseconds.
pub const MAX_NAP_US: u32 = 100_000;

/// What a worker that found no work does next.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IdleAction {
    /// Issue this many CPU pause hints, then look again (a worker that
    /// receives messages stops early when one arrives).
    Spin { pauses: u32 },
    /// Give the core away, then look again.
    Yield,
    /// Announce sleep and park until woken.
    Park,
}

/// The idle policy: how long to spin and yield before parking.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Idle {
    pub spin_rounds: u32,
    pub yield_rounds: u32,
    /// Microseconds a worker keeps yielding after its rounds before it
    /// parks; 0: the rounds alone decide.
    pub awake_us: u32,
    /// Within the `awake_us` budget, park for at most this many microseconds
    /// at a time instead of yielding ([`Idle::nap_us`]); 0: yield.
    pub nap_us: u32,
}

impl Idle {
    /// `spin` spinning rounds, then the default number of yielding rounds
    /// and the default time awake.
    pub const fn with_spin(spin: u32) -> Idle {
        Idle { spin_rounds: spin, yield_rounds: DEFAULT_YIELD_ROUNDS, awake_us: DEFAULT_AWAKE_US, nap_us: DEFAULT_NAP_US }
    }

    /// Decision after `failed_rounds` consecutive rounds of finding nothing,
    /// by the rounds alone (no time budget).
    /// `nothing_left`: the worker has been told that no task is left anywhere
    /// (the message policies' `UNBLOCK`), so it parks without the yielding
    /// rounds. It still spins first: `UNBLOCK` also comes between two
    /// phases of a program whose next phase starts a moment later (a
    /// timestep loop: Task Bench's patterns), and a parked worker takes far
    /// longer to wake than the spin lasts (`docs/policies.md`, "Hand-off to
    /// an idle worker").
    #[inline]
    pub fn next(&self, failed_rounds: u32, nothing_left: bool) -> IdleAction {
        if failed_rounds < self.spin_rounds {
            IdleAction::Spin { pauses: 1 << failed_rounds.min(MAX_SPIN_PAUSES.trailing_zeros()) }
        } else if !nothing_left && failed_rounds < self.spin_rounds + self.yield_rounds {
            IdleAction::Yield
        } else {
            IdleAction::Park
        }
    }

    /// [`next`](Idle::next) with the time budget: `idle_us`, how long ago
    /// the rounds alone would first have parked the worker since its last
    /// task (a park that found nothing does not renew it), or the pool was
    /// last called from outside, whichever is later (a pool called again and
    /// again keeps its workers awake between calls, as OpenMP's threads stay
    /// awake between parallel regions, even those that got no task of the
    /// last call); `pool_in_use`, no other pool of the
    /// process has been called from outside since this one was (else the
    /// budget is given up and the rounds alone decide, as oneTBB's workers
    /// leave at once when another arena wants threads). Within the budget
    /// the worker yields after its spinning rounds, `UNBLOCK` or not: the
    /// next job or phase of the same program comes a moment later more
    /// often than not.
    /// A worker told [`IdleAction::Park`] parks for at most
    /// [`nap_us`](Idle::nap_us) when that gives a bound.
    #[inline]
    pub fn next_timed(&self, failed_rounds: u32, nothing_left: bool, idle_us: u64, pool_in_use: bool) -> IdleAction {
        match self.next(failed_rounds, nothing_left) {
            IdleAction::Park if self.within_budget(idle_us, pool_in_use) && self.nap_us == 0 => IdleAction::Yield,
            action => action,
        }
    }

    /// How long a park that [`next_timed`](Idle::next_timed) asked for with
    /// the same arguments may last: `nap_us` within the budget (the worker
    /// is listed as asleep, so new work wakes it as any sleeper, and it looks
    /// again when the nap ends), `None` (until woken) past it.
    #[inline]
    pub fn nap_us(&self, idle_us: u64, pool_in_use: bool) -> Option<u64> {
        (self.nap_us > 0 && self.within_budget(idle_us, pool_in_use)).then_some(self.nap_us as u64)
    }

    #[inline]
    fn within_budget(&self, idle_us: u64, pool_in_use: bool) -> bool {
        pool_in_use && idle_us < self.awake_us as u64
    }

    /// Does the loop need the time since the last task for this round? Only
    /// once the rounds alone would park: the clock is not read while the
    /// worker spins.
    #[inline]
    pub fn needs_clock(&self, failed_rounds: u32, nothing_left: bool) -> bool {
        self.awake_us > 0 && matches!(self.next(failed_rounds, nothing_left), IdleAction::Park)
    }
}

/// Does a worker park as soon as its thread starts, before it looks for work?
///
/// Under work stealing and the central unit, yes: parking goes through the
/// sleep protocol, which looks for work once more after announcing the sleep,
/// so a task already queued is not missed, and a task queued later wakes a
/// sleeper. A pool has no task before its first one is submitted, so the
/// spinning and yielding rounds a starting worker would otherwise go through
/// could only find nothing, and each visits every other worker: `n^2` steal
/// attempts (or scans of the unit) before an `n`-worker pool is idle, where
/// parking at once makes start-up linear in `n`.
///
/// Under the message policies, no: a manager counts a worker as busy until
/// the worker reports that it is starving (`adm::ManagerNode::new`), so a
/// worker must run its loop, whose first empty search sends that report; it
/// parks when the root answers that no task is left anywhere.
///
/// Under `static`, no either: a piece dealt to a worker wakes only that
/// worker, and only its idle loop's park re-checks its own inbox after
/// announcing the sleep (the start-up park looks at the injector alone).
pub const fn park_at_start(m: Mechanism) -> bool {
    match m {
        Mechanism::Ws | Mechanism::Unit => true,
        Mechanism::Adm | Mechanism::Fixed => false,
    }
}

/// After a worker found a task while `sleepers` workers sleep: should it
/// wake one more before it runs the task? Yes while work is still visible
/// (`work_left`): the worker may block in user code once the task starts,
/// and a queue is announced only when it goes from empty to non-empty, so
/// each worker that takes a task passes the wake on to the next sleeper
/// while tasks remain (a chain: Rayon and tokio both wake the next thread
/// when a searching thread finds work; here only while some is left, so a
/// single task wakes nobody).
#[inline]
pub fn pass_on_wake(sleepers: usize, work_left: bool) -> bool {
    sleepers > 0 && work_left
}

/// First interval of the watch ([`watch_interval_us`]), in microseconds.
pub const WATCH_FIRST_US: u64 = 1_000;

/// Most doublings of the watch interval while the watcher keeps finding
/// nothing: the longest a stranded task can wait (see [`watch_interval_us`]).
pub const WATCH_MAX_DOUBLINGS: u32 = 4;

/// Do idle workers of `m` keep a watch (see [`watch_interval_us`])? Under
/// work stealing and the central unit, yes: their queued tasks can be taken
/// by anyone. The message policies have their own rescue (`policy::notify`),
/// and under `static` only a piece's owner may run it.
pub const fn keeps_watch(m: Mechanism) -> bool {
    matches!(m, Mechanism::Ws | Mechanism::Unit)
}

/// The watch: one parked worker at a time (the watcher) parks with a timeout
/// while some worker is awake, and looks for work when it expires. The
/// push that makes a queue non-empty wakes a sleeper, and the chain
/// ([`pass_on_wake`]) wakes the rest, but a push onto a queue that a thief
/// is emptying at that moment can be missed by both (the owner saw the
/// queue non-empty, the thief saw it empty: only a fence on every push would
/// close that window, and it would cost every `join`). If the owner then
/// blocks in user code, nobody awake looks at its queue; the watcher does,
/// within this interval: `WATCH_FIRST_US`, doubled after each watch that
/// found nothing (`misses`), up to `WATCH_MAX_DOUBLINGS` times. `None`:
/// park until woken (every worker asleep: nobody can be blocked holding a
/// task; or a pool of one worker).
#[inline]
pub fn watch_interval_us(misses: u32, sleepers: usize, workers: usize) -> Option<u64> {
    if workers < 2 || sleepers >= workers {
        None
    } else {
        Some(WATCH_FIRST_US << misses.min(WATCH_MAX_DOUBLINGS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_workers_that_need_not_report_park_at_start() {
        assert!(park_at_start(Mechanism::Ws));
        assert!(park_at_start(Mechanism::Unit));
        assert!(!park_at_start(Mechanism::Adm), "a manager waits for its workers' first reports");
        assert!(!park_at_start(Mechanism::Fixed), "only the idle loop's park checks the inbox");
    }

    #[test]
    fn spins_with_backoff_then_yields_then_parks() {
        let i = Idle { spin_rounds: 2, yield_rounds: 1, awake_us: 0, nap_us: 0 };
        let got = [i.next(0, false), i.next(1, false), i.next(2, false), i.next(3, false)];
        assert_eq!(got, [IdleAction::Spin { pauses: 1 }, IdleAction::Spin { pauses: 2 }, IdleAction::Yield, IdleAction::Park]);
        assert_eq!(i.next(0, true), IdleAction::Spin { pauses: 1 }, "told nothing is left: spin first");
        assert_eq!(i.next(2, true), IdleAction::Park, "then park, without yielding");
        let long = Idle { awake_us: 0, ..Idle::with_spin(100) };
        assert_eq!(long.next(50, false), IdleAction::Spin { pauses: MAX_SPIN_PAUSES });
        assert_eq!(long.yield_rounds, DEFAULT_YIELD_ROUNDS);
    }

    #[test]
    fn stays_awake_for_the_budget_unless_another_pool_is_called() {
        let i = Idle { spin_rounds: 2, yield_rounds: 1, awake_us: 1_000, nap_us: 0 };
        assert_eq!(i.next_timed(0, false, 0, true), IdleAction::Spin { pauses: 1 }, "spins first");
        assert_eq!(i.next_timed(2, false, 0, true), IdleAction::Yield);
        assert_eq!(i.next_timed(50, false, 999, true), IdleAction::Yield, "rounds spent, time left");
        assert_eq!(i.next_timed(50, true, 999, true), IdleAction::Yield, "UNBLOCK: still awake for the budget");
        assert_eq!(i.next_timed(50, false, 1_000, true), IdleAction::Park, "budget spent");
        assert_eq!(i.next_timed(50, false, 10, false), IdleAction::Park, "another pool was called: give the budget up");
        assert_eq!(i.next_timed(2, false, 10, false), IdleAction::Yield, "but not the yielding rounds");
        assert!(!i.needs_clock(1, false) && !i.needs_clock(2, false), "no clock while the rounds decide");
        assert!(i.needs_clock(3, false) && i.needs_clock(2, true));
        assert_eq!(i.nap_us(10, true), None, "no naps: it yields");
        let naps = Idle { nap_us: 50, ..i };
        assert_eq!(naps.next_timed(50, false, 999, true), IdleAction::Park, "a nap");
        assert_eq!(naps.nap_us(999, true), Some(50));
        assert_eq!(naps.nap_us(1_000, true), None, "past the budget: parked until woken");
        assert_eq!(naps.nap_us(10, false), None, "another pool was called");
        let rounds = Idle { awake_us: 0, ..i };
        assert!(!rounds.needs_clock(50, false));
        assert_eq!(rounds.next_timed(50, false, 0, true), IdleAction::Park, "awake=0: the rounds alone");
        assert_eq!(Idle::with_spin(64).awake_us, DEFAULT_AWAKE_US);
    }

    #[test]
    fn the_wake_is_passed_on_while_work_is_left() {
        assert!(pass_on_wake(3, true));
        assert!(!pass_on_wake(0, true), "nobody to wake");
        assert!(!pass_on_wake(3, false), "nothing for a woken worker to find");
    }

    #[test]
    fn one_watcher_while_someone_is_awake_with_a_bounded_interval() {
        assert_eq!(watch_interval_us(0, 3, 8), Some(WATCH_FIRST_US));
        assert_eq!(watch_interval_us(2, 3, 8), Some(4 * WATCH_FIRST_US));
        assert_eq!(watch_interval_us(99, 3, 8), Some(WATCH_FIRST_US << WATCH_MAX_DOUBLINGS), "capped");
        assert_eq!(watch_interval_us(0, 8, 8), None, "everyone asleep");
        assert_eq!(watch_interval_us(0, 0, 1), None, "alone");
        assert!(keeps_watch(Mechanism::Ws) && keeps_watch(Mechanism::Unit));
        assert!(!keeps_watch(Mechanism::Adm) && !keeps_watch(Mechanism::Fixed));
    }
}
