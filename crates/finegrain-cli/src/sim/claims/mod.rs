//! `finegrain sim --claims`: every many-core claim of the papers that the
//! model can address, each simulated on its paper's machine with the
//! paper's workload at `--size` (`paper` for the papers' scale), set beside
//! the paper's value and judged against a tolerance band (`list.rs`).
//!
//! The runs of all claims are collected first; each workload's trace is
//! loaded once and all of its runs are simulated as one sweep on a finegrain
//! pool (`runs.rs`), so a sweep uses every core while each simulation stays
//! single-threaded and deterministic. Every claim with a workload shows the
//! Ideal bound (`ideal`, a zero-cost scheduler: Kumar, Hughes, Nguyen, ISCA
//! 2007, section 6.1) at its thread count beside the speedups of the
//! policies it compares, each over Ideal at one thread, and every trace's
//! work, span and parallelism is printed before any simulation. The table
//! goes to stdout and to `claims.md` and `claims.csv` in the output
//! directory. A claim that does not hold is reported, not an error: the
//! command fails only when it cannot run.

mod list;
mod output;
mod runs;
mod sweep;
mod verdict;

use crate::cli::SimArgs;
use crate::Failure;
use list::{Claim, IDEAL};
use runs::{Results, Run, Switch};
use std::collections::BTreeSet;
use std::time::Instant;
use verdict::{Lookup, Status};

/// One evaluated claim.
pub struct Row<'a> {
    pub claim: &'a Claim,
    pub status: Status,
    pub value: Option<f64>,
    pub detail: String,
    /// Ideal's speedup and the claim's policies' at the bound's thread count.
    pub bound: String,
    /// For a claim that does not hold: its quantity with one model feature
    /// switched off at a time.
    pub isolation: String,
}

