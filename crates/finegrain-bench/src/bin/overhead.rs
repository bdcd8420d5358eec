//! Interleaved fork-join overhead runner: finegrain (`ws` unless `FG_POLICY`
//! says otherwise) against serial code, Rayon and chili, at 1 and 2 threads.
//!
//! ```text
//! cargo run --release -p finegrain-bench --bin overhead -- [--reps N] [--quick]
//!     [--only fib35,tree_sum,...] [--stats]
//! ```
//!
//! Why not just the divan benchmark: divan times one configuration to the end
//! before starting the next, so on a shared machine a minute of someone else's
//! compile lands entirely on one configuration and the comparison is off. Here
//! every repetition runs every configuration once (serial, finegrain x1 and
//! x2, rayon x1 and x2, chili x1 and x2, and the same recursion through a
//! `join` that has no runtime) before the next repetition starts, and the starting
//! configuration rotates from one repetition to the next, so slow spells spread
//! over all of them. Medians then discard the outliers that remain.
//!
//! Every result is checked against the serial one. Spawn cost is derived from
//! the 1-thread time: ns per spawn = (T1 - Tserial) / joins, with the joins
//! counted analytically (fib(n): F(n+1) - 1; tree sum: one per node with two
//! children). The loop's joins depend on run-time splitting, so it has none.
//!
//! chili (the Rust port of Spice, a Zig library for heartbeat scheduling as in
//! Acar, Charguéraud, Guatto, Rainey and Sieczkowski, "Heartbeat Scheduling:
//! Provable Efficiency for Nested Parallelism", PLDI 2018) runs the fork-join
//! workloads; it has no parallel loop, so the loop sum has no chili rows. A
//! chili pool of `t` threads is the calling thread plus `t - 1` workers, plus
//! its heartbeat thread; each timed run opens a scope on the pool, as
//! `install` enters the other runtimes' pools.
//!
//! `--quick` shrinks everything (fib 25 and 30, a 2^20-node tree, a 10^6-element
//! loop, 3 repetitions) for a smoke run while developing. `FG_TREE_NODES`
//! overrides the tree size in either mode.

use finegrain_bench::kernels::*;
use std::hint::black_box;
use std::num::NonZeroUsize;
use std::time::{Duration, Instant};

/// Which implementation of a workload to call; the pool is chosen separately
/// (for chili, the scope opened on it is passed in).
enum Impl<'a, 'b> {
    Serial,
    /// The same recursion through `seq_join` (no runtime): the program's
    /// fork-join shape alone. Workloads without joins run serially.
    SeqJoin,
    Finegrain,
    Rayon,
    Chili(&'a mut chili::Scope<'b>),
}

struct Workload {
    /// Display name with the actual size, e.g. `fib(35)`.
    label: String,
    joins: Option<u64>,
    /// Whether the workload has a chili version (the loop has none).
    chili: bool,
    run: Box<dyn Fn(Impl) -> u64 + Send + Sync>,
}

enum Runner {
    Serial,
    SeqJoin,
    Finegrain(finegrain::Pool),
    Rayon(rayon::ThreadPool),
    Chili(chili::ThreadPool),
}

struct Config {
    name: &'static str,
    runner: Runner,
}

impl Config {
    /// One timed run: its result, wall time and the CPU time of the thread that
    /// ran the root of the workload. `install` (for chili, opening a scope on
    /// the pool) is inside the wall time, as a user pays for it, but it costs
    /// microseconds against runs of milliseconds.
    ///
    /// With one thread that thread does all the work, so its CPU time is T1
    /// without the time other processes held the core: on a loaded machine it
    /// is the steadier estimate of spawn cost (it still feels their cache and
    /// memory traffic). With two threads it covers one worker only and is not
    /// reported.
    fn time(&self, w: &Workload) -> Sample {
        let start = Instant::now();
        let timed = |i: Impl| {
            let c0 = thread_cpu();
            let r = (w.run)(i);
            (r, thread_cpu() - c0)
        };
        let (result, cpu) = match &self.runner {
            Runner::Serial => timed(Impl::Serial),
            Runner::SeqJoin => timed(Impl::SeqJoin),
            Runner::Finegrain(p) => p.install(|| timed(Impl::Finegrain)),
            Runner::Rayon(p) => p.install(|| timed(Impl::Rayon)),
            Runner::Chili(p) => timed(Impl::Chili(&mut p.scope())),
        };
        Sample { result: black_box(result), wall: start.elapsed(), cpu }
    }
}

struct Sample {
    result: u64,
    wall: Duration,
    cpu: Duration,
}

/// CPU time consumed so far by the calling thread.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

// Indices into the configuration list, fixed by `configs()`.
const SERIAL: usize = 0;
const WS1: usize = 1;
const WS2: usize = 2;
const RAYON1: usize = 3;
const RAYON2: usize = 4;
const SEQJOIN: usize = 5;
const CHILI1: usize = 6;
const CHILI2: usize = 7;

