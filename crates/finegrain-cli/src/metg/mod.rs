//! `finegrain metg`: Task Bench's minimum effective task granularity, METG(50%)
//! (Slaughter et al., "Task Bench", SC'20), per policy and for Rayon.
//!
//! For each dependency pattern the kernel's iteration count is swept down
//! geometrically (halving) from tasks of about 100 us; every point is run by
//! every configuration, repetitions interleaved. `analysis` turns the times into
//! efficiency curves and METG.

mod analysis;
mod exec;
mod files;
mod kernel;
mod pattern;
mod record;

use crate::cli::MetgArgs;
use crate::meta::Metadata;
use crate::plot::curves::{CurvePanel, Curves};
use crate::pools::Pools;
use crate::specs::{self, PolicySpec};
use crate::text_table::Table;
use crate::Failure;
use analysis::Curve;
use exec::Grid;
use finegrain_workloads::util::SplitMix64;
use indicatif::{ProgressBar, ProgressStyle};
use pattern::Pattern;
use record::MetgRun;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// Default size of the largest tasks: long enough that any runtime's overhead
/// is negligible next to them, so they set the 100% throughput.
const LARGEST_TASK_NS: f64 = 100_000.0;

#[derive(Copy, Clone, Debug, PartialEq)]
enum Who {
    Policy(usize),
    Rayon,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mode {
    Step,
    Graph,
}

struct Setup {
    patterns: Vec<Pattern>,
    policies: Vec<PolicySpec>,
    threads: Vec<usize>,
    width: usize,
    mode: Mode,
    configs: Vec<(Who, usize)>,
}

fn validate(a: &MetgArgs) -> Result<Setup, String> {
    if a.radix == 0 {
        return Err("--radix must be at least 1".into());
    }
    let mut patterns: Vec<Pattern> = Vec::new();
    for name in a.patterns.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let p = Pattern::parse(name, a.radix)?;
        if !patterns.contains(&p) {
            patterns.push(p);
        }
    }
    if patterns.is_empty() {
        return Err("no pattern given".into());
    }
    let policies = specs::policies(a.policies.as_deref())?;
    let mut threads = specs::threads(a.threads.as_deref())?;
    threads.sort_unstable();
    let width = a.width.unwrap_or(*threads.last().expect("at least one thread count"));
    if width == 0 || a.steps == 0 || a.reps == 0 {
        return Err("--width, --steps and --reps must be at least 1".into());
    }
    if a.min_iterations == 0 {
        return Err("--min-iterations must be at least 1".into());
    }
    if a.max_iterations.is_some_and(|m| m < a.min_iterations) {
        return Err("--max-iterations must be at least --min-iterations".into());
    }
    let mode = match a.mode.as_str() {
        "step" => Mode::Step,
        "graph" => Mode::Graph,
        other => return Err(format!("unknown mode {other:?}; valid modes: step, graph")),
    };
    let mut configs: Vec<(Who, usize)> = Vec::new();
    for p in 0..policies.len() {
        configs.extend(threads.iter().map(|&t| (Who::Policy(p), t)));
    }
    if !a.no_rayon {
        configs.extend(threads.iter().map(|&t| (Who::Rayon, t)));
    }
    Ok(Setup { patterns, policies, threads, width, mode, configs })
}

/// Iteration counts from `max` halving down to `min`.
fn levels(max: u64, min: u64) -> Vec<u64> {
    std::iter::successors(Some(max), |&x| Some(x / 2)).take_while(|&x| x >= min && x > 0).collect()
}

