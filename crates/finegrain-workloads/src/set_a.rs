//! Workloads, set A: the kernels of 003's Table 1 (recursive, dense, sparse
//! and graph), plus `sum`, the plain-loop peer. PEERS.md gives the exact input
//! generators for the ones that have C++ peers.

use crate::Workload;

mod graph;
mod sparse;

mod bfs;
mod cilksort;
mod fib;
mod matmul;
mod nqueens;
mod pagerank;
mod spmv;
mod sptranspose;
mod sum;
mod transpose;
mod uts;

pub fn workloads() -> Vec<Box<dyn Workload>> {
    vec![
        Box::new(fib::Fib),
        Box::new(nqueens::NQueens),
        Box::new(uts::Uts),
        Box::new(cilksort::CilkSort),
        Box::new(matmul::MatMul),
        Box::new(transpose::Transpose),
        Box::new(spmv::SpMV),
        Box::new(sptranspose::SpTranspose),
        Box::new(pagerank::PageRank),
        Box::new(bfs::Bfs),
        Box::new(sum::Sum),
    ]
}
