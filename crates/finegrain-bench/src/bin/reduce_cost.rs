//! What the end of a reduced phase costs: piggybacked on the managers'
//! messages (000 section 4.2) against the shared-memory tree
//! (`finegrain::phase_reduce_with`, `ReduceMethod::{Piggyback, Tree}`).
//!
//! ```text
//! reduce_cost [--threads 2,4,8,16,32] [--reps R] [--per-worker K] [--work W] [--policies P,Q] [--kind phase|loop]
//! reduce_cost count <[loop-]piggyback|[loop-]tree|plain> <policy> <threads> <phases> <tasks>
//! ```
//!
//! `--kind loop` measures loop reductions instead of phases
//! (`finegrain::fold_chunks_with`): one loop of `K` iterations per worker,
//! grain 1, so each iteration is a chunk; `piggyback` is the loop run as a
//! piggybacked phase (partials on the termination messages), `tree` the
//! loop's own tree of `join`s combining the partials on the way back up.
//!
//! Timing (the default): for each policy and pool size, `R` repetitions
//! (default 31) of one phase per method, the two methods interleaved (their
//! order alternating from one repetition to the next). A phase has `K` tasks
//! per worker (default 8), each spinning for `W` rounds (default 20,000, tens
//! of microseconds) and returning a value; every task writes the time at which
//! its body ended into its own slot. The latency of one phase is the time at
//! which `phase_reduce_with` returned to its caller minus the latest of those
//! ends: from the last task's completion to the caller having the result
//! (termination detection, the combining, and waking the caller). Reported:
//! median, quartiles and minimum over the repetitions, in microseconds. Pools
//! larger than the machine's CPUs are oversubscribed: a hop to a thread that is
//! not running then costs a wake-up and a reschedule.
//!
//! `count` is for callgrind (`scripts/reduce_cost.sh`): `phases` phases of
//! `tasks` tasks with empty bodies, all inside [`measured`], which the script
//! counts with `--toggle-collect` (only the calling thread's instructions are
//! collected, so counts are meaningful with one worker, where everything runs
//! on that thread); `plain` is `finegrain::phase`, no reduction.

use finegrain::{fold_chunks_with, phase_reduce_with, Pool, ReduceMethod};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

fn spin(rounds: u64) -> u64 {
    (0..rounds).fold(0u64, |a, i| a.wrapping_add(black_box(i)))
}

/// One phase; returns the latency in nanoseconds from the last body's end to
/// the caller holding the result. Runs inside the pool (the caller is a worker).
fn one_phase(method: ReduceMethod, tasks: u64, work: u64, base: Instant, ends: &[AtomicU64]) -> u64 {
    let now = || base.elapsed().as_nanos() as u64;
    let sum = phase_reduce_with(
        method,
        0..tasks,
        0u64,
        |a, b| a + b,
        |_, i| {
            let v = spin(work) & 1;
            ends[i as usize].store(now(), Relaxed);
            i + v - v
        },
    );
    let done = now();
    assert_eq!(sum, tasks * (tasks - 1) / 2, "{method:?}: wrong result");
    let last = ends[..tasks as usize].iter().map(|e| e.load(Relaxed)).max().unwrap_or(done);
    done.saturating_sub(last)
}

/// One loop reduction of `tasks` iterations of `work` rounds each, grain 1;
/// latency as in [`one_phase`].
fn one_loop(method: ReduceMethod, tasks: u64, work: u64, base: Instant, ends: &[AtomicU64]) -> u64 {
    let now = || base.elapsed().as_nanos() as u64;
    let sum = fold_chunks_with(
        method,
        0..tasks as usize,
        1,
        0u64,
        |acc, r| {
            r.fold(acc, |a, i| {
                let v = spin(work) & 1;
                ends[i].store(now(), Relaxed);
                a + i as u64 + v - v
            })
        },
        |a, b| a + b,
    );
    let done = now();
    assert_eq!(sum, tasks * (tasks - 1) / 2, "{method:?}: wrong result");
    let last = ends[..tasks as usize].iter().map(|e| e.load(Relaxed)).max().unwrap_or(done);
    done.saturating_sub(last)
}

/// The counted region for callgrind: `phases` phases of `tasks` tasks with
/// empty bodies; `None` is a plain `phase` (no reduction) for comparison.
/// With `loops`, loop reductions of `tasks` iterations (grain 1) instead.
#[inline(never)]
fn measured(method: Option<ReduceMethod>, loops: bool, phases: u64, tasks: u64) -> u64 {
    if let (true, Some(m)) = (loops, method) {
        return (0..phases).map(|_| fold_chunks_with(m, 0..tasks as usize, 1, 0u64, |a, r| a + black_box(r.start as u64), |a, b| a + b)).sum();
    }
    match method {
        Some(m) => (0..phases).map(|_| phase_reduce_with(m, 0..tasks, 0u64, |a, b| a + b, |_, i| black_box(i))).sum(),
        None => {
            let sum = AtomicU64::new(0);
            for _ in 0..phases {
                finegrain::phase(0..tasks, |_, i| {
                    black_box(i);
                });
                sum.fetch_add(tasks * tasks.saturating_sub(1) / 2, Relaxed);
            }
            sum.into_inner()
        }
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: reduce_cost [--threads 2,4,8,16,32] [--reps R] [--per-worker K] [--work W] [--policies P,Q] [--kind phase|loop]\n       reduce_cost count <[loop-]piggyback|[loop-]tree|plain> <policy> <threads> <phases> <tasks>"
    );
    std::process::exit(2)
}

