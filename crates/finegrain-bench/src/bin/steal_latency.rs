//! Steal-response latency under the message policies: how long work queued
//! by a worker that runs a 1 ms task without scheduling points waits before
//! it starts, poll against interrupt (issue #12, item 2).
//!
//! ```text
//! cargo run --release -p finegrain-bench --bin steal_latency -- [rounds] [policy ...]
//! ```
//!
//! Defaults: 300 rounds; `adm-central:notify=poll adm-central:notify=interrupt
//! adm-hier:notify=poll adm-hier:notify=interrupt`. Two workers. Each round,
//! one worker runs `join(a, b)` where `a` spins for 1 ms without spawning and
//! `b` records when it starts; the other worker is idle (it found no work
//! after the previous round). The latency is `b`'s start minus the moment
//! just before the `join` marked `b`: the delay from the idle worker's
//! request being possible to the task being received and started. If nobody
//! took `b`, it starts after `a` on the same worker (about 1 ms). The
//! policies are interleaved in blocks of `BLOCK` rounds (one pool each, a
//! 1-3 ms pause between rounds, varied so that the idle worker is caught in
//! every phase of its idle loop); the first round of each block is not
//! recorded: the other pools were called meanwhile, so this pool's idle
//! workers had given their time budget up and parked (`policy::idle`), which
//! is the start of a call, not a steal within a run. (Interleaved round by
//! round, every round would find the pool parked.) Prints p50, p90, p99 and
//! max in microseconds, and how many rounds `b` ran on the other worker, and
//! how many signals the pool sent.

use std::time::{Duration, Instant};

/// Recorded rounds per pool before the next pool's turn.
const BLOCK: usize = 10;

fn spin(d: Duration) {
    let s = Instant::now();
    while s.elapsed() < d {
        std::hint::spin_loop();
    }
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().map(|s| s.parse().expect("rounds: an integer")).unwrap_or(300);
    let mut specs: Vec<String> = args.collect();
    if specs.is_empty() {
        specs = ["adm-central:notify=poll", "adm-central:notify=interrupt", "adm-hier:notify=poll", "adm-hier:notify=interrupt"]
            .map(String::from)
            .to_vec();
    }
    let pools: Vec<finegrain::Pool> = specs.iter().map(|s| finegrain::Pool::new(2, s).unwrap_or_else(|e| panic!("{s}: {e}"))).collect();
    let mut lat: Vec<Vec<f64>> = vec![Vec::new(); specs.len()];
    let mut moved = vec![0usize; specs.len()];
    let mut rng = finegrain::rng::XorShift::new(0x5eed);
    for block in 0..rounds.div_ceil(BLOCK) {
        for k in 0..specs.len() {
            let i = (k + block) % specs.len();
            for r in 0..=BLOCK.min(rounds - block * BLOCK) {
                std::thread::sleep(Duration::from_micros(1000 + rng.next_u64() % 2000));
                let (us, other) = pools[i].install(|| {
                    let t0 = Instant::now();
                    let me = std::thread::current().id();
                    let ((), (tb, who)) = finegrain::join(|| spin(Duration::from_millis(1)), || (t0.elapsed(), std::thread::current().id()));
                    (tb.as_secs_f64() * 1e6, who != me)
                });
                if r > 0 {
                    lat[i].push(us);
                    moved[i] += other as usize;
                }
            }
        }
    }
    println!("{:<36} {:>8} {:>8} {:>8} {:>8} {:>10} {:>11}", "policy", "p50 us", "p90 us", "p99 us", "max us", "stolen", "interrupts");
    for (i, s) in specs.iter().enumerate() {
        let v = &mut lat[i];
        let irq = pools[i].stats().total().interrupts;
        println!(
            "{:<36} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>6}/{} {:>11}",
            s,
            pct(v, 0.5),
            pct(v, 0.9),
            pct(v, 0.99),
            pct(v, 1.0),
            moved[i],
            rounds,
            irq
        );
    }
}
