//! gtfold-loop, gtfold-dataflow, binomial, binomial-batch.

use crate::common::{check_small, workload_tests};

workload_tests! {
    gtfold_loop => "gtfold-loop",
    gtfold_dataflow => "gtfold-dataflow",
    binomial => "binomial",
    binomial_batch => "binomial-batch",
}

#[test]
fn gtfold_loop_at_small() {
    check_small("gtfold-loop");
}

#[test]
fn gtfold_dataflow_at_small() {
    check_small("gtfold-dataflow");
}

#[test]
fn binomial_at_small() {
    check_small("binomial");
}

#[test]
fn binomial_batch_at_small() {
    check_small("binomial-batch");
}
