//! Every adapter and consumer against the serial iterator, as a property
//! over lengths 0..10^4, under every policy at 1 to 4 workers.
//!
//! One pool per (policy, workers) pair; proptest draws the data, a length and
//! a `with_min_len` / `with_max_len` split size, and each case checks the whole
//! list below inside the pool.

use finegrain::prelude::*;
use finegrain::Pool;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::collections::{BTreeMap, HashMap};

/// `a0, b0, a1, b1, ...`, then the longer one's rest; `shortest`: stop when
/// the side whose turn it is has run out.
fn interleave_ref<T: Clone>(a: &[T], b: &[T], shortest: bool) -> Vec<T> {
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    loop {
        if i < a.len() {
            out.push(a[i].clone());
            i += 1;
        } else if shortest {
            break;
        }
        if j < b.len() {
            out.push(b[j].clone());
            j += 1;
        } else if shortest {
            break;
        }
        if i == a.len() && j == b.len() {
            break;
        }
    }
    out
}

/// Each source, adapter and consumer beside its serial twin.
fn check(v: &[u32], split: usize) {
    let n = v.len();
    let ser: u64 = v.iter().map(|&x| x as u64 * 3).sum();
    assert_eq!(v.par_iter().map(|&x| x as u64 * 3).sum::<u64>(), ser);
    assert_eq!(v.par_iter().with_min_len(split).map(|&x| x as u64 * 3).sum::<u64>(), ser);
    assert_eq!(v.par_iter().with_max_len(split).map(|&x| x as u64 * 3).sum::<u64>(), ser);
    assert_eq!(v.par_iter().take(20).map(|&x| (x % 7) as u64 + 1).product::<u64>(), v.iter().take(20).map(|&x| (x % 7) as u64 + 1).product::<u64>());
    assert_eq!(v.par_iter().copied().filter(|x| x % 3 == 0).collect::<Vec<_>>(), v.iter().copied().filter(|x| x % 3 == 0).collect::<Vec<_>>());
    assert_eq!(
        v.par_iter().filter_map(|&x| (x % 2 == 0).then_some(x / 2)).collect::<Vec<_>>(),
        v.iter().filter_map(|&x| (x % 2 == 0).then_some(x / 2)).collect::<Vec<_>>()
    );
    assert_eq!(v.par_iter().cloned().rev().collect::<Vec<_>>(), v.iter().cloned().rev().collect::<Vec<_>>());
    assert_eq!(
        v.par_iter().enumerate().map(|(i, &x)| i as u64 ^ x as u64).collect::<Vec<_>>(),
        v.iter().enumerate().map(|(i, &x)| i as u64 ^ x as u64).collect::<Vec<_>>()
    );
    assert_eq!(v.par_iter().skip(n / 3).take(n / 2).copied().collect::<Vec<_>>(), v.iter().skip(n / 3).take(n / 2).copied().collect::<Vec<_>>());
    assert_eq!(v.par_iter().step_by(split.max(1)).copied().collect::<Vec<_>>(), v.iter().step_by(split.max(1)).copied().collect::<Vec<_>>());
    assert_eq!(
        v.par_iter().zip(v.par_iter().rev()).map(|(a, b)| a.wrapping_sub(*b)).collect::<Vec<_>>(),
        v.iter().zip(v.iter().rev()).map(|(a, b)| a.wrapping_sub(*b)).collect::<Vec<_>>()
    );
    assert_eq!(
        v.par_iter().zip_eq(0..n).map(|(a, i)| *a as usize + i).sum::<usize>(),
        v.iter().zip(0..n).map(|(a, i)| *a as usize + i).sum::<usize>()
    );
    assert_eq!(
        v.par_iter().chain(v[..n / 2].par_iter()).copied().collect::<Vec<_>>(),
        v.iter().chain(v[..n / 2].iter()).copied().collect::<Vec<_>>()
    );
    assert_eq!(v.par_iter().take(50).flat_map(|&x| 0..x % 17).collect::<Vec<_>>(), v.iter().take(50).flat_map(|&x| 0..x % 17).collect::<Vec<_>>());
    assert_eq!(v.par_iter().flat_map_iter(|&x| 0..x % 5).collect::<Vec<_>>(), v.iter().flat_map(|&x| 0..x % 5).collect::<Vec<_>>());
    let nested: Vec<Vec<u32>> = v.chunks(split.max(1)).map(<[u32]>::to_vec).collect();
    assert_eq!(nested.par_iter().flatten().copied().collect::<Vec<_>>(), v);
    assert_eq!(nested.clone().into_par_iter().flatten_iter().collect::<Vec<_>>(), v);
    assert_eq!(v.par_chunks(split.max(1)).map(|c| c.len()).collect::<Vec<_>>(), v.chunks(split.max(1)).map(|c| c.len()).collect::<Vec<_>>());
    assert_eq!(v.par_chunks_exact(split.max(1)).map(|c| c[0]).collect::<Vec<_>>(), v.chunks_exact(split.max(1)).map(|c| c[0]).collect::<Vec<_>>());
    assert_eq!(v.par_windows(3).map(|w| w[1]).collect::<Vec<_>>(), v.windows(3).map(|w| w[1]).collect::<Vec<_>>());
    assert_eq!(v.par_split(|x| x % 10 == 0).map(|s| s.len()).collect::<Vec<_>>(), v.split(|x| x % 10 == 0).map(|s| s.len()).collect::<Vec<_>>());
    assert_eq!(v.par_iter().copied().chunks(split.max(1)).collect::<Vec<_>>(), nested);
    let half = &v[..n / 3];
    assert_eq!(v.par_iter().interleave(half.par_iter()).copied().collect::<Vec<_>>(), interleave_ref(v, half, false));
    assert_eq!(
        half.par_iter().interleave(v.par_iter()).rev().copied().collect::<Vec<_>>(),
        interleave_ref(half, v, false).into_iter().rev().collect::<Vec<_>>()
    );
    assert_eq!(v.par_iter().interleave_shortest(half.par_iter()).copied().collect::<Vec<_>>(), interleave_ref(v, half, true));
    assert_eq!(half.par_iter().interleave_shortest(v.par_iter()).copied().collect::<Vec<_>>(), interleave_ref(half, v, true));
    let inter: Vec<u32> = v.iter().flat_map(|&x| [1000, x]).skip(1).collect();
    assert_eq!(v.par_iter().copied().intersperse(1000).collect::<Vec<_>>(), inter);
    assert_eq!(
        v.par_iter().copied().intersperse(1000).rev().skip(split % 7).collect::<Vec<_>>(),
        inter.iter().rev().skip(split % 7).copied().collect::<Vec<_>>()
    );
    let sums: Vec<u64> = nested.iter().map(|c| c.iter().map(|&x| x as u64).sum()).collect();
    assert_eq!(v.par_iter().fold_chunks(split.max(1), || 0u64, |a, &x| a + x as u64).collect::<Vec<_>>(), sums);
    assert_eq!(
        v.par_iter().fold_chunks_with(split.max(1), 0u64, |a, &x| a + x as u64).rev().collect::<Vec<_>>(),
        sums.iter().rev().copied().collect::<Vec<_>>()
    );
    assert_eq!(v.par_split_inclusive(|x| x % 10 == 0).collect::<Vec<_>>(), v.split_inclusive(|x| x % 10 == 0).collect::<Vec<_>>());
    assert_eq!(v.par_chunk_by(|a, b| (a < b) == (*a < 500)).collect::<Vec<_>>(), v.chunk_by(|a, b| (a < b) == (*a < 500)).collect::<Vec<_>>());
    let (mut m1, mut m2) = (v.to_vec(), v.to_vec());
    m1.par_split_mut(|x| x % 7 == 0).for_each(|p| p.reverse());
    m2.split_mut(|x| x % 7 == 0).for_each(|p| p.reverse());
    assert_eq!(m1, m2);
    m1.par_split_inclusive_mut(|x| x % 5 == 0).for_each(|p| p.sort());
    m2.split_inclusive_mut(|x| x % 5 == 0).for_each(|p| p.sort());
    assert_eq!(m1, m2);
    m1.par_chunk_by_mut(|a, b| a <= b).for_each(|p| p.reverse());
    m2.chunk_by_mut(|a, b| a <= b).for_each(|p| p.reverse());
    assert_eq!(m1, m2);

    let seen = std::sync::atomic::AtomicUsize::new(0);
    assert_eq!(
        v.par_iter()
            .inspect(|_| {
                seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            })
            .count(),
        n
    );
    assert_eq!(seen.into_inner(), n);
    assert_eq!(v.par_iter().copied().update(|x| *x /= 2).collect::<Vec<_>>(), v.iter().map(|x| x / 2).collect::<Vec<_>>());
    assert_eq!(v.par_iter().map_with(5u32, |k, &x| x.wrapping_mul(*k)).collect::<Vec<_>>(), v.iter().map(|&x| x.wrapping_mul(5)).collect::<Vec<_>>());
    assert_eq!(v.par_iter().map_init(|| 7u32, |k, &x| x ^ *k).collect::<Vec<_>>(), v.iter().map(|&x| x ^ 7).collect::<Vec<_>>());
    // No serial run is shorter than `with_min_len` (unless all is) or longer
    // than `with_max_len`: `fold` yields one value per run.
    let runs: Vec<usize> = v.par_iter().with_min_len(split).fold(|| 0, |k, _| k + 1).collect();
    assert!(runs.iter().all(|&k| k >= split || k == n), "min {split}: {runs:?}");
    let runs: Vec<usize> = v.par_iter().with_max_len(split).fold(|| 0, |k, _| k + 1).collect();
    assert!(runs.iter().all(|&k| k <= split), "max {split}: {runs:?}");
    // indexed `map_with`/`map_init`: each piece has its own value
    let mut out = Vec::new();
    v.par_iter().map_with(2u32, |k, &x| x * *k).collect_into_vec(&mut out);
    assert_eq!(out, v.iter().map(|&x| x * 2).collect::<Vec<_>>());
    assert_eq!(
        v.par_iter()
            .map_init(Vec::<u32>::new, |buf, &x| {
                buf.push(x);
                x + 1
            })
            .enumerate()
            .rev()
            .map(|(i, x)| i as u32 ^ x)
            .collect::<Vec<_>>(),
        v.iter().map(|&x| x + 1).enumerate().rev().map(|(i, x)| i as u32 ^ x).collect::<Vec<_>>()
    );
    assert_eq!(v.par_iter().fold(|| 0u64, |a, &x| a + x as u64).sum::<u64>(), v.iter().map(|&x| x as u64).sum::<u64>());
    assert_eq!(v.par_iter().fold_with(0u64, |a, &x| a + x as u64).sum::<u64>(), v.iter().map(|&x| x as u64).sum::<u64>());
    let tf: Option<u64> = v.par_iter().try_fold(|| 0u64, |a, &x| a.checked_add(x as u64)).try_reduce(|| 0, |a, b| a.checked_add(b));
    assert_eq!(tf, Some(v.iter().map(|&x| x as u64).sum()));
    assert_eq!(
        v.par_iter().positions(|&x| x % 4 == 1).collect::<Vec<_>>(),
        v.iter().enumerate().filter(|p| p.1 % 4 == 1).map(|p| p.0).collect::<Vec<_>>()
    );
    // consumers
    assert_eq!(v.par_iter().copied().reduce(|| 0, u32::wrapping_add), v.iter().fold(0u32, |a, &b| a.wrapping_add(b)));
    assert_eq!(v.par_iter().copied().reduce_with(u32::max), v.iter().copied().max());
    assert_eq!(v.par_iter().min(), v.iter().min());
    assert_eq!(v.par_iter().max(), v.iter().max());
    assert_eq!(
        v.par_iter().enumerate().min_by_key(|p| p.1 % 100).map(|p| p.1 % 100),
        v.iter().enumerate().min_by_key(|p| p.1 % 100).map(|p| p.1 % 100)
    );
    assert_eq!(
        v.par_iter().enumerate().max_by(|a, b| (a.1 % 50).cmp(&(b.1 % 50))).map(|p| p.1 % 50),
        v.iter().enumerate().max_by(|a, b| (a.1 % 50).cmp(&(b.1 % 50))).map(|p| p.1 % 50)
    );
    assert_eq!(v.par_iter().enumerate().min_by(|a, b| a.1.cmp(b.1)), v.iter().enumerate().min_by(|a, b| a.1.cmp(b.1)));
    assert_eq!(v.par_iter().enumerate().max_by_key(|p| *p.1), v.iter().enumerate().max_by_key(|p| *p.1));
    assert_eq!(v.par_iter().filter(|&&x| x % 5 == 0).count(), v.iter().filter(|&&x| x % 5 == 0).count());
    let target = v.get(n / 2).copied();
    assert_eq!(v.par_iter().any(|&x| Some(x) == target), target.is_some());
    assert_eq!(v.par_iter().all(|&x| x < 1000), v.iter().all(|&x| x < 1000));
    if let Some(t) = target {
        assert_eq!(v.par_iter().find_any(|&&x| x == t), Some(&t));
        assert_eq!(v.par_iter().position_any(|&x| x == t).map(|i| v[i]), Some(t));
    }
    assert_eq!(v.par_iter().find_first(|&&x| x % 13 == 3), v.iter().find(|&&x| x % 13 == 3));
    assert_eq!(v.par_iter().find_last(|&&x| x % 13 == 3), v.iter().rev().find(|&&x| x % 13 == 3));
    assert_eq!(v.par_iter().position_first(|&x| x % 11 == 2), v.iter().position(|&x| x % 11 == 2));
    assert_eq!(v.par_iter().position_last(|&x| x % 11 == 2), v.iter().rposition(|&x| x % 11 == 2));
    let hm: HashMap<u32, u32> = v.par_iter().map(|&x| (x % 64, x)).collect();
    assert_eq!(hm.len(), v.iter().map(|x| x % 64).collect::<std::collections::HashSet<_>>().len());
    let bm: BTreeMap<usize, u32> = v.par_iter().copied().enumerate().collect();
    assert_eq!(bm, v.iter().copied().enumerate().collect());
    let s: String = v.par_iter().map(|x| char::from(b'a' + (x % 26) as u8)).collect();
    assert_eq!(s, v.iter().map(|x| char::from(b'a' + (x % 26) as u8)).collect::<String>());
    let r: Result<Vec<u32>, u32> = v.par_iter().map(|&x| if x < 900 { Ok(x) } else { Err(x) }).collect();
    assert_eq!(r.is_ok(), v.iter().all(|&x| x < 900));
    if let Ok(r) = r {
        assert_eq!(r, v);
    }
    let o: Option<Vec<u32>> = v.par_iter().map(|&x| x.checked_sub(1)).collect();
    assert_eq!(o, v.iter().map(|&x| x.checked_sub(1)).collect());
    let (a, b): (Vec<u32>, Vec<u32>) = v.par_iter().partition(|&&x| x % 2 == 0);
    assert_eq!((a, b), v.iter().partition(|&&x| x % 2 == 0));
    let (a, b): (Vec<u32>, Vec<usize>) = v.par_iter().enumerate().map(|(i, &x)| (x, i)).unzip();
    assert_eq!(a, v);
    assert_eq!(b, (0..n).collect::<Vec<_>>());
    let mut e = vec![1u32, 2];
    e.par_extend(v.par_iter().filter(|&&x| x > 500));
    assert_eq!(e.len(), 2 + v.iter().filter(|&&x| x > 500).count());
    let mut out = Vec::new();
    v.par_iter().map(|&x| x + 1).collect_into_vec(&mut out);
    assert_eq!(out, v.iter().map(|&x| x + 1).collect::<Vec<_>>());
    let r: Result<(), u32> = v.par_iter().try_for_each(|&x| if x == 999 { Err(x) } else { Ok(()) });
    assert_eq!(r.is_err(), v.contains(&999));
    let total = std::sync::atomic::AtomicU64::new(0);
    v.par_iter().for_each_with(2u64, |k, &x| {
        total.fetch_add(x as u64 * *k, std::sync::atomic::Ordering::Relaxed);
    });
    v.par_iter().for_each_init(
        || 1u64,
        |k, &x| {
            total.fetch_add(x as u64 * *k, std::sync::atomic::Ordering::Relaxed);
        },
    );
    assert_eq!(total.into_inner(), 3 * v.iter().map(|&x| x as u64).sum::<u64>());
    // sources
    assert_eq!(v.to_vec().into_par_iter().map(|x| x as u64).sum::<u64>(), ser / 3);
    assert_eq!((0..n as u64).into_par_iter().sum::<u64>(), (0..n as u64).sum::<u64>());
    assert_eq!((0..=n as i64).into_par_iter().rev().collect::<Vec<_>>(), (0..=n as i64).rev().collect::<Vec<_>>());
    assert_eq!(v.iter().copied().par_bridge().map(|x| x as u64).sum::<u64>(), ser / 3);
    let mut m = v.to_vec();
    m.par_iter_mut().for_each(|x| *x = x.wrapping_mul(3));
    m.par_chunks_mut(split.max(1)).for_each(|c| c.reverse());
    let mut e = v.iter().map(|x| x.wrapping_mul(3)).collect::<Vec<_>>();
    e.chunks_mut(split.max(1)).for_each(|c| c.reverse());
    assert_eq!(m, e);
    // sorts
    let mut a = v.to_vec();
    a.par_sort();
    let mut b = v.to_vec();
    b.sort();
    assert_eq!(a, b);
    let mut a = v.to_vec();
    a.par_sort_unstable_by(|x, y| y.cmp(x));
    b.reverse();
    assert_eq!(a, b);
    let mut a: Vec<(u32, usize)> = v.iter().copied().enumerate().map(|(i, x)| (x % 10, i)).collect();
    let mut b = a.clone();
    a.par_sort_by_key(|p| p.0);
    b.sort_by_key(|p| p.0);
    assert_eq!(a, b);
    a.par_sort_by_cached_key(|p| std::cmp::Reverse(p.1));
    b.sort_by_cached_key(|p| std::cmp::Reverse(p.1));
    assert_eq!(a, b);
    a.par_sort_unstable_by_key(|p| p.1);
    b.sort_unstable_by_key(|p| p.1);
    assert_eq!(a, b);
}

