#!/usr/bin/env bash
# plot.sh — `npu-tune plot`: usage and journal errors (part "errors"), or a
# fixture journal rendered and every image checked (part "render": needs gnuplot,
# exit 77 without). Usage: plot.sh NPU_TUNE SOURCE_DIR [errors|render]
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$2
part=${3:-errors}
. "$(dirname "$0")/../lib.sh"

header=problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,load_volume_elems,est_cycles,backend,status,measured,unit

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
                        echo "bert,$M,$N,$K,1,fp16,ascend910,$st,$m,$n,$k,0,1,M,1000,$est,sim,ok,$measured,$2"
                    done
                done
                echo "bert,$M,$N,$K,1,fp16,ascend910,$st,512,512,$K,1,1,M,1000,1,sim,crash,,$2"
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
    same "foreign file" "$err" "npu-tune: foreign.csv:1: not a results journal (no column 'problem')"
    { echo "$header"; echo "x,1,1,1,1,fp16,t,OS,16,16,16,0,1,M,1,1,sim,crash,,cycles"; } >"$work/none.csv"
    run 1 plot none.csv
    same "no ok rows" "$err" "npu-tune: none.csv: no measurements with status ok to plot"
    { echo "$header"; echo "x,1,1,1,1,fp16,t,OS,16,16,16,0,1,M,1,1,sim,ok,5,cycles"; echo "x,1,1,1,1,fp16,t,OS,16,32,16,0,1,M,1,1,sim,ok,5,s"; } >"$work/mixed.csv"
    run 1 plot mixed.csv
    same "mixed units" "$err" "npu-tune: mixed.csv:3: unit 's' differs from 'cycles' of the rows before"
    { echo "$header"; echo "x,1,1,1,1,fp16,t,OS,16,16,16,0,1,M,1,1,sim,ok,5"; } >"$work/short.csv"
    run 1 plot short.csv
    same "short row" "$err" "npu-tune: short.csv:2: 19 fields, the header has 20"
    { echo "$header"; echo "x,1,1,1,1,fp16,t,OS,16,sixteen,16,0,1,M,1,1,sim,ok,5,cycles"; } >"$work/badnum.csv"
    run 1 plot badnum.csv
    same "bad number" "$err" "npu-tune: badnum.csv:2: bad n 'sixteen'"
    journal "$work/results/bert.csv" cycles
    (cd "$work" && PATH=/nonexistent "$bin" plot results/bert.csv >"$work/.out" 2>"$work/.err")
    same "no gnuplot: exit" "$?" 1
    same "no gnuplot: message" "$(cat "$work/.err")" \
        "npu-tune: gnuplot not found; install the gnuplot package (apt-get install gnuplot-nox)"
    finish
    exit
fi

# --- rendering (the test plot_render): needs gnuplot ---
command -v gnuplot >/dev/null 2>&1 || skip "rendering needs gnuplot (apt-get install gnuplot-nox)"
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
sed -i "s/set title 'Best measured per strategy and shape (lower is better)'/set title 'Restyled bars'/" \
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
