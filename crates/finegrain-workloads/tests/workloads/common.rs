//! Every set-A workload at `Size::Test`: the finegrain version on 1, 2 and 8
//! workers and the Rayon version must pass `check` against the serial
//! reference, and `check` must reject a corrupted result.

use finegrain_workloads::{all, by_name, Instance, Output, Size};

const SET_A: [&str; 11] = ["fib", "nqueens", "uts", "cilksort", "matmul", "transpose", "spmv", "sptranspose", "pagerank", "bfs", "sum"];

/// Workloads that have a C++ peer and so must say how to regenerate the input.
const WITH_PEERS: [&str; 7] = ["fib", "nqueens", "uts", "cilksort", "matmul", "spmv", "sum"];

/// A result that is wrong by a small margin, still of the same kind.
fn corrupt(o: &Output) -> Output {
    match o {
        Output::Int(x) => Output::Int(x + 1),
        Output::Float(x) => Output::Float(x * (1.0 + 1e-6) + 1e-12),
        Output::Ints(v) => {
            let mut v = v.clone();
            v[0] += 1;
            Output::Ints(v)
        }
        Output::Floats(v) => {
            let mut v = v.clone();
            let i = v.len() / 2;
            v[i] = v[i] * (1.0 + 1e-6) + 1e-12;
            Output::Floats(v)
        }
        Output::Digest { len, hash } => Output::Digest { len: *len, hash: hash ^ 1 },
    }
}

fn check_workload(name: &str) {
    let w = by_name(name).unwrap_or_else(|| panic!("{name} is not registered"));
    assert!(!w.description().is_empty());
    assert!(w.source().contains("section"), "{name}: source must cite a paper section");
    let inst: Box<dyn Instance> = w.prepare(Size::Test, 42);
    assert!(!inst.describe().is_empty());
    let reference = inst.serial();
    inst.check(&reference, &reference).unwrap();
    assert!(inst.check(&reference, &corrupt(&reference)).is_err(), "{name}: check accepts a corrupted result");
    assert!(inst.check(&reference, &Output::Int(0)).is_err() || reference == Output::Int(0));

    for threads in [1, 2, 8] {
        let pool = finegrain::Pool::new(threads, "ws").unwrap();
        let got = pool.install(|| inst.parallel());
        inst.check(&reference, &got).unwrap_or_else(|e| panic!("{name} on {threads} workers: {e}"));
    }
    let got = inst.rayon().unwrap_or_else(|| panic!("{name} has a Rayon version"));
    inst.check(&reference, &got).unwrap_or_else(|e| panic!("{name} with Rayon: {e}"));

    match inst.peer_args() {
        Some(args) => {
            assert!(WITH_PEERS.contains(&name), "{name}: unexpected peer args");
            for pair in args.split_whitespace() {
                let (k, v) = pair.split_once('=').unwrap_or_else(|| panic!("{name}: bad pair {pair:?}"));
                assert!(!k.is_empty() && !v.is_empty(), "{name}: bad pair {pair:?}");
            }
        }
        None => assert!(!WITH_PEERS.contains(&name), "{name}: missing peer args"),
    }
}

