//! `finegrain sim --validate results.csv`: the simulator against this
//! machine. For every workload, policy and thread count of a `finegrain bench`
//! run, record the workload (at the bench's size and seed), simulate it on the
//! `host-2` preset (or the one given) under the same policy spec at 1 thread
//! and at the bench's thread count, and set the simulated speedup beside the
//! measured one (median of the bench's repetitions), with the error.

use super::run_one;
use crate::cli::SimArgs;
use crate::text_table::Table;
use crate::Failure;
use finegrain_sim::engine::Delivery;
use finegrain_sim::machine::preset;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

fn median(v: &mut [u64]) -> f64 {
    v.sort_unstable();
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0
    }
}

pub fn main(a: &SimArgs, results: &Path) -> Result<bool, Failure> {
    let usage = Failure::Usage;
    let mut rd = csv::Reader::from_path(results).map_err(|e| usage(format!("cannot read {}: {e}", results.display())))?;
    let headers = rd.headers().map_err(|e| usage(format!("{}: {e}", results.display())))?.clone();
    let col = |name: &str| {
        headers.iter().position(|h| h == name).ok_or_else(|| usage(format!("{}: no column {name:?} (not a bench results.csv?)", results.display())))
    };
    let (cw, cs, cr, cp, ct, ctime) = (col("workload")?, col("size")?, col("runtime")?, col("policy")?, col("threads")?, col("time_ns")?);
    // (workload, size, policy) -> threads -> times
    let mut times: BTreeMap<(String, String, String), BTreeMap<usize, Vec<u64>>> = BTreeMap::new();
    for rec in rd.records() {
        let rec = rec.map_err(|e| usage(format!("{}: {e}", results.display())))?;
        if &rec[cr] != "finegrain" {
            continue;
        }
        let t: usize = rec[ct].parse().map_err(|_| usage(format!("{}: bad thread count {:?}", results.display(), &rec[ct])))?;
        let ns: u64 = rec[ctime].parse().map_err(|_| usage(format!("{}: bad time {:?}", results.display(), &rec[ctime])))?;
        times.entry((rec[cw].to_string(), rec[cs].to_string(), rec[cp].to_string())).or_default().entry(t).or_default().push(ns);
    }
    if times.is_empty() {
        return Err(usage(format!("{}: no finegrain runs in it", results.display())));
    }
    let p = preset(a.preset.as_deref().unwrap_or("host-2")).map_err(|e| usage(e.to_string()))?;
    let mut t = Table::new(&[("workload", false), ("policy", false), ("threads", true), ("measured", true), ("simulated", true), ("error", true)]);
    let mut md = String::from("| workload | policy | threads | measured speedup | simulated speedup | error |\n|---|---|---|---|---|---|\n");
    let bar = super::progress(times.len() as u64, "validating");
    let mut graphs = BTreeMap::new();
    let mut errors = Vec::new();
    for ((w, size, policy), by_threads) in &times {
        bar.set_message(format!("{w} {policy}"));
        let Some(one) = by_threads.get(&1) else { continue };
        let t1 = median(&mut one.clone());
        if !graphs.contains_key(&(w.clone(), size.clone())) {
            let sz = crate::specs::size(size).map_err(usage)?;
            let g = super::source::record_workload(w, sz, a.seed).map_err(Failure::Fatal)?.0;
            graphs.insert((w.clone(), size.clone()), g);
        }
        let g = &graphs[&(w.clone(), size.clone())];
        let s1 = run_one(g, p, policy, 1, a.seed, Delivery::Poll).map_err(Failure::Fatal)?.makespan as f64;
        for (&threads, v) in by_threads {
            if threads == 1 || threads > p.max_threads() {
                continue;
            }
            let measured = t1 / median(&mut v.clone());
            let sn = run_one(g, p, policy, threads, a.seed, Delivery::Poll).map_err(Failure::Fatal)?.makespan as f64;
            let simulated = s1 / sn;
            let err = simulated / measured - 1.0;
            errors.push(err.abs());
            let short = policy.split(':').next().unwrap_or(policy);
            t.push(vec![
                w.clone(),
                short.into(),
                threads.to_string(),
                format!("{measured:.2}"),
                format!("{simulated:.2}"),
                format!("{:+.0}%", 100.0 * err),
            ]);
            let _ = writeln!(md, "| {w} | {short} | {threads} | {measured:.2} | {simulated:.2} | {:+.0}% |", 100.0 * err);
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    outln!("{}", t.render());
    if !errors.is_empty() {
        let mut e = errors.clone();
        e.sort_by(f64::total_cmp);
        let line = format!(
            "\n{} comparisons on {}: median |error| {:.0}%, largest {:.0}%\n",
            e.len(),
            p.name,
            100.0 * e[e.len() / 2],
            100.0 * e[e.len() - 1]
        );
        outln!("{line}");
        md.push_str(&line);
    }
    let path = a.out.join("validation.md");
    std::fs::write(&path, md).map_err(|e| Failure::Fatal(format!("cannot write {}: {e}", path.display())))?;
    Ok(true)
}
