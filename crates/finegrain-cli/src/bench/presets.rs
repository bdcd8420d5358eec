//! `bench --preset NAME`: the papers' experiments as named sets of workloads
//! and policies, with a report of the comparison each experiment makes.
//! A preset chooses the workloads and policies; the thread counts, size,
//! repetitions and output stay the user's.

use super::summary::SummaryRow;
use super::table::ms;
use crate::cli::BenchArgs;
use crate::text_table::Table;

pub struct Preset {
    pub name: &'static str,
    pub summary: &'static str,
    /// The paper and section the experiment comes from.
    pub source: &'static str,
    workloads: &'static [&'static str],
    /// The policy list, as `--policies` would take it.
    policies: fn() -> Vec<String>,
    /// The experiment's own comparison, printed after the bench table.
    pub report: fn(&[SummaryRow]) -> String,
}

pub const PRESETS: &[Preset] = &[Preset {
    name: "gtfold-fifo",
    summary: "task-parallel gtfold (one cell per task) against the loop version, under FIFO and LIFO order for every policy with an order option, and Carbon (LIFO)",
    source: "Sanchez, Yoo, Kozyrakis, ASPLOS 2010, section 6.4 and Figure 10",
    workloads: &["gtfold-loop", "gtfold-dataflow"],
    policies: ordered_policies,
    report: gtfold_fifo_report,
}];

/// Every registered policy with an `order` option, under `order=fifo` and
/// `order=lifo`, then `carbon`, whose queues are LIFO (the paper keeps
/// Carbon's LIFO policy in hardware).
fn ordered_policies() -> Vec<String> {
    let mut v = Vec::new();
    for p in finegrain::policies() {
        if p.options.iter().any(|o| o.name == "order") {
            v.push(format!("{}:order=fifo", p.name));
            v.push(format!("{}:order=lifo", p.name));
        }
    }
    if finegrain::policies().any(|p| p.name == "carbon") {
        v.push("carbon".into());
    }
    v
}

pub fn help() -> String {
    let mut s = String::from("presets for `bench --preset` (each sets --workloads and --policies):\n");
    for p in PRESETS {
        s.push_str(&format!(
            "  {}: {}\n      from {}\n      workloads {}; policies {}\n",
            p.name,
            p.summary,
            p.source,
            p.workloads.join(","),
            (p.policies)().join(";")
        ));
    }
    s
}

pub fn find(name: &str) -> Result<&'static Preset, String> {
    let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
    PRESETS.iter().find(|p| p.name == name).ok_or_else(|| format!("unknown preset {name:?}; presets: {} (or `help`)", names.join(", ")))
}

impl Preset {
    /// `args` with this preset's workloads and policies; an error if the user
    /// set either (or an input file, which these workloads do not take).
    pub fn apply(&self, args: &BenchArgs) -> Result<BenchArgs, String> {
        for (given, option) in [(args.workloads.is_some(), "--workloads"), (args.policies.is_some(), "--policies"), (args.input.is_some(), "--input")]
        {
            if given {
                return Err(format!("--preset {} sets the workloads and policies itself; leave out {option}", self.name));
            }
        }
        let mut a = args.clone();
        a.workloads = Some(self.workloads.join(","));
        a.policies = Some((self.policies)().join(";"));
        Ok(a)
    }
}

/// Median time of `workload` under the configuration labelled `config` at
/// `threads`, and its speedup over the serial reference.
fn find_row<'r>(rows: &'r [SummaryRow], workload: &str, config: &str, threads: usize) -> Option<&'r SummaryRow> {
    rows.iter().find(|r| r.workload == workload && r.config == config && r.threads == threads && r.time_ns.is_some())
}

fn median(r: Option<&SummaryRow>) -> Option<f64> {
    r.and_then(|r| r.time_ns).map(|s| s.median)
}

fn ratio(num: Option<f64>, den: Option<f64>) -> String {
    match (num, den) {
        (Some(n), Some(d)) if d > 0.0 => format!("{:.2}", n / d),
        _ => "-".into(),
    }
}

fn cell(t: Option<f64>) -> String {
    t.map(ms).unwrap_or_else(|| "-".into())
}

