//! fib, nqueens, uts, cilksort.

use crate::common::{prepare, workload_tests};
use finegrain_workloads::{Output, Size};

workload_tests! {
    fib => "fib",
    nqueens => "nqueens",
    uts => "uts",
    cilksort => "cilksort",
}

#[test]
fn known_answers() {
    let run = |name: &str| prepare(name, Size::Test, 42).serial();
    assert_eq!(run("fib"), Output::Int(6765));
    assert_eq!(run("nqueens"), Output::Int(92));
}
