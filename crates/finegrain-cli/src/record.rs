//! `finegrain record`: run a workload once, serially, with finegrain's
//! recorder on (`finegrain::record`), check its result against the serial
//! reference, and write its task graph as a trace (`finegrain_sim::trace`)
//! for `finegrain sim`.
//!
//! **The trace cache.** A recording at `paper` size takes up to a minute, and
//! the claims simulate the same traces many times, so recordings are kept in
//! [`TRACE_DIR`] under a name that carries their key: a hash of the workload,
//! size, seed, the instance's own description of its input, [`CACHE_VERSION`]
//! (the recorder's and the format's), and a hash of the recording code's
//! sources taken at build time (the workloads, `finegrain::record`, the task
//! graph: `build.rs`), so that editing a workload or the recorder misses. A
//! file that does not load or does not name the same recording is recorded
//! again with a warning. `--no-cache` (or `FINEGRAIN_NO_TRACE_CACHE=1`)
//! records anew. Costs in a cached trace are the cycles of the recording
//! that wrote it.

use crate::cli::RecordArgs;
use crate::Failure;
use finegrain::taskgraph::{Clock, LineMap, Meta, TaskGraph, TaskKind};
use finegrain_sim::trace::WorkSpan;
use finegrain_workloads::Size;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// Where cached traces live (relative to the working directory).
pub const TRACE_DIR: &str = "results/traces";
/// Part of every cache key: bump when the recorder or the trace format
/// changes what a recording of unchanged sources contains.
pub const CACHE_VERSION: u32 = 1;
/// Hash of the recording code's sources (`build.rs`).
const SOURCES: &str = env!("FINEGRAIN_RECORDING_SOURCES");

/// The cache is on unless a command said `--no-cache`.
static CACHE: AtomicBool = AtomicBool::new(true);

/// Recordings made of each trace, keeping each work step's least cost
/// (`--repeat`; `TaskGraph::keep_least_costs`): a step the host preempted
/// in one recording is not in the others.
pub const DEFAULT_REPEATS: usize = 3;
static REPEATS: AtomicUsize = AtomicUsize::new(DEFAULT_REPEATS);

/// Record each trace `k` times (at least once) and keep each step's least cost.
pub fn set_repeats(k: usize) {
    REPEATS.store(k.max(1), Ordering::Relaxed);
}

fn repeats() -> usize {
    REPEATS.load(Ordering::Relaxed)
}

/// Turn the trace cache off for this process (`--no-cache`).
pub fn disable_cache() {
    CACHE.store(false, Ordering::Relaxed);
}

pub fn cache_on() -> bool {
    CACHE.load(Ordering::Relaxed) && std::env::var_os("FINEGRAIN_NO_TRACE_CACHE").is_none_or(|v| v.is_empty() || v == "0")
}

pub fn main(a: &RecordArgs) -> Result<bool, Failure> {
    let size = crate::specs::size(&a.size).map_err(Failure::Usage)?;
    crate::specs::workloads(Some(&a.workload)).map_err(Failure::Usage)?;
    if a.no_cache {
        disable_cache();
    }
    set_repeats(a.repeat.into());
    // Check the output path before the (possibly long) run.
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            return Err(Failure::Usage(format!("cannot write {}: no directory {}", a.out.display(), dir.display())));
        }
    }
    std::fs::File::create(&a.out).map_err(|e| Failure::Usage(format!("cannot write {}: {e}", a.out.display())))?;
    let (g, summary) = record_workload(&a.workload, size, a.seed).map_err(Failure::Fatal)?;
    finegrain_sim::trace::save(&g, &a.out).map_err(|e| Failure::Fatal(e.to_string()))?;
    let bytes = std::fs::metadata(&a.out).map(|m| m.len()).unwrap_or(0);
    outln!("{summary}");
    outln!("wrote {} ({:.1} MB, {:.1} bytes per task)", a.out.display(), bytes as f64 / 1e6, bytes as f64 / g.tasks.len().max(1) as f64);
    Ok(true)
}

