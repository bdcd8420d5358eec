//! `finegrain plan`: the graph-based reference scheduler (Yoo's thesis,
//! chapter 4; `finegrain_sim::reference`) on a recorded trace's task spaces,
//! for one preset's cache hierarchy. Writes one plan per space to a plan
//! file (`finegrain::policy::locality::plan_file`) and prints, per space,
//! the groups made at each level and how the plan compares with the MST-only,
//! baseline and random schedules on the task sharing graph.

use crate::cli::PlanArgs;
use crate::text_table::Table;
use crate::Failure;
use finegrain::policy::locality::{chunked, plan_file, Plan};
use finegrain_sim::reference::{trace::space_inputs, Hierarchy, PlanStats, TaskSharing};
use std::time::Instant;

/// Seeds of the random schedule (the thesis averages three, §4.4.1).
const RANDOM_SEEDS: [u64; 3] = [1, 2, 3];

pub fn main(a: &PlanArgs) -> Result<bool, Failure> {
    let preset = finegrain_sim::machine::preset(&a.preset).map_err(|e| Failure::Usage(e.to_string()))?;
    let threads = a.threads.unwrap_or(preset.max_threads());
    let h = Hierarchy::from_preset(preset, threads).map_err(|e| Failure::Usage(e.to_string()))?;
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            return Err(Failure::Usage(format!("cannot write {}: no directory {}", a.out.display(), dir.display())));
        }
    }
    std::fs::metadata(&a.trace).map_err(|e| Failure::Usage(format!("cannot read trace {}: {e}", a.trace.display())))?;
    let g = finegrain_sim::trace::load(&a.trace).map_err(|e| Failure::Fatal(format!("{}: {e}", a.trace.display())))?;
    let inputs = space_inputs(&g).map_err(|e| Failure::Usage(e.to_string()))?;
    let levels: Vec<String> = h.levels.iter().map(|l| format!("{} {} KB/{}", l.name, l.bytes >> 10, l.sharers)).collect();
    outln!("{} ({}): {} task spaces; {} at {threads} threads ({})", g.meta.workload, g.meta.size, inputs.len(), preset.name, levels.join(", "));
    let mut plans = Vec::with_capacity(inputs.len());
    for (i, inp) in inputs.iter().enumerate() {
        let t0 = Instant::now();
        let ts = TaskSharing::new(inp);
        let graph_ms = t0.elapsed().as_secs_f64() * 1e3;
        let t1 = Instant::now();
        let r = ts.recursive(&h).map_err(|e| Failure::Fatal(format!("space {i}: {e}")))?;
        let plan_ms = t1.elapsed().as_secs_f64() * 1e3;
        let per_level: Vec<String> = h.levels.iter().zip(&r.groups_per_level).map(|(l, n)| format!("{n} {}", l.name)).collect();
        outln!(
            "\nspace {i} {:?}: {} tasks, {} lines, {} edges ({} lines banded); graph {graph_ms:.1} ms, plan {plan_ms:.1} ms ({} METIS calls); groups: {}",
            inp.space.dims(),
            inp.tasks(),
            ts.lines(),
            ts.graph().edges(),
            ts.graph().banded_lines,
            r.metis_calls,
            per_level.join(", ")
        );
        let fatal = |e: finegrain_sim::reference::ReferenceError| Failure::Fatal(format!("space {i}: {e}"));
        let mut rows = vec![ts.stats(&r.plan, &h).map_err(fatal)?, ts.stats(&ts.mst_only(threads).map_err(fatal)?, &h).map_err(fatal)?];
        let base = chunked::baseline(inp.space, threads).map_err(|e| Failure::Fatal(e.to_string()))?;
        rows.push(ts.stats(&base, &h).map_err(fatal)?);
        let randoms: Vec<PlanStats> = RANDOM_SEEDS
            .iter()
            .map(|&s| chunked::random(inp.space, threads, s).map_err(|e| e.into()).and_then(|p: Plan| ts.stats(&p, &h)))
            .collect::<Result<_, _>>()
            .map_err(fatal)?;
        rows.push(mean(&randoms));
        outln!("{}", table(&rows, &h).render());
        plans.push(r.plan);
    }
    plan_file::write_file(&a.out, &plans).map_err(|e| Failure::Fatal(e.to_string()))?;
    outln!("\nwrote {} ({} plans)", a.out.display(), plans.len());
    Ok(true)
}

/// The mean of the random schedules' numbers.
fn mean(s: &[PlanStats]) -> PlanStats {
    let n = s.len() as f64;
    let avg = |f: &dyn Fn(&PlanStats) -> f64| s.iter().map(f).sum::<f64>() / n;
    PlanStats {
        manager: "random (mean of 3)",
        groups: avg(&|p| p.groups as f64).round() as usize,
        worker_cut: avg(&|p| p.worker_cut as f64).round() as u64,
        group_cut: avg(&|p| p.group_cut as f64).round() as u64,
        group_union: avg(&|p| p.group_union),
        worker_union: avg(&|p| p.worker_union),
        lru_misses: (0..s[0].lru_misses.len()).map(|l| avg(&|p| p.lru_misses[l] as f64).round() as u64).collect(),
    }
}

fn table(rows: &[PlanStats], h: &Hierarchy) -> Table {
    let mut t = Table::new(&[
        ("schedule", false),
        ("groups", true),
        ("cut (workers)", true),
        ("cut (groups)", true),
        ("union/group KB", true),
        ("union/worker KB", true),
    ]);
    for l in &h.levels {
        t.add_column(&format!("{} LRU misses", l.name), true);
    }
    let kb = |lines: f64| format!("{:.1}", lines * 64.0 / 1024.0);
    for r in rows {
        let mut row = vec![
            r.manager.to_string(),
            r.groups.to_string(),
            r.worker_cut.to_string(),
            r.group_cut.to_string(),
            kb(r.group_union),
            kb(r.worker_union),
        ];
        row.extend(r.lru_misses.iter().map(u64::to_string));
        t.push(row);
    }
    t
}
