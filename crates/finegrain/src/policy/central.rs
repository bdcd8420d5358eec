//! Decisions shared by the policies that keep tasks in one central unit under
//! a lock (`carbon`, `sw-hier`, `pdf`): the order in which the unit hands out
//! tasks, as a sort key. Plain code: no threads, no atomics.
//!
//! Every task in a central unit carries a [`Key`]; the unit hands out the
//! smallest key first. The key's first part comes from the policy's order
//! (a serial-order position for `pdf`, a user priority for `order=priority`,
//! nothing for FIFO/LIFO); the second is a sequence number that breaks ties in
//! arrival order (FIFO) or its reverse (LIFO).

/// Which of the central-unit policies, with its parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Central {
    /// 002 section 4: a global task unit with a bounded deque per worker, a
    /// local prefetch buffer per worker, overflow to software queues.
    Carbon(super::carbon::Carbon),
    /// 002 section 2.3: small private queues plus one global queue.
    SwHier(super::swhier::SwHier),
    /// 004; 001 section 4.4.2: the ready task earliest in serial order first.
    Pdf,
}

/// Order of a central queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GlobalOrder {
    Fifo,
    Lifo,
    /// Highest priority first (given at spawn or enqueue), FIFO among equals.
    Priority,
    /// Earliest in the sequential program's order first (`pdf`).
    Serial,
}

/// Sort key of a task in a central queue: smallest first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    pub primary: u128,
    pub seq: u64,
}

impl GlobalOrder {
    /// The key of the `seq`-th task queued, with priority `prio` (higher runs
    /// first) and serial-order position `path`.
    pub fn key(self, seq: u64, prio: i64, path: SerialPath) -> Key {
        match self {
            GlobalOrder::Fifo => Key { primary: 0, seq },
            GlobalOrder::Lifo => Key { primary: 0, seq: u64::MAX - seq },
            // Map i64 onto u128 so that a higher priority gives a smaller key.
            GlobalOrder::Priority => Key { primary: (i64::MAX as i128 - prio as i128) as u128, seq },
            GlobalOrder::Serial => Key { primary: path.bits, seq },
        }
    }
}

/// A position in the sequential program's order, as a path of choices from
/// the root (PDF, 004; 001 section 4.4.2). A `join(a, b)` at position `p` runs
/// `a` at `p.child(0)` and `b` at `p.child(1)`; a spawn runs the spawned task
/// at `p.child(0)` and continues at `p.child(1)` (the serial program would run
/// the spawned task first). Left-aligned in 128 bits, so comparing the bits as
/// integers compares serial order; paths deeper than 127 choices stop growing
/// and tie, and ties go by arrival order (the key's sequence number).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct SerialPath {
    pub bits: u128,
    pub depth: u8,
}

impl SerialPath {
    pub const MAX_DEPTH: u8 = 127;

    pub fn child(self, bit: u8) -> SerialPath {
        if self.depth >= Self::MAX_DEPTH {
            return self;
        }
        let bits = self.bits | ((bit as u128 & 1) << (127 - self.depth as u32));
        SerialPath { bits, depth: self.depth + 1 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_paths_order_like_the_sequential_program() {
        // fib-like tree: root forks (a, b); a forks (aa, ab). Serial order:
        // aa, ab, b. Their keys must sort the same way.
        let root = SerialPath::default();
        let (a, b) = (root.child(0), root.child(1));
        let (aa, ab) = (a.child(0), a.child(1));
        let k = |p: SerialPath, s| GlobalOrder::Serial.key(s, 0, p);
        let mut v = vec![k(b, 0), k(ab, 1), k(aa, 2)];
        v.sort();
        assert_eq!(v, vec![k(aa, 2), k(ab, 1), k(b, 0)]);
        // Deep paths saturate and then tie, broken by arrival.
        let mut deep = root;
        for _ in 0..200 {
            deep = deep.child(1);
        }
        assert_eq!(deep.depth, SerialPath::MAX_DEPTH);
        assert_eq!(deep.child(0), deep);
        assert!(k(deep, 1) < k(deep, 2));
    }

    #[test]
    fn priorities_fifo_lifo() {
        let p = SerialPath::default();
        let hi = GlobalOrder::Priority.key(5, 10, p);
        let lo = GlobalOrder::Priority.key(1, -3, p);
        let hi2 = GlobalOrder::Priority.key(6, 10, p);
        assert!(hi < lo && hi < hi2);
        assert!(GlobalOrder::Priority.key(0, i64::MAX, p) < GlobalOrder::Priority.key(0, i64::MIN, p));
        assert!(GlobalOrder::Fifo.key(1, 0, p) < GlobalOrder::Fifo.key(2, 0, p));
        assert!(GlobalOrder::Lifo.key(2, 0, p) < GlobalOrder::Lifo.key(1, 0, p));
    }
}
