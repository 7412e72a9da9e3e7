#!/usr/bin/env bash
# cpu_anchor_check.sh — bench_host_anchor on a tiny random draw (the model backend: nothing
# timed) in three groups: every config measured once into a new journal, the anchor the
# config of median estimate, twice in each group, a config's figure the median of its
# per-round ratios to the anchor (as the rounds file has them), and bench_host_calibration
# reads the journal (against itself: the retest's figures are exact; against a uniformly
# slower copy: all drift; against a reversed one: no ceiling) and judges searches
# by it; then the former protocol (one anchor, the ratio of medians); hostile arguments
# leave no file. No timing
# is judged.
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

run 0 --group 4 --rounds 2 --rounds-csv rounds.csv draw.csv out.csv
has "the groups" "$out" "96x128x64        7 configs in 3 groups beside the anchor "
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

# the anchor first and halfway in each group (2 others a group), each config in one group,
# every job of a group in the same rounds
same "the rounds file" "$(head -n 1 rounds.csv)" "shape,row,group,job,anchor,round,seconds"
same "the anchor's places" "$(awk -F, 'NR > 1 && $5 == 1 { print $3, $4 }' rounds.csv | sort -u | tr '\n' ' ')" \
    "0 0 0 2 1 0 1 2 2 0 2 2 "
same "rows in a group" "$(awk -F, 'NR > 1 && $5 == 0 { print $2 }' rounds.csv | sort -u | wc -l)" "6"
same "configs in a group" "$(awk -F, 'NR > 1 && $5 == 0 { print $2, $3 }' rounds.csv | sort -u | wc -l)" "6"
same "the same rounds in a group" "$(awk -F, 'NR > 1 { n[$3 "," $4]++ }
    END { for (j in n) { split(j, g, ","); print g[1], n[j] } }' rounds.csv | sort -u | wc -l)" "3"
# a config's figure over the anchor's is the median over the rounds of its time over the
# anchor's in the same round, the geometric mean of its copies' (group, round: fields 3, 6)
anc=$(awk -F, 'NR > 1 && $5 == 1 { print $2; exit }' rounds.csv)
paired=$(awk -F, -v OFMT=%.10g 'NR > 1 && $5 == 1 { a[$3 "," $6] += log($7); c[$3 "," $6]++ }
                  NR > 1 && $5 == 0 { n++; row[n] = $2; at[n] = $3 "," $6; s[n] = $7 }
                  END { for (i = 1; i <= n; i++) print row[i], s[i] / exp(a[at[i]] / c[at[i]]) }' rounds.csv |
    sort -k1,1n -k2,2g |
    awk -v OFMT=%.10g '{ v[$1, ++n[$1]] = $2 }
         END { for (r in n) { k = n[r]
                              print r, k % 2 ? v[r, (k + 1) / 2] : (v[r, k / 2] + v[r, k / 2 + 1]) / 2 } }' |
    sort -n)
