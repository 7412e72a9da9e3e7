#!/usr/bin/env bash
# plot.sh — `npu-tune plot`: usage and journal errors (part "errors"); a fixture
# journal rendered and every image checked (part "render"); every plot readable on
# its own, from its SVG's texts: numbers on each axis, labels inside the image (part
# "readable"). The last two need gnuplot, exit 77 without.
# Usage: plot.sh NPU_TUNE SOURCE_DIR [errors|render|readable]
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$2
part=${3:-errors}
. "$(dirname "$0")/../lib.sh"

header=problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,load_volume_elems,est_cycles,backend,status,measured,unit,micro,round

# journal FILE UNIT: a fixture with three shapes, three strategies, a few
# failed rows and a torn last line (a killed run).
journal() {
    local scale=1
    [ "$2" == s ] && scale=0.000001
    mkdir -p "$(dirname "$1")"
    {
        echo "$header"
        for shape in 512,768,768 512,3072,768 256,256,512; do
            IFS=, read -r M N K <<<"$shape"
            for st in IS WS OS; do
                for m in 64 128 256; do
                    for n in 64 128 256; do
                        k=$K
                        [ $st == OS ] && k=128
                        est=$((M * N * K / 4096 * (512 / m + 512 / n) / 2))
                        [ $st == OS ] && est=$((est / 3))
                        [ $st == WS ] && est=$((est + est / 10))
                        measured=$(awk -v e=$est -v s=$scale -v m=$m 'BEGIN { printf "%.9g", e * (1 + m / 2048) * s }')
                        echo "bert,$M,$N,$K,1,fp16,ascend910,$st,$m,$n,$k,0,1,M,1000,$est,sim,ok,$measured,$2,,search"
                    done
                done
                echo "bert,$M,$N,$K,1,fp16,ascend910,$st,512,512,$K,1,1,M,1000,1,sim,crash,,$2,,search"
            done
        done
        printf 'bert,512,768,768,1,fp16,ascend910,OS,16,16,16,0,1,M,1000,12'
    } >"$1"
}

if [ "$part" == errors ]; then
    # --- usage ---
    run 2 plot
    has "no journal" "$err" "npu-tune: plot: a RESULTS.csv journal is required"
    run 2 plot a.csv b.csv
    has "two journals" "$err" "npu-tune: plot: one journal only"
    run 2 plot a.csv --frob
    has "bad option" "$err" "npu-tune: plot: unknown or incomplete option '--frob'"
    run 2 plot a.csv -o
    has "-o without a dir" "$err" "npu-tune: plot: unknown or incomplete option '-o'"

    # --- journal errors (no gnuplot needed) ---
    run 1 plot missing.csv
    same "missing journal" "$err" "npu-tune: cannot open 'missing.csv': No such file or directory"
    echo "a,b,c" >"$work/foreign.csv"
    run 1 plot foreign.csv
    same "foreign file" "$err" "npu-tune: foreign.csv:1: columns are not the npu-tune journal's"
    { echo "$header"; echo "x,1,1,1,1,fp16,t,OS,16,16,16,0,1,M,1,1,sim,crash,,cycles,,search"; } >"$work/none.csv"
    run 1 plot none.csv
    same "no ok rows" "$err" "npu-tune: no measurements with status ok in none.csv"
    { echo "$header"; echo "x,1,1,1,1,fp16,t,OS,16,16,16,0,1,M,1,1,sim,ok,5,cycles,,search"; echo "x,1,1,1,1,fp16,t,OS,16,32,16,0,1,M,1,1,sim,ok,5,s,,search"; } >"$work/mixed.csv"
    run 1 plot mixed.csv
    same "mixed units" "$err" "npu-tune: mixed.csv:3: row is in s, line 2 is in cycles; a journal holds one unit"
    { echo "$header"; echo "x,1,1,1,1,fp16,t,OS,16,16,16,0,1,M,1,1,sim,ok,5,cycles,,"; } >"$work/short.csv"
    run 1 plot short.csv
    same "short row" "$err" "npu-tune: short.csv:2: field 'round' is not search, final or verify: ''"
    { echo "$header"; echo "x,1,1,1,1,fp16,t,OS,16,sixteen,16,0,1,M,1,1,sim,ok,5,cycles,,search"; } >"$work/badnum.csv"
    run 1 plot badnum.csv
    same "bad number" "$err" "npu-tune: badnum.csv:2: field 'n' is not an integer: 'sixteen'"
    { echo "$header" | cut -d, -f1-20; echo "x,1,1,1,1,fp16,t,OS,16,16,16,0,1,M,1,1,sim,ok,5,cycles"; } >"$work/old.csv"
    run 1 plot old.csv
    same "another header" "$err" "npu-tune: old.csv:1: columns are not the npu-tune journal's"
    journal "$work/results/bert.csv" cycles
    (cd "$work" && PATH=/nonexistent "$bin" plot results/bert.csv >"$work/.out" 2>"$work/.err")
    same "no gnuplot: exit" "$?" 1
    same "no gnuplot: message" "$(cat "$work/.err")" \
        "npu-tune: gnuplot not found; install the gnuplot package (apt-get install gnuplot-nox)"
    finish
    exit
