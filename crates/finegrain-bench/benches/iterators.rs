//! Parallel iterators: finegrain's beside Rayon's, on the same closures
//! (`benches/iterators/work.rs`, compiled once against each prelude), on
//! pools of 2 threads.
//!
//! ```text
//! cargo bench -p finegrain-bench --bench iterators
//! FG_ITER_SPECS='ws;adm-central;static' cargo bench -p finegrain-bench --bench iterators -- sort
//! ```
//!
//! Groups: `map_sum` (a map summed over 10^7 `u64`), `filter_collect` (a
//! third of 10^7 kept, collected in order), `sort_stable` and
//! `sort_unstable` (10^7 random `u64`; the copy to sort is made outside the
//! timing), `word_count` (10^6 words of a 1000-word vocabulary into a
//! `HashMap` by fold and reduce), `find_any` (10^8 indices, the only hit at
//! 10^6). finegrain runs each policy of `FG_ITER_SPECS` (`;`-separated;
//! default `ws;adm-central`).

use divan::{black_box, Bencher};
use std::sync::OnceLock;

mod on_rayon {
    use rayon::prelude::*;
    include!("iterators/work.rs");
}

mod on_finegrain {
    use finegrain::prelude::*;
    include!("iterators/work.rs");
}

fn main() {
    divan::main();
}

const THREADS: usize = 2;
const N: usize = 10_000_000;

fn specs() -> Vec<String> {
    std::env::var("FG_ITER_SPECS")
        .unwrap_or_else(|_| "ws;adm-central".into())
        .split(';')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn fg(spec: &str) -> finegrain::Pool {
    finegrain::Pool::new(THREADS, spec).expect("finegrain pool")
}

fn rayon_pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(THREADS).build().expect("rayon pool")
}

/// 10^7 pseudo-random `u64` (a fixed xorshift stream).
fn data() -> &'static [u64] {
    static D: OnceLock<Vec<u64>> = OnceLock::new();
    D.get_or_init(|| {
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        (0..N)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s
            })
            .collect()
    })
}

/// 10^6 words drawn from 1000.
fn text() -> &'static str {
    static T: OnceLock<String> = OnceLock::new();
    T.get_or_init(|| {
        let words: Vec<String> = (0..1000).map(|i| format!("w{}x{}", i * 7919 % 1000, i % 7)).collect();
        let mut out = String::new();
        for (k, x) in data().iter().take(1_000_000).enumerate() {
            out.push_str(&words[(*x % 1000) as usize]);
            out.push(if k % 12 == 11 { '\n' } else { ' ' });
        }
        out
    })
}

macro_rules! group {
    ($name:ident, samples = $samples:expr, |$b:ident, $install:ident| $body:expr) => {
        #[divan::bench_group(sample_count = $samples, sample_size = 1)]
        mod $name {
            use super::*;

            #[divan::bench(args = specs())]
            fn finegrain($b: Bencher, spec: &str) {
                let pool = fg(spec);
                macro_rules! $install {
                    ($f:expr) => {
                        pool.install($f)
                    };
                }
                #[allow(unused_imports)]
                use on_finegrain as lib;
                $body
            }

            #[divan::bench]
            fn rayon($b: Bencher) {
                let pool = rayon_pool();
                macro_rules! $install {
                    ($f:expr) => {
                        pool.install($f)
                    };
                }
                #[allow(unused_imports)]
                use on_rayon as lib;
                $body
            }
        }
    };
}

group!(map_sum, samples = 30, |b, install| {
    let v = data();
    assert_eq!(install!(|| lib::map_sum(v)), v.iter().map(|&x| x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40).sum::<u64>());
    b.bench_local(|| install!(|| lib::map_sum(black_box(v))));
});

group!(filter_collect, samples = 30, |b, install| {
    let v = data();
    assert_eq!(install!(|| lib::filter_collect(v)).len(), v.iter().filter(|&&x| x % 3 == 0).count());
    b.bench_local(|| install!(|| lib::filter_collect(black_box(v))));
});

group!(sort_stable, samples = 10, |b, install| {
    let mut check = data().to_vec();
    install!(|| lib::sort_stable(&mut check));
    assert!(check.windows(2).all(|w| w[0] <= w[1]));
    b.with_inputs(|| data().to_vec()).bench_local_refs(|v| install!(|| lib::sort_stable(v)));
});

group!(sort_unstable, samples = 10, |b, install| {
    let mut check = data().to_vec();
    install!(|| lib::sort_unstable(&mut check));
    assert!(check.windows(2).all(|w| w[0] <= w[1]));
    b.with_inputs(|| data().to_vec()).bench_local_refs(|v| install!(|| lib::sort_unstable(v)));
});

group!(word_count, samples = 30, |b, install| {
    let t = text();
    assert_eq!(install!(|| lib::word_count(t)).values().sum::<usize>(), 1_000_000);
    b.bench_local(|| install!(|| lib::word_count(black_box(t)).len()));
});

group!(find_any, samples = 30, |b, install| {
    assert_eq!(install!(|| lib::find_any(100_000_000, 1_000_000)), Some(1_000_000));
    b.bench_local(|| install!(|| lib::find_any(black_box(100_000_000), 1_000_000)));
});
