//! Fork-join overhead: finegrain's `ws` policy beside serial code, Rayon and
//! chili, at 1 and 2 threads, in one divan run.
//!
//! ```text
//! cargo bench -p finegrain-bench --bench overhead
//! FG_TREE_NODES=1000000 cargo bench -p finegrain-bench --bench overhead -- tree_sum
//! ```
//!
//! Groups: `fib30`, `fib35` (a join per call), `tree_sum` (a join per node with
//! two children; 10^8 nodes unless `FG_TREE_NODES` says otherwise), `loop_sum`
//! (10^7 f64 through `finegrain::reduce` / `par_iter().sum()`; chili has no
//! loop, so no chili benchmark there).
//!
//! divan runs one configuration to completion before the next, so on a shared
//! machine a burst of load lands on whichever it is timing. For numbers worth
//! comparing, use the interleaved runner, `src/bin/overhead.rs`; this file is
//! the quick, per-workload view (and compiles in CI).
//!
//! Pools are built once per benchmark, before `Bencher::bench`, so the timed
//! closure holds only `install` (for chili, opening a scope on the pool; a few
//! microseconds either way) and the workload. Each parallel benchmark first
//! checks one untimed run against the serial result: a fast wrong answer is no
//! result, and the run doubles as a warm-up.

use divan::{black_box, Bencher};
use finegrain_bench::kernels::*;
use std::num::NonZeroUsize;
use std::sync::OnceLock;

fn main() {
    divan::main();
}

/// `cargo bench` passes `--bench`; without it divan runs every benchmark once
/// as a test (`cargo test --benches`), and a 1.6 GB tree would be a poor test.
fn bench_mode() -> bool {
    std::env::args().any(|a| a == "--bench")
}

fn finegrain_pool(threads: usize) -> finegrain::Pool {
    finegrain::Pool::new(threads, "ws").expect("ws pool")
}

fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("rayon pool")
}

/// `threads` in all: the thread that opens a scope and `threads - 1` workers.
fn chili_pool(threads: usize) -> chili::ThreadPool {
    chili::ThreadPool::with_config(chili::Config { thread_count: NonZeroUsize::new(threads), ..Default::default() })
}

/// fib(N) four ways. A macro, not a const-generic group, so the groups carry
/// the plain names `fib30` and `fib35` that the README refers to.
macro_rules! fib_group {
    ($group:ident, $n:expr, $samples:expr) => {
        #[divan::bench_group(sample_count = $samples, sample_size = 1)]
        mod $group {
            use super::*;
            const N: u64 = $n;

            #[divan::bench]
            fn serial(b: Bencher) {
                b.bench(|| fib_serial(black_box(N)));
            }

            #[divan::bench(args = [1, 2])]
            fn finegrain_ws(b: Bencher, threads: usize) {
                let pool = finegrain_pool(threads);
                assert_eq!(pool.install(|| fib_finegrain(N)), fib_serial(N));
                b.bench(|| pool.install(|| fib_finegrain(black_box(N))));
            }

            #[divan::bench(args = [1, 2])]
            fn rayon(b: Bencher, threads: usize) {
                let pool = rayon_pool(threads);
                assert_eq!(pool.install(|| fib_rayon(N)), fib_serial(N));
                b.bench(|| pool.install(|| fib_rayon(black_box(N))));
            }

            #[divan::bench(args = [1, 2])]
            fn chili(b: Bencher, threads: usize) {
                let pool = chili_pool(threads);
                assert_eq!(fib_chili(&mut pool.scope(), N), fib_serial(N));
                b.bench(|| fib_chili(&mut pool.scope(), black_box(N)));
            }
        }
    };
}

fib_group!(fib30, 30, 50);
fib_group!(fib35, 35, 15);

/// Built on first use and shared by every tree benchmark: construction takes
/// about a second at 10^8 nodes and must not be timed.
fn tree() -> &'static Tree {
    static TREE: OnceLock<Tree> = OnceLock::new();
    TREE.get_or_init(|| {
        let n = tree_nodes_from_env(if bench_mode() { TREE_NODES_DEFAULT } else { 1 << 16 });
        Tree::new(n)
    })
}

#[divan::bench_group(sample_count = 5, sample_size = 1)]
mod tree_sum {
    use super::*;

    #[divan::bench]
    fn serial(b: Bencher) {
        let t = tree();
        assert_eq!(t.sum_serial(), t.expected_sum());
        b.bench(|| black_box(t).sum_serial());
    }

    #[divan::bench(args = [1, 2])]
    fn finegrain_ws(b: Bencher, threads: usize) {
        let t = tree();
        let pool = finegrain_pool(threads);
        assert_eq!(pool.install(|| t.sum_finegrain()), t.expected_sum());
        b.bench(|| pool.install(|| black_box(t).sum_finegrain()));
    }

    #[divan::bench(args = [1, 2])]
    fn rayon(b: Bencher, threads: usize) {
        let t = tree();
        let pool = rayon_pool(threads);
        assert_eq!(pool.install(|| t.sum_rayon()), t.expected_sum());
        b.bench(|| pool.install(|| black_box(t).sum_rayon()));
    }

    #[divan::bench(args = [1, 2])]
    fn chili(b: Bencher, threads: usize) {
        let t = tree();
        let pool = chili_pool(threads);
        assert_eq!(t.sum_chili(&mut pool.scope()), t.expected_sum());
        b.bench(|| black_box(t).sum_chili(&mut pool.scope()));
    }
}

fn loop_data_shared() -> &'static [f64] {
    static DATA: OnceLock<Vec<f64>> = OnceLock::new();
    DATA.get_or_init(|| loop_data(LOOP_LEN_DEFAULT))
}

#[divan::bench_group(sample_count = 30, sample_size = 1)]
mod loop_sum {
    use super::*;

    #[divan::bench]
    fn serial(b: Bencher) {
        let v = loop_data_shared();
        b.bench(|| loop_sum_serial(black_box(v)));
    }

    #[divan::bench(args = [1, 2])]
    fn finegrain_ws(b: Bencher, threads: usize) {
        let v = loop_data_shared();
        let pool = finegrain_pool(threads);
        assert_eq!(pool.install(|| loop_sum_finegrain(v)), loop_sum_serial(v));
        b.bench(|| pool.install(|| loop_sum_finegrain(black_box(v))));
    }

    #[divan::bench(args = [1, 2])]
    fn rayon(b: Bencher, threads: usize) {
        let v = loop_data_shared();
        let pool = rayon_pool(threads);
        assert_eq!(pool.install(|| loop_sum_rayon(v)), loop_sum_serial(v));
        b.bench(|| pool.install(|| loop_sum_rayon(black_box(v))));
    }
}
