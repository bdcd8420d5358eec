#!/usr/bin/env bash
# Regenerate the claims table of docs/simulation.md: every many-core claim
# of the papers, simulated at the papers' scale (`--size paper` unless SIZE
# says otherwise), with the Ideal bound, each trace's work and span, and the
# isolating runs of the claims that do not hold.
#
#   scripts/sim_claims.sh            # SIZE=paper; tens of minutes on 2 cores
#   SIZE=test scripts/sim_claims.sh  # a quick check of the harness
#
# Writes docs/results/claims.{md,csv} (small: no traces) and replaces the
# text between the claims markers of docs/simulation.md with the table,
# headed by the command, date, commit and machine.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${SIZE:-paper}
out=docs/results
mkdir -p "$out"
cargo build -q --release -p finegrain-cli
log=$(mktemp)
trap 'rm -f "$log"' EXIT
/usr/bin/time -v target/release/finegrain sim --claims --size "$size" --out "$out" 2> >(tee "$log" >&2) >/dev/null
stats=$(grep -E "simulations, .* M events" "$log" | tail -1 || true)
rss=$(grep "Maximum resident set size" "$log" | awk '{print $NF}')
{
    echo "<!-- claims:begin (written by scripts/sim_claims.sh; do not edit by hand) -->"
    echo
    echo "\`finegrain sim --claims --size $size\`, $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo ' with local changes'),"
    echo "on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) CPUs), load $(cut -d' ' -f1-3 /proc/loadavg)."
    echo "Sweep: ${stats}; peak resident memory $((rss / 1024)) MB."
    echo
    cat "$out/claims.md"
    echo
    echo "<!-- claims:end -->"
} > "$out/claims-section.md"
python3 - "$out/claims-section.md" docs/simulation.md <<'PY'
import re, sys
section = open(sys.argv[1]).read()
doc = open(sys.argv[2]).read()
pat = re.compile(r"<!-- claims:begin.*?<!-- claims:end -->\n?", re.S)
if not pat.search(doc):
    sys.exit("docs/simulation.md has no claims markers")
open(sys.argv[2], "w").write(pat.sub(lambda _: section, doc, count=1))
PY
rm -f "$out/claims-section.md"
echo "docs/simulation.md and $out/claims.{md,csv} updated"
