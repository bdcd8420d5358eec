//! Interleaved runner for the parallel iterator benchmarks: finegrain (each
//! policy of `--specs`) beside Rayon on the same closures
//! (`benches/iterators/work.rs`), pools of 2 threads.
//!
//! ```text
//! cargo run --release -p finegrain-bench --bin iter_compare -- [--reps N] [--specs 'ws;adm-central'] [--only map_sum,sort_stable]
//! ```
//!
//! The divan benchmark (`benches/iterators.rs`) times one configuration to the
//! end before the next, so on a shared machine a slow spell lands on one of
//! them. Here each repetition runs every configuration once, starting from a
//! different one each time, and the table gives medians and the ratio to
//! Rayon's median (below 1: finegrain faster). Every result is checked
//! against Rayon's.

use std::time::Instant;

mod on_rayon {
    use rayon::prelude::*;
    include!("../../benches/iterators/work.rs");
}

mod on_finegrain {
    use finegrain::prelude::*;
    include!("../../benches/iterators/work.rs");
}

const THREADS: usize = 2;
const N: usize = 10_000_000;

/// Where a configuration runs.
enum Runner {
    Finegrain(finegrain::Pool),
    Rayon(rayon::ThreadPool),
}

fn data() -> Vec<u64> {
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    (0..N)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        })
        .collect()
}

fn text(d: &[u64]) -> String {
    let words: Vec<String> = (0..1000).map(|i| format!("w{}x{}", i * 7919 % 1000, i % 7)).collect();
    let mut out = String::new();
    for (k, x) in d.iter().take(1_000_000).enumerate() {
        out.push_str(&words[(*x % 1000) as usize]);
        out.push(if k % 12 == 11 { '\n' } else { ' ' });
    }
    out
}

/// One timed run of `workload`; returns milliseconds and a digest of the result.
fn run(r: &Runner, workload: &str, d: &[u64], t: &str) -> (f64, u64) {
    macro_rules! with {
        ($lib:ident, $install:expr) => {{
            let mut copy = if workload.starts_with("sort") { d.to_vec() } else { Vec::new() };
            let start = Instant::now();
            let digest: u64 = $install(|| match workload {
                "map_sum" => $lib::map_sum(d),
                "filter_collect" => $lib::filter_collect(d).len() as u64,
                "sort_stable" => {
                    $lib::sort_stable(&mut copy);
                    0
                }
                "sort_unstable" => {
                    $lib::sort_unstable(&mut copy);
                    0
                }
                "word_count" => $lib::word_count(t).len() as u64,
                "find_any" => $lib::find_any(100_000_000, 1_000_000).unwrap_or(0),
                w => panic!("unknown workload {w}"),
            });
            let ms = start.elapsed().as_secs_f64() * 1e3;
            let digest = if workload.starts_with("sort") { copy.iter().step_by(99_991).fold(0u64, |a, &x| a.rotate_left(5) ^ x) } else { digest };
            (ms, digest)
        }};
    }
    match r {
        Runner::Finegrain(p) => with!(on_finegrain, |f| p.install(f)),
        Runner::Rayon(p) => with!(on_rayon, |f| p.install(f)),
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let reps: usize = arg("--reps").map_or(11, |s| s.parse().expect("--reps N"));
    let specs: Vec<String> = arg("--specs").unwrap_or_else(|| "ws;adm-central".into()).split(';').map(str::to_string).collect();
    let all = ["map_sum", "filter_collect", "sort_stable", "sort_unstable", "word_count", "find_any"];
    let only = arg("--only");
    let workloads: Vec<&str> = all.iter().copied().filter(|w| only.as_deref().map_or(true, |o| o.split(',').any(|x| x == *w))).collect();

    let d = data();
    let t = text(&d);
    let mut runners = vec![("rayon".to_string(), Runner::Rayon(rayon::ThreadPoolBuilder::new().num_threads(THREADS).build().expect("rayon pool")))];
    for s in &specs {
        runners.push((s.clone(), Runner::Finegrain(finegrain::Pool::new(THREADS, s).expect("finegrain pool"))));
    }
    println!("| workload | {} |", runners.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(" | "));
    println!("|---|{}", "---:|".repeat(runners.len()));
    for w in workloads {
        let mut times = vec![Vec::new(); runners.len()];
        for rep in 0..reps + 1 {
            let mut expected = None;
            for k in 0..runners.len() {
                let i = (k + rep) % runners.len();
                let (ms, digest) = run(&runners[i].1, w, &d, &t);
                assert_eq!(*expected.get_or_insert(digest), digest, "{w}: {} differs", runners[i].0);
                // The first repetition warms up.
                if rep > 0 {
                    times[i].push(ms);
                }
            }
        }
        let meds: Vec<f64> = times.iter_mut().map(|v| median(v)).collect();
        let cells: Vec<String> =
            meds.iter().enumerate().map(|(i, &m)| if i == 0 { format!("{m:.2} ms") } else { format!("{m:.2} ms ({:.2}x)", m / meds[0]) }).collect();
        println!("| `{w}` | {} |", cells.join(" | "));
    }
}
