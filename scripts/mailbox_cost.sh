#!/usr/bin/env bash
# Instructions per mailbox send and per receive, counted by callgrind, which is
# deterministic where timings on a shared machine are not.
#
#   scripts/mailbox_cost.sh                    # ring: 4 and 12 messages; overflow: 32 and 64
#   ROUNDS=5000 scripts/mailbox_cost.sh
#
# Method (as scripts/spawn_cost.sh): one thread runs ROUNDS rounds, each sending
# n messages into an empty mailbox and draining them; only the sends, or only
# the drain, run inside `measured`
# (crates/finegrain-bench/src/bin/mailbox_cost.rs), and only that is counted
# (--toggle-collect). Counting at two sizes LO < HI, the costs of each
# call (the call, and for a drain `has_mail`, `begin_drain` and the last, empty
# `try_recv`) cancel in the difference, so
#
#   per message = (I(HI) - I(LO)) / (ROUNDS * (HI - LO))
#   per call    = I(LO) / ROUNDS - LO * per message     (ring only)
#
# "ring" keeps n <= 16 (every message in the ring); "overflow" has n > 16, so the
# difference is messages 17 and up, every one through the overflow queue.
# Instruction counts do not show what an instruction costs: the send's SeqCst
# fence and a contended CAS or lock take far longer than their one instruction
# (see the timings of `cargo run --release -p finegrain-bench --bin mailbox_cost`).
#
# Environment: ROUNDS (default 1000), RING_LO/RING_HI (default 4/12),
# OVF_LO/OVF_HI (default 32/64), CARGO_FLAGS (extra flags for cargo build).
set -euo pipefail

ROUNDS=${ROUNDS:-1000}
RING_LO=${RING_LO:-4}
RING_HI=${RING_HI:-12}
OVF_LO=${OVF_LO:-32}
OVF_HI=${OVF_HI:-64}
CARGO_FLAGS=${CARGO_FLAGS:-}

command -v valgrind >/dev/null || { echo "mailbox_cost.sh: valgrind is not installed" >&2; exit 1; }
(( 1 <= RING_LO && RING_LO < RING_HI && RING_HI <= 16 )) || { echo "mailbox_cost.sh: need 1 <= RING_LO < RING_HI <= 16" >&2; exit 2; }
(( 16 < OVF_LO && OVF_LO < OVF_HI )) || { echo "mailbox_cost.sh: need 16 < OVF_LO < OVF_HI" >&2; exit 2; }

cd "$(dirname "$0")/.."
# shellcheck disable=SC2086 # CARGO_FLAGS is a list of flags
cargo build --release -p finegrain-bench --bin mailbox_cost $CARGO_FLAGS >&2
bin="${CARGO_TARGET_DIR:-target}/release/mailbox_cost"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Instructions executed inside `measured`.
count() {
    local log="$tmp/log"
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out.%p" \
        --toggle-collect='*mailbox_cost::measured*' "$bin" count "$@" "$ROUNDS" >"$tmp/stdout" 2>"$log" || {
        cat "$log" >&2
        echo "mailbox_cost.sh: run failed: count $*" >&2
        exit 1
    }
    local n
    n=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$log")
    [[ -n $n ]] || { cat "$log" >&2; echo "mailbox_cost.sh: no count for $*" >&2; exit 1; }
    echo "$n"
}

echo "| path | op | n = LO, HI | I(LO) | I(HI) | instructions per message | per call (fixed) |"
echo "|---|---|---:|---:|---:|---:|---:|"
# row PATH OP LO HI
row() {
    local lo hi
    lo=$(count "$1" "$2" "$3")
    hi=$(count "$1" "$2" "$4")
    awk -v p="$1" -v op="$2" -v a="$3" -v b="$4" -v lo="$lo" -v hi="$hi" -v r="$ROUNDS" 'BEGIN {
        per = (hi - lo) / (r * (b - a))
        # The intercept means a per-call cost only when every message took the same path.
        fixed = p == "ring" ? sprintf("%.1f", lo / r - a * per) : "-"
        printf "| %s | %s | %d, %d | %d | %d | %.1f | %s |\n", p, op, a, b, lo, hi, per, fixed
    }'
}
row ring send "$RING_LO" "$RING_HI"
row ring recv "$RING_LO" "$RING_HI"
row overflow send "$OVF_LO" "$OVF_HI"
row overflow recv "$OVF_LO" "$OVF_HI"
echo
echo "$ROUNDS rounds per count; counts are callgrind Ir inside mailbox_cost::measured"
