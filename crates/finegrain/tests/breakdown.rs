#![cfg(not(loom))]
//! The time breakdown is measured, not estimated (issue #12, item 6): under
//! every policy, at 1 and 2 workers (and the message policies with a
//! dedicated manager thread), in every row (each worker, the manager thread)
//! the buckets add up to the row's wall time within 2%, task time shows
//! where tasks ran, and the per-operation table has what the mechanism did.
//! That the check can fail is tested on the accounting itself
//! (`stats::tests::check_catches_an_uncharged_interval`).

use finegrain::{join, policies, scope, Bucket, Op, Pool, Stats};

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
    a + b
}

fn work(i: usize) -> u64 {
    let mut x = i as u64 | 1;
    for _ in 0..200 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    }
    std::hint::black_box(x)
}

/// A small mix: a join tree, a scope of spawns, a parallel loop; long
/// enough (some 10^5 joins) that the sampled queue operations (one in about
/// a thousand) are estimated from a hundred samples or more.
fn workload() {
    assert_eq!(fib(25), 75025);
    scope(|s| {
        for i in 0..500 {
            s.spawn(move |_| {
                work(i);
            });
        }
    });
    finegrain::for_each(0..5000, |i| {
        work(i);
    });
}

fn specs() -> Vec<String> {
    let mut v: Vec<String> = policies().map(|p| p.name.to_string()).collect();
    v.push("adm-central:manager=dedicated".into());
    v.push("adm-hier:manager=dedicated".into());
    v
}

fn measured(spec: &str, threads: usize) -> Stats {
    measured_with(spec, threads, workload)
}

fn measured_with(spec: &str, threads: usize, f: fn()) -> Stats {
    let pool = Pool::new(threads, spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    let ((), s) = pool.measure(f);
    s
}

/// Measure `bigger` at 2 workers until `op` happened (a short run may
/// leave one worker asleep throughout), at most 20 times.
fn until(spec: &str, op: Op) -> Stats {
    let pool = Pool::new(2, spec).unwrap();
    let mut s = pool.measure(bigger).1;
    for _ in 0..20 {
        if s.total().ops[op as usize].count > 0 {
            break;
        }
        s.add(&pool.measure(bigger).1);
    }
    s
}

/// Enough parallel work that an idle worker gets some.
fn bigger() {
    for _ in 0..5 {
        assert_eq!(fib(24), 46368);
    }
}

#[test]
fn buckets_add_up_to_wall_time_in_every_row() {
    for spec in specs() {
        for threads in [1, 2] {
            let s = measured(&spec, threads);
            assert!(s.enabled);
            s.check_sums(0.02).unwrap_or_else(|e| panic!("x{threads}: {e}\n{}", s.to_json()));
            let t = s.total();
            // Task time was charged at the transitions (before the sampled
            // queue operations are moved out of it: in a short run on a
            // loaded machine one sample, weighted by its period, can exceed
            // the task time, which is then shown as 0; docs/benchmarks.md).
            assert!(t.raw_ns[Bucket::Task as usize] > 0, "{spec} x{threads}: no task time: {s}");
            assert!(t.tasks_run > 0 && t.enqueues > 0, "{spec} x{threads}: {s}");
            // Every row spans the measured region: none is much shorter than
            // the longest (a row that stopped counting would be).
            let longest = s.rows().map(|(_, w)| w.wall_ns).max().unwrap();
            for (name, w) in s.rows() {
                assert!(w.wall_ns * 10 >= longest * 9, "{spec} x{threads}: {name} spans {} of {longest} ns", w.wall_ns);
            }
            let dedicated = spec.contains("dedicated");
            assert_eq!(s.manager.is_some(), dedicated, "{spec} x{threads}: manager row");
            if let Some(m) = &s.manager {
                assert_eq!(m.time(Bucket::Task), 0, "{spec} x{threads}: the manager ran tasks");
                // (A short run may send it nothing: `slow_path_operations_are_timed`
                // checks a longer one.)
                assert!(m.messages == 0 || m.time(Bucket::HandlerManager) > 0, "{spec} x{threads}: messages but no handler time");
            }
        }
    }
}

/// Enqueues and dequeues are sampled on every mechanism: with a few
/// thousand of each, some are timed, and their time leaves the task bucket.
#[test]
fn queue_operations_are_sampled_everywhere() {
    for spec in specs() {
        let s = measured(&spec, 2);
        let t = s.total();
        let enq = t.ops[Op::Enqueue as usize];
        assert!(enq.count >= t.enqueues.min(1) && enq.samples > 0, "{spec}: no enqueue sampled: {enq:?}");
        let p = finegrain::stats::sample_period(finegrain::Policy::parse(&spec).unwrap().mechanism());
        if p > 1 {
            assert!(enq.samples * 8 < enq.count, "{spec}: enqueues are sampled, not all timed: {enq:?}");
        } else {
            assert!(enq.samples >= enq.count / 2, "{spec}: every enqueue is timed: {enq:?}");
        }
        let deq = t.ops[Op::Dequeue as usize];
        assert!(deq.samples > 0, "{spec}: no dequeue sampled: {deq:?} (enqueues {enq:?})");
        assert!(t.time(Bucket::Enqueue) > 0 && t.time(Bucket::Dequeue) > 0, "{spec}: {s}");
    }
}

/// The message policies time the operations of Table 5 that involve
/// messages; work stealing times its steal attempts. Tasks move by the
/// manager's steals here (`handoff=manager`): the default hands most of them
/// straight to idle workers, which involves no manager operation.
#[test]
fn slow_path_operations_are_timed() {
    let s = until("adm-central", Op::RecvTask);
    assert!(s.total().ops[Op::SendTask as usize].count > 0, "adm-central: no send_task: {}", s.ops_table());
    for spec in ["adm-central:handoff=manager", "adm-hier:handoff=manager", "adm-central:manager=dedicated,handoff=manager"] {
        let s = until(spec, Op::RecvTask);
        let t = s.total();
        for op in [Op::SendTask, Op::RecvTask] {
            assert!(t.ops[op as usize].count > 0, "{spec}: no {}: {}", op.name(), s.ops_table());
        }
        let mgr = t.ops[Op::ManagerUpdate as usize].count + t.ops[Op::StealMatch as usize].count;
        assert!(mgr > 0, "{spec}: no manager operation: {}", s.ops_table());
        if let Some(m) = &s.manager {
            assert!(m.messages > 0 && m.time(Bucket::HandlerManager) > 0, "{spec}: the manager thread's row is empty");
            assert_eq!(m.time(Bucket::Task), 0);
        }
        assert!(s.ops_table().contains("send_task"));
    }
    let s = until("ws", Op::Steal);
    assert!(s.total().ops[Op::Steal as usize].count > 0, "ws: no steal timed: {}", s.ops_table());
}
