//! Accesses per second of the machine model on a realistic mix.
//!
//! `cargo run --release -p finegrain-sim --example machine_speed [accesses] [preset [heavy]]`
//! (with a preset: only it, at its most threads, on the realistic mix or,
//! with `heavy`, the miss-heavy one)
//!
//! Each thread runs "tasks" of 100 accesses at its own clock, threads taking
//! turns, as the engine issues them (nearly, not strictly, in time order).
//! An access is, by thread: reuse of a private working set (an eighth of
//! them writes), a private stream of fresh lines, or one of 4096 shared
//! lines (a third of them writes); a realistic and a miss-heavy mix. The
//! access list is made before the clock starts; a first pass warms the
//! caches and the second is timed.
use finegrain_sim::machine::{preset, Machine};
use std::time::Instant;

/// `reuse`, `stream` (percent; the rest shared), `set`: lines of each
/// thread's private working set.
fn workload(threads: usize, n: usize, reuse: u64, stream_pc: u64, set: u64) -> Vec<(u32, u64, bool)> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut stream = vec![0u64; threads];
    let mut out = Vec::with_capacity(n);
    let mut t = 0usize;
    while out.len() < n {
        for _ in 0..100 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let r = x % 100;
            let (line, write) = if r < reuse {
                (((t as u64) << 32) | ((x >> 32) % set), (x >> 20) % 8 == 0)
            } else if r < reuse + stream_pc {
                stream[t] += 1;
                (((t as u64) << 32) | (1 << 31) | stream[t], false)
            } else {
                ((1 << 50) | ((x >> 32) % 4096), (x >> 20) % 3 == 0)
            };
            out.push((t as u32, line, write));
        }
        t = (t + 1) % threads;
    }
    out
}

fn run(name: &str, threads: usize, n: usize, mix: (u64, u64, u64)) {
    let p = preset(name).unwrap();
    let work = workload(threads, n, mix.0, mix.1, mix.2);
    let mut m = Machine::new(p, threads).unwrap();
    let mut clock = vec![0u64; threads];
    // Warm up once (fills the caches), then time a second pass.
    for pass in 0..2 {
        m.reset_stats();
        let start = Instant::now();
        for &(t, line, write) in &work {
            let c = &mut clock[t as usize];
            *c += 2 + m.access(t as usize, line, write, *c) as u64;
        }
        let secs = start.elapsed().as_secs_f64();
        if pass == 1 {
            let s = m.stats();
            println!(
                "{name:14} {threads:5} threads: {:6.1} M accesses/s  ({:.1} ns each; L1 hit {:.1}%, L2 hit {:.1}%, c2c {}, inval {}, DRAM {})",
                n as f64 / secs / 1e6,
                secs * 1e9 / n as f64,
                100.0 * s.l1.hits as f64 / s.l1.accesses.max(1) as f64,
                100.0 * s.l2.hits as f64 / s.l2.accesses.max(1) as f64,
                s.cache_to_cache,
                s.invalidations,
                s.dram_reads,
            );
        }
    }
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20_000_000);
    if let Some(only) = std::env::args().nth(2) {
        let p = preset(&only).unwrap();
        let mix = if std::env::args().nth(3).as_deref() == Some("heavy") { (70, 20, 512) } else { (90, 7, 128) };
        run(&only, p.max_threads(), n, mix);
        return;
    }
    // L1 hits only: one thread re-reading 64 lines.
    let p = preset("adm-cmp").unwrap();
    let mut m = Machine::new(p, 256).unwrap();
    let start = Instant::now();
    let mut sum = 0u64;
    for k in 0..n as u64 {
        sum += m.access((k & 7) as usize, k & 63, false, k) as u64;
    }
    let secs = start.elapsed().as_secs_f64();
    println!("L1 hits only:       {:6.1} M accesses/s  ({:.1} ns each, sum {sum})", n as f64 / secs / 1e6, secs * 1e9 / n as f64);
    println!("realistic mix: 90% reuse of 128 private lines, 7% private stream, 3% shared");
    let real = (90, 7, 128);
    run("adm-cmp", 256, n, real);
    run("adm-cmp-1024", 1024, n, real);
    run("carbon-ring", 64, n, real);
    run("tiled-32", 32, n, real);
    run("hb-128", 128, n, real);
    run("host-2", 2, n, real);
    println!("miss-heavy mix: 70% reuse of 512 private lines, 20% private stream, 10% shared");
    let heavy = (70, 20, 512);
    run("adm-cmp", 256, n, heavy);
    run("carbon-ring", 64, n, heavy);
}
