//! When a pending loop splits its range (lazy binary splitting: Tzannes,
//! Caragea, Barua, Vishkin, "Lazy Binary-Splitting", PPoPP 2010; Carbon's
//! lazily expanded `TQ_ENQUEUE_LOOP`, Kumar, Hughes, Nguyen, ISCA 2007,
//! section 4.2).
//!
//! A loop task runs its range one chunk at a time and, before each chunk,
//! asks whether to offer half of what is left as a new task. Offering costs a
//! spawn; not offering leaves idle workers without work. Each mechanism sees
//! a different part of the machine, so each has its own rule over what it can
//! see cheaply.

use super::carbon::Carbon;
use super::UnitPolicy;

/// Work stealing: split when this worker's own deque is empty, so thieves
/// have taken everything offered (or nothing was offered yet).
#[inline(always)]
pub fn ws(own_queue_empty: bool) -> bool {
    own_queue_empty
}

/// Messages: split when mail is waiting (perhaps a steal request, which the
/// new half can answer within one chunk) or when nothing else is pending
/// here. `nothing_pending` is only asked when no mail waits (it scans).
#[inline(always)]
pub fn adm(has_mail: bool, nothing_pending: impl FnOnce() -> bool) -> bool {
    has_mail || nothing_pending()
}

/// The central task unit: split while the unit holds fewer tasks than there
/// are workers (`sw-hier` also when its private queue is empty).
#[inline]
pub fn unit(p: UnitPolicy, private_empty: bool, unit_tasks: usize, workers: usize) -> bool {
    match p {
        UnitPolicy::Carbon(_) => Carbon::loop_should_split(unit_tasks, workers),
        UnitPolicy::SwHier(_) => private_empty || unit_tasks < workers,
        UnitPolicy::Pdf => unit_tasks < workers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::swhier::SwHier;
    use crate::policy::unit::GlobalOrder;

    #[test]
    fn each_mechanism_splits_on_what_it_sees() {
        assert!(ws(true) && !ws(false));
        assert!(adm(true, || panic!("not asked when mail waits")));
        assert!(adm(false, || true) && !adm(false, || false));
        let c = UnitPolicy::Carbon(Carbon { deque: 32, prefetch: 1, limit: 8, prefetch_steal: true, loop_descriptor: true, grain: 0, loop_tasks: 8 });
        assert!(unit(c, false, 3, 4) && !unit(c, true, 4, 4));
        let h = UnitPolicy::SwHier(SwHier { private: 8, order: GlobalOrder::Fifo, share: true, bound_us: Some(100) });
        assert!(unit(h, true, 10, 4) && unit(h, false, 3, 4) && !unit(h, false, 4, 4));
        assert!(unit(UnitPolicy::Pdf, false, 1, 2) && !unit(UnitPolicy::Pdf, true, 2, 2));
    }
}
