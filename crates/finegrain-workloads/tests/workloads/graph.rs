//! bfs, pagerank, maxflow.

use crate::common::{check_small, workload_tests};

workload_tests! {
    pagerank => "pagerank",
    bfs => "bfs",
    maxflow => "maxflow",
}

#[test]
fn maxflow_at_small() {
    check_small("maxflow");
}