fn configs() -> Vec<Config> {
    // FG_POLICY picks the finegrain policy measured (default `ws`), e.g.
    // `FG_POLICY=adm-central` for the message-based fast path.
    let policy: &'static str = Box::leak(std::env::var("FG_POLICY").unwrap_or_else(|_| "ws".into()).into_boxed_str());
    let ws = |t| Runner::Finegrain(finegrain::Pool::new(t, policy).unwrap_or_else(|e| panic!("{e}")));
    let ry = |t| Runner::Rayon(rayon::ThreadPoolBuilder::new().num_threads(t).build().expect("rayon pool"));
    let ch = |t| Runner::Chili(chili::ThreadPool::with_config(chili::Config { thread_count: NonZeroUsize::new(t), ..Default::default() }));
    let label = |t: usize| -> &'static str { Box::leak(format!("finegrain {policy} x{t}").into_boxed_str()) };
    vec![
        Config { name: "serial", runner: Runner::Serial },
        Config { name: label(1), runner: ws(1) },
        Config { name: label(2), runner: ws(2) },
        Config { name: "rayon x1", runner: ry(1) },
        Config { name: "rayon x2", runner: ry(2) },
        Config { name: "join without a runtime", runner: Runner::SeqJoin },
        Config { name: "chili x1", runner: ch(1) },
        Config { name: "chili x2", runner: ch(2) },
    ]
}

fn fib_workload(n: u64) -> Workload {
    Workload {
        label: format!("fib({n})"),
        joins: Some(fib_joins(n)),
        chili: true,
        run: Box::new(move |i| {
            let n = black_box(n);
            match i {
                Impl::Serial => fib_serial(n),
                Impl::SeqJoin => fib_seq_join(n),
                Impl::Finegrain => fib_finegrain(n),
                Impl::Rayon => fib_rayon(n),
                Impl::Chili(s) => fib_chili(s, n),
            }
        }),
    }
}

fn tree_workload(nodes: usize) -> Workload {
    eprintln!("building a {nodes}-node tree ...");
    let t = Tree::new(nodes);
    Workload {
        label: format!("tree sum ({})", count(nodes as u64)),
        joins: Some(t.joins()),
        chili: true,
        run: Box::new(move |i| match i {
            Impl::Serial => t.sum_serial(),
            Impl::SeqJoin => t.sum_seq_join(),
            Impl::Finegrain => t.sum_finegrain(),
            Impl::Rayon => t.sum_rayon(),
            Impl::Chili(s) => t.sum_chili(s),
        }),
    }
}

fn loop_workload(len: usize) -> Workload {
    let v = loop_data(len);
    Workload {
        label: format!("loop sum ({} f64)", count(len as u64)),
        joins: None,
        chili: false,
        // The sum is an exact integer (see `loop_data`), so it converts
        // losslessly and compares like the others.
        run: Box::new(move |i| {
            let v = black_box(&v[..]);
            (match i {
                Impl::Serial | Impl::SeqJoin => loop_sum_serial(v),
                Impl::Finegrain => loop_sum_finegrain(v),
                Impl::Rayon => loop_sum_rayon(v),
                Impl::Chili(_) => unreachable!("the loop sum has no chili version"),
            }) as u64
        }),
    }
}

/// 10^8 rather than 100000000, where it is a power of ten.
fn count(n: u64) -> String {
    let mut p = 0;
    let mut m = n;
    while m >= 10 && m % 10 == 0 {
        m /= 10;
        p += 1;
    }
    if m == 1 && p >= 3 {
        format!("10^{p}")
    } else if n.is_power_of_two() && n >= 1024 {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

struct Opts {
    reps: usize,
    quick: bool,
    only: Option<Vec<String>>,
    stats: bool,
}

fn parse_args() -> Opts {
    let mut o = Opts { reps: 11, quick: false, only: None, stats: false };
    let mut reps_given = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--reps" => {
                o.reps = args.next().and_then(|s| s.parse().ok()).filter(|&r| r > 0).unwrap_or_else(|| usage());
                reps_given = true;
            }
            "--quick" => o.quick = true,
            "--only" => o.only = Some(args.next().unwrap_or_else(|| usage()).split(',').map(str::to_owned).collect()),
            "--stats" => o.stats = true,
            "-h" | "--help" => usage(),
            _ => usage(),
        }
    }
    if o.quick && !reps_given {
        o.reps = 3;
    }
    o
}

fn usage() -> ! {
    eprintln!(
        "usage: overhead [--reps N] [--quick] [--only WORKLOAD,...] [--stats]\n\
         workloads: fib30 fib35 tree_sum loop_sum (--quick: fib25 fib30 tree_sum loop_sum)\n\
         FG_TREE_NODES=<n> sets the tree size (default 10^8; 2^20 with --quick)"
    );
    std::process::exit(2)
}

