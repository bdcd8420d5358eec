#!/usr/bin/env bash
# Instructions per reduced phase, piggybacked (000 section 4.2) against the
# shared-memory tree, counted by callgrind (deterministic where timings on a
# shared machine are not). Timings: `cargo run --release -p finegrain-bench
# --bin reduce_cost` (docs/policies.md, Reductions).
#
#   scripts/reduce_cost.sh
#   POLICIES='adm-central ws' K1=4 K2=64 scripts/reduce_cost.sh
#   KIND=loop scripts/reduce_cost.sh    # loop reductions (fold_chunks_with, grain 1)
#
# Method: one worker, so that every instruction of a phase (the caller's
# enqueues, the tasks, the messages the worker sends itself as worker, manager
# and root, the tree's counter and combine) runs on the thread that callgrind
# counts inside `measured` (crates/finegrain-bench/src/bin/reduce_cost.rs). A
# phase of K tasks with empty bodies costs c(K) = (I(P2) - I(P1)) / (P2 - P1)
# over P1 and P2 phases; from two sizes K1 < K2, per task = (c(K2) - c(K1)) /
# (K2 - K1) and per phase (fixed) = c(K1) - K1 * per task. `plain` is
# `finegrain::phase` (no value, X10 counter) for comparison. With more workers
# only the caller's own instructions would be counted, so no multi-worker
# counts are given.
#
# KIND=loop counts loop reductions of K iterations (grain 1) instead of
# phases of K tasks: `piggyback` runs the loop as a piggybacked phase, `tree`
# folds it through its tree of joins.
#
# Environment: KIND (phase or loop; default phase), POLICIES (default "adm-central adm-hier ws"), K1, K2 (tasks per
# phase; default 8, 64), P1, P2 (phases; default 20, 40), CARGO_FLAGS.
set -euo pipefail

POLICIES=${POLICIES:-adm-central adm-hier ws}
K1=${K1:-8}
K2=${K2:-64}
P1=${P1:-20}
P2=${P2:-40}
CARGO_FLAGS=${CARGO_FLAGS:-}
KIND=${KIND:-phase}

command -v valgrind >/dev/null || { echo "reduce_cost.sh: valgrind is not installed" >&2; exit 1; }
(( 1 <= K1 && K1 < K2 && 1 <= P1 && P1 < P2 )) || { echo "reduce_cost.sh: need 1 <= K1 < K2 and 1 <= P1 < P2" >&2; exit 2; }

cd "$(dirname "$0")/.."
# shellcheck disable=SC2086 # CARGO_FLAGS is a list of flags
cargo build --release -p finegrain-bench --bin reduce_cost $CARGO_FLAGS >&2
bin="${CARGO_TARGET_DIR:-target}/release/reduce_cost"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count METHOD POLICY PHASES TASKS: instructions inside `measured`.
count() {
    local log="$tmp/log"
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out.%p" \
        --toggle-collect='*reduce_cost::measured*' "$bin" count "$1" "$2" 1 "$3" "$4" >"$tmp/stdout" 2>"$log" || {
        cat "$log" >&2
        echo "reduce_cost.sh: run failed: count $*" >&2
        exit 1
    }
    local n
    n=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$log")
    [[ -n $n ]] || { cat "$log" >&2; echo "reduce_cost.sh: no count for $*" >&2; exit 1; }
    echo "$n"
}

# per_phase METHOD POLICY TASKS
per_phase() {
    local a b
    a=$(count "$1" "$2" "$P1" "$3")
    b=$(count "$1" "$2" "$P2" "$3")
    awk -v a="$a" -v b="$b" -v p1="$P1" -v p2="$P2" 'BEGIN { printf "%.1f", (b - a) / (p2 - p1) }'
}

echo "| policy | method | instructions per phase of $K1 tasks | of $K2 tasks | per task | per phase (fixed) |"
echo "|---|---|---:|---:|---:|---:|"
for pol in $POLICIES; do
    case $KIND,$pol in
        phase,adm-*) methods="piggyback tree plain" ;;
        phase,*) methods="tree plain" ;;
        loop,adm-*) methods="loop-piggyback loop-tree" ;;
        loop,*) methods="loop-tree" ;;
        *) echo "reduce_cost.sh: KIND must be phase or loop" >&2; exit 2 ;;
    esac
    for m in $methods; do
        c1=$(per_phase "$m" "$pol" "$K1")
        c2=$(per_phase "$m" "$pol" "$K2")
        awk -v pol="$pol" -v m="$m" -v c1="$c1" -v c2="$c2" -v k1="$K1" -v k2="$K2" 'BEGIN {
            t = (c2 - c1) / (k2 - k1)
            printf "| %s | %s | %.0f | %.0f | %.1f | %.0f |\n", pol, m, c1, c2, t, c1 - k1 * t
        }'
    done
done
echo
echo "1 worker; callgrind Ir inside reduce_cost::measured; phases P1=$P1, P2=$P2"
