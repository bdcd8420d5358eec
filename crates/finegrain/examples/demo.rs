//! Runs a few workloads under every registered policy, beside the serial
//! program, and prints time and the scheduler's time breakdown.
//!
//! `cargo run --release -p finegrain --example demo`
use finegrain::{join, policies, reduce, Pool};
use std::time::{Duration, Instant};

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
    a + b
}
fn fib_serial(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib_serial(n - 1) + fib_serial(n - 2)
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
    let xs: Vec<f64> = (0..10_000_000).map(|i| (i as f64).sin()).collect();
    type Work<'a> = (&'static str, Box<dyn Fn() -> f64 + Sync + 'a>, Box<dyn Fn() -> f64 + Sync + 'a>);
    let work: Vec<Work<'_>> = vec![
        ("fib(32)", Box::new(|| fib_serial(std::hint::black_box(32)) as f64), Box::new(|| fib(32) as f64)),
        ("sum 1e7", Box::new(|| xs.iter().sum::<f64>()), Box::new(|| reduce(0..xs.len(), || 0.0, |i| xs[i], |a, b| a + b))),
    ];
    println!("{:<10} {:<26} {:>10} {:>9}  breakdown", "workload", "policy", "median", "vs serial");
    for (name, serial, par) in &work {
        let ts = median(
            (0..5)
                .map(|_| {
                    let t = Instant::now();
                    std::hint::black_box(serial());
                    t.elapsed()
                })
                .collect(),
        );
        println!("{:<10} {:<26} {:>10.2?} {:>9}", name, "serial", ts, "1.00x");
        for p in policies() {
            for t in [1, threads] {
                let pool = Pool::new(t, p.name).expect("registered policies build");
                let want = serial();
                let mut times = Vec::new();
                pool.reset_stats();
                for _ in 0..5 {
                    let s = Instant::now();
                    let got = pool.install(par);
                    times.push(s.elapsed());
                    assert!((got - want).abs() <= 1e-6 * want.abs().max(1.0), "{name}: {got} != {want}");
                }
                let m = median(times);
                let label = format!("{} x{t}", p.name);
                println!("{:<10} {:<26} {:>10.2?} {:>8.2}x  {}", name, label, m, ts.as_secs_f64() / m.as_secs_f64(), pool.stats());
            }
        }
    }
}
