#!/usr/bin/env bash
# cpu_anchor_check.sh — bench_host_anchor on a tiny random draw (the model backend: nothing
# timed) in two groups: every config measured once into a new journal, the anchor the config
# of median estimate, and bench_host_calibration reads the journal (against itself: the
# retest's figures are exact); hostile arguments leave no file. No timing is judged.
# Usage: cpu_anchor_check.sh NPU_TUNE BENCH_HOST_ANCHOR BENCH_HOST_CALIBRATION SOURCE_DIR
set -u
tune=$1 anchor=$2 report=$3 src=$4
bin=$anchor
. "$(dirname "$0")/../lib.sh"
cd "$work" || exit 1

NPU_TUNE_OUT=$work NPU_TUNE_NAME=draw NPU_TUNE_SHAPES=96x128x64 NPU_TUNE_SEARCH=random \
    NPU_TUNE_BUDGET=7 NPU_TUNE_MEASURE=model NPU_TUNE_TARGET=host \
    "$tune" --quiet "$src/tests/bench/host_sample.lua" >/dev/null || bad "the draw failed"

# column NAME FILE: that column of FILE's rows, by its header
column() {
    awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$2"
}

run 0 --group 4 --rounds 2 draw.csv out.csv
has "the groups" "$out" "96x128x64        7 configs in 2 groups beside the anchor "
same "rows" "$(column status out.csv | tr '\n' ' ')" "ok ok ok ok ok ok ok "
same "backend" "$(column backend out.csv | sort -u)" "host"
same "unit" "$(column unit out.csv | sort -u)" "s"
has "the sidecar" "$(cat out.csv.sig)" "measure=host"
same "times" "$(column measured out.csv | awk '$1 > 0 && $1 < 1' | wc -l)" "7"
# the anchor is the config of the lower median estimate (the 4th of 7)
cfg=$(sed -n 's/.* beside the anchor \(.*\): its time .*/\1/p' <<<"$out")
keys=$(awk -F, 'NR > 1 { print $8, $9, $10, $11, $12, $13, $14, $21 "," $16 }' draw.csv)
same "the anchor's estimate" "$(grep -F "$cfg," <<<"$keys" | cut -d, -f2)" \
    "$(column est_cycles draw.csv | sort -g | sed -n 4p)"

# the report reads it: against itself, every config measured the same
bin=$report
run 0 host out.csv --retest out.csv
if grep -Eq '^96x128x64 +7 +' <<<"$out"; then ok; else bad "ranking: $out"; fi
if grep -Eq '^96x128x64 +7 +1\.000 +0\.0% +1\.000$' <<<"$out"; then ok; else bad "retest: $out"; fi

# hostile arguments: a journal that exists is not written over; no file is left
bin=$anchor
cp out.csv kept.csv
run 1 draw.csv out.csv
has "exists" "$err" "bench_host_anchor: 'out.csv' exists: remove it (and its .sig) first"
same_file "the journal" "$work/out.csv" "$work/kept.csv"
run 1 missing.csv new.csv
has "missing" "$err" "missing.csv"
absent "a journal from no draw" "$work/new.csv"
run 2 --group 1 draw.csv new.csv
run 2 --group 17 draw.csv new.csv
run 2 --rounds x draw.csv new.csv
run 2 draw.csv
absent "a journal from bad options" "$work/new.csv"
finish
