//! Instructions per chunk of a lazily split loop: `for_each_chunk(0..n, 1)`
//! over empty bodies, inside `measured` (for callgrind's
//! `--toggle-collect='*loop_cost::measured*'`).
//!
//! ```text
//! loop_cost <policy> <n> [threads]
//! ```

use std::hint::black_box;

#[inline(never)]
fn measured(n: usize) {
    finegrain::for_each_chunk(0..n, 1, |r| {
        black_box(r);
    });
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let policy = a.get(1).map_or("ws", |s| s.as_str());
    let n: usize = a.get(2).map_or(100_000, |s| s.parse().expect("n"));
    let threads: usize = a.get(3).map_or(1, |s| s.parse().expect("threads"));
    let pool = finegrain::Pool::new(threads, policy).unwrap_or_else(|e| panic!("{e}"));
    pool.install(|| measured(n));
}
