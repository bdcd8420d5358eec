//! The papers' workloads, from
//!
//! - Sanchez, Yoo, Kozyrakis, "Flexible architectural support for fine-grain
//!   scheduling", ASPLOS 2010, section 5.2;
//! - Kumar, Hughes, Nguyen, "Carbon: architectural support for fine-grained
//!   parallelism on chip multiprocessors", ISCA 2007, section 5.3;
//! - Cheng, Ruttenberg, Richmond, Taylor, Batten, "Beyond static parallel
//!   loops: supporting dynamic task parallelism on manycore architectures with
//!   software-managed scratchpad memories", ASPLOS 2023, section 5.3.
//!
//! They are grouped by domain: `recursive` (fib, nqueens, uts, cilksort),
//! `dense` (matmul, transpose, sum), `sparse` (spmv, sptranspose, cg, sva),
//! `stencil` (gauss-seidel), `graph` (bfs, pagerank, maxflow, maxflow-async), `image`
//! (canny), `db` (hashjoin), `dynprog` (gtfold-loop, gtfold-dataflow,
//! binomial, binomial-batch), `anneal` (canneal, canneal-batch) and `physics`
//! (gps); `dense` also has mvm, `sparse` sva-dense, cf, fs and bs. What they share (the seeded generator,
//! the result digest, the floating-point tolerance check, input files) is in
//! `support`; the serial, finegrain and Rayon backends they are written
//! against are in `par`.
//!
//! Each workload is a real program with a serial reference, a parallel version
//! written once against finegrain's API (so every policy runs it), a Rayon
//! version where one is natural, a deterministic input generator at three sizes,
//! and a check of the parallel result against the serial one.
//!
//! ```
//! use finegrain_workloads::{all, Size};
//! let w = finegrain_workloads::by_name("fib").unwrap();
//! let inst = w.prepare(Size::Test, 42);
//! let reference = inst.serial();
//! let got = finegrain::Pool::new(2, "ws").unwrap().install(|| inst.parallel());
//! inst.check(&reference, &got).unwrap();
//! assert!(all().len() >= 1);
//! ```
//!
//! The sparse and graph workloads named in [`INPUT_WORKLOADS`] also run on a
//! user's matrix or graph, loaded by [`io::load`] (Matrix Market or edge
//! list; [`pgm`] reads canny's images):
//!
//! ```
//! use finegrain_workloads::{by_name, io, Size};
//! let text = "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n";
//! let input = io::Input::Matrix(io::read_mtx(text.as_bytes()).unwrap());
//! let cg = by_name("cg").unwrap();
//! let inst = cg.prepare_input(&input, Size::Test, 42).unwrap();
//! let got = finegrain::Pool::new(2, "ws").unwrap().install(|| inst.parallel());
//! inst.check(&inst.serial(), &got).unwrap();
//! // fib takes no file; bfs needs a square matrix (or an edge list).
//! assert!(by_name("fib").unwrap().check_input(&input).is_err());
//! let wide = io::Input::Matrix(io::read_mtx("%%MatrixMarket matrix coordinate pattern general\n1 2 1\n1 2\n".as_bytes()).unwrap());
//! assert!(by_name("bfs").unwrap().check_input(&wide).unwrap_err().contains("not square"));
//! ```

use std::fmt;

mod par;
mod support;

mod anneal;
mod db;
mod dense;
mod dynprog;
mod graph;
mod image;
pub mod locality;
pub mod mapreduce;
mod physics;
mod recursive;
mod sparse;
mod stencil;

pub use support::io;
pub use support::pgm;

/// The seeded generator the workloads draw their inputs from.
pub mod util {
    pub use crate::support::rng::SplitMix64;
}

/// Input size: `Test` for unit tests (milliseconds), `Small` for quick runs,
/// `Full` for timing: large enough that a serial run takes long next to the
/// runtime's start-up and measurement noise. `Paper` is the scale of the
/// papers' many-core evaluations, for recording traces to simulate
/// (`finegrain record`): an input whose trace has a parallelism of at least
/// ten times the largest thread count a claim uses, or the paper's own input
/// where it states one. Workloads without an input of that scale
/// ([`Workload::paper_size`] false) run `Full` for `Paper`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    Test,
    Small,
    Full,
    Paper,
}

