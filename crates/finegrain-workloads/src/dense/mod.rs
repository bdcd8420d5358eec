//! Dense arrays: `matmul`, `transpose` and `sum`, from Cheng, Ruttenberg,
//! Richmond, Taylor, Batten, "Beyond static parallel loops: supporting dynamic
//! task parallelism on manycore architectures with software-managed scratchpad
//! memories", ASPLOS 2023, section 5.3 and Table 1 (`sum` from its Figure 3);
//! matmul is also the dense matrix multiply of Kumar, Hughes, Nguyen, "Carbon:
//! architectural support for fine-grained parallelism on chip
//! multiprocessors", ISCA 2007, section 5.3 and Table 2, and `sum` the loop
//! with a reduction of Sanchez, Yoo, Kozyrakis, "Flexible architectural
//! support for fine-grain scheduling", ASPLOS 2010, section 4.

mod matmul;
mod mvm;
mod sum;
mod transpose;

pub use matmul::MatMul;
pub use mvm::Mvm;
pub use sum::Sum;
pub use transpose::Transpose;
