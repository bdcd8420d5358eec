//! `finegrain::mapreduce` under every policy: each container kind against a
//! serial count, more workers than cores, panics that reach the caller and
//! leave the job usable, and locality groups that hand every chunk out once.

#[path = "common/quiet.rs"]
mod quiet;

use finegrain::mapreduce::{split_slice, Groups, MapReduce};
use std::collections::BTreeMap;

/// Keys with a skewed distribution (many repeats of small keys).
fn data(n: usize) -> Vec<u64> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 1000) * (x % 7) / 3
        })
        .collect()
}

fn serial(d: &[u64]) -> Vec<(u64, u64)> {
    let mut m = BTreeMap::new();
    for &k in d {
        *m.entry(k).or_insert(0u64) += k + 1;
    }
    m.into_iter().collect()
}

#[test]
fn every_container_under_every_policy_with_more_workers_than_cores() {
    let d = data(50_000);
    let want = serial(&d);
    let chunks = split_slice(&d, 333);
    for spec in finegrain::policies().map(|p| p.name) {
        for threads in [1, 3, 8] {
            let pool = finegrain::Pool::new(threads, spec).unwrap();
            pool.install(|| {
                let mut hashed = MapReduce::hashed_rows(7);
                let got = hashed.run(&chunks, |c: &&[u64], out| c.iter().for_each(|&k| out.emit(k, k + 1)), |a, b| *a += b);
                assert_eq!(got, want, "hashed, {spec} x{threads}");
                assert_eq!(hashed.last_run().map_tasks, chunks.len() as u64);

                let mut dense = MapReduce::dense(2000);
                let got = dense.run(&chunks, |c: &&[u64], out| c.iter().for_each(|&k| out.emit(k as usize, k + 1)), |a, b| *a += b);
                let got: Vec<(u64, u64)> = got.into_iter().map(|(k, v)| (k as u64, v)).collect();
                assert_eq!(got, want, "dense, {spec} x{threads}");

                let mut buffered = MapReduce::buffered();
                let got = buffered.run(&chunks, |c: &&[u64], out| c.iter().for_each(|&k| out.emit(k, 1u8)), |_, _| unreachable!());
                assert_eq!(got.len(), d.len(), "buffered keeps every pair, {spec} x{threads}");
                assert!(got.windows(2).all(|w| w[0].0 <= w[1].0), "buffered output in key order, {spec} x{threads}");
            });
        }
    }
}

#[test]
fn a_panicking_map_reaches_the_caller_and_the_job_runs_again() {
    quiet::quiet_expected_panics();
    let d = data(10_000);
    let chunks = split_slice(&d, 100);
    for spec in ["ws", "adm-central", "carbon", "static"] {
        let pool = finegrain::Pool::new(3, spec).unwrap();
        let mut job = MapReduce::hashed();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                job.run(
                    &chunks,
                    |c: &&[u64], out| {
                        if c[0] == d[5_000] && c.as_ptr() == chunks[50].as_ptr() {
                            panic!("map task 50 fails (expected)");
                        }
                        c.iter().for_each(|&k| out.emit(k, k + 1));
                    },
                    |a, b| *a += b,
                )
            })
        }));
        let msg = r.expect_err("the panic reaches the caller");
        assert!(msg.downcast_ref::<&str>().is_some_and(|m| m.contains("map task 50")), "{spec}");
        // Nothing of the failed run is left in the containers.
        let got = pool.install(|| job.run(&chunks, |c: &&[u64], out| c.iter().for_each(|&k| out.emit(k, k + 1)), |a, b| *a += b));
        assert_eq!(got, serial(&d), "{spec}: the job after a panic");
    }
}

