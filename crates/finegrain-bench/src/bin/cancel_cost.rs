//! Time for a cancelled scope to return: `n` spawns made, the scope
//! cancelled, and the time from the cancel to the scope's return (issue
//! 29's figure: 10^6 pending spawns in under 10 ms). The body of the wait
//! is `drain`, for `perf record` and callgrind's `--toggle-collect`.
//!
//! ```text
//! cancel_cost <policy> [n] [reps] [threads]
//! ```

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let policy = a.get(1).map_or("ws", |s| s.as_str());
    let n: usize = a.get(2).map_or(1_000_000, |s| s.parse().expect("n"));
    let reps: usize = a.get(3).map_or(5, |s| s.parse().expect("reps"));
    let threads: usize = a.get(4).map_or(1, |s| s.parse().expect("threads"));
    let pool = finegrain::Pool::new(threads, policy).unwrap_or_else(|e| panic!("{e}"));
    let ran = AtomicUsize::new(0);
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            pool.install(|| {
                let mut t0 = None;
                finegrain::scope(|s| {
                    for _ in 0..n {
                        s.spawn(|_| {
                            ran.fetch_add(1, Relaxed);
                        });
                    }
                    s.cancel();
                    t0 = Some(Instant::now());
                });
                t0.map(|t| t.elapsed()).unwrap_or_default()
            })
        })
        .collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{policy:>18} threads {threads}: cancelled scope of {n} pending spawns returned in {:.2} ms (median of {reps}; min {:.2}, max {:.2}); ran {}",
        ms(times[reps / 2]),
        ms(times[0]),
        ms(times[reps - 1]),
        ran.load(Relaxed)
    );
}
