//! One line per simulation of a fixed set of graphs, policies, deliveries and
//! presets, with everything a run computes that does not depend on the host
//! (makespan, buckets, operation costs, counts, memory statistics, events).
//! Run it before and after a change to the engine and `diff` the outputs:
//! a change that should not alter what is simulated must leave them
//! byte-identical.
//!
//! `cargo run --release -p finegrain-sim --example fingerprint > before.txt`

use finegrain::taskgraph::{Clock, TaskGraph};
use finegrain_sim::engine::{simulate, Delivery, SimConfig, SimPolicy};
use finegrain_sim::machine::preset;

const POLICIES: [&str; 11] =
    ["ws", "ws:victim=nearest", "adm-central", "adm-hier:radix=4", "adm-hier", "carbon", "sw-hier", "pdf", "static", "ws:order=fifo", "ideal"];

/// The same graph with its clock said to be the recording core's TSC, so the
/// recorded-cycles path of the engine is covered too.
fn as_tsc(g: &TaskGraph) -> TaskGraph {
    let mut g = g.clone();
    g.meta.clock = Clock::Tsc;
    g
}

fn main() {
    let only: Option<String> = std::env::args().nth(1);
    let specs = [
        "tree:depth=11,leaf=2000,lines=4",
        "loop:iterations=3000,grain=1,cycles=1500,lines=3,loops=2,repeats=2",
        "uts:b0=200,m=5,q=0.19,cycles=800",
        "taskbench:pattern=stencil,width=24,steps=20,cycles=1000,lines=2",
        "profile:name=cg,tasks=4000",
    ];
    let mut graphs: Vec<(String, TaskGraph)> = Vec::new();
    for s in specs {
        let g = finegrain_sim::trace::synth::generate(s, 7).unwrap_or_else(|e| panic!("{s}: {e}"));
        graphs.push((format!("{s} tsc"), as_tsc(&g)));
        graphs.push((s.to_string(), g));
    }
    let runs: [(&str, &[usize]); 4] = [("adm-cmp", &[1, 16, 64, 256]), ("carbon-ring", &[64]), ("hb-128", &[128]), ("pdf-cmp", &[32])];
    for (name, g) in &graphs {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        for (pre, threads) in runs {
            for &n in threads {
                for p in POLICIES {
                    let deliveries: &[Delivery] =
                        if p.starts_with("adm") { &[Delivery::Interrupt, Delivery::Poll, Delivery::Uli] } else { &[Delivery::Interrupt] };
                    for &d in deliveries {
                        let mut cfg = SimConfig::new(preset(pre).unwrap(), n, SimPolicy::parse(p).unwrap());
                        cfg.delivery = d;
                        let r = simulate(g, &cfg).unwrap_or_else(|e| panic!("{name} {pre} {n} {p}: {e}"));
                        println!(
                            "{name} | {pre} {n} {p} {d:?} | makespan {} buckets {:?} ops {:?} run {} stolen {} msgs {} events {} mem {:?}",
                            r.makespan,
                            r.buckets,
                            r.ops.iter().map(|o| (o.count, o.cycles)).collect::<Vec<_>>(),
                            r.tasks_run,
                            r.tasks_stolen,
                            r.messages,
                            r.events,
                            r.mem
                        );
                    }
                }
            }
        }
    }
}
