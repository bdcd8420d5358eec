//! hashjoin.

use crate::common::{check_small, workload_tests};

workload_tests! {
    hashjoin => "hashjoin",
}

#[test]
fn hashjoin_at_small() {
    check_small("hashjoin");
}