impl Size {
    /// The sizes tests and benchmark sweeps loop over: `Paper` is left out
    /// (its inputs take up to a minute each to record).
    pub const ALL: [Size; 3] = [Size::Test, Size::Small, Size::Full];
    /// Every size, `Paper` included (what the command line accepts).
    pub const EVERY: [Size; 4] = [Size::Test, Size::Small, Size::Full, Size::Paper];
    pub fn name(self) -> &'static str {
        match self {
            Size::Test => "test",
            Size::Small => "small",
            Size::Full => "full",
            Size::Paper => "paper",
        }
    }
    pub fn parse(s: &str) -> Option<Size> {
        Size::EVERY.into_iter().find(|x| x.name() == s)
    }
}

/// The result of one run, compared against the serial reference by `check`.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    Int(u64),
    Float(f64),
    Ints(Vec<u64>),
    Floats(Vec<f64>),
    /// A digest of a large result (e.g. a sorted array), with its length.
    Digest {
        len: usize,
        hash: u64,
    },
}

impl fmt::Display for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Output::Int(x) => write!(f, "{x}"),
            Output::Float(x) => write!(f, "{x:.9e}"),
            Output::Ints(v) => write!(f, "{} ints", v.len()),
            Output::Floats(v) => write!(f, "{} floats", v.len()),
            Output::Digest { len, hash } => write!(f, "{len} items #{hash:016x}"),
        }
    }
}

/// One workload (a program), independent of input.
pub trait Workload: Send + Sync {
    fn name(&self) -> &'static str;
    /// One line: what the program computes.
    fn description(&self) -> &'static str;
    /// Which paper and section it comes from.
    fn source(&self) -> &'static str;
    /// Which API it exercises: "join", "scope", "loop", "reduce", "phase", "graph", "loop-2d".
    fn api(&self) -> &'static str;
    /// Whether [`Size::Paper`] is an input of its own, at the scale of the
    /// papers' many-core evaluations; otherwise `Paper` runs the `Full` input.
    fn paper_size(&self) -> bool {
        false
    }
    /// Generate the input for `size` from `seed` (deterministic).
    ///
    /// Panics where [`Workload::try_prepare`] returns an error.
    fn prepare(&self, size: Size, seed: u64) -> Box<dyn Instance>;
    /// [`Workload::prepare`], or why the input cannot be had: a workload that
    /// reads a file its environment names (`canny` and `FINEGRAIN_CANNY_PGM`)
    /// reports a missing or malformed file here, as an error naming the file
    /// and the line or byte offset, rather than panicking.
    fn try_prepare(&self, size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
        Ok(self.prepare(size, seed))
    }
    /// `Ok` if this workload can run on `input` (a user's file, see
    /// [`io::load`]), else why not: the workloads that take no file say so, a
    /// workload that needs a square or symmetric matrix says which entry or
    /// dimension is wrong. Cheap next to [`Workload::prepare_input`], so that a
    /// command line can be checked before anything runs.
    fn check_input(&self, input: &io::Input) -> Result<(), String> {
        let _ = input;
        Err(format!("{} takes no input file (the workloads that do: {})", self.name(), INPUT_WORKLOADS.join(", ")))
    }
    /// The instance that runs this workload on `input`, or why it cannot (as
    /// [`Workload::check_input`] says). `size` sets what the file does not:
    /// the number of iterations or searches, as for the generated input, and
    /// `seed` draws the start vector or the search sources.
    fn prepare_input(&self, input: &io::Input, size: Size, seed: u64) -> Result<Box<dyn Instance>, String> {
        let _ = (size, seed);
        self.check_input(input).and(Err(format!("{} takes no input file", self.name())))
    }
}

/// The workloads that run on a user's matrix or graph ([`Workload::prepare_input`]),
/// in registry order.
pub const INPUT_WORKLOADS: &[&str] = &["spmv", "sptranspose", "pagerank", "bfs", "cg", "cf", "fs", "bs"];

