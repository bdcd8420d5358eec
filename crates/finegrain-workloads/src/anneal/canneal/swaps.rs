//! PARSEC's canneal annealer, asynchronous as PARSEC runs it (Bienia et al.,
//! PARSEC 2.1, `annealer_thread::Run`; refactored into loop iterations by
//! Sanchez, Yoo, Kozyrakis, ASPLOS 2010, section 5.2 and Table 4: one
//! parallel loop per temperature step, iterations of about 4.9 K cycles).
//!
//! Each iteration (task) makes [`MOVES_PER_TASK`] moves with its own random
//! stream: like PARSEC it keeps the previous move's second element as the
//! new first one and draws a new second one, evaluates the change in wire
//! length against the current, possibly stale, locations of the two elements
//! and their neighbours, accepts it if it shortens the wires or with
//! probability `exp(-delta / T)`, and commits an accepted move by swapping
//! the two elements' locations atomically. Nothing orders the tasks of a
//! step, so two tasks may evaluate moves on the same element at once; as in
//! PARSEC, a swap exchanges whatever the two locations hold when it runs.
//! The temperature is divided by 1.5 before every step, PARSEC's schedule.
//!
//! The atomic swap is PARSEC's `AtomicPtr::Swap`: each location is an
//! atomic word; a swap checks out both (compare-and-swap to a sentinel, the
//! lower-numbered element first so that two swaps cannot deadlock), then
//! checks each one in with the other's value. A reader that meets the
//! sentinel waits for the check-in, so every location read is one some
//! placement held, and the placement stays a permutation.
//!
//! Random streams come from a hash of (seed, step, task), so the serial run
//! (the same loop, tasks in order) is deterministic, and a parallel run makes
//! the same proposals, decided against whatever the other tasks have done.

use super::netlist::Netlist;
use crate::par::Par;
use crate::support::rng::{SplitMix64, GOLDEN};
use std::sync::atomic::{AtomicU32, Ordering};

/// Moves per task, chosen so that a task is a few thousand cycles here, as
/// in Sanchez et al. (ASPLOS 2010), Table 4 (4.9 K cycles per iteration).
pub const MOVES_PER_TASK: usize = 8;
/// PARSEC's cooling: `T = T / 1.5` before every temperature step.
const COOLING: f64 = 1.5;
/// A location checked out by a swap in progress (PARSEC's null pointer).
const CHECKED_OUT: u32 = u32::MAX;

#[derive(Copy, Clone, Debug)]
pub struct Schedule {
    pub seed: u64,
    /// Temperature steps (parallel loops).
    pub steps: usize,
    /// Tasks (loop iterations) per step.
    pub tasks: usize,
    pub start_temperature: f64,
}

/// Each element's location (`y * side + x`), swapped atomically.
pub struct Placement {
    loc: Vec<AtomicU32>,
}

impl Placement {
    pub fn new(start: &[u32]) -> Placement {
        Placement { loc: start.iter().map(|&l| AtomicU32::new(l)).collect() }
    }

    /// The location of `e`, once no swap holds it checked out.
    #[inline]
    fn get(&self, e: usize) -> u32 {
        let mut spins = 0u32;
        loop {
            let l = self.loc[e].load(Ordering::Acquire);
            if l != CHECKED_OUT {
                return l;
            }
            backoff(&mut spins);
        }
    }

    #[inline]
    fn check_out(&self, e: usize) -> u32 {
        let mut spins = 0u32;
        loop {
            let l = self.loc[e].load(Ordering::Relaxed);
            if l != CHECKED_OUT && self.loc[e].compare_exchange_weak(l, CHECKED_OUT, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                return l;
            }
            backoff(&mut spins);
        }
    }

    /// Exchange the locations of `a` and `b` (`a != b`).
    #[inline]
    fn swap(&self, a: usize, b: usize) {
        let (x, y) = (a.min(b), a.max(b));
        let lx = self.check_out(x);
        let ly = self.check_out(y);
        self.loc[x].store(ly, Ordering::Release);
        self.loc[y].store(lx, Ordering::Release);
    }

    pub fn into_vec(self) -> Vec<u32> {
        self.loc.into_iter().map(AtomicU32::into_inner).collect()
    }
}

