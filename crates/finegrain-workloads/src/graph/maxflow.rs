//! `maxflow`: the value of a maximum flow through a random level graph, by
//! push-relabel (Sanchez, Yoo, Kozyrakis, "Flexible architectural support for
//! fine-grain scheduling", ASPLOS 2010, section 5.2, Table 4: "4K RLG").
//!
//! Two parallel versions of one serial reference (FIFO push-relabel with
//! global relabeling, `serial`): `maxflow` runs rounds of parallel loops over
//! the active vertices (`synchronous`); `maxflow-async` is the paper's
//! structure, one task phase of asynchronous discharges with a global relabel
//! between phases (`asynchronous`).

mod asynchronous;
mod network;
mod serial;
mod synchronous;

use crate::par::{Finegrain, Rayon};
use crate::{Instance, Output, Size, Workload};
use network::Network;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The input of both versions at `size`: (levels, width). `small` is the
/// paper's 4K-vertex RLG scaled to 18K vertices; `full` 100 x 500 runs
/// 0.5-2 s serially here (200 x 1000 took 9-12 s).
fn shape(size: Size) -> (usize, usize) {
    match size {
        Size::Test => (8, 16),
        Size::Small => (60, 300),
        Size::Full | Size::Paper => (100, 500),
    }
}

pub struct MaxFlow;

impl Workload for MaxFlow {
    fn name(&self) -> &'static str {
        "maxflow"
    }
    fn description(&self) -> &'static str {
        "maximum flow value of a random level graph by push-relabel (serial FIFO; parallel synchronous rounds)"
    }
    fn source(&self) -> &'static str {
        "Sanchez et al. (ASPLOS 2010), section 5.2 (maxflow, Table 4)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (levels, width) = shape(size);
        Box::new(MaxFlowInstance { levels, width, net: Network::random_levels(levels, width, seed) })
    }
}

struct MaxFlowInstance {
    levels: usize,
    width: usize,
    net: Network,
}

impl Instance for MaxFlowInstance {
    fn describe(&self) -> String {
        format!("{} levels x {} vertices, {} arcs", self.levels, self.width, self.net.head.len() / 2)
    }
    fn serial(&self) -> Output {
        Output::Int(serial::max_flow(&self.net).0 as u64)
    }
    fn parallel(&self) -> Output {
        Output::Int(finegrain::record::region(|| synchronous::max_flow(Finegrain, &self.net)) as u64)
    }
    fn rayon(&self) -> Option<Output> {
        Some(Output::Int(synchronous::max_flow(Rayon, &self.net) as u64))
    }
}

pub struct MaxFlowAsync;

impl Workload for MaxFlowAsync {
    fn name(&self) -> &'static str {
        "maxflow-async"
    }
    fn description(&self) -> &'static str {
        "maximum flow value of a random level graph by push-relabel (parallel: a task phase of asynchronous discharges, global relabel between phases)"
    }
    fn source(&self) -> &'static str {
        "Sanchez et al. (ASPLOS 2010), section 5.2 (maxflow, Table 4)"
    }
    fn api(&self) -> &'static str {
        "phase"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (levels, width) = shape(size);
        Box::new(MaxFlowAsyncInstance {
            flow: MaxFlowInstance { levels, width, net: Network::random_levels(levels, width, seed) },
            serial_discharges: AtomicU64::new(0),
            parallel_discharges: AtomicU64::new(0),
        })
    }
}

/// The input, and the discharges of the latest serial and parallel runs
/// (shown by `describe` once known).
struct MaxFlowAsyncInstance {
    flow: MaxFlowInstance,
    serial_discharges: AtomicU64,
    parallel_discharges: AtomicU64,
}

impl Instance for MaxFlowAsyncInstance {
    fn describe(&self) -> String {
        let (s, p) = (self.serial_discharges.load(Relaxed), self.parallel_discharges.load(Relaxed));
        let mut d = self.flow.describe();
        if s > 0 {
            d += &format!("; discharges: serial {s}");
            if p > 0 {
                d += &format!(", latest parallel {p} ({:.2}x)", p as f64 / s as f64);
            }
        }
        d
    }
    fn serial(&self) -> Output {
        let (flow, _, discharges) = serial::max_flow_counted(&self.flow.net);
        self.serial_discharges.store(discharges, Relaxed);
        Output::Int(flow as u64)
    }
    fn parallel(&self) -> Output {
        let run = asynchronous::max_flow(&self.flow.net);
        self.parallel_discharges.store(run.discharges, Relaxed);
        Output::Int(run.flow as u64)
    }
    fn rayon(&self) -> Option<Output> {
        Some(Output::Int(asynchronous::max_flow_rayon(&self.flow.net).flow as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Max-flow min-cut: after the first phase, the vertices that can no
    /// longer reach the sink in the residual graph form the source side of a
    /// minimum cut, whose capacity must equal the flow found.
    #[test]
    fn flow_equals_min_cut() {
        for seed in 0..5 {
            let net = Network::random_levels(6, 10, seed);
            let (flow, res) = serial::max_flow(&net);
            let mut label = vec![0; net.n];
            serial::global_relabel(&net, &res, &mut label);
            let source_side: Vec<bool> = label.iter().map(|&d| d as usize >= net.n).collect();
            assert!(source_side[net.source] && !source_side[net.sink]);
            assert!(flow > 0);
            assert_eq!(flow, net.cut_capacity(&source_side));
        }
    }

    #[test]
    fn synchronous_matches_serial_on_small_graphs() {
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        for seed in 0..20 {
            let net = Network::random_levels(2 + seed as usize % 5, 3 + seed as usize, seed);
            let want = serial::max_flow(&net).0;
            assert_eq!(pool.install(|| synchronous::max_flow(Finegrain, &net)), want, "seed {seed}");
        }
    }
}
