//! Times the locality workloads (Yoo's thesis, `finegrain_workloads::locality`)
//! serially and on a pool with their hint and without it (the baseline
//! manager), runs interleaved, and prints the median and range of each.
//!
//! `cargo run --release -p finegrain-workloads --example locality_bench -- [SIZE] [REPS] [THREADS] [POLICY] [NAMES...]`
//! (defaults: small 7 2 ws, every locality workload).

use finegrain_workloads::{by_name, locality, Size};
use std::time::Instant;

const NAMES: [&str; 11] = ["conv", "mmm", "smvm", "bprj", "barnes", "hj", "sp", "sph", "ft", "gjk", "brmap"];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let size = args.first().map(|s| Size::parse(s).unwrap_or_else(|| panic!("size must be test, small or full, not {s}"))).unwrap_or(Size::Small);
    let reps: usize = args.get(1).map(|s| s.parse().expect("REPS must be a number")).unwrap_or(7);
    let threads: usize = args.get(2).map(|s| s.parse().expect("THREADS must be a number")).unwrap_or(2);
    let policy = args.get(3).map(String::as_str).unwrap_or("ws");
    let names: Vec<&str> = if args.len() > 4 { args[4..].iter().map(String::as_str).collect() } else { NAMES.to_vec() };
    let pool = finegrain::Pool::new(threads, policy).unwrap_or_else(|e| panic!("{policy}: {e}"));
    println!("size {}, {reps} interleaved runs, {threads} threads, policy {policy}; median [min, max] in ms", size.name());
    println!("{:<8} {:>22} {:>22} {:>22} {:>8} {:>8}", "workload", "serial", "hint", "no hint", "speedup", "hint/no");
    for name in names {
        let hinted = by_name(name).unwrap_or_else(|| panic!("{name} is not registered")).prepare(size, 42);
        let plain = locality::unhinted(name).unwrap_or_else(|| panic!("{name} has no unhinted twin")).prepare(size, 42);
        let reference = hinted.serial();
        let mut times = [vec![], vec![], vec![]];
        for _ in 0..reps {
            let t = Instant::now();
            std::hint::black_box(hinted.serial());
            times[0].push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            let got = pool.install(|| hinted.parallel());
            times[1].push(t.elapsed().as_secs_f64() * 1e3);
            hinted.check(&reference, &got).unwrap_or_else(|e| panic!("{name}: {e}"));
            let t = Instant::now();
            let got = pool.install(|| plain.parallel());
            times[2].push(t.elapsed().as_secs_f64() * 1e3);
            plain.check(&reference, &got).unwrap_or_else(|e| panic!("{name}-nohint: {e}"));
        }
        let stat = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            (v[v.len() / 2], v[0], v[v.len() - 1])
        };
        let s: Vec<(f64, f64, f64)> = times.iter_mut().map(stat).collect();
        let cell = |(m, lo, hi): (f64, f64, f64)| format!("{m:.1} [{lo:.1}, {hi:.1}]");
        println!("{:<8} {:>22} {:>22} {:>22} {:>8.2} {:>8.2}", name, cell(s[0]), cell(s[1]), cell(s[2]), s[0].0 / s[1].0, s[2].0 / s[1].0);
    }
}
