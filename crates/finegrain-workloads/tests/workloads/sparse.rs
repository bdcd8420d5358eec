//! spmv, sptranspose, cg, sva, cf, fs, bs.

use crate::common::{check_small, workload_tests};

workload_tests! {
    spmv => "spmv",
    sptranspose => "sptranspose",
    cg => "cg",
    sva => "sva",
    sva_dense => "sva-dense",
    cf => "cf",
    fs => "fs",
    bs => "bs",
}

#[test]
fn cg_at_small() {
    check_small("cg");
}

#[test]
fn sva_at_small() {
    check_small("sva");
}

#[test]
fn cf_at_small() {
    check_small("cf");
}

#[test]
fn fs_at_small() {
    check_small("fs");
}

#[test]
fn bs_at_small() {
    check_small("bs");
}
