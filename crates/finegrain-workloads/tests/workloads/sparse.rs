//! spmv, sptranspose, cg, sva.

use crate::common::{check_small, workload_tests};

workload_tests! {
    spmv => "spmv",
    sptranspose => "sptranspose",
    cg => "cg",
    sva => "sva",
    sva_dense => "sva-dense",
}

#[test]
fn cg_at_small() {
    check_small("cg");
}

#[test]
fn sva_at_small() {
    check_small("sva");
}
