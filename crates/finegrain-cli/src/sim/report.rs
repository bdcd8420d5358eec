//! A sweep's results as `bench` shows its own: a text table, `sim.csv`,
//! `sim.json`, a speedup plot (ASPLOS 2010 Figure 5) and a time breakdown
//! (Figure 6).

use crate::plot::curves::{CurvePanel, Curves};
use crate::plot::stacked::{StackPanel, StackedBars};
use crate::plot::{self, palette};
use crate::text_table::Table;
use finegrain_sim::engine::{Bucket, Op, SimResult};
use finegrain_sim::machine::{presets, Preset};
use serde::Serialize;
use std::path::Path;

/// One simulation, flattened for the table and the files.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub policy: String,
    pub spec: String,
    pub threads: usize,
    pub makespan_cycles: u64,
    /// Against the same policy at 1 thread, when the sweep has it.
    pub speedup: Option<f64>,
    /// Share of all workers' time per bucket (`task`, `enqueue`, ...).
    pub shares: Vec<(String, f64)>,
    /// Mean cycles per scheduler operation (ASPLOS 2010 Table 5's columns).
    pub op_cycles: Vec<(String, f64, u64)>,
    pub tasks_run: u64,
    pub stolen_pct: f64,
    pub messages: u64,
    /// ADM's messages by kind: name, count, mean cycles from send to handler.
    pub message_kinds: Vec<(String, u64, f64)>,
    /// Misses per thousand instructions at each cache level, DRAM accesses
    /// and network flit-hops per thousand instructions. Instructions are the
    /// trace's work cycles at an IPC of 1 on the recording machine (stated in
    /// docs/simulation.md).
    pub l1_mpki: f64,
    pub l2_mpki: f64,
    pub l3_mpki: f64,
    pub dram_pki: f64,
    pub flit_hops_pki: f64,
    /// Events the simulation processed (turns, cache accesses, messages).
    /// Host time is left out of the files so that they are byte-identical
    /// from run to run; `finegrain sim` prints events per second on stderr.
    pub events: u64,
    /// The sum of task execution times over all threads (work and memory
    /// stalls): the thesis's locality measure (Yoo, §5.4).
    pub task_cycles: u64,
    /// Tasks of recorded task spaces run, and those run away from the
    /// thread their plan gave them to.
    pub space_tasks: u64,
    pub space_stolen: u64,
    /// Under `pdf`: the most tasks started ahead of the earliest unstarted
    /// one in serial order, and the bound `threads x D` (`D` the task
    /// tree's depth; Blelloch, Gibbons, Matias, JACM 1999).
    pub premature_most: Option<u64>,
    pub premature_bound: Option<u64>,
    /// On a preset with NUMA memory (`t5440`): the share of the lines read
    /// from memory that the reader's own locality group served (Yoo's
    /// thesis §3.3.2, the locality-group hit rate).
    pub group_hit_rate: Option<f64>,
}

pub fn rows(results: &[SimResult], labels: &[String]) -> Vec<Row> {
    let mut out = Vec::new();
    for r in results {
        let label = labels.iter().find(|l| finegrain_sim::engine::SimPolicy::parse(l).map(|p| p.name()).ok().as_deref() == Some(&r.policy));
        let one = results.iter().find(|q| q.policy == r.policy && q.threads == 1);
        let kinstr = (r.work_cycles as f64 / 1000.0).max(1e-9);
        let m = super::report::mem(r);
        out.push(Row {
            policy: label.cloned().unwrap_or_else(|| r.policy.clone()),
            spec: r.policy.clone(),
            threads: r.threads,
            makespan_cycles: r.makespan,
            speedup: one.map(|o| o.makespan as f64 / r.makespan.max(1) as f64),
            shares: Bucket::ALL.iter().map(|&b| (b.name().to_string(), r.share(b))).collect(),
            op_cycles: Op::ALL.iter().map(|&o| (o.name().to_string(), r.op(o).mean(), r.op(o).count)).collect(),
            tasks_run: r.tasks_run,
            stolen_pct: 100.0 * r.tasks_stolen as f64 / r.tasks_run.max(1) as f64,
            messages: r.messages,
            message_kinds: r.message_kinds.iter().map(|k| (k.name.to_string(), k.count, k.mean_latency())).collect(),
            l1_mpki: m[0] / kinstr,
            l2_mpki: m[1] / kinstr,
            l3_mpki: m[2] / kinstr,
            dram_pki: m[3] / kinstr,
            flit_hops_pki: m[4] / kinstr,
            events: r.events,
            task_cycles: r.task_cycles(),
            space_tasks: r.space_tasks,
            premature_most: r.premature.map(|p| p.0),
            premature_bound: r.premature.map(|p| r.threads as u64 * p.1 as u64),
            space_stolen: r.space_stolen,
            group_hit_rate: {
                let all = r.mem.dram_local + r.mem.dram_remote;
                (all > 0).then(|| r.mem.dram_local as f64 / all as f64)
            },
        });
    }
    out
}

