//! `finegrain`: list the workloads and policies, benchmark them, measure METG.
//!
//! Exit status: 0 when everything ran and every result checked out; 1 when a
//! run failed or a result was wrong (the other runs still complete and are
//! written); 2 when the command line is invalid (nothing is run or written).

/// While `record` (or `sim`, recording its traces) runs, the pages of large
/// blocks are touched as they are handed out, off the clock: no simulated
/// machine has the kernel's page faults (`finegrain::record::PrefaultAlloc`).
#[global_allocator]
static ALLOC: finegrain::record::PrefaultAlloc = finegrain::record::PrefaultAlloc;

#[macro_use]
mod out;
mod bench;
mod chili_programs;
mod cli;
mod clock;
mod list;
mod meta;
mod metg;
mod peers;
mod plan;
mod plot;
mod pools;
mod record;
mod sample;
mod sim;
mod specs;
mod text_table;

use clap::Parser;
use std::process::ExitCode;

/// Why a command stopped.
#[derive(Debug)]
pub enum Failure {
    /// A bad argument, found before anything ran.
    Usage(String),
    /// Something that prevents the command from finishing (an unwritable file).
    Fatal(String),
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match &cli.command {
        cli::Command::List { sizes } => specs::sizes(sizes).map_err(Failure::Usage).map(|s| {
            list::main(&s);
            true
        }),
        cli::Command::Bench(a) => bench::main(a),
        cli::Command::Metg(a) => metg::main(a),
        cli::Command::Record(a) => record::main(a),
        cli::Command::Sim(a) => sim::main(a),
        cli::Command::Plan(a) => plan::main(a),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(Failure::Usage(msg)) => {
            eprintln!("finegrain: error: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Fatal(msg)) => {
            eprintln!("finegrain: error: {msg}");
            ExitCode::from(1)
        }
    }
}
