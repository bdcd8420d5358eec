//! bfs, pagerank, maxflow, maxflow-async.

use crate::common::{check_small, workload_tests};

workload_tests! {
    pagerank => "pagerank",
    bfs => "bfs",
    maxflow => "maxflow",
    maxflow_async => "maxflow-async",
}

#[test]
fn maxflow_at_small() {
    check_small("maxflow");
}

#[test]
fn maxflow_async_at_small() {
    check_small("maxflow-async");
}
