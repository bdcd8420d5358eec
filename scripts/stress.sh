#!/usr/bin/env bash
# The randomized stress harness of issue 33 for as long as asked:
#   scripts/stress.sh [seconds] [extra stress options...]
# Builds `stress` in release and runs every policy and option variant at
# 2, 8, 32 and 64 workers for `seconds` (default 1800, the issue's full run),
# with 10,000 pool lifecycles per policy spec. Extra options go to the
# binary (`target/release/stress --help`), e.g. `--seed 42`, `--gdb`,
# `--policies 'ws;adm-central'`. Exit status: the binary's (0 clean,
# 1 lost/duplicated tasks or missed panics, 2 a hang).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-1800}"
shift || true
CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}" cargo build --release -p finegrain-bench --bin stress
exec target/release/stress --seconds "$seconds" --lifecycles 10000 "$@"
