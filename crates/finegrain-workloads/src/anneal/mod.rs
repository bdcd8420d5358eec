//! Simulated annealing: `canneal` (PARSEC's placement kernel), from Sanchez,
//! Yoo, Kozyrakis, "Flexible architectural support for fine-grain scheduling",
//! ASPLOS 2010, section 5.2 and Table 4.

mod canneal;

pub use canneal::Canneal;
