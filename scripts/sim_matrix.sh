#!/usr/bin/env bash
# Every workload recorded at one size, then simulated under every policy on
# every machine preset (at 2 threads and at the preset's largest count up to
# $MAXT): the "works everywhere" check of the simulator. Prints one line per
# workload and preset; fails on the first error.
#
#   scripts/sim_matrix.sh            # size small, up to 64 threads
#   SIZE=test MAXT=16 scripts/sim_matrix.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${SIZE:-small}
MAXT=${MAXT:-64}
cargo build -q --release -p finegrain-cli
fg=target/release/finegrain
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
presets=$($fg sim --preset help | awk '/threads/ {print $1 ":" $2}')
for w in $($fg list --sizes test | awk '/^  [a-z]/ {print $1}'); do
    $fg record --workload "$w" --size "$SIZE" --out "$dir/$w.fgt" > /dev/null
    for p in $presets; do
        name=${p%%:*}
        max=${p##*:}
        t=$(( max < MAXT ? max : MAXT ))
        threads=$(( t > 2 ? 2 : 1 )),$t
        $fg sim --trace "$dir/$w.fgt" --preset "$name" --threads "$threads" --no-plots --out "$dir/out" > "$dir/table.txt" 2> "$dir/err.txt" \
            || { echo "FAILED: $w on $name"; cat "$dir/err.txt"; exit 1; }
        echo "$w on $name (threads $threads): ok, $(tail -1 "$dir/err.txt")"
    done
done
