//! `finegrain bench`: validate, run interleaved repetitions, summarize, write
//! the table, CSV, JSON and plots.

mod execute;
pub mod files;
mod input;
mod plan;
mod plots;
mod presets;
pub mod record;
mod summary;
mod table;

use crate::cli::BenchArgs;
use crate::meta::Metadata;
use crate::pools::Pools;
use crate::Failure;
use indicatif::{ProgressBar, ProgressStyle};
use plan::Plan;

/// Runs the benchmark; `Ok(false)` when some run failed or gave a wrong result.
pub fn main(args: &BenchArgs) -> Result<bool, Failure> {
    let preset = match args.preset.as_deref() {
        Some("help") => {
            out!("{}", presets::help());
            return Ok(true);
        }
        Some(name) => Some(presets::find(name).map_err(Failure::Usage)?),
        None => None,
    };
    let args = match preset {
        Some(p) => &p.apply(args).map_err(Failure::Usage)?,
        None => args,
    };
    let plan = Plan::from_args(args).map_err(Failure::Usage)?;
    for note in &plan.peer_notes {
        eprintln!("finegrain: {note}");
    }
    let meta = Metadata::collect("bench", plan.seed);
    if meta.build_profile != "release" {
        eprintln!("finegrain: warning: this is a {} build; timings are only meaningful with --release", meta.build_profile);
    }
    if let Some(w) = meta.staleness_warning() {
        eprintln!("finegrain: warning: {w}");
    }
    files::prepare_out_dir(&plan.out, &["results.csv", "results.json"]).map_err(Failure::Fatal)?;
    let mut pools = Pools::build(&plan.policies, &plan.threads, plan.rayon).map_err(Failure::Fatal)?;
    if plan.chili {
        pools.add_chili(&plan.threads);
    }

    let names: Vec<&str> = plan.workloads.iter().map(|w| w.name()).collect();
    let policy_labels: Vec<&str> = plan.policies.iter().map(|p| p.label.as_str()).collect();
    eprintln!(
        "finegrain bench: workloads {} | policies {} | threads {:?} | size {} | {} reps (+{} warm-up) | seed {}",
        names.join(","),
        policy_labels.join(" ; "),
        plan.threads,
        plan.size.name(),
        plan.reps,
        plan.warmup,
        plan.seed
    );
    if let Some(f) = &plan.input {
        eprintln!("finegrain bench: input {}: {}", f.path.display(), f.input.describe());
    }
    let pb = ProgressBar::new(execute::expected_runs(&plan) * plan.workloads.len() as u64);
    pb.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30.cyan/blue}] {pos}/{len} runs, ETA {eta} | {msg}")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    let outcome = execute::run(&plan, &pools, &pb);
    pb.finish_and_clear();

    let rows = summary::summarize(&outcome.records);
    outln!("# {}", meta.summary_line());
    outln!("# {}", meta.command_line_text());
    outln!();
    out!("{}", table::render(&rows));
    if let Some(tasks) = table::render_tasks(&rows) {
        outln!();
        outln!("Tasks (as in ADM, ASPLOS 2010, Table 4): mean = time in tasks / tasks run; median of sampled leaf tasks (finegrain::stats::lengths); cycles = time-stamp-counter ticks");
        out!("{tasks}");
    }
    if let Some(p) = preset {
        outln!();
        out!("{}", (p.report)(&rows));
    }
    if outcome.stats_enabled {
        outln!(
            "(breakdown: every bucket timed at its transitions; enqueue and dequeue sampled: 1 in ~{} operations timed, 1 in ~{} under the central unit; docs/benchmarks.md)",
            finegrain::stats::SAMPLE_PERIOD,
            finegrain::stats::UNIT_SAMPLE_PERIOD
        );
    } else {
        outln!("(finegrain was built without its `stats` feature: no time breakdown)");
    }
    for u in &outcome.unbalanced {
        eprintln!("finegrain: warning: breakdown does not add up: {u}");
    }
    if plan.ops && outcome.stats_enabled {
        outln!();
        outln!("Per-operation costs (as in ADM, ASPLOS 2010, Table 5), summed over the timed repetitions; cycles = time-stamp-counter ticks");
        for (_, key, s) in &outcome.ops {
            outln!();
            outln!("{key}");
            out!("{}", s.ops_table());
        }
    }

    let csv = plan.out.join("results.csv");
    let json = plan.out.join("results.json");
    files::write_csv(&csv, &outcome.records).map_err(Failure::Fatal)?;
    files::write_json(&json, &meta, &plan, outcome.stats_enabled, &outcome.records, &rows, &outcome.failures).map_err(Failure::Fatal)?;
    let mut written = vec![csv, json];
    if plan.plots {
        written.extend(plots::write(&rows, plan.size.name(), &plan.out).map_err(Failure::Fatal)?);
    }
    outln!();
    for p in &written {
        outln!("wrote {}", p.display());
    }
    if !outcome.failures.is_empty() {
        eprintln!();
        eprintln!("finegrain: {} FAILURE(S):", outcome.failures.len());
        for f in &outcome.failures {
            eprintln!("  {f}");
        }
    }
    Ok(outcome.failures.is_empty())
}
