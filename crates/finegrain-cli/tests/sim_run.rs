//! `finegrain sim`: a real sweep writes its files, the same inputs give
//! byte-identical files, and every bad input is a clear error (exit 2 for a
//! bad command line, 1 for a file that cannot be used), never a panic.

mod common;
use common::{finegrain, scratch};

const SYNTH: &str = "tree:depth=8,leaf=3000,inline=1";

fn sweep(out: &str, jobs: &str) -> (i32, String, String) {
    finegrain(&[
        "sim",
        "--synth",
        SYNTH,
        "--preset",
        "adm-cmp",
        "--threads",
        "1,4,16",
        "--policies",
        "ws;adm-hier;carbon;pdf;static",
        "--out",
        out,
        "--jobs",
        jobs,
    ])
}

#[test]
fn a_sweep_writes_table_csv_json_plots_and_repeats_exactly() {
    let a = scratch("sim-a");
    let b = scratch("sim-b");
    let (code, stdout, stderr) = sweep(a.to_str().unwrap(), "1");
    assert_eq!(code, 0, "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains("adm-hier") && stdout.contains("static"), "{stdout}");
    assert!(stderr.contains("events/s"), "{stderr}");
    for f in ["sim.csv", "sim.json", "sim-speedup.svg", "sim-speedup.png", "sim-breakdown.svg", "sim-breakdown.png"] {
        assert!(a.join(f).is_file(), "{f} missing");
    }
    let csv = std::fs::read_to_string(a.join("sim.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 5 * 3, "{csv}");
    // The same sweep on three workers (simulations as tasks of a finegrain
    // pool, finishing in any order) writes the same bytes.
    let (code, _, stderr) = sweep(b.to_str().unwrap(), "3");
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("on 3 workers"), "{stderr}");
    for f in ["sim.csv", "sim.json"] {
        assert_eq!(std::fs::read(a.join(f)).unwrap(), std::fs::read(b.join(f)).unwrap(), "{f} differs between one and three workers");
    }
}

#[test]
fn bad_inputs_are_clear_errors() {
    let out = scratch("sim-bad");
    let o = out.to_str().unwrap();
    let cases: &[(&[&str], i32, &str)] = &[
        (&["sim", "--synth", SYNTH, "--preset", "nosuch", "--out", o], 2, "unknown machine preset"),
        (&["sim", "--synth", SYNTH, "--preset", "host-2", "--threads", "4", "--out", o], 2, "more than preset host-2 has"),
        (&["sim", "--synth", SYNTH, "--threads", "0", "--out", o], 2, "at least 1"),
        (&["sim", "--synth", "nosuch:x=1", "--out", o], 2, "nosuch"),
        (&["sim", "--synth", "tree:depth=banana", "--out", o], 2, "depth"),
        (&["sim", "--synth", SYNTH, "--policies", "ws;nosuch", "--out", o], 2, "nosuch"),
        (&["sim", "--synth", SYNTH, "--policies", "adm-central:manager=dedicated", "--out", o], 2, "dedicated"),
        (&["sim", "--synth", SYNTH, "--delivery", "smoke", "--out", o], 2, "delivery"),
        (&["sim", "--trace", "/nonexistent/trace.fgt", "--out", o], 2, "cannot read trace"),
        (&["sim", "--synth", SYNTH, "--workloads", "cilksort", "--out", o], 2, "--workloads goes with --locality or --claims"),
        (&["sim", "--claims", "--workloads", "nosuch", "--size", "test", "--out", o], 2, "no claim uses workload \"nosuch\""),
    ];
    for (args, want_code, want) in cases {
        let (code, stdout, stderr) = finegrain(args);
        assert_eq!(code, *want_code, "{args:?}\nstdout: {stdout}\nstderr: {stderr}");
        assert!(stderr.contains(want), "{args:?}: expected {want:?} in\n{stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn corrupt_and_truncated_traces_are_rejected() {
    let dir = scratch("sim-trace");
    std::fs::create_dir_all(&dir).unwrap();
    let g = finegrain_sim::trace::synth::generate(SYNTH, 1).unwrap();
    let good = dir.join("good.fgt");
    finegrain_sim::trace::save(&g, &good).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let cut = dir.join("cut.fgt");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let mut flipped = bytes.clone();
    let mid = flipped.len() / 3;
    flipped[mid] ^= 0x40;
    let bad = dir.join("bad.fgt");
    std::fs::write(&bad, &flipped).unwrap();
    let junk = dir.join("junk.fgt");
    std::fs::write(&junk, b"not a trace at all").unwrap();
    let o = dir.join("out");
    let (code, _, stderr) = finegrain(&["sim", "--trace", good.to_str().unwrap(), "--threads", "1,2", "--no-plots", "--out", o.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    for (f, want) in [(&cut, "truncated"), (&bad, "bad trace"), (&junk, "bad trace")] {
        let (code, _, stderr) = finegrain(&["sim", "--trace", f.to_str().unwrap(), "--no-plots", "--out", o.to_str().unwrap()]);
        assert_eq!(code, 1, "{f:?}: {stderr}");
        assert!(stderr.contains(want), "{f:?}: expected {want:?} in {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn help_lists_presets_and_generators() {
    let (code, stdout, _) = finegrain(&["sim", "--preset", "help"]);
    assert_eq!(code, 0);
    for p in ["adm-cmp", "carbon-ring", "hb-128", "pdf-cmp", "host-2", "tiled-32", "throughput-32", "t5440"] {
        assert!(stdout.contains(p), "{p} missing from\n{stdout}");
    }
    let (code, stdout, _) = finegrain(&["sim", "--synth", "help"]);
    assert_eq!(code, 0);
    for g in ["taskbench", "tree", "loop", "uts", "profile"] {
        assert!(stdout.contains(g), "{g} missing from\n{stdout}");
    }
}

#[test]
fn record_then_simulate_a_real_workload() {
    let dir = scratch("record");
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("fib.fgt");
    let t = trace.to_str().unwrap();
    let (code, stdout, stderr) = finegrain(&["record", "--workload", "fib", "--size", "test", "--out", t]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("join") && stdout.contains("wrote"), "{stdout}");
    let g = finegrain_sim::trace::load(&trace).unwrap();
    // fib(20) makes fib(21) - 1 joins.
    assert_eq!(g.tasks.iter().filter(|t| t.kind == finegrain::taskgraph::TaskKind::Join).count(), 10945);
    let o = dir.join("out");
    let (code, stdout, stderr) = finegrain(&[
        "sim",
        "--trace",
        t,
        "--preset",
        "host-2",
        "--threads",
        "1,2",
        "--policies",
        "ws;adm-central",
        "--no-plots",
        "--out",
        o.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("ws") && stdout.contains("adm-central"), "{stdout}");
    // Bad record arguments.
    for (args, want) in [
        (vec!["record", "--workload", "nosuch", "--out", t], "nosuch"),
        (vec!["record", "--workload", "fib", "--size", "huge", "--out", t], "huge"),
        (vec!["record", "--workload", "fib", "--size", "test", "--out", "/nonexistent/dir/x.fgt"], "cannot write"),
    ] {
        let (code, _, stderr) = finegrain(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
    }
}