macro_rules! workload_tests {
    ($($test:ident => $name:literal),* $(,)?) => {
        $(#[test] fn $test() { check_workload($name); })*
    };
}

workload_tests! {
    fib => "fib",
    nqueens => "nqueens",
    uts => "uts",
    cilksort => "cilksort",
    matmul => "matmul",
    transpose => "transpose",
    spmv => "spmv",
    sptranspose => "sptranspose",
    pagerank => "pagerank",
    bfs => "bfs",
    sum => "sum",
}

#[test]
fn set_a_comes_first_in_order() {
    let names: Vec<&str> = all().iter().map(|w| w.name()).collect();
    assert_eq!(names[..SET_A.len()], SET_A);
}

#[test]
fn known_answers() {
    let run = |name: &str| by_name(name).unwrap().prepare(Size::Test, 42).serial();
    assert_eq!(run("fib"), Output::Int(6765));
    assert_eq!(run("nqueens"), Output::Int(92));
}

#[test]
fn inputs_depend_on_the_seed() {
    for name in ["uts", "cilksort", "matmul", "transpose", "spmv", "sptranspose", "pagerank", "bfs", "sum"] {
        let w = by_name(name).unwrap();
        let a = w.prepare(Size::Test, 1).serial();
        let b = w.prepare(Size::Test, 2).serial();
        assert_ne!(a, b, "{name}: seeds 1 and 2 give the same result");
        assert_eq!(a, w.prepare(Size::Test, 1).serial(), "{name}: not deterministic");
    }
}

/// CPU time of the calling thread (Linux: the first field of schedstat, in
/// nanoseconds); NaN where unavailable.
fn thread_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(f64::NAN, |ns| ns as f64 * 1e-9)
}

/// Calibration aid, not a check: prints the serial time of every set-A
/// workload at each size. Run in release:
/// `cargo test --release -p finegrain-workloads --test set_a -- --ignored --nocapture`
#[test]
#[ignore]
fn serial_times() {
    let only = std::env::var("SET_A_ONLY").ok();
    for name in SET_A {
        if only.as_deref().is_some_and(|o| !o.split(',').any(|x| x == name)) {
            continue;
        }
        let w = by_name(name).unwrap();
        for size in Size::ALL {
            let t0 = std::time::Instant::now();
            let inst = w.prepare(size, 42);
            let prep = t0.elapsed();
            // The machine is shared: report the best of three runs, both as
            // wall time and as time this thread spent on a CPU.
            let (mut best, mut best_cpu) = (f64::INFINITY, f64::INFINITY);
            let mut out = Output::Int(0);
            for _ in 0..3 {
                let (t1, c1) = (std::time::Instant::now(), thread_cpu_seconds());
                out = inst.serial();
                best = best.min(t1.elapsed().as_secs_f64());
                best_cpu = best_cpu.min(thread_cpu_seconds() - c1);
            }
            let shown = match &out {
                Output::Floats(v) => format!("sum {:.15e}", v.iter().sum::<f64>()),
                o => o.to_string(),
            };
            println!(
                "{name:12} {:5} prepare {:8.3}s serial {best:8.3}s (cpu {best_cpu:.3}s)  {}  -> {shown}",
                size.name(),
                prep.as_secs_f64(),
                inst.describe()
            );
        }
    }
}

/// Calibration aid, not a check: serial, finegrain (2 workers, `ws`) and Rayon
/// times of every set-A workload at `SET_A_SIZE` (default full), each result
/// checked. Run in release like `serial_times`.
#[test]
#[ignore]
fn parallel_times() {
    let only = std::env::var("SET_A_ONLY").ok();
    let size = std::env::var("SET_A_SIZE").ok().and_then(|s| Size::parse(&s)).unwrap_or(Size::Full);
    let threads = std::env::var("SET_A_THREADS").ok().and_then(|s| s.parse().ok()).unwrap_or(2);
    let pool = finegrain::Pool::new(threads, "ws").unwrap();
    for name in SET_A {
        if only.as_deref().is_some_and(|o| !o.split(',').any(|x| x == name)) {
            continue;
        }
        let inst = by_name(name).unwrap().prepare(size, 42);
        let time = |f: &dyn Fn() -> Output| {
            let t = std::time::Instant::now();
            let out = f();
            (t.elapsed().as_secs_f64(), out)
        };
        let (ts, reference) = time(&|| inst.serial());
        let (tp, got) = time(&|| pool.install(|| inst.parallel()));
        inst.check(&reference, &got).unwrap();
        let stats = pool.take_stats();
        let (tr, got) = time(&|| inst.rayon().unwrap());
        inst.check(&reference, &got).unwrap();
        println!("{name:12} serial {ts:7.3}s finegrain {tp:7.3}s rayon {tr:7.3}s");
        println!("{stats}");
    }
}
