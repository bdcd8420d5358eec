#!/usr/bin/env python3
"""METG(50%) of the runs scripts/taskbench.sh metg logged, computed by Task
Bench's own scripts/metg.py (Slaughter et al., SC 2020, section 4): its
parser reads every `<runtime>_ngraphs_1_type_<pattern>_nodes_1.log` one
directory below the one it runs in (LOG_DIR/runs/). Task Bench names only Cori's and Daint's peak FLOP/s; here
the machine is given no peak, so metg.py measures efficiency against each
runtime's own largest-task run (its fallback without a peak). metg.py
needs every timestep as wide as the graph (tasks = steps x width), so
`dom` and `tree`, whose widths vary, have no METG here: "-".

    taskbench_metg.py TASKBENCH_DIR LOG_DIR CORES PATTERN...
"""
import contextlib
import csv
import io
import os
import sys

tb, logs, cores, patterns = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
sys.path.insert(0, os.path.join(tb, "scripts"))
import chart_util  # noqa: E402  (Task Bench's)
import metg  # noqa: E402  (Task Bench's)

chart_util.get_machine_parameters = lambda machine, kind, resource: {"cores": cores, "peak_flops": None, "peak_bytes": None}
os.chdir(logs)
rows = {}
for p in patterns:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # A file name's "comm" is a field of its own to metg.py: no_comm's
        # logs are named nocomm.
        metg.driver(1, p.replace("no_comm", "nocomm"), 1, "here", "flops", 0.5, "nodes", "excel", False)
    table = list(csv.DictReader(io.StringIO(out.getvalue())))
    rows[p] = {k: v for k, v in table[0].items() if k != "nodes"} if table else {}
names = sorted({n for r in rows.values() for n in r})
print("| pattern | " + " | ".join(names) + " |")
print("|---|" + "---|" * len(names))
for p in patterns:
    cells = []
    for n in names:
        v = rows[p].get(n)
        cells.append("-" if v in (None, "") else "%.1f us" % (float(v) * 1000.0))
    print("| " + p + " | " + " | ".join(cells) + " |")
