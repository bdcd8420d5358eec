//! A wrong result is reported loudly and makes the exit status 1, but the run
//! goes on and every file is still written. A fake peer supplies the wrong
//! result, since the real workloads are correct.

#![cfg(unix)] // the fake peer is a shell script

mod common;
use common::{finegrain, scratch};
use std::os::unix::fs::PermissionsExt;

/// A `peer_tbb` that follows the protocol but reports a failed check of its
/// parallel program (its own serial program, `mode=serial`, passes).
const FAKE_PEER: &str = r#"#!/bin/sh
t=0
rt=tbb
check="wrong answer"
for a in "$@"; do case "$a" in threads=*) t="${a#threads=}";; mode=serial) rt=serial; check=ok;; esac; done
echo "{\"runtime\":\"$rt\",\"workload\":\"$1\",\"threads\":$t,\"rep\":0,\"time_ns\":1000,\"check\":\"$check\"}"
"#;

#[test]
fn a_failed_check_fails_the_run_but_not_the_report() {
    // Only workloads with a peer version are given to peers.
    let Some(w) = finegrain_workloads::all().into_iter().find(|w| w.prepare(finegrain_workloads::Size::Test, 42).peer_args().is_some()) else {
        eprintln!("no workload has a peer version: nothing to test");
        return;
    };
    let out = scratch("failures");
    let peers = out.join("fake-peers");
    std::fs::create_dir_all(&peers).unwrap();
    let exe = peers.join("peer_tbb");
    std::fs::write(&exe, FAKE_PEER).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();

    let args =
        ["bench", "--workloads", w.name(), "--policies", "ws", "--threads", "1", "--size", "test", "--reps", "2", "--warmup", "0", "--no-rayon"];
    let (code, stdout, stderr) =
        finegrain(&[&args[..], &["--out", out.to_str().unwrap(), "--peers", "--peers-dir", peers.to_str().unwrap()]].concat());
    assert_eq!(code, 1, "stdout: {stdout}\nstderr: {stderr}");
    // Each failure is printed when it happens and again in the closing list.
    assert_eq!(stderr.matches("CHECK FAILED").count(), 2 * 2, "{stderr}");
    assert!(stderr.contains("2 FAILURE(S)"), "{stderr}");
    assert!(stderr.contains("wrong answer") && stderr.contains("peer omp"), "{stderr}");
    assert!(stdout.contains("(2 FAILED)"), "{stdout}");

    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(doc["failures"].as_array().unwrap().len(), 2);
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.iter().filter(|r| r["runtime"] == "tbb" && r["check"] != "ok").count(), 2);
    assert!(runs.iter().any(|r| r["runtime"] == "finegrain" && r["check"] == "ok"), "the other runs went on");
    assert_eq!(
        runs.iter().filter(|r| r["runtime"] == "tbb-serial" && r["check"] == "ok").count(),
        2,
        "the peer's own serial program ran in the same interleaved run"
    );
    assert!(out.join("results.csv").exists() && out.join("speedup.png").exists());
    let _ = std::fs::remove_dir_all(&out);
}
