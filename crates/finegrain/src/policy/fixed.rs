//! `static`: the static-loop baseline, what a parallel-for runtime without
//! stealing does (Cheng et al., "Beyond Static Parallel Loops: Dynamic Task
//! Parallelism on Manycore Architectures with Software-Managed Scratchpad
//! Memories", ASPLOS 2023, section 6, where work stealing is 1.2-28.5x faster
//! than it, 28.5x on UTS).
//!
//! A loop is cut into one contiguous piece per worker (fewer if it has fewer
//! leaves) before it starts: the loop's worker runs the first piece, piece
//! `i` goes to the `i`-th worker after it. The root task's spawns are dealt
//! round-robin over the workers, starting with the one after the root's;
//! every other spawn stays on the worker that made it; nobody steals; a
//! worker with nothing left sleeps until work is dealt to it or what it waits
//! for completes. So a fork-join program runs serially on each worker below
//! the root's spawns, as it would under a runtime that only knows static
//! loops.
//!
//! These are the decisions; the runtime (`fixed/`) and the simulator
//! (`finegrain-sim`, `engine/fixed.rs`) both carry them out.

use super::locality::steal::Stealing;
use super::{Idle, OptionInfo, Order, Policy, PolicyInfo, PolicyKind, Registration, Spec, SPIN};
use crate::error::Error;
use std::ops::Range;

/// How many pieces a loop of `leaves` leaves is cut into on `workers`
/// workers: one per worker, fewer if there are fewer leaves (at least one).
#[inline]
pub fn pieces(leaves: usize, workers: usize) -> usize {
    workers.min(leaves).max(1)
}

/// The leaves of piece `i` of a loop of `leaves` leaves cut into `k`
/// pieces: contiguous, in order, sizes differing by at most one, covering
/// `0..leaves` exactly.
#[inline]
pub fn piece(leaves: usize, k: usize, i: usize) -> Range<usize> {
    let bound = |i: usize| (leaves as u128 * i as u128 / k as u128) as usize;
    bound(i)..bound(i + 1)
}

/// The worker that runs piece `i` of a loop that worker `me` started, on
/// `workers` workers (piece 0 is `me`'s own).
#[inline]
pub fn piece_worker(me: usize, i: usize, workers: usize) -> usize {
    (me + i) % workers
}

/// The worker that gets a task spawned on worker `me`: the root task's
/// `dealt`-th spawn (counting from 0) goes to the worker `dealt + 1` after
/// the root's, round-robin; any other task's spawn stays on `me`.
#[inline]
pub fn spawn_worker(from_root: bool, me: usize, dealt: usize, workers: usize) -> usize {
    if from_root {
        (me + 1 + dealt % workers) % workers
    } else {
        me
    }
}

const OPTIONS: &[OptionInfo] = &[SPIN];

pub(crate) static REGISTRATION: Registration = Registration {
    info: PolicyInfo {
        name: "static",
        summary: "static loops: one contiguous block of every loop per worker, root spawns dealt round-robin, no stealing (baseline)",
        source: "Cheng et al., Beyond Static Parallel Loops: Dynamic Task Parallelism on Manycore Architectures with Software-Managed Scratchpad Memories, ASPLOS 2023, section 6 (the static-loop baseline)",
        options: OPTIONS,
    },
    build,
    value: |p, option| p.common_value(option),
};

fn build(spec: &mut Spec<'_>) -> Result<Policy, Error> {
    let spin = spec.int("spin", 0, 100_000, 64)? as u32;
    Ok(Policy { name: "static", kind: PolicyKind::Fixed, order: Order::Lifo, idle: Idle::with_spin(spin), space_steal: Stealing::Baseline })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_is_cut_into_one_contiguous_piece_per_worker() {
        for leaves in [0usize, 1, 2, 3, 7, 8, 64, 1000, 1023] {
            for workers in [1usize, 2, 3, 4, 8, 128] {
                let k = pieces(leaves, workers);
                assert_eq!(k, workers.min(leaves).max(1));
                let mut next = 0;
                let (mut small, mut big) = (usize::MAX, 0);
                for i in 0..k {
                    let r = piece(leaves, k, i);
                    assert_eq!(r.start, next, "contiguous, in order: {leaves} leaves, {workers} workers");
                    next = r.end;
                    if leaves > 0 {
                        assert!(!r.is_empty(), "no empty piece when there are leaves");
                    }
                    small = small.min(r.len());
                    big = big.max(r.len());
                }
                assert_eq!(next, leaves, "covers the loop");
                assert!(big - small <= 1, "balanced by count: {leaves} leaves, {workers} workers");
            }
        }
        assert_eq!(piece(10, 4, 0), 0..2);
        assert_eq!(piece(10, 4, 3), 7..10);
        assert_eq!(piece(usize::MAX, 3, 2).end, usize::MAX, "no overflow");
    }

    #[test]
    fn pieces_go_to_the_workers_after_the_loops() {
        let ws: Vec<usize> = (0..4).map(|i| piece_worker(2, i, 4)).collect();
        assert_eq!(ws, [2, 3, 0, 1]);
    }

    #[test]
    fn only_the_roots_spawns_are_dealt() {
        let dealt: Vec<usize> = (0..6).map(|d| spawn_worker(true, 0, d, 4)).collect();
        assert_eq!(dealt, [1, 2, 3, 0, 1, 2]);
        assert_eq!(spawn_worker(true, 3, 0, 4), 0);
        assert_eq!(spawn_worker(true, 0, 5, 1), 0);
        for d in 0..5 {
            assert_eq!(spawn_worker(false, 2, d, 4), 2);
        }
    }

    #[test]
    fn parses_with_its_one_option() {
        let p = Policy::parse("static").unwrap();
        assert_eq!((p.name, p.kind, p.mechanism()), ("static", PolicyKind::Fixed, super::super::Mechanism::Fixed));
        let q = Policy::parse("static:spin=3").unwrap();
        assert_eq!(q.idle.spin_rounds, 3);
        assert_eq!(Policy::parse(&q.canonical()).unwrap(), q);
        assert!(Policy::parse("static:steal=half").is_err());
    }
}
