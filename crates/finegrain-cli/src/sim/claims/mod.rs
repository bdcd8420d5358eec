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
mod verdict;

use crate::cli::SimArgs;
use crate::Failure;
use list::{Claim, IDEAL};
use runs::{Results, Run};
use std::collections::{BTreeMap, BTreeSet};
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
}

pub fn main(a: &SimArgs) -> Result<bool, Failure> {
    let fatal = Failure::Fatal;
    let size = crate::specs::size(&a.size).map_err(Failure::Usage)?;
    let claims = list::all();
    let mut all: BTreeSet<Run> = BTreeSet::new();
    for c in &claims {
        all.extend(c.runs.iter().cloned());
        if let Some((w, p, t)) = c.bound {
            all.insert(Run::new(w, p, IDEAL, t));
            all.insert(Run::new(w, p, IDEAL, 1));
        }
    }
    let mut by_workload: BTreeMap<&'static str, Vec<Run>> = BTreeMap::new();
    for r in all {
        by_workload.entry(r.workload).or_default().push(r);
    }
    let pool = super::parallel::pool(a.jobs).map_err(fatal)?;
    let cores = pool.threads();
    let total: usize = by_workload.values().map(Vec::len).sum();
    eprintln!("{} claims, {total} simulations of {} workloads at size {} on {cores} workers", claims.len(), by_workload.len(), size.name());
    let (t0, cpu0) = (Instant::now(), super::parallel::cpu_seconds());
    let mut results: Results = BTreeMap::new();
    let mut traces = Vec::new();
    let mut events = 0u64;
    let bar = super::progress(total as u64, "claims");
    let work: Vec<(&'static str, Vec<Run>)> = by_workload.into_iter().collect();
    // Record the next workload (on a thread of its own: a recording runs
    // outside any pool) while this one's runs are simulated on the pool, so
    // that at most two traces are held at once and recording does not idle
    // the pool.
    let swept = std::thread::scope(|s| -> Result<(), String> {
        let record = |w: &'static str| s.spawn(move || trace(w, size, a.seed));
        let mut next = work.first().map(|(w, _)| record(w));
        for (i, (w, rs)) in work.iter().enumerate() {
            let recorded = next.take().expect("the next trace is being recorded").join();
            let (g, line) = recorded.map_err(|_| format!("recording {w} panicked"))??;
            next = work.get(i + 1).map(|(w2, _)| record(w2));
            bar.println(&line);
            traces.push(line);
            bar.set_message(w.to_string());
            let out = pool.install(|| runs::sweep(&g, rs, a.seed, &|_| bar.inc(1)));
            for (r, res) in rs.iter().zip(out) {
                if let Ok(x) = &res {
                    events += x.events;
                }
                results.insert(r.clone(), res);
            }
        }
        Ok(())
    });
    swept.map_err(fatal)?;
    bar.finish_and_clear();
    let wall = t0.elapsed().as_secs_f64();
    let cpu = match (cpu0, super::parallel::cpu_seconds()) {
        (Some(a), Some(b)) => Some(b - a),
        _ => None,
    };
    let rows = evaluate(&claims, &results);
    let md = output::markdown(&rows, &traces);
    println!("{md}");
    let mut cost = format!("{total} simulations, {:.1} M events in {wall:.1} s wall", events as f64 / 1e6);
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

/// A workload's trace at `size` and the line that describes it.
fn trace(workload: &str, size: finegrain_workloads::Size, seed: u64) -> Result<(finegrain::taskgraph::TaskGraph, String), String> {
    let (g, _) = super::source::record_workload(workload, size, seed)?;
    let line = super::source::describe(&g);
    Ok((g, line))
}

fn evaluate<'a>(claims: &'a [Claim], results: &Results) -> Vec<Row<'a>> {
    let l = Lookup { results };
    claims
        .iter()
        .map(|c| {
            if let Some(why) = c.not_modelled {
                return Row { claim: c, status: Status::NotModelled(why), value: None, detail: why.to_string(), bound: String::new() };
            }
            let bound = c.bound.map(|b| bound_text(&l, c, b)).unwrap_or_default();
            match (c.eval)(&l) {
                Ok((v, detail)) => {
                    let status = if c.band.holds(v) { Status::Holds } else { Status::DoesNotHold };
                    Row { claim: c, status, value: Some(v), detail, bound }
                }
                Err(e) => Row { claim: c, status: Status::Error(e.clone()), value: None, detail: e, bound },
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
    for r in c.runs.iter().filter(|r| r.workload == w && r.preset == p && r.threads == t && r.variant == runs::Variant::Paper) {
        if seen.insert(r.policy.clone()) {
            if let Ok(x) = l.time(r) {
                parts.push(format!("{} {:.0}x", r.policy, one / x));
            }
        }
    }
    format!("at {t} thr: {}", parts.join(", "))
}
