#!/usr/bin/env bash
# Build Phoenix 2 and Phoenix++ (build.sh), write tiny inputs, and run every
# workload x impl at threads=1,2 (phoenix2-seq: threads=1) with reps=1 through
# peer_phoenix: each run must print one JSON line with check "ok", the digest
# must not depend on the thread count, and the impls must agree where
# README.md says they do, and every digest must equal that of the canonical
# text computed here from the inputs by README.md's rules (the contract the
# Rust side implements). Also checks a few usage errors (exit status 2).
# Exits 0 without testing anything when the Phoenix sources are missing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

bash "$here/build.sh" >/dev/null
if [[ ! -x "$here/build/bin/phoenix2-word_count" && ! -x "$here/build/bin/phoenix++-word_count" ]]; then
    echo "peers/phoenix/test.sh: nothing built (no Phoenix sources); skipped"
    exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$here/peer_phoenix" "$work" <<'EOF'
import json, os, random, struct, subprocess, sys

peer, work = sys.argv[1], sys.argv[2]
rng = random.Random(42)
bindir = os.path.join(os.path.dirname(peer), "build", "bin")

def fnv(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
    return f"{h:016x}"

def path(name):
    return os.path.join(work, name)

# word_count: ~6 KB of words, mixed case, apostrophes, punctuation, digits and
# bytes >= 0x80 between words, ending with a newline.
vocab = ["the", "The", "THE", "fox", "don't", "o'clock", "rock'n'roll", "it's", "a", "zebra",
         "Quick", "brown", "x1y", "e-mail", "naïve", "end.", "(paren)", "'quoted'", "tab\tsep"]
text = " ".join(rng.choice(vocab) for _ in range(800)) + "\n"
data = text.encode("utf-8")
if len(data) % 4096 == 0:
    data += b"\n"
open(path("words.txt"), "wb").write(data)

# histogram: a 24-bit BMP, width 20 (60-byte rows, no padding), height 15.
w, h = 20, 15
pix = bytes(rng.randrange(256) if rng.random() < 0.3 else rng.randrange(12) for _ in range(w * h * 3))
header = b"BM" + struct.pack("<IHHI", 54 + len(pix), 0, 0, 54)
header += struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(pix), 2835, 2835, 0, 0)
open(path("image.bmp"), "wb").write(header + pix)

# linear_regression: 3001 records of two signed bytes (x, y).
recs = []
for _ in range(3001):
    x = rng.randrange(-128, 128)
    y = max(-128, min(127, x // 2 + rng.randrange(-20, 21)))
    recs.append(struct.pack("<bb", x, y))
open(path("points.bin"), "wb").write(b"".join(recs))

# string_match: lines of random words, with two of the four keys among them.
lines = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randrange(3, 12))) for _ in range(400)]
lines[37], lines[211], lines[300] = "howareyou", "ferrari", "howareyou"
open(path("keys.txt"), "w").write("\n".join(lines) + "\n")

# matrix_multiply: two 24x24 matrices of native int32 (values 0..10).
side = 24
os.makedirs(path("mm"))
for name in ("matrix_file_A.txt", "matrix_file_B.txt"):
    vals = [rng.randrange(11) for _ in range(side * side)]
    open(os.path.join(path("mm"), name), "wb").write(struct.pack(f"<{side*side}i", *vals))

cases = {
    "word_count": [f"input={path('words.txt')}"],
    "histogram": [f"input={path('image.bmp')}"],
    "linear_regression": [f"input={path('points.bin')}"],
    "string_match": [f"input={path('keys.txt')}"],
    "matrix_multiply": [f"input={path('mm')}", f"side={side}", "row_block=2"],
    "kmeans": ["dim=3", "clusters=8", "points=2000", "max=500"],
    "pca": ["rows=24", "cols=24", "max=100"],
}
# Which impls must give the same digest (README.md, "Differences").
same = {
    "word_count": [("phoenix2", "phoenix2-seq", "phoenix++")],
    "histogram": [("phoenix2", "phoenix2-seq")],
    "linear_regression": [("phoenix2", "phoenix2-seq", "phoenix++")],
    "string_match": [("phoenix2", "phoenix++")],
    "matrix_multiply": [("phoenix2", "phoenix++")],
    "kmeans": [("phoenix2", "phoenix2-seq", "phoenix++")],
    "pca": [("phoenix2", "phoenix++")],
}
# Known digests: the empty text where a program prints no result.
empty = fnv(b"")
fixed = {("string_match", "phoenix2"): empty, ("string_match", "phoenix++"): empty,
         ("matrix_multiply", "phoenix2-seq"): empty}

