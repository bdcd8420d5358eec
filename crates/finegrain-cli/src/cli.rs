//! Command-line syntax. Values stay strings here: `bench::plan` and `metg`
//! validate them all before anything runs, so that every mistake is reported
//! with the list of valid choices rather than clap's generic message.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(name = "finegrain", version, about = "Benchmark finegrain's scheduling policies on the papers' workloads")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List the workloads (with their input at each size) and the policies (with their options).
    List {
        /// Sizes whose inputs to generate and describe (full-size inputs take seconds).
        #[arg(long, default_value = "test,small,full", value_name = "LIST")]
        sizes: String,
    },
    /// Run workloads under policies, Rayon, chili and (optionally) the C++ peers; write a table, CSV, JSON and plots.
    Bench(BenchArgs),
    /// Measure METG(50%), Task Bench's minimum effective task granularity, per policy.
    Metg(MetgArgs),
    /// Record a workload's task structure (serially, with its memory footprint) as a trace for `sim`.
    Record(RecordArgs),
    /// Simulate a recorded or generated task graph on a modelled many-core chip under each policy.
    Sim(SimArgs),
    /// Plan a recorded trace's task spaces with the graph-based reference scheduler (METIS, MST) for a preset's caches.
    Plan(PlanArgs),
}

#[derive(Args, Debug, Clone)]
pub struct PlanArgs {
    /// A trace written by `finegrain record` of a workload that runs task spaces.
    #[arg(long, value_name = "FILE")]
    pub trace: PathBuf,
    /// Machine preset whose caches to plan for (`finegrain sim --preset help` lists them).
    #[arg(long, default_value = "throughput-32")]
    pub preset: String,
    /// Threads (default: all of the preset's).
    #[arg(long)]
    pub threads: Option<usize>,
    /// The plan file to write (one plan per recorded space, in order).
    #[arg(long, value_name = "PLAN")]
    pub out: PathBuf,
}

#[derive(Args, Debug, Clone)]
pub struct RecordArgs {
    /// The workload (see `finegrain list`).
    #[arg(long)]
    pub workload: String,
    /// Input size: test, small, full or paper (the papers' scale; `finegrain list` says which workloads have one).
    #[arg(long, default_value = "small")]
    pub size: String,
    /// Seed of the input generator.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// The trace file to write.
    #[arg(long, value_name = "FILE")]
    pub out: std::path::PathBuf,
    /// Record anew even if `results/traces/` holds this recording (the cache
    /// is keyed by workload, size, seed, input and the recording code's sources).
    #[arg(long)]
    pub no_cache: bool,
    /// Record the workload this many times and keep each work step's least cost (a step the host preempted in one recording is not in the others).
    #[arg(long, default_value_t = crate::record::DEFAULT_REPEATS as u16, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub repeat: u16,
}

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// A named experiment from the papers, which sets --workloads and --policies
    /// (`help` lists them), e.g. gtfold-fifo.
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,
    /// Comma-separated workload names (default: one workload per API kind, see `finegrain list`).
    #[arg(long, value_name = "LIST")]
    pub workloads: Option<String>,
    /// A Matrix Market file or an edge list to run the workloads that take one
    /// (spmv, sptranspose, pagerank, bfs, cg, and the symmetric positive definite
    /// matrices of cf, fs, bs) on instead of their generated input;
    /// without --workloads, every workload that takes this file.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Policy specs separated by commas or `;`, e.g. `ws,ws:victim=nearest,steal=one`
    /// (an `opt=value` item continues the spec before it). Default: every registered policy.
    #[arg(long, value_name = "SPECS")]
    pub policies: Option<String>,
    /// Comma-separated thread counts (default: 1, then powers of two up to the CPU count, and the CPU count).
    #[arg(long, value_name = "LIST")]
    pub threads: Option<String>,
    /// Timed repetitions of every configuration, interleaved.
    #[arg(long, default_value_t = 5)]
    pub reps: usize,
    /// Untimed warm-up repetitions before the timed ones.
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,
    /// Input size: test, small or full.
    #[arg(long, default_value = "small")]
    pub size: String,
    /// Seed of the input generators and of the run order.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Output directory (created if missing).
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Also run the C++ peers (oneTBB, OpenMP) where the workload has one.
    #[arg(long)]
    pub peers: bool,
    /// Where the peer executables `peer_tbb` and `peer_omp` are.
    #[arg(long, default_value = "peers/build", value_name = "DIR")]
    pub peers_dir: PathBuf,
    /// Leave out the Rayon baseline.
    #[arg(long)]
    pub no_rayon: bool,
    /// Leave out the chili baseline (fib, nqueens, cilksort and uts have a chili version).
    #[arg(long)]
    pub no_chili: bool,
    /// Skip the SVG/PNG plots.
    #[arg(long)]
    pub no_plots: bool,
    /// Also print, per workload, policy and thread count, the per-operation
    /// costs of the ADM paper's Table 5 (enqueue, dequeue, steal, manager
    /// update, steal match, send task, receive task), in cycles and ns,
    /// measured in the timed repetitions (`docs/cli.md`).
    #[arg(long)]
    pub ops: bool,
}