pub fn main(a: &MetgArgs) -> Result<bool, Failure> {
    let s = validate(a).map_err(Failure::Usage)?;
    let meta = Metadata::collect("metg", a.seed);
    if meta.build_profile != "release" {
        eprintln!("finegrain: warning: this is a {} build; timings are only meaningful with --release", meta.build_profile);
    }
    if let Some(w) = meta.staleness_warning() {
        eprintln!("finegrain: warning: {w}");
    }
    crate::bench::files::prepare_out_dir(&a.out, &["metg.csv", "metg.json"]).map_err(Failure::Fatal)?;
    let pools = Pools::build(&s.policies, &s.threads, !a.no_rayon).map_err(Failure::Fatal)?;

    let ns_per_iteration = kernel::ns_per_iteration();
    let max = a.max_iterations.unwrap_or_else(|| ((LARGEST_TASK_NS / ns_per_iteration) as u64).max(1).next_power_of_two());
    let levels = levels(max.max(a.min_iterations), a.min_iterations);
    eprintln!(
        "finegrain metg: patterns {} | width {} x {} steps | {} mode | threads {:?} | kernel {:.2} ns/iteration | iterations {}..{} ({} points) | {} reps",
        s.patterns.iter().map(|p| p.name()).collect::<Vec<_>>().join(","),
        s.width,
        a.steps,
        a.mode,
        s.threads,
        ns_per_iteration,
        levels.last().unwrap_or(&0),
        levels[0],
        levels.len(),
        a.reps
    );

    let per_pattern = s.configs.len() * (1 + levels.len() * a.reps);
    let pb = ProgressBar::new((s.patterns.len() * per_pattern) as u64);
    pb.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30.cyan/blue}] {pos}/{len} runs, ETA {eta} | {msg}")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    let mut runs = Vec::new();
    let mut failures = Vec::new();
    let mut rng = SplitMix64::new(a.seed);
    for &p in &s.patterns {
        sweep(&s, a, &pools, p, &levels, &pb, &mut rng, &mut runs, &mut failures);
    }
    pb.finish_and_clear();

    let curves = analysis::curves(&runs);
    outln!("# {}", meta.summary_line());
    outln!("# {}", meta.command_line_text());
    outln!();
    out!("{}", render_table(&curves));

    let params = files::Parameters {
        patterns: s.patterns.iter().map(|p| p.name()).collect(),
        policies: s.policies.iter().map(|p| (p.label.clone(), p.canonical())).collect(),
        threads: s.threads.clone(),
        width: s.width,
        steps: a.steps,
        radix: a.radix,
        mode: a.mode.clone(),
        reps: a.reps,
        rayon: !a.no_rayon,
        iterations: levels.clone(),
        kernel_ns_per_iteration: ns_per_iteration,
        flops_per_iteration: kernel::FLOPS_PER_ITERATION,
        efficiency_threshold: analysis::THRESHOLD,
    };
    let csv = a.out.join("metg.csv");
    let json = a.out.join("metg.json");
    files::write_csv(&csv, &runs).map_err(Failure::Fatal)?;
    files::write_json(&json, &meta, &params, &curves, &runs, &failures).map_err(Failure::Fatal)?;
    let mut written = vec![csv, json];
    if !a.no_plots {
        let fig = figure(&curves, &s, a);
        written.extend(crate::plot::save(&fig, &a.out, "metg").map_err(Failure::Fatal)?);
    }
    outln!();
    for p in &written {
        outln!("wrote {}", p.display());
    }
    if !failures.is_empty() {
        eprintln!();
        eprintln!("finegrain: {} FAILURE(S):", failures.len());
        for f in &failures {
            eprintln!("  {f}");
        }
    }
    Ok(failures.is_empty())
}

