//! fib: the naive doubly recursive Fibonacci, one fork per call.
//!
//! There is deliberately no sequential cutoff: every call with n >= 2 is a
//! join, so the work per task is a handful of instructions and the run time is
//! almost entirely scheduling overhead. That makes it the overhead benchmark.

use crate::{Instance, Output, Size, Workload};

pub struct Fib;

impl Workload for Fib {
    fn name(&self) -> &'static str {
        "fib"
    }
    fn description(&self) -> &'static str {
        "n-th Fibonacci number by doubly recursive calls, every call a join (no cutoff)"
    }
    fn source(&self) -> &'static str {
        "Cheng et al. (ASPLOS 2023), section 4.4 and Figure 3 (Fib micro-benchmark, parallel_invoke) and section 5.3"
    }
    fn api(&self) -> &'static str {
        "join"
    }
    fn prepare(&self, size: Size, _seed: u64) -> Box<dyn Instance> {
        let n = match size {
            Size::Test => 20,
            Size::Small => 30,
            Size::Full | Size::Paper => 35,
        };
        Box::new(FibInstance { n })
    }
}

struct FibInstance {
    n: u64,
}

fn serial(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    serial(n - 1) + serial(n - 2)
}

fn parallel(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = finegrain::join(|| parallel(n - 1), || parallel(n - 2));
    a + b
}

fn with_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| with_rayon(n - 1), || with_rayon(n - 2));
    a + b
}

impl Instance for FibInstance {
    fn describe(&self) -> String {
        format!("n={}", self.n)
    }
    fn serial(&self) -> Output {
        Output::Int(serial(self.n))
    }
    fn parallel(&self) -> Output {
        Output::Int(finegrain::record::region(|| parallel(self.n)))
    }
    fn rayon(&self) -> Option<Output> {
        Some(Output::Int(with_rayon(self.n)))
    }
    fn peer_args(&self) -> Option<String> {
        Some(format!("n={}", self.n))
    }
}
