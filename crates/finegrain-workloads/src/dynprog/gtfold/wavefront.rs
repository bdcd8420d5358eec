//! The serial reference and the loop-parallel version: one parallel loop per
//! diagonal, as the original GTfold does (Sanchez et al. (ASPLOS 2010), section
//! 6.4), which makes many short phases whose tasks are either short or about 40
//! times longer.

use super::energy::Table;
use crate::par::Par;

/// Cells per task: one long cell is a few thousand instructions.
const GRAIN: usize = 2;

/// Diagonal by diagonal, so both predecessors of a cell come first.
pub fn serial(seq: &[u8]) -> Table {
    let n = seq.len();
    let t = Table::new(n);
    for d in 0..n {
        for i in 0..n - d {
            t.fill(seq, i, i + d);
        }
    }
    t
}

pub fn parallel<P: Par>(par: P, seq: &[u8]) -> Table {
    let n = seq.len();
    let t = Table::new(n);
    for d in 0..n {
        par.for_each_chunk(0..n - d, GRAIN, |r| {
            finegrain::record::declare(|| {
                r.clone().for_each(|i| t.declare_fill(seq, i, i + d));
            });
            for i in r {
                t.fill(seq, i, i + d);
            }
        });
    }
    t
}
