//! `finegrain sim`: replay a task graph on a modelled many-core chip under
//! each policy and thread count, and report as `bench` does (a table,
//! `sim.csv`, `sim.json`, plots), or check the papers' claims (`--claims`),
//! or compare with measured runs (`--validate`).
//!
//! The task graph comes from a trace file (`finegrain record`), from
//! recording a workload on the spot (`--workload`), or from a generator
//! (`--synth`). Everything is checked before the first simulation runs.

mod claims;
mod locality;
mod parallel;
mod report;
mod source;
mod validate;

use crate::cli::SimArgs;
use crate::Failure;
use finegrain_sim::engine::{simulate, Delivery, SimConfig, SimPolicy, SimResult};
use finegrain_sim::machine::{self, Preset};
use indicatif::{ProgressBar, ProgressStyle};

/// The default policies: every runtime policy, the static baseline last.
pub const DEFAULT_POLICIES: &str = "ws;adm-central;adm-hier;carbon;sw-hier;pdf;static";

pub fn main(a: &SimArgs) -> Result<bool, Failure> {
    if a.preset.as_deref() == Some("help") {
        out!("{}", report::presets_help());
        return Ok(true);
    }
    if a.synth.as_deref() == Some("help") {
        out!("{}", source::synth_help());
        return Ok(true);
    }
    if a.no_cache {
        crate::record::disable_cache();
    }
    crate::record::set_repeats(a.repeat.into());
    if a.locality {
        return locality::main(a);
    }
    if a.workloads.is_some() && !a.claims {
        return Err(Failure::Usage("--workloads goes with --locality or --claims (one workload: --workload NAME)".into()));
    }
    let preset = machine::preset(a.preset_name()).map_err(|e| Failure::Usage(e.to_string()))?;
    let delivery = delivery(&a.delivery).map_err(Failure::Usage)?;
    std::fs::create_dir_all(&a.out).map_err(|e| Failure::Usage(format!("cannot create the output directory {}: {e}", a.out.display())))?;
    if a.claims {
        return claims::main(a);
    }
    if let Some(results) = &a.validate {
        return validate::main(a, results);
    }
    let policies = policies(a.policies.as_deref()).map_err(Failure::Usage)?;
    let threads = threads(a.threads.as_deref(), preset).map_err(Failure::Usage)?;
    let src = source::Source::from_args(a).map_err(Failure::Usage)?;
    let graph = src.load(a.seed).map_err(Failure::Fatal)?;
    eprintln!("{}", source::describe(&graph));
    let locality = match &a.plan {
        None => finegrain_sim::engine::Locality::default(),
        Some(path) => plans(path, &graph, &threads).map_err(Failure::Usage)?,
    };
    let configs: Vec<SimConfig> = policies
        .iter()
        .flat_map(|p| threads.iter().map(move |&t| (p.1.clone(), t)))
        .map(|(p, t)| {
            let mut cfg = SimConfig::new(preset, t, p);
            cfg.seed = a.seed;
            cfg.delivery = delivery;
            cfg.locality = locality.clone();
            cfg
        })
        .collect();
    let bar = progress(configs.len() as u64, "simulating");
    let pool = parallel::pool(a.jobs).map_err(Failure::Fatal)?;
    let (t0, cpu0) = (std::time::Instant::now(), parallel::cpu_seconds());
    let results = pool.install(|| parallel::simulate_all(&graph, &configs, &|_| bar.inc(1)));
    let results = results.into_iter().collect::<Result<Vec<SimResult>, String>>().map_err(Failure::Fatal)?;
    let sweep_wall = t0.elapsed().as_secs_f64();
    let sweep_cpu = parallel::cpu_seconds().zip(cpu0).map(|(b, a)| b - a);
    bar.finish_and_clear();
    let labels: Vec<String> = policies.iter().map(|p| p.0.clone()).collect();
    let rows = report::rows(&results, &labels);
    outln!("{}", report::table(&rows, &src.name(), preset));
    report::write_files(&a.out, &rows, &src.name(), preset, a.no_plots).map_err(Failure::Fatal)?;
    let events: u64 = results.iter().map(|r| r.events).sum();
    let wall: f64 = results.iter().map(|r| r.wall_s).sum();
    let cpu = sweep_cpu.map(|c| format!(", {c:.1} s CPU ({:.2} CPU/wall)", c / sweep_wall.max(1e-9))).unwrap_or_default();
    eprintln!(
        "{} simulations, {:.1} M events: {:.1} M events/s per simulation; sweep {sweep_wall:.2} s wall{cpu} on {} workers; results in {}",
        results.len(),
        events as f64 / 1e6,
        events as f64 / wall.max(1e-9) / 1e6,
        pool.threads(),
        a.out.display()
    );
    Ok(true)
}

