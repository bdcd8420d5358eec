//! Every command that prints exits quietly, with its own status, when its
//! standard output is a pipe nobody reads (`finegrain list | head -1`):
//! no panic, no "Broken pipe" on standard error, and the files a run writes
//! are still written. Every subcommand is run here (`list`, `bench`,
//! `metg`, `record`, `sim` in each mode that prints a table: a trace, a
//! locality sweep, the presets; `plan`), with the pipe closed before it
//! writes, and `list` also with a reader that takes one line and goes, as
//! `head -1` does.

mod common;
use common::scratch;
use std::io::BufRead;
use std::process::{Command, Stdio};

/// Run `finegrain args` with standard output a pipe whose reading end is
/// closed before the command writes anything, so every write to it fails.
/// Returns (exit code, standard error).
fn with_stdout_closed(args: &[&str]) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_finegrain"))
        .args(args)
        .env("FINEGRAIN_NO_TRACE_CACHE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the finegrain binary runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("finegrain finishes");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn quiet(args: &[&str]) {
    let (code, stderr) = with_stdout_closed(args);
    assert_eq!(code, 0, "finegrain {args:?} with standard output closed: exit {code}\n{stderr}");
    for bad in ["panicked", "Broken pipe", "os error 32"] {
        assert!(!stderr.contains(bad), "finegrain {args:?} with standard output closed said {bad:?}:\n{stderr}");
    }
}

#[test]
fn list_and_help_exit_quietly() {
    quiet(&["list", "--sizes", "test"]);
    quiet(&["--help"]);
    quiet(&["--version"]);
    for cmd in ["list", "bench", "metg", "record", "sim", "plan"] {
        quiet(&[cmd, "--help"]);
    }
    quiet(&["sim", "--preset", "help"]);
}

#[test]
fn runs_exit_quietly_and_still_write_their_files() {
    let dir = scratch("closed-pipe");
    std::fs::create_dir_all(&dir).unwrap();
    let d = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let bench = d("bench");
    quiet(&[
        "bench",
        "--workloads",
        "fib",
        "--policies",
        "ws",
        "--threads",
        "1",
        "--size",
        "test",
        "--reps",
        "1",
        "--warmup",
        "0",
        "--no-rayon",
        "--out",
        &bench,
    ]);
    assert!(std::path::Path::new(&bench).join("results.csv").exists(), "bench wrote no results.csv in {bench}");
    quiet(&[
        "metg",
        "--patterns",
        "trivial",
        "--policies",
        "ws",
        "--threads",
        "1",
        "--width",
        "2",
        "--steps",
        "4",
        "--max-iterations",
        "64",
        "--min-iterations",
        "16",
        "--out",
        &d("metg"),
    ]);
    let trace = d("fib.fgt");
    quiet(&["record", "--workload", "fib", "--size", "test", "--out", &trace]);
    assert!(std::path::Path::new(&trace).exists(), "record wrote no trace");
    quiet(&["sim", "--trace", &trace, "--preset", "host-2", "--threads", "1,2", "--policies", "ws", "--no-plots", "--out", &d("sim")]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `finegrain list | head -1`: the reader takes the first line and closes
/// the pipe while `list` is still writing.
#[test]
fn list_exits_quietly_when_the_reader_takes_one_line() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_finegrain"))
        .args(["list", "--sizes", "test"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the finegrain binary runs");
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("WORKLOADS"), "{first:?}");
    let out = child.wait_with_output().expect("finegrain finishes");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "finegrain list | head -1: {stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{stderr}");
}

/// `sim --locality` and `plan` print tables too.
#[test]
fn locality_sweep_and_plan_exit_quietly() {
    use finegrain::taskgraph::Meta;
    let dir = scratch("closed-pipe-plan");
    std::fs::create_dir_all(&dir).unwrap();
    let d = |name: &str| dir.join(name).to_str().unwrap().to_string();
    #[rustfmt::skip]
    quiet(&["sim", "--locality", "--size", "test", "--workloads", "conv", "--managers", "baseline", "--stealing", "baseline", "--out", &d("locality")]);
    // A trace of one task space to plan.
    let meta = Meta::synthetic("spaces", "8x8", 1);
    let (r, g) = finegrain::record::record(meta, || finegrain::TaskSpace::new([8, 8]).run(|_| ())).unwrap();
    r.unwrap();
    let trace = d("space.fgt");
    finegrain_sim::trace::save(&g, std::path::Path::new(&trace)).unwrap();
    quiet(&["plan", "--trace", &trace, "--preset", "tiled-32", "--threads", "4", "--out", &d("space.fgp")]);
    assert!(dir.join("space.fgp").exists(), "plan wrote no plan file");
    let _ = std::fs::remove_dir_all(&dir);
}