/// Misses at L1, L2, L3, DRAM accesses and network flit-hops of a run.
pub fn mem(r: &SimResult) -> [f64; 5] {
    let s = &r.mem;
    [s.l1.misses as f64, s.l2.misses as f64, s.l3.misses as f64, (s.dram_reads + s.dram_writes) as f64, s.flit_hops as f64]
}

fn pct(x: f64) -> String {
    format!("{:.1}", 100.0 * x)
}

pub fn table(rows: &[Row], source: &str, preset: &Preset) -> String {
    let mut t = Table::new(&[
        ("policy", false),
        ("threads", true),
        ("Mcycles", true),
        ("speedup", true),
        ("task%", true),
        ("queue%", true),
        ("steal%", true),
        ("idle%", true),
        ("handler%", true),
        ("stolen%", true),
        ("L1 MPKI", true),
        ("L2 MPKI", true),
        ("L3 MPKI", true),
        ("DRAM/ki", true),
    ]);
    let mut last = None;
    for r in rows {
        if last.is_some() && last != Some(&r.policy) {
            t.separator();
        }
        last = Some(&r.policy);
        let share = |names: &[&str]| r.shares.iter().filter(|(n, _)| names.contains(&n.as_str())).map(|(_, v)| v).sum::<f64>();
        t.push(vec![
            r.policy.clone(),
            r.threads.to_string(),
            format!("{:.3}", r.makespan_cycles as f64 / 1e6),
            r.speedup.map_or("-".into(), |s| format!("{s:.2}")),
            pct(share(&["task"])),
            pct(share(&["enqueue", "dequeue"])),
            pct(share(&["steal_ok"])),
            pct(share(&["steal_fail", "starved"])),
            pct(share(&["handler_worker", "handler_manager"])),
            format!("{:.1}", r.stolen_pct),
            format!("{:.2}", r.l1_mpki),
            format!("{:.2}", r.l2_mpki),
            format!("{:.2}", r.l3_mpki),
            format!("{:.2}", r.dram_pki),
        ]);
    }
    let mut out = format!("{source} on {} ({}):\n{}", preset.name, preset.summary, t.render());
    out.push_str(&message_table(rows));
    out.push_str(&premature_lines(rows));
    out.push_str(&group_lines(rows));
    out
}

