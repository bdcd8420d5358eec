//! `finegrain list`: what can be benchmarked, and how to configure it.

use crate::text_table::Table;
use finegrain_workloads::Size;
use std::io::Write;

/// `sizes`: the sizes whose inputs are generated and described (full-size inputs
/// take seconds to generate, so they can be left out).
pub fn main(sizes: &[Size]) {
    let workloads = finegrain_workloads::all();
    outln!("WORKLOADS ({})", workloads.len());
    if workloads.is_empty() {
        outln!("  (none registered yet)");
    }
    let mut out = std::io::stdout();
    for w in &workloads {
        // Nobody reads any more (`finegrain list | head`): generating the
        // remaining inputs would only take time.
        if crate::out::closed() {
            return;
        }
        outln!("  {:<12} [{}] {}", w.name(), w.api(), w.description());
        outln!("  {:<12} from {}", "", w.source());
        out!("  {:<12} input:", "");
        for (i, &s) in sizes.iter().enumerate() {
            out!("{} {}: ", if i > 0 { " |" } else { "" }, s.name());
            if s == Size::Paper && !w.paper_size() {
                out!("(no paper-scale input: the full one) ");
            }
            // Show each size as soon as its input is generated: the large ones are slow.
            let _ = out.flush();
            match w.try_prepare(s, 42) {
                Ok(inst) => out!("{}", inst.describe()),
                Err(e) => out!("(no input: {e})"),
            }
        }
        outln!();
    }
    let default: Vec<&str> = crate::specs::default_suite(finegrain_workloads::all()).iter().map(|w| w.name()).collect();
    outln!("  default `bench` suite (the first workload of each api): {}", default.join(", "));
    let paper: Vec<&str> = workloads.iter().filter(|w| w.paper_size()).map(|w| w.name()).collect();
    outln!("  with a `paper` input of their own (the others run `full` for `paper`): {}", paper.join(", "));
    outln!("  on a Matrix Market file or an edge list (`bench --input FILE`): {}", finegrain_workloads::INPUT_WORKLOADS.join(", "));

    outln!();
    outln!("POLICIES (spec: name, or name:option=value,option=value)");
    for p in finegrain::policies() {
        outln!("  {}: {}  [{}]", p.name, p.summary, p.source);
        let mut t = Table::new(&[("option", false), ("values", false), ("default", false), ("meaning", false)]);
        for o in p.options {
            t.push(vec![o.name.to_string(), o.values.to_string(), o.default.to_string(), o.help.to_string()]);
        }
        if p.options.is_empty() {
            outln!("      (no options)");
        } else {
            for line in t.render().lines() {
                outln!("      {line}");
            }
        }
    }
    outln!("  every policy also takes:");
    for o in finegrain::policy::COMMON_OPTIONS {
        outln!("      {} ({}; default {}): {}", o.name, o.values, o.default, o.help);
    }
    outln!();
    outln!("OTHER RUNTIMES in `bench`: serial (the reference every speedup is relative to), rayon (where the");
    outln!("workload has a Rayon version), chili (heartbeat-scheduled joins: fib, nqueens, cilksort, uts), and");
    outln!("with --peers the C++ peers tbb and omp (peers/build/peer_*).");
}
