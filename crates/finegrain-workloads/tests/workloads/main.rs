//! Every workload, one module per domain as in the crate: each workload passes
//! `common::check_workload` at `Size::Test`, and the domain modules add what
//! is particular to their workloads (known answers, `Size::Small` runs, the
//! PGM reader). `inputs` runs the workloads that take a user's file on small
//! files. `calibrate` holds timing aids, not checks.

mod common;

mod anneal;
mod calibrate;
mod db;
mod dense;
mod dynprog;
mod graph;
mod image;
mod inputs;
mod locality;
mod mapreduce;
mod physics;
mod recursive;
mod sparse;
mod stencil;

use finegrain_workloads::all;

/// The registry's order, which `finegrain list`, the CLI's default suite (the
/// first workload of each API kind) and result tables follow.
const ORDER: [&str; 48] = [
    "fib",
    "nqueens",
    "uts",
    "cilksort",
    "matmul",
    "transpose",
    "spmv",
    "sptranspose",
    "pagerank",
    "bfs",
    "sum",
    "maxflow",
    "canny",
    "cg",
    "gauss-seidel",
    "sva",
    "binomial",
    "hashjoin",
    "gtfold-loop",
    "gtfold-dataflow",
    "canneal",
    "canneal-batch",
    "sva-dense",
    "mvm",
    "gps",
    "maxflow-async",
    "binomial-batch",
    "cf",
    "fs",
    "bs",
    "conv",
    "mmm",
    "smvm",
    "bprj",
    "barnes",
    "hj",
    "sp",
    "sph",
    "ft",
    "gjk",
    "brmap",
    "word_count",
    "histogram",
    "linear_regression",
    "string_match",
    "kmeans",
    "matrix_multiply",
    "pca",
];

#[test]
fn registry_order_is_stable() {
    let names: Vec<&str> = all().iter().map(|w| w.name()).collect();
    assert_eq!(names, ORDER);
}

/// Every registered workload is tested by exactly one domain module.
#[test]
fn every_workload_has_a_domain() {
    let mut tested: Vec<&str> = [
        recursive::NAMES,
        dense::NAMES,
        sparse::NAMES,
        stencil::NAMES,
        graph::NAMES,
        image::NAMES,
        db::NAMES,
        dynprog::NAMES,
        anneal::NAMES,
        physics::NAMES,
        locality::NAMES,
        mapreduce::NAMES,
    ]
    .concat();
    tested.sort_unstable();
    let mut registered: Vec<&str> = all().iter().map(|w| w.name()).collect();
    registered.sort_unstable();
    assert_eq!(tested, registered);
}
