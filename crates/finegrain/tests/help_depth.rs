//! A worker that waits on a join takes other work meanwhile, nesting it on
//! its stack. Under the central-queue policies it may take any queued task
//! (under `pdf` the earliest in serial order, anywhere in the tree), which
//! once overflowed a 16 MiB stack on fib(32) at 2 workers; workers now stop
//! helping past half their stack (`WorkerThread::help_floor`). An overflow
//! aborts this test's process, so passing means none happened.

fn fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        let (a, b) = finegrain::join(|| fib(n - 1), || fib(n - 2));
        a + b
    }
}

#[test]
fn helping_while_waiting_never_overflows_a_small_stack() {
    for policy in ["pdf", "sw-hier", "carbon"] {
        for threads in [2, 4] {
            let pool = finegrain::Pool::builder().threads(threads).policy(policy).stack_size(512 << 10).build().unwrap();
            for _ in 0..3 {
                assert_eq!(pool.install(|| fib(22)), 17711, "{policy} x{threads}");
            }
        }
    }
}

/// A scope per node, its children spawned into it: under `sw-hier`'s FIFO
/// global queue a worker waiting in a scope helps with the oldest task,
/// breadth first, so its stack grows with the tree's width and reaches the
/// floor. Past it the worker once only yielded, waiting for another worker
/// to run its scope's spawns: with one worker the pool hung (the default
/// `finegrain bench`, nqueens under `sw-hier` at 1 thread). Now it helps
/// with the newest task queued. Run on a thread with a deadline, so that a
/// hang fails the test instead of stalling the suite.
fn scope_tree(depth: u32, fanout: u32, leaves: &std::sync::atomic::AtomicU64) {
    if depth == 0 {
        leaves.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        return;
    }
    finegrain::scope(|s| {
        for _ in 0..fanout {
            s.spawn(move |_| scope_tree(depth - 1, fanout, leaves));
        }
    });
}

#[test]
fn waiting_past_the_floor_still_runs_queued_work() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for policy in ["sw-hier", "sw-hier:order=priority", "sw-hier:order=lifo", "pdf", "carbon"] {
            for threads in [1, 2] {
                let pool = finegrain::Pool::builder().threads(threads).policy(policy).stack_size(1 << 20).build().unwrap();
                let leaves = std::sync::atomic::AtomicU64::new(0);
                pool.install(|| scope_tree(6, 6, &leaves));
                tx.send((policy, threads, leaves.into_inner())).unwrap();
            }
        }
    });
    for _ in 0..10 {
        let (policy, threads, leaves) = rx.recv_timeout(std::time::Duration::from_secs(120)).expect("a pool hung waiting past its help floor");
        assert_eq!(leaves, 6u64.pow(6), "{policy} x{threads}");
    }
}
