//! The task lengths of `gtfold-dataflow` (one cell per task), recorded with
//! `finegrain::record`: a histogram in half-octave buckets of cycles, to set
//! beside Sanchez et al. (ASPLOS 2010), sections 5.2 and 6.4 (tasks of about
//! 1 K or 38 K cycles, 14.8 K on average).
//!
//! `cargo run --release -p finegrain-workloads --example gtfold_histogram -- [test|small|full] [seed]`

use finegrain::taskgraph::{Meta, Step, TaskKind};
use finegrain_workloads::{by_name, Size};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size = match args.first().map(|s| Size::parse(s).ok_or(s)) {
        None => Size::Small,
        Some(Ok(s)) => s,
        Some(Err(s)) => {
            eprintln!("unknown size {s:?}: test, small or full");
            std::process::exit(2);
        }
    };
    let seed: u64 = match args.get(1).map(|s| s.parse()) {
        None => 1,
        Some(Ok(s)) => s,
        Some(Err(e)) => {
            eprintln!("bad seed: {e}");
            std::process::exit(2);
        }
    };
    let w = by_name("gtfold-dataflow").expect("gtfold-dataflow is registered");
    let inst = w.prepare(size, seed);
    let reference = inst.serial();
    let (got, g) = finegrain::record::record(Meta::synthetic(w.name(), size.name(), seed), || inst.parallel()).expect("recording outside any pool");
    inst.check(&reference, &got).expect("the recorded run gives the serial table");
    let mut cycles: Vec<u64> = (0..g.tasks.len() as u32)
        .filter(|&t| g.tasks[t as usize].kind == TaskKind::Phase)
        .map(|t| g.steps_of(t).iter().map(|s| if let Step::Work { cycles, .. } = s { *cycles } else { 0 }).sum())
        .collect();
    cycles.sort_unstable();
    let n = cycles.len();
    let mean = cycles.iter().sum::<u64>() as f64 / n as f64;
    // A task the OS descheduled while it was recorded counts the time it
    // was away: the 0.1% longest are left out of the second mean.
    let kept = &cycles[..n - n / 1000];
    let trimmed = kept.iter().sum::<u64>() as f64 / kept.len() as f64;
    println!(
        "gtfold-dataflow --size {} (seed {seed}): {}; {n} cell tasks, mean {mean:.0} cycles ({trimmed:.0} without the longest 0.1%), median {}, p10 {}, p90 {}, clock {:?}",
        size.name(),
        inst.describe(),
        cycles[n / 2],
        cycles[n / 10],
        cycles[n * 9 / 10],
        g.meta.clock
    );
    // Half-octave buckets: bucket b holds [2^(b/2), 2^((b+1)/2)).
    let bucket = |c: u64| (2.0 * (c.max(1) as f64).log2()).floor() as usize;
    let mut hist = vec![0usize; bucket(cycles[n - 1]) + 1];
    for &c in &cycles {
        hist[bucket(c)] += 1;
    }
    let top = *hist.iter().max().unwrap();
    println!("{:>15}  {:>7}  {:>6}", "cycles", "tasks", "share");
    for (b, &k) in hist.iter().enumerate().skip_while(|(_, &k)| k == 0) {
        let lo = 2f64.powf(b as f64 / 2.0);
        let hi = 2f64.powf((b + 1) as f64 / 2.0);
        let bar = "#".repeat((k * 50).div_ceil(top));
        println!("{:>7.0}-{:<7.0}  {k:>7}  {:>5.1}%  {bar}", lo, hi, 100.0 * k as f64 / n as f64);
    }
}