/// A workload with its input generated, ready to run any number of times.
pub trait Instance: Send + Sync {
    /// Human-readable input parameters, e.g. "n=35" or "2^20 keys".
    fn describe(&self) -> String;
    /// The serial reference program (no finegrain, no Rayon).
    fn serial(&self) -> Output;
    /// The parallel program, using finegrain's API in the pool it is installed in.
    fn parallel(&self) -> Output;
    /// The same program written for Rayon, where one is natural.
    fn rayon(&self) -> Option<Output> {
        None
    }
    /// Arguments for the C++ peers (`peers/`), where the workload has a peer version:
    /// `key=value` pairs that make the peer generate the same-size input.
    fn peer_args(&self) -> Option<String> {
        None
    }
    /// For Phoenix's programs (`peers/phoenix`, `finegrain bench --peers`),
    /// where the workload is one of theirs: the input written into `dir` in
    /// the form their program reads, the driver's `key=value` arguments, and
    /// the digest each of Phoenix's programs must print for this input.
    fn phoenix(&self, dir: &std::path::Path) -> Option<Result<PhoenixInput, String>> {
        let _ = dir;
        None
    }
    /// `Ok` if `got` matches the serial `reference` (exactly, or within a stated
    /// tolerance for floating point).
    fn check(&self, reference: &Output, got: &Output) -> Result<(), String> {
        if reference == got {
            Ok(())
        } else {
            Err(format!("expected {reference}, got {got}"))
        }
    }
}

/// A workload's input for Phoenix's programs (`peers/phoenix/README.md` is
/// the contract): the driver's arguments, and per program (`phoenix2`,
/// `phoenix2-seq`, `phoenix++`) the FNV-1a digest of the canonical result
/// text it must print, computed here from the serial reference program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhoenixInput {
    pub args: String,
    pub digests: Vec<(&'static str, u64)>,
}

/// Every workload, in a stable order: `finegrain list`, the CLI's default
/// suite (the first workload of each API kind) and result tables follow it.
pub fn all() -> Vec<Box<dyn Workload>> {
    vec![
        Box::new(recursive::Fib),
        Box::new(recursive::NQueens),
        Box::new(recursive::Uts),
        Box::new(recursive::CilkSort),
        Box::new(dense::MatMul),
        Box::new(dense::Transpose),
        Box::new(sparse::SpMV),
        Box::new(sparse::SpTranspose),
        Box::new(graph::PageRank),
        Box::new(graph::Bfs),
        Box::new(dense::Sum),
        Box::new(graph::MaxFlow),
        Box::new(image::Canny),
        Box::new(sparse::ConjugateGradient),
        Box::new(stencil::GaussSeidel),
        Box::new(sparse::SparseVectorAdd),
        Box::new(dynprog::Binomial),
        Box::new(db::HashJoin),
        Box::new(dynprog::GtfoldLoop),
        Box::new(dynprog::GtfoldDataflow),
        Box::new(anneal::Canneal),
        Box::new(anneal::CannealBatch),
        Box::new(sparse::DenseVectorAdd),
        Box::new(dense::Mvm),
        Box::new(physics::GamePhysics),
        Box::new(graph::MaxFlowAsync),
        Box::new(dynprog::BinomialBatch),
        Box::new(sparse::Cholesky),
        Box::new(sparse::ForwardSolve),
        Box::new(sparse::BackwardSolve),
        Box::new(locality::Conv { hint: true }),
        Box::new(locality::Mmm { hint: true }),
        Box::new(locality::Smvm { hint: true }),
        Box::new(locality::Bprj { hint: true }),
        Box::new(locality::Barnes { hint: true }),
        Box::new(locality::Hj { hint: true }),
        Box::new(locality::Sp { hint: true }),
        Box::new(locality::Sph { hint: true }),
        Box::new(locality::Ft { hint: true }),
        Box::new(locality::Gjk { hint: true }),
        Box::new(locality::Brmap { hint: true }),
        Box::new(mapreduce::WordCount),
        Box::new(mapreduce::Histogram),
        Box::new(mapreduce::LinearRegression),
        Box::new(mapreduce::StringMatch),
        Box::new(mapreduce::Kmeans),
        Box::new(mapreduce::MatrixMultiply),
        Box::new(mapreduce::Pca),
    ]
}

pub fn by_name(name: &str) -> Option<Box<dyn Workload>> {
    all().into_iter().find(|w| w.name() == name)
}
