//! Where `finegrain sim` gets its task graph: a trace file, a workload
//! recorded on the spot (or taken from the trace cache, `crate::record`), or
//! a generator.

use crate::cli::SimArgs;
use finegrain::taskgraph::{TaskGraph, TaskKind};
use std::path::PathBuf;

/// The workload simulated when none is named.
pub const DEFAULT_WORKLOAD: &str = "cilksort";

#[derive(Clone, Debug)]
pub enum Source {
    Trace(PathBuf),
    Workload { name: String, size: finegrain_workloads::Size },
    Synth(String),
}

impl Source {
    /// Check the arguments (the workload and size exist, the trace file is
    /// readable, the generator spec parses) before anything runs.
    pub fn from_args(a: &SimArgs) -> Result<Source, String> {
        if let Some(p) = &a.trace {
            std::fs::metadata(p).map_err(|e| format!("cannot read trace {}: {e}", p.display()))?;
            return Ok(Source::Trace(p.clone()));
        }
        if let Some(spec) = &a.synth {
            // Parse now (generating a tiny instance is not possible for every
            // generator, so only the syntax and names are checked here).
            finegrain_sim::trace::synth::check(spec).map_err(|e| e.to_string())?;
            return Ok(Source::Synth(spec.clone()));
        }
        if a.no_cache {
            crate::record::disable_cache();
        }
        let name = a.workload.clone().unwrap_or_else(|| DEFAULT_WORKLOAD.to_string());
        let size = crate::specs::size(&a.size)?;
        crate::specs::workloads(Some(&name))?;
        Ok(Source::Workload { name, size })
    }

    pub fn name(&self) -> String {
        match self {
            Source::Trace(p) => p.display().to_string(),
            Source::Workload { name, size } => format!("{name} ({})", size.name()),
            Source::Synth(s) => s.clone(),
        }
    }

    pub fn load(&self, seed: u64) -> Result<TaskGraph, String> {
        match self {
            Source::Trace(p) => finegrain_sim::trace::load(p).map_err(|e| e.to_string()),
            Source::Synth(spec) => finegrain_sim::trace::synth::generate(spec, seed).map_err(|e| e.to_string()),
            Source::Workload { name, size } => crate::record::cached_trace(name, *size, seed).map(|(g, _)| g),
        }
    }
}

/// Two lines about a graph: tasks by kind, loops, work, footprint; then its
/// work, span, parallelism and the root's own share of the work
/// (`finegrain_sim::trace::work_span`), the bound no policy can pass.
pub fn describe(g: &TaskGraph) -> String {
    let mut kinds = String::new();
    for k in TaskKind::ALL {
        let c = g.tasks.iter().filter(|t| t.kind == k).count();
        if c > 0 {
            kinds.push_str(&format!(" {c} {}", k.name()));
        }
    }
    let lines: u64 = g.lines.iter().map(|l| l.count as u64).sum();
    format!(
        "task graph {} ({}): {} tasks ({} ), {} loops, {:.2} M work cycles, {} line runs ({:.2} M lines)\n  {}",
        g.meta.workload,
        g.meta.size,
        g.tasks.len(),
        kinds.trim_start(),
        g.loops.len(),
        g.total_cycles() as f64 / 1e6,
        g.lines.len(),
        lines as f64 / 1e6,
        crate::record::span_line(g)
    )
}

pub fn synth_help() -> String {
    let mut s = String::from("generators for --synth NAME:key=value,...\n");
    for gen in finegrain_sim::trace::synth::generators() {
        s.push_str(&format!("  {:<10} {}\n", gen.name, gen.help));
    }
    s
}

pub use crate::record::record_workload;