/// Section 6.4's comparison: for each policy and thread count, the loop
/// version's time over the task-parallel one's (above 1: the refactoring
/// pays), and for each policy with both orders, the task-parallel version
/// under LIFO over FIFO (above 1: FIFO helps).
fn gtfold_fifo_report(rows: &[SummaryRow]) -> String {
    let (lp, df) = ("gtfold-loop", "gtfold-dataflow");
    let mut configs: Vec<(&str, usize)> = Vec::new();
    for r in rows.iter().filter(|r| r.workload == df && r.runtime != "serial") {
        if !configs.contains(&(r.config.as_str(), r.threads)) {
            configs.push((r.config.as_str(), r.threads));
        }
    }
    let mut t = Table::new(&[
        ("runtime/policy", false),
        ("threads", true),
        ("loop ms", true),
        ("dataflow ms", true),
        ("loop/dataflow", true),
        ("loop speedup", true),
        ("dataflow speedup", true),
    ]);
    for &(config, threads) in &configs {
        let (l, d) = (find_row(rows, lp, config, threads), find_row(rows, df, config, threads));
        let speedup = |r: Option<&SummaryRow>| r.and_then(|r| r.speedup).map(|s| format!("{s:.2}")).unwrap_or_else(|| "-".into());
        t.push(vec![config.to_string(), threads.to_string(), cell(median(l)), cell(median(d)), ratio(median(l), median(d)), speedup(l), speedup(d)]);
    }
    let mut out = format!(
        "gtfold-fifo (Sanchez et al., ASPLOS 2010, section 6.4): gtfold-loop against gtfold-dataflow, median times;\n\
         loop/dataflow above 1: the task-parallel version is faster; speedups over each workload's serial reference\n{}",
        t.render()
    );
    let mut orders = Table::new(&[("policy", false), ("threads", true), ("dataflow fifo ms", true), ("dataflow lifo ms", true), ("lifo/fifo", true)]);
    let mut any = false;
    for &(config, threads) in &configs {
        let Some(name) = config.strip_suffix(":order=fifo") else { continue };
        let lifo = format!("{name}:order=lifo");
        let (f, l) = (median(find_row(rows, df, config, threads)), median(find_row(rows, df, &lifo, threads)));
        orders.push(vec![name.to_string(), threads.to_string(), cell(f), cell(l), ratio(l, f)]);
        any = true;
    }
    if any {
        out.push_str("\ngtfold-dataflow under FIFO and LIFO order (lifo/fifo above 1: FIFO is faster)\n");
        out.push_str(&orders.render());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::Summary;

    fn row(workload: &str, config: &str, threads: usize, median_ms: f64) -> SummaryRow {
        SummaryRow {
            workload: workload.into(),
            input: String::new(),
            runtime: if config == "serial" { "serial".into() } else { "finegrain".into() },
            config: config.into(),
            policy: None,
            threads,
            ok_runs: 1,
            failed_runs: 0,
            time_ns: Summary::of(&[median_ms * 1e6]),
            speedup: Some(1.0),
            speedup_over: "serial".into(),
            breakdown: None,
            tasks: None,
            rank: 0,
        }
    }

    #[test]
    fn gtfold_fifo_covers_every_ordered_policy_in_both_orders() {
        let p = find("gtfold-fifo").unwrap();
        let policies = (p.policies)();
        for name in ["ws", "adm-central", "adm-hier", "sw-hier"] {
            assert!(policies.contains(&format!("{name}:order=fifo")) && policies.contains(&format!("{name}:order=lifo")), "{name}: {policies:?}");
        }
        assert!(policies.contains(&"carbon".to_string()));
        // Every spec parses, and none twice.
        crate::specs::policies(Some(&policies.join(";"))).unwrap();
    }

    #[test]
    fn apply_sets_workloads_and_policies_and_refuses_to_override_them() {
        use clap::Parser;
        let parse = |extra: &[&str]| {
            let mut argv = vec!["finegrain", "bench", "--preset", "gtfold-fifo"];
            argv.extend_from_slice(extra);
            match crate::cli::Cli::try_parse_from(argv).unwrap().command {
                crate::cli::Command::Bench(a) => a,
                _ => unreachable!(),
            }
        };
        let p = find("gtfold-fifo").unwrap();
        let a = p.apply(&parse(&["--threads", "1,2"])).unwrap();
        assert_eq!(a.workloads.as_deref(), Some("gtfold-loop,gtfold-dataflow"));
        assert_eq!(a.threads.as_deref(), Some("1,2"));
        assert!(p.apply(&parse(&["--policies", "ws"])).unwrap_err().contains("--policies"));
        assert!(p.apply(&parse(&["--workloads", "fib"])).unwrap_err().contains("--workloads"));
        assert!(find("nope").err().unwrap().contains("gtfold-fifo"));
    }

    #[test]
    fn the_report_compares_loop_with_dataflow_and_fifo_with_lifo() {
        let rows = vec![
            row("gtfold-loop", "serial", 1, 100.0),
            row("gtfold-loop", "ws:order=fifo", 2, 60.0),
            row("gtfold-loop", "ws:order=lifo", 2, 60.0),
            row("gtfold-dataflow", "serial", 1, 100.0),
            row("gtfold-dataflow", "ws:order=fifo", 2, 40.0),
            row("gtfold-dataflow", "ws:order=lifo", 2, 80.0),
        ];
        let text = gtfold_fifo_report(&rows);
        assert!(text.contains("1.50"), "loop/dataflow under fifo: {text}");
        assert!(text.contains("0.75"), "loop/dataflow under lifo: {text}");
        assert!(text.contains("2.00"), "lifo/fifo: {text}");
    }
}
