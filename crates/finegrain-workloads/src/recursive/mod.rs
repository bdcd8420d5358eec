//! Recursive divide-and-conquer and backtracking: `fib`, `nqueens`, `uts` and
//! `cilksort`, the recursive kernels of Cheng, Ruttenberg, Richmond, Taylor,
//! Batten, "Beyond static parallel loops: supporting dynamic task parallelism
//! on manycore architectures with software-managed scratchpad memories",
//! ASPLOS 2023, section 5.3 and Table 1 (fib also its section 4.4); cilksort
//! is also the mergesort of Sanchez, Yoo, Kozyrakis, "Flexible architectural
//! support for fine-grain scheduling", ASPLOS 2010, section 5.2.

mod cilksort;
mod fib;
mod nqueens;
mod uts;

pub use cilksort::CilkSort;
pub use fib::Fib;
pub use nqueens::NQueens;
pub use uts::Uts;
