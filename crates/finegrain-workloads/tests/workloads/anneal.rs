//! canneal.

use crate::common::{check_small, workload_tests};

workload_tests! {
    canneal => "canneal",
}

#[test]
fn canneal_at_small() {
    check_small("canneal");
}
