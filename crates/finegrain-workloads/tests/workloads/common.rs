//! The checks every workload passes at `Size::Test`, whatever its domain.

use finegrain_workloads::{all, by_name, Instance, Output, Size};

/// The API kinds a workload may name.
const APIS: [&str; 8] = ["join", "scope", "loop", "reduce", "phase", "graph", "loop-2d", "mapreduce"];

/// Workloads that have a C++ peer and so must say how to regenerate the input.
const WITH_PEERS: [&str; 7] = ["fib", "nqueens", "uts", "cilksort", "matmul", "spmv", "sum"];

/// Workloads whose input is a parameter alone, not drawn from the seed.
/// Workloads whose input does not depend on the seed: fib and nqueens have
/// none; kmeans, pca and matrix_multiply draw Phoenix's own input from
/// glibc's `rand()` in its initial state.
const SEED_FREE: [&str; 5] = ["fib", "nqueens", "kmeans", "pca", "matrix_multiply"];

pub fn prepare(name: &str, size: Size, seed: u64) -> Box<dyn Instance> {
    by_name(name).unwrap_or_else(|| panic!("workload {name} is not registered")).prepare(size, seed)
}

/// Wrong results that every check must reject: off by one unit, a flipped
/// digest, a longer digest, one element changed by a small margin (1e-6
/// relative) and by much more than any tolerance, a NaN, a lost element.
pub fn corruptions(out: &Output) -> Vec<Output> {
    let bump = |x: f64| if x == 0.0 { 1.0 } else { x * 1.01 };
    let nudge = |x: f64| x * (1.0 + 1e-6) + 1e-12;
    match out {
        Output::Int(x) => vec![Output::Int(x + 1), Output::Int(x ^ 1)],
        Output::Float(x) => vec![Output::Float(nudge(*x)), Output::Float(bump(*x)), Output::Float(f64::NAN)],
        Output::Ints(v) => {
            let mut first = v.clone();
            first[0] += 1;
            (0..v.len())
                .map(|i| {
                    let mut w = v.clone();
                    w[i] ^= 1;
                    Output::Ints(w)
                })
                .chain([Output::Ints(first), Output::Ints(v[1..].to_vec())])
                .collect()
        }
        Output::Floats(v) => {
            let i = v.len() / 2;
            let mut nudged = v.clone();
            nudged[i] = nudge(nudged[i]);
            let mut bumped = v.clone();
            bumped[i] = bump(bumped[i]) + 1e-3 * v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            vec![Output::Floats(nudged), Output::Floats(bumped), Output::Floats(v[1..].to_vec())]
        }
        Output::Digest { len, hash } => {
            vec![Output::Digest { len: *len, hash: hash ^ 1 }, Output::Digest { len: len + 1, hash: *hash }]
        }
    }
}

/// Registered once, described, cited and of a known API kind; at
/// `Size::Test`, the finegrain version on 1, 2 and 8 workers and the Rayon
/// version pass `check` against the serial reference, and `check` rejects
/// every corruption of it; peer arguments exactly where there is a C++ peer;
/// the input is a function of the seed, and of nothing else.
pub fn check_workload(name: &str) {
    let all = all();
    let found: Vec<_> = all.iter().filter(|w| w.name() == name).collect();
    assert_eq!(found.len(), 1, "{name} must be registered once");
    let w = found[0];
    assert!(!w.description().is_empty(), "{name}: no description");
    assert!(w.source().contains("section"), "{name}: source must cite a paper section, got {}", w.source());
    assert!(APIS.contains(&w.api()), "{name}: api {}", w.api());

    let inst = w.prepare(Size::Test, 42);
    assert!(!inst.describe().is_empty(), "{name}: empty describe()");
    let reference = inst.serial();
    inst.check(&reference, &reference).unwrap_or_else(|e| panic!("{name}: check rejects the reference itself: {e}"));
    for bad in corruptions(&reference) {
        assert!(inst.check(&reference, &bad).is_err(), "{name}: check accepted {bad:?} for {reference:?}");
    }
    assert!(inst.check(&reference, &Output::Int(0)).is_err() || reference == Output::Int(0), "{name}: check accepts Int(0)");

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

    // The same seed gives the same result, exactly; another seed a different
    // one, as far as `check` can tell.
    for (seed, other) in [(42, 43), (1, 2)] {
        let first = w.prepare(Size::Test, seed);
        let a = first.serial();
        assert_eq!(a, w.prepare(Size::Test, seed).serial(), "{name}: seed {seed} twice gives different results");
        if !SEED_FREE.contains(&name) {
            let b = w.prepare(Size::Test, other).serial();
            assert!(first.check(&a, &b).is_err(), "{name}: seeds {seed} and {other} give the same result");
        }
    }
}

/// `Size::Small` under two workers: larger inputs reach code paths (deep
/// lattices, many partitions, long diagonals) that `Test` barely touches.
pub fn check_small(name: &str) {
    let inst = prepare(name, Size::Small, 42);
    let reference = inst.serial();
    let pool = finegrain::Pool::new(2, "ws").unwrap();
    let got = pool.install(|| inst.parallel());
    inst.check(&reference, &got).unwrap_or_else(|e| panic!("{name} at Small: {e}"));
}

/// One `#[test]` per workload, each running [`check_workload`], plus the
/// list of names the module covers (`NAMES`).
macro_rules! workload_tests {
    ($($test:ident => $name:literal),* $(,)?) => {
        /// The workloads this module tests.
        pub const NAMES: &[&str] = &[$($name),*];
        $(#[test] fn $test() { $crate::common::check_workload($name); })*
    };
}
pub(crate) use workload_tests;
