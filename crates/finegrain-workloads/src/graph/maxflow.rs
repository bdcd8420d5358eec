//! `maxflow`: the value of a maximum flow through a random level graph, by
//! push-relabel (Sanchez, Yoo, Kozyrakis, "Flexible architectural support for
//! fine-grain scheduling", ASPLOS 2010, section 5.2, Table 4: "4K RLG").

mod network;
mod serial;
mod synchronous;

use crate::par::{Finegrain, Rayon};
use crate::{Instance, Output, Size, Workload};
use network::Network;

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
        let (levels, width) = match size {
            Size::Test => (8, 16),
            Size::Small => (60, 300),
            Size::Full => (200, 1000),
        };
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
        Output::Int(synchronous::max_flow(Finegrain, &self.net) as u64)
    }
    fn rayon(&self) -> Option<Output> {
        Some(Output::Int(synchronous::max_flow(Rayon, &self.net) as u64))
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