/// The trace of workload `name` at `size` and `seed`, from the cache when it
/// holds it (else recorded and cached), with its work and span: what the
/// claims harness simulates.
pub fn cached_trace(name: &str, size: Size, seed: u64) -> Result<(TaskGraph, WorkSpan), String> {
    let (g, _) = record_workload(name, size, seed)?;
    let ws = finegrain_sim::trace::work_span(&g);
    Ok((g, ws))
}

/// Workload `name` at `size`: its task graph and a summary (tasks by kind,
/// loops, work, span, footprint, time taken), from the trace cache when it
/// is on and holds the recording; otherwise recorded now (the result checked
/// against the serial reference) and, with the cache on, stored.
pub fn record_workload(name: &str, size: Size, seed: u64) -> Result<(TaskGraph, String), String> {
    let w = finegrain_workloads::by_name(name).ok_or_else(|| format!("unknown workload {name:?} (see `finegrain list`)"))?;
    let inst = w.try_prepare(size, seed)?;
    let path = cache_path(Path::new(TRACE_DIR), name, size, seed, &inst.describe());
    if cache_on() {
        match load_cached(&path, name, size, seed) {
            Ok(Some(g)) => {
                let summary = summarize(&g, &format!("from the trace cache ({})", path.display()));
                return Ok((g, summary));
            }
            Ok(None) => {}
            Err(why) => eprintln!("warning: {why}; recording again"),
        }
    }
    let reference = inst.serial();
    let meta = Meta {
        workload: name.to_string(),
        size: size.name().to_string(),
        seed,
        clock: Clock::Tsc,
        cycles_per_ns: 0.0,
        line_map: LineMap::PagesByFirstTouch,
        line_cap: 0,
        lines_dropped: 0,
        note: format!(
            "recorded by `finegrain record`: serial run at one thread of {} ({}); costs in time-stamp-counter cycles; footprints declared by the workload (finegrain::record::read/write)",
            inst.describe(),
            if size == Size::Paper && !w.paper_size() { "paper size: the full input, the workload has no paper-scale one" } else { size.name() }
        ),
    };
    let t0 = Instant::now();
    let once = || -> Result<TaskGraph, String> {
        let (got, g) = finegrain::record::record(meta.clone(), || inst.parallel()).map_err(|e| e.to_string())?;
        inst.check(&reference, &got).map_err(|e| format!("{name}: the recorded run's result does not match the serial reference: {e}"))?;
        Ok(g)
    };
    let mut g = once()?;
    let mut kept = 1;
    for _ in 1..repeats() {
        let other = once()?;
        if let Err(e) = g.keep_least_costs(&other) {
            eprintln!("warning: {name}: {e}; keeping the costs of {kept} recording(s)");
            break;
        }
        kept += 1;
    }
    if kept > 1 {
        g.meta.note.push_str(&format!("; each work step's cost is the least of {kept} recordings (preemptions by the host left out)"));
    }
    let took = t0.elapsed().as_secs_f64();
    if cache_on() {
        if let Err(e) = store(&g, &path) {
            eprintln!("warning: trace not cached: {e}");
        }
    }
    let summary = summarize(&g, &format!("{kept} recording(s) in {took:.2} s"));
    Ok((g, summary))
}

/// The cache file of one recording: `DIR/NAME-SIZE-sSEED-KEY.trace`, the key
/// a hash of everything the trace depends on (see the module doc).
pub fn cache_path(dir: &Path, name: &str, size: Size, seed: u64, describe: &str) -> PathBuf {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let key =
        format!("{name}\0{}\0{seed}\0{describe}\0{CACHE_VERSION}\0{}\0{SOURCES}\0{}", size.name(), finegrain_sim::trace::format::VERSION, repeats());
    for b in key.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    dir.join(format!("{name}-{}-s{seed}-{h:016x}.trace", size.name()))
}

