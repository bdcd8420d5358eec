//! Phoenix's seven MapReduce programs: each passes `check_workload`; at
//! `Small` under two workers; under every policy at 1, 2 and 4 workers.
//! Users' files: `tests/mapreduce_files.rs` (its own process, since it
//! sets the workloads' environment variables).

use crate::common::{check_small, workload_tests};
use finegrain_workloads::{by_name, Size};

workload_tests! {
    word_count => "word_count",
    histogram => "histogram",
    linear_regression => "linear_regression",
    string_match => "string_match",
    kmeans => "kmeans",
    matrix_multiply => "matrix_multiply",
    pca => "pca",
}

/// The inputs whose reading and splitting `Test` barely exercises (many
/// chunks, long texts); kmeans' and matrix_multiply's `Small` take minutes
/// in a debug build and add no code path.
#[test]
fn text_and_image_workloads_at_small() {
    for name in ["word_count", "histogram", "linear_regression", "string_match"] {
        check_small(name);
    }
}

#[test]
fn every_policy_runs_every_mapreduce_workload_at_1_2_and_4_workers() {
    for spec in finegrain::policies().map(|p| p.name) {
        for threads in [1, 2, 4] {
            let pool = finegrain::Pool::new(threads, spec).unwrap();
            for name in NAMES {
                let inst = by_name(name).unwrap().prepare(Size::Test, 7);
                let want = inst.serial();
                let got = pool.install(|| inst.parallel());
                inst.check(&want, &got).unwrap_or_else(|e| panic!("{name} under {spec} at {threads}: {e}"));
            }
        }
    }
}
