//! nqueens: count the placements of n non-attacking queens by backtracking.
//!
//! The board is three bitmasks (occupied columns and the two diagonals, shifted
//! one step per row), so a search node costs about twenty instructions. For the
//! first PAR_DEPTH queens every free column is spawned as a task into a scope,
//! as in Cilk's nqueens (Cheng, Ruttenberg, Richmond, Taylor, Batten, "Beyond
//! static parallel loops: supporting dynamic task parallelism on manycore
//! architectures with software-managed scratchpad memories", ASPLOS 2023,
//! section 5.3, parallelise "over the potential positions of the next queen");
//! each task writes its count into its own slot and the parent adds the slots
//! once the scope has ended. Below that depth the search is serial. The early
//! rows prune little and the late ones a lot, so a fixed depth gives n = 14 a
//! quarter of a million leaf tasks of about a hundred nodes (a few thousand
//! instructions), while n = 8 still spawns down to its last two rows.

use crate::{Instance, Output, Size, Workload};

pub struct NQueens;

/// Queens placed by spawned tasks; the search below them is serial.
const PAR_DEPTH: u32 = 6;

impl Workload for NQueens {
    fn name(&self) -> &'static str {
        "nqueens"
    }
    fn description(&self) -> &'static str {
        "number of solutions of the n-queens problem by backtracking, one spawned task per column of the next queen"
    }
    fn source(&self) -> &'static str {
        "Cheng et al. (ASPLOS 2023), section 5.3 and Table 1 (NQueens, recursive parallel_for)"
    }
    fn api(&self) -> &'static str {
        "scope"
    }
    fn prepare(&self, size: Size, _seed: u64) -> Box<dyn Instance> {
        let n = match size {
            Size::Test => 8,
            Size::Small => 12,
            Size::Full | Size::Paper => 15,
        };
        Box::new(NQueensInstance { n })
    }
}

struct NQueensInstance {
    n: u32,
}

/// A partial placement: the queens of rows `0..row` are on the board.
#[derive(Copy, Clone)]
struct Board {
    row: u32,
    cols: u32,
    /// Squares of the current row attacked along the two diagonal directions.
    left: u32,
    right: u32,
}

impl Board {
    fn empty() -> Board {
        Board { row: 0, cols: 0, left: 0, right: 0 }
    }
    /// Columns of the current row no queen attacks.
    #[inline]
    fn free(self, all: u32) -> u32 {
        all & !(self.cols | self.left | self.right)
    }
    /// The board after a queen goes on `bit` in the current row.
    #[inline]
    fn place(self, bit: u32) -> Board {
        Board { row: self.row + 1, cols: self.cols | bit, left: (self.left | bit) << 1, right: (self.right | bit) >> 1 }
    }
}

fn serial(n: u32, b: Board) -> u64 {
    let all = (1u32 << n) - 1;
    if b.row == n {
        return 1;
    }
    let mut free = b.free(all);
    let mut count = 0;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        count += serial(n, b.place(bit));
    }
    count
}

/// Solutions below `b`, spawning one task per free column through `spawn`
/// (finegrain's or Rayon's scope), each writing its own slot of `counts`.
fn spawn_columns<'s>(n: u32, b: Board, counts: &'s mut [u64; 32], mut spawn: impl FnMut(Board, &'s mut u64)) {
    let free = b.free((1u32 << n) - 1);
    for (c, slot) in counts[..n as usize].iter_mut().enumerate() {
        let bit = 1u32 << c;
        if free & bit != 0 {
            spawn(b.place(bit), slot);
        }
    }
}

fn parallel(n: u32, b: Board) -> u64 {
    // A full board above the spawn depth (n < PAR_DEPTH) is a solution too.
    if b.row >= PAR_DEPTH || b.row == n {
        return serial(n, b);
    }
    let mut counts = [0u64; 32];
    finegrain::scope(|s| {
        spawn_columns(n, b, &mut counts, |nb, slot| {
            s.spawn(move |_| {
                finegrain::record::write(std::slice::from_ref(slot));
                *slot = parallel(n, nb)
            })
        });
    });
    counts.iter().sum()
}

fn with_rayon(n: u32, b: Board) -> u64 {
    if b.row >= PAR_DEPTH || b.row == n {
        return serial(n, b);
    }
    let mut counts = [0u64; 32];
    rayon::scope(|s| {
        spawn_columns(n, b, &mut counts, |nb, slot| s.spawn(move |_| *slot = with_rayon(n, nb)));
    });
    counts.iter().sum()
}

impl Instance for NQueensInstance {
    fn describe(&self) -> String {
        format!("n={}", self.n)
    }
    fn serial(&self) -> Output {
        Output::Int(serial(self.n, Board::empty()))
    }
    fn parallel(&self) -> Output {
        Output::Int(finegrain::record::region(|| parallel(self.n, Board::empty())))
    }
    fn rayon(&self) -> Option<Output> {
        Some(Output::Int(with_rayon(self.n, Board::empty())))
    }
    fn peer_args(&self) -> Option<String> {
        Some(format!("n={} par_depth={PAR_DEPTH}", self.n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_counts() {
        let known = [1, 0, 0, 2, 10, 4, 40, 92, 352, 724];
        for (i, &k) in known.iter().enumerate() {
            assert_eq!(serial(i as u32 + 1, Board::empty()), k, "n = {}", i + 1);
        }
    }

    #[test]
    fn small_boards_in_parallel() {
        // Boards smaller than the spawn depth fill up while still spawning.
        let pool = finegrain::Pool::new(2, "ws").unwrap();
        for (n, k) in [(1, 1), (4, 2), (5, 10), (6, 4), (8, 92)] {
            assert_eq!(pool.install(|| parallel(n, Board::empty())), k, "n = {n}");
            assert_eq!(with_rayon(n, Board::empty()), k, "n = {n} (rayon)");
        }
    }
}
