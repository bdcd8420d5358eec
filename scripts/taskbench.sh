#!/usr/bin/env bash
# finegrain inside Task Bench (Slaughter et al., SC 2020; issue 30, item 3).
#
# Builds Task Bench's core and its OpenMP implementation from their own
# sources in ../shared/peers/task-bench (copied into target/taskbench, so
# the shared tree is not written), and peers/taskbench/finegrain_main.cc
# against the core and libfinegrain (crates/finegrain-c). Then:
#
#   scripts/taskbench.sh            # build, and run every dependence pattern
#                                   # under every finegrain policy and OpenMP
#                                   # (Task Bench's own input checks on)
#   scripts/taskbench.sh build      # build only
#   scripts/taskbench.sh metg       # METG(50%) of every pattern: OpenMP, and
#                                   # finegrain's default policy (ws) and
#                                   # adm-central, interleaved, computed by
#                                   # Task Bench's scripts/metg.py
#
# Environment: TASKBENCH (the Task Bench checkout; TASKBENCH_OPTIONAL=1
# makes a missing one a note, not a failure), THREADS (default 2),
# STEPS, WIDTH (default 16, 2 x THREADS), ITER (compute_bound iterations,
# default 256), PATTERNS (a space-separated subset of the patterns below).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tb=${TASKBENCH:-}
if [[ -z $tb ]]; then
    for c in ../shared/peers/task-bench /work/shared/peers/task-bench; do
        [[ -d $c/core ]] && { tb=$(realpath "$c"); break; }
    done
fi
if [[ -z $tb || ! -f $tb/core/core.h ]]; then
    echo "taskbench.sh: Task Bench not found (set TASKBENCH to its checkout)" >&2
    # CI on a machine without the peers' tree skips this step, saying so.
    [[ ${TASKBENCH_OPTIONAL:-0} == 1 ]] && exit 0
    exit 1
fi
missing=()
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
if ((${#missing[@]})); then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
            { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
    else
        echo "taskbench.sh: missing ${missing[*]}" >&2
        exit 1
    fi
fi
THREADS=${THREADS:-2}
STEPS=${STEPS:-16}
WIDTH=${WIDTH:-$((2 * THREADS))}
ITER=${ITER:-256}
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
out="$target/taskbench"
mkdir -p "$out"
# Task Bench's own sources, built from a copy.
rm -rf "$out/core" "$out/openmp"
cp -r "$tb/core" "$tb/openmp" "$out/"
make -s -C "$out/core" >/dev/null
make -s -C "$out/openmp" main >/dev/null
cargo build -q --release -p finegrain-clib
inc="$root/crates/finegrain-c/include"
g++ -std=c++17 -O3 -Wall -I"$out/core" -I"$inc" peers/taskbench/finegrain_main.cc \
    -L"$out/core" -lcore_s -L"$target/release" -lfinegrain -Wl,-rpath,"$target/release" -lpthread -ldl -lm \
    -o "$out/finegrain"
echo "built $out/finegrain and $out/openmp/main"
[[ ${1:-} == build ]] && exit 0

# shellcheck disable=SC2206 # PATTERNS is a space-separated list
patterns=(${PATTERNS:-trivial no_comm stencil_1d stencil_1d_periodic dom tree fft all_to_all nearest spread random_nearest})
pattern_args() { [[ $1 == spread ]] && echo "-period 2"; true; }

if [[ ${1:-} == metg ]]; then
    # Task Bench's METG method: the same graph (width: twice the cores; at
    # width 2 a periodic stencil names one neighbour twice) at task sizes
    # halving from 2^MAXK iterations of compute_bound down to 2^MINK, each
    # runtime in turn at each size (interleaved), REPS times.
    python3 -c "import numpy" 2>/dev/null || pip install -q numpy || apt-get install -y --no-install-recommends python3-numpy >/dev/null
    MSTEPS=${MSTEPS:-200}
    MAXK=${MAXK:-18}
    MINK=${MINK:-6}
    REPS=${REPS:-1}
    POLICIES=${POLICIES:-ws adm-central}
    logs="$out/metg"
    rm -rf "$logs"
    mkdir -p "$logs/runs"
    for p in "${patterns[@]}"; do
        for ((k = MAXK; k >= MINK; k--)); do
            for ((r = 0; r < REPS; r++)); do
                args=(-steps "$MSTEPS" -width "$WIDTH" -type "$p" $(pattern_args "$p") -kernel compute_bound -iter $((1 << k)) -worker "$THREADS")
                # (metg.py reads "comm" in a file name as a field of its own.)
                f=${p/no_comm/nocomm}
                OMP_NUM_THREADS=$THREADS "$out/openmp/main" "${args[@]}" >>"$logs/runs/openmp_ngraphs_1_type_${f}_nodes_1.log"
                for pol in $POLICIES; do
                    "$out/finegrain" "${args[@]}" -policy "$pol" >>"$logs/runs/finegrain-${pol//:/-}_ngraphs_1_type_${f}_nodes_1.log"
                done
            done
        done
        echo "metg: $p logged" >&2
    done
    echo "METG(50%), $THREADS threads, $MSTEPS steps x width $WIDTH, compute_bound 2^$MAXK..2^$MINK iterations, $REPS rep(s), $(date -u +%Y-%m-%d), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'):"
    python3 scripts/taskbench_metg.py "$tb" "$logs" "$THREADS" "${patterns[@]}"
    exit 0
fi

mapfile -t policies < <(cargo run -q --release -p finegrain-cli -- list 2>/dev/null | sed -n '/^POLICIES/,/^[A-Z]/s/^  \([a-z][a-z-]*\): .*/\1/p' | grep -vx every)
((${#policies[@]} > 0)) || { echo "taskbench.sh: no policies listed" >&2; exit 1; }
fail=0
for p in "${patterns[@]}"; do
    # spread's period may not exceed width / radix (Task Bench's check).
    args=(-steps "$STEPS" -width "$WIDTH" -type "$p" $(pattern_args "$p") -kernel compute_bound -iter "$ITER" -worker "$THREADS")
    line="$p:"
    if OMP_NUM_THREADS=$THREADS "$out/openmp/main" "${args[@]}" >"$out/run.log" 2>&1; then line+=" openmp ok"; else line+=" openmp FAILED"; fail=1; fi
    for pol in "${policies[@]}"; do
        if "$out/finegrain" "${args[@]}" -policy "$pol" >"$out/run.log" 2>&1 && grep -q "Elapsed Time" "$out/run.log"; then
            line+=" $pol ok"
        else
            line+=" $pol FAILED"
            fail=1
            tail -5 "$out/run.log" >&2
        fi
    done
    echo "$line"
done
((fail == 0)) || { echo "taskbench.sh: failures above" >&2; exit 1; }
echo "taskbench.sh: every pattern under every policy and OpenMP passed Task Bench's checks"
