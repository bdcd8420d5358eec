//! Decisions shared by the policies that run on the central task unit
//! (`carbon`, `sw-hier`, `pdf`; the mechanism is `unit/`, the choice among
//! them [`UnitPolicy`](super::UnitPolicy)): the order in which the unit hands
//! out tasks, as a sort key. Plain code: no
//! threads, no atomics.
//!
//! Every task in the unit carries a [`Key`]; the unit hands out the
//! smallest key first. The key's first part comes from the policy's order
//! (a serial-order position for `pdf`, a user priority for `order=priority`,
//! nothing for FIFO/LIFO); the second is a sequence number that breaks ties in
//! arrival order (FIFO) or its reverse (LIFO).

use super::pdf::{Position, SerialPath};

/// Order of the unit's global queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GlobalOrder {
    Fifo,
    Lifo,
    /// Highest priority first (given at spawn or enqueue), FIFO among equals.
    Priority,
    /// Earliest in the sequential program's order first (`pdf`).
    Serial,
}

/// Sort key of a task in a central queue: smallest first (`primary`, then
/// the serial position, then `seq`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    pub primary: u128,
    /// The task's serial position (`pdf`; empty for the other orders).
    pub pos: Position,
    pub seq: u64,
}

impl GlobalOrder {
    /// The option value that names this order.
    pub fn name(self) -> &'static str {
        match self {
            GlobalOrder::Fifo => "fifo",
            GlobalOrder::Lifo => "lifo",
            GlobalOrder::Priority => "priority",
            GlobalOrder::Serial => "serial",
        }
    }

    /// The `seq` a key of this order was made with: the order tasks were
    /// queued in, whatever order they run in.
    pub fn queued_at(self, k: &Key) -> u64 {
        match self {
            GlobalOrder::Lifo => u64::MAX - k.seq,
            _ => k.seq,
        }
    }

    /// The key of the `seq`-th task queued, with priority `prio` (higher runs
    /// first) and serial-order position `path`.
    pub fn key(self, seq: u64, prio: i64, path: &SerialPath) -> Key {
        match self {
            GlobalOrder::Fifo => Key { primary: 0, pos: Position::default(), seq },
            GlobalOrder::Lifo => Key { primary: 0, pos: Position::default(), seq: u64::MAX - seq },
            // Map i64 onto u128 so that a higher priority gives a smaller key.
            GlobalOrder::Priority => Key { primary: (i64::MAX as i128 - prio as i128) as u128, pos: Position::default(), seq },
            GlobalOrder::Serial => Key { primary: 0, pos: path.key().clone(), seq },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities_fifo_lifo() {
        let p = &SerialPath::default();
        let hi = GlobalOrder::Priority.key(5, 10, p);
        let lo = GlobalOrder::Priority.key(1, -3, p);
        let hi2 = GlobalOrder::Priority.key(6, 10, p);
        assert!(hi < lo && hi < hi2);
        assert!(GlobalOrder::Priority.key(0, i64::MAX, p) < GlobalOrder::Priority.key(0, i64::MIN, p));
        assert!(GlobalOrder::Fifo.key(1, 0, p) < GlobalOrder::Fifo.key(2, 0, p));
        assert!(GlobalOrder::Lifo.key(2, 0, p) < GlobalOrder::Lifo.key(1, 0, p));
        for o in [GlobalOrder::Fifo, GlobalOrder::Lifo, GlobalOrder::Priority, GlobalOrder::Serial] {
            assert_eq!(o.queued_at(&o.key(7, 3, p)), 7, "{o:?}");
        }
    }
}
