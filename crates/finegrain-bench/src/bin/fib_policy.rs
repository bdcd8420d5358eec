//! fib(n) once under a given policy (or serially), for callgrind instruction
//! counts of a whole run, pool start-up included:
//!
//! ```text
//! fib_policy <serial|POLICY> <n> [threads]
//! ```
//!
//! `spawn_cost` counts only the computation; this counts everything.

use finegrain_bench::kernels::{fib_finegrain, fib_serial};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: u64 = a[2].parse().expect("n");
    let t: usize = a.get(3).map(|s| s.parse().expect("threads")).unwrap_or(1);
    let r = match a[1].as_str() {
        "serial" => fib_serial(std::hint::black_box(n)),
        spec => finegrain::Pool::new(t, spec).unwrap_or_else(|e| panic!("{e}")).install(|| fib_finegrain(n)),
    };
    println!("{r}");
}
