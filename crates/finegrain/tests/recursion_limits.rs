//! The documented `join` recursion depth of every policy (README, "Limits"),
//! checked in child processes, as Rayon checks its stack overflows: a child
//! runs a recursion at the documented depth, which must succeed, and one at
//! four times that, which must die of a stack overflow (a crash the OS
//! reports, not a hang and not a wrong result).

use std::process::Command;

/// The documented depth for the default 16 MiB worker stack, by mechanism,
/// for this build's profile (frames are far larger without optimisation).
fn documented_depth(policy: &str) -> u32 {
    let release = !cfg!(debug_assertions);
    match policy {
        "adm-central" | "adm-hier" | "adm-paper-central" | "adm-paper-hier" => {
            if release {
                180_000
            } else {
                15_000
            }
        }
        "ws" | "ws-paper" => {
            if release {
                80_000
            } else {
                5_000
            }
        }
        "carbon" | "carbon-paper" => {
            if release {
                30_000
            } else {
                2_500
            }
        }
        "sw-hier" | "pdf" => {
            if release {
                12_000
            } else {
                2_500
            }
        }
        _ => {
            if release {
                30_000
            } else {
                4_000
            }
        }
    }
}

fn deep(n: u32) -> u32 {
    if n == 0 {
        0
    } else {
        finegrain::join(|| deep(n - 1), || 1).0 + 1
    }
}

const CHILD: &str = "FINEGRAIN_RECURSION_CHILD";

/// The child's side: does nothing unless the parent set `CHILD` to
/// `policy:depth`.
#[test]
fn child_recursion() {
    let Ok(spec) = std::env::var(CHILD) else { return };
    let (policy, depth) = spec.rsplit_once(':').expect("policy:depth");
    let depth: u32 = depth.parse().expect("depth");
    let pool = finegrain::Pool::new(1, policy).expect("pool");
    assert_eq!(pool.install(|| deep(depth)), depth);
}

/// Run the child at `depth`; true if it exited successfully.
fn child_ok(policy: &str, depth: u32) -> bool {
    let exe = std::env::current_exe().expect("test binary");
    let out = Command::new(exe)
        .args(["child_recursion", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, format!("{policy}:{depth}"))
        .output()
        .expect("run the child");
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("overflowed its stack"), "{policy} at depth {depth} failed, but not by a stack overflow: {err}");
    }
    out.status.success()
}

#[test]
fn every_policy_reaches_its_documented_depth_and_overflows_cleanly_past_it() {
    for info in finegrain::policies() {
        let d = documented_depth(info.name);
        assert!(child_ok(info.name, d), "{}: a recursion {d} deep overflowed the stack", info.name);
        assert!(!child_ok(info.name, 4 * d), "{}: a recursion {} deep succeeded: the documented limit is stale", info.name, 4 * d);
    }
}