#[test]
fn locality_groups_hand_out_every_chunk_once_and_count_the_local_ones() {
    let d = data(20_000);
    let chunks = split_slice(&d, 50);
    let pool = finegrain::Pool::new(4, "ws").unwrap();
    for groups in [Groups::One, Groups::Machine, Groups::Blocks(2), Groups::Blocks(4)] {
        let mut job = MapReduce::dense(2000).groups(groups.clone());
        let got = pool.install(|| job.run(&chunks, |c: &&[u64], out| c.iter().for_each(|&k| out.emit(k as usize, k + 1)), |a, b| *a += b));
        assert_eq!(got.into_iter().map(|(k, v)| (k as u64, v)).collect::<Vec<_>>(), serial(&d), "{groups:?}");
        let s = job.last_run();
        assert_eq!(s.map_tasks, chunks.len() as u64, "{groups:?}");
        assert!(s.local <= s.map_tasks, "{groups:?}: {s:?}");
        match groups {
            Groups::One => assert_eq!((s.groups, s.local), (1, s.map_tasks)),
            Groups::Blocks(n) => assert_eq!(s.groups, n),
            Groups::Machine => assert!(s.groups >= 1),
        }
    }
}

#[test]
fn reduce_sees_every_value_of_a_key_once_under_every_policy() {
    quiet::quiet_expected_panics();
    let d = data(20_000);
    let chunks = split_slice(&d, 250);
    // Serial: per key, the count, the largest position and the sum.
    let mut want: BTreeMap<u64, (usize, usize, usize)> = BTreeMap::new();
    for (i, &k) in d.iter().enumerate() {
        let e = want.entry(k).or_insert((0, 0, 0));
        *e = (e.0 + 1, e.1.max(i), e.2 + i);
    }
    let want: Vec<(u64, (usize, usize, usize))> = want.into_iter().collect();
    let base = |c: &&[u64]| (c.as_ptr() as usize - d.as_ptr() as usize) / std::mem::size_of::<u64>();
    for spec in finegrain::policies().map(|p| p.name) {
        for threads in [1, 3] {
            let pool = finegrain::Pool::new(threads, spec).unwrap();
            let mut job = MapReduce::buffered();
            let got = pool.install(|| {
                job.run_reduce(
                    &chunks,
                    |c: &&[u64], out| c.iter().enumerate().for_each(|(i, &k)| out.emit(k, base(c) + i)),
                    |_, positions| positions.fold((0, 0, 0), |(n, m, s), p| (n + 1, m.max(p), s + p)),
                )
            });
            assert_eq!(got, want, "{spec} x{threads}");
        }
    }
    // A panic in reduce reaches the caller.
    let pool = finegrain::Pool::new(3, "ws").unwrap();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| {
            MapReduce::buffered().run_reduce(
                &chunks,
                |c: &&[u64], out| c.iter().for_each(|&k| out.emit(k, ())),
                |&k, _| {
                    if k == d[0] {
                        panic!("reduce of one key fails (expected)");
                    }
                },
            )
        })
    }));
    let msg = r.expect_err("the panic reaches the caller");
    assert!(msg.downcast_ref::<&str>().is_some_and(|m| m.contains("reduce of one key")));
}

/// A dense job whose map adds into the worker's lent array (`slots`), mixed
/// with ordinary emits: every key combined once per worker, the array reset
/// between runs of one job, and nothing of a run that panicked left over.
#[test]
fn lent_dense_slots_count_like_emits_under_every_policy() {
    quiet::quiet_expected_panics();
    let d: Vec<u64> = data(20_000).iter().map(|k| k % 300).collect();
    let chunks = split_slice(&d, 173);
    let mut want = vec![0u64; 300];
    d.iter().for_each(|&k| want[k as usize] += 2);
    for spec in finegrain::policies().map(|p| p.name) {
        for workers in [1, 3] {
            let pool = finegrain::Pool::new(workers, spec).unwrap();
            let mut job = MapReduce::dense(300);
            let mut run = |fail: bool| {
                job.run(
                    &chunks,
                    |c: &&[u64], out| {
                        let slots = out.slots();
                        c.iter().for_each(|&k| slots[k as usize] += 1);
                        assert!(!(fail && c.as_ptr() == chunks[40].as_ptr()), "map task 40 fails (expected)");
                        c.iter().for_each(|&k| out.emit(k as usize, 1));
                    },
                    |a, b| *a += b,
                )
            };
            for round in 0..3 {
                let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.install(|| run(round == 1))));
                assert_eq!(failed.is_err(), round == 1, "{spec} x{workers}, round {round}");
                if round != 1 {
                    let got: Vec<u64> = failed.unwrap().into_iter().map(|(_, n)| n).collect();
                    assert_eq!(got, want, "{spec} x{workers}, round {round}");
                }
            }
        }
    }
}
