#!/usr/bin/env bash
# Build Phoenix 2 and Phoenix++ (Stanford's shared-memory MapReduce, BSD
# licence) from their distributions, for peers/phoenix/peer_phoenix.
#
# Nothing of Phoenix is kept in this repository: each distribution is copied
# from PHOENIX_SRC into peers/phoenix/build/ (git-ignored) and built there with
# its own Makefiles and its own optimisation flags, plus -DTIMING for the
# programs so that each prints the time of its map-reduce call(s) (Phoenix 2's
# library itself without it), plus -fpermissive for Phoenix++. Nothing in
# their sources is patched (see README.md, "Build").
#
#   PHOENIX_SRC  folder holding phoenix-2.0/ and phoenix++-1.0/
#                (default: <repo>/../shared/peers/phoenix)
#   JOBS         make -j (default 1)
#
# Idempotent: re-running copies only newer files and runs an incremental make.
# Exit 0 with a message and no build when the sources are missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(git -C "$here" rev-parse --show-toplevel 2>/dev/null || (cd "$here/../.." && pwd))"
src="${PHOENIX_SRC:-$root/../shared/peers/phoenix}"
build="$here/build"
jobs="${JOBS:-1}"

if [[ ! -d "$src/phoenix-2.0" && ! -d "$src/phoenix++-1.0" ]]; then
    echo "peers/phoenix/build.sh: no Phoenix sources at $src (set PHOENIX_SRC); nothing built" >&2
    exit 0
fi
for tool in make gcc g++; do
    command -v "$tool" >/dev/null || { echo "peers/phoenix/build.sh: $tool not found" >&2; exit 1; }
done

apps=(histogram kmeans linear_regression matrix_multiply pca string_match word_count)
mkdir -p "$build/bin"

# copy_tree SRC DEST: a writable copy (the distributions may be read-only);
# -u copies only files newer than the copy, so make rebuilds what changed.
copy_tree() {
    mkdir -p "$2"
    cp -R -u --no-preserve=mode "$1/." "$2/"
}

# The distribution's own CFLAGS, as its Defines.mk computes them for this OS.
dist_cflags() {
    make -s -C "$1" -f Defines.mk --eval 'print-phoenix-cflags: ; @echo $(CFLAGS)' print-phoenix-cflags
}

# Run make quietly, showing its output only when it fails.
quiet_make() {
    local log
    log="$(mktemp)"
    if ! make "$@" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}

# fresh_flags DIR FLAGS: make does not notice changed flags; when they differ
# from the last build's, clean DIR's objects and programs first.
fresh_flags() {
    local stamp="$1/.peer-flags"
    if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$2" ]]; then
        quiet_make -C "$1" clean || true
        printf '%s\n' "$2" >"$stamp"
    fi
}

status=0

# ---------------------------------------------------------------- Phoenix 2
if [[ -d "$src/phoenix-2.0" ]]; then
    p2="$build/src-phoenix2"
    copy_tree "$src/phoenix-2.0" "$p2"
    mkdir -p "$p2/lib"
    # The distribution's flags (-Wall -D_LINUX_ -O3 -D__x86_64__ on x86-64
    # Linux). The programs get -DTIMING: stddefines.h then reads the clock
    # and each program prints "library: <microseconds>" on stderr. The
    # library does not: with TIMING, map_reduce.c reads the clock twice in
    # every emit_intermediate() and emit() (per word, per k-means point) and
    # prints per-phase times, which would slow down what is measured.
    libflags="$(dist_cflags "$p2")"
    cflags="$libflags -DTIMING"
    fresh_flags "$p2" "$libflags / $cflags"
    echo "phoenix2: library CFLAGS=$libflags; programs CFLAGS=$cflags"
    if quiet_make -C "$p2/src" -j"$jobs" CFLAGS="$libflags"; then
        for app in "${apps[@]}"; do
            if quiet_make -C "$p2/tests/$app" -j"$jobs" CFLAGS="$cflags" "$app" "$app-seq"; then
                cp -f "$p2/tests/$app/$app" "$build/bin/phoenix2-$app"
                cp -f "$p2/tests/$app/$app-seq" "$build/bin/phoenix2-seq-$app"
            else
                echo "phoenix2: $app did not build" >&2
                status=1
            fi
        done
    else
        echo "phoenix2: libphoenix did not build" >&2
        status=1
    fi
else
    echo "phoenix2: $src/phoenix-2.0 missing; skipped" >&2
fi

# ---------------------------------------------------------------- Phoenix++
if [[ -d "$src/phoenix++-1.0" ]]; then
    pp="$build/src-phoenix++"
    copy_tree "$src/phoenix++-1.0" "$pp"
    # src/Makefile copies libphoenix.a into ../lib, which the distribution
    # does not ship (cp would make a file named "lib").
    mkdir -p "$pp/lib"
    # The distribution's flags (-g -Wall -O3 -D_LINUX_ -DMMAP_POPULATE
    # -fstrict-aliasing -Wstrict-aliasing -D__x86_64__) plus -DTIMING (prints
    # "library : <seconds>" on stdout) and -fpermissive: Phoenix++ 1.0 (2011)
    # does not compile with today's g++ (12) without it: map_reduce.h calls
    # the base class's start_workers from MapReduceSort unqualified (two-phase
    # lookup: "'start_workers' was not declared in this scope") and
    # emit_intermediate through a const this ("discards qualifiers");
    # -fpermissive turns both errors into warnings.
    cxxflags="$(dist_cflags "$pp") -DTIMING -fpermissive"
    fresh_flags "$pp" "$cxxflags"
    echo "phoenix++: CFLAGS=$cxxflags"
    if quiet_make -C "$pp/src" -j"$jobs" CFLAGS="$cxxflags"; then
        for app in "${apps[@]}"; do
            if quiet_make -C "$pp/tests/$app" -j"$jobs" CFLAGS="$cxxflags" "$app"; then
                cp -f "$pp/tests/$app/$app" "$build/bin/phoenix++-$app"
            else
                echo "phoenix++: $app did not build" >&2
                status=1
            fi
        done
    else
        echo "phoenix++: libphoenix did not build" >&2
        status=1
    fi
else
    echo "phoenix++: $src/phoenix++-1.0 missing; skipped" >&2
fi

# ------------------------------------------------- thread-count check shim
# LD_PRELOAD library with which peer_phoenix counts the threads each program
# creates (threads=t is checked against it); see README.md.
shim="$here/threadcount.c"
if [[ ! -f "$build/libthreadcount.so" || "$shim" -nt "$build/libthreadcount.so" ]]; then
    gcc -O2 -Wall -shared -fPIC -o "$build/libthreadcount.so" "$shim" -ldl -pthread
fi

echo "built into $build/bin:"
ls "$build/bin" | sed 's/^/  /'
exit $status
