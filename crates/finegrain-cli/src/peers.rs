//! Running the peers (`peers/`): one process per call, no shell.
//!
//! The C++ peers' protocol: `peer_<name> <workload> <key=value ...> threads=<t>
//! reps=<r>` prints one JSON object per repetition on its own line:
//! `{"runtime":"tbb","workload":"fib","threads":2,"rep":0,"time_ns":123456,"check":"ok"}`
//! where `check` is the peer's comparison with its own serial reference.
//!
//! Phoenix's programs (`peers/phoenix/peer_phoenix`, whose README is the
//! contract) answer the same protocol behind one driver that takes the
//! program first (`phoenix2`, `phoenix2-seq`, `phoenix++`), and add a
//! `digest` of their printed result, which is compared with the digest the
//! workload computes from its serial reference.

use serde::Deserialize;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The C++ peers we know how to call, by runtime name.
pub const KNOWN: [&str; 2] = ["tbb", "omp"];
/// Phoenix's MapReduce programs, by runtime name.
pub const PHOENIX: [&str; 2] = ["phoenix2", "phoenix++"];

/// The runtime name of a peer's own serial program in reports.
pub fn serial_name(peer: &str) -> &'static str {
    match peer {
        "tbb" => "tbb-serial",
        "omp" => "omp-serial",
        "phoenix2" => "phoenix2-seq",
        _ => "peer-serial",
    }
}

/// Whether a peer has a serial program of its own (Phoenix++ has none).
pub fn has_serial(peer: &str) -> bool {
    peer != "phoenix++"
}

/// Whether speedups of `peer` are over its own serial program: the C++
/// peers' serial programs time what their parallel ones time. Phoenix 2's
/// sequential programs print no time of their own, so the driver reports
/// their whole process (input reading included) and Phoenix is measured
/// against the Rust serial reference instead.
pub fn own_baseline(peer: &str) -> Option<&'static str> {
    KNOWN.contains(&peer).then(|| serial_name(peer))
}

/// How a peer is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `peer_<name> <workload> ...`, the workload's `peer_args`.
    Cpp,
    /// `peer_phoenix <program> <workload> ...`, the workload's `phoenix` input.
    Phoenix,
}

/// A peer call that takes longer than this is killed and reported as failed.
const TIMEOUT: Duration = Duration::from_secs(600);

#[derive(Clone, Debug)]
pub struct Peer {
    /// `tbb`, `omp`, `phoenix2` or `phoenix++`, as in the results.
    pub name: &'static str,
    pub path: PathBuf,
    pub kind: Kind,
}

/// Where Phoenix's driver lives, beside the C++ peers' build folder
/// (`peers/build` -> `peers/phoenix`).
fn phoenix_dir(dir: &Path) -> PathBuf {
    dir.parent().unwrap_or(Path::new(".")).join("phoenix")
}

/// The peers whose executables exist in `dir` (and Phoenix's, built in
/// `peers/phoenix/build`), and one message per missing one.
pub fn discover(dir: &Path) -> (Vec<Peer>, Vec<String>) {
    let mut found = Vec::new();
    let mut missing = Vec::new();
    for name in KNOWN {
        let path = dir.join(format!("peer_{name}"));
        if path.is_file() {
            found.push(Peer { name, path, kind: Kind::Cpp });
        } else {
            missing.push(format!("peer {name}: {} not found (build peers/ first); skipping it", path.display()));
        }
    }
    let ph = phoenix_dir(dir);
    for name in PHOENIX {
        let built = ph.join("build/bin").join(format!("{name}-word_count"));
        if built.is_file() && ph.join("peer_phoenix").is_file() {
            found.push(Peer { name, path: ph.join("peer_phoenix"), kind: Kind::Phoenix });
        } else {
            missing.push(format!("peer {name}: {} not found (peers/phoenix/build.sh builds it); skipping it", built.display()));
        }
    }
    (found, missing)
}

/// Like [`discover`], but when a peer is missing and `dir`'s parent holds
/// `build.sh` (the repository's `peers/`), run it once first (it installs
/// cmake, g++ and oneTBB when it can, then builds): `finegrain bench --peers`
/// works on a fresh machine after the README's set-up.
pub fn discover_or_build(dir: &Path) -> (Vec<Peer>, Vec<String>) {
    let (found, missing) = discover(dir);
    if missing.is_empty() {
        return (found, missing);
    }
    let cpp_missing = KNOWN.iter().any(|n| !found.iter().any(|p| p.name == *n));
    let scripts = [
        (cpp_missing, dir.parent().map(|p| p.join("build.sh")), "the C++ peers"),
        (PHOENIX.iter().any(|n| !found.iter().any(|p| p.name == *n)), Some(phoenix_dir(dir).join("build.sh")), "Phoenix"),
    ];
    let mut notes = Vec::new();
    for (needed, script, what) in scripts {
        let Some(script) = script.filter(|s| needed && s.is_file()) else { continue };
        eprintln!("finegrain: building {what} with {} ...", script.display());
        match Command::new("bash").arg(&script).stdout(Stdio::null()).status() {
            Ok(s) if s.success() => {}
            Ok(s) => notes.push(format!("{} failed ({s}); peers that did not build are skipped", script.display())),
            Err(e) => notes.push(format!("could not run {}: {e}", script.display())),
        }
    }
    let (found, mut missing) = discover(dir);
    missing.extend(notes);
    (found, missing)
}