fn median(xs: &[Duration]) -> Duration {
    let mut v = xs.to_vec();
    v.sort();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2
    }
}

/// Three significant figures in a unit that suits the size.
fn fmt_time(d: Duration) -> String {
    let s = d.as_secs_f64();
    let (v, unit) = if s >= 1.0 {
        (s, "s")
    } else if s >= 1e-3 {
        (s * 1e3, "ms")
    } else {
        (s * 1e6, "µs")
    };
    let prec = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.prec$} {unit}")
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned()))
        .unwrap_or_else(|| "unknown CPU".into());
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    format!("{cpu}, {cpus} CPUs available to this process")
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg").map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).unwrap_or_else(|_| "n/a".into())
}

/// Medians, per configuration, of one workload.
struct Summary {
    label: String,
    joins: Option<u64>,
    chili: bool,
    wall: Vec<Duration>,
    cpu: Vec<Duration>,
}

impl Summary {
    /// (T1 - Tserial) / joins in ns, from wall or CPU medians.
    fn per_spawn(&self, t: &[Duration], config: usize) -> Option<f64> {
        let j = self.joins? as f64;
        Some((t[config].as_secs_f64() - t[SERIAL].as_secs_f64()) * 1e9 / j)
    }
}

fn main() {
    let o = parse_args();
    let wanted = |key: &str| o.only.as_ref().map_or(true, |l| l.iter().any(|k| k == key));
    let (fibs, tree_default, loop_len) = if o.quick { ([25, 30], 1 << 20, 1_000_000) } else { ([30, 35], TREE_NODES_DEFAULT, LOOP_LEN_DEFAULT) };

    // Keyed for `--only`, and built lazily, so `--only fib35` does not build a
    // 1.6 GB tree.
    let mut makers: Vec<(String, Box<dyn Fn() -> Workload>)> = Vec::new();
    for n in fibs {
        makers.push((format!("fib{n}"), Box::new(move || fib_workload(n))));
    }
    makers.push(("tree_sum".into(), Box::new(move || tree_workload(tree_nodes_from_env(tree_default)))));
    makers.push(("loop_sum".into(), Box::new(move || loop_workload(loop_len))));
    makers.retain(|(k, _)| wanted(k));
    if makers.is_empty() {
        usage();
    }

    let cfgs = configs();
    let args: Vec<String> = std::env::args().skip(1).collect();
    println!("# finegrain fork-join overhead (interleaved)\n");
    let tail = if args.is_empty() { String::new() } else { format!(" -- {}", args.join(" ")) };
    println!("- command: `cargo run --release -p finegrain-bench --bin overhead{tail}`");
    println!("- machine: {}", machine());
    println!("- load average at start: {}", loadavg());
    println!("- {} repetitions, each running every configuration once, start rotating; median [min-max]", o.reps);
    println!("- finegrain stats feature: {}", if cfg!(feature = "stats") { "on (default)" } else { "off" });

    let mut summaries = Vec::new();
    for (_, make) in &makers {
        let w = make();
        // The configurations this workload runs: all but chili's where it has
        // no chili version.
        let active: Vec<usize> = (0..cfgs.len()).filter(|&i| w.chili || !matches!(cfgs[i].runner, Runner::Chili(_))).collect();
        let mut wall: Vec<Vec<Duration>> = vec![Vec::with_capacity(o.reps); cfgs.len()];
        let mut cpu: Vec<Vec<Duration>> = vec![Vec::with_capacity(o.reps); cfgs.len()];

        // Warm-up and check: page in the data, wake the pools once, and make
        // sure every configuration agrees with the serial answer.
        let expected = cfgs[SERIAL].time(&w).result;
        for c in active.iter().map(|&i| &cfgs[i]) {
            let r = c.time(&w).result;
            assert_eq!(r, expected, "{}: {} returned {r}, serial {expected}", w.label, c.name);
        }
        if o.stats {
            for c in &cfgs {
                if let Runner::Finegrain(p) = &c.runner {
                    p.reset_stats();
                }
            }
        }

        for rep in 0..o.reps {
            for k in 0..active.len() {
                let ci = active[(rep + k) % active.len()];
                // Let the pool that just ran park its workers (both runtimes
                // spin briefly before sleeping) so it does not take CPU time
                // from the next configuration on a 2-core machine.
                std::thread::sleep(Duration::from_millis(5));
                let x = cfgs[ci].time(&w);
                assert_eq!(x.result, expected, "{}: {} returned {}, serial {expected}", w.label, cfgs[ci].name, x.result);
                wall[ci].push(x.wall);
                cpu[ci].push(x.cpu);
            }
        }

        println!("\n## {}{}\n", w.label, w.joins.map_or(String::new(), |j| format!(", {j} joins")));
        println!("| configuration | wall median | wall min - max | CPU median (1 thread) |");
        println!("|---|---:|---:|---:|");
        for &i in &active {
            let (c, t) = (&cfgs[i], &wall[i]);
            let (lo, hi) = (t.iter().min().unwrap(), t.iter().max().unwrap());
            let c_med = if one_thread(i) { fmt_time(median(&cpu[i])) } else { "-".into() };
            println!("| {} | {} | {} - {} | {} |", c.name, fmt_time(median(t)), fmt_time(*lo), fmt_time(*hi), c_med);
        }
        if o.stats {
            for c in &cfgs {
                if let Runner::Finegrain(p) = &c.runner {
                    println!("\n{} stats over {} repetitions:\n```\n{}\n```", c.name, o.reps, p.take_stats());
                }
            }
        }
        summaries.push(Summary {
            label: w.label.clone(),
            joins: w.joins,
            chili: w.chili,
            wall: wall.iter().map(|t| if t.is_empty() { Duration::ZERO } else { median(t) }).collect(),
            cpu: cpu.iter().map(|t| if t.is_empty() { Duration::ZERO } else { median(t) }).collect(),
        });
        // `w` (and a 1.6 GB tree) is dropped here, before the next workload.
    }

    println!("\n## Summary (medians)\n");
    println!(
        "T1, T2: wall time with 1 and 2 threads. ns/spawn = (T1 - Tserial) / joins. \
         Speedup = Tserial / T2. The CPU columns use the running thread's CPU time \
         instead of wall time for Tserial and T1 (see `Config::time`).\n"
    );
    println!("| workload | runtime | T1 | T1/Tserial | ns/spawn | T2 | speedup | T1 CPU | T1/Tserial CPU | ns/spawn CPU |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for s in &summaries {
        println!("| {} | serial | {} | 1.00 | - | - | - | {} | 1.00 | - |", s.label, fmt_time(s.wall[SERIAL]), fmt_time(s.cpu[SERIAL]));
        if s.joins.is_some() {
            println!(
                "| {} | join without a runtime | {} | {:.2} | {} | - | - | {} | {:.2} | {} |",
                s.label,
                fmt_time(s.wall[SEQJOIN]),
                ratio(s.wall[SEQJOIN], s.wall[SERIAL]),
                s.per_spawn(&s.wall, SEQJOIN).map_or("-".into(), |x| format!("{x:.1}")),
                fmt_time(s.cpu[SEQJOIN]),
                ratio(s.cpu[SEQJOIN], s.cpu[SERIAL]),
                s.per_spawn(&s.cpu, SEQJOIN).map_or("-".into(), |x| format!("{x:.1}")),
            );
        }
        let fg = format!("finegrain {}", std::env::var("FG_POLICY").unwrap_or_else(|_| "ws".into()));
        let mut runtimes = vec![(fg.as_str(), WS1, WS2), ("Rayon", RAYON1, RAYON2)];
        if s.chili {
            runtimes.push(("chili", CHILI1, CHILI2));
        }
        for (name, i1, i2) in runtimes {
            let t2 = s.wall[i2];
            println!(
                "| {} | {} | {} | {:.2} | {} | {} | {:.2} | {} | {:.2} | {} |",
                s.label,
                name,
                fmt_time(s.wall[i1]),
                ratio(s.wall[i1], s.wall[SERIAL]),
                s.per_spawn(&s.wall, i1).map_or("-".into(), |x| format!("{x:.1}")),
                fmt_time(t2),
                ratio(s.wall[SERIAL], t2),
                fmt_time(s.cpu[i1]),
                ratio(s.cpu[i1], s.cpu[SERIAL]),
                s.per_spawn(&s.cpu, i1).map_or("-".into(), |x| format!("{x:.1}")),
            );
        }
    }

    // The targets of the message-based schedulers' fast path (issue 3,
    // section 5): within 1.5x of serial at one thread, and at least 1.5x
    // faster than serial at two.
    println!("\n## Check against the fast-path targets (T1 <= 1.5 Tserial, T2 <= Tserial / 1.5)\n");
    let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
    for s in &summaries {
        let (r1, sp) = (ratio(s.wall[WS1], s.wall[SERIAL]), ratio(s.wall[SERIAL], s.wall[WS2]));
        println!("- {}: T1/Tserial {r1:.2} ({}), Tserial/T2 {sp:.2} ({})", s.label, verdict(r1 <= 1.5), verdict(sp >= 1.5));
    }
    println!("\n- load average at end: {}", loadavg());
}

fn one_thread(config: usize) -> bool {
    matches!(config, SERIAL | WS1 | RAYON1 | SEQJOIN | CHILI1)
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}
