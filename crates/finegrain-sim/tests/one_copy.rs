//! One copy of every decision (issue 26, item 4): each public function of
//! the runtime's decision modules (`crates/finegrain/src/policy/`, the
//! locality planners aside) is called both by the runtime's mechanisms and
//! by the simulator, or only by other decisions, or is listed below with
//! the reason it is on one side only. A new decision wired into one side
//! fails here until it is wired into the other or listed; a listed one
//! that is now wired into both fails until it is taken off the list.
//!
//! The check reads the sources: a function is called where its name is
//! followed by `(` or `::<` outside comments and outside its own `fn`
//! line. Common names can be matched by an unrelated call; the list is
//! short enough to read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Side {
    Runtime,
    Simulator,
    Neither,
}

/// Decisions on one side only, and why (`docs/simulation.md` has the list).
const ONE_SIDED: &[(&str, Side, &str)] = &[
    ("after_graph", Side::Runtime, "pdf: the serial position after a graph node; simulated graph nodes carry the trace's serial paths"),
    (
        "empty_answer",
        Side::Runtime,
        "notify: the interrupt path's back-off in microseconds; the simulator models delivery (interrupt, poll, ULI) instead",
    ),
    ("interrupt_now", Side::Runtime, "notify: when a starving worker signals a victim, in microseconds; the simulator models delivery instead"),
    ("rescue_due", Side::Runtime, "notify and sw-hier's `bound`: rescue timing in microseconds; not simulated"),
    ("rescue_victim", Side::Runtime, "notify: whom a rescue signal goes to; not simulated"),
    ("park_timeout_us", Side::Runtime, "notify and sw-hier: a parked thread's timeout; the simulator's sleepers wake on events"),
    ("wake_deep_sleepers", Side::Runtime, "notify: waking threads parked without timeout; the simulator's sleepers wake on events"),
    ("keeps_watch", Side::Runtime, "idle: the idle budget in wall-clock time; simulated idle workers sleep until woken"),
    ("needs_clock", Side::Runtime, "idle: the idle budget in wall-clock time"),
    ("next_timed", Side::Runtime, "idle: the idle budget in wall-clock time"),
    ("park_at_start", Side::Runtime, "idle: threads of a pool started before any work; the simulator starts with the trace"),
    ("pass_on_wake", Side::Runtime, "idle: chained wake-ups of parked threads; the simulator's wake cost is the preset's"),
    ("watch_interval_us", Side::Neither, "idle: the watch interval, for the idle budget's own tests"),
    ("nap_us", Side::Runtime, "idle: the idle budget in wall-clock time"),
    (
        "order",
        Side::Runtime,
        "search: the sources a worker of each mechanism searches, in order (`Mechanism::SEARCH`); each simulated mechanism has its own `find`",
    ),
    ("hosted_managers", Side::Runtime, "adm: which managers one thread hosts; the simulator holds every manager in one table (`all_managers`)"),
    ("in_flight", Side::Neither, "adm manager: the steals in flight, for the whole-tree model's checks (`hier_tests.rs`)"),
    (
        "take_any",
        Side::Runtime,
        "adm phase tokens: a manager passing tokens up; simulated, every leaf's token but the last is at the root already (it rode on a report), and the last one's hops are costed (`piggyback_end`)",
    ),
    ("recount_depth", Side::Runtime, "adm: when a join counts its frame marks; simulated queues are counted directly"),
    ("report_depth", Side::Runtime, "adm: when a join counts its frame marks; simulated queues are counted directly"),
    ("queued_at", Side::Runtime, "unit: the time stamp a central queue's key carries; simulated queues keep arrival order"),
    ("share_now", Side::Runtime, "sw-hier: moving private tasks to the global queue when a worker sleeps; not simulated yet"),
    ("uses_topology", Side::Runtime, "whether a pool pins its threads; the simulator has no threads"),
    ("policies", Side::Neither, "the registry's listing, for `finegrain list`"),
    ("decrease_due", Side::Simulator, "adm: the runtime calls its window form, `decrease_window`, once per report and compares on the dequeue path"),
    ("underflow_threshold", Side::Simulator, "carbon: the runtime's unit reads the same TQ_SETLIMIT value as `Carbon::limit`"),
    ("bits", Side::Neither, "pdf: the size of a serial position, for its own tests"),
    ("pick", Side::Neither, "victim: the k-th victim of a round, for the order's own tests; both sides walk `round`"),
    ("spilled", Side::Neither, "pdf: whether a serial position spilled out of line; its own tests"),
    ("candidates", Side::Neither, "victim: every victim once, for the order's own tests; both sides walk `round`"),
    ("on_update", Side::Neither, "adm manager: the test form of `on_update_ending`, which both sides call"),
];

/// Decision modules, relative to `crates/finegrain/src/policy`; the
/// locality planners and plan files (`locality/`) are tools of the
/// reference scheduler, shared by the CLI and the simulator's `reference/`.
const SKIP_DIRS: &[&str] = &["locality"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The source without line comments, and without its `#[cfg(test)]` tail.
fn code(p: &Path) -> String {
    let text = std::fs::read_to_string(p).unwrap();
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => &text[..],
    };
    text.lines().map(|l| l.find("//").map_or(l, |i| &l[..i])).collect::<Vec<_>>().join("\n")
}

