//! How a loop moves under ADM: as one task holding a range of iterations
//! that is cut when a steal asks for it (Sanchez, Yoo, Kozyrakis, ASPLOS
//! 2010, section 4.2: "in the software and ADM runtimes, a single task
//! represents a range of loop iterations, so a task can be split efficiently
//! when stealing"), or as lazily offered halves (Tzannes et al., PPoPP
//! 2010), the runtime's default so far.
//!
//! With [`AdmLoops::Range`] a worker running a loop counts every leaf (a
//! chunk of `grain` iterations) it has not started among the tasks it
//! reports ([`range_units`]), so a manager sees a worker deep in a long loop
//! as rich and asks it for half. A victim asked for `k` tasks sends what its
//! queue holds first, and cuts what is still owed off the top of the range
//! it runs, as one `TASK` ([`range_cut`]). Nothing is offered before anyone
//! asks ([`offers_halves`]). With [`AdmLoops::Split`] the range counts for
//! nothing until a half of it is offered, and a steal takes that half.

/// `loops=`: how a parallel loop is counted and moved under ADM.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AdmLoops {
    /// One task per range, counted by leaves, cut on demand (the paper).
    Range,
    /// Lazy binary splitting: a half is offered when mail waits or nothing
    /// else is pending (`policy::split::adm`).
    Split,
}

impl AdmLoops {
    pub fn name(self) -> &'static str {
        match self {
            AdmLoops::Range => "range",
            AdmLoops::Split => "split",
        }
    }
}

/// Tasks a running loop range with `leaves_left` leaves not yet started
/// counts as in its worker's reports: one per leaf under `Range`, none under
/// `Split` (there only offered halves count, as queued tasks).
#[inline]
pub fn range_units(loops: AdmLoops, leaves_left: usize) -> usize {
    match loops {
        AdmLoops::Range => leaves_left,
        AdmLoops::Split => 0,
    }
}

/// Leaves to cut off the top of a running range with `leaves_left` leaves
/// not yet started, for a steal still owed `owed` tasks after the queue gave
/// what it held: what is owed, but at most half of what is left, rounded up
/// (the manager counted on an older report; the victim keeps the rest, as
/// `steal_amount` would have asked had it known).
#[inline]
pub fn range_cut(loops: AdmLoops, owed: usize, leaves_left: usize) -> usize {
    match loops {
        AdmLoops::Range => owed.min(leaves_left.div_ceil(2)),
        AdmLoops::Split => 0,
    }
}

/// Whether a worker running a loop offers half of it now
/// (`policy::split::adm` under `Split`; never under `Range`, where a range
/// is cut only when a steal asks).
#[inline]
pub fn offers_halves(loops: AdmLoops, has_mail: bool, nothing_pending: impl FnOnce() -> bool) -> bool {
    match loops {
        AdmLoops::Range => false,
        AdmLoops::Split => crate::policy::split::adm(has_mail, nothing_pending),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_counts_its_leaves_only_when_cut_on_demand() {
        assert_eq!(range_units(AdmLoops::Range, 37), 37);
        assert_eq!(range_units(AdmLoops::Split, 37), 0);
    }

    #[test]
    fn a_cut_gives_what_is_owed_but_never_more_than_half() {
        assert_eq!(range_cut(AdmLoops::Range, 4, 100), 4);
        assert_eq!(range_cut(AdmLoops::Range, 80, 100), 50);
        assert_eq!(range_cut(AdmLoops::Range, 5, 3), 2);
        assert_eq!(range_cut(AdmLoops::Range, 5, 1), 1);
        assert_eq!(range_cut(AdmLoops::Range, 0, 10), 0);
        assert_eq!(range_cut(AdmLoops::Split, 4, 100), 0);
    }

    #[test]
    fn only_split_offers_halves() {
        assert!(!offers_halves(AdmLoops::Range, true, || true));
        assert!(offers_halves(AdmLoops::Split, true, || false));
        assert!(offers_halves(AdmLoops::Split, false, || true));
        assert!(!offers_halves(AdmLoops::Split, false, || false));
    }
}