pub fn main(a: &SimArgs) -> Result<bool, Failure> {
    let fatal = Failure::Fatal;
    let size = crate::specs::size(&a.size).map_err(Failure::Usage)?;
    let mut claims = list::all();
    if let Some(only) = a.workloads.as_deref() {
        let only: Vec<&str> = only.split(',').map(str::trim).filter(|w| !w.is_empty()).collect();
        let known: BTreeSet<&str> = claims.iter().flat_map(|c| c.runs.iter().map(|r| r.workload)).collect();
        if let Some(w) = only.iter().find(|w| !known.contains(**w)) {
            return Err(Failure::Usage(format!(
                "no claim uses workload {w:?} (the claims' workloads: {})",
                known.into_iter().collect::<Vec<_>>().join(", ")
            )));
        }
        claims.retain(|c| c.runs.iter().any(|r| only.contains(&r.workload)));
    }
    let mut all: BTreeSet<Run> = BTreeSet::new();
    for c in &claims {
        all.extend(c.runs.iter().cloned());
        if let Some((w, p, t)) = c.bound {
            all.insert(Run::new(w, p, IDEAL, t));
            all.insert(Run::new(w, p, IDEAL, 1));
        }
    }
    let jobs = super::parallel::jobs(a.jobs);
    let pool = finegrain::Pool::builder().threads(sweep::workers(jobs)).build().map_err(|e| fatal(format!("cannot start the sweep's pool: {e}")))?;
    eprintln!("{} claims, {} simulations at size {} on {jobs} workers", claims.len(), all.len(), size.name());
    let trace = |w: &'static str| trace(w, size, a.seed);
    // Every trace recorded first, one at a time with nothing else running,
    // into the trace cache the sweep then reads: a recording's costs are the
    // host's, and a core simulating beside it lengthens them (one sweep that
    // recorded as it simulated gave canny a parallelism of 436 where a quiet
    // recording gives 1,250, string_match 237 where it gives 733). With the
    // cache off the sweep records as it goes.
    if crate::record::cache_on() {
        let workloads: BTreeSet<&'static str> = all.iter().map(|r| r.workload).collect();
        for w in workloads {
            let (_, line) = trace(w).map_err(fatal)?;
            eprintln!("{line}");
        }
    }
    let (t0, cpu0) = (Instant::now(), super::parallel::cpu_seconds());
    let mut swept = sweep::sweep_phase(&pool, all, &trace, a.seed, "claims").map_err(fatal)?;
    let mut rows = evaluate(&claims, &swept.results);
    // Why a claim fails: its runs again with one model feature switched off
    // at a time (the traces are recorded again, or read from the cache).
    let mut isolating: BTreeSet<Run> = BTreeSet::new();
    for r in rows.iter().filter(|r| r.status == Status::DoesNotHold) {
        for &sw in &Switch::ISOLATING {
            let l = Lookup { results: &swept.results, switch: sw };
            isolating.extend(r.claim.runs.iter().map(|x| l.resolve(x)).filter(|x| !swept.results.contains_key(x)));
        }
    }
    if !isolating.is_empty() {
        eprintln!("{} simulations isolating why claims do not hold", isolating.len());
        let more = sweep::sweep_phase(&pool, isolating, &trace, a.seed, "isolating").map_err(fatal)?;
        swept.results.extend(more.results);
        swept.events += more.events;
        for r in rows.iter_mut().filter(|r| r.status == Status::DoesNotHold) {
            r.isolation = isolate(r.claim, &swept.results);
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    let cpu = match (cpu0, super::parallel::cpu_seconds()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let md = output::markdown(&rows, &swept.traces);
    outln!("{md}");
    let mut cost = format!("{} simulations, {:.1} M events in {wall:.1} s wall", swept.results.len(), swept.events as f64 / 1e6);
    if let Some(c) = cpu {
        cost.push_str(&format!(", {c:.1} s CPU ({:.2} CPU/wall)", c / wall.max(1e-9)));
    }
    if let Some(m) = super::parallel::peak_rss_mb() {
        cost.push_str(&format!(", peak RSS {m:.0} MB"));
    }
    eprintln!("{cost}");
    std::fs::write(a.out.join("claims.md"), &md).map_err(|e| fatal(format!("cannot write claims.md: {e}")))?;
    output::write_csv(&a.out.join("claims.csv"), &rows).map_err(fatal)?;
    eprintln!("written to {}", a.out.join("claims.{md,csv}").display());
    let errors = rows.iter().filter(|r| matches!(r.status, Status::Error(_))).count();
    if errors > 0 {
        eprintln!("{errors} claims could not be evaluated (see the table)");
    }
    Ok(errors == 0)
}

/// A line of progress above the bar, or on stderr where the bar is hidden
/// (not a terminal), so that a logged run shows how far it got.
fn say(bar: &indicatif::ProgressBar, line: &str) {
    if bar.is_hidden() {
        eprintln!("{line}");
    } else {
        bar.println(line);
    }
}

/// The claim's quantity with each isolating switch: "ideal network 1.02,
/// perfect memory 1.31".
fn isolate(c: &Claim, results: &Results) -> String {
    let parts: Vec<String> = Switch::ISOLATING
        .iter()
        .map(|&sw| {
            let l = Lookup { results, switch: sw };
            match (c.eval)(&l) {
                Ok((v, _)) => format!("{} {v:.2}", sw.name()),
                Err(e) => format!("{}: {e}", sw.name()),
            }
        })
        .collect();
    parts.join("; ")
}

/// A workload's trace at `size` (from the trace cache when it holds it) and
/// the line that describes it: tasks, work, span, parallelism, the root's
/// share.
fn trace(workload: &str, size: finegrain_workloads::Size, seed: u64) -> Result<(finegrain::taskgraph::TaskGraph, String), String> {
    let (g, ws) = crate::record::cached_trace(workload, size, seed)?;
    let line = format!("{workload} ({}): {} tasks; {ws}", g.meta.size, g.tasks.len());
    Ok((g, line))
}

fn evaluate<'a>(claims: &'a [Claim], results: &Results) -> Vec<Row<'a>> {
    let l = Lookup { results, switch: Switch::None };
    claims
        .iter()
        .map(|c| {
            if let Some(why) = c.not_modelled {
                return Row {
                    claim: c,
                    status: Status::NotModelled(why),
                    value: None,
                    detail: why.to_string(),
                    bound: String::new(),
                    isolation: String::new(),
                };
            }
            let bound = c.bound.map(|b| bound_text(&l, c, b)).unwrap_or_default();
            match (c.eval)(&l) {
                Ok((v, detail)) => {
                    let status = if c.band.holds(v) { Status::Holds } else { Status::DoesNotHold };
                    Row { claim: c, status, value: Some(v), detail, bound, isolation: String::new() }
                }
                Err(e) => Row { claim: c, status: Status::Error(e.clone()), value: None, detail: e, bound, isolation: String::new() },
            }
        })
        .collect()
}

/// "ideal 212x; adm-hier 150x, ws 40x": speedups over Ideal at one thread.
fn bound_text(l: &Lookup, c: &Claim, (w, p, t): (&'static str, &'static str, usize)) -> String {
    let Ok(one) = l.time(&Run::new(w, p, IDEAL, 1)) else { return "ideal: no run".into() };
    let mut parts = Vec::new();
    if let Ok(x) = l.time(&Run::new(w, p, IDEAL, t)) {
        parts.push(format!("ideal {:.0}x", one / x));
    }
    let mut seen = BTreeSet::new();
    for r in
        c.runs.iter().filter(|r| r.workload == w && r.preset == p && r.threads == t && r.variant == runs::Variant::Paper && r.switch == Switch::None)
    {
        if seen.insert(r.policy.clone()) {
            if let Ok(x) = l.time(r) {
                parts.push(format!("{} {:.0}x", r.policy, one / x));
            }
        }
    }
    format!("at {t} thr: {}", parts.join(", "))
}
