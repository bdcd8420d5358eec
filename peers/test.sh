#!/usr/bin/env bash
# Build the peers, then run every workload under both at its smallest (Size::Test)
# input with threads=1 and 2. Fails if a run exits non-zero, prints anything but
# well-formed protocol lines, or reports a check other than "ok"; also checks
# that bad invocations exit 2.
set -euo pipefail
cd "$(dirname "$0")"
./build.sh

# The Size::Test inputs of crates/finegrain-workloads with its default seed 42,
# i.e. what each workload's peer_args() gives there (xcheck.sh confirms them).
cases=(
  "fib n=20"
  "nqueens n=8 par_depth=6"
  "uts b=4 depth=6 root=16 seed=42 serial_levels=2"
  "cilksort n=16384 seed=42 sort_leaf=128 merge_leaf=512"
  "matmul n=64 seed=42"
  "spmv n=2000 k=8 iters=3 seed=42"
  "sum n=100000 seed=42"
)
reps=2
failures=0

# Reads the peer's stdout; argv: runtime workload threads reps.
validate='
import json, sys
runtime, workload, threads, reps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
lines = sys.stdin.read().splitlines()
assert len(lines) == reps, f"expected {reps} lines, got {len(lines)}: {lines!r}"
for rep, line in enumerate(lines):
    o = json.loads(line)
    assert set(o) == {"runtime", "workload", "threads", "rep", "time_ns", "check"}, f"keys of {line}"
    assert (o["runtime"], o["workload"], o["threads"], o["rep"]) == (runtime, workload, threads, rep), line
    assert isinstance(o["time_ns"], int) and o["time_ns"] > 0, line
    assert o["check"] == "ok", "check failed: " + o["check"]
'

for peer in tbb omp fg; do
  for c in "${cases[@]}"; do
    read -r workload params <<<"$c"
    for t in 1 2; do
      # shellcheck disable=SC2086 # params is a list of key=value words
      if out=$(build/peer_$peer "$workload" $params threads=$t reps=$reps) \
         && python3 -c "$validate" "$peer" "$workload" "$t" "$reps" <<<"$out"; then
        echo "ok   $peer $workload threads=$t"
      else
        echo "FAIL $peer $workload threads=$t: $out"
        failures=$((failures + 1))
      fi
    done
  done
  # Misuse must be reported on stderr with exit code 2 and no result lines; the
  # last case is nqueens' argument before it became par_depth.
  for bad in "nosuchworkload threads=1" "fib threads=1" "fib n=20" "fib n=20 threads=0" \
             "fib n=20 threads=1 colour=red" "fib n=x threads=1" "fib 20 threads=1" \
             "nqueens n=8 serial_rows=6 threads=1"; do
    # shellcheck disable=SC2086
    rc=0; out=$(build/peer_$peer $bad 2>/dev/null) || rc=$?
    if [ "$rc" = 2 ] && [ -z "$out" ]; then
      echo "ok   $peer rejects '$bad'"
    else
      echo "FAIL $peer '$bad': exit $rc, stdout '$out'"
      failures=$((failures + 1))
    fi
  done
done

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all peer tests passed"
