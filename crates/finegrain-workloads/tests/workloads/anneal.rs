//! canneal, canneal-batch.

use crate::common::{check_small, workload_tests};

workload_tests! {
    canneal => "canneal",
    canneal_batch => "canneal-batch",
}

#[test]
fn canneal_at_small() {
    check_small("canneal");
}

#[test]
fn canneal_batch_at_small() {
    check_small("canneal-batch");
}
