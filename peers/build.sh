#!/usr/bin/env bash
# Build peers/build/peer_tbb and peers/build/peer_omp (Release, -O2).
# Installs the toolchain pieces that are missing when run as root; otherwise
# says what to install. Re-running when nothing changed only re-checks.
set -euo pipefail
cd "$(dirname "$0")"

missing=()
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
# libtbb-dev ships the CMake package config that find_package(TBB) needs.
if [ ! -e /usr/include/oneapi/tbb.h ] && [ ! -e /usr/include/tbb/tbb.h ]; then
  missing+=(libtbb-dev)
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "build.sh: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null \
      || { apt-get update >/dev/null && apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
  else
    echo "build.sh: missing ${missing[*]}; install them (e.g. apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi

# finegrain's C library, for peer_fg (the same workloads through the C API).
(cd .. && cargo build -q --release -p finegrain-clib)
target=$(realpath -m "${CARGO_TARGET_DIR:-../target}")
# Configure (cheap when nothing changed), then the incremental build.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
  -DFINEGRAIN_C_INCLUDE="$(realpath ../crates/finegrain-c/include)" -DFINEGRAIN_C_LIBDIR="$target/release" >/dev/null
# Two jobs at most: the machine is small and shared.
cmake --build build -j 2 >/dev/null
echo "built $(pwd)/build/peer_tbb, $(pwd)/build/peer_omp and $(pwd)/build/peer_fg" >&2
