//! The cost of one call into a pool from a thread outside it: `pool.install`
//! of a closure that does nothing, under every policy, beside Rayon's
//! `install` and chili's `scope`, on pools of 2 threads (issue 27, item 4:
//! at most 5 µs per call, p50).
//!
//! ```text
//! cargo bench -p finegrain-bench --bench install
//! FG_INSTALL_SPECS='ws;ws:awake=0' cargo bench -p finegrain-bench --bench install -- finegrain
//! ```
//!
//! 100 samples of 1,000 calls each (10^5 calls); divan's median is the p50 of
//! the per-sample mean. The call hands a job to an idle pool and waits for
//! it: what it costs is mostly the wake-up of a parked worker and of the
//! caller, which `policy::idle` and the pool's injector decide.

use divan::{black_box, Bencher};
use std::num::NonZeroUsize;

fn main() {
    divan::main();
}

const THREADS: usize = 2;

/// The policies measured: every one, or the specs of `FG_INSTALL_SPECS`
/// (separated by `;`), e.g. `ws;ws:awake=0` to compare an option in one run.
fn specs() -> Vec<String> {
    match std::env::var("FG_INSTALL_SPECS") {
        Ok(s) => s.split(';').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect(),
        Err(_) => ["ws", "adm-central", "adm-hier", "carbon", "sw-hier", "pdf", "static"].map(String::from).to_vec(),
    }
}

#[divan::bench(args = specs(), sample_count = 100, sample_size = 1000)]
fn finegrain(b: Bencher, policy: &str) {
    let pool = finegrain::Pool::new(THREADS, policy).expect("pool");
    assert_eq!(pool.install(|| 1 + 1), 2);
    b.bench_local(|| pool.install(|| black_box(1u64)));
}

/// The shape of Rayon's own `join_counter_overflow` test (`pool.join` from
/// outside, 500,000 times there): a call whose job is a `join` of two tiny
/// closures, so that the second half may be taken by the other worker and
/// the first waits for it, inside a call from outside.
#[divan::bench(args = specs(), sample_count = 100, sample_size = 1000)]
fn finegrain_join(b: Bencher, policy: &str) {
    let pool = finegrain::Pool::new(THREADS, policy).expect("pool");
    assert_eq!(pool.install(|| 1 + 1), 2);
    b.bench_local(|| pool.install(|| finegrain::join(|| black_box(1u64), || black_box(2u64))));
}

#[divan::bench(sample_count = 100, sample_size = 1000)]
fn rayon_join(b: Bencher) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(THREADS).build().expect("rayon pool");
    b.bench_local(|| pool.join(|| black_box(1u64), || black_box(2u64)));
}

#[divan::bench(sample_count = 100, sample_size = 1000)]
fn rayon(b: Bencher) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(THREADS).build().expect("rayon pool");
    b.bench_local(|| pool.install(|| black_box(1u64)));
}

/// chili has no hand-off: the calling thread opens a scope and runs the
/// work itself (the pool has `THREADS - 1` workers besides it), so this is
/// the cost of opening a scope, not of reaching a worker.
#[divan::bench(sample_count = 100, sample_size = 1000)]
fn chili_scope(b: Bencher) {
    let pool = chili::ThreadPool::with_config(chili::Config { thread_count: NonZeroUsize::new(THREADS), ..Default::default() });
    b.bench_local(|| {
        let s = pool.scope();
        black_box(&s);
    });
}
