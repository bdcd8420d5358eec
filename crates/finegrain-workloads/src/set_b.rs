//! Workloads of set B: graph, image, solver and database kernels from 000
//! (sections 5.2 and 6.4) and 002 (section 5.3).

mod binomial;
mod canneal;
mod canny;
mod cg;
mod gauss_seidel;
mod gtfold;
mod hashjoin;
mod maxflow;
mod sva;

use crate::Workload;

pub fn workloads() -> Vec<Box<dyn Workload>> {
    vec![
        Box::new(maxflow::MaxFlow),
        Box::new(canny::Canny),
        Box::new(cg::ConjugateGradient),
        Box::new(gauss_seidel::GaussSeidel),
        Box::new(sva::SparseVectorAdd),
        Box::new(binomial::Binomial),
        Box::new(hashjoin::HashJoin),
        Box::new(gtfold::GtfoldLoop),
        Box::new(gtfold::GtfoldDataflow),
        Box::new(canneal::Canneal),
    ]
}
