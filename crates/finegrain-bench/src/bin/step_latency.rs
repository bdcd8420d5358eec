//! Task Bench's step shape alone: `steps` timesteps of one loop of two tasks
//! (grain 1), each task spinning `g` ns, on 2 workers. Prints the time per step
//! over the ideal (`g`), per policy, interleaved, with the counters per step.
//!
//! ```text
//! cargo run --release -p finegrain-bench --bin step_latency -- [g_ns] [steps] [reps] [policies;...]
//! ```

use std::time::{Duration, Instant};

fn spin(ns: u64) {
    let s = Instant::now();
    while s.elapsed() < Duration::from_nanos(ns) {
        std::hint::spin_loop();
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let g: u64 = a.get(1).map_or(4000, |s| s.parse().unwrap());
    let steps: usize = a.get(2).map_or(2000, |s| s.parse().unwrap());
    let reps: usize = a.get(3).map_or(5, |s| s.parse().unwrap());
    let policies: Vec<String> = a.get(4).map_or("ws;adm-central".into(), |s| s.clone()).split(';').map(String::from).collect();
    let pools: Vec<_> = policies.iter().map(|p| finegrain::Pool::new(2, p).unwrap()).collect();
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
    // Start offsets of each task within a step, for the last pool.
    for (i, pool) in pools.iter().enumerate() {
        let n = steps.min(400);
        let rec: Vec<[std::sync::atomic::AtomicU64; 4]> = (0..n).map(|_| Default::default()).collect();
        let base = Instant::now();
        let now = || base.elapsed().as_nanos() as u64;
        pool.install(|| {
            for k in 0..n {
                rec[k][0].store(now(), std::sync::atomic::Ordering::Relaxed);
                finegrain::for_each_chunk(0..2, 1, |r| {
                    r.for_each(|j| {
                        let w = finegrain::current_worker_index().unwrap() as u64;
                        rec[k][1 + j]
                            .store(((now() - rec[k][0].load(std::sync::atomic::Ordering::Relaxed)) << 1) | w, std::sync::atomic::Ordering::Relaxed);
                        spin(g);
                    })
                });
                rec[k][3].store(now() - rec[k][0].load(std::sync::atomic::Ordering::Relaxed), std::sync::atomic::Ordering::Relaxed);
            }
        });
        let mut d: Vec<(u64, u64, u64, u64, u64)> = rec
            .iter()
            .map(|r| {
                let a = r[1].load(std::sync::atomic::Ordering::Relaxed);
                let b = r[2].load(std::sync::atomic::Ordering::Relaxed);
                (a >> 1, a & 1, b >> 1, b & 1, r[3].load(std::sync::atomic::Ordering::Relaxed))
            })
            .collect();
        d.sort_by_key(|x| x.2);
        let q = |f: f64| d[((d.len() - 1) as f64 * f) as usize];
        println!("{}: task1 start offset (ns) p10 {:?} p50 {:?} p90 {:?}  (t0 start, w0, t1 start, w1, step)", policies[i], q(0.1), q(0.5), q(0.9));
        let same = d.iter().filter(|x| x.1 == x.3).count();
        println!("   steps with both tasks on one worker: {same}/{}", d.len());
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
}
