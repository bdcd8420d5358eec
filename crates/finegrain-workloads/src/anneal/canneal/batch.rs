//! Simulated annealing of the placement, as PARSEC's canneal does (Sanchez et
//! al. (ASPLOS 2010), section 5.2): propose swapping the locations of two
//! random elements, accept if the wire length drops, or with probability
//! `exp(-delta / T)` if it grows, and cool down step by step.
//!
//! Unlike PARSEC (whose swaps are asynchronous: `swaps.rs`), and to make the
//! parallel run exactly checkable, each temperature step is a batch of
//! proposals decided against the placement at the start of the batch:
//! 1. claim: each proposal `k` claims its two elements with an atomic minimum,
//!    so the lowest-numbered proposal wins an element;
//! 2. decide: a proposal that won both of its elements computes its delta and
//!    decides, with its own random number;
//! 3. apply: accepted swaps are applied (they are on disjoint elements, so in
//!    any order) and the claims are cleared.
//!
//! Proposals and their random numbers come from a hash of (seed, step, k), so
//! the serial run and every parallel schedule make the same decisions.

use super::netlist::Netlist;
use crate::par::Par;
use crate::support::rng::{SplitMix64, GOLDEN};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Proposals per task: each is a few hundred instructions.
const GRAIN: usize = 16;
const FREE: u32 = u32::MAX;

#[derive(Copy, Clone, Debug)]
pub struct Schedule {
    pub seed: u64,
    pub steps: usize,
    /// Proposals per step.
    pub batch: usize,
    pub start_temperature: f64,
    /// Temperature factor per step.
    pub cooling: f64,
}

/// The swap proposed as number `k` of `step`, and its random number.
#[inline]
fn proposal(s: &Schedule, n: usize, step: usize, k: usize) -> (usize, usize, f64) {
    let mut rng = SplitMix64::new(s.seed ^ ((step as u64) << 40) ^ (k as u64).wrapping_mul(GOLDEN));
    let a = rng.below(n as u64) as usize;
    let b = rng.below(n as u64) as usize;
    (a, b, rng.unit())
}

/// Change in wire length if `a` and `b` swap locations.
#[inline]
fn delta(net: &Netlist, loc: &[AtomicU32], a: usize, b: usize) -> i64 {
    let (la, lb) = (loc[a].load(Relaxed), loc[b].load(Relaxed));
    // The partner's wire keeps its length (both ends move), so skip it.
    let moved = |e: usize, from: u32, to: u32, partner: usize| -> i64 {
        net.neighbours(e)
            .iter()
            .filter(|&&m| m as usize != partner)
            .map(|&m| {
                let lm = loc[m as usize].load(Relaxed);
                net.distance(to, lm) - net.distance(from, lm)
            })
            .sum()
    };
    moved(a, la, lb, b) + moved(b, lb, la, a)
}

/// Declare for `finegrain record` what deciding the swap of `a` and `b`
/// reads: both claims, both locations, their wires and their wires' ends.
fn declare_swap(net: &Netlist, loc: &[AtomicU32], claim: &[AtomicU32], a: usize, b: usize) {
    for e in [a, b] {
        finegrain::record::read(std::slice::from_ref(&claim[e]));
        finegrain::record::read(std::slice::from_ref(&loc[e]));
        finegrain::record::read(net.neighbours(e));
        finegrain::record::read_elements(loc, net.neighbours(e).iter().map(|&m| m as usize));
    }
}

#[inline]
fn accept(d: i64, temperature: f64, r: f64) -> bool {
    d < 0 || r < (-(d as f64) / temperature).exp()
}

/// Final wire length and number of accepted swaps.
pub type Result = (i64, u64);