/// One repetition as the peer reported it.
#[derive(Clone, Debug, Deserialize)]
pub struct PeerRep {
    pub runtime: String,
    pub workload: String,
    pub threads: usize,
    pub rep: usize,
    pub time_ns: u64,
    pub check: String,
    /// Phoenix's programs: the digest of their printed result.
    #[serde(default)]
    pub digest: Option<String>,
}

impl Peer {
    /// Run `reps` repetitions of `workload` with `threads` threads; `serial`:
    /// the peer's own serial program instead (`mode=serial`), which its
    /// speedups are measured against.
    pub fn run(&self, workload: &str, peer_args: &str, threads: usize, reps: usize, serial: bool) -> Result<Vec<PeerRep>, String> {
        let mut cmd = Command::new(&self.path);
        let expect_runtime = match (self.kind, serial) {
            (Kind::Cpp, true) => "serial",
            (Kind::Phoenix, true) => serial_name(self.name),
            (_, false) => self.name,
        };
        if self.kind == Kind::Phoenix {
            cmd.arg(expect_runtime);
        }
        cmd.arg(workload).args(peer_args.split_whitespace()).arg(format!("threads={threads}")).arg(format!("reps={reps}")).stdin(Stdio::null());
        if serial && self.kind == Kind::Cpp {
            cmd.arg("mode=serial");
        }
        let (status, stdout, stderr) = run_with_timeout(cmd, TIMEOUT).map_err(|e| format!("{}: {e}", self.path.display()))?;
        if !status {
            return Err(format!("{} {workload} failed: {}", self.name, last_lines(&stderr, 5)));
        }
        let reps_seen = parse_lines(&stdout)?;
        for r in &reps_seen {
            if r.runtime != expect_runtime || r.workload != workload || r.threads != threads {
                return Err(format!(
                    "{} {workload} threads={threads} answered for runtime {:?}, workload {:?}, threads {}",
                    self.name, r.runtime, r.workload, r.threads
                ));
            }
        }
        let mut numbers: Vec<usize> = reps_seen.iter().map(|r| r.rep).collect();
        numbers.sort_unstable();
        if numbers != (0..reps).collect::<Vec<_>>() {
            return Err(format!("{} {workload}: expected result lines for reps 0..{reps}, got reps {numbers:?}", self.name));
        }
        Ok(reps_seen)
    }
}

/// Every line that looks like a JSON object is a result; other lines are the
/// peer's own chatter and are ignored.
fn parse_lines(stdout: &str) -> Result<Vec<PeerRep>, String> {
    stdout
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str::<PeerRep>(l).map_err(|e| format!("bad peer output line {l:?}: {e}")))
        .collect()
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(n)..].join(" | ");
    if tail.is_empty() {
        "(no message)".into()
    } else {
        tail
    }
}

/// Run to completion or kill at `limit`. Output is drained by two threads so a
/// chatty child never blocks on a full pipe. Returns (success, stdout, stderr).
fn run_with_timeout(mut cmd: Command, limit: Duration) -> Result<(bool, String, String), String> {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|e| e.to_string())?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut s);
            }
            s
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let start = Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(s) => break Some(s),
            None if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    };
    let (stdout, stderr) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    match status {
        Some(s) => Ok((s.success(), stdout, stderr)),
        None => Err(format!("killed after {} s without finishing", limit.as_secs())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_result_lines_and_skips_chatter() {
        let out = "warming up\n{\"runtime\":\"tbb\",\"workload\":\"fib\",\"threads\":2,\"rep\":0,\"time_ns\":123,\"check\":\"ok\"}\n";
        let v = parse_lines(out).unwrap();
        assert_eq!((v.len(), v[0].time_ns, v[0].check.as_str()), (1, 123, "ok"));
        assert!(parse_lines("{\"runtime\":1}").is_err());
        let ph = "{\"runtime\":\"phoenix2\",\"workload\":\"pca\",\"threads\":2,\"rep\":0,\"time_ns\":5,\"check\":\"ok\",\"digest\":\"00ff\",\"total_ns\":9}";
        assert_eq!(parse_lines(ph).unwrap()[0].digest.as_deref(), Some("00ff"));
    }

    #[test]
    fn missing_peers_are_reported() {
        let (found, missing) = discover(Path::new("/nonexistent-dir"));
        assert!(found.is_empty());
        assert_eq!(missing.len(), KNOWN.len() + PHOENIX.len());
    }

    #[test]
    fn a_real_process_runs_without_a_shell() {
        let peer = Peer { name: "tbb", path: PathBuf::from("/bin/echo"), kind: Kind::Cpp };
        // echo prints its arguments, which are not JSON: zero result lines.
        let e = peer.run("fib", "n=10", 2, 1, false).unwrap_err();
        assert!(e.contains("expected result lines"), "{e}");
    }
}