failures = []
digests = {}
for wl, args in cases.items():
    for impl in ("phoenix2", "phoenix2-seq", "phoenix++"):
        if not os.path.exists(os.path.join(bindir, f"{impl}-{wl}")):
            failures.append(f"{impl} {wl}: not built")
            continue
        for t in ((1,) if impl == "phoenix2-seq" else (1, 2)):
            cmd = [peer, impl, wl, *args, f"threads={t}", "reps=1"]
            p = subprocess.run(cmd, capture_output=True, text=True)
            out = [l for l in p.stdout.splitlines() if l.startswith("{")]
            if p.returncode != 0 or len(out) != 1:
                failures.append(f"{impl} {wl} t={t}: exit {p.returncode}, {len(out)} lines; {p.stderr.strip()[-300:]}")
                continue
            r = json.loads(out[0])
            ok = (r["runtime"] == impl and r["workload"] == wl and r["threads"] == t and r["rep"] == 0
                  and r["check"] == "ok" and len(r["digest"]) == 16 and r["time_ns"] >= 0 and r["total_ns"] > 0)
            print(f"{impl:13} {wl:18} t={t} time_ns={r['time_ns']:>10} total_ns={r['total_ns']:>10} "
                  f"digest={r['digest'] or '-':16} {r['check']}")
            if not ok:
                failures.append(f"{impl} {wl} t={t}: {out[0]}")
                continue
            prev = digests.setdefault((wl, impl), r["digest"])
            if prev != r["digest"]:
                failures.append(f"{impl} {wl}: digest changes with the thread count")
            if (wl, impl) in fixed and r["digest"] != fixed[(wl, impl)]:
                failures.append(f"{impl} {wl}: digest {r['digest']}, expected that of the empty text")

for wl, groups in same.items():
    for group in groups:
        got = {i: digests.get((wl, i)) for i in group}
        if None not in got.values() and len(set(got.values())) != 1:
            failures.append(f"{wl}: {got} should agree")
    others = [i for i in ("phoenix2", "phoenix2-seq", "phoenix++") if not any(i in g for g in groups)]
    for i in others:
        print(f"  {wl}: {i} differs by design (README.md): {digests.get((wl, i))} vs {digests.get((wl, groups[0][0]))}")

# The contract: the canonical texts README.md defines, computed here from the
# inputs by its rules (glibc rand() for kmeans and pca), must give the digests
# the programs' outputs gave.
import re
def glibc_rand(seed=1):
    r = [seed]
    for i in range(1, 31):
        r.append(16807 * r[-1] % 2147483647)
    for i in range(31, 34):
        r.append(r[i - 31])
    for i in range(34, 344):
        r.append((r[i - 31] + r[i - 3]) & 0xffffffff)
    i = 344
    while True:
        r.append((r[i - 31] + r[i - 3]) & 0xffffffff)
        yield r[i] >> 1
        i += 1

def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q

expect = {}
words = {}
for m in re.finditer(rb"[A-Za-z][A-Za-z']*", data):
    wd = m.group().upper()
    words[wd] = words.get(wd, 0) + 1
expect["word_count"] = {i: b"".join(wd + b" %d\n" % words[wd] for wd in sorted(words))
                        for i in ("phoenix2", "phoenix2-seq", "phoenix++")}
hist = {c: [0] * 256 for c in "BGR"}
for i in range(0, len(pix), 3):
    for c, b in zip("BGR", pix[i:i + 3]):
        hist[c][b] += 1
three = "".join(" ".join(map(str, hist[c])) + "\n" for c in "BGR").encode()
first10 = [(c, v, hist[c][v]) for c in "BGR" for v in range(256) if hist[c][v]][:10]
expect["histogram"] = {"phoenix2": three, "phoenix2-seq": three,
                       "phoenix++": "".join(f"{c} {v} {n}\n" for c, v, n in first10).encode()}
