#!/usr/bin/env bash
# Instructions per spawn of finegrain's join against Rayon's and chili's,
# counted by callgrind, which is deterministic where timings on a shared
# machine are not.
#
#   scripts/spawn_cost.sh                      # fib(20) and fib(22), 1 thread
#   LO=22 HI=26 scripts/spawn_cost.sh          # other sizes
#   POLICY='ws:steal=half' scripts/spawn_cost.sh
#   CARGO_FLAGS=--no-default-features scripts/spawn_cost.sh   # stats probes off
#   WORKLOAD=tree LO=100000 HI=200000 scripts/spawn_cost.sh   # the tree sum
#   EXTERNAL=1 POLICY=adm-central scripts/spawn_cost.sh       # also as a user's crate builds it
#
# Method: count the instructions of fib(LO) and fib(HI) in each mode, counting
# only inside `measured` (crates/finegrain-bench/src/bin/spawn_cost.rs) so pool
# start-up is left out.
# Fixed costs cancel in the difference I(HI) - I(LO); what remains is the extra
# joins' work. The serial difference is the same recursion without joins, so
#
#   per spawn = ((I(HI) - I(LO)) - (Iserial(HI) - Iserial(LO))) / (J(HI) - J(LO))
#
# with J(n) = F(n+1) - 1 joins in fib(n). With WORKLOAD=tree, LO and HI are
# node counts of the tree sum (crates/finegrain-bench/src/kernels.rs), with
# (n - 1) / 2 joins.
#
# chili's heartbeat thread (every 100 us of wall time, which callgrind
# stretches) decides which joins share their job, so its counts could move
# between runs; repeated runs have given identical counts so far.
#
# EXTERNAL=1: the workspace build is the one the figures above come from
# (release profile of the root Cargo.toml: thin LTO, one codegen unit; every
# function aligned to 64 bytes by .cargo/config.toml). A program that depends
# on finegrain as users do gets neither, so with EXTERNAL=1 the script also
# generates a throwaway crate in a temporary directory: a copy of spawn_cost.rs
# as its main.rs, with the shared kernels (crates/finegrain-bench/src/kernels.rs)
# as a module of it, as a user's own code would be, depending on finegrain by
# path (and on Rayon and chili); it builds it from that directory (so no
# workspace config applies) with Cargo's default release profile and RUSTFLAGS
# unset, and counts it the same way. Its build is cached in
# $CARGO_TARGET_DIR/external-spawn-cost.
#
# Environment: LO, HI (fib sizes; default 20, 22), THREADS (default 1; with more,
# counts include steals and idle spinning and vary), POLICY (finegrain policy
# spec; default ws), CARGO_FLAGS (extra flags for the workspace's cargo build),
# EXTERNAL (1: also measure the external crate).
set -euo pipefail

WORKLOAD=${WORKLOAD:-fib}
export WORKLOAD
case $WORKLOAD in
fib) LO=${LO:-20} HI=${HI:-22} ;;
tree) LO=${LO:-100000} HI=${HI:-200000} ;;
*) echo "spawn_cost.sh: WORKLOAD is fib or tree" >&2; exit 2 ;;
esac
THREADS=${THREADS:-1}
POLICY=${POLICY:-ws}
CARGO_FLAGS=${CARGO_FLAGS:-}
EXTERNAL=${EXTERNAL:-0}

command -v valgrind >/dev/null || { echo "spawn_cost.sh: valgrind is not installed" >&2; exit 1; }
(( LO >= 2 && HI > LO )) || { echo "spawn_cost.sh: need 2 <= LO < HI" >&2; exit 2; }

