//! How fast the simulator runs: a fork-join tree of about 1,000,000 tasks
//! (leaves of 2,000 cycles touching 4 lines each, merge-sort-like inner
//! nodes) on `adm-cmp` at 256 threads under several policies. Prints events
//! per second, wall time and the memory the graph takes.
//!
//! `cargo run --release -p finegrain-sim --example engine_speed [depth [policy,policy,...]]`
//! (`BUCKETS=1` also prints where the cycles went).

use finegrain::taskgraph::{Builder, Lines, Meta, Step, TaskId, TaskKind};
use finegrain_sim::engine::{simulate, SimConfig, SimPolicy};
use finegrain_sim::machine::preset;
use std::time::Instant;

fn node(b: &mut Builder, t: TaskId, depth: u32, first: u64) -> u64 {
    if depth == 0 {
        b.work(t, 2000, &[Lines { first, count: 4, write: true }]);
        return 4;
    }
    let l = b.latch();
    let child = b.task(TaskKind::Join, Some(l));
    b.push(t, Step::Spawn { task: child });
    let left = node(b, t, depth - 1, first);
    b.push(t, Step::Wait { latch: l });
    let right = node(b, child, depth - 1, first + left);
    // The merge: read both halves (capped at 64 lines), write them back.
    let n = (left + right).min(64) as u32;
    b.work(t, 50 * n as u64, &[Lines { first, count: n, write: false }, Lines { first, count: n, write: true }]);
    left + right
}

/// CPU seconds this thread has run: on a shared machine the wall time of a
/// simulation also counts the time other processes held the core.
fn thread_cpu_s() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime");
    ts.sec as f64 + ts.nsec as f64 * 1e-9
}

fn main() {
    let depth: u32 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(19);
    let meta = Meta::synthetic("tree", format!("depth {depth}"), 1);
    let t0 = Instant::now();
    let mut b = Builder::new(meta);
    node(&mut b, 0, depth, 0);
    let g = b.finish().unwrap();
    let bytes = g.tasks.len() * std::mem::size_of::<finegrain::taskgraph::Task>()
        + g.steps.len() * std::mem::size_of::<Step>()
        + g.lines.len() * std::mem::size_of::<Lines>();
    println!(
        "{} tasks, {} steps, {} line runs, {:.0} MB, built in {:.2} s",
        g.tasks.len(),
        g.steps.len(),
        g.lines.len(),
        bytes as f64 / 1e6,
        t0.elapsed().as_secs_f64()
    );
    let policies: Vec<String> = match std::env::args().nth(2) {
        Some(list) => list.split(',').map(str::to_string).collect(),
        None => ["ws", "adm-hier", "carbon", "pdf"].map(str::to_string).to_vec(),
    };
    for p in &policies {
        let cfg = SimConfig::new(preset("adm-cmp").unwrap(), 256, SimPolicy::parse(p).unwrap());
        let cpu0 = thread_cpu_s();
        let r = simulate(&g, &cfg).unwrap();
        let cpu = thread_cpu_s() - cpu0;
        println!(
            "{p:>9} at 256 threads: {:.2} M events in {:.2} s = {:.1} M events/s ({:.2} s of CPU: {:.1} M events/s); makespan {} cycles, speedup over the work {:.0}",
            r.events as f64 / 1e6,
            r.wall_s,
            r.events_per_s() / 1e6,
            cpu,
            r.events as f64 / cpu / 1e6,
            r.makespan,
            r.work_cycles as f64 / r.makespan as f64
        );
        if std::env::var_os("BUCKETS").is_some() {
            println!(
                "    buckets {:?} ops {:?} stolen {} msgs {}",
                r.buckets,
                r.ops.iter().map(|o| (o.count, o.cycles)).collect::<Vec<_>>(),
                r.tasks_stolen,
                r.messages
            );
        }
    }
}
