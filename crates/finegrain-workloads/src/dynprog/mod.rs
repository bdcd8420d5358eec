//! Dynamic programs over triangular tables: `gtfold-loop` and
//! `gtfold-dataflow` (RNA folding), from Sanchez, Yoo, Kozyrakis, "Flexible
//! architectural support for fine-grain scheduling", ASPLOS 2010, sections 5.2
//! and 6.4; `binomial` and `binomial-batch` (option pricing by backward induction on a lattice),
//! the BT of Kumar, Hughes, Nguyen, "Carbon: architectural support for
//! fine-grained parallelism on chip multiprocessors", ISCA 2007, section 5.3
//! and Table 2.

mod binomial;
mod gtfold;

pub use binomial::{Binomial, BinomialBatch};
pub use gtfold::{GtfoldDataflow, GtfoldLoop};
