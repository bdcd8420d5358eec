//! `ideal`: the upper bound a scheduler is measured against, a task queue
//! with zero cost and perfect knowledge (Kumar, Hughes, Nguyen, "Carbon:
//! Architectural Support for Fine-Grained Parallelism on Chip
//! Multiprocessors", ISCA 2007, section 6.1: "Ideal", where task queue
//! operations take no time; Carbon comes within a few percent of it).
//!
//! Only a simulator can run it: it is greedy list scheduling over the task
//! graph. Every ready task is visible to every worker at once, an idle worker
//! takes one in the same cycle it appears, a loop splits whenever a worker is
//! idle, and none of it costs anything. The decisions it takes are here, as
//! for every other policy; the simulator's `mech/ideal.rs` calls them.

/// Which ready task an idle worker takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Take {
    /// The newest task it made itself (depth-first on its own work, as a
    /// work-first scheduler keeps its cache warm).
    OwnNewest,
    /// The oldest ready task anywhere (the largest piece of work left, as a
    /// thief takes the top of a deque).
    OldestAnywhere,
}

/// What a worker with nothing to run takes: its own newest ready task if it
/// has one, else the oldest ready task of the chip, else nothing.
#[inline]
pub fn take(own_ready: usize, ready: usize) -> Option<Take> {
    if own_ready > 0 {
        Some(Take::OwnNewest)
    } else if ready > 0 {
        Some(Take::OldestAnywhere)
    } else {
        None
    }
}

/// Whether a running loop piece splits now: on demand, whenever some worker
/// is idle (its half then goes to that worker at no cost).
#[inline]
pub fn split(idle_workers: usize) -> bool {
    idle_workers > 0
}

/// Whether a task just made ready wakes an idle worker (in the same cycle):
/// yes while some worker is idle, unless its maker is about to look for work
/// itself (it waits next, or has nothing left) and this is its only ready
/// task, which it will take (`take` prefers its own): a worker that would
/// only wait gives nothing away, so a chain of joins stays on one worker.
#[inline]
pub fn wake(maker_goes_idle: bool, maker_ready: usize, idle_workers: usize) -> bool {
    idle_workers > 0 && !(maker_goes_idle && maker_ready <= 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_newest_first_then_the_oldest_anywhere() {
        assert_eq!(take(2, 5), Some(Take::OwnNewest));
        assert_eq!(take(0, 5), Some(Take::OldestAnywhere));
        assert_eq!(take(0, 0), None);
    }

    #[test]
    fn splits_and_wakes_only_for_idle_workers() {
        assert!(split(1) && !split(0));
        assert!(wake(false, 1, 3) && !wake(false, 1, 0));
        assert!(!wake(true, 1, 3), "the maker takes its only task itself");
        assert!(wake(true, 2, 3), "a second task goes to an idle worker");
    }
}
