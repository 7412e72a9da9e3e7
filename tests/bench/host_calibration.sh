#!/usr/bin/env bash
# host_calibration.sh — the host model calibrated on some shapes, judged on others: measures
# SAMPLE uniformly random one-thread configs of each shape of the first set (a tuner run) and
# fits the model's figures to them (npu-tune calibrate); draws SAMPLE such configs of each
# shape of the second set (the same random search, the model backend: nothing timed) and
# has bench_host_anchor time them side by side with an anchor config per shape (the drift
# of the machine cancels in the ratio), the two largest shapes and 200x1000x64 again after
# the searches (the ranking the noise allows); then bench_host_calibration ranks the second
# set's sample with the default and the fitted figures and compares model searches of BUDGET
# measurements (today's: default figures; refitting during the run; the fitted figures) on a
# few shapes of the second set, in ROUNDS rounds (each round runs the three back to back, in
# an order that turns from round to round), judged by every config any search measured
# timed again side by side with an anchor (bench_host_anchor), so that the searches are
# compared across the machine's drift between them.
# Usage: host_calibration.sh NPU_TUNE BENCH_HOST_CALIBRATION BENCH_HOST_ANCHOR SOURCE_DIR [OUT_DIR [SAMPLE [BUDGET [ROUNDS]]]]
set -euo pipefail
if [ $# -lt 4 ]; then
    echo "usage: host_calibration.sh NPU_TUNE BENCH_HOST_CALIBRATION BENCH_HOST_ANCHOR SOURCE_DIR [OUT_DIR [SAMPLE [BUDGET [ROUNDS]]]]" >&2
    exit 2
fi
tune=$1 bench=$2 anchor=$3 src=$4 out=${5:-results} sample=${6:-150} budget=${7:-48} rounds=${8:-3}
# fitted on: BERT, ResNet-50's im2col of a 3x3 conv at 56x56, odd sizes
fit=512x768x768,3136x64x576,300x500x700
# judged on: BERT's FFN, ResNet's im2col at 28x28, small, odd sizes with tails
test=512x768x3072,512x3072x768,200x1000x64,784x128x1152,128x128x128,777x333x129
again=512x768x3072,512x3072x768,200x1000x64 # the first three of $test: the random search seeds by the index
search=512x3072x768,784x128x1152,200x1000x64
script=$src/tests/bench/host_sample.lua

# A fresh journal: one left by an earlier build would resume with its kernels' figures.
fresh() { # NAME
    rm -f "$out/$1.csv" "$out/$1.csv.sig" "$out/$1.csv.fit" "$out/$1-table.csv"
    rm -rf "$out/$1.csv.kernels"
}
step() { # NAME SHAPES SEARCH BUDGET CALIBRATE TARGET MEASURE
    fresh "$1"
    local start=$(date +%s)
    NPU_TUNE_OUT=$out NPU_TUNE_NAME=$1 NPU_TUNE_SHAPES=$2 NPU_TUNE_SEARCH=$3 NPU_TUNE_BUDGET=$4 \
        NPU_TUNE_CALIBRATE=$5 NPU_TUNE_TARGET=$6 NPU_TUNE_MEASURE=$7 "$tune" --quiet "$script" > "$out/$1.log"
    echo "host_calibration.sh: $1 ($3, $4 per shape of $2, measure $7) took $(( $(date +%s) - start )) s" >&2
}
anchored() { # NAME DRAW: DRAW's configs timed beside an anchor into NAME.csv
    fresh "$1"
    local start=$(date +%s)
    "$anchor" "$out/$2.csv" "$out/$1.csv" >&2
    echo "host_calibration.sh: $1 ($2's configs beside an anchor per shape) took $(( $(date +%s) - start )) s" >&2
}
union() { # NAME JOURNAL...: the journals' rows in one (a config in two: its later row), the
    local name=$1 # first one's signature
    shift
    fresh "$name"
    { head -n 1 "$1"; for j in "$@"; do tail -n +2 "$j"; done; } >"$out/$name.csv"
    cp "$1.sig" "$out/$name.csv.sig"
}
mkdir -p "$out"
step fit "$fit" random "$sample" 0 host host
step draw "$test" random "$sample" 0 host model
step draw-again "$again" random "$sample" 0 host model
anchored sample draw
echo "fitted on $fit ($sample random configs each), judged on $test"
"$tune" calibrate "$out/fit.csv" --holdout 0 -o "$out/calibrated.lua"
echo
names=(default refit calibrated) calib=(0 1 0) targets=(host host "$out/calibrated.lua")
declare -A runs
searched=()
for ((r = 1; r <= rounds; r++)); do
    for ((i = 0; i < 3; i++)); do
        v=$(( (i + r - 1) % 3 ))
        step "search-${names[v]}-$r" "$search" model "$budget" "${calib[v]}" "${targets[v]}" host
        runs[$v]+="${runs[$v]:+,}$out/search-${names[v]}-$r.csv"
        searched+=("$out/search-${names[v]}-$r.csv")
    done
done
union searched-draw "${searched[@]}"
anchored searched searched-draw
anchored sample-again draw-again # minutes later, after the searches
exec "$bench" "$out/calibrated.lua" "$out/sample.csv" --retest "$out/sample-again.csv" \
    --searched "$out/searched.csv" \
    "default=${runs[0]}" "refit=${runs[1]}" "calibrated=${runs[2]}"
