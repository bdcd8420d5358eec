//! Where an idle worker looks for work, in order.
//!
//! Every mechanism's worker runs the same loop (`worker.rs`): it looks at the
//! sources of [`order`] one after the other, runs the first task it finds,
//! and only after all of them came up empty takes an idle step
//! ([`Idle::next`](super::Idle::next)).

use super::Mechanism;

/// A place an idle worker can find a task.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The worker's own queue, in the policy's order (under the central task
    /// unit: its own buffers, then the unit, which may steal inside).
    Own,
    /// Its own `join` continuations still marked on its stack, newest first
    /// (message policies, only while it waits inside a `join`).
    OwnMarks,
    /// Work submitted from outside the pool.
    Injector,
    /// Other workers' queues, taken without asking (work stealing).
    Peers,
}

/// The sources an idle worker of `m` tries, in order.
///
/// Work stealing looks at the injector before its peers, so that work
/// submitted from outside starts even while every deque is busy. The message
/// policies never take from a peer: a manager pairs them with a victim, which
/// sends tasks by message, so after their own work they look only at the
/// injector. The central task unit already balances inside `Own`. The
/// static baseline never balances: `Own` is its own queue and then what was
/// dealt to it.
pub const fn order(m: Mechanism) -> &'static [Source] {
    match m {
        Mechanism::Ws => &[Source::Own, Source::Injector, Source::Peers],
        Mechanism::Adm => &[Source::Own, Source::OwnMarks, Source::Injector],
        Mechanism::Unit => &[Source::Own, Source::Injector],
        Mechanism::Fixed => &[Source::Own, Source::Injector],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_work_first_and_only_stealing_takes_from_peers() {
        for m in [Mechanism::Ws, Mechanism::Adm, Mechanism::Unit, Mechanism::Fixed] {
            let o = order(m);
            assert_eq!(o[0], Source::Own, "{m:?}");
            assert!(o.contains(&Source::Injector), "{m:?}");
            assert_eq!(o.contains(&Source::Peers), m == Mechanism::Ws, "{m:?}");
        }
    }
}
