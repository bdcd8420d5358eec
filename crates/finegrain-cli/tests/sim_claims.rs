//! `finegrain sim --claims` end to end at the test size: given the same
//! traces, the table and CSV are the same however many workers simulate
//! (the sweep's feeder spawns each trace's runs as it arrives, so runs
//! finish in a different order on every run), and every claim is evaluated
//! or listed as not modelled.
//!
//! About ten seconds per sweep in a release build, minutes in a debug one,
//! so it is ignored by default and run by `.ci/run` from the release build:
//! `cargo test --release -p finegrain-cli --test sim_claims -- --ignored`.

mod common;
use common::scratch;
use std::process::Command;

#[test]
#[ignore = "two claims sweeps at the test size: about twenty seconds in release"]
fn the_claims_table_does_not_depend_on_the_workers() {
    // The trace cache (`results/traces/` under the working directory) is on,
    // in a scratch directory: the first sweep records, the second reads the
    // same traces (a recording's costs are the host's, and differ run to run).
    let root = scratch("claims");
    std::fs::create_dir_all(&root).unwrap();
    let mut outputs = Vec::new();
    for jobs in ["1", "3"] {
        let out = root.join(format!("out-{jobs}"));
        let o = Command::new(env!("CARGO_BIN_EXE_finegrain"))
            .args(["sim", "--claims", "--size", "test", "--jobs", jobs, "--out", out.to_str().unwrap()])
            .current_dir(&root)
            .env("FINEGRAIN_NO_TRACE_CACHE", "0")
            .output()
            .unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        // Exit 0: every claim evaluated (or not modelled), none an error.
        assert_eq!(o.status.code(), Some(0), "--jobs {jobs}: {stderr}");
        assert!(stderr.contains("CPU/wall"), "--jobs {jobs}: no cost line in {stderr}");
        let md = std::fs::read_to_string(out.join("claims.md")).unwrap();
        let csv = std::fs::read_to_string(out.join("claims.csv")).unwrap();
        assert!(md.contains("claims evaluated hold") && stdout.contains(md.trim()), "--jobs {jobs}: stdout is not the table");
        outputs.push((md, csv));
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(outputs[0] == outputs[1], "the claims differ between 1 and 3 workers:\n{}\n---\n{}", outputs[0].0, outputs[1].0);
}