journal=$(awk -F, -v OFMT=%.10g -v a="$anc" 'NR > 1 { m[NR - 2] = $19 }
                               END { for (r = 0; r < NR - 1; r++) if (r != a + 0) print r, m[r] / m[a + 0] }' out.csv)
same "paired rows" "$(cut -d' ' -f1 <<<"$paired" | tr '\n' ' ')" "$(cut -d' ' -f1 <<<"$journal" | tr '\n' ' ')"
far=$(paste -d' ' <(echo "$paired") <(echo "$journal") |
      awk '{ d = $2 / $4 - 1; if (d < 0) d = -d; if (d > 1e-6) print }')
same "paired figures" "$far" ""

# the report reads it: against itself, every config measured the same
bin=$report
run 0 host out.csv --retest out.csv
if grep -Eq '^96x128x64 +7 +' <<<"$out"; then ok; else bad "ranking: $out"; fi
if grep -Eq '^96x128x64 +7 +1\.000 +1\.000 +0\.0% +1\.000$' <<<"$out"; then ok; else bad "retest: $out"; fi
# a retest 10% slower throughout: all drift, no noise; one whose order is reversed: no ceiling
awk -F, -v OFS=, -v CONVFMT=%.17g 'NR > 1 { $19 *= 1.1 } 1' out.csv >slower.csv
cp out.csv.sig slower.csv.sig
run 0 host out.csv --retest slower.csv
if grep -Eq '^96x128x64 +7 +1\.000 +1\.000 +0\.0% +1\.100$' <<<"$out"; then ok; else bad "drift: $out"; fi
awk -F, -v OFS=, -v CONVFMT=%.17g 'NR > 1 { $19 = 1 / $19 } 1' out.csv >reversed.csv
cp out.csv.sig reversed.csv.sig
run 0 host out.csv --retest reversed.csv
if grep -Eq '^96x128x64 +7 +-1\.000 +0\.000 ' <<<"$out" && grep -q 'reaches the goal (spearman >= 0.85) on 0 of 1' <<<"$out"; then ok; else bad "ceiling: $out"; fi

# the searches judged by a second timing (--searched): the draw stands for two labels' one
# round, the timed journal its configs' figures rewritten so that the config of the highest
# estimate is the fastest; without it, the draw's own figures (the estimates) judge
# (configs: the draw's rows, each config once, est_cycles its 16th field)
awk -F, 'NR > 1 && !seen[$8 $9 $10 $11 $12 $13 $14 $21]++ { print $16 }' draw.csv >est.txt
n=$(wc -l <est.txt)
hi=$(awk '{ if (NR == 1 || $1 > m) { m = $1; r = NR } } END { print r }' est.txt)
lo=$(awk -v min="$(sort -g est.txt | head -n 1)" '$1 <= 1.02 * min { print NR; exit }' est.txt)
[ "$hi" != "$lo" ] || bad "the draw's estimates cannot tell the timed figures from its own"
awk -F, -v OFS=, -v e="$(sed -n "${hi}p" est.txt)" 'NR > 1 { $19 = ($16 == e) ? 0.5 : 1 } 1' \
    out.csv >timed.csv
run 0 host out.csv --searched timed.csv a=draw.csv b=draw.csv
if grep -Eq "^96x128x64 +$hi/$hi of $n, 1.000 +$hi/$hi of $n, 1.000\$" <<<"$out"; then ok
else bad "searches judged by the timing (config $hi): $out"; fi
if grep -Eq "^  b +$hi\.0 \(1\.00x\) / +$hi\.0 \(1\.00x\)\$" <<<"$out"; then ok
else bad "against the first label: $out"; fi
run 0 host out.csv a=draw.csv b=draw.csv
if grep -Eq "^96x128x64 +$lo/$lo of $n, 1.000 +$lo/$lo of $n, 1.000\$" <<<"$out"; then ok
else bad "searches judged by their own figures (config $lo): $out"; fi
run 1 host out.csv --searched missing.csv a=draw.csv
has "a missing timing" "$err" "missing.csv"
run 2 host out.csv --searched
run 2 host out.csv --bogus x a=draw.csv

# one anchor a group (3 others: 2 groups), the figure its ratio of medians
bin=$anchor
run 0 --group 4 --anchors 1 --figure medians --rounds 2 --rounds-csv rounds2.csv draw.csv out2.csv
has "the groups" "$out" "96x128x64        7 configs in 2 groups beside the anchor "
same "rows" "$(column status out2.csv | tr '\n' ' ')" "ok ok ok ok ok ok ok "
same "the anchor's places" "$(awk -F, 'NR > 1 && $5 == 1 { print $3, $4 }' rounds2.csv | sort -u | tr '\n' ' ')" \
    "0 0 1 0 "

# a draw of both kernel families: the journal gets the pack column, each row its family
cat >np.lua <<'EOF'
local host = target "host"
matmul { name = "np", shapes = { {64, 96, 64} }, dtype = "fp32" }
space { strategy = { "OS" }, m = { 48 }, n = { 96 }, k = { 64 }, micro = { { 4, 2 * host.simd_floats } },
        double_buffer = { false }, cores = { 1 }, pack = { true, false } }
tune { measure = "model", search = "exhaustive", results = "np.csv", table = "np-table.csv" }
EOF
"$tune" --quiet np.lua >/dev/null || bad "the draw of both families failed"
run 0 --group 4 --rounds 1 np.csv np-out.csv
keyed() { # FILE: each row's config and family, sorted
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pack") p = i; next }
             { print $8, $9, $10, $11, $12, $13, $14, $21, $p }' "$1" | sort
}
same "both families" "$(keyed np.csv | awk '{ print $NF }' | sort -u | tr '\n' ' ')" "0 1 "
same "each row's family" "$(keyed np-out.csv)" "$(keyed np.csv)"

# hostile arguments: a journal that exists is not written over; no file is left
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
run 2 --anchors 3 draw.csv new.csv
run 2 --group 2 --anchors 2 draw.csv new.csv
run 2 --figure mean draw.csv new.csv
absent "a journal from bad options" "$work/new.csv"
run 1 --rounds-csv draw.csv draw.csv new.csv
has "the rounds file is the draw" "$err" "rounds file 'draw.csv' is the draw"
run 1 --rounds-csv rounds.csv draw.csv new.csv
has "a rounds file that exists" "$err" "bench_host_anchor: 'rounds.csv' exists: remove it first"
absent "a journal beside a rounds file that exists" "$work/new.csv"
run 1 --rounds-csv no/such/dir/r.csv draw.csv new.csv
has "a rounds file in a missing directory" "$err" \
    "bench_host_anchor: cannot write 'no/such/dir/r.csv': its directory is missing or read-only"
run 1 --rounds-csv '' draw.csv new.csv
has "an empty rounds file name" "$err" "bench_host_anchor: cannot write ''"
absent "a journal beside a rounds file that cannot be written" "$work/new.csv"
finish
