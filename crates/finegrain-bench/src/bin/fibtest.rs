//! A quick look at fib(n) serially, with finegrain and with Rayon, at 1 and 2
//! threads, three runs each, then the finegrain pool's statistics:
//!
//! ```text
//! cargo run --release -p finegrain-bench --bin fibtest -- [n] [policy]
//! ```
//!
//! `n` defaults to 35 and `policy` to `ws`. Not interleaved and no medians:
//! for figures, use `overhead`.

use finegrain_bench::kernels::{fib_finegrain, fib_rayon, fib_serial};
use std::time::Instant;

fn main() {
    let n: u64 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(35);
    for t in [1, 2] {
        let pool = finegrain::Pool::new(t, &std::env::args().nth(2).unwrap_or("ws".into())).unwrap();
        let rp = rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap();
        for _ in 0..3 {
            let s = Instant::now();
            let r0 = std::hint::black_box(fib_serial(std::hint::black_box(n)));
            let ts = s.elapsed();
            let s = Instant::now();
            let r1 = pool.install(|| fib_finegrain(n));
            let tf = s.elapsed();
            let s = Instant::now();
            let r2 = rp.install(|| fib_rayon(n));
            let tr = s.elapsed();
            assert_eq!(r0, r1);
            assert_eq!(r0, r2);
            println!("t={t} serial {:?} finegrain {:?} rayon {:?}", ts, tf, tr);
        }
        println!("{}", pool.stats());
    }
}
