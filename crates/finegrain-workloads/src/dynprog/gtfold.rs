//! `gtfold-loop` and `gtfold-dataflow`: a GTfold-like dynamic program over the
//! upper triangle of an RNA sequence (Sanchez, Yoo, Kozyrakis, "Flexible
//! architectural support for fine-grain scheduling", ASPLOS 2010, sections 5.2
//! and 6.4): cell `(i, j)` depends on `(i, j-1)` and `(i+1, j)`, and its cost
//! is bimodal. The loop version runs one parallel loop per diagonal; the
//! dataflow version runs each cell as a task of its own, enqueued by the task
//! that finishes its last predecessor (section 6.4). Both must reproduce the
//! serial table exactly.

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
        Size::Full | Size::Paper => 2000,
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
        "the same dynamic program as gtfold-loop as one task per cell, enqueued by whichever of its left and lower cells finishes last"
    }
    fn source(&self) -> &'static str {
        "Sanchez et al. (ASPLOS 2010), section 6.4 (task-parallel gtfold, one cell per task)"
    }
    fn api(&self) -> &'static str {
        "phase"
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
            Schedule::Diagonals => finegrain::record::region(|| wavefront::parallel(Finegrain, &self.seq)),
            Schedule::Dataflow => dataflow::phase(&self.seq),
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
        assert_eq!(pool.install(|| dataflow::phase(&seq)).packed().collect::<Vec<_>>(), want);
        assert_eq!(dataflow::rayon(&seq).packed().collect::<Vec<_>>(), want);
    }

    /// The two modes of a sample of task lengths, in half-octave buckets:
    /// the fullest bucket, and the fullest one at least a factor 8 away
    /// from it, provided that one holds at least a twentieth of the tasks
    /// and a valley lies between them (a bucket under half the smaller
    /// mode). `None` if the lengths have one mode.
    fn two_modes(cycles: &[u64]) -> Option<(f64, f64)> {
        let bucket = |c: u64| (2.0 * (c.max(1) as f64).log2()) as usize;
        let mut hist = vec![0usize; 130];
        cycles.iter().for_each(|&c| hist[bucket(c)] += 1);
        let first = (0..hist.len()).max_by_key(|&b| hist[b])?;
        let second = (0..hist.len()).filter(|&b| b.abs_diff(first) >= 6).max_by_key(|&b| hist[b])?;
        let (lo, hi) = (first.min(second), first.max(second));
        let valley = (lo..=hi).map(|b| hist[b]).min()?;
        let smaller = hist[first].min(hist[second]);
        let at = |b: usize| 2f64.powf(b as f64 / 2.0);
        (20 * hist[second] >= cycles.len() && 2 * valley < smaller).then(|| (at(lo), at(hi)))
    }

    #[test]
    fn two_modes_finds_bimodal_samples_only() {
        let bimodal: Vec<u64> = (0..1000).map(|k| if k % 3 == 0 { 4000 + k } else { 100 + k % 7 }).collect();
        let (short, long) = two_modes(&bimodal).unwrap();
        assert!(long / short >= 8.0, "{short} {long}");
        let spread: Vec<u64> = (1..2000).collect();
        assert_eq!(two_modes(&spread), None);
        assert_eq!(two_modes(&[100; 50]), None);
    }

    /// Sanchez et al. (ASPLOS 2010), sections 5.2 and 6.4: gtfold's tasks
    /// are either short or about 40 times longer. With one cell per task the
    /// recorded task lengths (cycles, from `finegrain::record`) keep both
    /// modes, an order of magnitude or more apart.
    #[test]
    fn dataflow_task_lengths_are_bimodal() {
        use finegrain::taskgraph::{Meta, Step, TaskKind};
        let seq = energy::random_sequence(160, 2);
        let (table, g) = finegrain::record::record(Meta::synthetic("gtfold-dataflow", "160", 2), || dataflow::phase(&seq)).unwrap();
        assert!(table.packed().eq(wavefront::serial(&seq).packed()));
        let cycles: Vec<u64> = (0..g.tasks.len() as u32)
            .filter(|&t| g.tasks[t as usize].kind == TaskKind::Phase)
            .map(|t| g.steps_of(t).iter().map(|s| if let Step::Work { cycles, .. } = s { *cycles } else { 0 }).sum())
            .collect();
        assert_eq!(cycles.len(), 160 * 161 / 2, "one task per cell");
        let (short, long) = two_modes(&cycles).unwrap_or_else(|| panic!("task lengths are not bimodal"));
        assert!(long / short >= 8.0, "modes at {short:.0} and {long:.0} cycles");
    }
}
