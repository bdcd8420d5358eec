//! Task Bench's step shape alone: `steps` timesteps of one loop of two tasks
//! (grain 1), each task spinning `g` ns, on 2 workers. Prints, per policy
//! (repetitions interleaved), the median time per step against the ideal
//! (`g`) with the counters per step of the last repetition, then where the
//! later of each step's two tasks started: its offset from the step's start
//! (p10, p50, p90 over up to 400 traced steps) and in how many steps both
//! tasks ran on one worker.
//!
//! ```text
//! cargo run --release -p finegrain-bench --bin step_latency -- [g_ns] [steps] [reps] [policies;...]
//! ```

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

fn spin(ns: u64) {
    let s = Instant::now();
    while s.elapsed() < Duration::from_nanos(ns) {
        std::hint::spin_loop();
    }
}

/// One traced step: each task's start (ns after the step began) and worker.
#[derive(Default)]
struct Traced {
    start: [AtomicU64; 2],
    worker: [AtomicU64; 2],
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let g: u64 = a.get(1).map_or(4000, |s| s.parse().expect("g_ns"));
    let steps: usize = a.get(2).map_or(2000, |s| s.parse().expect("steps"));
    let reps: usize = a.get(3).map_or(5, |s| s.parse().expect("reps"));
    let policies: Vec<String> = a.get(4).map_or("ws;adm-central".into(), |s| s.clone()).split(';').map(String::from).collect();
    let pools: Vec<_> = policies.iter().map(|p| finegrain::Pool::new(2, p).unwrap_or_else(|e| panic!("{e}"))).collect();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); pools.len()];
    for _ in 0..reps {
        for (i, pool) in pools.iter().enumerate() {
            pool.reset_stats();
            let s = Instant::now();
            pool.install(|| {
                for _ in 0..steps {
                    finegrain::for_each_chunk(0..2, 1, |r| r.for_each(|_| spin(g)));
                }
            });
            times[i].push(s.elapsed().as_nanos() as f64 / steps as f64);
        }
    }
    for (i, p) in policies.iter().enumerate() {
        let t = &mut times[i];
        t.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let st = pools[i].stats().total();
        let per = |x: u64| x as f64 / steps as f64;
        println!(
            "{p:>14}: step {:8.0} ns (min {:.0}, max {:.0}) = {:.2}x g; per step: steals {:.2} msgs {:.2} parks {:.2} irq {:.2}",
            t[t.len() / 2],
            t[0],
            t[t.len() - 1],
            t[t.len() / 2] / g as f64,
            per(st.steals),
            per(st.messages),
            per(st.parks),
            per(st.interrupts)
        );
    }
    for (p, pool) in policies.iter().zip(&pools) {
        let traced: Vec<Traced> = (0..steps.min(400)).map(|_| Traced::default()).collect();
        pool.install(|| {
            for step in &traced {
                let t0 = Instant::now();
                finegrain::for_each_chunk(0..2, 1, |r| {
                    r.for_each(|j| {
                        step.start[j].store(t0.elapsed().as_nanos() as u64, Relaxed);
                        step.worker[j].store(finegrain::current_worker_index().expect("on a worker") as u64, Relaxed);
                        spin(g);
                    })
                });
            }
        });
        let mut later: Vec<u64> = traced.iter().map(|s| s.start[0].load(Relaxed).max(s.start[1].load(Relaxed))).collect();
        later.sort_unstable();
        let q = |f: f64| later[((later.len() - 1) as f64 * f) as usize];
        let same = traced.iter().filter(|s| s.worker[0].load(Relaxed) == s.worker[1].load(Relaxed)).count();
        println!(
            "{p:>14}: later task starts p10 {} p50 {} p90 {} ns into its step; both on one worker in {same} of {} steps",
            q(0.1),
            q(0.5),
            q(0.9),
            traced.len()
        );
    }
}
