#![cfg(not(loom))]
//! `manager=dedicated` (adm-central, adm-hier): the spec option, the manager
//! thread's life (started with the pool's workers, joined when the pool is
//! dropped, asleep when idle), and that workers then do no manager work.
//! Correctness under load is covered by running the stress suite's patterns
//! (`tests/stress.rs`) and the reductions (`tests/reduce.rs`) with the option.

use finegrain::{join, phase_reduce, Bucket, Policy, Pool};
use std::time::{Duration, Instant};

/// Threads of this process whose name starts with `prefix`, with their
/// scheduler state (`R`, `S`, ...), from /proc.
fn threads(prefix: &str) -> Vec<(String, char)> {
    let mut out = Vec::new();
    for t in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default().trim_end().to_string();
        if comm.starts_with(prefix) {
            let stat = std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
            let state = stat.rsplit(") ").next().and_then(|s| s.chars().next()).unwrap_or('?');
            out.push((comm, state));
        }
    }
    out
}

fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = join(|| fib(n - 1), || fib(n - 2));
    a + b
}

#[test]
fn option_parses_prints_and_is_listed() {
    for name in ["adm-central", "adm-hier"] {
        let p = Policy::parse(&format!("{name}:manager=dedicated")).unwrap();
        let dedicated = |p: &Policy| matches!(p.kind, finegrain::policy::PolicyKind::Adm(a) if a.dedicated_manager);
        assert!(dedicated(&p));
        assert!(p.canonical().contains("manager=dedicated"), "{}", p.canonical());
        assert_eq!(Policy::parse(&p.canonical()).unwrap(), p);
        let d = Policy::parse(name).unwrap();
        assert!(!dedicated(&d) && d.canonical().contains("manager=worker"), "{}", d.canonical());
        let info = finegrain::policies().find(|i| i.name == name).unwrap();
        assert!(info.options.iter().any(|o| o.name == "manager" && o.default == "worker"));
        let e = Policy::parse(&format!("{name}:manager=outsourced")).unwrap_err().to_string();
        assert!(e.contains("outsourced") && e.contains("dedicated") && e.contains("worker"), "{e}");
    }
    assert!(Policy::parse("ws:manager=dedicated").is_err(), "ws has no managers");
}

/// The thread exists while the pool does, sleeps when there is nothing to
/// do, and is gone once the pool is dropped.
#[test]
fn manager_thread_lives_and_dies_with_the_pool() {
    for (k, spec) in ["adm-central:manager=dedicated", "adm-hier:radix=2,manager=dedicated"].into_iter().enumerate() {
        let prefix = format!("dm{k}");
        let pool = Pool::builder().threads(4).policy(spec).thread_name(prefix.clone()).build().unwrap();
        assert_eq!(pool.install(|| fib(20)), 6765);
        // A new thread shows its creator's name until it has set its own, so
        // poll until the names are all there and every thread is asleep (the
        // manager thread blocks in its receive once the workers' spin and
        // yield rounds have passed).
        let mut want: Vec<String> = (0..4).map(|i| format!("{prefix}-{i}")).collect();
        want.push(format!("{prefix}-manager"));
        want.sort();
        let t0 = Instant::now();
        loop {
            let ts = threads(&prefix);
            let mut names: Vec<String> = ts.iter().map(|(n, _)| n.clone()).collect();
            names.sort();
            if names == want && ts.iter().all(|&(_, s)| s == 'S') {
                break;
            }
            assert!(t0.elapsed() < Duration::from_secs(10), "{spec}: want 4 workers and the manager thread, all asleep; got {ts:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
        drop(pool);
        // Joined; an exited thread can linger in /proc for a moment.
        let t0 = Instant::now();
        while !threads(&prefix).is_empty() {
            assert!(t0.elapsed() < Duration::from_secs(2), "{spec}: threads left after drop: {:?}", threads(&prefix));
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// With the managers on their own thread, workers spend no time as managers,
/// and tasks still move between them.
#[test]
fn workers_do_no_manager_work() {
    for spec in ["adm-central:manager=dedicated", "adm-hier:radix=2,manager=dedicated"] {
        let pool = Pool::new(4, spec).unwrap();
        let mut moved = 0;
        // As in tests/reduce.rs: rounds go on, with pauses, until a task moved
        // (whether one does depends on which threads get the two cores).
        for round in 0..60 {
            if round >= 20 {
                if moved > 0 {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let (v, st) = pool.measure(|| {
                let f = fib(22);
                let s = phase_reduce(0..2000u64, 0u64, |a, b| a + b, |_, i| i);
                (f, s)
            });
            assert_eq!(v, (17711, 1_999_000));
            let t = st.total();
            // The manager thread's own row (`Stats::manager`) is the one
            // that handles manager messages; `total` includes it.
            for w in &st.workers {
                assert_eq!(w.time(Bucket::HandlerManager), 0, "{spec}: a worker handled manager messages");
            }
            assert!(st.manager.is_some(), "{spec}: no manager row");
            moved += t.tasks_stolen;
        }
        assert!(moved > 0, "{spec}: no task moved between workers");
    }
}

/// Many pools started and dropped in a row, some before any work ran: the
/// manager thread never outlives its pool nor hangs its drop.
#[test]
fn start_stop_churn() {
    let t0 = Instant::now();
    for i in 0..200 {
        let pool = Pool::new(1 + i % 5, "adm-hier:radix=2,manager=dedicated").unwrap();
        if i % 2 == 0 {
            assert_eq!(pool.install(|| fib(10)), 55);
        }
    }
    eprintln!("200 pools with a manager thread started and dropped in {:?}", t0.elapsed());
}
