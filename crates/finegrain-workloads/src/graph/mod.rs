//! Graph traversal and flow: `bfs` and `pagerank` (Ligra's versions) from
//! Cheng, Ruttenberg, Richmond, Taylor, Batten, "Beyond static parallel loops:
//! supporting dynamic task parallelism on manycore architectures with
//! software-managed scratchpad memories", ASPLOS 2023, section 5.3 and Table 1;
//! `maxflow` and `maxflow-async` from Sanchez, Yoo, Kozyrakis, "Flexible architectural support for
//! fine-grain scheduling", ASPLOS 2010, section 5.2 and Table 4.

mod bfs;
mod input;
mod maxflow;
mod pagerank;
mod rmat;

pub use bfs::Bfs;
pub use maxflow::{MaxFlow, MaxFlowAsync};
pub use pagerank::PageRank;
