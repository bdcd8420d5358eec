//! `finegrain sim --locality`: the evaluation of Yoo's thesis (*Locality-Aware
//! Task Management on Many-Core Processors*, Stanford 2012, §4.4, §5.4, §6.4
//! and §6.5) on its two simulated machines.
//!
//! Each locality workload is recorded once (its task spaces with their hints
//! and every task's footprint), then simulated on every preset:
//!
//! 1. **Managers** (no thread offline, baseline stealing): every manager
//!    asked for (`hint`: the workload's own, flux, binning or signature;
//!    `baseline`; `random`, the mean of three seeds as in §4.4.1;
//!    `reference`, the graph-based reference scheduler of chapter 4),
//!    reported as the sum of task times and the makespan, each as a speedup
//!    over the baseline, and the misses per thousand instructions at L1 and
//!    L2.
//! 2. **Stealing with offline threads** (§6.4-6.5): the last `k` threads never
//!    take from a space, so the others must steal their tasks; every
//!    stealing scheme on the workload's own plan (`hint`, or the reference
//!    plan where `reference` is among the managers: the thesis's chapter 6
//!    steals from recursive schedules), as speedups over baseline stealing.
//!
//! Everything goes to `locality.csv` in the output directory, one row per
//! simulation.

use super::progress;
use crate::cli::SimArgs;
use crate::text_table::Table;
use crate::Failure;
use finegrain::policy::locality::steal::Stealing;
use finegrain::taskgraph::TaskGraph;
use finegrain_sim::engine::{simulate, Locality, SimConfig, SimPolicy, SimResult, SpaceManager};
use finegrain_sim::machine::{self, Preset};
use std::fmt::Write as _;

/// The presets of the thesis (Table 4.3): the Throughput Processor (32
/// cores, private L1 and L2) and the Tiled Processor (8 tiles of 4 cores
/// sharing an L2, an L3).
pub const DEFAULT_PRESETS: &str = "throughput-32,tiled-32";
pub const DEFAULT_MANAGERS: &str = "hint,baseline,random";
pub const DEFAULT_OFFLINE: &str = "4,16,28";

/// One simulation's settings and outcome.
struct Row {
    preset: &'static str,
    workload: String,
    threads: usize,
    manager: String,
    stealing: Stealing,
    offline: usize,
    task_cycles: f64,
    makespan: f64,
    space_tasks: u64,
    space_stolen: u64,
    mpki: [f64; 3],
    /// Share of the task time that is memory stall: 1 - (work / IPC) / task
    /// time (what a manager can change at most).
    stall: f64,
}

/// The locality workloads: those with an unhinted twin.
pub fn default_workloads() -> Vec<String> {
    finegrain_workloads::all().iter().map(|w| w.name().to_string()).filter(|n| finegrain_workloads::locality::unhinted(n).is_some()).collect()
}

fn list(arg: Option<&str>, default: &str) -> Vec<String> {
    arg.unwrap_or(default).split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
}

/// A manager by name, for one graph at one thread count.
/// (`random` is seeded by each run's seed.)
fn manager(name: &str, g: &TaskGraph, preset: &'static Preset, threads: usize) -> Result<SpaceManager, String> {
    match name {
        "reference" => reference(g, preset, threads),
        _ => SpaceManager::parse(name).map_err(|e| e.to_string()),
    }
}

/// The reference scheduler's plans for every space of `g`
/// (`finegrain_sim::reference`, thesis chapter 4), for the preset's cache
/// hierarchy. A space with the same extents and hint as an earlier one (a
/// section run again: conv's passes, smvm's steps) reuses that one's plan,
/// as the thesis's replay does (§5.5.2), instead of partitioning again.
fn reference(g: &TaskGraph, preset: &'static Preset, threads: usize) -> Result<SpaceManager, String> {
    use finegrain_sim::reference::{self, Hierarchy, TaskSharing};
    let h = Hierarchy::from_preset(preset, threads).map_err(|e| e.to_string())?;
    let mut plans = std::collections::HashMap::new();
    let mut made: Vec<(usize, finegrain::policy::locality::Plan)> = Vec::new();
    for (i, rec) in g.spaces.iter().enumerate() {
        if let Some((_, p)) = made.iter().find(|(j, _)| g.spaces[*j].dims == rec.dims && g.spaces[*j].hint == rec.hint) {
            plans.insert(i, p.clone());
            continue;
        }
        let input = reference::trace::space_input(g, rec).map_err(|e| e.to_string())?;
        let plan = TaskSharing::new(&input).recursive(&h).map_err(|e| e.to_string())?.plan;
        plans.insert(i, plan.clone());
        made.push((i, plan));
    }
    Ok(SpaceManager::Plans(plans))
}

