#!/usr/bin/env bash
# Run every example of crates/finegrain (release build). Each one checks its
# own result against a serial version and exits non-zero if they differ.
#
#   scripts/examples.sh
#
# The examples show how to use finegrain; the cost measurements are in
# crates/finegrain-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p finegrain --examples
for f in crates/finegrain/examples/*.rs; do
    name=$(basename "$f" .rs)
    echo "== $name"
    cargo run --quiet --release -p finegrain --example "$name"
done
