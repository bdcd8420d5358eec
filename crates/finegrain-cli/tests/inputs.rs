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
