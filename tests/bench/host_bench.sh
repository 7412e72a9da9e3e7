#!/usr/bin/env bash
# host_bench.sh — the host comparison end to end: tunes the bench shapes at 1 and 2
# threads (host_bench.lua), then times those tuned kernels against OpenBLAS side by side.
# Usage: host_bench.sh NPU_TUNE BENCH_HOST_KERNEL SOURCE_DIR [OUT_DIR] [bench options...]
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: host_bench.sh NPU_TUNE BENCH_HOST_KERNEL SOURCE_DIR [OUT_DIR] [bench options...]" >&2
    exit 2
fi
tune=$1 bench=$2 src=$3 out=${4:-results}
shift $(( $# < 4 ? $# : 4 ))
mkdir -p "$out"
tables=()
for cores in 1 2; do
    start=$(date +%s)
    # a fresh journal: one left by an earlier build would resume with the
    # measurements of that build's kernels
    rm -rf "$out/host-bench-$cores.csv" "$out/host-bench-$cores.csv.sig" \
        "$out/host-bench-$cores.csv.kernels"
    NPU_TUNE_CORES=$cores NPU_TUNE_OUT=$out "$tune" --quiet "$src/tests/bench/host_bench.lua"
    echo "host_bench.sh: tuning at $cores thread(s) took $(( $(date +%s) - start )) s" >&2
    tables+=(--table "$out/host-bench-$cores-table.csv")
done
exec "$bench" --rounds 7 "${tables[@]}" "$@"
