#!/usr/bin/env bash
# The C API end to end (crates/finegrain-c, docs/c-api.md): build
# libfinegrain in release, write a pkg-config file for it, compile every C
# example and the C++ one with the system compilers against
# include/finegrain.h and -lfinegrain (once through pkg-config, once
# statically), run each under every registered policy, then build and run
# the C examples with AddressSanitizer.
#
# ThreadSanitizer is not in the default run: the library is Rust built
# without it, so TSan does not see the atomics through which the runtime
# hands a task and its data from one thread to another, and reports every
# such hand-off as a race in the C code (docs/c-api.md, "Sanitizers").
# SANITIZERS="address thread" runs it anyway.
#
#   scripts/c_api.sh                 # all of the above
#   scripts/c_api.sh spawn-cost      # instructions per spawn of the C fib (callgrind),
#                                    # beside the Rust API's for the same shapes
#
# Environment: CC, CXX (default cc, c++), THREADS (default 2),
# SANITIZERS (default "address"; empty to skip), LO, HI (fib sizes
# for spawn-cost; default 20, 22), POLICY (spawn-cost's; default adm-central).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# The C and C++ compilers and pkg-config, from Debian when missing.
missing=()
command -v "${CC:-cc}" >/dev/null || missing+=(gcc)
command -v "${CXX:-c++}" >/dev/null || missing+=(g++)
command -v pkg-config >/dev/null || missing+=(pkg-config)
if ((${#missing[@]})); then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null ||
            { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
    else
        echo "c_api.sh: missing ${missing[*]}; install them (e.g. apt-get install ${missing[*]})" >&2
        exit 1
    fi
fi
CC=${CC:-cc}
CXX=${CXX:-c++}
THREADS=${THREADS:-2}
SANITIZERS=${SANITIZERS-address}
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
lib="$target/release"
inc="$root/crates/finegrain-c/include"
ex="$root/crates/finegrain-c/examples"
out="$target/c-api"
mkdir -p "$out/pkgconfig"

cargo build --release -p finegrain-clib >&2

# The pkg-config file, pointing at this checkout's header and build.
version=$(sed -n 's/^version = "\(.*\)"/\1/p' crates/finegrain-c/Cargo.toml | head -1)
sed -e "s#@PREFIX@#$root#" -e "s#@INCLUDEDIR@#$inc#" -e "s#@LIBDIR@#$lib#" -e "s#@VERSION@#$version#" \
    crates/finegrain-c/finegrain.pc.in >"$out/pkgconfig/finegrain.pc"
export PKG_CONFIG_PATH="$out/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"

c_examples=(fib parallel_for reduce bfs_phase carbon_loop taskspace graph errors)
cflags=(-O2 -g -std=c11 -Wall -Wextra -Werror)
rpath="-Wl,-rpath,$lib"

# cc_build NAME OUT [extra flags...]: compile examples/NAME.c against the shared library.
cc_build() {
    local name=$1 exe=$2
    shift 2
    "$CC" "${cflags[@]}" "$@" -I"$inc" -o "$exe" "$ex/$name.c" -L"$lib" -lfinegrain -lm "$rpath"
}

if [[ ${1:-} == spawn-cost ]]; then
    command -v valgrind >/dev/null || { echo "c_api.sh: valgrind is not installed" >&2; exit 1; }
    LO=${LO:-20} HI=${HI:-22} POLICY=${POLICY:-adm-central}
    # Statically linked, as the Rust figure's binary is one program.
    "$CC" "${cflags[@]}" -I"$inc" -o "$out/fib-static" "$ex/fib.c" "$lib/libfinegrain.a" \
        $(pkg-config --static --libs-only-l finegrain | sed 's/-lfinegrain//')
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    count() { # count MODE N: callgrind instructions inside `measured`
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" --toggle-collect=measured \
            "$out/fib-static" "$POLICY" 1 "$2" "$1" >"$tmp/stdout" 2>"$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
        sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$tmp/log"
    }
    joins() { local a=0 b=1 i t; for ((i = 0; i <= $1; i++)); do t=$((a + b)); a=$b; b=$t; done; echo $((a - 1)); }
    dj=$(($(joins "$HI") - $(joins "$LO")))
    s_lo=$(count serial "$LO") s_hi=$(count serial "$HI")
    # The Rust API's figures for the same shapes, same sizes and policy:
    # `finegrain::join` beside fg_invoke, a `task_group` spawn/wait beside
    # fg_spawn/fg_sync (crates/finegrain-bench/src/bin/spawn_cost.rs).
    cargo build --release -p finegrain-bench --bin spawn_cost >&2
    rcount() { # rcount MODE N: callgrind instructions inside spawn_cost's `measured`
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" --toggle-collect='*spawn_cost::measured*' \
            "$target/release/spawn_cost" "$1" "$2" 1 "$POLICY" >"$tmp/stdout" 2>"$tmp/log" || { cat "$tmp/log" >&2; exit 1; }
        sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$tmp/log"
    }
    r_lo=$(rcount serial "$LO") r_hi=$(rcount serial "$HI")
    per() { awk -v d=$(($2 - $1 - ($4 - $3))) -v j=$dj 'BEGIN { printf "%.1f", d / j }'; }
    declare -A rust
    rust[invoke]=$(per "$(rcount finegrain "$LO")" "$(rcount finegrain "$HI")" "$r_lo" "$r_hi")
    rust[spawn]=$(per "$(rcount group "$LO")" "$(rcount group "$HI")" "$r_lo" "$r_hi")
    echo "| C fib through | policy | I(fib($LO)) | I(fib($HI)) | instructions per spawn | Rust, same shape | C / Rust |"
    echo "|---|---|---:|---:|---:|---:|---:|"
    echo "| serial C (per internal call) | - | $s_lo | $s_hi | $(awk -v d=$((s_hi - s_lo)) -v j=$dj 'BEGIN { printf "%.1f", d / j }') | | |"
    for mode in invoke spawn; do
        lo=$(count $mode "$LO") hi=$(count $mode "$HI")
        c=$(per "$lo" "$hi" "$s_lo" "$s_hi")
        ratio=$(awk -v c="$c" -v r="${rust[$mode]}" 'BEGIN { printf "%.2f", c / r }')
        echo "| fg_$([[ $mode == invoke ]] && echo "invoke | " || echo "spawn/fg_sync | ")$POLICY | $lo | $hi | $c | ${rust[$mode]} ($([[ $mode == invoke ]] && echo join || echo task_group)) | $ratio |"
    done
    echo
    echo "1 thread, counts inside measured(); joins: fib($LO) $(joins "$LO"), fib($HI) $(joins "$HI")"
    exit 0
fi

echo "== compile (shared, pkg-config, static, C++)"
for e in "${c_examples[@]}" policies; do
    cc_build "$e" "$out/$e"
done
# shellcheck disable=SC2046 # pkg-config prints a list of flags
"$CC" "${cflags[@]}" -o "$out/fib-pkgconfig" "$ex/fib.c" $(pkg-config --cflags --libs finegrain) "$rpath"
# shellcheck disable=SC2046
"$CC" "${cflags[@]}" -I"$inc" -o "$out/fib-static" "$ex/fib.c" "$lib/libfinegrain.a" \
    $(pkg-config --static --libs-only-l finegrain | sed 's/-lfinegrain//')
"$CXX" -O2 -g -std=c++17 -Wall -Wextra -Werror -I"$inc" -o "$out/fib_cpp" "$ex/fib.cpp" -L"$lib" -lfinegrain "$rpath"
"$out/fib-pkgconfig" ws "$THREADS" 25 >/dev/null
"$out/fib-static" ws "$THREADS" 25 >/dev/null

mapfile -t policies < <("$out/policies")
(( ${#policies[@]} > 0 )) || { echo "c_api.sh: no policies listed" >&2; exit 1; }
echo "== every example under every policy (${policies[*]}), $THREADS threads"
for p in "${policies[@]}"; do
    for e in "${c_examples[@]}" fib_cpp; do
        timeout 120 "$out/$e" "$p" "$THREADS" >"$out/$e.$p.log" 2>&1 || {
            cat "$out/$e.$p.log" >&2
            echo "c_api.sh: $e failed under $p" >&2
            exit 1
        }
    done
    echo "$p: ok"
done

for san in $SANITIZERS; do
    echo "== -fsanitize=$san"
    if ! echo 'int main(void){return 0;}' | "$CC" -fsanitize="$san" -x c -o "$out/probe-$san" - 2>/dev/null; then
        echo "$CC cannot build with -fsanitize=$san here; skipped"
        continue
    fi
    for e in "${c_examples[@]}"; do
        cc_build "$e" "$out/$e-$san" -fsanitize="$san" -fno-omit-frame-pointer
    done
    for p in ws adm-central carbon; do
        for e in "${c_examples[@]}"; do
            # Smaller sizes: the sanitizers slow the checks down several times.
            args=("$p" "$THREADS")
            [[ $e == fib ]] && args+=(22)
            [[ $e == bfs_phase ]] && args+=(20000)
            env ASAN_OPTIONS=detect_leaks=1 TSAN_OPTIONS=halt_on_error=1 \
                timeout 300 "$out/$e-$san" "${args[@]}" >"$out/$e-$san.$p.log" 2>&1 || {
                cat "$out/$e-$san.$p.log" >&2
                echo "c_api.sh: $e failed under -fsanitize=$san, policy $p" >&2
                exit 1
            }
        done
        echo "$p: ok"
    done
done
echo "c_api.sh: all passed"
