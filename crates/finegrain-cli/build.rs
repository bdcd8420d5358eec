//! Records in the binary what it was built from: the compiler version and the
//! git commit. Results must name the rustc and the source that produced the code
//! being measured, not whatever is on PATH or checked out when it runs.
//!
//! It also hashes the sources a recorded trace depends on (the workloads and
//! the whole runtime, whose constructs record themselves), so that the trace cache (`src/record.rs`)
//! misses when any of them changes: `FINEGRAIN_RECORDING_SOURCES`.

use std::path::Path;
use std::process::Command;

fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok().filter(|o| o.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string()).filter(|s| !s.is_empty())
}

/// FNV-1a over every `.rs` file under `dir`, in path order (path and bytes).
fn hash_tree(dir: &Path, h: &mut u64) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect()).unwrap_or_default();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            hash_tree(&p, h);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let name = p.strip_prefix(dir).unwrap_or(&p).to_string_lossy().into_owned();
            for b in name.bytes().chain(std::fs::read(&p).unwrap_or_default()) {
                *h = (*h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
}

fn recording_sources(manifest: &Path) {
    let crates = manifest.parent().unwrap_or(manifest);
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    // The whole runtime: its phases, graphs, loops and scopes record
    // themselves (`record::active()` paths all over it), and a change to
    // any of them changes the traces.
    for part in ["finegrain-workloads/src", "finegrain/src"] {
        let p = crates.join(part);
        println!("cargo:rerun-if-changed={}", p.display());
        if p.is_dir() {
            hash_tree(&p, &mut h);
        } else {
            for b in std::fs::read(&p).unwrap_or_default() {
                h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    println!("cargo:rustc-env=FINEGRAIN_RECORDING_SOURCES={h:016x}");
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = output(Command::new(rustc).arg("-V")).unwrap_or_default();
    println!("cargo:rustc-env=FINEGRAIN_CLI_RUSTC={version}");
    println!("cargo:rustc-env=FINEGRAIN_CLI_PROFILE={}", std::env::var("PROFILE").unwrap_or_default());

    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    recording_sources(Path::new(&dir));
    let git = |args: &[&str]| output(Command::new("git").arg("-C").arg(&dir).args(args));
    if let Some(commit) = git(&["rev-parse", "HEAD"]) {
        println!("cargo:rustc-env=FINEGRAIN_CLI_GIT_COMMIT={commit}");
        // Build again when HEAD moves: a commit rewrites the branch's ref file
        // (or packed-refs), a checkout rewrites HEAD.
        if let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) {
            let mut watch = vec!["HEAD".to_string(), "packed-refs".to_string()];
            watch.extend(git(&["symbolic-ref", "-q", "HEAD"]));
            for f in watch {
                let path = Path::new(&git_dir).join(f);
                // A missing file would make cargo rerun this script on every build.
                if path.exists() {
                    println!("cargo:rerun-if-changed={}", path.display());
                }
            }
        }
    }
}
