//! `finegrain record`: run a workload once, serially, with finegrain's
//! recorder on (`finegrain::record`), check its result against the serial
//! reference, and write its task graph as a trace (`finegrain_sim::trace`)
//! for `finegrain sim`.

use crate::cli::RecordArgs;
use crate::Failure;
use finegrain::taskgraph::{Clock, LineMap, Meta, TaskGraph, TaskKind};
use finegrain_workloads::Size;
use std::time::Instant;

pub fn main(a: &RecordArgs) -> Result<bool, Failure> {
    let size = crate::specs::size(&a.size).map_err(Failure::Usage)?;
    crate::specs::workloads(Some(&a.workload)).map_err(Failure::Usage)?;
    // Check the output path before the (possibly long) run.
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            return Err(Failure::Usage(format!("cannot write {}: no directory {}", a.out.display(), dir.display())));
        }
    }
    std::fs::File::create(&a.out).map_err(|e| Failure::Usage(format!("cannot write {}: {e}", a.out.display())))?;
    let (g, summary) = record_workload(&a.workload, size, a.seed).map_err(Failure::Fatal)?;
    finegrain_sim::trace::save(&g, &a.out).map_err(|e| Failure::Fatal(e.to_string()))?;
    let bytes = std::fs::metadata(&a.out).map(|m| m.len()).unwrap_or(0);
    println!("{summary}");
    println!("wrote {} ({:.1} MB, {:.1} bytes per task)", a.out.display(), bytes as f64 / 1e6, bytes as f64 / g.tasks.len().max(1) as f64);
    Ok(true)
}

/// Record workload `name` at `size`: its task graph and a summary (tasks by
/// kind, loops, work, footprint, time taken). The result of the recorded run
/// is checked against the serial reference.
pub fn record_workload(name: &str, size: Size, seed: u64) -> Result<(TaskGraph, String), String> {
    let w = finegrain_workloads::by_name(name).ok_or_else(|| format!("unknown workload {name:?} (see `finegrain list`)"))?;
    let inst = w.prepare(size, seed);
    let reference = inst.serial();
    let meta = Meta {
        workload: name.to_string(),
        size: size.name().to_string(),
        seed,
        clock: Clock::Tsc,
        cycles_per_ns: 0.0,
        line_map: LineMap::PagesByFirstTouch,
        line_cap: 0,
        lines_dropped: 0,
        note: "recorded by `finegrain record`: serial run at one thread; costs in time-stamp-counter cycles; footprints declared by the workload (finegrain::record::read/write)".into(),
    };
    let t0 = Instant::now();
    let (got, g) = finegrain::record::record(meta, || inst.parallel()).map_err(|e| e.to_string())?;
    let took = t0.elapsed().as_secs_f64();
    inst.check(&reference, &got).map_err(|e| format!("{name}: the recorded run's result does not match the serial reference: {e}"))?;
    let mut kinds = String::new();
    for k in TaskKind::ALL {
        let c = g.tasks.iter().filter(|t| t.kind == k).count();
        if c > 0 {
            kinds.push_str(&format!("{c} {}, ", k.name()));
        }
    }
    let lines: u64 = g.lines.iter().map(|l| l.count as u64).sum();
    let summary = format!(
        "{name} ({}): {} tasks ({}), {} loops, {:.2} M cycles of work ({:.2} GHz clock), {} line runs ({:.2} M lines, {} dropped at the cap of {} runs per stretch); recorded in {took:.2} s\n  {}",
        size.name(),
        g.tasks.len(),
        kinds.trim_end_matches(", "),
        g.loops.len(),
        g.total_cycles() as f64 / 1e6,
        g.meta.cycles_per_ns,
        g.lines.len(),
        lines as f64 / 1e6,
        g.meta.lines_dropped,
        g.meta.line_cap,
        span_line(&g),
    );
    Ok((g, summary))
}

/// Work, span, parallelism, the root's share, and where costs come from.
pub fn span_line(g: &TaskGraph) -> String {
    let ws = finegrain_sim::trace::work_span(g);
    let region = if g.meta.region() { "measured region only" } else { "whole run (no measured region)" };
    format!("{ws} ({} clock; {region})", g.meta.clock.name())
}