/// The cached trace at `path`: `None` if there is none, an error if the file
/// is there but unreadable, corrupt or of another recording.
fn load_cached(path: &Path, name: &str, size: Size, seed: u64) -> Result<Option<TaskGraph>, String> {
    if !path.exists() {
        return Ok(None);
    }
    let g = finegrain_sim::trace::load(path).map_err(|e| format!("cached trace {} does not load ({e})", path.display()))?;
    let m = &g.meta;
    if m.workload != name || m.size != size.name() || m.seed != seed {
        return Err(format!(
            "cached trace {} holds {} ({}, seed {}), not {name} ({}, seed {seed})",
            path.display(),
            m.workload,
            m.size,
            m.seed,
            size.name()
        ));
    }
    Ok(Some(g))
}

/// Write `g` to `path` through a temporary file, so that an interrupted
/// write never leaves a truncated trace under the cache's name.
fn store(g: &TaskGraph, path: &Path) -> Result<(), String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    finegrain_sim::trace::save(g, &tmp).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot rename {} to {}: {e}", tmp.display(), path.display()))
}

/// Tasks by kind, loops, work, footprint, then work and span, and `how`
/// (recorded in so long, or from the cache).
fn summarize(g: &TaskGraph, how: &str) -> String {
    let mut kinds = String::new();
    for k in TaskKind::ALL {
        let c = g.tasks.iter().filter(|t| t.kind == k).count();
        if c > 0 {
            kinds.push_str(&format!("{c} {}, ", k.name()));
        }
    }
    let lines: u64 = g.lines.iter().map(|l| l.count as u64).sum();
    format!(
        "{} ({}): {} tasks ({}), {} loops, {:.2} M cycles of work ({:.2} GHz clock), {} line runs ({:.2} M lines, {} dropped at the cap of {} runs per stretch); {how}\n  {}",
        g.meta.workload,
        g.meta.size,
        g.tasks.len(),
        kinds.trim_end_matches(", "),
        g.loops.len(),
        g.total_cycles() as f64 / 1e6,
        g.meta.cycles_per_ns,
        g.lines.len(),
        lines as f64 / 1e6,
        g.meta.lines_dropped,
        g.meta.line_cap,
        span_line(g),
    )
}

/// Work, span, parallelism, the root's share, and where costs come from.
pub fn span_line(g: &TaskGraph) -> String {
    let ws = finegrain_sim::trace::work_span(g);
    let region = if g.meta.region() { "measured region only" } else { "whole run (no measured region)" };
    format!("{ws} ({} clock; {region})", g.meta.clock.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_names_carry_every_part_of_the_key() {
        let dir = Path::new("d");
        let base = cache_path(dir, "cilksort", Size::Paper, 42, "n=1");
        let name = base.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("cilksort-paper-s42-") && name.ends_with(".trace"), "{name}");
        for other in [
            cache_path(dir, "uts", Size::Paper, 42, "n=1"),
            cache_path(dir, "cilksort", Size::Full, 42, "n=1"),
            cache_path(dir, "cilksort", Size::Paper, 43, "n=1"),
            cache_path(dir, "cilksort", Size::Paper, 42, "n=2"),
        ] {
            assert_ne!(base, other);
        }
        assert_eq!(base, cache_path(dir, "cilksort", Size::Paper, 42, "n=1"));
    }

    #[test]
    fn a_corrupt_or_foreign_cache_file_is_an_error_not_a_trace() {
        let dir = std::env::temp_dir().join(format!("finegrain-cache-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.trace");
        assert_eq!(load_cached(&path, "fib", Size::Test, 1), Ok(None));
        std::fs::write(&path, b"not a trace").unwrap();
        assert!(load_cached(&path, "fib", Size::Test, 1).unwrap_err().contains("does not load"));
        let g = TaskGraph::new(Meta::synthetic("fib", "test", 1));
        store(&g, &path).unwrap();
        assert!(load_cached(&path, "fib", Size::Test, 1).unwrap().is_some());
        assert!(load_cached(&path, "fib", Size::Test, 2).unwrap_err().contains("not fib (test, seed 2)"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
