//! matmul, transpose, sum.

use crate::common::workload_tests;

workload_tests! {
    matmul => "matmul",
    transpose => "transpose",
    sum => "sum",
    mvm => "mvm",
}
