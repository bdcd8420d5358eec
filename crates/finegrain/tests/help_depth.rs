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
