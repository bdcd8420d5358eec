//! gauss-seidel.

use crate::common::{check_small, workload_tests};

workload_tests! {
    gauss_seidel => "gauss-seidel",
}

#[test]
fn gauss_seidel_at_small() {
    check_small("gauss-seidel");
}