fi

# --- rendering (the tests plot_render and plot_readable): need gnuplot ---
command -v gnuplot >/dev/null 2>&1 || skip "rendering needs gnuplot (apt-get install gnuplot-nox)"

if [ "$part" == readable ]; then
    # texts SVG: one line per text element: x y rotation font-size anchor text, where
    # x y is its anchor point (gnuplot writes each as <g transform=...><text>).
    texts() {
        awk '/<g transform="translate\(/ {
                 match($0, /translate\([-0-9.]+,[-0-9.]+\)/)
                 split(substr($0, RSTART + 10, RLENGTH - 11), xy, ",")
                 rot = 0
                 if (match($0, /rotate\([-0-9.]+\)/)) rot = substr($0, RSTART + 7, RLENGTH - 8)
                 match($0, /font-size="[0-9.]+"/); fs = substr($0, RSTART + 11, RLENGTH - 12)
                 match($0, /text-anchor="[a-z]+"/); anchor = substr($0, RSTART + 13, RLENGTH - 14)
                 pending = 1; next }
             pending && /<text>/ {
                 t = $0; gsub(/<[^>]*>/, "", t); gsub(/^[ \t]+|[ \t]+$/, "", t)
                 if (t != "") print xy[1], xy[2], rot, fs, anchor, t
                 pending = 0 }' "$1"
    }
    # readable WHAT SVG AXES LABEL...: every text inside the image (its box estimated
    # at 0.6 em a character, 0.8 em above the baseline and 0.25 below, turned as
    # drawn), at least two numbers on the x axis (one row, centred) and, when AXES is
    # xy, on the y axis (one column, right-aligned), and each LABEL (axis labels, shape
    # names) present.
    readable() {
        local what=$1 svg=$2 axes=$3
        shift 3
        local size list
        size=$(sed -n 's/.*viewBox="0 0 \([0-9.]*\) \([0-9.]*\)".*/\1 \2/p' "$svg" | head -n 1)
        list=$(texts "$svg")
        local outside
        outside=$(awk -v size="$size" 'BEGIN { split(size, wh, " "); pi = atan2(0, -1) }
            { x = $1; y = $2; a = $3 * pi / 180; fs = $4; anchor = $5
              t = $0; for (i = 1; i <= 5; i++) sub(/^[^ ]+ /, "", t)
              w = length(t) * 0.6 * fs
              x0 = anchor == "end" ? -w : anchor == "middle" ? -w / 2 : 0
              split(x0 " " x0 + w " " x0 + w " " x0, cx, " ")
              split(-0.8 * fs " " -0.8 * fs " " 0.25 * fs " " 0.25 * fs, cy, " ")
              for (i = 1; i <= 4; i++) {
                  px = x + cx[i] * cos(a) - cy[i] * sin(a); py = y + cx[i] * sin(a) + cy[i] * cos(a)
                  if (px < 0 || px > wh[1] || py < 0 || py > wh[2]) { print t; break }
              } }' <<<"$list")
        same "$what: every text inside the image" "$outside" ""
        local num='^-?[0-9.]+([eE][-+]?[0-9]+)?[kMGmunp]?$'
        same "$what: numbers on the x axis" "$(awk -v re="$num" '$3 == 0 && $5 == "middle" && $6 ~ re && NF == 6 { n[$2]++ }
            END { for (y in n) if (n[y] >= 2) { print "yes"; exit } }' <<<"$list")" yes
        [ "$axes" == xy ] && same "$what: numbers on the y axis" "$(awk -v re="$num" '$3 == 0 && $5 == "end" && $6 ~ re && NF == 6 { n[$1]++ }
            END { for (x in n) if (n[x] >= 2) { print "yes"; exit } }' <<<"$list")" yes
        for label in "$@"; do
            has "$what: label '$label'" "$(cut -d' ' -f6- <<<"$list")" "$label"
        done
    }
    # A journal whose values span less than a decade (no power of ten among them),
    # with a problem name of the longest kind, in cycles; and one in seconds that
    # spans three decades.
    long=a_problem_name_of_forty_characters_long_
    {
        echo "$header"
        for shape in 96,80,64 160,96,128; do
            IFS=, read -r M N K <<<"$shape"
            for st in IS WS OS; do
                for m in 16 32 48; do
                    for n in 16 32; do
                        est=$((12000 + 700 * m / 16 + 900 * n / 16))
                        [ $st == WS ] && est=$((est + 2000))
                        echo "$long,$M,$N,$K,1,fp16,ascend910,$st,$m,$n,$K,0,1,M,1000,$est,sim,ok,$((est + 37 * m - 20 * n)),cycles,,search"
                    done
                done
            done
        done
    } >"$work/narrow.csv"
    run 0 plot narrow.csv -o narrow
    readable "measured_vs_model" "$work/narrow/measured_vs_model.svg" xy \
        "model estimate (cycles)" "measured (cycles)" "best measured" "model's first pick"
    readable "strategies" "$work/narrow/strategies.svg" x "best measured (cycles)" \
        "$long 96x80x64" "$long 160x96x128"
    for shape in 96x80x64 160x96x128; do
        readable "tiles $shape" "$work/narrow/tiles_${long}_$shape.svg" xy "m (tile rows)" \
            "n (tile columns)" "measured (cycles)"
        same "tiles $shape: numbers on the colour bar" "$(texts "$work/narrow/tiles_${long}_$shape.svg" |
            awk '$5 == "start" && $6 ~ /^[0-9.]+$/ { n[$1]++ } END { for (x in n) if (n[x] >= 2) { print "yes"; exit } }')" yes
    done
    {
        echo "$header"
        for m in 16 32 48 64 80 96 112 128; do
            est=$((1000 * m * m / 16))
            echo "wide,512,512,512,1,fp32,host,WS,$m,64,64,0,1,M,1000,$est,host,ok,$(awk -v e=$est 'BEGIN { printf "%.6g", e * 3e-10 }'),s,6x16,search"
        done
    } >"$work/wide.csv"
    run 0 plot wide.csv -o wide
    readable "seconds: measured_vs_model" "$work/wide/measured_vs_model.svg" xy "measured (s)"
    readable "seconds: strategies" "$work/wide/strategies.svg" x "best measured (s)"
    readable "seconds: tiles" "$work/wide/tiles_wide_512x512x512_fp32.svg" xy "measured (s)"
    finish
    exit
