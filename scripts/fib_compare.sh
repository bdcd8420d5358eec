#!/usr/bin/env bash
# Interleaved fib(35) T1/T2 ratios to serial of two `fibtest` builds
# (crates/finegrain-bench/src/bin/fibtest.rs): 3 rounds, each running both
# builds under adm-central and ws; fibtest runs 3 times per thread count, so
# 9 runs per cell. Prints the median (min-max) time and ratio per cell.
#
#   BASE=/path/to/main/fibtest MINE=/path/to/branch/fibtest scripts/fib_compare.sh
set -euo pipefail
BASE=${BASE:?path of the baseline fibtest}
MINE=${MINE:?path of the fibtest to compare}
POLICIES=${POLICIES:-adm-central ws}
out=$(mktemp)
for round in 1 2 3; do
  for pol in $POLICIES; do
    for b in base mine; do
      bin=$BASE; [ "$b" = mine ] && bin=$MINE
      "$bin" 35 "$pol" 2>&1 | grep '^t=' | sed "s/^/$b $pol /" >> "$out"
    done
  done
done
python3 - "$out" <<'PY'
import re, statistics as st, sys
d = {}
unit = {'µs': 1e-3, 'ms': 1.0, 's': 1e3, 'ns': 1e-6}
for l in open(sys.argv[1]):
    m = re.match(r'(\w+) (\S+) t=(\d+) serial ([\d.]+)(\D+?) finegrain ([\d.]+)(\D+?) ', l)
    if not m:
        continue
    b, p, t, s, su, f, fu = m.groups()
    s, f = float(s) * unit[su], float(f) * unit[fu]
    d.setdefault((p, t, b), []).append((f, f / s))
for k in sorted(d):
    fs = [x[0] for x in d[k]]; rs = [x[1] for x in d[k]]
    print(f"{k[0]} T{k[1]} {k[2]}: n={len(fs)} ms {st.median(fs):.1f} ({min(fs):.1f}-{max(fs):.1f}) ratio {st.median(rs):.2f} ({min(rs):.2f}-{max(rs):.2f})")
PY
rm -f "$out"