fn run(g: &TaskGraph, preset: &'static Preset, threads: usize, policy: &SimPolicy, seed: u64, locality: Locality) -> Result<SimResult, String> {
    let mut cfg = SimConfig::new(preset, threads, policy.clone());
    cfg.seed = seed;
    cfg.locality = locality;
    simulate(g, &cfg).map_err(|e| e.to_string())
}

pub fn main(a: &SimArgs) -> Result<bool, Failure> {
    let usage = Failure::Usage;
    let presets: Vec<&'static Preset> = list(a.preset.as_deref(), DEFAULT_PRESETS)
        .iter()
        .map(|p| machine::preset(p).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()
        .map_err(usage)?;
    let workloads = match a.workloads.as_deref() {
        Some(w) => list(Some(w), ""),
        None => default_workloads(),
    };
    for w in &workloads {
        if finegrain_workloads::locality::unhinted(w).is_none() {
            return Err(usage(format!("{w:?} is not a locality workload (they are: {})", default_workloads().join(", "))));
        }
    }
    let managers = list(a.managers.as_deref(), DEFAULT_MANAGERS);
    for m in &managers {
        if !["hint", "baseline", "random", "reference"].contains(&m.as_str()) {
            return Err(usage(format!("unknown task space manager {m:?} (hint, baseline, random, reference)")));
        }
    }
    if !managers.iter().any(|m| m == "baseline") {
        return Err(usage("--managers must include baseline: every figure is relative to it".into()));
    }
    let stealing: Vec<Stealing> = list(a.stealing.as_deref(), "baseline,nearest,pattern,recursive")
        .iter()
        .map(|s| Stealing::parse(s).ok_or_else(|| format!("unknown stealing scheme {s:?} (baseline, nearest, pattern, recursive)")))
        .collect::<Result<_, _>>()
        .map_err(usage)?;
    let offline: Vec<usize> = list(a.offline.as_deref(), DEFAULT_OFFLINE)
        .iter()
        .map(|s| s.parse::<usize>().map_err(|_| format!("bad --offline {s:?}: expected thread counts")))
        .collect::<Result<_, _>>()
        .map_err(usage)?;
    let size = crate::specs::size(&a.size).map_err(usage)?;
    let policy =
        SimPolicy::parse(a.policies.as_deref().unwrap_or("ws")).map_err(|e| usage(format!("{e} (--policies takes one policy with --locality)")))?;
    let mut threads_of = Vec::new();
    for p in &presets {
        let t = match a.threads.as_deref() {
            Some(t) => super::threads(Some(t), p).map_err(usage)?,
            None => vec![p.max_threads()],
        };
        if let Some(&k) = offline.iter().find(|&&k| t.iter().any(|&n| k >= n)) {
            return Err(usage(format!("--offline {k} leaves no thread online on {} at {:?} threads", p.name, t)));
        }
        threads_of.push(t);
    }
    if !stealing.contains(&Stealing::Baseline) && !offline.is_empty() {
        return Err(usage("--stealing must include baseline: the offline figures are relative to it".into()));
    }
    std::fs::create_dir_all(&a.out).map_err(|e| usage(format!("cannot create the output directory {}: {e}", a.out.display())))?;

    let per_graph: usize = presets
        .iter()
        .zip(&threads_of)
        .map(|(_, t)| t.len() * (managers.iter().map(|m| if m == "random" { 3 } else { 1 }).sum::<usize>() + offline.len() * stealing.len()))
        .sum();
    let bar = progress((per_graph * workloads.len()) as u64, "simulating");
    let mut rows: Vec<Row> = Vec::new();
    let pool = super::parallel::pool(a.jobs).map_err(Failure::Fatal)?;
    for w in &workloads {
        bar.set_message(format!("recording {w}"));
        let (g, _) = crate::record::record_workload(w, size, a.seed).map_err(Failure::Fatal)?;
        if g.spaces.is_empty() {
            return Err(Failure::Fatal(format!("{w}: the recording has no task space")));
        }
        // Every simulation of this workload, planned first and then run as
        // tasks of one pool (`parallel`); rows are made in the planned order.
        struct Job {
            preset: &'static Preset,
            threads: usize,
            manager: String,
            stealing: Stealing,
            offline: usize,
            seed: u64,
            locality: Locality,
            /// The first job of a row, and how many seeds the row averages.
            row: Option<usize>,
        }
        let mut jobs: Vec<Job> = Vec::new();
        for (p, ts) in presets.iter().zip(&threads_of) {
            for &t in ts {
                let mut plans: Option<SpaceManager> = None;
                for m in &managers {
                    bar.set_message(format!("{w} on {} at {t}: planning {m}", p.name));
                    let seeds: Vec<u64> = if m == "random" { (0..3).map(|k| a.seed + k).collect() } else { vec![a.seed] };
                    let mgr = manager(m, &g, p, t).map_err(Failure::Fatal)?;
                    for (i, &s) in seeds.iter().enumerate() {
                        let locality = Locality { manager: mgr.clone(), stealing: Stealing::Baseline, offline: 0, log_starts: false };
                        let row = (i == 0).then_some(seeds.len());
                        jobs.push(Job {
                            preset: p,
                            threads: t,
                            manager: m.clone(),
                            stealing: Stealing::Baseline,
                            offline: 0,
                            seed: s,
                            locality,
                            row,
                        });
                    }
                    if m == "reference" {
                        plans = Some(mgr);
                    }
                }
                // Chapter 6 steals from the reference (recursive) schedule
                // where there is one, else from the workload's own plan.
                let (stealing_from, mgr) = match plans {
                    Some(pl) => ("reference", pl),
                    None => ("hint", SpaceManager::Hint),
                };
                for &k in &offline {
                    for &s in &stealing {
                        let locality = Locality { manager: mgr.clone(), stealing: s, offline: k, log_starts: false };
                        jobs.push(Job {
                            preset: p,
                            threads: t,
                            manager: stealing_from.into(),
                            stealing: s,
                            offline: k,
                            seed: a.seed,
                            locality,
                            row: Some(1),
                        });
                    }
                }
            }
        }
        bar.set_message(format!("{w}: {} simulations", jobs.len()));
        let results = pool.install(|| {
            super::parallel::map_ordered(&jobs, |j| j.threads, |j| run(&g, j.preset, j.threads, &policy, j.seed, j.locality.clone()), &|_| bar.inc(1))
        });
        let results = results.into_iter().collect::<Result<Vec<SimResult>, String>>().map_err(|e| Failure::Fatal(format!("{w}: {e}")))?;
        for (i, j) in jobs.iter().enumerate() {
            let Some(n) = j.row else { continue };
            let results = &results[i..i + n];
            let p = j.preset;
            let k = results.len() as f64;
            let mean = |f: &dyn Fn(&SimResult) -> f64| results.iter().map(f).sum::<f64>() / k;
            rows.push(Row {
                preset: p.name,
                workload: w.clone(),
                threads: j.threads,
                manager: j.manager.clone(),
                stealing: j.stealing,
                offline: j.offline,
                task_cycles: mean(&|r| r.task_cycles() as f64),
                makespan: mean(&|r| r.makespan as f64),
                space_tasks: results[0].space_tasks,
                space_stolen: (mean(&|r| r.space_stolen as f64)).round() as u64,
                mpki: [0, 1, 2].map(|l| mean(&|r| r.mpki()[l])),
                stall: mean(&|r| 1.0 - r.work_cycles as f64 / p.ipc_vs_recording_core / (r.task_cycles() as f64).max(1.0)),
            });
        }
    }
    bar.finish_and_clear();
    outln!("{}", managers_table(&rows, &managers));
    if !offline.is_empty() {
        outln!("{}", stealing_table(&rows, &stealing));
    }
    let path = a.out.join("locality.csv");
    std::fs::write(&path, csv(&rows)).map_err(|e| Failure::Fatal(format!("cannot write {}: {e}", path.display())))?;
    eprintln!("{} simulations; results in {}", rows.len(), path.display());
    Ok(true)
}

fn csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "preset,workload,threads,manager,stealing,offline,task_cycles,makespan_cycles,space_tasks,space_stolen,l1_mpki,l2_mpki,l3_mpki,stall_share\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{:.0},{:.0},{},{},{:.3},{:.3},{:.3},{:.4}",
            r.preset,
            r.workload,
            r.threads,
            r.manager,
            r.stealing.name(),
            r.offline,
            r.task_cycles,
            r.makespan,
            r.space_tasks,
            r.space_stolen,
            r.mpki[0],
            r.mpki[1],
            r.mpki[2],
            r.stall
        );
    }
    s
}

