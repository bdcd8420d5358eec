//! Helpers shared by the integration tests: run the binary, make scratch dirs.

#![allow(dead_code)] // each test file uses a different subset

use std::path::PathBuf;
use std::process::{Command, Output};

/// Run `finegrain` with `args`, stdin closed, the trace cache off (tests
/// leave no `results/traces/` behind); returns (exit code, stdout, stderr).
pub fn finegrain(args: &[&str]) -> (i32, String, String) {
    let Output { status, stdout, stderr } =
        Command::new(env!("CARGO_BIN_EXE_finegrain")).args(args).env("FINEGRAIN_NO_TRACE_CACHE", "1").output().expect("the finegrain binary runs");
    (status.code().unwrap_or(-1), String::from_utf8_lossy(&stdout).into_owned(), String::from_utf8_lossy(&stderr).into_owned())
}

/// A fresh, empty directory path (not created) unique to this test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("finegrain-cli-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A workload that is cheap at the test size: `fib` if registered, else the first.
pub fn some_workload() -> Option<String> {
    let all = finegrain_workloads::all();
    all.iter().find(|w| w.name() == "fib").or(all.first()).map(|w| w.name().to_string())
}
