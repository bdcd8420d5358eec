//! Bad command lines are rejected before anything runs: exit status 2, a
//! message naming the problem, and no output directory.

mod common;
use common::{finegrain, scratch};

fn rejected(args: &[&str], out: &std::path::Path, expect: &[&str]) {
    let (code, stdout, stderr) = finegrain(args);
    assert_eq!(code, 2, "args {args:?}\nstdout: {stdout}\nstderr: {stderr}");
    for e in expect {
        assert!(stderr.contains(e), "args {args:?}: {e:?} not in stderr: {stderr}");
    }
    assert!(stdout.is_empty(), "nothing should be printed on stdout: {stdout}");
    assert!(!out.exists(), "{} was created", out.display());
}

#[test]
fn unknown_workload() {
    let out = scratch("unknown-workload");
    let o = out.to_str().unwrap();
    rejected(&["bench", "--workloads", "fib,no-such-workload", "--out", o], &out, &["unknown workload", "no-such-workload"]);
}

#[test]
fn unknown_policy_shows_the_parser_message() {
    let out = scratch("unknown-policy");
    let o = out.to_str().unwrap();
    rejected(&["bench", "--policies", "ws,psychic", "--out", o], &out, &["unknown policy", "psychic", "ws"]);
    rejected(&["bench", "--policies", "ws:victim=psychic", "--out", o], &out, &["psychic", "nearest"]);
    rejected(&["bench", "--policies", "ws:colour=red", "--out", o], &out, &["colour"]);
    rejected(&["bench", "--policies", "steal=one", "--out", o], &out, &["does not follow a policy name"]);
}

#[test]
fn zero_threads() {
    let out = scratch("zero-threads");
    let o = out.to_str().unwrap();
    rejected(&["bench", "--threads", "1,0", "--out", o], &out, &["at least 1"]);
    rejected(&["bench", "--threads", "two", "--out", o], &out, &["bad thread count"]);
}

#[test]
fn bad_size_and_reps() {
    let out = scratch("bad-size");
    let o = out.to_str().unwrap();
    rejected(&["bench", "--size", "huge", "--out", o], &out, &["unknown size", "small"]);
    rejected(&["bench", "--reps", "0", "--out", o], &out, &["--reps"]);
}

#[test]
fn metg_arguments() {
    let out = scratch("metg-bad");
    let o = out.to_str().unwrap();
    rejected(&["metg", "--patterns", "trivial,ring", "--out", o], &out, &["unknown pattern", "ring", "stencil-1d"]);
    rejected(&["metg", "--policies", "nope", "--out", o], &out, &["unknown policy"]);
    rejected(&["metg", "--threads", "0", "--out", o], &out, &["at least 1"]);
    rejected(&["metg", "--mode", "magic", "--out", o], &out, &["unknown mode"]);
    rejected(&["metg", "--max-iterations", "2", "--min-iterations", "8", "--out", o], &out, &["--max-iterations"]);
}

#[test]
fn thread_counts_above_the_maximum() {
    let out = scratch("too-many-threads");
    let o = out.to_str().unwrap();
    let max = finegrain::MAX_THREADS.to_string();
    let t0 = std::time::Instant::now();
    rejected(&["bench", "--threads", "1,100000", "--out", o], &out, &["100000", &max]);
    rejected(&["bench", "--threads", &(finegrain::MAX_THREADS + 1).to_string(), "--out", o], &out, &[&max]);
    rejected(&["metg", "--threads", "100000", "--out", o], &out, &["100000", &max]);
    // Rejected before any pool is started (starting 100,000 threads would not be quick).
    assert!(t0.elapsed() < std::time::Duration::from_secs(30), "{:?}", t0.elapsed());
}

/// An output directory that exists but cannot be written to is reported
/// before anything runs, not when the results are written at the end.
#[cfg(unix)]
#[test]
fn unwritable_output_directory_is_reported_before_the_run() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("unwritable-out");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Permissions do not stop root: then use a directory nobody can create files in.
    let probe = dir.join("probe");
    let out = if std::fs::write(&probe, b"").is_ok() {
        let _ = std::fs::remove_file(&probe);
        std::path::PathBuf::from("/proc")
    } else {
        dir.clone()
    };
    let o = out.to_str().unwrap();
    for cmd in ["bench", "metg"] {
        let args: &[&str] = match cmd {
            // A run that takes a while: it must not start.
            "bench" => &["bench", "--size", "small", "--reps", "5", "--no-plots", "--out", o],
            _ => &["metg", "--patterns", "trivial", "--steps", "50", "--no-plots", "--out", o],
        };
        let t0 = std::time::Instant::now();
        let (code, stdout, stderr) = finegrain(args);
        assert_eq!(code, 1, "{cmd}: stdout: {stdout}\nstderr: {stderr}");
        assert!(stderr.contains("cannot write") && stderr.contains(o), "{cmd}: {stderr}");
        assert!(!stderr.contains(&format!("finegrain {cmd}:")), "{cmd}: the run started: {stderr}");
        assert!(stdout.is_empty(), "{cmd}: {stdout}");
        assert!(t0.elapsed() < std::time::Duration::from_secs(30), "{cmd}: {:?}", t0.elapsed());
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
