//! The randomized stress harness of issue 33 (`src/bin/stress.rs`): random
//! programs from a seed over every construct of the task API, with blocking
//! leaves, injected panics, nested pools and pool lifecycles, under every
//! registered policy and documented option variant at several worker counts,
//! every task counted, a watchdog that calls a scenario hung after
//! `--hang-secs` without progress.
//!
//! - `prim.rs`: generator, counters, abortable blocking primitives, the
//!   raw sleep/poll calls whose EINTR results are counted;
//! - `program.rs`: the random programs (every construct);
//! - `scenarios.rs`: the scenario kinds;
//! - `watchdog.rs`: the thread dump printed on a hang.
//!
//! Each configuration (policy spec x worker count) runs in turns, round-robin,
//! on a runner thread of its own; the main thread watches a progress counter
//! every task and primitive bumps. On a hang it prints the seed, spec, worker
//! count and scenario kind with a replay command, dumps the threads, then
//! (unless `--exit-on-hang`) sets the scenario's abort flag, which makes every
//! harness primitive unwind, retires the configuration and goes on with the
//! others; the process exits 2 at the end. A runner that does not come back
//! after the abort is left behind (its pool leaked).

pub mod prim;
pub mod program;
pub mod scenarios;
pub mod watchdog;

use prim::{mix, Call, Ctx, Eintr, Rng};
use scenarios::{Env, Kind, Outcome};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::*};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The specs run by default: every registered policy, and every documented
/// option value of each (from `finegrain list` and `policy/*.rs`), including
/// all of `crates/finegrain/tests/stress.rs`'s list.
pub const POLICIES: &[&str] = &[
    "ws",
    "ws-paper",
    "ws-paper:victim=random,steal=one",
    "ws-paper:victim=round-robin,steal=3,order=fifo,spin=0",
    "ws-paper:victim=hier,radix=2",
    "ws:victim=nearest",
    "ws:victim=round-robin,steal=one",
    "ws:victim=hier,radix=2,steal=4",
    "ws:order=fifo",
    "adm-central",
    "adm-central:notify=poll",
    "adm-central:manager=dedicated",
    "adm-central:handoff=manager",
    "adm-central:handoff=sleeper",
    "adm-central:underflow=2",
    "adm-central:order=fifo,burst=1,bound=1000",
    "adm-hier:radix=2",
    "adm-hier",
    "adm-hier:notify=poll",
    "adm-hier:radix=2,manager=dedicated",
    "adm-hier:handoff=manager",
    "adm-hier:radix=2,handoff=sleeper",
    "adm-hier:radix=2,underflow=4",
    "adm-hier:radix=2,loops=range",
    "adm-central:loops=range,handoff=manager",
    "adm-paper-central",
    "adm-paper-hier",
    "adm-paper-hier:radix=2,order=fifo,burst=4,spin=8,manager=dedicated,bound=50,handoff=idle,underflow=2,loops=split",
    "adm-paper-central:order=fifo,burst=4,spin=8,manager=dedicated,bound=50,handoff=idle,underflow=2,loops=split",
    "adm-paper-central:notify=poll,handoff=sleeper",
    "adm-paper-hier:notify=poll,handoff=sleeper",
    "carbon",
    "carbon:deque=2,prefetch=0",
    "carbon:deque=1,limit=1",
    "carbon:loops=split,grain=4",
    "carbon:prefetch-steal=no",
    "carbon-paper",
    "carbon-paper:prefetch-steal=yes,loops=split",
    "carbon-paper:deque=4,prefetch=0,limit=2,grain=8,loop-tasks=2,spin=0",
    "sw-hier",
    "sw-hier:order=lifo",
    "sw-hier:order=priority,private=1",
    "sw-hier:share=full",
    "sw-hier:bound=off",
    "pdf",
    "static",
    "ws:space-steal=recursive",
    // The options the lines above leave at their defaults (checked by
    // `tests::every_declared_option_value_is_run`): idle workers that park at
    // once, the other task-space stealing schemes, and the remaining values.
    "ws:spin=0,space-steal=nearest",
    "adm-central:spin=0,space-steal=pattern",
    "adm-hier:order=fifo,burst=1,bound=1000,spin=0",
    "carbon:loop-tasks=1,spin=0",
    "sw-hier:bound=1000,spin=0",
    "pdf:spin=0",
    "static:spin=0",
    // The idle budget (`policy::idle`): none (park after the rounds, as
    // before it existed), and short naps instead of yields.
    "ws:awake=0",
    "adm-central:awake=1000,nap=200",
];

