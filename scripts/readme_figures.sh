#!/usr/bin/env bash
# Re-measure every figure the README quotes, on this machine, and keep the
# outputs with the machine, the build settings and the date.
#
#   scripts/readme_figures.sh                # everything (tens of minutes)
#   scripts/readme_figures.sh overhead spawn # only some groups
#
# Groups: overhead (fork-join, fib(35), tree and loop sums), spawn
# (instructions per spawn, in and outside the workspace), phase (phase cost),
# limits (resident memory per worker, recursion depths), bench (the default
# `finegrain bench` suite, whose tables and plots land in results/).
# Outputs go to results/readme/<group>.txt, each headed by the machine (CPU
# model, cores), rustc, the build profile and the date.
set -euo pipefail
cd "$(dirname "$0")/.."
out=results/readme
mkdir -p "$out"
groups=("$@")
[[ ${#groups[@]} -gt 0 ]] || groups=(overhead spawn phase limits bench)

header() {
    echo "# $1"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "machine: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//') ($(nproc) CPUs), load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    echo "rustc: $(rustc --version)"
    echo "build: workspace release profile (thin LTO, one codegen unit, functions aligned to 64 bytes: Cargo.toml, .cargo/config.toml)"
    echo
}

run() { # group, then the command lines, each run through bash and echoed
    local g=$1
    shift
    { header "$g"; for c in "$@"; do echo "\$ $c"; bash -c "$c" 2>&1; echo; done; } | tee "$out/$g.txt"
}

for g in "${groups[@]}"; do
    case $g in
    overhead) run overhead \
        "FG_POLICY=adm-central cargo run -q --release -p finegrain-bench --bin overhead -- --only fib35 --reps 7" \
        "FG_POLICY=ws cargo run -q --release -p finegrain-bench --bin overhead -- --only fib35 --reps 7" \
        "FG_POLICY=adm-hier cargo run -q --release -p finegrain-bench --bin overhead -- --only tree_sum,loop_sum --reps 7" ;;
    spawn) run spawn \
        "POLICY=adm-central scripts/spawn_cost.sh" \
        "POLICY=ws scripts/spawn_cost.sh" \
        "WORKLOAD=tree POLICY=adm-central scripts/spawn_cost.sh" \
        "CARGO_FLAGS=--no-default-features POLICY=adm-central scripts/spawn_cost.sh" \
        "EXTERNAL=1 POLICY=adm-central scripts/spawn_cost.sh" ;;
    phase) run phase "cargo run -q --release -p finegrain-bench --bin phase_cost" ;;
    limits) run limits \
        "cargo test -q -p finegrain --test memory -- --nocapture" \
        "cargo test -q --release -p finegrain --test recursion_limits" ;;
    bench) run bench "cargo run -q --release -p finegrain-cli -- bench" ;;
    *) echo "readme_figures.sh: unknown group $g (overhead, spawn, phase, limits, bench)" >&2; exit 2 ;;
    esac
done
echo "outputs in $out/"
