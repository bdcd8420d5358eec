//! Quick checks of every source, adapter and consumer against the serial
//! iterator, in the global pool and in a 3-worker `ws` pool.

use finegrain::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};

fn all_checks() {
    let v: Vec<u64> = (0..10_000).map(|i| (i * 7919) % 10_007).collect();
    assert_eq!(v.par_iter().map(|x| x * 2).sum::<u64>(), v.iter().map(|x| x * 2).sum::<u64>());
    assert_eq!(v.par_iter().filter(|&&x| x % 3 == 0).count(), v.iter().filter(|&&x| x % 3 == 0).count());
    let c: Vec<u64> = v.par_iter().map(|x| x + 1).collect();
    assert_eq!(c, v.iter().map(|x| x + 1).collect::<Vec<_>>());
    let c: Vec<u64> = v.par_iter().filter(|&&x| x % 5 == 1).copied().collect();
    assert_eq!(c, v.iter().filter(|&&x| x % 5 == 1).copied().collect::<Vec<_>>());
    assert_eq!(v.par_iter().max(), v.iter().max());
    assert_eq!(v.par_iter().min(), v.iter().min());
    assert_eq!((0..1000u32).into_par_iter().rev().collect::<Vec<_>>(), (0..1000u32).rev().collect::<Vec<_>>());
    assert_eq!((0..=1000i16).into_par_iter().step_by(7).collect::<Vec<_>>(), (0..=1000i16).step_by(7).collect::<Vec<_>>());
    assert_eq!(
        v.par_iter().enumerate().skip(10).take(500).map(|(i, x)| i as u64 * x).collect::<Vec<_>>(),
        v.iter().enumerate().skip(10).take(500).map(|(i, x)| i as u64 * x).collect::<Vec<_>>()
    );
    assert_eq!(
        v.par_iter().zip(v.par_iter().skip(1)).map(|(a, b)| a ^ b).collect::<Vec<_>>(),
        v.iter().zip(v.iter().skip(1)).map(|(a, b)| a ^ b).collect::<Vec<_>>()
    );
    assert_eq!(v.par_iter().chain(v.par_iter()).copied().collect::<Vec<_>>(), v.iter().chain(v.iter()).copied().collect::<Vec<_>>());
    assert_eq!((0..100u8).into_par_iter().flat_map(|i| 0..i).count(), (0..100u8).flat_map(|i| 0..i).count());
    assert_eq!((0..100usize).into_par_iter().flat_map_iter(|i| 0..i).sum::<usize>(), (0..100usize).flat_map(|i| 0..i).sum::<usize>());
    assert_eq!(v.par_chunks(7).map(|c| c.iter().sum::<u64>()).collect::<Vec<_>>(), v.chunks(7).map(|c| c.iter().sum::<u64>()).collect::<Vec<_>>());
    assert_eq!(v.par_windows(3).map(|w| w[0] + w[2]).collect::<Vec<_>>(), v.windows(3).map(|w| w[0] + w[2]).collect::<Vec<_>>());
    assert_eq!(v.par_iter().position_first(|&x| x == v[777]), Some(777));
    assert_eq!(v.par_iter().find_first(|&&x| x > 10_000), v.iter().find(|&&x| x > 10_000));
    assert_eq!(v.par_iter().find_last(|&&x| x > 10_000), v.iter().rev().find(|&&x| x > 10_000));
    assert!(v.par_iter().any(|&x| x == 5));
    assert!(!v.par_iter().all(|&x| x < 10_000));
    let m: HashMap<u64, usize> = v.par_iter().enumerate().map(|(i, &x)| (x, i)).collect();
    assert_eq!(m, v.iter().enumerate().map(|(i, &x)| (x, i)).collect());
    let s: HashSet<u64> = v.par_iter().map(|x| x % 100).collect();
    assert_eq!(s.len(), 100);
    let b: BTreeMap<u64, u64> = m.par_iter().map(|(&k, &i)| (k, i as u64)).collect();
    assert_eq!(b.len(), m.len());
    let r: Result<Vec<u64>, u64> = v.par_iter().map(|&x| if x < 20_000 { Ok(x) } else { Err(x) }).collect();
    assert_eq!(r.unwrap(), v);
    let r: Result<Vec<u64>, u64> = v.par_iter().map(|&x| if x != v[5000] { Ok(x) } else { Err(x) }).collect();
    assert_eq!(r, Err(v[5000]));
    let (a, b): (Vec<u64>, Vec<u64>) = v.par_iter().partition(|&&x| x % 2 == 0);
    assert_eq!(a, v.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>());
    assert_eq!(b, v.iter().copied().filter(|x| x % 2 == 1).collect::<Vec<_>>());
    let (a, b): (Vec<u64>, Vec<usize>) = v.par_iter().enumerate().map(|(i, &x)| (x, i)).unzip();
    assert_eq!(a, v);
    assert_eq!(b, (0..v.len()).collect::<Vec<_>>());
    let mut w = v.clone();
    w.par_sort();
    let mut e = v.clone();
    e.sort();
    assert_eq!(w, e);
    let mut w: Vec<u64> = (0..200_000u64).map(|i| (i * 2_654_435_761) % 1_000_003).collect();
    let mut e = w.clone();
    w.par_sort_unstable();
    e.sort_unstable();
    assert_eq!(w, e);
    let mut w: Vec<(u64, usize)> = (0..100_000usize).map(|i| ((i as u64 * 2_654_435_761) % 100, i)).collect();
    let mut e = w.clone();
    w.par_sort_by_key(|p| p.0);
    e.sort_by_key(|p| p.0);
    assert_eq!(w, e);
    let text = "the quick brown fox\njumps ovér\n\nthe lazy dog ,, ".repeat(500) + "end\n\n";
    assert_eq!(text.par_lines().collect::<Vec<_>>(), text.lines().collect::<Vec<_>>());
    assert_eq!(text.par_split_whitespace().collect::<Vec<_>>(), text.split_whitespace().collect::<Vec<_>>());
    assert_eq!(text.par_split(' ').collect::<Vec<_>>(), text.split(' ').collect::<Vec<_>>());
    assert_eq!(text.par_chars().collect::<String>(), text);
    assert_eq!(text.par_matches('o').count(), text.matches('o').count());
    assert_eq!(text.par_match_indices(|c: char| c == 'é' || c == 'q').collect::<Vec<_>>(), text.match_indices(['é', 'q']).collect::<Vec<_>>());
    assert_eq!(text.par_encode_utf16().collect::<Vec<u16>>(), text.encode_utf16().collect::<Vec<u16>>());
    let b: String = text.par_lines().map(Box::<str>::from).collect();
    assert_eq!(b, text.lines().collect::<String>());
    let c: String = text.par_lines().map(std::borrow::Cow::Borrowed).collect();
    assert_eq!(c, b);
    assert_eq!(text.par_split_inclusive(' ').collect::<Vec<_>>(), text.split_inclusive(' ').collect::<Vec<_>>());
    assert_eq!(text.par_split_terminator('\n').collect::<Vec<_>>(), text.split_terminator('\n').collect::<Vec<_>>());
    assert_eq!(text.par_split_terminator(|c: char| c == 'o').collect::<Vec<_>>(), text.split_terminator('o').collect::<Vec<_>>());
    assert_eq!(text.par_split_ascii_whitespace().collect::<Vec<_>>(), text.split_ascii_whitespace().collect::<Vec<_>>());
    assert_eq!(text.par_char_indices().collect::<Vec<_>>(), text.char_indices().collect::<Vec<_>>());
    assert_eq!(text.par_bytes().map(u64::from).sum::<u64>(), text.bytes().map(u64::from).sum::<u64>());

    let total: usize = (0..10_000usize).par_bridge().sum();
    assert_eq!(total, (0..10_000).sum());
    let owned: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    let joined: Vec<String> = owned.clone().into_par_iter().filter(|s| s.len() > 3).collect();
    assert_eq!(joined, owned.iter().filter(|s| s.len() > 3).cloned().collect::<Vec<_>>());
    let mut out = Vec::new();
    v.par_iter().map(|x| x * 3).collect_into_vec(&mut out);
    assert_eq!(out, v.iter().map(|x| x * 3).collect::<Vec<_>>());
    let r: Result<(), u64> = v.par_iter().try_for_each(|&x| if x == 42 { Err(x) } else { Ok(()) });
    assert_eq!(r, Err(42));
    let s = v.par_iter().map(|&x| Some(x)).try_reduce(|| 0, |a, b| Some(a + b));
    assert_eq!(s, Some(v.iter().sum()));
    let f: Vec<u64> = v.par_iter().fold(|| 0u64, |a, &x| a + x).collect();
    assert_eq!(f.iter().sum::<u64>(), v.iter().sum::<u64>());
    // comparisons, small sources, and the rest of the `try_`/`find_map` family
    let w = v.clone();
    assert!(v.par_iter().eq(&w));
    assert!(v.par_iter().take(10).lt(w.par_iter()));
    assert_eq!(v.par_iter().cmp(w.par_iter().take(100)), v.iter().cmp(w.iter().take(100)));
    assert_eq!(v.par_iter().partial_cmp(w.par_iter().skip(1)), v.iter().partial_cmp(w.iter().skip(1)));
    assert!(v.par_iter().ne(w.par_iter().rev()) && v.par_iter().ge(w.par_iter()) && v.par_iter().le(w.par_iter()) && !v.par_iter().gt(w.par_iter()));
    assert_eq!(finegrain::iter::repeat_n(7u8, 1000).map(u64::from).sum::<u64>(), 7000);
    assert_eq!(finegrain::iter::once(3).chain(finegrain::iter::empty()).collect::<Vec<i32>>(), vec![3]);
    assert_eq!(v.par_iter().find_map_first(|&x| (x > 9000).then_some(x * 2)), v.iter().find_map(|&x| (x > 9000).then_some(x * 2)));
    assert_eq!(v.par_iter().find_map_last(|&x| (x > 9000).then_some(x * 2)), v.iter().rev().find_map(|&x| (x > 9000).then_some(x * 2)));
    let r: Result<(), u64> = v.par_iter().try_for_each_with(3u64, |k, &x| if x * *k == 300 { Err(x) } else { Ok(()) });
    assert_eq!(r, if v.contains(&100) { Err(100) } else { Ok(()) });
    let r: Option<()> = v.par_iter().try_for_each_init(|| 0u64, |k, &x| (x + *k < 20_000).then_some(()));
    assert_eq!(r, Some(()));
    // skip_any/take_any, partition_map, try_reduce_with, try_fold_with, unzip_into_vecs, collect_vec_list
    assert_eq!(v.par_iter().skip_any(100).count(), v.len() - 100);
    let mut some: Vec<u64> = v.par_iter().copied().take_any(100).collect();
    assert_eq!(some.len(), 100);
    some.sort();
    some.dedup();
    assert!(some.iter().all(|x| v.contains(x)));
    use finegrain::iter::Either;
    let (l, r): (Vec<u64>, Vec<String>) = v.par_iter().partition_map(|&x| if x % 2 == 0 { Either::Left(x) } else { Either::Right(x.to_string()) });
    assert_eq!(l, v.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>());
    assert_eq!(r, v.iter().filter(|&&x| x % 2 == 1).map(|x| x.to_string()).collect::<Vec<_>>());
    assert_eq!(v.par_iter().map(|&x| Some(x)).try_reduce_with(|a, b| a.checked_add(b)), Some(Some(v.iter().sum())));
    assert_eq!(Vec::<u64>::new().par_iter().map(|&x| Some(x)).try_reduce_with(|a, b| a.checked_add(b)), None);
    assert_eq!(
        v.par_iter().map(|&x| Ok::<u64, u64>(x)).try_reduce_with(|a, b| if a + b > 1000 { Err(a + b) } else { Ok(a + b) }).map(|r| r.is_err()),
        Some(true)
    );
    let tf: Result<u64, ()> = v.par_iter().try_fold_with(0u64, |a, &x| Ok(a + x)).try_reduce(|| 0, |a, b| Ok(a + b));
    assert_eq!(tf, Ok(v.iter().sum()));
    let (mut a, mut b) = (vec![9u64], vec![]);
    v.par_iter().map(|&x| (x, x + 1)).unzip_into_vecs(&mut a, &mut b);
    assert_eq!(a, v);
    assert_eq!(b, v.iter().map(|x| x + 1).collect::<Vec<_>>());
    assert_eq!(v.par_iter().copied().collect_vec_list().into_iter().flatten().collect::<Vec<_>>(), v);
    // par_rchunks(_exact)(_mut), par_drain
    assert_eq!(v.par_rchunks(7).map(|c| c.iter().sum::<u64>()).collect::<Vec<_>>(), v.rchunks(7).map(|c| c.iter().sum::<u64>()).collect::<Vec<_>>());
    assert_eq!(v.par_rchunks_exact(7).map(|c| c[0]).collect::<Vec<_>>(), v.rchunks_exact(7).map(|c| c[0]).collect::<Vec<_>>());
    let (mut a, mut b) = (v.clone(), v.clone());
    a.par_rchunks_mut(9).for_each(|c| c.reverse());
    b.rchunks_mut(9).for_each(|c| c.reverse());
    assert_eq!(a, b);
    a.par_rchunks_exact_mut(4).for_each(|c| c[0] = 0);
    b.rchunks_exact_mut(4).for_each(|c| c[0] = 0);
    assert_eq!(a, b);
    let mut w = v.clone();
    let d: Vec<u64> = w.par_drain(100..5000).collect();
    assert_eq!(d, v[100..5000]);
    assert_eq!(w, [&v[..100], &v[5000..]].concat());
    drop(w.par_drain(..10));
    assert_eq!(w, [&v[10..100], &v[5000..]].concat());
    let n = w.len();
    assert_eq!(w.par_drain(n - 5..).count(), 5);
    assert_eq!(w.par_drain(..).map(|x| x + 1).sum::<u64>(), [&v[10..100], &v[5000..v.len() - 5]].concat().iter().map(|x| x + 1).sum::<u64>());
    assert!(w.is_empty());
    // par_drain of the other collections
    let mut hm: HashMap<u64, u64> = v.iter().map(|&x| (x, x + 1)).collect();
    let n = hm.len();
    assert_eq!(hm.par_drain().map(|(k, v)| v - k).sum::<u64>(), n as u64);
    assert!(hm.is_empty());
    let mut hs: HashSet<u64> = v.iter().copied().collect();
    assert_eq!(hs.par_drain().count(), n);
    let mut heap: std::collections::BinaryHeap<u64> = v.iter().copied().collect();
    assert_eq!(heap.par_drain().sum::<u64>(), v.iter().sum::<u64>());
    let mut dq: std::collections::VecDeque<u64> = v.iter().copied().collect();
    assert_eq!(dq.par_drain(10..20).collect::<Vec<_>>(), v[10..20]);
    assert_eq!(dq.len(), v.len() - 10);
    let mut st = String::from("héllo wörld");
    assert_eq!(st.par_drain(..6).collect::<String>(), "héllo");
    assert_eq!(st, " wörld");
    // blocks and panic_fuse
    assert_eq!(v.par_iter().by_uniform_blocks(333).copied().collect::<Vec<_>>(), v);
    assert_eq!(v.par_iter().by_exponential_blocks().map(|x| x * 2).collect::<Vec<_>>(), v.iter().map(|x| x * 2).collect::<Vec<_>>());
    assert_eq!(v.par_iter().by_exponential_blocks().filter(|&&x| x % 3 == 0).count(), v.iter().filter(|&&x| x % 3 == 0).count());
    let seen = std::sync::atomic::AtomicUsize::new(0);
    let hit = (0..10_000_000u64)
        .into_par_iter()
        .by_exponential_blocks()
        .inspect(|_| {
            seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
        .find_first(|&x| x == 1000);
    assert_eq!(hit, Some(1000));
    assert!(seen.into_inner() < 1_000_000, "blocks: the search went on past its block");
    assert_eq!(v.par_iter().panic_fuse().map(|x| x + 1).collect::<Vec<_>>(), v.iter().map(|x| x + 1).collect::<Vec<_>>());
    // A panic under the fuse reaches the caller (how soon the rest stops:
    // `panic_fuse_stops_the_other_half`).
    let r = std::panic::catch_unwind(|| {
        (0..1_000u64).into_par_iter().panic_fuse().for_each(|x| {
            if x == 10 {
                panic!("fuse");
            }
        })
    });
    assert!(r.is_err());
    // Result as a source; skip_any_while / take_any_while
    assert_eq!(Ok::<u32, ()>(5).into_par_iter().collect::<Vec<_>>(), vec![5]);
    assert_eq!(Err::<u32, ()>(()).par_iter().count(), 0);
    let small = v.par_iter().copied().take_any_while(|&x| x < 10_007).count();
    assert_eq!(small, v.len());
    let taken: Vec<u64> = (0..100_000u64).into_par_iter().take_any_while(|&x| x != 500).collect();
    assert!(taken.iter().all(|&x| x != 500) && taken.len() < 100_000);
    let rest: Vec<u64> = (0..100_000u64).into_par_iter().skip_any_while(|&x| x != 500).collect();
    assert!(rest.contains(&500) && rest.len() <= 100_000);
    assert_eq!((0..1000u64).into_par_iter().skip_any_while(|_| true).count(), 0);
    // repeat and split
    assert_eq!(finegrain::iter::repeat(7u64).take(1000).sum::<u64>(), 7000);
    assert_eq!(finegrain::iter::repeat('x').zip(0..3).collect::<Vec<_>>(), vec![('x', 0), ('x', 1), ('x', 2)]);
    assert_eq!(finegrain::iter::repeat(3u8).map(|x| x + 1).find_any(|&x| x == 4), Some(4));
    let halve = |r: std::ops::Range<usize>| {
        if r.len() > 100 {
            let m = r.start + r.len() / 2;
            (r.start..m, Some(m..r.end))
        } else {
            (r, None)
        }
    };
    let pieces: Vec<std::ops::Range<usize>> = finegrain::iter::split(0..10_000, halve).collect();
    assert_eq!(pieces.iter().map(|r| r.len()).sum::<usize>(), 10_000);
    assert!(pieces.windows(2).all(|w| w[0].end == w[1].start));
    // tree walks, against serial depth-first orders (a 3-ary tree of 20,000 nodes)
    let kids = |&n: &u32| (3 * n + 1..3 * n + 4).filter(|&c| c < 20_000).collect::<Vec<u32>>();
    fn dfs(n: u32, kids: &dyn Fn(&u32) -> Vec<u32>, pre: &mut Vec<u32>, post: &mut Vec<u32>) {
        pre.push(n);
        for c in kids(&n) {
            dfs(c, kids, pre, post);
        }
        post.push(n);
    }
    let (mut pre, mut post) = (Vec::new(), Vec::new());
    dfs(0, &kids, &mut pre, &mut post);
    assert_eq!(finegrain::iter::walk_tree_prefix(0u32, kids).collect::<Vec<_>>(), pre);
    assert_eq!(finegrain::iter::walk_tree_postfix(0u32, kids).collect::<Vec<_>>(), post);
    assert_eq!(finegrain::iter::walk_tree(0u32, kids).map(u64::from).sum::<u64>(), (0..20_000u64).sum::<u64>());
    assert_eq!(finegrain::iter::walk_tree_prefix(0u32, kids).find_first(|&n| n > 5000), pre.iter().copied().find(|&n| n > 5000));
    // tuples of indexed iterators (MultiZip)
    let mut out = vec![0u64; v.len()];
    (&mut out, &v, 0..v.len()).into_par_iter().for_each(|(o, &x, i)| *o = x + i as u64);
    assert_eq!(out, v.iter().enumerate().map(|(i, &x)| x + i as u64).collect::<Vec<_>>());
    let pairs: Vec<(u64, u64)> = (&v, &out).into_par_iter().map(|(a, b)| (*a, *b)).collect();
    assert_eq!(pairs, v.iter().copied().zip(out.iter().copied()).collect::<Vec<_>>());
    assert_eq!((&v, &v, &v, &v, &v, &v[..10]).into_par_iter().count(), 10);
    let mut m = v.clone();
    m.par_iter_mut().for_each(|x| *x += 1);
    assert_eq!(m, v.iter().map(|x| x + 1).collect::<Vec<_>>());
}

#[test]
fn global_pool() {
    all_checks();
}

#[test]
fn ws_pool() {
    let pool = finegrain::Pool::builder().threads(3).policy("ws").build().unwrap();
    pool.install(all_checks);
}

/// `panic_fuse`: once a body has panicked, the items not yet started are
/// skipped: the fuse blows in the panic hook, before the unwinding (which
/// the hook delays long enough for the other half to run on to its end).
#[test]
fn panic_fuse_stops_the_other_half() {
    use finegrain::prelude::*;
    let pool = finegrain::Pool::builder().threads(3).policy("ws").build().unwrap();
    pool.install(|| {
        // Items run after the panic, whichever worker ran ahead before it.
        let panicked = std::sync::atomic::AtomicBool::new(false);
        let after = std::sync::atomic::AtomicUsize::new(0);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            (0..1_000_000u64).into_par_iter().panic_fuse().for_each(|x| {
                if x == 10 {
                    panicked.store(true, std::sync::atomic::Ordering::SeqCst);
                    panic!("fuse");
                }
                if panicked.load(std::sync::atomic::Ordering::SeqCst) {
                    after.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            })
        }));
        assert!(r.is_err());
        // Without the fuse, the rest of the other half would run to its end.
        assert!(after.into_inner() < 250_000);
    });
}
