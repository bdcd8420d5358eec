//! Sparse matrices and vectors: `spmv` and `sptranspose` from Cheng,
//! Ruttenberg, Richmond, Taylor, Batten, "Beyond static parallel loops:
//! supporting dynamic task parallelism on manycore architectures with
//! software-managed scratchpad memories", ASPLOS 2023, section 5.3 and Table 1;
//! `spmv` (SMVM) and `sva` from Kumar, Hughes, Nguyen, "Carbon: architectural
//! support for fine-grained parallelism on chip multiprocessors", ISCA 2007,
//! section 5.3 and Table 2; `cg` from Sanchez, Yoo, Kozyrakis, "Flexible
//! architectural support for fine-grain scheduling", ASPLOS 2010, section 5.2
//! and Table 4.

mod cg;
mod cholesky;
mod input;
mod random;
mod spmv;
mod sptranspose;
mod sva;
mod sva_dense;
mod trisolve;

pub use cg::ConjugateGradient;
pub use cholesky::Cholesky;
pub use spmv::SpMV;
pub use sptranspose::SpTranspose;
pub use sva::SparseVectorAdd;
pub use sva_dense::DenseVectorAdd;
pub use trisolve::{BackwardSolve, ForwardSolve};
