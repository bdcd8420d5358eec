//! `gtfold-loop` and `gtfold-dataflow`: a GTfold-like dynamic program over the
//! upper triangle of an RNA sequence (Sanchez, Yoo, Kozyrakis, "Flexible
//! architectural support for fine-grain scheduling", ASPLOS 2010, sections 5.2
//! and 6.4): cell `(i, j)` depends on `(i, j-1)` and `(i+1, j)`, and its cost
//! is bimodal. The loop version runs one parallel loop per diagonal; the
//! dataflow version runs blocks of cells as their predecessors finish. Both
//! must reproduce the serial table exactly.

mod dataflow;
mod energy;
mod wavefront;

use crate::par::{Finegrain, Rayon};
use crate::support::digest::digest_iter;
use crate::{Instance, Output, Size, Workload};
use energy::Table;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Schedule {
    Diagonals,
    Dataflow,
}

pub struct GtfoldLoop;
pub struct GtfoldDataflow;

fn prepare(schedule: Schedule, size: Size, seed: u64) -> Box<dyn Instance> {
    let n = match size {
        Size::Test => 70,
        Size::Small => 400,
        Size::Full => 2000,
    };
    Box::new(GtfoldInstance { schedule, seq: energy::random_sequence(n, seed) })
}

impl Workload for GtfoldLoop {
    fn name(&self) -> &'static str {
        "gtfold-loop"
    }
    fn description(&self) -> &'static str {
        "RNA-folding-like triangular dynamic program with bimodal cell costs; one parallel loop per anti-diagonal"
    }
    fn source(&self) -> &'static str {
        "Sanchez et al. (ASPLOS 2010), section 5.2 (gtfold, Table 4) and section 6.4 (loop-parallel original)"
    }
    fn api(&self) -> &'static str {
        "loop"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        prepare(Schedule::Diagonals, size, seed)
    }
}

impl Workload for GtfoldDataflow {
    fn name(&self) -> &'static str {
        "gtfold-dataflow"
    }
    fn description(&self) -> &'static str {
        "the same dynamic program as gtfold-loop as a dataflow graph of 4x4-cell blocks, each run when its left and lower blocks finish"
    }
    fn source(&self) -> &'static str {
        "Sanchez et al. (ASPLOS 2010), section 6.4 (task-parallel gtfold)"
    }
    fn api(&self) -> &'static str {
        "graph"
    }
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance> {
        prepare(Schedule::Dataflow, size, seed)
    }
}

struct GtfoldInstance {
    schedule: Schedule,
    seq: Vec<u8>,
}

fn digest(table: Table) -> Output {
    let (len, hash) = digest_iter(table.packed());
    Output::Digest { len, hash }
}

impl Instance for GtfoldInstance {
    fn describe(&self) -> String {
        let (n, long) = (self.seq.len(), 100.0 * energy::long_fraction(&self.seq));
        format!("{n} bases, {} cells ({long:.0}% long)", n * (n + 1) / 2)
    }
    fn serial(&self) -> Output {
        digest(wavefront::serial(&self.seq))
    }
    fn parallel(&self) -> Output {
        digest(match self.schedule {
            Schedule::Diagonals => wavefront::parallel(Finegrain, &self.seq),
            Schedule::Dataflow => dataflow::graph(&self.seq),
        })
    }
    fn rayon(&self) -> Option<Output> {
        Some(digest(match self.schedule {
            Schedule::Diagonals => wavefront::parallel(Rayon, &self.seq),
            Schedule::Dataflow => dataflow::rayon(&self.seq),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The classic check of a folding recurrence: a hairpin of G-C pairs
    /// around a loop of four must fold (negative energy), while a sequence of
    /// one base cannot pair at all (energy 0).
    #[test]
    fn hairpin_folds_and_poly_a_does_not() {
        let fold = |s: &[u8]| wavefront::serial(s).energy();
        assert!(fold(b"GGGGAAAACCCC") < 0);
        assert_eq!(fold(b"AAAAAAAAAAAA"), 0);
    }

    #[test]
    fn about_three_cells_in_eight_are_long() {
        let seq = energy::random_sequence(300, 1);
        let f = energy::long_fraction(&seq);
        assert!((0.3..0.45).contains(&f), "{f}");
    }

    #[test]
    fn all_schedules_give_the_serial_table() {
        let seq = energy::random_sequence(53, 4);
        let want: Vec<u64> = wavefront::serial(&seq).packed().collect();
        let pool = finegrain::Pool::new(3, "ws").unwrap();
        assert_eq!(pool.install(|| wavefront::parallel(Finegrain, &seq)).packed().collect::<Vec<_>>(), want);
        assert_eq!(pool.install(|| dataflow::graph(&seq)).packed().collect::<Vec<_>>(), want);
        assert_eq!(dataflow::rayon(&seq).packed().collect::<Vec<_>>(), want);
    }
}
