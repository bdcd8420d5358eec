//! `finegrain sim --locality`: a small sweep runs every manager and stealing
//! scheme asked for and writes one CSV row per simulation; bad input is a
//! usage error naming the bad value.

mod common;
use common::{finegrain, scratch};

#[test]
fn a_small_sweep_writes_every_row() {
    let dir = scratch("locality");
    let (code, stdout, stderr) = finegrain(&[
        "sim",
        "--locality",
        "--size",
        "test",
        "--workloads",
        "conv,hj",
        "--managers",
        "baseline,random,reference,hint",
        "--stealing",
        "baseline,recursive",
        "--offline",
        "4",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("Task space managers") && stdout.contains("Stealing with offline threads"), "{stdout}");
    let csv = std::fs::read_to_string(dir.join("locality.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    // 2 presets x 2 workloads x (4 managers + 1 offline count x 2 schemes).
    assert_eq!(rows.len(), 2 * 2 * (4 + 2), "{csv}");
    for r in &rows {
        let f: Vec<&str> = r.split(',').collect();
        assert_eq!(f.len(), 14, "{r}");
        let (tasks, cycles): (u64, f64) = (f[8].parse().unwrap(), f[6].parse().unwrap());
        assert!(tasks > 0 && cycles > 0.0, "{r}");
        if f[5] == "4" {
            assert!(f[9].parse::<u64>().unwrap() > 0, "offline threads' tasks must be stolen: {r}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_locality_input_is_a_usage_error() {
    for (args, needle) in [
        (vec!["--workloads", "fib"], "not a locality workload"),
        (vec!["--managers", "hint,psychic"], "psychic"),
        (vec!["--managers", "hint"], "must include baseline"),
        (vec!["--stealing", "greedy"], "greedy"),
        (vec!["--offline", "32"], "leaves no thread online"),
        (vec!["--preset", "nope"], "nope"),
    ] {
        let mut a = vec!["sim", "--locality", "--size", "test"];
        a.extend(args);
        let (code, _, stderr) = finegrain(&a);
        assert_eq!(code, 2, "{a:?}: {stderr}");
        assert!(stderr.contains(needle), "{a:?}: {stderr}");
    }
}
