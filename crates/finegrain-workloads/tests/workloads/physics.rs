//! gps.

use crate::common::{check_small, workload_tests};

workload_tests! {
    gps => "gps",
}

#[test]
fn gps_at_small() {
    check_small("gps");
}