/// Whether tasks of `spec` may wait on other tasks: not under `static`
/// (nothing moves between workers: a task waiting for a task queued on its
/// own worker waits forever) nor the paper-faithful variants documented to
/// leave a task stranded behind a blocked owner (`carbon:prefetch-steal=no`
/// and `carbon-paper`, `sw-hier:bound=off`, `notify=poll`:
/// `docs/blocking.md`), judged on the canonical spec, which spells out every
/// option. `--force-blocking` runs blocking scenarios anyway.
pub fn supports_blocking(spec: &str) -> bool {
    let s: String = match finegrain::Policy::parse(spec) {
        Ok(p) => p.canonical(),
        Err(_) => spec.chars().filter(|c| !c.is_whitespace()).collect(),
    };
    !(s == "static" || s.starts_with("static:") || s.contains("prefetch-steal=no") || s.contains("bound=off") || s.contains("notify=poll"))
}

/// `interrupt`, `poll` or `-` (policies without the option).
fn notify_class(spec: &str) -> &'static str {
    match finegrain::Policy::parse(spec).map(|p| p.canonical()) {
        Ok(c) if c.contains("notify=interrupt") => "interrupt",
        Ok(c) if c.contains("notify=poll") => "poll",
        _ => "-",
    }
}

#[derive(Debug, Clone)]
struct Opts {
    seconds: f64,
    seed: u64,
    policies: Vec<String>,
    workers: Vec<usize>,
    kinds: Vec<Kind>,
    lifecycles: usize,
    hang_secs: f64,
    gdb: bool,
    exit_on_hang: bool,
    force_blocking: bool,
    panic_pct: u64,
    one: Option<u64>,
}

const USAGE: &str = "\
stress: randomized stress of finegrain (issue 33)

usage: stress [options]
  --seconds N        total time budget, spread round-robin over configurations (default 60);
                     every configuration gets one turn even past it (hangs cost --hang-secs + 3 s)
  --seed S           base seed (default: from the clock; printed)
  --policies 'a;b'   policy specs, ';'-separated (default: every policy and option variant)
  --skip 'a;b'       leave these specs out (after --policies, if given)
  --workers 2,8      worker counts (default 2,8,32,64)
  --scenarios k,...  scenario kinds (default all): tree, barrier, channel, condvar, sleep,
                     phase-sibling, mutex, nested-pool, lifecycle
  --lifecycles N     pool lifecycles per policy spec, spread over the worker counts (default 1000)
  --hang-secs N      a scenario without progress this long is a hang (default 8)
  --panic-pct P      percentage of scenarios with injected panics (default 10; ~1% of their tasks)
  --gdb              on a hang, also print `gdb -p PID -batch -ex 'thread apply all bt'`
  --exit-on-hang     exit 2 right after the first hang's dump
  --force-blocking   run blocking scenarios also under static, carbon:prefetch-steal=no, sw-hier:bound=off, notify=poll
  --one SEED         run scenario SEED again and again for --seconds (one policy, one worker count)
Exit status: 0 clean; 1 lost/duplicated tasks, missed panics or errors; 2 a hang; 64 bad usage.";