#[allow(clippy::too_many_arguments)]
fn sweep(
    s: &Setup,
    a: &MetgArgs,
    pools: &Pools,
    p: Pattern,
    levels: &[u64],
    pb: &ProgressBar,
    rng: &mut SplitMix64,
    runs: &mut Vec<MetgRun>,
    failures: &mut Vec<String>,
) {
    let shape = Grid { pattern: p, width: s.width, steps: a.steps, iterations: 0 };
    let want = shape.reference();
    let mut broken = vec![false; s.configs.len()];
    // One untimed run per configuration with the smallest tasks: it wakes the
    // pool and warms caches without costing much.
    let warm = std::iter::once((levels[levels.len() - 1], None));
    let timed = levels.iter().flat_map(|&it| (0..a.reps).map(move |rep| (it, Some(rep))));
    for (iterations, rep) in warm.chain(timed) {
        let grid = Grid { iterations, ..shape };
        let mut order: Vec<usize> = (0..s.configs.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        for ci in order {
            let (who, threads) = s.configs[ci];
            let label = match who {
                Who::Policy(pi) => s.policies[pi].label.clone(),
                Who::Rayon => "rayon".to_string(),
            };
            pb.set_message(format!("{}: {label} x{threads}, {iterations} iterations", p.name()));
            pb.inc(1);
            if broken[ci] {
                continue;
            }
            let (time_ns, got) = run_once(&grid, who, threads, s.mode, pools);
            let check = match got {
                Ok(sum) if sum == want => "ok".to_string(),
                Ok(sum) => format!("checksum {sum:016x}, expected {want:016x}"),
                Err(e) => {
                    broken[ci] = true;
                    e
                }
            };
            if check != "ok" {
                let msg = format!("{} / {label} / {threads} threads / {iterations} iterations: {check}", p.name());
                pb.suspend(|| eprintln!("finegrain: METG RUN FAILED: {msg}"));
                failures.push(msg);
            }
            let Some(rep) = rep else { continue };
            runs.push(MetgRun {
                pattern: p.name(),
                mode: if who == Who::Rayon { "step".into() } else { a.mode.clone() },
                runtime: if who == Who::Rayon { "rayon".into() } else { "finegrain".into() },
                config: label,
                policy: match who {
                    Who::Policy(pi) => Some(s.policies[pi].canonical()),
                    Who::Rayon => None,
                },
                threads,
                width: s.width,
                steps: a.steps,
                tasks: grid.tasks(),
                iterations,
                rep,
                time_ns,
                check,
                rank: match who {
                    Who::Policy(pi) => pi,
                    Who::Rayon => s.policies.len(),
                },
            });
        }
    }
}

/// Time one execution of the grid, from inside the pool (as `bench` does).
fn run_once(grid: &Grid, who: Who, threads: usize, mode: Mode, pools: &Pools) -> (u64, Result<u64, String>) {
    let timed = |f: &dyn Fn() -> Result<u64, String>| {
        let start = Instant::now();
        let r = f();
        (start.elapsed().as_nanos() as u64, r)
    };
    let result = catch_unwind(AssertUnwindSafe(|| match (who, mode) {
        (Who::Policy(p), Mode::Step) => pools.finegrain(p, threads).install(|| timed(&|| Ok(grid.finegrain_steps()))),
        (Who::Policy(p), Mode::Graph) => pools.finegrain(p, threads).install(|| timed(&|| grid.finegrain_graph())),
        (Who::Rayon, _) => pools.rayon(threads).expect("rayon pools exist when rayon runs").install(|| timed(&|| Ok(grid.rayon_steps()))),
    }));
    result.unwrap_or_else(|_| (0, Err("panicked".into())))
}

fn render_table(curves: &[Curve]) -> String {
    let mut t = Table::new(&[
        ("pattern", false),
        ("runtime/policy", false),
        ("threads", true),
        ("tasks", true),
        ("peak GFLOP/s", true),
        ("METG(50%) us", true),
        ("efficiency at smallest", true),
    ]);
    let mut last = "";
    for c in curves {
        if !last.is_empty() && c.pattern != last {
            t.separator();
        }
        last = &c.pattern;
        let metg = match (c.metg_us, c.metg_kind) {
            (Some(m), "upper-bound") => format!("<= {m:.2}"),
            (Some(m), _) => format!("{m:.2}"),
            (None, _) => "not reached".into(),
        };
        let smallest = c.points.last().map(|p| format!("{:.0}% at {:.2} us", 100.0 * p.efficiency, p.granularity_us)).unwrap_or_default();
        let best = c.points.iter().map(|p| p.gflops).fold(0.0, f64::max);
        t.push(vec![
            c.pattern.clone(),
            c.config.clone(),
            c.threads.to_string(),
            c.tasks.to_string(),
            format!("{best:.2}"),
            if c.failed_runs > 0 { format!("{metg} ({} FAILED)", c.failed_runs) } else { metg },
            smallest,
        ]);
    }
    t.render()
}

fn figure(curves: &[Curve], s: &Setup, a: &MetgArgs) -> Curves {
    let mut series: Vec<String> = Vec::new();
    let mut panels: Vec<CurvePanel> = Vec::new();
    for c in curves {
        let label = format!("{} x{}", c.config, c.threads);
        let idx = series.iter().position(|x| *x == label).unwrap_or_else(|| {
            series.push(label);
            series.len() - 1
        });
        let points: Vec<(f64, f64)> = c.points.iter().rev().map(|p| (p.granularity_us, 100.0 * p.efficiency)).collect();
        match panels.iter_mut().find(|p| p.title == c.pattern) {
            Some(panel) => panel.curves.push((idx, points)),
            None => panels.push(CurvePanel { title: c.pattern.clone(), curves: vec![(idx, points)] }),
        }
    }
    Curves {
        title: format!(
            "Efficiency vs task granularity (width {} x {} steps{}); METG(50%) = where a curve crosses 50%",
            s.width,
            a.steps,
            if s.mode == Mode::Graph { "; finegrain as dataflow graphs, Rayon as loops" } else { "; a parallel loop per step" }
        ),
        x_desc: "task granularity (us of core time per task, log scale)".into(),
        y_desc: "efficiency (% of best throughput)".into(),
        series,
        panels,
        threshold: Some(100.0 * analysis::THRESHOLD),
        y_percent: true,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn levels_halve_down_to_the_minimum() {
        assert_eq!(super::levels(16, 1), [16, 8, 4, 2, 1]);
        assert_eq!(super::levels(16, 3), [16, 8, 4]);
        assert_eq!(super::levels(1, 1), [1]);
    }
}