fn find<'a>(rows: &'a [Row], like: &Row, manager: &str, stealing: Stealing, offline: usize) -> Option<&'a Row> {
    rows.iter().find(|r| {
        r.preset == like.preset
            && r.workload == like.workload
            && r.threads == like.threads
            && r.manager == manager
            && r.stealing == stealing
            && r.offline == offline
    })
}

/// Geometric mean of positive ratios.
fn geomean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

/// Per preset and workload: each manager's speedup over the baseline in the
/// sum of task times and in makespan, and its L1/L2 MPKI.
fn managers_table(rows: &[Row], managers: &[String]) -> String {
    let mut cols: Vec<(String, bool)> = vec![("preset".into(), false), ("workload".into(), false), ("stall".into(), true)];
    for m in managers {
        cols.push((format!("{m} task"), true));
        cols.push((format!("{m} span"), true));
        cols.push((format!("{m} L1/L2 MPKI"), true));
    }
    let header: Vec<(&str, bool)> = cols.iter().map(|(c, r)| (c.as_str(), *r)).collect();
    let mut t = Table::new(&header);
    let mut bases: Vec<&Row> = rows.iter().filter(|r| r.manager == "baseline" && r.offline == 0 && r.stealing == Stealing::Baseline).collect();
    bases.sort_by_key(|r| (r.preset, r.threads));
    let mut ratios: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); managers.len()];
    let mut last_preset = "";
    for b in &bases {
        if !last_preset.is_empty() && last_preset != b.preset {
            push_means(&mut t, last_preset, &mut ratios);
        }
        last_preset = b.preset;
        let mut row = vec![b.preset.to_string(), b.workload.clone(), format!("{:.0}%", 100.0 * b.stall)];
        for (i, m) in managers.iter().enumerate() {
            match find(rows, b, m, Stealing::Baseline, 0) {
                Some(r) => {
                    let (task, span) = (b.task_cycles / r.task_cycles, b.makespan / r.makespan);
                    ratios[i].0.push(task);
                    ratios[i].1.push(span);
                    row.push(format!("{task:.2}"));
                    row.push(format!("{span:.2}"));
                    row.push(format!("{:.1}/{:.1}", r.mpki[0], r.mpki[1]));
                }
                None => row.extend(["-".into(), "-".into(), "-".into()]),
            }
        }
        t.push(row);
    }
    if !last_preset.is_empty() {
        push_means(&mut t, last_preset, &mut ratios);
    }
    format!("Task space managers (speedup over the baseline manager: sum of task times, makespan; misses per 1,000 instructions)\n{}", t.render())
}

