//! Running the plan: for each workload, every configuration once per round,
//! rounds repeated; the order within a round is shuffled (seeded). Interleaving
//! spreads slow phases of a shared machine (another build, frequency changes)
//! over all configurations instead of penalising whichever ran during them.

use super::plan::{Config, Plan, Runtime};
use super::record::{RunRecord, RunStats};
use crate::chili_programs::{self, ChiliProgram};
use crate::peers::Kind;
use crate::pools::Pools;
use finegrain::Stats;
use finegrain_workloads::util::SplitMix64;
use finegrain_workloads::{Instance, Output, PhoenixInput, Workload};
use indicatif::ProgressBar;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

/// What the runs produced, and every failure (each also printed when it happened).
#[derive(Default)]
pub struct Outcome {
    pub records: Vec<RunRecord>,
    pub failures: Vec<String>,
    /// Whether the finegrain build counts scheduler events (its `stats` feature).
    pub stats_enabled: bool,
    /// Per workload and finegrain configuration (in the plan's order: by
    /// workload, then configuration), the statistics of its timed
    /// repetitions, added up (for `--ops`).
    pub ops: Vec<((usize, usize), String, Stats)>,
    /// Runs whose per-worker buckets did not add up to the wall time within 2%.
    pub unbalanced: Vec<String>,
}

/// The result of one run of one configuration.
enum Attempt {
    Ran {
        time_ns: u64,
        check: Result<(), String>,
        stats: Option<Stats>,
    },
    /// It could not run (panic, peer crash): later repetitions are skipped.
    Broken(String),
}

/// How many runs the plan makes per workload, before knowing which workloads
/// have a Rayon or chili version (for the progress bar; corrected as we learn).
pub fn expected_runs(plan: &Plan) -> u64 {
    let per_round = plan.configs(plan.rayon, plan.chili, &vec![true; plan.peers.len()]).len();
    (per_round * (plan.warmup + plan.reps)) as u64
}

pub fn run(plan: &Plan, pools: &Pools, pb: &ProgressBar) -> Outcome {
    let mut out = Outcome::default();
    for (wi, w) in plan.workloads.iter().enumerate() {
        run_workload(plan, pools, pb, wi, w.as_ref(), &mut out);
    }
    out
}

