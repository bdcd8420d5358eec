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
//! policies are interleaved round by round (one pool each, a 1-3 ms pause
//! between rounds, varied so that the idle worker is caught in every phase of
//! its idle loop). Prints p50, p90, p99 and max in microseconds, and how many
//! rounds `b` ran on the other worker, and how many signals the pool sent.

use std::time::{Duration, Instant};

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
    for r in 0..rounds {
        for k in 0..specs.len() {
            let i = (k + r) % specs.len();
            std::thread::sleep(Duration::from_micros(1000 + rng.next_u64() % 2000));
            let (us, other) = pools[i].install(|| {
                let t0 = Instant::now();
                let me = std::thread::current().id();
                let ((), (tb, who)) = finegrain::join(|| spin(Duration::from_millis(1)), || (t0.elapsed(), std::thread::current().id()));
                (tb.as_secs_f64() * 1e6, who != me)
            });
            lat[i].push(us);
            moved[i] += other as usize;
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
