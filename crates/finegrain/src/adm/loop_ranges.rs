//! One worker's loop ranges under `loops=range` (`victim.rs` has the
//! protocol): the chunks of the loop running here, and the steals it owes.

use crate::policy::adm::{Adm, AdmLoops};
use std::cell::{Cell, RefCell};

/// The most steals one worker owes at once; a further one is answered from
/// the queue alone.
pub(super) const MAX_OWED: usize = 16;

/// One worker's loop ranges under `loops=range` (inert under `split`).
pub(crate) struct LoopRanges {
    pub(super) loops: AdmLoops,
    /// Most `TASK` messages per steal ([`Adm::burst`]).
    pub(super) burst: usize,
    /// Chunks of the innermost loop running here not yet started (0: none).
    pub(super) left: Cell<usize>,
    /// Steals to answer from the running range: stealer, chunks still owed,
    /// the steal's `ends` word, tasks already sent for it.
    pub(super) owed: RefCell<Vec<(usize, usize, usize, usize)>>,
}

impl LoopRanges {
    pub(super) fn new(p: &Adm) -> LoopRanges {
        LoopRanges { loops: p.loops, burst: p.burst.max(1), left: Cell::new(0), owed: RefCell::new(Vec::new()) }
    }

    /// A loop runs here with chunks to spare for a steal.
    pub(super) fn running(&self) -> bool {
        self.loops == AdmLoops::Range && self.left.get() > 0
    }
}
