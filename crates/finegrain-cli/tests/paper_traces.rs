//! The traces the many-core claims simulate, at `paper` size: each has at
//! most 1% of its work in the root task (set-up and verification are outside
//! the measured region, `finegrain::record::region`) and a parallelism
//! (work / span, `finegrain_sim::trace::work_span`) of at least ten times
//! the largest thread count a claim uses (256), unless its input is the
//! paper's own and its parallelism limited by nature ([`PAPER_OWN`]).
//!
//! Recording every workload at `paper` size takes minutes, so the test is
//! ignored by default; `.ci/run` runs it in release:
//! `cargo test --release -p finegrain-cli --test paper_traces -- --ignored --nocapture`.
//! It prints the table `docs/simulation.md` ("Traces of the parallel
//! region") shows.

mod common;
use common::{finegrain, scratch};

/// The workloads the claims use (`../shared/specs/many-core.md`, B3; Carbon's
/// Table 2 set as the project has it).
const CLAIM_WORKLOADS: &[&str] = &[
    "cilksort",
    "cg",
    "maxflow-async",
    "hashjoin",
    "gtfold-dataflow",
    "canny",
    "uts",
    "pagerank",
    "matmul",
    "gauss-seidel",
    "spmv",
    "sva-dense",
    "mvm",
    "gps",
    "binomial",
    "cf",
    "fs",
    "bs",
];

/// Inputs that are the paper's own, whose parallelism is limited by the
/// program (gtfold's wavefront: Sanchez et al., ASPLOS 2010, section 6.4).
const PAPER_OWN: &[&str] = &["gtfold-dataflow"];

/// Ten times the largest thread count of a claim.
const MIN_PARALLELISM: f64 = 2560.0;
const MAX_ROOT_SHARE: f64 = 0.01;

struct Row {
    name: String,
    tasks: u64,
    work: f64,
    span: f64,
    parallelism: f64,
    root: f64,
    seconds: f64,
}

/// The number after `key` in `text` (e.g. "parallelism 123").
fn after(text: &str, key: &str) -> Option<f64> {
    let rest = &text[text.find(key)? + key.len()..];
    let num: String = rest.trim_start().chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    num.parse().ok()
}

fn record(name: &str) -> Row {
    let dir = scratch(&format!("paper-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("t.trace");
    let (code, stdout, stderr) = finegrain(&["record", "--workload", name, "--size", "paper", "--no-cache", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{name}: {stderr}");
    let _ = std::fs::remove_dir_all(&dir);
    let parse = |key: &str| after(&stdout, key).unwrap_or_else(|| panic!("{name}: no {key:?} in {stdout}"));
    Row {
        name: name.to_string(),
        tasks: parse("(paper):") as u64,
        work: parse("work "),
        span: parse("span "),
        parallelism: parse("parallelism "),
        root: parse("root's own work ") / 100.0,
        seconds: parse("recorded in "),
    }
}

#[test]
#[ignore = "records every claim workload at paper size: minutes; run in release by .ci/run"]
fn paper_traces_are_parallel_and_keep_set_up_out_of_the_root() {
    let rows: Vec<Row> = CLAIM_WORKLOADS.iter().map(|w| record(w)).collect();
    println!("| workload | tasks | work (M) | span (M) | parallelism | root share | record (s) |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!("| {} | {} | {:.0} | {:.2} | {:.0} | {:.2}% | {:.1} |", r.name, r.tasks, r.work, r.span, r.parallelism, 100.0 * r.root, r.seconds);
    }
    let mut failures = Vec::new();
    for r in &rows {
        if r.root > MAX_ROOT_SHARE {
            failures.push(format!("{}: the root does {:.2}% of the work (at most {:.0}%)", r.name, 100.0 * r.root, 100.0 * MAX_ROOT_SHARE));
        }
        if r.parallelism < MIN_PARALLELISM && !PAPER_OWN.contains(&r.name.as_str()) {
            failures.push(format!("{}: parallelism {:.0} (at least {MIN_PARALLELISM:.0})", r.name, r.parallelism));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_parser_reads_a_record_summary() {
    let s = "cilksort (paper): 12 tasks (1 root), 0 loops, 1.00 M cycles of work (2.45 GHz clock), 3 line runs (0.00 M lines, 0 dropped at the cap of 4096 runs per stretch); recorded in 0.25 s\n  work 1.00 M, span 0.010 M, parallelism 100, root's own work 0.50% of the work (tsc clock; measured region only)";
    assert_eq!(after(s, "(paper):"), Some(12.0));
    assert_eq!(after(s, "span "), Some(0.010));
    assert_eq!(after(s, "parallelism "), Some(100.0));
    assert_eq!(after(s, "root's own work "), Some(0.5));
    assert_eq!(after(s, "recorded in "), Some(0.25));
    assert_eq!(after(s, "nothing "), None);
}
