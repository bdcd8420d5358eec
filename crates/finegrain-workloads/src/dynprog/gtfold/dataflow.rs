//! The task-parallel refactoring of Sanchez et al. (ASPLOS 2010), section 6.4:
//! no per-diagonal barrier; a block of cells runs as soon as the block to its
//! left and the block below it are done. With finegrain, a dataflow
//! [`finegrain::Graph`] with one node per block; with Rayon, the paper's own
//! scheme: a counter per block, and the task that completes a block's last
//! predecessor spawns it.
//!
//! Inside a block, rows go bottom-up and each row left to right, so a cell's
//! two predecessors are done before it, in this block or in the two
//! predecessor blocks.

use super::energy::Table;
use std::sync::atomic::{AtomicU8, Ordering};

/// Cells per block side: a 4x4 block holds about six long cells, some 15 K
/// cycles of work, like gtfold's tasks in Sanchez et al. (ASPLOS 2010),
/// Table 4.
const BLOCK: usize = 4;

/// The sequence and the table, whose cells the block tasks fill. The
/// graph's (or counters') release/acquire on completion orders a block's
/// writes before its successors' reads.
struct Shared<'a> {
    seq: &'a [u8],
    table: Table,
}

impl Shared<'_> {
    fn new(seq: &[u8]) -> Shared<'_> {
        Shared { seq, table: Table::new(seq.len()) }
    }

    fn blocks(&self) -> usize {
        self.seq.len().div_ceil(BLOCK)
    }

    fn run_block(&self, bi: usize, bj: usize) {
        let n = self.seq.len();
        let rec = finegrain::record::active();
        for i in (bi * BLOCK..((bi + 1) * BLOCK).min(n)).rev() {
            if rec {
                for j in (bj * BLOCK).max(i)..((bj + 1) * BLOCK).min(n) {
                    self.table.declare_fill(self.seq, i, j);
                }
            }
            for j in (bj * BLOCK).max(i)..((bj + 1) * BLOCK).min(n) {
                self.table.fill(self.seq, i, j);
            }
        }
    }
}

pub fn graph(seq: &[u8]) -> Table {
    let shared = Shared::new(seq);
    let nb = shared.blocks();
    let mut g = finegrain::Graph::new();
    // Block (bi, bj), bi <= bj, is node id[bi][bj - bi].
    let s = &shared;
    let id: Vec<Vec<finegrain::NodeId>> = (0..nb).map(|bi| (bi..nb).map(|bj| g.add_node(move |_| s.run_block(bi, bj))).collect()).collect();
    for bi in 0..nb {
        for bj in bi..nb {
            let me = id[bi][bj - bi];
            if bj > bi {
                g.add_edge(id[bi][bj - 1 - bi], me).expect("left block exists");
                g.add_edge(id[bi + 1][bj - bi - 1], me).expect("lower block exists");
            }
        }
    }
    g.run().expect("the block graph is acyclic");
    shared.table
}

pub fn rayon(seq: &[u8]) -> Table {
    let shared = Shared::new(seq);
    let nb = shared.blocks();
    // Predecessors still running: two for off-diagonal blocks, none on it.
    let waiting: Vec<Vec<AtomicU8>> = (0..nb).map(|bi| (bi..nb).map(|bj| AtomicU8::new(if bj > bi { 2 } else { 0 })).collect()).collect();
    fn run<'s>(sc: &rayon::Scope<'s>, s: &'s Shared<'_>, waiting: &'s [Vec<AtomicU8>], bi: usize, bj: usize) {
        s.run_block(bi, bj);
        // Successors: the block to the right and the block above.
        let release = |ri: usize, rj: usize| {
            if waiting[ri][rj - ri].fetch_sub(1, Ordering::AcqRel) == 1 {
                sc.spawn(move |sc| run(sc, s, waiting, ri, rj));
            }
        };
        if bj + 1 < waiting.len() {
            release(bi, bj + 1);
        }
        if bi > 0 {
            release(bi - 1, bj);
        }
    }
    rayon::scope(|sc| {
        for b in 0..nb {
            let (s, w) = (&shared, &waiting);
            sc.spawn(move |sc| run(sc, s, w, b, b));
        }
    });
    shared.table
}
