//! How a phase detects its end and combines its tasks' values.
//!
//! Two ways: a shared counter of live tasks (the "finish" counter of X10's
//! work-stealing scheduler, which Sanchez, Yoo, Kozyrakis, ASPLOS 2010,
//! section 4.1 use for their software baseline), with per-worker partials
//! combined through a tree; or, under the message policies, the task counts
//! and partial results riding on the managers' own messages (the same paper,
//! section 4.2), so that no task touches a shared word.

use super::Mechanism;

/// Radix of the combining tree of [`PhaseEnd::Tree`] (the software runtimes
/// of Sanchez, Yoo, Kozyrakis, ASPLOS 2010, section 5.2, combine through
/// radix-8 trees); the runtime's `phase/reduce.rs` and the simulator's
/// `engine/reduction.rs` both use it.
pub const TREE_RADIX: usize = 8;

/// How `phase_reduce_with` combines the tasks' values.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum ReduceMethod {
    /// `Piggyback` under the message-based policies, `Tree` under the others.
    #[default]
    Auto,
    /// Partials and termination on the managers' messages (Sanchez, Yoo,
    /// Kozyrakis, ASPLOS 2010, section 4.2). Under a policy without managers
    /// this is `Tree`.
    Piggyback,
    /// Per-worker cache-padded partials combined through a radix-8 tree at the
    /// end of the phase, X10-style termination counter.
    Tree,
}

/// How one phase ends.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PhaseEnd {
    /// A shared counter of live tasks; values ignored (`phase`).
    Counter,
    /// The same counter, and per-worker partials combined through a tree.
    Tree,
    /// Counts and partials on the managers' messages.
    Piggyback,
}

/// The end of a phase under mechanism `m`: `reduce` is `None` for a phase
/// whose tasks return nothing, else the method the caller asked for.
pub fn phase_end(m: Mechanism, reduce: Option<ReduceMethod>) -> PhaseEnd {
    match (m, reduce) {
        (Mechanism::Adm, None | Some(ReduceMethod::Auto | ReduceMethod::Piggyback)) => PhaseEnd::Piggyback,
        (_, None) => PhaseEnd::Counter,
        _ => PhaseEnd::Tree,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn managers_carry_the_end_unless_asked_for_a_tree() {
        assert_eq!(phase_end(Mechanism::Adm, None), PhaseEnd::Piggyback);
        assert_eq!(phase_end(Mechanism::Adm, Some(ReduceMethod::Auto)), PhaseEnd::Piggyback);
        assert_eq!(phase_end(Mechanism::Adm, Some(ReduceMethod::Tree)), PhaseEnd::Tree);
        assert_eq!(phase_end(Mechanism::Ws, None), PhaseEnd::Counter);
        assert_eq!(phase_end(Mechanism::Ws, Some(ReduceMethod::Piggyback)), PhaseEnd::Tree);
        assert_eq!(phase_end(Mechanism::Unit, Some(ReduceMethod::Auto)), PhaseEnd::Tree);
    }
}