fn run_workload(plan: &Plan, pools: &Pools, pb: &ProgressBar, wi: usize, w: &dyn Workload, out: &mut Outcome) {
    let name = w.name();
    pb.set_message(format!("{name}: preparing input"));
    let expected = expected_runs(plan);
    let prepare = || match &plan.input {
        Some(f) => w.prepare_input(&f.input, plan.size, plan.seed),
        None => w.try_prepare(plan.size, plan.seed),
    };
    let inst = match catch_unwind(AssertUnwindSafe(prepare)) {
        Ok(Ok(i)) => i,
        // A file the workload reads (canny's FINEGRAIN_CANNY_PGM) is missing or
        // malformed, or (not expected: the plan checked it) it cannot run on --input.
        Ok(Err(e)) => return fail_workload(pb, out, expected, format!("{name}: {e}")),
        Err(p) => return fail_workload(pb, out, expected, format!("{name}: prepare panicked: {}", panic_text(&p))),
    };
    pb.set_message(format!("{name}: serial reference"));
    let reference = match catch_unwind(AssertUnwindSafe(|| inst.serial())) {
        Ok(r) => r,
        Err(p) => return fail_workload(pb, out, expected, format!("{name}: serial reference panicked: {}", panic_text(&p))),
    };
    let has_rayon = plan.rayon && probe_rayon(plan, pools, pb, inst.as_ref(), &reference, name, out);
    let peer_args = inst.peer_args();
    let chili = if plan.chili { probe_chili(plan, pools, pb, inst.as_ref(), &reference, name, peer_args.as_deref(), out) } else { None };
    // Phoenix's programs read the input from files, written once per workload.
    let phoenix_dir = std::env::temp_dir().join(format!("finegrain-phoenix-{}-{name}", std::process::id()));
    let phoenix = if plan.peers.iter().any(|p| p.kind == Kind::Phoenix) {
        let made = std::fs::create_dir_all(&phoenix_dir).map_err(|e| format!("{}: {e}", phoenix_dir.display()));
        match made.map(|()| inst.phoenix(&phoenix_dir)) {
            Ok(Some(Ok(input))) => Some(input),
            Ok(None) => None,
            Ok(Some(Err(e))) | Err(e) => {
                report(pb, out, format!("RUN FAILED: {name} / phoenix: {e} (Phoenix's programs skip this workload)"));
                None
            }
        }
    } else {
        None
    };
    let peers_ok: Vec<bool> = plan
        .peers
        .iter()
        .map(|p| match p.kind {
            Kind::Cpp => peer_args.is_some(),
            Kind::Phoenix => phoenix.is_some(),
        })
        .collect();
    let configs = plan.configs(has_rayon, chili.is_some(), &peers_ok);
    // Correct the bar: this workload may have fewer configurations than assumed.
    let actual = (configs.len() * (plan.warmup + plan.reps)) as u64;
    pb.set_length(pb.length().unwrap_or(0) + actual - expected);

    // A file is named by its name alone here; the header line and
    // results.json give its path.
    let input = match &plan.input {
        Some(f) => format!("{}: {}", f.path.file_name().unwrap_or(f.path.as_os_str()).to_string_lossy(), inst.describe()),
        None => inst.describe(),
    };
    let mut broken = vec![false; configs.len()];
    let mut rng = SplitMix64::new(plan.seed ^ (wi as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    for round in 0..plan.warmup + plan.reps {
        let timed = round >= plan.warmup;
        for ci in shuffled(configs.len(), &mut rng) {
            let cfg = configs[ci];
            pb.set_message(format!(
                "{name}: {} x{} ({})",
                plan.label(cfg.runtime),
                cfg.threads,
                if timed { format!("rep {}/{}", round - plan.warmup + 1, plan.reps) } else { "warm-up".into() }
            ));
            pb.inc(1);
            if broken[ci] {
                continue;
            }
            let attempt = run_once(plan, pools, inst.as_ref(), chili.as_deref(), &reference, cfg, name, peer_args.as_deref(), phoenix.as_ref());
            let what = format!("{name} / {} / {} threads / {}", plan.label(cfg.runtime), cfg.threads, round_name(plan, round));
            match attempt {
                Attempt::Broken(msg) => {
                    broken[ci] = true;
                    report(pb, out, format!("RUN FAILED: {what}: {msg} (skipping this configuration from now on)"));
                }
                Attempt::Ran { time_ns, check, stats } => {
                    if let Err(msg) = &check {
                        report(pb, out, format!("CHECK FAILED: {what}: {msg}"));
                    }
                    if let Some(s) = &stats {
                        out.stats_enabled |= s.enabled;
                        if let Err(e) = s.check_sums(0.02) {
                            out.unbalanced.push(format!("{what}: {e}"));
                        }
                        if timed {
                            match out.ops.binary_search_by_key(&(wi, ci), |(k, _, _)| *k) {
                                Ok(i) => out.ops[i].2.add(s),
                                Err(i) => out
                                    .ops
                                    .insert(i, ((wi, ci), format!("{name} / {} / {} threads", plan.label(cfg.runtime), cfg.threads), s.clone())),
                            }
                        }
                    }
                    if timed {
                        out.records.push(RunRecord {
                            workload: name.to_string(),
                            size: plan.size.name().to_string(),
                            input: input.clone(),
                            runtime: plan.runtime_name(cfg.runtime).to_string(),
                            config: plan.label(cfg.runtime),
                            policy: match cfg.runtime {
                                Runtime::Finegrain(p) => Some(plan.policies[p].canonical()),
                                _ => None,
                            },
                            threads: cfg.threads,
                            rep: round - plan.warmup,
                            time_ns,
                            check: check.err().unwrap_or_else(|| "ok".into()),
                            stats: stats.as_ref().map(RunStats::from_stats),
                            rank: plan.rank(cfg.runtime),
                        });
                    }
                }
            }
        }
    }
    if phoenix.is_some() || phoenix_dir.exists() {
        let _ = std::fs::remove_dir_all(&phoenix_dir);
    }
}

/// Run `rayon()` once in the largest Rayon pool: it tells whether the workload
/// has a Rayon version at all, and checks that version before it is timed.
fn probe_rayon(plan: &Plan, pools: &Pools, pb: &ProgressBar, inst: &dyn Instance, reference: &Output, name: &str, out: &mut Outcome) -> bool {
    let t = *plan.threads.last().expect("at least one thread count");
    let Some(pool) = pools.rayon(t) else {
        return false;
    };
    pb.set_message(format!("{name}: probing the Rayon version"));
    match catch_unwind(AssertUnwindSafe(|| pool.install(|| inst.rayon()))) {
        Ok(Some(got)) => {
            if let Err(msg) = inst.check(reference, &got) {
                report(pb, out, format!("CHECK FAILED: {name} / rayon / {t} threads / probe: {msg}"));
            }
            true
        }
        Ok(None) => false,
        Err(p) => {
            report(pb, out, format!("RUN FAILED: {name} / rayon / {t} threads / probe: panicked: {}", panic_text(&p)));
            false
        }
    }
}

/// The workload's chili version with its input built (outside every timing),
/// run once in the largest chili pool and checked; `None` if it has none (or
/// the probe panicked).
#[allow(clippy::too_many_arguments)]
fn probe_chili(
    plan: &Plan,
    pools: &Pools,
    pb: &ProgressBar,
    inst: &dyn Instance,
    reference: &Output,
    name: &str,
    peer_args: Option<&str>,
    out: &mut Outcome,
) -> Option<Box<dyn ChiliProgram>> {
    let t = *plan.threads.last().expect("at least one thread count");
    let pool = pools.chili(t)?;
    pb.set_message(format!("{name}: probing the chili version"));
    let program = chili_programs::program(name, peer_args)?;
    match catch_unwind(AssertUnwindSafe(|| program.run(&mut pool.scope()))) {
        Ok(got) => {
            if let Err(msg) = inst.check(reference, &got) {
                report(pb, out, format!("CHECK FAILED: {name} / chili / {t} threads / probe: {msg}"));
            }
            Some(program)
        }
        Err(p) => {
            report(pb, out, format!("RUN FAILED: {name} / chili / {t} threads / probe: panicked: {}", panic_text(&p)));
            None
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn run_once(
    plan: &Plan,
    pools: &Pools,
    inst: &dyn Instance,
    chili: Option<&dyn ChiliProgram>,
    reference: &Output,
    cfg: Config,
    name: &str,
    peer_args: Option<&str>,
    phoenix: Option<&PhoenixInput>,
) -> Attempt {
    let peer_input = |p: usize| match plan.peers[p].kind {
        Kind::Cpp => (peer_args.unwrap_or(""), None),
        Kind::Phoenix => phoenix.map_or(("", None), |ph| (ph.args.as_str(), Some(ph))),
    };
    match cfg.runtime {
        Runtime::Peer(p) => {
            let (args, ph) = peer_input(p);
            return run_peer(plan, p, cfg.threads, name, args, false, ph);
        }
        Runtime::PeerSerial(p) => {
            let (args, ph) = peer_input(p);
            return run_peer(plan, p, 1, name, args, true, ph);
        }
        _ => {}
    }
    let timed = |f: &dyn Fn() -> Option<Output>| {
        let start = Instant::now();
        let got = f();
        (got, start.elapsed().as_nanos() as u64)
    };
    let result = catch_unwind(AssertUnwindSafe(|| match cfg.runtime {
        Runtime::Serial => {
            let (got, ns) = timed(&|| Some(inst.serial()));
            (got, ns, None)
        }
        // The clock runs inside the pool, so every runtime is timed from its first
        // worker starting the program to the program's end, without the hand-off
        // into the pool (which differs between runtimes and is not scheduling).
        Runtime::Finegrain(p) => {
            let ((got, ns), stats) = pools.finegrain(p, cfg.threads).measure(|| timed(&|| Some(inst.parallel())));
            (got, ns, Some(stats))
        }
        Runtime::Rayon => {
            let pool = pools.rayon(cfg.threads).expect("rayon pools exist when rayon runs");
            let (got, ns) = pool.install(|| timed(&|| inst.rayon()));
            (got, ns, None)
        }
        // The scope is opened before the clock starts, as `install` hands over
        // to the other runtimes' pools outside it.
        Runtime::Chili => {
            let pool = pools.chili(cfg.threads).expect("chili pools exist when chili runs");
            let program = chili.expect("chili runs only workloads with a chili version");
            let mut scope = pool.scope();
            let start = Instant::now();
            let got = program.run(&mut scope);
            (Some(got), start.elapsed().as_nanos() as u64, None)
        }
        Runtime::Peer(_) | Runtime::PeerSerial(_) => unreachable!("peers returned above"),
    }));
    match result {
        Ok((Some(got), time_ns, stats)) => Attempt::Ran { time_ns, check: inst.check(reference, &got), stats },
        Ok((None, _, _)) => Attempt::Broken("this workload has no Rayon version".into()),
        Err(p) => Attempt::Broken(format!("panicked: {}", panic_text(&p))),
    }
}

/// One repetition in a peer process (its parallel program, or its own serial
/// one); the peer times and checks itself. Phoenix's programs also print
/// their result, whose digest must be the one `phoenix` computed from the
/// serial reference for that program.
fn run_peer(plan: &Plan, p: usize, threads: usize, name: &str, peer_args: &str, serial: bool, phoenix: Option<&PhoenixInput>) -> Attempt {
    match plan.peers[p].run(name, peer_args, threads, 1, serial) {
        Ok(reps) => {
            let r = &reps[0];
            let mut check = if r.check == "ok" { Ok(()) } else { Err(format!("peer's own check: {}", r.check)) };
            if let (Ok(()), Some(ph)) = (&check, phoenix) {
                let want = ph.digests.iter().find(|(program, _)| *program == r.runtime).map(|&(_, d)| format!("{d:016x}"));
                if want.is_some() && r.digest != want {
                    check = Err(format!(
                        "{}'s printed result (digest {}) is not finegrain's serial result's (digest {})",
                        r.runtime,
                        r.digest.as_deref().unwrap_or("none"),
                        want.unwrap_or_default()
                    ));
                }
            }
            Attempt::Ran { time_ns: r.time_ns, check, stats: None }
        }
        Err(e) => Attempt::Broken(e),
    }
}

/// A permutation of `0..n` (Fisher-Yates).
fn shuffled(n: usize, rng: &mut SplitMix64) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        v.swap(i, rng.below(i as u64 + 1) as usize);
    }
    v
}

fn round_name(plan: &Plan, round: usize) -> String {
    if round < plan.warmup {
        format!("warm-up {}", round + 1)
    } else {
        format!("rep {}", round - plan.warmup + 1)
    }
}

fn fail_workload(pb: &ProgressBar, out: &mut Outcome, expected: u64, msg: String) {
    pb.inc(expected);
    report(pb, out, format!("RUN FAILED: {msg} (skipping this workload)"));
}

/// Print a failure above the progress bar (also when the bar is hidden) and keep it.
fn report(pb: &ProgressBar, out: &mut Outcome, msg: String) {
    pb.suspend(|| eprintln!("finegrain: {msg}"));
    out.failures.push(msg);
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(non-string panic payload)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_are_permutations() {
        let mut rng = SplitMix64::new(7);
        let mut v = shuffled(10, &mut rng);
        v.sort();
        assert_eq!(v, (0..10).collect::<Vec<_>>());
        assert!(shuffled(0, &mut rng).is_empty());
    }
}