fn parse_args(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        seconds: 60.0,
        seed: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1) % 1_000_000_007,
        policies: POLICIES.iter().map(|s| s.to_string()).collect(),
        workers: vec![2, 8, 32, 64],
        kinds: Kind::ALL.to_vec(),
        lifecycles: 1000,
        hang_secs: 8.0,
        gdb: false,
        exit_on_hang: false,
        force_blocking: false,
        panic_pct: 10,
        one: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value =
            |name: &str| -> Result<String, String> { inline.clone().or_else(|| it.next().cloned()).ok_or(format!("{name} needs a value")) };
        fn num<T: std::str::FromStr>(name: &str, v: &str) -> Result<T, String> {
            v.trim().parse().map_err(|_| format!("{name}: {v:?} is not a valid number"))
        }
        match flag {
            "-h" | "--help" => return Err(String::new()),
            "--seconds" => {
                o.seconds = num("--seconds", &value("--seconds")?)?;
                if !(o.seconds > 0.0 && o.seconds.is_finite()) {
                    return Err("--seconds must be positive".into());
                }
            }
            "--seed" => o.seed = num("--seed", &value("--seed")?)?,
            "--policies" => {
                o.policies = value("--policies")?.split(';').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
                if o.policies.is_empty() {
                    return Err("--policies: no policy given".into());
                }
                for p in &o.policies {
                    finegrain::Policy::parse(p).map_err(|e| format!("--policies: {p:?}: {e}"))?;
                }
            }
            "--skip" => {
                let skip: Vec<String> = value("--skip")?.split(';').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
                if let Some(bad) = skip.iter().find(|s| !o.policies.contains(s)) {
                    return Err(format!("--skip: {bad:?} is not among the policies to run"));
                }
                o.policies.retain(|p| !skip.contains(p));
                if o.policies.is_empty() {
                    return Err("--skip: no policy left".into());
                }
            }
            "--workers" => {
                o.workers = value("--workers")?.split(',').map(|w| num::<usize>("--workers", w)).collect::<Result<_, _>>()?;
                if o.workers.is_empty() || o.workers.iter().any(|&w| w == 0 || w > finegrain::MAX_THREADS) {
                    return Err(format!("--workers: each count must be in 1..={}", finegrain::MAX_THREADS));
                }
            }
            "--scenarios" => {
                o.kinds = value("--scenarios")?
                    .split(',')
                    .map(|k| {
                        Kind::parse(k.trim())
                            .ok_or_else(|| format!("--scenarios: unknown kind {k:?} (valid: {})", Kind::ALL.map(|k| k.name()).join(", ")))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--lifecycles" => o.lifecycles = num("--lifecycles", &value("--lifecycles")?)?,
            "--hang-secs" => {
                o.hang_secs = num("--hang-secs", &value("--hang-secs")?)?;
                if !(o.hang_secs > 0.0 && o.hang_secs.is_finite()) {
                    return Err("--hang-secs must be positive".into());
                }
            }
            "--panic-pct" => {
                o.panic_pct = num("--panic-pct", &value("--panic-pct")?)?;
                if o.panic_pct > 100 {
                    return Err("--panic-pct must be at most 100".into());
                }
            }
            "--one" => o.one = Some(num("--one", &value("--one")?)?),
            "--gdb" => o.gdb = true,
            "--exit-on-hang" => o.exit_on_hang = true,
            "--force-blocking" => o.force_blocking = true,
            _ => return Err(format!("unknown argument {a:?}")),
        }
    }
    if o.one.is_some() && (o.policies.len() != 1 || o.workers.len() != 1) {
        return Err("--one SEED needs exactly one --policies spec and one --workers count".into());
    }
    Ok(o)
}

/// One configuration's totals.
#[derive(Debug, Default)]
struct Stats {
    scenarios: u64,
    tasks: u64,
    lifecycles: u64,
    lost: u64,
    dup: u64,
    missed: u64,
    injected: u64,
    reached: u64,
    errors: u64,
    hangs: u64,
    time: Duration,
    /// Seeds and what went wrong (the first few).
    notes: Vec<String>,
    retired: bool,
}

struct Config {
    spec: String,
    workers: usize,
    blocking: bool,
    notify: &'static str,
    seed_base: u64,
    next: u64,
    lifecycle_quota: u64,
    stats: Arc<Mutex<Stats>>,
    eintr: Arc<Eintr>,
}

/// What the runner is doing, for the watchdog.
#[derive(Default)]
struct Current {
    kind: Option<Kind>,
    seed: u64,
}

struct Visit {
    current: Mutex<Current>,
    progress: Arc<AtomicU64>,
    waiting: Arc<std::sync::atomic::AtomicUsize>,
    abort: Arc<AtomicBool>,
    done: AtomicBool,
    next: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Run configuration `cf` for `slice` on a thread of its own; the caller
/// watches it. `budget` is the configuration's share of the whole run, which
/// paces its lifecycles.
fn runner(cf: &Config, opts: &Opts, kinds: Vec<Kind>, visit: Arc<Visit>, slice: Duration, budget: Duration) -> std::thread::JoinHandle<()> {
    let (spec, workers, blocking, seed_base, stats, eintr) =
        (cf.spec.clone(), cf.workers, cf.blocking, cf.seed_base, cf.stats.clone(), cf.eintr.clone());
    let (quota, panic_pct, one) = (cf.lifecycle_quota, opts.panic_pct, opts.one);
    std::thread::Builder::new()
        .name("stress-runner".into())
        .spawn(move || {
            let t0 = Instant::now();
            let pool = finegrain::Pool::builder().threads(workers).policy(spec.as_str()).build();
            visit.progress.fetch_add(1, Relaxed);
            let pool = match pool {
                Ok(p) => p,
                Err(e) => {
                    let mut st = lock(&stats);
                    st.errors += 1;
                    st.notes.push(format!("pool build failed: {e}"));
                    st.retired = true;
                    visit.done.store(true, Release);
                    return;
                }
            };
            let env = Env { pool: &pool, spec: &spec, workers, panic_pct };
            loop {
                if visit.abort.load(Relaxed) || t0.elapsed() >= slice {
                    break;
                }
                let i = visit.next.fetch_add(1, Relaxed);
                let seed = one.unwrap_or_else(|| mix(seed_base.wrapping_add(i)));
                let mut rng = Rng::new(seed);
                let pick = rng.next_u64();
                let (used, done_lc) = {
                    let st = lock(&stats);
                    (st.time + t0.elapsed(), st.lifecycles)
                };
                // Lifecycles keep pace with the configuration's share of time.
                let due = (quota as f64 * (used.as_secs_f64() / budget.as_secs_f64()).min(1.0)) as u64;
                let kind = if one.is_none() && kinds.contains(&Kind::Lifecycle) && done_lc < due.min(quota) {
                    Kind::Lifecycle
                } else {
                    let others: Vec<Kind> = kinds.iter().copied().filter(|&k| k != Kind::Lifecycle || one.is_some() || quota == 0).collect();
                    let others = if others.is_empty() { kinds.clone() } else { others };
                    others[(pick % others.len() as u64) as usize]
                };
                *lock(&visit.current) = Current { kind: Some(kind), seed };
                let ctx = Ctx::new(visit.abort.clone(), visit.progress.clone(), visit.waiting.clone(), workers, blocking, eintr.clone());
                let o: Outcome = scenarios::run(kind, &env, &ctx, &mut rng);
                let mut st = lock(&stats);
                st.scenarios += 1;
                st.tasks += o.tasks as u64;
                st.lifecycles += o.lifecycles as u64;
                st.lost += o.lost as u64;
                st.dup += o.dup as u64;
                st.injected += (o.injected > 0) as u64;
                st.reached += o.reached as u64;
                st.missed += o.missed_panic as u64;
                let bad = o.lost > 0 || o.dup > 0 || o.missed_panic || o.error.is_some();
                st.errors += o.error.is_some() as u64;
                if bad && st.notes.len() < 8 {
                    st.notes.push(format!(
                        "{} seed {seed}: {} lost, {} run twice{}{}",
                        kind.name(),
                        o.lost,
                        o.dup,
                        if o.missed_panic { ", injected panic did not reach the caller" } else { "" },
                        o.error.map(|e| format!(", {e}")).unwrap_or_default()
                    ));
                }
                if bad {
                    eprintln!("FAILURE: {spec:?} x{workers}: {}", st.notes.last().map(|s| s.as_str()).unwrap_or("(more)"));
                }
                drop(st);
            }
            lock(&visit.current).kind = None;
            drop(pool);
            visit.progress.fetch_add(1, Relaxed);
            lock(&stats).time += t0.elapsed();
            visit.done.store(true, Release);
        })
        .expect("spawn the runner")
}

/// Watch `visit` until its runner finishes; on a hang, report and (unless
/// `--exit-on-hang`) abort it. Returns whether it hung.
fn watch(cf: &Config, opts: &Opts, visit: &Visit, configs: &[Config], t_start: Instant) -> bool {
    let hang = Duration::from_secs_f64(opts.hang_secs);
    let mut last = (visit.progress.load(Relaxed), Instant::now());
    loop {
        std::thread::sleep(Duration::from_millis(50));
        if visit.done.load(Acquire) {
            return false;
        }
        let p = visit.progress.load(Relaxed);
        if p != last.0 {
            last = (p, Instant::now());
            continue;
        }
        if last.1.elapsed() < hang {
            continue;
        }
        let (kind, seed) = {
            let c = lock(&visit.current);
            (c.kind.map(|k| k.name()).unwrap_or("pool build/drop"), c.seed)
        };
        eprintln!(
            "\nHANG: no progress for {:.1} s: policy {:?}, {} workers, scenario {kind}, seed {seed}\n  replay: target/release/stress --policies '{}' --workers {} --scenarios {kind} --one {seed}",
            opts.hang_secs, cf.spec, cf.workers, cf.spec, cf.workers
        );
        eprintln!("  {} tasks are waiting in the harness's primitives (barrier, condvar flag, channel)", visit.waiting.load(Relaxed));
        watchdog::dump_threads();
        if opts.gdb {
            watchdog::gdb_backtraces();
        }
        {
            let mut st = lock(&cf.stats);
            st.hangs += 1;
            st.retired = true;
            st.notes.push(format!("HANG in {kind} seed {seed}"));
        }
        if opts.exit_on_hang {
            summary(configs, opts, t_start);
            std::process::exit(2);
        }
        visit.abort.store(true, Relaxed);
        let t = Instant::now();
        while !visit.done.load(Acquire) && t.elapsed() < hang.min(Duration::from_secs(3)) {
            std::thread::sleep(Duration::from_millis(20));
        }
        if visit.done.load(Acquire) {
            eprintln!("  aborted: the scenario unwound and the pool dropped; configuration retired");
        } else {
            eprintln!("  aborted, but the runner did not come back: left behind (pool leaked); configuration retired");
        }
        return true;
    }
}

/// The entry point of `src/bin/stress.rs`; returns the exit status.
pub fn main() -> i32 {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opts = match parse_args(&args) {
        Ok(o) => o,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return 0;
        }
        Err(e) => {
            eprintln!("stress: {e}\n\n{USAGE}");
            return 64;
        }
    };
    // Injected panics and the watchdog's aborts are expected: only other
    // panics are printed.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let p = info.payload();
        if !(p.is::<prim::Injected>() || p.is::<prim::Aborted>()) {
            default_hook(info);
        }
    }));
    let quota = (opts.lifecycles as u64).div_ceil(opts.workers.len() as u64);
    let mut configs: Vec<Config> = Vec::new();
    for spec in &opts.policies {
        for &workers in &opts.workers {
            let blocking = (opts.force_blocking || supports_blocking(spec)) && workers >= 2;
            let h = spec.bytes().fold(0xCBF2_9CE4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01B3));
            configs.push(Config {
                spec: spec.clone(),
                workers,
                blocking,
                notify: notify_class(spec),
                seed_base: mix(opts.seed ^ h ^ (workers as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
                next: 0,
                lifecycle_quota: quota,
                stats: Arc::default(),
                eintr: Arc::default(),
            });
        }
    }
    let total = Duration::from_secs_f64(opts.seconds);
    let budget = total / configs.len() as u32;
    // Each configuration gets several turns if time allows.
    let slice = if opts.one.is_some() { total } else { (budget / 3).clamp(Duration::from_millis(300), Duration::from_secs(5)) };
    eprintln!(
        "stress: seed {}, {} configurations ({} specs x workers {:?}), {:.0} s, about {:.2} s each in turns of {:.2} s, scenarios {}, {} lifecycles per configuration, hang after {} s",
        opts.seed,
        configs.len(),
        opts.policies.len(),
        opts.workers,
        opts.seconds,
        budget.as_secs_f64(),
        slice.as_secs_f64(),
        opts.kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join(","),
        quota,
        opts.hang_secs
    );
    let t_start = Instant::now();
    'rounds: loop {
        let mut ran = false;
        for ci in 0..configs.len() {
            let remaining = total.saturating_sub(t_start.elapsed());
            let cf = &configs[ci];
            if lock(&cf.stats).retired {
                continue;
            }
            // Past the budget, only configurations that have not had a turn
            // yet get one (a hang costs `--hang-secs` and up to 3 s more, so
            // a run with many hung configurations takes longer than asked).
            if remaining.is_zero() && (cf.next > 0 || opts.one.is_some()) {
                continue;
            }
            let kinds: Vec<Kind> = opts.kinds.iter().copied().filter(|k| cf.blocking || !k.blocking()).collect();
            if kinds.is_empty() {
                lock(&cf.stats).retired = true;
                eprintln!(
                    "stress: {:?} x{}: no scenario kind applies (blocking kinds need a policy that moves tasks and 2+ workers)",
                    cf.spec, cf.workers
                );
                continue;
            }
            ran = true;
            let visit = Arc::new(Visit {
                current: Mutex::default(),
                progress: Arc::default(),
                waiting: Arc::default(),
                abort: Arc::default(),
                done: AtomicBool::new(false),
                next: AtomicU64::new(cf.next),
            });
            let h = runner(cf, &opts, kinds, visit.clone(), slice.min(remaining.max(Duration::from_millis(300))), budget);
            let hung = watch(cf, &opts, &visit, &configs, t_start);
            if visit.done.load(Acquire) {
                let _ = h.join();
            }
            let cf = &mut configs[ci];
            cf.next = visit.next.load(Relaxed);
            let st = lock(&cf.stats);
            eprintln!(
                "[{:>6.1} s] {:<40} x{:<3} {:>6} scenarios {:>6.0}/s {:>6} lifecycles  {}",
                t_start.elapsed().as_secs_f64(),
                cf.spec,
                cf.workers,
                st.scenarios,
                st.scenarios as f64 / st.time.as_secs_f64().max(1e-9),
                st.lifecycles,
                if hung { "HUNG (retired)" } else { "" }
            );
            drop(st);
            if opts.one.is_some() {
                break 'rounds;
            }
        }
        if !ran || (total <= t_start.elapsed() && configs.iter().all(|c| c.next > 0 || lock(&c.stats).retired)) {
            break;
        }
    }
    summary(&configs, &opts, t_start)
}