fi
journal "$work/results/bert.csv" cycles

# image FILE: a non-empty PNG (by signature) or SVG (has <svg).
image() {
    if [ ! -s "$1" ]; then
        bad "$1 is missing or empty"
    elif [[ $1 == *.png ]]; then
        same "$1 signature" "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a
    elif grep -q '<svg' "$1"; then ok; else bad "$1 has no <svg"; fi
}

expected="measured_vs_model.png measured_vs_model.svg strategies.png strategies.svg
tiles_bert_256x256x512.png tiles_bert_256x256x512.svg tiles_bert_512x3072x768.png
tiles_bert_512x3072x768.svg tiles_bert_512x768x768.png tiles_bert_512x768x768.svg"

# --- the default directory: the journal's + /plots; every file listed ---
run 0 plot results/bert.csv
same "files listed" "$out" "$(for f in $expected; do echo "results/plots/$f"; done)"
for f in $expected; do image "$work/results/plots/$f"; done
same "tile data: best over k and settings per m x n" \
    "$(grep -vc '^#' "$work/results/plots/tiles_bert_512x768x768.dat")" 9
# Plotting again rewrites (and lists) every file.
run 0 plot results/bert.csv
same "files listed again" "$(printf '%s\n' "$out" | wc -l)" 10

# --- seconds, -o DIR ---
journal "$work/secs.csv" s
run 0 plot secs.csv -o "$work/out dir/it's"
same "files listed with -o" "$(printf '%s\n' "$out" | wc -l)" 10
for f in $expected; do image "$work/out dir/it's/$f"; done
has "seconds axis" "$(cat "$work/out dir/it's/measured_vs_model.svg")" "measured (s)"

# --- NPU_TUNE_PLOTS: restyled scripts are used; missing or broken ones fail ---
mkdir "$work/style"
cp "$src"/results/plots/*.gp "$work/style/"
sed -i "s/set title 'Best measured per strategy and shape (shorter is better)'/set title 'Restyled bars'/" \
    "$work/style/strategies.gp"
(cd "$work" && NPU_TUNE_PLOTS="$work/style" "$bin" plot results/bert.csv >"$work/.out" 2>"$work/.err")
same "restyled: exit" "$?" 0
has "restyled title" "$(cat "$work/results/plots/strategies.svg")" "Restyled bars"
mkdir "$work/empty"
(cd "$work" && NPU_TUNE_PLOTS="$work/empty" "$bin" plot results/bert.csv >"$work/.out" 2>"$work/.err")
same "no scripts: exit" "$?" 1
same "no scripts: message" "$(cat "$work/.err")" \
    "npu-tune: NPU_TUNE_PLOTS: cannot read '$work/empty/measured_vs_model.gp': No such file or directory"
echo "plot undefined_thing" >>"$work/style/measured_vs_model.gp"
(cd "$work" && NPU_TUNE_PLOTS="$work/style" "$bin" plot results/bert.csv >"$work/.out" 2>"$work/.err")
same "broken script: exit" "$?" 1
err=$(cat "$work/.err")
has "broken script: message" "$err" "npu-tune: gnuplot failed on measured_vs_model.gp (png): \"$work/style/measured_vs_model.gp\" line"
has "broken script: gnuplot's reason" "$err" "undefined_thing"
same "broken script: one line" "$(printf '%s\n' "$err" | wc -l)" 1

finish
