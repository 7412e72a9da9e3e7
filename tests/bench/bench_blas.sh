#!/usr/bin/env bash
# bench_blas.sh — the library of `npu-tune lib` against its peers end to end: tunes the
# shapes of blas_bench.lua on this host (or takes tables), builds the libraries, runs bench_blas.
# Usage: bench_blas.sh NPU_TUNE BENCH_BLAS SOURCE_DIR OUT_DIR [--tables T1 T2] [bench options...]
#   T1, T2  tables tuned at one thread and at one or two (as blas_bench.lua tunes them)
#   NPU_TUNE_BUDGET  measurements per shape when tuning (default 12)
set -euo pipefail
if [ $# -lt 4 ]; then
    sed -n '4,6s/^# \{0,1\}//p' "$0" >&2
    exit 2
fi
tune=$1 bench=$2 src=$3 out=$4
shift 4
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ "${1:-}" = "--tables" ]; then
    [ $# -ge 3 ] || { echo "bench_blas.sh: --tables needs two tables" >&2; exit 2; }
    tables=("$2" "$3")
    shift 3
else
    tables=()
    for cores in 1 2; do
        start=$(date +%s)
        # a fresh journal: one left by an earlier build would resume with its measurements
        rm -rf "$out/blas-bench-$cores.csv" "$out/blas-bench-$cores.csv.sig" \
            "$out/blas-bench-$cores.csv.kernels"
        NPU_TUNE_CORES=$cores NPU_TUNE_OUT=$out "$tune" --quiet "$src/tests/bench/blas_bench.lua" >&2
        echo "bench_blas.sh: tuning at $cores thread(s) took $(( $(date +%s) - start )) s" >&2
        tables+=("$out/blas-bench-$cores-table.csv")
    done
fi
# the libraries, and the first one's source with blas_direct.c (the dispatcher's cost)
for i in 1 2; do
    rm -rf "$out/lib$i"
    "$tune" lib "${tables[$((i - 1))]}" -o "$out/lib$i"
    cmake -S "$out/lib$i" -B "$out/lib$i/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$out/lib$i/build" -j2 >/dev/null
done
cc -O3 -march=native -fopenmp -fPIC -shared -I"$out/lib1" "$src/tests/bench/blas_direct.c" \
    -o "$out/direct.so"
shapes=$(sed -n '/shapes *=/,/dtype/p' "$src/tests/bench/blas_bench.lua" |
         grep -o '{ *[0-9]*, *[0-9]*, *[0-9]* *}' | tr -d '{} ' | tr ',' 'x')
xsmm=()
[ -x "$(dirname "$bench")/bench_blas_xsmm" ] && xsmm=(--xsmm "$(dirname "$bench")/bench_blas_xsmm")
echo "Tables: ${tables[*]#"$out/"} (in $out)"
exec "$bench" "$@" --lib1 "$out/lib1/build/libnpu_tune_gemm.so" \
    --lib2 "$out/lib2/build/libnpu_tune_gemm.so" --direct "$out/direct.so" "${xsmm[@]}" $shapes