pub fn serial(net: &Netlist, s: &Schedule) -> Result {
    let n = net.elements();
    let loc: Vec<AtomicU32> = net.start.iter().map(|&l| AtomicU32::new(l)).collect();
    let mut claim = vec![FREE; n];
    let mut accepted_at = vec![false; s.batch];
    let (mut t, mut accepted) = (s.start_temperature, 0u64);
    for step in 0..s.steps {
        for k in 0..s.batch {
            let (a, b, _) = proposal(s, n, step, k);
            claim[a] = claim[a].min(k as u32);
            claim[b] = claim[b].min(k as u32);
        }
        for (k, acc) in accepted_at.iter_mut().enumerate() {
            let (a, b, r) = proposal(s, n, step, k);
            *acc = a != b && claim[a] == k as u32 && claim[b] == k as u32 && accept(delta(net, &loc, a, b), t, r);
        }
        for (k, &acc) in accepted_at.iter().enumerate() {
            let (a, b, _) = proposal(s, n, step, k);
            if acc {
                let la = loc[a].load(Relaxed);
                loc[a].store(loc[b].load(Relaxed), Relaxed);
                loc[b].store(la, Relaxed);
                accepted += 1;
            }
            claim[a] = FREE;
            claim[b] = FREE;
        }
        t *= s.cooling;
    }
    (net.routing_cost(|e| loc[e].load(Relaxed)), accepted)
}

pub fn parallel<P: Par>(par: P, net: &Netlist, s: &Schedule) -> Result {
    let n = net.elements();
    let loc: Vec<AtomicU32> = net.start.iter().map(|&l| AtomicU32::new(l)).collect();
    let claim: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(FREE)).collect();
    let mut accepted_at = vec![false; s.batch];
    let (mut t, mut accepted) = (s.start_temperature, 0u64);
    for step in 0..s.steps {
        par.for_each_chunk(0..s.batch, GRAIN * 4, |r| {
            finegrain::record::declare(|| {
                for k in r.clone() {
                    let (a, b, _) = proposal(s, n, step, k);
                    finegrain::record::write(std::slice::from_ref(&claim[a]));
                    finegrain::record::write(std::slice::from_ref(&claim[b]));
                }
            });
            for k in r {
                let (a, b, _) = proposal(s, n, step, k);
                claim[a].fetch_min(k as u32, Relaxed);
                claim[b].fetch_min(k as u32, Relaxed);
            }
        });
        let temperature = t;
        par.for_each_chunk_mut(&mut accepted_at, GRAIN, |first, part| {
            finegrain::record::declare(|| {
                for k in first..first + part.len() {
                    let (a, b, _) = proposal(s, n, step, k);
                    declare_swap(net, &loc, &claim, a, b);
                }
            });
            for (i, acc) in part.iter_mut().enumerate() {
                let k = first + i;
                let (a, b, r) = proposal(s, n, step, k);
                let won = a != b && claim[a].load(Relaxed) == k as u32 && claim[b].load(Relaxed) == k as u32;
                *acc = won && accept(delta(net, &loc, a, b), temperature, r);
            }
        });
        let decided = &accepted_at;
        accepted += par.fold_chunks(
            0..s.batch,
            GRAIN * 4,
            || 0u64,
            |mut count, r| {
                finegrain::record::declare(|| {
                    finegrain::record::read(&decided[r.clone()]);
                    for k in r.clone() {
                        let (a, b, _) = proposal(s, n, step, k);
                        for e in [a, b] {
                            finegrain::record::write(std::slice::from_ref(&claim[e]));
                            if decided[k] {
                                finegrain::record::write(std::slice::from_ref(&loc[e]));
                            }
                        }
                    }
                });
                for k in r {
                    let (a, b, _) = proposal(s, n, step, k);
                    if decided[k] {
                        // a and b belong to proposal k alone in this batch.
                        let la = loc[a].load(Relaxed);
                        loc[a].store(loc[b].load(Relaxed), Relaxed);
                        loc[b].store(la, Relaxed);
                        count += 1;
                    }
                    claim[a].store(FREE, Relaxed);
                    claim[b].store(FREE, Relaxed);
                }
                count
            },
            |x, y| x + y,
        );
        t *= s.cooling;
    }
    let cost = par.reduce(
        0..n,
        || 0i64,
        |e| {
            let le = loc[e].load(Relaxed);
            net.neighbours(e).iter().map(|&m| net.distance(le, loc[m as usize].load(Relaxed))).sum::<i64>()
        },
        |x, y| x + y,
    );
    (cost / 2, accepted)
}
