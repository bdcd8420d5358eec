//! What a dynamic-phase task costs the runtime (`finegrain::phase`), against
//! the same expansion done serially.
//!
//! ```text
//! phase_cost [--depth D] [--work W] [--reps R] [--policies P,Q] [--threads 1,2]
//! ```
//!
//! The phase expands a complete binary tree of depth `D` (default 18:
//! 2^19 - 1 tasks), one task per node; each task spins `W` rounds (default 50,
//! some 100-200 instructions, a fine-grain task) and adds its node's value to
//! its worker's own counter. The serial reference does the same recursion with
//! plain calls. Every repetition runs every configuration once, the starting
//! one rotating, so slow spells on a shared machine spread over all of them;
//! reported are medians and ranges, the time per task beyond the serial time,
//! and the speedup over serial. Each result is checked against the serial one.

use finegrain::Pool;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

#[derive(Clone, Copy)]
struct Opts {
    depth: u32,
    work: u64,
    reps: usize,
}

fn spin(rounds: u64, seed: u64) -> u64 {
    (0..rounds).fold(seed, |a, i| a.wrapping_mul(31).wrapping_add(black_box(i)))
}

/// Node `(index, depth)`; its value is `spin(work, index) & 0xff`.
fn serial(o: Opts, idx: u64, depth: u32) -> u64 {
    let mut v = spin(o.work, idx) & 0xff;
    if depth < o.depth {
        v += serial(o, 2 * idx, depth + 1);
        v += serial(o, 2 * idx + 1, depth + 1);
    }
    v
}

#[repr(align(128))]
#[derive(Default)]
struct Slot(AtomicU64);

fn parallel(o: Opts) -> u64 {
    let slots: Vec<Slot> = (0..finegrain::current_num_threads()).map(|_| Slot::default()).collect();
    finegrain::phase([(1u64, 0u32)], |ctx, (idx, depth)| {
        let v = spin(o.work, idx) & 0xff;
        if depth < o.depth {
            ctx.enqueue((2 * idx, depth + 1));
            ctx.enqueue((2 * idx + 1, depth + 1));
        }
        let w = finegrain::current_worker_index().unwrap_or(0) % slots.len();
        slots[w].0.fetch_add(v, Relaxed);
    });
    slots.iter().map(|s| s.0.load(Relaxed)).sum()
}

/// The same expansion as a reduced phase (`finegrain::phase_reduce`): under
/// the message-based policies its end rides on the managers' messages.
fn parallel_reduce(o: Opts) -> u64 {
    finegrain::phase_reduce(
        [(1u64, 0u32)],
        0u64,
        |a, b| a + b,
        |ctx, (idx, depth)| {
            let v = spin(o.work, idx) & 0xff;
            if depth < o.depth {
                ctx.enqueue((2 * idx, depth + 1));
                ctx.enqueue((2 * idx + 1, depth + 1));
            }
            v
        },
    )
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn usage() -> ! {
    eprintln!("usage: phase_cost [--depth D] [--work W] [--reps R] [--policies P,Q] [--threads 1,2]");
    std::process::exit(2)
}

fn main() {
    let mut o = Opts { depth: 18, work: 50, reps: 11 };
    let mut policies: Vec<String> = ["ws", "adm-central", "adm-hier"].map(String::from).to_vec();
    let mut threads = vec![1usize, 2];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--depth" => o.depth = val().parse().unwrap_or_else(|_| usage()),
            "--work" => o.work = val().parse().unwrap_or_else(|_| usage()),
            "--reps" => o.reps = val().parse().ok().filter(|&r| r > 0).unwrap_or_else(|| usage()),
            "--policies" => policies = val().split(',').map(String::from).collect(),
            "--threads" => threads = val().split(',').map(|t| t.parse().unwrap_or_else(|_| usage())).collect(),
            _ => usage(),
        }
    }
    let tasks = (1u64 << (o.depth + 1)) - 1;
    let want = serial(o, 1, 0);
    // Configuration 0 is serial; the others are (policy, threads) pools.
    let mut names = vec!["serial".to_string()];
    let mut pools = vec![None];
    for p in &policies {
        for &t in &threads {
            names.push(format!("{p} x{t}"));
            pools.push(Some(Pool::new(t, p).unwrap_or_else(|e| panic!("{e}"))));
            names.push(format!("{p} x{t} reduce"));
            pools.push(Some(Pool::new(t, p).unwrap_or_else(|e| panic!("{e}"))));
        }
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); pools.len()];
    for rep in 0..o.reps {
        for k in 0..pools.len() {
            let c = (k + rep) % pools.len();
            let start = Instant::now();
            let got = match &pools[c] {
                None => serial(o, black_box(1), 0),
                Some(p) if names[c].ends_with(" reduce") => p.install(|| parallel_reduce(o)),
                Some(p) => p.install(|| parallel(o)),
            };
            times[c].push(start.elapsed());
            assert_eq!(got, want, "{}: wrong result", names[c]);
        }
    }
    println!("phase of {tasks} tasks (binary tree of depth {}), {} spin rounds each, {} repetitions\n", o.depth, o.work, o.reps);
    println!("| configuration | median | min - max | ns per task beyond serial | speedup |");
    println!("|---|---:|---:|---:|---:|");
    let ts = median(&mut times[0].clone());
    for (c, name) in names.iter().enumerate() {
        let mut v = times[c].clone();
        let m = median(&mut v);
        let extra = if c == 0 { "-".into() } else { format!("{:.1}", (m.as_secs_f64() - ts.as_secs_f64()) * 1e9 / tasks as f64) };
        println!(
            "| {name} | {:.2} ms | {:.2} - {:.2} ms | {extra} | {:.2}x |",
            m.as_secs_f64() * 1e3,
            v[0].as_secs_f64() * 1e3,
            v[v.len() - 1].as_secs_f64() * 1e3,
            ts.as_secs_f64() / m.as_secs_f64()
        );
    }
}
