//! The task-parallel refactoring of Sanchez et al. (ASPLOS 2010), section 6.4:
//! "each task works on a single element of the matrix, and every time a task
//! completes, it checks if it is the last dependent task to complete for each
//! of its successors, and enqueues them if so", with counters and atomic
//! operations through shared memory. One cell per task, so the tasks keep the
//! recurrence's bimodal lengths (Table 4 and section 6.4: short cells and
//! cells about 40 times longer).
//!
//! With finegrain, a dynamic [`finegrain::phase`] whose tasks are cells
//! `(i, j)`: the paper's enqueue/dequeue interface, so the queue order a
//! policy's `order=` option sets (FIFO or LIFO) is the order the paper
//! varies. With Rayon, the same scheme with `scope` spawns.
//!
//! Cell `(i, j)`, `i < j`, waits for `(i, j-1)` and `(i+1, j)`; the diagonal
//! cells wait for nothing and start the phase. A finished cell releases the
//! cell to its right and the cell above it.
//!
//! Deviation, measured (`examples/gtfold_histogram.rs`, recorded at `small`):
//! the two modes are at about 130-260 and 2-3 K cycles, 1.0-1.1 K on
//! average, against the paper's 1 K and 38 K, 14.8 K on average. The shape
//! is the paper's; the scale is not, because `energy.rs` is a simplified
//! energy model, about 15 times cheaper per cell than GTfold's. On one worker
//! the per-cell tasks cost 10-15% more CPU time than the loop version.

use super::energy::Table;
use std::sync::atomic::{AtomicU8, Ordering};

/// The sequence, the table the cell tasks fill, and each cell's count of
/// unfinished predecessors. The counter's release/acquire (`AcqRel` on the
/// decrement) orders a cell's writes before its successor's reads.
struct Shared<'a> {
    seq: &'a [u8],
    table: Table,
    waiting: Vec<AtomicU8>,
}

impl Shared<'_> {
    fn new(seq: &[u8]) -> Shared<'_> {
        let n = seq.len();
        // Row-major over the upper triangle, as `Table` stores `V`.
        let waiting = (0..n).flat_map(|i| (i..n).map(move |j| AtomicU8::new(if j > i { 2 } else { 0 }))).collect();
        Shared { seq, table: Table::new(n), waiting }
    }

    #[inline]
    fn index(&self, i: usize, j: usize) -> usize {
        let n = self.seq.len();
        i * n - i * i.saturating_sub(1) / 2 + (j - i)
    }

    /// Fill cell `(i, j)` and hand `release` each successor whose last
    /// predecessor this was.
    #[inline]
    fn run_cell(&self, i: usize, j: usize, mut release: impl FnMut(usize, usize)) {
        finegrain::record::declare(|| self.table.declare_fill(self.seq, i, j));
        self.table.fill(self.seq, i, j);
        let mut done = |ri: usize, rj: usize| {
            if self.waiting[self.index(ri, rj)].fetch_sub(1, Ordering::AcqRel) == 1 {
                release(ri, rj);
            }
        };
        if j + 1 < self.seq.len() {
            done(i, j + 1);
        }
        if i > 0 {
            done(i - 1, j);
        }
    }
}

pub fn phase(seq: &[u8]) -> Table {
    let shared = Shared::new(seq);
    let n = seq.len() as u32;
    finegrain::record::region(|| {
        finegrain::phase((0..n).map(|d| (d, d)), |ctx, (i, j): (u32, u32)| {
            shared.run_cell(i as usize, j as usize, |ri, rj| ctx.enqueue((ri as u32, rj as u32)));
        })
    });
    shared.table
}

pub fn rayon(seq: &[u8]) -> Table {
    let shared = Shared::new(seq);
    fn run<'s>(sc: &rayon::Scope<'s>, s: &'s Shared<'_>, i: usize, j: usize) {
        s.run_cell(i, j, |ri, rj| sc.spawn(move |sc| run(sc, s, ri, rj)));
    }
    rayon::scope(|sc| {
        for d in 0..seq.len() {
            let s = &shared;
            sc.spawn(move |sc| run(sc, s, d, d));
        }
    });
    shared.table
}