cd "$(dirname "$0")/.."
root=$PWD
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
# shellcheck disable=SC2086 # CARGO_FLAGS is a list of flags
cargo build --release -p finegrain-bench --bin spawn_cost $CARGO_FLAGS >&2
bin="$target/release/spawn_cost"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [[ $EXTERNAL == 1 ]]; then
    ext="$tmp/ext"
    mkdir -p "$ext/src"
    sed 's/^use finegrain_bench::kernels::/#[allow(dead_code)]\nmod kernels;\nuse kernels::/' crates/finegrain-bench/src/bin/spawn_cost.rs >"$ext/src/main.rs"
    grep -q '^mod kernels;$' "$ext/src/main.rs" || { echo "spawn_cost.sh: spawn_cost.rs no longer imports finegrain_bench::kernels" >&2; exit 1; }
    cp crates/finegrain-bench/src/kernels.rs "$ext/src/kernels.rs"
    # The workspace's lock file pins the same versions of Rayon and chili.
    cp Cargo.lock "$ext/Cargo.lock"
    cat >"$ext/Cargo.toml" <<TOML
[package]
name = "spawn_cost"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
finegrain = { path = "$root/crates/finegrain" }
rayon = "1"
chili = "0.2"

# A workspace of its own: nothing of the finegrain workspace applies.
[workspace]
TOML
    (
        cd "$ext"
        unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS CARGO_BUILD_RUSTFLAGS
        CARGO_TARGET_DIR="$target/external-spawn-cost" cargo build --release >&2
    )
    ext_bin="$target/external-spawn-cost/release/spawn_cost"
fi

# Instructions executed inside `measured`, summed over threads.
count() {
    local log="$tmp/log"
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out.%p" \
        --toggle-collect='*spawn_cost::measured*' "$run_bin" "$@" >"$tmp/stdout" 2>"$log" || {
        cat "$log" >&2
        echo "spawn_cost.sh: run failed: $*" >&2
        exit 1
    }
    local n
    n=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$log")
    [[ -n $n ]] || { cat "$log" >&2; echo "spawn_cost.sh: no count for $*" >&2; exit 1; }
    echo "$n"
}

# Joins in fib(n): F(n+1) - 1; in a tree of n nodes: (n - 1) / 2.
joins() {
    if [[ $WORKLOAD == tree ]]; then
        echo $((($1 - 1) / 2))
        return
    fi
    local a=0 b=1 i t
    for ((i = 0; i <= $1; i++)); do t=$((a + b)); a=$b; b=$t; done
    echo $((a - 1))
}

j_lo=$(joins "$LO")
j_hi=$(joins "$HI")
dj=$((j_hi - j_lo))

if [[ $WORKLOAD == tree ]]; then at_lo="tree($LO)" at_hi="tree($HI)"; else at_lo="fib($LO)" at_hi="fib($HI)"; fi

# row NAME MODE [threads [policy]]: counts for fib(LO) and fib(HI), and the
# spawn cost net of the serial recursion.
row() {
    local name=$1
    shift
    local lo hi
    lo=$(count "$1" "$LO" "${@:2}")
    hi=$(count "$1" "$HI" "${@:2}")
    echo "| $name | $THREADS | $lo | $hi | $(awk -v d=$((hi - lo - ds)) -v j="$dj" 'BEGIN { printf "%.1f", d / j }') |"
}

# table BINARY: the serial recursion, then each runtime, all counted in BINARY.
table() {
    run_bin=$1
    s_lo=$(count serial "$LO")
    s_hi=$(count serial "$HI")
    ds=$((s_hi - s_lo))
    echo "| runtime | threads | I($at_lo) | I($at_hi) | instructions per spawn |"
    echo "|---|---:|---:|---:|---:|"
    echo "| serial (per internal call, no join) | - | $s_lo | $s_hi | $(awk -v d="$ds" -v j="$dj" 'BEGIN { printf "%.1f", d / j }') |"
    row "finegrain $POLICY" finegrain "$THREADS" "$POLICY"
    row "Rayon" rayon "$THREADS"
    row "chili" chili "$THREADS"
}

if [[ $EXTERNAL == 1 ]]; then
    echo "Workspace build (the workspace's release profile, functions aligned):"
    echo
fi
table "$bin"
if [[ $EXTERNAL == 1 ]]; then
    echo
    echo "External crate (depends on finegrain by path; Cargo's default release profile, no RUSTFLAGS):"
    echo
    table "$ext_bin"
fi
echo
echo "joins: $at_lo $j_lo, $at_hi $j_hi; counts are callgrind Ir inside spawn_cost::measured"
