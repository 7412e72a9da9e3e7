#!/usr/bin/env bash
# setup.sh — installs what npu-tune and its default test suite need (Debian
# packages, as root, only when missing) and builds it into build/.
# Usage: ./setup.sh [cmake args...]
set -eu
cd "$(dirname "$0")"

# the build, with MPI (optional: runs under mpirun); then the tests' tools: plot
# rendering (gnuplot), the exported C header under C++ and clang, host kernels
# under clang (OpenMP), trace JSON, mpirun, the GEMM library's checks (the
# reference BLAS tests, numpy, pkg-config) and its benchmark's peers (OpenBLAS,
# BLIS, libxsmm)
need=()
for pkg in cmake make gcc liblua5.4-dev libgsl-dev libopenmpi-dev \
    gnuplot-nox g++ clang libomp-dev python3 openmpi-bin libblas-test python3-numpy \
    pkg-config libopenblas-dev libblis-dev libxsmm-dev; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup.sh: missing Debian packages: ${need[*]} (run as root to install them)" >&2
        exit 1
    fi
    echo "setup.sh: installing ${need[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build build -j"$(nproc)"