fn ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Calls of `name` in `src`: the name, not inside a longer identifier,
/// followed by `(` or `::<`, and not in its own `fn` line.
fn calls(src: &str, name: &str) -> usize {
    let b = src.as_bytes();
    let mut n = 0;
    let mut from = 0;
    while let Some(i) = src[from..].find(name).map(|i| i + from) {
        from = i + name.len();
        if i > 0 && ident(b[i - 1]) || from < b.len() && ident(b[from]) {
            continue;
        }
        let rest = src[from..].trim_start();
        if !(rest.starts_with('(') || rest.starts_with("::<")) {
            continue;
        }
        if src[..i].trim_end().ends_with("fn") {
            continue;
        }
        n += 1;
    }
    n
}

#[test]
fn every_decision_is_called_by_the_runtime_and_the_simulator_or_listed() {
    let policy = root().join("crates/finegrain/src/policy");
    let mut files = Vec::new();
    rust_files(&policy, &mut files);
    let mut decisions: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut policy_code = String::new();
    for f in &files {
        let rel = f.strip_prefix(&policy).unwrap();
        if f.file_name().is_some_and(|n| n.to_string_lossy().ends_with("tests.rs")) {
            continue;
        }
        let c = code(f);
        policy_code.push_str(&c);
        if SKIP_DIRS.iter().any(|d| rel.starts_with(d)) {
            continue;
        }
        for line in c.lines() {
            let t = line.trim_start();
            let t = t.strip_prefix("pub(crate) ").or_else(|| t.strip_prefix("pub ")).unwrap_or("");
            let t = t.strip_prefix("const ").unwrap_or(t);
            if let Some(rest) = t.strip_prefix("fn ") {
                let name: String = rest.chars().take_while(|&c| c.is_alphanumeric() || c == '_').collect();
                decisions.insert(name, rel.to_path_buf());
            }
        }
    }
    assert!(decisions.len() > 50, "found only {} decisions: is the source layout as expected?", decisions.len());
    let read_all = |dir: &Path, skip: Option<&Path>| {
        let mut fs = Vec::new();
        rust_files(dir, &mut fs);
        fs.iter().filter(|f| skip.map_or(true, |s| !f.starts_with(s))).map(|f| code(f)).collect::<Vec<_>>().join("\n")
    };
    let runtime = read_all(&root().join("crates/finegrain/src"), Some(&policy));
    let sim = read_all(&root().join("crates/finegrain-sim/src"), None);
    let listed: BTreeMap<&str, (Side, &str)> = ONE_SIDED.iter().map(|&(n, s, r)| (n, (s, r))).collect();
    let mut problems = Vec::new();
    for (name, file) in &decisions {
        let (r, s) = (calls(&runtime, name) > 0, calls(&sim, name) > 0);
        let side = match (r, s) {
            (true, true) => None,
            (true, false) => Some(Side::Runtime),
            (false, true) => Some(Side::Simulator),
            (false, false) => Some(Side::Neither),
        };
        let internal = calls(&policy_code, name) > 0;
        match (side, listed.get(name.as_str())) {
            (None, Some(_)) => problems.push(format!("{name} ({}) is now called by both sides: take it off ONE_SIDED", file.display())),
            (None, None) => {}
            (Some(side), Some(&(want, _))) => {
                if side != want {
                    problems.push(format!("{name} ({}) is listed as {want:?} but is {side:?}", file.display()));
                }
            }
            (Some(_), None) if internal => {}
            (Some(side), None) => problems.push(format!(
                "{name} ({}) is a decision called by {side:?} only: call it from the other side too, or list it in ONE_SIDED with the reason",
                file.display()
            )),
        }
    }
    for name in listed.keys().filter(|n| !decisions.contains_key(**n)) {
        problems.push(format!("{name} is listed in ONE_SIDED but no decision has that name"));
    }
    assert!(problems.is_empty(), "one copy of every decision:\n  {}", problems.join("\n  "));
}

#[test]
fn the_call_finder_finds_calls_and_nothing_else() {
    let src = "let a = decide(1); x.decide_more(2); fn decide(x: u8) {}\n obj.decide (3); Foo::decide::<u8>(4); undecide(5)";
    assert_eq!(calls(src, "decide"), 3);
    assert_eq!(calls(src, "decide_more"), 1);
}

/// `docs/simulation.md` tables the one-sided decisions with their reasons:
/// the same names as [`ONE_SIDED`].
#[test]
fn the_docs_list_every_one_sided_decision() {
    let doc = std::fs::read_to_string(root().join("docs/simulation.md")).unwrap();
    let a = doc.find("<!-- one-sided:begin").expect("docs/simulation.md has the one-sided markers");
    let b = doc[a..].find("<!-- one-sided:end").map(|i| a + i).expect("docs/simulation.md has the one-sided end marker");
    let documented: std::collections::BTreeSet<&str> =
        doc[a..b].lines().filter_map(|l| l.strip_prefix("| `")).filter_map(|l| l.split('`').next()).collect();
    let listed: std::collections::BTreeSet<&str> = ONE_SIDED.iter().map(|e| e.0).collect();
    assert_eq!(documented, listed, "docs/simulation.md's table of one-sided decisions and ONE_SIDED differ");
}
