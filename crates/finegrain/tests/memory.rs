//! Resident memory per worker, read from `/proc/self/statm` (Linux only).
//!
//! Every policy's pool should cost about what a work-stealing pool costs per
//! worker, plus the pages its workers actually touch, and give it all back
//! when dropped. (The message policies' frame-mark region is as large as a
//! worker's stack; it must be address space, committed only where a
//! recursion reaches, not memory committed at start-up.)
//!
//! One test function, so that no other test of this binary allocates while
//! it measures.

use std::sync::atomic::{AtomicU64, Ordering};

/// Resident set size of this process, in kB.
fn rss_kb() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).expect("statm's resident field");
    pages * 4
}

/// kB per worker after building a pool, and after it ran a phase of about
/// 10^6 tasks and a join recursion.
fn per_worker(policy: &str, workers: usize) -> (u64, u64) {
    let r0 = rss_kb();
    let pool = finegrain::Pool::new(workers, policy).unwrap_or_else(|e| panic!("{policy}: {e}"));
    pool.install(|| finegrain::join(|| (), || ()));
    let built = rss_kb().saturating_sub(r0) / workers as u64;
    let count = AtomicU64::new(0);
    pool.install(|| {
        // 2^20 tasks as 64 chains of 2^14, so that the queued frontier is
        // small in every order (a FIFO order expanding a binary tree would
        // hold half a million tasks at once, which measures the program, not
        // the runtime).
        finegrain::phase((0..64u32).map(|c| (c, 0u32)), |ctx, (c, i)| {
            count.fetch_add(1, Ordering::Relaxed);
            if i + 1 < 1 << 14 {
                ctx.enqueue((c, i + 1));
            }
        });
        fn fib(n: u64) -> u64 {
            if n < 2 {
                return n;
            }
            let (a, b) = finegrain::join(|| fib(n - 1), || fib(n - 2));
            a + b
        }
        assert_eq!(fib(20), 6765);
    });
    assert_eq!(count.into_inner(), 1 << 20);
    let used = rss_kb().saturating_sub(r0) / workers as u64;
    drop(pool);
    (built, used)
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "reads /proc/self/statm")]
fn every_policy_costs_about_what_ws_costs_per_worker_and_gives_it_back() {
    // First-use costs (the global thread-locals, the clock calibration) land
    // on a warm-up pool, not on the first policy measured.
    let _ = per_worker("ws", 2);
    for workers in [8, 16, 64] {
        let (ws_built, ws_used) = per_worker("ws", workers);
        for info in finegrain::policies() {
            let (built, used) = per_worker(info.name, workers);
            println!("{} x{workers}: {built} kB per worker built, {used} kB after a phase (ws: {ws_built}, {ws_used})", info.name);
            // Within 4x of ws, plus slack: at build, for what the allocator
            // and the OS round up; after running, also for the stack pages
            // the recursion touched (about 50 kB in a debug build) and what
            // each thread's allocator arena keeps of the tasks it freed, which
            // varies from run to run with which worker ran what. Either is far
            // below the mark region's 16 MB, which this test exists to catch.
            assert!(built <= 4 * ws_built + 64, "{} x{workers}: {built} kB per worker after build, ws {ws_built} kB", info.name);
            assert!(used <= 4 * ws_used + 512, "{} x{workers}: {used} kB per worker after a phase, ws {ws_used} kB", info.name);
        }
    }
    // Nothing retained: pools built and dropped over and over hold no more.
    for info in finegrain::policies() {
        let before = rss_kb();
        for _ in 0..50 {
            let pool = finegrain::Pool::new(8, info.name).expect("pool");
            pool.install(|| finegrain::join(|| (), || ()));
        }
        let grown = rss_kb().saturating_sub(before);
        println!("{}: {grown} kB more after 50 pools of 8 workers", info.name);
        assert!(grown <= 8 << 10, "{}: {grown} kB retained after 50 pools of 8 workers", info.name);
    }
}