/// On a NUMA preset, each run's locality-group hit rate.
fn group_lines(rows: &[Row]) -> String {
    let mut out = String::new();
    for r in rows {
        if let Some(h) = r.group_hit_rate {
            out.push_str(&format!(
                "\n{} at {} threads: {:.1}% of the lines read from memory came from the reader's own locality group",
                r.policy,
                r.threads,
                100.0 * h
            ));
        }
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// Under `pdf`, the premature-task count beside its bound.
fn premature_lines(rows: &[Row]) -> String {
    let mut out = String::new();
    for r in rows {
        if let (Some(m), Some(b)) = (r.premature_most, r.premature_bound) {
            let verdict = if m <= b { "within" } else { "over" };
            out.push_str(&format!("\n{} at {} threads: at most {m} tasks started ahead of serial order, {verdict} p x D = {b}", r.policy, r.threads));
        }
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// Messages by kind for the runs that send them (ADM): how many were sent,
/// and their mean cycles from send to the start of their handler.
fn message_table(rows: &[Row]) -> String {
    let Some(first) = rows.iter().find(|r| !r.message_kinds.is_empty()) else { return String::new() };
    let mut cols: Vec<(&str, bool)> = vec![("policy", false), ("threads", true)];
    let names: Vec<String> = first.message_kinds.iter().map(|k| format!("{} n / cycles", k.0)).collect();
    cols.extend(names.iter().map(|n| (n.as_str(), true)));
    let mut t = Table::new(&cols);
    for r in rows.iter().filter(|r| !r.message_kinds.is_empty()) {
        let mut row = vec![r.policy.clone(), r.threads.to_string()];
        row.extend(r.message_kinds.iter().map(|(_, n, lat)| format!("{n} / {lat:.0}")));
        t.push(row);
    }
    format!("\nmessages by kind (count / mean cycles from send to handler):\n{}", t.render())
}

pub fn presets_help() -> String {
    let mut s = String::from("machine presets for --preset:\n");
    for p in presets() {
        s.push_str(&format!(
            "  {:<16} {:>5} threads  {}\n  {:<16} {:>5}          source: {}\n",
            p.name,
            p.max_threads(),
            p.summary,
            "",
            "",
            p.source
        ));
    }
    s
}

#[derive(Serialize)]
struct Json<'a> {
    source: &'a str,
    preset: &'a str,
    preset_source: &'a str,
    rows: &'a [Row],
}

pub fn write_files(dir: &Path, rows: &[Row], source: &str, preset: &Preset, no_plots: bool) -> Result<(), String> {
    let json = serde_json::to_string_pretty(&Json { source, preset: preset.name, preset_source: preset.source, rows }).map_err(|e| e.to_string())?;
    let path = dir.join("sim.json");
    std::fs::write(&path, json).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let path = dir.join("sim.csv");
    let mut w = csv::Writer::from_path(&path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let mut header = vec!["policy", "spec", "threads", "makespan_cycles", "speedup"].into_iter().map(String::from).collect::<Vec<_>>();
    header.extend(Bucket::ALL.iter().map(|b| format!("share_{}", b.name())));
    header.extend(Op::ALL.iter().map(|o| format!("cycles_per_{}", o.name())));
    header.extend(
        [
            "tasks_run",
            "stolen_pct",
            "messages",
            "l1_mpki",
            "l2_mpki",
            "l3_mpki",
            "dram_pki",
            "flit_hops_pki",
            "events",
            "task_cycles",
            "space_tasks",
            "space_stolen",
        ]
        .map(String::from),
    );
    w.write_record(&header).map_err(|e| e.to_string())?;
    for r in rows {
        let mut rec = vec![
            r.policy.clone(),
            r.spec.clone(),
            r.threads.to_string(),
            r.makespan_cycles.to_string(),
            r.speedup.map_or(String::new(), |s| format!("{s:.4}")),
        ];
        rec.extend(r.shares.iter().map(|(_, v)| format!("{v:.5}")));
        rec.extend(r.op_cycles.iter().map(|(_, v, _)| format!("{v:.1}")));
        rec.extend([
            r.tasks_run.to_string(),
            format!("{:.3}", r.stolen_pct),
            r.messages.to_string(),
            format!("{:.4}", r.l1_mpki),
            format!("{:.4}", r.l2_mpki),
            format!("{:.4}", r.l3_mpki),
            format!("{:.4}", r.dram_pki),
            format!("{:.4}", r.flit_hops_pki),
            r.events.to_string(),
            r.task_cycles.to_string(),
            r.space_tasks.to_string(),
            r.space_stolen.to_string(),
        ]);
        w.write_record(&rec).map_err(|e| e.to_string())?;
    }
    w.flush().map_err(|e| e.to_string())?;
    if no_plots {
        return Ok(());
    }
    let mut policies: Vec<String> = Vec::new();
    for r in rows {
        if !policies.contains(&r.policy) {
            policies.push(r.policy.clone());
        }
    }
    let mut threads: Vec<usize> = rows.iter().map(|r| r.threads).collect();
    threads.sort_unstable();
    threads.dedup();
    if threads.len() > 1 && rows.iter().any(|r| r.speedup.is_some()) {
        let curves = policies
            .iter()
            .enumerate()
            .map(|(i, p)| (i, rows.iter().filter(|r| &r.policy == p).filter_map(|r| r.speedup.map(|s| (r.threads as f64, s))).collect()))
            .collect();
        let fig = Curves {
            title: format!("Simulated speedup: {source} on {}", preset.name),
            x_desc: "threads".into(),
            y_desc: "speedup over 1 thread".into(),
            series: policies.clone(),
            panels: vec![CurvePanel { title: String::new(), curves }],
            threshold: None,
            y_percent: false,
        };
        plot::save(&fig, dir, "sim-speedup")?;
    }
    let values = policies
        .iter()
        .map(|p| {
            threads
                .iter()
                .map(|&t| rows.iter().find(|r| &r.policy == p && r.threads == t).map(|r| r.shares.iter().map(|(_, v)| *v).collect()))
                .collect()
        })
        .collect();
    let fig = StackedBars {
        title: format!("Where simulated time goes: {source} on {}", preset.name),
        y_desc: "share of total worker time".into(),
        groups: threads.iter().map(|t| format!("{t} threads")).collect(),
        bars: policies,
        layers: Bucket::ALL.iter().map(|b| (b.name().to_string(), palette::bucket(b.name()))).collect(),
        panels: vec![StackPanel { title: String::new(), values }],
    };
    plot::save(&fig, dir, "sim-breakdown")?;
    Ok(())
}
