//! `canneal`: placement of a netlist by simulated annealing, minimising total
//! wire length (Sanchez, Yoo, Kozyrakis, "Flexible architectural support for
//! fine-grain scheduling", ASPLOS 2010, section 5.2, Table 4, refactored from
//! PARSEC's canneal). Swaps are proposed in batches whose decisions are made in
//! parallel against the batch's starting placement, so the result is
//! deterministic and must equal the serial run's exactly.

mod anneal;
mod netlist;

use crate::par::{Finegrain, Rayon};
use crate::{Instance, Output, Size, Workload};
use anneal::Schedule;
use netlist::Netlist;

pub struct Canneal;

impl Workload for Canneal {
    fn name(&self) -> &'static str {
        "canneal"
    }
    fn description(&self) -> &'static str {
        "simulated-annealing placement of a netlist: batches of swap proposals evaluated in parallel, applied deterministically; final wire length"
    }
    fn source(&self) -> &'static str {
        "Sanchez et al. (ASPLOS 2010), section 5.2 (canneal, Table 4; PARSEC)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        let (side, steps) = match size {
            Size::Test => (32, 20),
            Size::Small => (256, 60),
            Size::Full => (512, 100),
        };
        let net = Netlist::random(side, seed);
        // A sixteenth of the elements per step keeps conflicting proposals
        // (which are dropped) to about a fifth.
        let schedule = Schedule { seed, steps, batch: side * side / 16, start_temperature: side as f64 / 4.0, cooling: 0.93 };
        Box::new(CannealInstance { net, schedule })
    }
}

struct CannealInstance {
    net: Netlist,
    schedule: Schedule,
}

fn output((cost, accepted): anneal::Result) -> Output {
    Output::Ints(vec![cost as u64, accepted])
}

impl Instance for CannealInstance {
    fn describe(&self) -> String {
        let s = &self.schedule;
        format!("{} elements, {} wires, {} steps of {} proposals", self.net.elements(), self.net.adj.len() / 2, s.steps, s.batch)
    }
    fn serial(&self) -> Output {
        output(anneal::serial(&self.net, &self.schedule))
    }
    fn parallel(&self) -> Output {
        output(anneal::parallel(Finegrain, &self.net, &self.schedule))
    }
    fn rayon(&self) -> Option<Output> {
        Some(output(anneal::parallel(Rayon, &self.net, &self.schedule)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annealing_shortens_the_wires() {
        let net = Netlist::random(32, 11);
        let schedule = Schedule { seed: 11, steps: 200, batch: 64, start_temperature: 8.0, cooling: 0.97 };
        let before = net.routing_cost(|e| net.start[e]);
        let (after, accepted) = anneal::serial(&net, &schedule);
        assert!(accepted > 0);
        assert!(10 * after < 7 * before, "{after} not well below {before}");
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        assert_eq!(pool.install(|| anneal::parallel(Finegrain, &net, &schedule)), (after, accepted));
    }
}