/// Print the tables; returns the exit status.
fn summary(configs: &[Config], opts: &Opts, t_start: Instant) -> i32 {
    println!("\nstress summary: seed {}, {:.1} s wall", opts.seed, t_start.elapsed().as_secs_f64());
    println!(
        "{:<42} {:>4} {:>8} {:>8} {:>7} {:>10} {:>5} {:>5} {:>4} {:>6} {:>7} {:>6}",
        "policy", "wkrs", "scenar.", "scen/s", "secs", "lifecycl.", "hangs", "lost", "dup", "missed", "panics", "errors"
    );
    let (mut hangs, mut bad) = (0, 0);
    for cf in configs {
        let st = lock(&cf.stats);
        println!(
            "{:<42} {:>4} {:>8} {:>8.1} {:>7.1} {:>10} {:>5} {:>5} {:>4} {:>6} {:>7} {:>6}{}",
            cf.spec,
            cf.workers,
            st.scenarios,
            st.scenarios as f64 / st.time.as_secs_f64().max(1e-9),
            st.time.as_secs_f64(),
            st.lifecycles,
            st.hangs,
            st.lost,
            st.dup,
            st.missed,
            format!("{}/{}", st.reached, st.injected),
            st.errors,
            if cf.blocking { "" } else { "  (no blocking kinds)" }
        );
        hangs += st.hangs;
        bad += st.lost + st.dup + st.missed + st.errors;
    }
    println!("\nEINTR results of the sleeping calls made inside tasks (eintr/calls), by notify option:");
    print!("{:<10}", "notify");
    for c in Call::ALL {
        print!(" {:>18}", c.name());
    }
    println!();
    for class in ["interrupt", "poll", "-"] {
        let mut sums = [(0u64, 0u64); 7];
        let mut any = false;
        for cf in configs.iter().filter(|c| c.notify == class) {
            any = true;
            for (s, (calls, eintr)) in sums.iter_mut().zip(cf.eintr.snapshot()) {
                s.0 += calls;
                s.1 += eintr;
            }
        }
        if !any {
            continue;
        }
        print!("{class:<10}");
        for (calls, eintr) in sums {
            print!(" {:>18}", format!("{eintr}/{calls}"));
        }
        println!();
    }
    let notes: Vec<String> = configs
        .iter()
        .flat_map(|cf| lock(&cf.stats).notes.iter().map(|n| format!("  {:?} x{}: {n}", cf.spec, cf.workers)).collect::<Vec<_>>())
        .collect();
    if !notes.is_empty() {
        println!("\nfailures (replay: --policies SPEC --workers N --scenarios KIND --one SEED):");
        for n in notes {
            println!("{n}");
        }
    }
    println!("\n{hangs} hangs, {bad} lost/duplicated tasks, missed panics and errors");
    if hangs > 0 {
        2
    } else if bad > 0 {
        1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::POLICIES;

    /// The option `name=value` pairs a spec sets.
    fn pairs(spec: &str) -> Vec<(String, String)> {
        let opts = spec.split_once(':').map_or("", |(_, o)| o);
        opts.split(',').filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect()
    }

    /// Every value every registered policy declares for a choice option
    /// ("a | b | c"), and a value other than the default for every numeric
    /// one, is set by some spec of that policy in [`POLICIES`] (a default is
    /// run by the plain spec), and every value of the options common to all
    /// policies by some spec: so a new option or value cannot escape the
    /// harness unnoticed.
    #[test]
    fn every_declared_option_value_is_run() {
        let mut missing = Vec::new();
        for info in finegrain::policies() {
            let specs: Vec<&str> = POLICIES.iter().copied().filter(|s| s.split(':').next() == Some(info.name)).collect();
            assert!(specs.contains(&info.name), "{} is not run with its defaults", info.name);
            let set: Vec<(String, String)> = specs.iter().flat_map(|s| pairs(s)).collect();
            for o in info.options {
                let values: Vec<&str> = o.values.split('|').map(str::trim).collect();
                let numeric = values.iter().any(|v| v.contains("..") || v.starts_with('<'));
                for v in values.iter().filter(|v| !v.contains("..") && !v.starts_with('<') && **v != o.default) {
                    if !set.iter().any(|(k, x)| k == o.name && x == v) {
                        missing.push(format!("{}:{}={v}", info.name, o.name));
                    }
                }
                if numeric && !set.iter().any(|(k, x)| k == o.name && x != o.default && x.parse::<u64>().is_ok()) {
                    missing.push(format!("{}:{}=<a number other than {}>", info.name, o.name, o.default));
                }
            }
        }
        // The options common to every policy: each value under some policy.
        let all: Vec<(String, String)> = POLICIES.iter().flat_map(|s| pairs(s)).collect();
        for o in finegrain::policy::COMMON_OPTIONS {
            for v in o.values.split('|').map(str::trim).filter(|v| *v != o.default) {
                if v.contains("..") {
                    // A numeric range: some spec sets a number other than the default.
                    if !all.iter().any(|(k, x)| k == o.name && x != o.default && x.parse::<u64>().is_ok()) {
                        missing.push(format!("{}=<a number other than {}>", o.name, o.default));
                    }
                } else if !all.iter().any(|(k, x)| k == o.name && x == v) {
                    missing.push(format!("{}={v}", o.name));
                }
            }
        }
        assert!(missing.is_empty(), "option values no spec of POLICIES runs: {missing:?}");
    }
}
