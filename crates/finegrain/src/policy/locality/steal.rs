//! Stealing inside a task space (Yoo, thesis, chapter 6): which worker's
//! queue a thief tries first, and how many tasks it takes from the tail of
//! that queue.
//!
//! - **baseline** (§6.1): a random first victim, then the others in
//!   round-robin order; take half the victim's remaining tasks, at most
//!   [`BASELINE_CAP`] (8, the thesis's cap).
//! - **nearest** (§6.1): the same amounts, victims nearest first (same tile,
//!   then by index distance).
//! - **pattern** (§6.5): the amount follows the manager's grouping so that a
//!   steal does not break a group: for flux a strip along the most-shared
//!   dimension (the box's extent along it), for binning at most half a bin,
//!   for signature at most half a range, each capped at [`PATTERN_CAP`]
//!   (the thesis leaves the caps open and suggests 8 tasks for the
//!   one-dimensional case; here the cap is in tasks and defaults to 64, so a
//!   strip of a box up to 64 long moves whole). The victim order starts with
//!   the steal hint, the last victim a steal succeeded on, then workers of
//!   the same tile, then the others.
//!
//! - **recursive** (§6.3): the unit is one whole L1 group (4-32 tasks in the
//!   thesis's Table 4.4: a plan's group of at most [`RECURSIVE_PIECE`] tasks,
//!   or a piece of that size of a larger group), taken from the tail of
//!   the victim's queue, and never the L1 group its owner has started (the
//!   thesis never steals from a thread's task queue, so there is no
//!   secondary stealing); victims nearest first: the thief's own tile
//!   (siblings under one L2), then the others by distance.
//!
//! The thesis's recursive stealing keeps one queue per cache (an L1 queue
//! per thread, an L2 queue per tile, ...) and refills level by level: own
//! L1 queue, siblings' L1 queues, own L2 queue, siblings' L2 queues. Here a
//! plan deals every group to a thread, so a tile's L2 queue is the union of
//! its threads' queues, and "own L2 queue, then siblings' L1 queues" become
//! one step: the tile's other threads, nearest first. A thief from another
//! tile also takes one L1 group at a time rather than a whole L2 group; it
//! comes back for the next group of the same victim first only if the
//! victims' order puts it there (the pattern scheme's steal hint does that).

use super::{worker_order, Group};

/// The baseline's cap on one steal (thesis §6.1).
pub const BASELINE_CAP: usize = 8;
/// The pattern-specific schemes' default cap on one steal, in tasks.
pub const PATTERN_CAP: usize = 64;

/// How thieves choose victims and amounts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stealing {
    Baseline,
    Nearest,
    Pattern,
    Recursive,
}

impl Stealing {
    pub fn name(self) -> &'static str {
        match self {
            Stealing::Baseline => "baseline",
            Stealing::Nearest => "nearest",
            Stealing::Pattern => "pattern",
            Stealing::Recursive => "recursive",
        }
    }

    /// Every scheme, in the order the docs list them.
    pub const ALL: [Stealing; 4] = [Stealing::Baseline, Stealing::Nearest, Stealing::Pattern, Stealing::Recursive];

    pub fn parse(s: &str) -> Option<Stealing> {
        Stealing::ALL.into_iter().find(|x| x.name() == s)
    }
}

/// What the pattern scheme steals as one unit: `unit` tasks (a strip, half
/// a bin, half a range), or the baseline's half-capped amount if 0. For the
/// recursive scheme, the stealable whole group at the tail ([`group_unit`]),
/// 0 if there is none.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StealUnit(pub usize);

/// How many tasks a thief takes from a victim with `remaining` tasks.
pub fn amount(scheme: Stealing, remaining: usize, unit: StealUnit) -> usize {
    if remaining == 0 {
        return 0;
    }
    match scheme {
        Stealing::Baseline | Stealing::Nearest => remaining.div_ceil(2).min(BASELINE_CAP),
        Stealing::Pattern => {
            let u = if unit.0 == 0 { remaining.div_ceil(2).min(BASELINE_CAP) } else { unit.0.min(PATTERN_CAP) };
            u.min(remaining)
        }
        Stealing::Recursive => unit.0.min(remaining),
    }
}

/// The pattern scheme's unit when the victim's last queued task belongs to
/// `group`: a strip of a flux box along its innermost (most-shared)
/// dimension, half a bin or signature range, or the baseline's amount (0)
/// for a contiguous chunk, which carries no grouping.
pub fn pattern_unit(group: &Group) -> StealUnit {
    StealUnit(match group {
        Group::Box(b) => b.hi[b.raster[0]] - b.lo[b.raster[0]],
        Group::Tasks(r) => r.len().div_ceil(2),
        Group::Linear(_) => 0,
    })
}

/// The largest unit recursive stealing moves: the largest L1 group of the
/// thesis's Table 4.4 (32 tasks, bprj). A plan's group larger than this
/// (a baseline chunk, a flux box, a bin) is not an L1 group; recursive
/// stealing treats it as consecutive L1 groups of this many tasks, counted
/// from its start.
pub const RECURSIVE_PIECE: usize = 32;

