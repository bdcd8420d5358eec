//! Run one variant of one workload a few times, for instruction counts
//! under callgrind (`docs/mapreduce.md`, "Measured"):
//!
//! ```sh
//! cargo build --release -p finegrain-workloads --example variant
//! valgrind --tool=callgrind target/release/examples/variant histogram full finegrain 2 3
//! valgrind --tool=callgrind target/release/examples/variant histogram full rayon 2 3
//! valgrind --tool=callgrind target/release/examples/variant histogram full none 2 3
//! ```
//!
//! Arguments: workload, size, variant (`finegrain` under `ws`, `rayon`,
//! `serial`, or `none`: the input alone, to subtract), threads, runs. Every
//! run's result is checked against one serial run made first, which `none`
//! makes too.

use finegrain_workloads::{by_name, Size};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 6 {
        eprintln!("usage: variant WORKLOAD SIZE finegrain|rayon|serial|none THREADS RUNS");
        std::process::exit(2);
    }
    let w = by_name(&a[1]).unwrap_or_else(|| {
        eprintln!("no workload {:?}", a[1]);
        std::process::exit(2)
    });
    let size = Size::parse(&a[2]).unwrap_or_else(|| {
        eprintln!("no size {:?}", a[2]);
        std::process::exit(2)
    });
    let threads: usize = a[4].parse().expect("threads");
    let runs: usize = a[5].parse().expect("runs");
    let inst = w.prepare(size, 1);
    let reference = inst.serial();
    let pool = finegrain::Pool::new(threads, "ws").expect("pool");
    rayon::ThreadPoolBuilder::new().num_threads(threads).build_global().expect("rayon pool");
    for _ in 0..runs {
        let got = match a[3].as_str() {
            "finegrain" => pool.install(|| inst.parallel()),
            "rayon" => inst.rayon().expect("the workload has a Rayon version"),
            "serial" => inst.serial(),
            "none" => continue,
            v => {
                eprintln!("no variant {v:?}");
                std::process::exit(2)
            }
        };
        inst.check(&reference, &got).expect("the result matches the serial reference");
    }
}
