//! User input files: `--input FILE` for the sparse and graph workloads, and
//! the PGM image `FINEGRAIN_CANNY_PGM` names for canny. A bad file is a clean
//! error naming the file and the place in it: no panic, no backtrace.

mod common;
use common::scratch;
use std::process::Command;

/// Run `finegrain` with `args` and the environment variable `var` set;
/// returns (exit code, stdout, stderr).
fn finegrain_with(var: (&str, &std::path::Path), args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_finegrain"))
        .args(args)
        .env(var.0, var.1)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("the finegrain binary runs");
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn a_bad_canny_image_is_a_clean_error() {
    let dir = scratch("canny-pgm");
    std::fs::create_dir_all(&dir).unwrap();
    let image = dir.join("huge.pgm");
    std::fs::write(&image, "P2\n2147483648 1073741824\n255\n0 1 2\n").unwrap();
    let out = dir.join("out");
    let o = out.to_str().unwrap();
    let args = [
        "bench",
        "--workloads",
        "canny",
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
        "--no-plots",
        "--out",
        o,
    ];
    let (code, stdout, stderr) = finegrain_with(("FINEGRAIN_CANNY_PGM", &image), &args);
    assert_eq!(code, 1, "stdout: {stdout}\nstderr: {stderr}");
    let want = format!("RUN FAILED: canny: FINEGRAIN_CANNY_PGM: {}: line 2: an image of 2147483648x1073741824 pixels", image.display());
    assert!(stderr.contains(&want), "{stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"), "{stderr}");
    // `list` shows the error in place of the input.
    let (code, stdout, stderr) = finegrain_with(("FINEGRAIN_CANNY_PGM", &image), &["list", "--sizes", "test"]);
    assert_eq!(code, 0, "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains("line 2: an image of 2147483648x1073741824 pixels"), "{stdout}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small symmetric positive definite matrix (a path's Laplacian plus 2 on
/// the diagonal), stored as its lower triangle.
const SPD: &str =
    "%%MatrixMarket matrix coordinate real symmetric\n% a 5x5 SPD matrix\n5 5 9\n1 1 3\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n4 3 -1\n4 4 4\n5 4 -1\n5 5 3\n";

/// A directed graph: a cycle with a chord, an island and a self loop.
const GRAPH: &str = "# SNAP style\n0 1\n1 2\n2 3\n3 0\n0 2\n5 6\n4 4\n";

/// `bench --input FILE` at the test size with the given extra arguments: the
/// exit status, stdout, stderr, and the CSV rows as (workload, input, runtime, check).
fn bench_on(name: &str, contents: &str, extra: &[&str]) -> (i32, String, String, Vec<[String; 4]>) {
    let dir = scratch(name);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, contents).unwrap();
    let out = dir.join("out");
    let (f, o) = (file.to_str().unwrap(), out.to_str().unwrap());
    let mut args = vec![
        "bench",
        "--input",
        f,
        "--policies",
        "ws",
        "--threads",
        "1,2",
        "--size",
        "test",
        "--reps",
        "1",
        "--warmup",
        "0",
        "--no-plots",
        "--out",
        o,
    ];
    args.extend(extra);
    let (code, stdout, stderr) = common::finegrain(&args);
    let mut rows = Vec::new();
    if let Ok(mut rdr) = csv::Reader::from_path(out.join("results.csv")) {
        let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
        let col = |n: &str| header.iter().position(|h| h == n).unwrap();
        for r in rdr.records().map(Result::unwrap) {
            rows.push([r[col("workload")].to_string(), r[col("input")].to_string(), r[col("runtime")].to_string(), r[col("check")].to_string()]);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    (code, stdout, stderr, rows)
}

fn workloads_in(rows: &[[String; 4]]) -> Vec<String> {
    let mut v: Vec<String> = rows.iter().map(|r| r[0].clone()).collect();
    v.dedup();
    v
}

#[test]
fn a_matrix_runs_every_workload_that_takes_one() {
    let (code, stdout, stderr, rows) = bench_on("spd.mtx", SPD, &[]);
    assert_eq!(code, 0, "stdout: {stdout}\nstderr: {stderr}");
    assert!(stderr.contains("input ") && stderr.contains("spd.mtx: a 5x5 matrix with 13 entries"), "{stderr}");
    assert_eq!(workloads_in(&rows), ["spmv", "sptranspose", "pagerank", "bfs", "cg", "cf", "fs", "bs"]);
    // Serial once and ws at 1 and 2 threads per workload (and maybe Rayon), every check ok.
    assert!(rows.iter().all(|r| r[3] == "ok" && r[1].starts_with("spd.mtx: ")), "{rows:?}");
    for w in ["spmv", "cg"] {
        assert_eq!(rows.iter().filter(|r| r[0] == w && r[2] == "finegrain").count(), 2, "{w}: {rows:?}");
    }
    assert!(stdout.contains("spd.mtx: n=5, 13 nonzeros, 60 iterations"), "{stdout}");
}

#[test]
fn a_graph_runs_what_takes_a_graph_and_says_what_it_skips() {
    let (code, stdout, stderr, rows) = bench_on("g.el", GRAPH, &["--no-rayon"]);
    assert_eq!(code, 0, "stdout: {stdout}\nstderr: {stderr}");
    assert_eq!(workloads_in(&rows), ["spmv", "sptranspose", "pagerank", "bfs"]);
    assert!(rows.iter().all(|r| r[3] == "ok"), "{rows:?}");
    assert!(stderr.contains("g.el: skipped: cg solves A x = b for a symmetric positive definite matrix"), "{stderr}");
    // Named workloads run alone.
    let (code, stdout, stderr, rows) = bench_on("g.el", GRAPH, &["--workloads", "bfs"]);
    assert_eq!(code, 0, "stdout: {stdout}\nstderr: {stderr}");
    assert_eq!(workloads_in(&rows), ["bfs"]);
    assert!(rows.iter().all(|r| r[3] == "ok" && r[1] == "g.el: n=7 m=12 sources=2"), "{rows:?}");
}

/// Everything wrong with an input file is found before anything runs: exit
/// status 2, the file named, no output directory.
#[test]
fn bad_input_files_are_rejected_before_anything_runs() {
    let rejected = |name: &str, contents: Option<&str>, extra: &[&str], want: &[&str]| {
        let dir = scratch(&format!("bad-input-{name}"));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(name);
        if let Some(c) = contents {
            std::fs::write(&file, c).unwrap();
        }
        let out = dir.join("out");
        let (f, o) = (file.to_str().unwrap(), out.to_str().unwrap());
        let mut args = vec!["bench", "--input", f, "--size", "test", "--out", o];
        args.extend(extra);
        let (code, stdout, stderr) = common::finegrain(&args);
        assert_eq!(code, 2, "{name} {extra:?}\nstdout: {stdout}\nstderr: {stderr}");
        assert!(stderr.contains(&format!("finegrain: error: --input {f}")), "{name}: {stderr}");
        for w in want {
            assert!(stderr.contains(w), "{name} {extra:?}: {w:?} not in {stderr}");
        }
        assert!(stdout.is_empty() && !out.exists(), "{name}: ran: {stdout}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        let _ = std::fs::remove_dir_all(&dir);
    };
    rejected("missing.mtx", None, &[], &["No such file"]);
    rejected(
        "huge.mtx",
        Some("%%MatrixMarket matrix coordinate real general\n4294967295 4294967295 1\n1 1 1\n"),
        &[],
        &["line 2: the header declares 4294967295 rows, above the limit"],
    );
    rejected("bad.el", Some("0 1\n1 two\n"), &[], &["line 2: bad vertex id \"two\""]);
    rejected("image.pgm", Some("P2 1 1 255\n0\n"), &[], &["a PGM image, not a matrix or a graph"]);
    let wide = "%%MatrixMarket matrix coordinate real general\n2 3 2\n1 3 1\n2 1 1\n";
    rejected("wide.mtx", Some(wide), &["--workloads", "bfs"], &["bfs runs on a graph: the 2x3 matrix is not square"]);
    rejected("wide.mtx", Some(wide), &["--workloads", "cg"], &["cg solves A x = b, so it needs a square matrix, not 2x3"]);
    rejected("g.el", Some(GRAPH), &["--workloads", "spmv,cg"], &["give it a Matrix Market file"]);
    rejected(
        "g.el",
        Some(GRAPH),
        &["--workloads", "fib"],
        &["fib takes no input file (the workloads that do: spmv, sptranspose, pagerank, bfs, cg, cf, fs, bs)"],
    );
    rejected("loops.el", Some("# no edges\n"), &[], &["no workload runs on it", "spmv", "bfs needs a graph with at least one edge"]);
}