fn method_of(s: &str) -> Option<ReduceMethod> {
    match s {
        "piggyback" => Some(ReduceMethod::Piggyback),
        "tree" => Some(ReduceMethod::Tree),
        "plain" => None,
        _ => usage(),
    }
}

/// Split a comma-separated list of policy specs whose own options are also
/// separated by commas: a part of the form `name=value` continues the spec
/// before it (`adm-central:spin=0,manager=dedicated,adm-hier` is two specs).
fn split_specs(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in list.split(',') {
        match out.last_mut() {
            Some(prev) if part.contains('=') && !part.contains(':') => {
                prev.push(',');
                prev.push_str(part);
            }
            _ => out.push(part.to_string()),
        }
    }
    out
}

fn quantile(sorted: &[u64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    let f = pos - lo as f64;
    sorted[lo] as f64 * (1.0 - f) + sorted[hi] as f64 * f
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("count") {
        let [_, m, policy, threads, phases, tasks] = &args[..] else { usage() };
        let pool = Pool::new(threads.parse().unwrap_or_else(|_| usage()), policy).unwrap_or_else(|e| panic!("{e}"));
        let (phases, tasks): (u64, u64) = (phases.parse().unwrap_or_else(|_| usage()), tasks.parse().unwrap_or_else(|_| usage()));
        let (loops, m) = match m.strip_prefix("loop-") {
            Some(rest) => (true, method_of(rest)),
            None => (false, method_of(m)),
        };
        // Warm up outside the counted region (thread-local and allocator state).
        pool.install(|| measured(m, loops, 2, tasks));
        let s = pool.install(|| measured(m, loops, phases, tasks));
        assert_eq!(s, phases * tasks * tasks.saturating_sub(1) / 2);
        println!("ok {s}");
        return;
    }
    let mut threads = vec![2usize, 4, 8, 16, 32];
    let mut reps = 31usize;
    let mut per_worker = 8u64;
    let mut work = 20_000u64;
    let mut policies = vec!["adm-central".to_string(), "adm-hier".to_string()];
    let mut kind = "phase".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().cloned().unwrap_or_else(|| usage());
        match a.as_str() {
            "--threads" => threads = val().split(',').map(|s| s.parse().unwrap_or_else(|_| usage())).collect(),
            "--reps" => reps = val().parse().unwrap_or_else(|_| usage()),
            "--per-worker" => per_worker = val().parse().unwrap_or_else(|_| usage()),
            "--work" => work = val().parse().unwrap_or_else(|_| usage()),
            "--policies" => policies = split_specs(&val()),
            "--kind" => kind = val(),
            _ => usage(),
        }
    }
    let one: fn(ReduceMethod, u64, u64, Instant, &[AtomicU64]) -> u64 = match kind.as_str() {
        "phase" => one_phase,
        "loop" => one_loop,
        _ => usage(),
    };
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    println!("# reduce_cost --kind {kind}: {reps} interleaved repetitions, {per_worker} tasks per worker of {work} spin rounds; {cpus} CPUs");
    println!("# latency = caller has the result - last task body ended, microseconds");
    println!();
    println!("| policy | workers | method | median | p25-p75 | min | phase time median |");
    println!("|---|---:|---|---:|---:|---:|---:|");
    let base = Instant::now();
    for policy in &policies {
        for &n in &threads {
            let pool = Pool::new(n, policy).unwrap_or_else(|e| panic!("{policy}: {e}"));
            let tasks = per_worker * n as u64;
            let ends: Vec<AtomicU64> = (0..tasks).map(|_| AtomicU64::new(0)).collect();
            let methods = [ReduceMethod::Piggyback, ReduceMethod::Tree];
            let mut lat = [Vec::new(), Vec::new()];
            let mut whole = [Vec::new(), Vec::new()];
            // Warm-up: one of each.
            for m in methods {
                pool.install(|| one(m, tasks, work, base, &ends));
            }
            for r in 0..reps {
                for k in 0..2 {
                    let k = if r % 2 == 0 { k } else { 1 - k };
                    let t0 = Instant::now();
                    let l = pool.install(|| one(methods[k], tasks, work, base, &ends));
                    whole[k].push(t0.elapsed().as_nanos() as u64);
                    lat[k].push(l);
                }
            }
            for k in 0..2 {
                lat[k].sort_unstable();
                whole[k].sort_unstable();
                let us = |ns: f64| ns / 1000.0;
                println!(
                    "| {policy} | {n}{} | {} | {:.1} | {:.1}-{:.1} | {:.1} | {:.0} |",
                    if n > cpus { " (oversubscribed)" } else { "" },
                    if k == 0 { "piggyback" } else { "tree" },
                    us(quantile(&lat[k], 0.5)),
                    us(quantile(&lat[k], 0.25)),
                    us(quantile(&lat[k], 0.75)),
                    us(lat[k][0] as f64),
                    us(quantile(&whole[k], 0.5)),
                );
            }
        }
    }
}
