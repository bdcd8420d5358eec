//! The randomized stress harness of issue 33: random programs over every
//! construct of the task API, blocking leaves, injected panics, nested pools
//! and pool lifecycles under every policy and option variant, with a
//! watchdog. `stress --help` for the options; `scripts/stress.sh` runs it
//! for as long as asked. The harness is `finegrain_bench::stress`.

fn main() {
    std::process::exit(finegrain_bench::stress::main());
}
