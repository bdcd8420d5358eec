//! Calibration aids, not checks: serial and parallel times of the workloads,
//! for choosing input sizes and grains. Run them in release:
//! `cargo test --release -p finegrain-workloads --test workloads calibrate -- --ignored --nocapture`.
//! `CALIBRATE_ONLY=fib,cg` picks workloads; `parallel_times` also reads
//! `CALIBRATE_SIZE` (default full) and `CALIBRATE_THREADS` (a list, default 1,2).

use finegrain_workloads::{all, Output, Size};
use std::time::Instant;

/// The names in `CALIBRATE_ONLY`, or every workload.
fn selected() -> Vec<&'static str> {
    let only = std::env::var("CALIBRATE_ONLY").ok();
    all().iter().map(|w| w.name()).filter(|n| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == *n))).collect()
}

/// CPU time of the calling thread (Linux: the first field of schedstat, in
/// nanoseconds), which a loaded machine inflates less than wall-clock time;
/// NaN where unavailable.
fn thread_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(f64::NAN, |ns| ns as f64 * 1e-9)
}

/// The serial time of every workload at each size.
#[test]
#[ignore]
fn serial_times() {
    for name in selected() {
        let w = finegrain_workloads::by_name(name).unwrap();
        for size in Size::ALL {
            let t0 = Instant::now();
            let inst = w.prepare(size, 42);
            let prep = t0.elapsed();
            // The machine may be shared: report the best of three runs, both
            // as wall time and as time this thread spent on a CPU.
            let (mut best, mut best_cpu) = (f64::INFINITY, f64::INFINITY);
            let mut out = Output::Int(0);
            for _ in 0..3 {
                let (t1, c1) = (Instant::now(), thread_cpu_seconds());
                out = inst.serial();
                best = best.min(t1.elapsed().as_secs_f64());
                best_cpu = best_cpu.min(thread_cpu_seconds() - c1);
            }
            let shown = match &out {
                Output::Floats(v) => format!("sum {:.15e}", v.iter().sum::<f64>()),
                o => o.to_string(),
            };
            println!(
                "{name:16} {:5} prepare {:8.3}s serial {best:8.3}s (cpu {best_cpu:.3}s)  {}  -> {shown}",
                size.name(),
                prep.as_secs_f64(),
                inst.describe()
            );
        }
    }
}

/// Serial, finegrain (`ws`, at each thread count) and Rayon times of every
/// workload at one size, each result checked, with the pool's counters.
#[test]
#[ignore]
fn parallel_times() {
    let size = std::env::var("CALIBRATE_SIZE").ok().and_then(|s| Size::parse(&s)).unwrap_or(Size::Full);
    let threads: Vec<usize> =
        std::env::var("CALIBRATE_THREADS").ok().map(|s| s.split(',').filter_map(|t| t.trim().parse().ok()).collect()).unwrap_or_else(|| vec![1, 2]);
    let pools: Vec<_> = threads.iter().map(|&t| (t, finegrain::Pool::new(t, "ws").unwrap())).collect();
    for name in selected() {
        let inst = finegrain_workloads::by_name(name).unwrap().prepare(size, 42);
        let time = |f: &dyn Fn() -> Output| {
            let t = Instant::now();
            let out = f();
            (t.elapsed().as_secs_f64(), out)
        };
        let (ts, reference) = time(&|| inst.serial());
        let mut line = format!("{name:16} serial {ts:7.3}s");
        let mut stats = Vec::new();
        for (t, pool) in &pools {
            let (tp, got) = time(&|| pool.install(|| inst.parallel()));
            inst.check(&reference, &got).unwrap_or_else(|e| panic!("{name} on {t} workers: {e}"));
            line += &format!("  finegrain({t}) {tp:7.3}s");
            stats.push(pool.take_stats());
        }
        let (tr, got) = time(&|| inst.rayon().unwrap());
        inst.check(&reference, &got).unwrap_or_else(|e| panic!("{name} with Rayon: {e}"));
        println!("{line}  rayon {tr:7.3}s  {reference}  ({})", inst.describe());
        for s in stats {
            println!("{s}");
        }
    }
}