/// A plan file's plans as the manager of the trace's spaces: one per space,
/// in order, each for every thread count simulated.
fn plans(path: &std::path::Path, g: &finegrain::taskgraph::TaskGraph, threads: &[usize]) -> Result<finegrain_sim::engine::Locality, String> {
    let plans = finegrain::policy::locality::plan_file::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if plans.len() != g.spaces.len() {
        return Err(format!("{} holds {} plans, but the trace has {} task spaces", path.display(), plans.len(), g.spaces.len()));
    }
    if let Some(&t) = threads.iter().find(|&&t| plans.iter().any(|p| p.workers() != t)) {
        return Err(format!("{}'s plans are for {} threads, not {t}: pass --threads {}", path.display(), plans[0].workers(), plans[0].workers()));
    }
    let map = plans.into_iter().enumerate().collect();
    Ok(finegrain_sim::engine::Locality { manager: finegrain_sim::engine::SpaceManager::Plans(map), ..Default::default() })
}

pub fn delivery(s: &str) -> Result<Delivery, String> {
    match s {
        "interrupt" => Ok(Delivery::Interrupt),
        "poll" => Ok(Delivery::Poll),
        "uli" => Ok(Delivery::Uli),
        _ => Err(format!("bad --delivery {s:?}: expected interrupt, poll or uli")),
    }
}

/// Labelled simulated policies.
pub fn policies(arg: Option<&str>) -> Result<Vec<(String, SimPolicy)>, String> {
    let texts = crate::specs::split_policy_list(arg.unwrap_or(DEFAULT_POLICIES))?;
    let mut out: Vec<(String, SimPolicy)> = Vec::new();
    for label in texts {
        let p = SimPolicy::parse(&label).map_err(|e| format!("{e} (in {label:?})"))?;
        if out.iter().any(|(_, q)| q.name() == p.name()) {
            return Err(format!("policy {label:?} is given twice ({})", p.name()));
        }
        out.push((label, p));
    }
    Ok(out)
}

/// Thread counts, each at most the preset's hardware threads; by default 1 and
/// the powers of two up to the preset's threads (at most 256).
pub fn threads(arg: Option<&str>, preset: &Preset) -> Result<Vec<usize>, String> {
    let max = preset.max_threads();
    let Some(text) = arg else {
        let top = max.min(256);
        let mut v: Vec<usize> = std::iter::successors(Some(1usize), |x| Some(x * 2)).take_while(|&x| x < top).collect();
        v.push(top);
        v.dedup();
        return Ok(v);
    };
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match item.parse::<usize>() {
            Ok(0) => return Err("thread counts must be at least 1 (got 0)".into()),
            Ok(n) if n > max => {
                return Err(format!("{n} threads is more than preset {} has ({max} hardware threads)", preset.name));
            }
            Ok(n) if !out.contains(&n) => out.push(n),
            Ok(_) => {}
            Err(_) => return Err(format!("bad thread count {item:?}: expected a positive integer")),
        }
    }
    if out.is_empty() {
        return Err("no thread count given".into());
    }
    Ok(out)
}

pub fn progress(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(&format!("{what} {{bar:30}} {{pos}}/{{len}} {{elapsed}} (eta {{eta}}) {{msg}}")).expect("a valid template"),
    );
    bar
}

/// One simulation with everything given.
pub fn run_one(
    g: &finegrain::taskgraph::TaskGraph,
    preset: &'static Preset,
    policy: &str,
    threads: usize,
    seed: u64,
    delivery: Delivery,
) -> Result<SimResult, String> {
    let p = SimPolicy::parse(policy).map_err(|e| e.to_string())?;
    let mut cfg = SimConfig::new(preset, threads, p);
    cfg.seed = seed;
    cfg.delivery = delivery;
    simulate(g, &cfg).map_err(|e| e.to_string())
}
