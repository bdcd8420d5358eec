//! The traces the many-core claims simulate, at `paper` size: each has at
//! most 1% of its work in the root task (set-up and verification are outside
//! the measured region, `finegrain::record::region`) and a parallelism
//! (work / span, `finegrain_sim::trace::work_span`) of at least ten times
//! the largest thread count of a claim that uses it, unless its input is the
//! paper's own and its parallelism limited by nature ([`PAPER_OWN`]).
//!
//! Recording every workload at `paper` size three times takes minutes, so
//! the test is ignored by default:
//! `cargo test --release -p finegrain-cli --test paper_traces -- --ignored --nocapture`.
//! It prints the table `docs/simulation.md` ("Traces of the parallel
//! region") shows.

mod common;
use common::{finegrain, scratch};

/// The workloads the claims use (`crates/finegrain-cli/src/sim/claims/list.rs`),
/// each with the largest thread count of a claim that uses it: ADM's (000)
/// and Phoenix's on the T5440 (001 chapter 3) at 256 threads, HammerBlade's
/// (003) at 128, Carbon's (002) at 64.
const CLAIM_WORKLOADS: &[(&str, usize)] = &[
    ("cilksort", 256),
    ("cg", 256),
    ("maxflow-async", 256),
    ("hashjoin", 256),
    ("canneal", 256),
    ("gtfold-loop", 256),
    ("gtfold-dataflow", 256),
    ("uts", 128),
    ("pagerank", 128),
    ("matmul", 128),
    ("spmv", 128),
    ("gauss-seidel", 64),
    ("canny", 64),
    ("mvm", 64),
    ("gps", 64),
    ("binomial", 64),
    ("cf", 64),
    ("string_match", 256),
];

/// Traces whose input is the paper's own, or larger, and whose parallelism
/// the program limits (the exception: they keep the paper's input
/// and report their parallelism): the paper's experiment had no more
/// parallelism than these. Each with the paper's input and why.
const PAPER_OWN: &[(&str, &str)] = &[
    ("gtfold-dataflow", "the paper's sequence length (000 section 6.4); the wavefront of the dynamic program"),
    ("gtfold-loop", "the paper's sequence length (000 section 6.4); one loop per anti-diagonal"),
    ("cg", "000 Table 4: bcsstk16, 4,884 rows; here 160,000 rows, each vector loop 313 chunks of the paper's task length"),
    ("maxflow-async", "000 Table 4: a 4K-vertex RLG; here 50,000 vertices; push-relabel's discharges wait on their neighbours"),
    ("hashjoin", "000 Table 4: 166 M instructions; here 620 M cycles; the radix partitioning's fixed 16K-tuple chunks"),
    ("cf", "002 Table 2: watson, 209,614 columns; here a block-angular matrix of 200,764; the elimination tree's linking chain"),
    ("string_match", "001 Table 3.2 and section 3.2.2: 500 MB in 512 KB map chunks, about 1,000 map tasks; here 512 MB in 1,024 chunks of 512 KB"),
];

/// Ten times the largest thread count of a claim.
const PARALLELISM_PER_THREAD: f64 = 10.0;
const MAX_ROOT_SHARE: f64 = 0.01;

struct Row {
    name: String,
    threads: usize,
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

fn record(name: &str, threads: usize, repeat: u32) -> Row {
    let dir = scratch(&format!("paper-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("t.trace");
    let (code, stdout, stderr) =
        finegrain(&["record", "--workload", name, "--size", "paper", "--no-cache", "--repeat", &repeat.to_string(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{name}: {stderr}");
    let _ = std::fs::remove_dir_all(&dir);
    let parse = |key: &str| after(&stdout, key).unwrap_or_else(|| panic!("{name}: no {key:?} in {stdout}"));
    Row {
        name: name.to_string(),
        threads,
        tasks: parse("(paper):") as u64,
        work: parse("\n  work "),
        span: parse("span "),
        parallelism: parse("parallelism "),
        root: parse("root's own work ") / 100.0,
        seconds: parse("recording(s) in "),
    }
}

#[test]
#[ignore = "records every claim workload at paper size three times: minutes; docs/simulation.md gives its last result"]
fn paper_traces_are_parallel_and_keep_set_up_out_of_the_root() {
    let mut rows: Vec<Row> = CLAIM_WORKLOADS.iter().map(|&(w, t)| record(w, t, 3)).collect();
    // Host noise only lengthens a step, and a span is a chain of a few
    // steps: on a loaded host, a step slowed in all three recordings can
    // triple it (cilksort's 0.21 M cycles quiet, 0.59 M in one CI run). A
    // trace short of the bound is recorded again with nine recordings and
    // its larger parallelism kept; a program without the parallelism stays
    // short of it however often it is recorded.
    for r in rows.iter_mut() {
        if r.parallelism < PARALLELISM_PER_THREAD * r.threads as f64 && !PAPER_OWN.iter().any(|&(w, _)| w == r.name) {
            let again = record(&r.name, r.threads, 9);
            println!("{}: parallelism {:.0} with 3 recordings, {:.0} with 9", r.name, r.parallelism, again.parallelism);
            if again.parallelism > r.parallelism {
                *r = again;
            }
        }
    }
    println!("| workload | tasks | work (M) | span (M) | parallelism | root share | record (s) |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        println!("| {} | {} | {:.0} | {:.2} | {:.0} | {:.2}% | {:.1} |", r.name, r.tasks, r.work, r.span, r.parallelism, 100.0 * r.root, r.seconds);
    }
    for &(w, why) in PAPER_OWN {
        if let Some(r) = rows.iter().find(|r| r.name == w) {
            println!("{w}: parallelism {:.0} at the paper's input or larger ({why})", r.parallelism);
        }
    }
    let mut failures = Vec::new();
    for r in &rows {
        if r.root > MAX_ROOT_SHARE {
            failures.push(format!("{}: the root does {:.2}% of the work (at most {:.0}%)", r.name, 100.0 * r.root, 100.0 * MAX_ROOT_SHARE));
        }
        let least = PARALLELISM_PER_THREAD * r.threads as f64;
        if r.parallelism < least && !PAPER_OWN.iter().any(|&(w, _)| w == r.name) {
            failures.push(format!("{}: parallelism {:.0} (at least {least:.0}, ten times {} threads)", r.name, r.parallelism, r.threads));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_parser_reads_a_record_summary() {
    let s = "cilksort (paper): 12 tasks (1 root), 0 loops, 1.00 M cycles of work (2.45 GHz clock), 3 line runs (0.00 M lines, 0 dropped at the cap of 4096 runs per stretch); 3 recording(s) in 0.25 s\n  work 1.00 M, span 0.010 M, parallelism 100, root's own work 0.50% of the work (tsc clock; measured region only)";
    assert_eq!(after(s, "(paper):"), Some(12.0));
    assert_eq!(after(s, "\n  work "), Some(1.00));
    assert_eq!(after(s, "span "), Some(0.010));
    assert_eq!(after(s, "parallelism "), Some(100.0));
    assert_eq!(after(s, "root's own work "), Some(0.5));
    assert_eq!(after(s, "recording(s) in "), Some(0.25));
    assert_eq!(after(s, "nothing "), None);
}
