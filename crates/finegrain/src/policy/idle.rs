//! What a worker that found no work does next: spin, yield the core, or park.
//!
//! Every mechanism's idle loop (one loop, `worker.rs`) and the simulator ask
//! [`Idle::next`] after each round that found nothing; a worker whose thread
//! has just started asks [`park_at_start`] first.

use super::Mechanism;

/// Rounds of yielding after the spinning rounds, before a worker parks.
pub const DEFAULT_YIELD_ROUNDS: u32 = 16;

/// Most CPU pause hints in one spinning round: the backoff doubles from one
/// pause per round up to this many.
pub const MAX_SPIN_PAUSES: u32 = 64;

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
}

impl Idle {
    /// `spin` spinning rounds, then the default number of yielding rounds.
    pub const fn with_spin(spin: u32) -> Idle {
        Idle { spin_rounds: spin, yield_rounds: DEFAULT_YIELD_ROUNDS }
    }

    /// Decision after `failed_rounds` consecutive rounds of finding nothing.
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
        let i = Idle { spin_rounds: 2, yield_rounds: 1 };
        let got = [i.next(0, false), i.next(1, false), i.next(2, false), i.next(3, false)];
        assert_eq!(got, [IdleAction::Spin { pauses: 1 }, IdleAction::Spin { pauses: 2 }, IdleAction::Yield, IdleAction::Park]);
        assert_eq!(i.next(0, true), IdleAction::Spin { pauses: 1 }, "told nothing is left: spin first");
        assert_eq!(i.next(2, true), IdleAction::Park, "then park, without yielding");
        let long = Idle::with_spin(100);
        assert_eq!(long.next(50, false), IdleAction::Spin { pauses: MAX_SPIN_PAUSES });
        assert_eq!(long.yield_rounds, DEFAULT_YIELD_ROUNDS);
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
