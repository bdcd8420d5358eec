//! Pool start-up and shutdown cost by thread count, for the README's "Limits":
//!
//! ```text
//! startup [--mark-depth BYTES] [policy] [threads...]      (default: ws 1024 8192)
//! ```
//!
//! `--mark-depth` is passed to `Builder::mark_depth` (message policies).
//!
//! For each thread count it builds a pool and reports four times:
//!
//! - `build`: `Builder::build` returning (every worker thread spawned);
//! - `idle`: from the start of `build` until every worker has parked once, so
//!   that whatever a starting worker does before it first sleeps (its own set
//!   up, its idle rounds over the other workers) is counted: polled through
//!   the per-worker `parks` counter, which needs the `stats` feature;
//! - `first`: one `install` of an empty closure on the idle pool;
//! - `drop`: dropping the pool (waking and joining every worker);
//!
//! and, once the pool is idle, the process's resident memory (`rss`, from
//! `/proc/self/statm`) and its memory mappings (`maps`, lines of
//! `/proc/self/maps`: Linux refuses new ones beyond `vm.max_map_count`,
//! 65,530 by default). Run it in release mode:
//!
//! ```text
//! cargo run --release -p finegrain-bench --bin startup -- adm-central 1024 8192
//! ```

use std::time::{Duration, Instant};

fn rss_mib() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0.0);
    pages * 4096.0 / (1 << 20) as f64
}

fn maps() -> usize {
    std::fs::read_to_string("/proc/self/maps").map_or(0, |m| m.lines().count())
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let mut mark_depth = None;
    if args.peek().map(String::as_str) == Some("--mark-depth") {
        args.next();
        mark_depth = Some(args.next().and_then(|s| s.parse::<usize>().ok()).expect("--mark-depth takes a byte count"));
    }
    let policy = args.next().unwrap_or_else(|| "ws".into());
    let mut counts: Vec<usize> = args.map(|a| a.parse().expect("thread counts are integers")).collect();
    if counts.is_empty() {
        counts = vec![1024, 8192];
    }
    println!("policy {policy}: times in ms, resident memory in MiB");
    println!("{:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}", "threads", "build", "idle", "first", "drop", "rss", "maps");
    for n in counts {
        let t0 = Instant::now();
        let mut builder = finegrain::Pool::builder().threads(n).policy(policy.as_str());
        if let Some(bytes) = mark_depth {
            builder = builder.mark_depth(bytes);
        }
        let pool = match builder.build() {
            Ok(p) => p,
            Err(e) => {
                println!("{n:>8} error: {e}");
                continue;
            }
        };
        let build = t0.elapsed();
        let idle = if cfg!(feature = "stats") {
            loop {
                if pool.stats().workers.iter().all(|w| w.parks > 0) {
                    break Some(t0.elapsed());
                }
                if t0.elapsed() > Duration::from_secs(600) {
                    break None;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        } else {
            None
        };
        let (rss, maps) = (rss_mib(), maps());
        let t1 = Instant::now();
        pool.install(|| ());
        let first = t1.elapsed();
        let t2 = Instant::now();
        drop(pool);
        let drop_t = t2.elapsed();
        let ms = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1e3);
        println!("{n:>8} {:>9} {:>9} {:>9} {:>9} {:>9.0} {:>9}", ms(build), idle.map_or_else(|| "-".into(), ms), ms(first), ms(drop_t), rss, maps);
    }
}