/// A swap holds its two locations for a few instructions; past a short spin
/// its thread has probably been descheduled, so give the core away.
#[inline]
fn backoff(spins: &mut u32) {
    *spins += 1;
    if *spins < 64 {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

/// Change in wire length if `a` (at `la`) and `b` (at `lb`) swap locations,
/// against the neighbours' current locations. The wire between `a` and `b`
/// keeps its length, so it is skipped.
#[inline]
fn delta(net: &Netlist, p: &Placement, a: usize, b: usize, la: u32, lb: u32) -> i64 {
    let moved = |e: usize, from: u32, to: u32, partner: usize| -> i64 {
        net.neighbours(e)
            .iter()
            .filter(|&&m| m as usize != partner)
            .map(|&m| {
                let lm = p.get(m as usize);
                net.distance(to, lm) - net.distance(from, lm)
            })
            .sum()
    };
    moved(a, la, lb, b) + moved(b, lb, la, a)
}

/// PARSEC's `accept_move`: a move that does not lengthen the wires is taken;
/// one that does, with probability `exp(-delta / T)` (a random number is drawn
/// only then).
#[inline]
fn accept(d: i64, temperature: f64, rng: &mut SplitMix64) -> bool {
    d < 0 || (-(d as f64) / temperature).exp() > rng.unit()
}

/// Declare for `finegrain record` what a task's moves may touch: both
/// elements' locations (written if the move is taken), their wires and the
/// wires' ends.
fn declare_moves(net: &Netlist, p: &Placement, moves: &[(usize, usize)]) {
    for &(a, b) in moves {
        for e in [a, b] {
            finegrain::record::write(std::slice::from_ref(&p.loc[e]));
            finegrain::record::read(net.neighbours(e));
            finegrain::record::read_elements(&p.loc, net.neighbours(e).iter().map(|&m| m as usize));
        }
    }
}

/// The elements of task `task`'s moves at `step`: each move's first element
/// is the previous move's second, as in PARSEC.
fn moves(s: &Schedule, n: usize, step: usize, task: usize) -> (SplitMix64, [(usize, usize); MOVES_PER_TASK]) {
    let mut rng = SplitMix64::new(s.seed ^ ((step as u64) << 40) ^ (task as u64).wrapping_mul(GOLDEN));
    let mut b = rng.below(n as u64) as usize;
    let mut out = [(0, 0); MOVES_PER_TASK];
    for m in &mut out {
        let a = b;
        // PARSEC's get_random_element(.., a): any element but `a`.
        b = (a + 1 + rng.below(n as u64 - 1) as usize) % n;
        *m = (a, b);
    }
    (rng, out)
}

/// Run the annealer: the final placement and the number of moves taken.
/// Anneal from the placement `p` (the netlist's start, built by the caller:
/// PARSEC's canneal loads it with the netlist, before the annealing it
/// times).
pub fn run<P: Par>(par: P, net: &Netlist, s: &Schedule, p: Placement) -> (Vec<u32>, u64) {
    let n = net.elements();
    assert!(n >= 2, "canneal needs at least two elements");
    let mut temperature = s.start_temperature;
    let mut accepted = 0;
    for step in 0..s.steps {
        temperature /= COOLING;
        let t = temperature;
        accepted += par.fold_chunks(
            0..s.tasks,
            1,
            || 0u64,
            |mut count, r| {
                for task in r {
                    let (mut rng, pairs) = moves(s, n, step, task);
                    finegrain::record::declare(|| declare_moves(net, &p, &pairs));
                    for (a, b) in pairs {
                        let (la, lb) = (p.get(a), p.get(b));
                        if accept(delta(net, &p, a, b, la, lb), t, &mut rng) {
                            p.swap(a, b);
                            count += 1;
                        }
                    }
                }
                count
            },
            |x, y| x + y,
        );
    }
    (p.into_vec(), accepted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::par::{Finegrain, Serial};

    fn is_permutation(loc: &[u32]) -> bool {
        let mut seen = vec![false; loc.len()];
        loc.iter().all(|&l| (l as usize) < seen.len() && !std::mem::replace(&mut seen[l as usize], true))
    }

    #[test]
    fn concurrent_swaps_keep_a_permutation() {
        // Many tasks swapping among a few elements: every swap contends.
        let start: Vec<u32> = (0..8).collect();
        let p = Placement::new(&start);
        let pool = finegrain::Pool::new(4, "ws").unwrap();
        pool.install(|| {
            finegrain::for_each(0..20_000, |i| {
                let a = i % 8;
                let b = (i * 5 + 3) % 8;
                if a != b {
                    p.swap(a, b);
                }
                assert_ne!(p.get(i % 8), CHECKED_OUT);
            })
        });
        assert!(is_permutation(&p.into_vec()));
    }

    #[test]
    fn moves_chain_and_never_pair_an_element_with_itself() {
        let s = Schedule { seed: 3, steps: 1, tasks: 1, start_temperature: 1.0 };
        for n in [2, 3, 1000] {
            let (_, m) = moves(&s, n, 0, 7);
            assert!(m.iter().all(|&(a, b)| a != b && a < n && b < n));
            assert!(m.windows(2).all(|w| w[0].1 == w[1].0));
        }
    }

    #[test]
    fn annealing_shortens_the_wires_serially_and_in_parallel() {
        let net = Netlist::random(32, 11);
        let s = Schedule { seed: 11, steps: 30, tasks: 64, start_temperature: 16.0 };
        let before = net.routing_cost(|e| net.start[e]);
        let (serial, taken) = run(Serial, &net, &s, Placement::new(&net.start));
        assert!(taken > 0 && is_permutation(&serial));
        let after = net.routing_cost(|e| serial[e]);
        assert!(10 * after < 7 * before, "{after} not well below {before}");
        let pool = finegrain::Pool::new(1, "ws").unwrap();
        assert_eq!(pool.install(|| run(Finegrain, &net, &s, Placement::new(&net.start))), (serial, taken), "one worker runs the tasks in order");
        let pool = finegrain::Pool::new(4, "ws").unwrap();
        let (par, _) = pool.install(|| run(Finegrain, &net, &s, Placement::new(&net.start)));
        assert!(is_permutation(&par));
        let got = net.routing_cost(|e| par[e]);
        assert!(10 * got < 7 * before, "{got} not well below {before}");
    }
}