xy = [struct.unpack("<bb", r) for r in recs]
sums = [sum(x for x, _ in xy), sum(y for _, y in xy), sum(x * x for x, _ in xy),
        sum(y * y for _, y in xy), sum(x * y for x, y in xy)]
lr = "".join(f"{n} {v}\n" for n, v in zip(("SX", "SY", "SXX", "SYY", "SXY"), sums)).encode()
expect["linear_regression"] = {i: lr for i in ("phoenix2", "phoenix2-seq", "phoenix++")}
keys = ("Helloworld", "howareyou", "ferrari", "whotheman")
expect["string_match"] = {"phoenix2": b"", "phoenix++": b"",
                          "phoenix2-seq": "".join(l + "\n" for l in lines if l in keys).encode()}
mats = [struct.unpack(f"<{side*side}i", open(os.path.join(path("mm"), n), "rb").read())
        for n in ("matrix_file_A.txt", "matrix_file_B.txt")]
total = sum(mats[0][i * side + k] * mats[1][k * side + j] for i in range(side) for j in range(side) for k in range(side))
expect["matrix_multiply"] = {"phoenix2": b"%d\n" % total, "phoenix++": b"%d\n" % total, "phoenix2-seq": b""}
g = glibc_rand()
dim, k, n, mx = 3, 8, 2000, 500
pts = [[next(g) % mx for _ in range(dim)] for _ in range(n)]
means = [[next(g) % mx for _ in range(dim)] for _ in range(k)]
cl, moved = [-1] * n, True
while moved:
    moved = False
    for i, pt in enumerate(pts):
        best = min(range(k), key=lambda c: (sum((a - b) ** 2 for a, b in zip(pt, means[c])), c))
        if cl[i] != best:
            cl[i], moved = best, True
    for c in range(k):
        members = [pts[i] for i in range(n) if cl[i] == c]
        if members:
            means[c] = [sum(p[j] for p in members) // len(members) for j in range(dim)]
km = "".join(" ".join(map(str, m)) + "\n" for m in means).encode()
expect["kmeans"] = {i: km for i in ("phoenix2", "phoenix2-seq", "phoenix++")}
g = glibc_rand()
R = C = 24
mat = [[next(g) % 100 for _ in range(C)] for _ in range(R)]
mean = [sum(r) // C for r in mat]
cov = [[tdiv(sum((mat[i][t] - mean[i]) * (mat[j][t] - mean[j]) for t in range(C)), C - 1) for j in range(R)] for i in range(R)]
covsum = b"%d\n" % sum(cov[i][j] for i in range(R) for j in range(i, R))
expect["pca"] = {"phoenix2": covsum, "phoenix++": covsum,
                 "phoenix2-seq": "".join(" ".join(map(str, r)) + "\n" for r in cov).encode()}
for (wl, impl), d in sorted(digests.items()):
    if fnv(expect[wl][impl]) != d:
        failures.append(f"{impl} {wl}: digest {d}, README's canonical text gives {fnv(expect[wl][impl])}")

# Usage errors: exit status 2, a message, nothing on stdout.
bad = [
    ["phoenix2", "nosuch", "threads=1"],
    ["nosuch", "kmeans", "dim=3", "clusters=2", "points=10", "max=10", "threads=1"],
    ["phoenix2", "kmeans", "dim=3", "clusters=2", "points=10", "threads=1"],
    ["phoenix2", "kmeans", "dim=3", "clusters=2", "points=10", "max=10", "colour=1", "threads=1"],
    ["phoenix2", "word_count", f"input={path('missing.txt')}", "threads=1"],
    ["phoenix2-seq", "kmeans", "dim=3", "clusters=2", "points=10", "max=10", "threads=2"],
    ["phoenix2", "kmeans", "dim=3", "clusters=2", "points=10", "max=10", "threads=0"],
]
for args in bad:
    p = subprocess.run([peer, *args], capture_output=True, text=True)
    if p.returncode != 2 or p.stdout or not p.stderr:
        failures.append(f"usage error not reported: {args} -> exit {p.returncode}")

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("peers/phoenix/test.sh: all ok")
EOF