fn push_means(t: &mut Table, preset: &str, ratios: &mut [(Vec<f64>, Vec<f64>)]) {
    let mut row = vec![preset.to_string(), "geomean".to_string(), String::new()];
    for (task, span) in ratios.iter_mut() {
        row.push(format!("{:.2}", geomean(task)));
        row.push(format!("{:.2}", geomean(span)));
        row.push(String::new());
        task.clear();
        span.clear();
    }
    t.push(row);
}

/// Per preset, workload and offline count: each stealing scheme's speedup
/// over baseline stealing (sum of task times, makespan), and its share of
/// tasks stolen.
fn stealing_table(rows: &[Row], schemes: &[Stealing]) -> String {
    let mut cols: Vec<(String, bool)> = vec![("preset".into(), false), ("workload".into(), false), ("offline".into(), true)];
    for s in schemes {
        cols.push((format!("{} task", s.name()), true));
        cols.push((format!("{} span", s.name()), true));
        cols.push((format!("{} stolen", s.name()), true));
    }
    let header: Vec<(&str, bool)> = cols.iter().map(|(c, r)| (c.as_str(), *r)).collect();
    let mut t = Table::new(&header);
    let mut means: Vec<Vec<(f64, f64)>> = vec![Vec::new(); schemes.len()];
    let mut bases: Vec<&Row> = rows.iter().filter(|r| r.offline > 0 && r.stealing == Stealing::Baseline).collect();
    bases.sort_by_key(|r| (r.preset, r.threads, r.offline));
    for b in &bases {
        let mut row = vec![b.preset.to_string(), b.workload.clone(), b.offline.to_string()];
        for (i, &s) in schemes.iter().enumerate() {
            match find(rows, b, &b.manager, s, b.offline) {
                Some(r) => {
                    let (task, span) = (b.task_cycles / r.task_cycles, b.makespan / r.makespan);
                    means[i].push((task, span));
                    row.push(format!("{task:.2}"));
                    row.push(format!("{span:.2}"));
                    row.push(format!("{:.0}%", 100.0 * r.space_stolen as f64 / r.space_tasks.max(1) as f64));
                }
                None => row.extend(["-".into(), "-".into(), "-".into()]),
            }
        }
        t.push(row);
    }
    let mut row = vec!["all".to_string(), "geomean".to_string(), String::new()];
    for m in &means {
        let task: Vec<f64> = m.iter().map(|x| x.0).collect();
        let span: Vec<f64> = m.iter().map(|x| x.1).collect();
        row.push(format!("{:.2}", geomean(&task)));
        row.push(format!("{:.2}", geomean(&span)));
        row.push(String::new());
    }
    t.push(row);
    format!(
        "Stealing with offline threads (speedup over baseline stealing: sum of task times, makespan; share of space tasks stolen)\n{}",
        t.render()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geomean_of_ratios() {
        assert!((geomean(&[2.0, 0.5]) - 1.0).abs() < 1e-12);
        assert!(geomean(&[]).is_nan());
    }
}
