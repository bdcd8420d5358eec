//! `pdf`: parallel depth-first scheduling (Liaskovitis et al., "Parallel
//! Depth First vs. Work Stealing Schedulers on CMP Architectures", SPAA 2006;
//! Yoo, "Locality-Aware Task Management on Many-Core Processors", Stanford
//! PhD thesis 2012, section 4.4.2). Every ready task sits in one central queue
//! ordered by the position it has in the sequential program ([`SerialPath`]),
//! and a worker that needs work takes the task the sequential program would
//! have run earliest. So the workers stay close to the serial execution's
//! frontier and share what it has in cache, which is why PDF uses a shared
//! cache constructively where work stealing's workers drift apart.
//!
//! Loops split lazily into halves like every other policy; the right half of
//! each split is later in serial order than everything of the left half, so
//! the queue hands the chunks out in sequential order.
//!
//! This file holds the decisions (the serial positions); `unit/` carries them out.

use super::locality::steal::Stealing;
use super::{Idle, OptionInfo, Order, Policy, PolicyInfo, PolicyKind, Registration, Spec, UnitPolicy};
use crate::error::Error;

/// A position in the sequential program's order, as a path of choices from
/// the root. Left-aligned in 128 bits, so comparing the bits as integers
/// compares serial order; paths deeper than 127 choices stop growing and tie,
/// and ties go by arrival order (the key's sequence number).
///
/// The two rules that place work in serial order are [`SerialPath::join`]
/// and [`SerialPath::spawn`]; every mechanism and the simulator use them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct SerialPath {
    pub bits: u128,
    pub depth: u8,
}

/// Where the two halves of a `join` run, and where the caller continues.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct JoinPaths {
    /// `a`, run inline first.
    pub a: SerialPath,
    /// `b`, queued; also where the caller runs after `a` returns.
    pub b: SerialPath,
}

/// Where a spawned task runs, and where its spawner continues.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SpawnPaths {
    /// The spawned task: the serial program would run it first.
    pub task: SerialPath,
    /// The rest of the spawner's code.
    pub rest: SerialPath,
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

    /// `join(a, b)` at this position: `a` at `child(0)`, `b` at `child(1)`;
    /// once both are done the caller is back here.
    #[inline]
    pub fn join(self) -> JoinPaths {
        JoinPaths { a: self.child(0), b: self.child(1) }
    }

    /// A spawn (scope, phase or graph task) at this position: the task at
    /// `child(0)`, the spawner continues at `child(1)`.
    #[inline]
    pub fn spawn(self) -> SpawnPaths {
        SpawnPaths { task: self.child(0), rest: self.child(1) }
    }
}

const OPTIONS: &[OptionInfo] = &[OptionInfo { name: "spin", values: "0..=100000", default: "64", help: "idle rounds before yielding, then parking" }];

pub(crate) static REGISTRATION: Registration = Registration {
    info: PolicyInfo {
        name: "pdf",
        summary: "parallel depth-first: one queue, the task earliest in serial order first",
        source: "Liaskovitis et al., Parallel Depth First vs. Work Stealing Schedulers on CMP Architectures, SPAA 2006; Yoo, PhD thesis, Stanford 2012, section 4.4.2",
        options: OPTIONS,
    },
    build,
};

fn build(spec: &mut Spec<'_>) -> Result<Policy, Error> {
    let spin = spec.int("spin", 0, 100_000, 64)? as u32;
    Ok(Policy {
        name: "pdf",
        kind: PolicyKind::Unit(UnitPolicy::Pdf),
        order: Order::Lifo,
        idle: Idle::with_spin(spin),
        space_steal: Stealing::Baseline,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::unit::GlobalOrder;

    #[test]
    fn serial_paths_order_like_the_sequential_program() {
        // fib-like tree: root forks (a, b); a forks (aa, ab). Serial order:
        // aa, ab, b. Their keys must sort the same way.
        let root = SerialPath::default();
        let JoinPaths { a, b } = root.join();
        let JoinPaths { a: aa, b: ab } = a.join();
        let k = |p: SerialPath, s| GlobalOrder::Serial.key(s, 0, p);
        let mut v = vec![k(b, 0), k(ab, 1), k(aa, 2)];
        v.sort();
        assert_eq!(v, vec![k(aa, 2), k(ab, 1), k(b, 0)]);
        // A spawned task comes before the rest of its spawner.
        let s = b.spawn();
        assert!(k(s.task, 0) < k(s.rest, 0) && k(ab, 0) < k(s.task, 0));
        // Deep paths saturate and then tie, broken by arrival.
        let mut deep = root;
        for _ in 0..200 {
            deep = deep.child(1);
        }
        assert_eq!(deep.depth, SerialPath::MAX_DEPTH);
        assert_eq!(deep.child(0), deep);
        assert!(k(deep, 1) < k(deep, 2));
    }
}
