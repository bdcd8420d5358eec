//! results.csv (one row per run) and results.json (runs, summary, metadata).

use super::plan::Plan;
use super::record::{counter_names, profile_names, RunRecord};
use super::summary::SummaryRow;
use crate::meta::Metadata;
use finegrain::Bucket;
use serde::Serialize;
use std::path::Path;

/// Create the output directory `dir` if it is missing and check, before
/// anything runs, that the results can be written there: a file can be
/// created in it, and each of `files` that already exists can be opened for
/// writing (it is not changed). A run can take hours; an unwritable directory
/// found when the results are written would lose it.
pub fn prepare_out_dir(dir: &Path, files: &[&str]) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let probe = dir.join(format!(".finegrain-write-test-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| format!("cannot write in the output directory {}: {e}", dir.display()))?;
    let _ = std::fs::remove_file(&probe);
    for f in files {
        let path = dir.join(f);
        if path.exists() {
            std::fs::OpenOptions::new().append(true).open(&path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// The fixed CSV columns; counters, `<bucket>_ns` columns and the task
/// characterisation (`TaskProfile`) follow.
pub const BASE_COLUMNS: [&str; 10] = ["workload", "size", "input", "runtime", "config", "policy", "threads", "rep", "time_ns", "check"];

pub fn csv_header() -> Vec<String> {
    let mut h: Vec<String> = BASE_COLUMNS.iter().map(|s| s.to_string()).collect();
    h.extend(counter_names().iter().map(|s| s.to_string()));
    h.extend(Bucket::ALL.iter().map(|b| format!("{}_ns", b.name())));
    h.extend(profile_names().iter().map(|s| s.to_string()));
    h
}

pub fn write_csv(path: &Path, records: &[RunRecord]) -> Result<(), String> {
    let err = |e: csv::Error| format!("cannot write {}: {e}", path.display());
    let mut w = csv::Writer::from_path(path).map_err(err)?;
    w.write_record(csv_header()).map_err(err)?;
    let extra = counter_names().len() + Bucket::ALL.len() + profile_names().len();
    for r in records {
        let mut row = vec![
            r.workload.clone(),
            r.size.clone(),
            r.input.clone(),
            r.runtime.clone(),
            r.config.clone(),
            r.policy.clone().unwrap_or_default(),
            r.threads.to_string(),
            r.rep.to_string(),
            r.time_ns.to_string(),
            r.check.clone(),
        ];
        match &r.stats {
            Some(s) => {
                row.extend(s.counters().iter().map(|c| c.1.to_string()));
                row.extend(s.time_ns.0.iter().map(u64::to_string));
                row.extend(s.profile.columns().into_iter().map(|c| c.1));
            }
            // Runtimes without counters leave the columns empty, not zero.
            None => row.extend(std::iter::repeat_n(String::new(), extra)),
        }
        w.write_record(&row).map_err(err)?;
    }
    w.flush().map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[derive(Serialize)]
struct Parameters<'a> {
    workloads: Vec<&'a str>,
    policies: Vec<PolicyEntry<'a>>,
    threads: &'a [usize],
    size: &'a str,
    reps: usize,
    warmup: usize,
    seed: u64,
    rayon: bool,
    chili: bool,
    peers: Vec<&'a str>,
    peer_notes: &'a [String],
    /// `--input`: the file and what it held, if one was given.
    input: Option<InputEntry>,
}

#[derive(Serialize)]
struct InputEntry {
    path: String,
    contents: String,
}

#[derive(Serialize)]
struct PolicyEntry<'a> {
    label: &'a str,
    canonical: String,
}

#[derive(Serialize)]
struct Document<'a> {
    metadata: &'a Metadata,
    parameters: Parameters<'a>,
    /// Whether finegrain counted scheduler events (its `stats` feature); without
    /// it every breakdown is empty.
    stats_enabled: bool,
    buckets: Vec<&'static str>,
    runs: &'a [RunRecord],
    summary: &'a [SummaryRow],
    failures: &'a [String],
}

pub fn write_json(
    path: &Path,
    meta: &Metadata,
    plan: &Plan,
    stats_enabled: bool,
    runs: &[RunRecord],
    summary: &[SummaryRow],
    failures: &[String],
) -> Result<(), String> {
    let doc = Document {
        metadata: meta,
        parameters: Parameters {
            workloads: plan.workloads.iter().map(|w| w.name()).collect(),
            policies: plan.policies.iter().map(|p| PolicyEntry { label: &p.label, canonical: p.canonical() }).collect(),
            threads: &plan.threads,
            size: plan.size.name(),
            reps: plan.reps,
            warmup: plan.warmup,
            seed: plan.seed,
            rayon: plan.rayon,
            chili: plan.chili,
            peers: plan.peers.iter().map(|p| p.name).collect(),
            peer_notes: &plan.peer_notes,
            input: plan.input.as_ref().map(|f| InputEntry { path: f.path.display().to_string(), contents: f.input.describe() }),
        },
        stats_enabled,
        buckets: Bucket::ALL.iter().map(|b| b.name()).collect(),
        runs,
        summary,
        failures,
    };
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))
}