/// The recursive scheme's unit at a victim whose queue holds positions
/// `head..tail`, the last group of which starts at `group_start`: the last
/// L1 group at the tail (that group whole if it has at most
/// [`RECURSIVE_PIECE`] tasks, else its last piece of that size counted
/// from the group's start), unless its owner has already started it: then
/// nothing, since a started L1 group is the owner's task queue (§6.3: no
/// secondary stealing).
pub fn group_unit(head: usize, tail: usize, group_start: usize) -> StealUnit {
    if group_start >= tail {
        return StealUnit(0);
    }
    let piece = group_start + (tail - 1 - group_start) / RECURSIVE_PIECE * RECURSIVE_PIECE;
    if head > piece {
        StealUnit(0)
    } else {
        StealUnit(tail - piece)
    }
}

/// The order in which thief `me` tries the other `workers`: `first` is a
/// random draw in `0..workers - 1` (used by the baseline), `hint` the last
/// victim a steal succeeded on (pattern), `tiles` the shared caches.
pub fn victims(scheme: Stealing, me: usize, workers: usize, first: usize, hint: Option<usize>, tiles: &[usize]) -> Vec<usize> {
    let others = |start: usize| (0..workers).map(move |k| (start + k) % workers).filter(move |&v| v != me);
    match scheme {
        Stealing::Baseline => {
            let start = if workers > 1 { (me + 1 + first % (workers - 1)) % workers } else { me };
            others(start).collect()
        }
        Stealing::Nearest | Stealing::Pattern | Stealing::Recursive => {
            let mut v: Vec<usize> = worker_order(workers, tiles).into_iter().filter(|&v| v != me).collect();
            let tile = |w: usize| tiles.get(w).copied();
            let dist = |w: usize| (w as isize - me as isize).unsigned_abs();
            v.sort_by_key(|&w| (tile(w) != tile(me), dist(w), w));
            if scheme == Stealing::Pattern {
                if let Some(h) = hint.filter(|&h| h != me && h < workers) {
                    v.retain(|&w| w != h);
                    v.insert(0, h);
                }
            }
            v
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(amount(Stealing::Baseline, 100, StealUnit(0)), 8);
        assert_eq!(amount(Stealing::Baseline, 5, StealUnit(0)), 3);
        assert_eq!(amount(Stealing::Pattern, 100, StealUnit(32)), 32, "a strip");
        assert_eq!(amount(Stealing::Pattern, 10, StealUnit(32)), 10);
        assert_eq!(amount(Stealing::Pattern, 1000, StealUnit(500)), PATTERN_CAP);
        assert_eq!(amount(Stealing::Nearest, 0, StealUnit(0)), 0);
    }

    #[test]
    fn recursive_takes_whole_unstarted_groups() {
        // Queue 10..40, last group 30..40: the group whole.
        assert_eq!(amount(Stealing::Recursive, 30, group_unit(10, 40, 30)), 10);
        // A group of 100 (a baseline chunk) is L1 pieces of 32 from its
        // start: 0..32, 32..64, 64..96, 96..100; the last piece first.
        assert_eq!(group_unit(0, 100, 0), StealUnit(4));
        assert_eq!(group_unit(0, 96, 0), StealUnit(32));
        assert_eq!(group_unit(40, 96, 0), StealUnit(32), "the owner works in 32..64");
        assert_eq!(group_unit(70, 96, 0), StealUnit(0), "the owner works in the last piece");
        // The owner is inside the last group: nothing (no secondary stealing).
        assert_eq!(amount(Stealing::Recursive, 5, group_unit(35, 40, 30)), 0);
        // The owner has not started it (an offline thread): stealable.
        assert_eq!(amount(Stealing::Recursive, 10, group_unit(30, 40, 30)), 10);
        assert_eq!(amount(Stealing::Recursive, 0, group_unit(40, 40, 30)), 0);
        for s in Stealing::ALL {
            assert_eq!(Stealing::parse(s.name()), Some(s));
        }
        assert_eq!(Stealing::parse("greedy"), None);
    }

    #[test]
    fn victim_orders() {
        let b = victims(Stealing::Baseline, 2, 5, 1, None, &[]);
        assert_eq!(b, vec![4, 0, 1, 3], "random start, then round-robin, never itself");
        // Tiles {0, 1}, {2, 3}: worker 2 tries 3 first, then the far tile by distance.
        let n = victims(Stealing::Nearest, 2, 4, 0, None, &[0, 0, 1, 1]);
        assert_eq!(n, vec![3, 1, 0]);
        let p = victims(Stealing::Pattern, 2, 4, 0, Some(0), &[0, 0, 1, 1]);
        assert_eq!(p, vec![0, 3, 1], "the hint first");
        assert!(victims(Stealing::Pattern, 0, 1, 0, Some(0), &[]).is_empty());
    }
}
