//! Stencil sweeps over a structured grid: `gauss-seidel`, from Kumar, Hughes,
//! Nguyen, "Carbon: architectural support for fine-grained parallelism on chip
//! multiprocessors", ISCA 2007, section 5.3 and Table 2.

mod gauss_seidel;

pub use gauss_seidel::GaussSeidel;