#[derive(Args, Debug, Clone)]
pub struct MetgArgs {
    /// Dependency patterns: trivial, stencil-1d, nearest, tree, fft (comma-separated).
    #[arg(long, default_value = "trivial,stencil-1d,nearest,tree,fft", value_name = "LIST")]
    pub patterns: String,
    /// Policy specs, as for `bench` (default: every registered policy).
    #[arg(long, value_name = "SPECS")]
    pub policies: Option<String>,
    /// Comma-separated thread counts (default as for `bench`).
    #[arg(long, value_name = "LIST")]
    pub threads: Option<String>,
    /// Tasks per timestep (default: the largest thread count, one task per worker as in Task Bench).
    #[arg(long)]
    pub width: Option<usize>,
    /// Timesteps (Task Bench uses 1000; 500 keeps the default sweep near a minute).
    #[arg(long, default_value_t = 500)]
    pub steps: usize,
    /// Dependencies per task of the `nearest` pattern.
    #[arg(long, default_value_t = 3)]
    pub radix: usize,
    /// Kernel iterations of the largest tasks (default: calibrated to about 200 us per task).
    #[arg(long)]
    pub max_iterations: Option<u64>,
    /// Kernel iterations of the smallest tasks; the sweep halves from the largest down to this.
    #[arg(long, default_value_t = 1)]
    pub min_iterations: u64,
    /// How the task graph is expressed in finegrain: `step` (one parallel loop per
    /// timestep) or `graph` (a dataflow Graph with the pattern's edges).
    #[arg(long, default_value = "step")]
    pub mode: String,
    /// Timed repetitions of every point, interleaved.
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// Leave out the Rayon baseline.
    #[arg(long)]
    pub no_rayon: bool,
    /// Seed recorded with the results (the task graph itself is deterministic).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Output directory (created if missing).
    #[arg(long, default_value = "results/metg")]
    pub out: PathBuf,
    /// Skip the SVG/PNG plots.
    #[arg(long)]
    pub no_plots: bool,
}

#[derive(Args, Debug, Clone)]
pub struct SimArgs {
    /// A trace written by `finegrain record`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["workload", "synth"])]
    pub trace: Option<PathBuf>,
    /// Record this workload now (at --size) and simulate it.
    #[arg(long, value_name = "NAME", conflicts_with = "synth")]
    pub workload: Option<String>,
    /// A synthetic task graph, e.g. `tree:depth=16,leaf=2000` (`--synth help` lists the generators).
    #[arg(long, value_name = "SPEC")]
    pub synth: Option<String>,
    /// Input size of --workload: test, small, full or paper.
    #[arg(long, default_value = "small")]
    pub size: String,
    /// Record --workload anew even if `results/traces/` holds its trace.
    #[arg(long)]
    pub no_cache: bool,
    /// Record each workload this many times and keep each work step's least cost.
    #[arg(long, default_value_t = crate::record::DEFAULT_REPEATS as u16, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub repeat: u16,
    /// Seed of the workload's input or the generator, and of the simulated victims.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Machine preset (`--preset help` lists them; default adm-cmp). With
    /// --locality, a comma-separated list (default throughput-32,tiled-32).
    #[arg(long)]
    pub preset: Option<String>,
    /// Comma-separated thread counts (default: 1 and powers of two up to the preset's threads, at most 256).
    #[arg(long, value_name = "LIST")]
    pub threads: Option<String>,
    /// Policy specs separated by commas or `;`, as for `bench` (default: ws, adm-central, adm-hier, carbon, sw-hier, pdf, static).
    #[arg(long, value_name = "SPECS")]
    pub policies: Option<String>,
    /// How ADM's messages are handled: interrupt (the paper), poll (today's runtime) or uli.
    #[arg(long, default_value = "interrupt")]
    pub delivery: String,
    /// Output directory for sim.csv, sim.json and the plots (created if missing).
    #[arg(long, default_value = "results/sim")]
    pub out: PathBuf,
    /// Skip the SVG/PNG plots.
    #[arg(long)]
    pub no_plots: bool,
    /// Check the many-core claims of the papers (docs/simulation.md) instead of one sweep.
    #[arg(long)]
    pub claims: bool,
    /// Compare simulated speedups (on host-2 unless --preset says otherwise) with a `finegrain bench` results.csv.
    #[arg(long, value_name = "RESULTS_CSV")]
    pub validate: Option<PathBuf>,
    /// Evaluate locality-aware task management (Yoo's thesis): record each
    /// locality workload and simulate every task space manager, and every
    /// stealing scheme with threads offline (docs/locality.md).
    #[arg(long, conflicts_with_all = ["trace", "workload", "synth", "claims", "validate"])]
    pub locality: bool,
    /// With --locality: comma-separated locality workloads (default: all of them). With --claims: only the claims on these workloads.
    #[arg(long, value_name = "LIST")]
    pub workloads: Option<String>,
    /// With --locality: task space managers, of hint, baseline, random, reference (default hint,baseline,random).
    #[arg(long, value_name = "LIST", requires = "locality")]
    pub managers: Option<String>,
    /// With --locality: stealing schemes, of baseline, nearest, pattern, recursive (default: all).
    #[arg(long, value_name = "LIST", requires = "locality")]
    pub stealing: Option<String>,
    /// Plans for the trace's task spaces, one per space in order (written by
    /// `finegrain plan`), instead of each space's own hint; every thread
    /// count simulated must be the plans' own.
    #[arg(long, value_name = "PLAN_FILE", conflicts_with = "locality")]
    pub plan: Option<PathBuf>,
    /// With --locality: counts of offline threads for the stealing experiment (default 4,16,28; empty: none).
    #[arg(long, value_name = "LIST", requires = "locality")]
    pub offline: Option<String>,
    /// Simulations run at once (each is single-threaded; results do not depend on it). Default: one per core.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub jobs: Option<u16>,
}

impl SimArgs {
    /// The one preset of a sweep, claims or validation (default adm-cmp).
    pub fn preset_name(&self) -> &str {
        self.preset.as_deref().unwrap_or("adm-cmp")
    }
}