fn run_under(spec: &str, threads: usize, cases: u32) {
    let pool = Pool::builder().threads(threads).policy(spec).build().unwrap_or_else(|e| panic!("{spec}: {e}"));
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    let strategy = (prop::collection::vec(0u32..1000, 0..10_000), 1usize..300);
    runner
        .run(&strategy, |(v, split)| {
            pool.install(|| check(&v, split));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{spec} at {threads} workers: {e}"));
}

fn policy_names() -> Vec<&'static str> {
    finegrain::policies().map(|p| p.name).collect()
}

#[test]
fn every_policy_at_1_to_4_workers() {
    for spec in policy_names() {
        for threads in 1..=4 {
            run_under(spec, threads, 4);
        }
    }
}

#[test]
fn many_cases_under_ws() {
    run_under("ws", 3, 48);
}

#[test]
fn outside_any_pool() {
    check(&(0..5000).map(|i| (i * 31) % 1000).collect::<Vec<u32>>(), 37);
    check(&[], 1);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn large_sorts_match(v in prop::collection::vec(any::<u64>(), 0..60_000), dup in 1u64..1000) {
        let pool = Pool::builder().threads(3).policy("ws").build().unwrap();
        let mut w: Vec<u64> = v.iter().map(|x| x % dup).collect();
        let mut a = w.clone();
        pool.install(|| { a.par_sort(); w.par_sort_unstable(); });
        let mut e = v.iter().map(|x| x % dup).collect::<Vec<_>>();
        e.sort();
        prop_assert_eq!(&a, &e);
        prop_assert_eq!(&w, &e);
    }
}
