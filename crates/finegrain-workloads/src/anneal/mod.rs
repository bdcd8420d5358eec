//! Simulated annealing: `canneal` (PARSEC's placement kernel, asynchronous as
//! PARSEC runs it) and `canneal-batch` (a deterministic refactoring), from
//! Sanchez, Yoo, Kozyrakis, "Flexible architectural support for fine-grain
//! scheduling", ASPLOS 2010, section 5.2 and Table 4.

mod canneal;

pub use canneal::{Canneal, CannealBatch};
