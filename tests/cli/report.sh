#!/usr/bin/env bash
# report.sh — `npu-tune report`: the model against hand-made journals whose figures
# are known (rank correlations of 1, -1 and with ties, a regret, a recall, errors,
# a fitted scale), several journals at once, CSV, errors, and a real run's journal.
# Usage: report.sh NPU_TUNE
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/../lib.sh"

header=problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,load_volume_elems,est_cycles,backend,status,measured,unit,micro,round

# row PROBLEM K m EST MEASURED [STATUS ROUND LOAD CORES SPLIT]: a simulator row of
# shape 64x64xK, config OS m x 16 x 16.
row() {
    echo "$1,64,64,$2,1,fp16,ascend910,OS,$3,16,16,0,${9:-1},${10:-M},${8:-1000},$4,sim,${6:-ok},$5,cycles,,${7:-search}"
}

{
    echo "$header"
    # up: estimate = 1.1 x measured, in order: rho 1, tau 1, regret 0, errors 10%, bias 1.1;
    # the final's re-measurement (999) leaves the search's 100 standing; the crashed
    # row and the config that failed its verification take no part
    row up 64 16 110 100
    row up 64 32 220 200
    row up 64 48 330 300 ok search 1000 2 N
    row up 64 64 440 400 ok search 1000 2 N
    row up 64 16 110 999 ok final
    row up 64 80 1 "" crash
    row up 64 96 55 50
    row up 64 96 55 "" wrong verify
    # down: reversed: rho -1, tau -1, the pick is the worst (400 against 100: 300%),
    # the best is the model's 4th
    row down 128 16 10 400
    row down 128 32 20 300
    row down 128 48 30 200
    row down 128 64 40 100
    # ties: estimates 100 100 200 300 against 10 20 30 40: tau-b 5/sqrt(30), rho
    # 0.948683; the tie goes to the lower load volume (measured 20: regret 100%)
    row ties 192 16 100 10 ok search 2000
    row ties 192 32 100 20 ok search 1000
    row ties 192 48 200 30
    row ties 192 64 300 40
    # recall: the best (100) is the model's 6th: in its top 10, not its top 5; the
    # pick measured 110 (regret 10%)
    for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
        case $i in 1) m=110 ;; 6) m=100 ;; 2 | 3 | 4 | 5) m=$((110 + i)) ;; *) m=$((120 + i)) ;; esac
        row recall 256 $((16 * i)) $((100 * i)) $m
    done
    # one: a single row, no rank correlation
    row one 320 16 50 60
} >"$work/a.csv"

# --- one journal, CSV: every figure ---
run 0 report a.csv --format csv
same "csv" "$out" "scope,value,problem,M,N,K,batch,dtype,target,backend,unit,estimate,scale,rows,spearman,kendall_tau_b,first_pick_regret,best_rank,top1,top5,top10,error_median,error_p90,bias
shape,,up,64,64,64,1,fp16,ascend910,sim,cycles,est_cycles,1,4,1,1,0,1,1,1,1,0.1,0.1,1.1
shape,,down,64,64,128,1,fp16,ascend910,sim,cycles,est_cycles,1,4,-1,-1,3,4,0,1,1,0.891667,0.9625,0.108333
shape,,ties,64,64,192,1,fp16,ascend910,sim,cycles,est_cycles,1,4,0.948683,0.912871,1,2,0,1,1,6.08333,8.25,7.08333
shape,,recall,64,64,256,1,fp16,ascend910,sim,cycles,est_cycles,1,12,0.895105,0.848485,0.1,6,0,0,1,4.75591,7.32648,5.75591
shape,,one,64,64,320,1,fp16,ascend910,sim,cycles,est_cycles,1,1,,,0,1,1,1,1,0.166667,0.166667,0.833333
all,,,,,,,,,,cycles,,,25,0.460947,0.440339,0.82,,0.4,0.8,1,2.50877,7.11509,3.50877
cores,1,,,,,,,,,,,,23,,,,,,,,3.34783,,4.34783
cores,2,,,,,,,,,,,,2,,,,,,,,0.1,,1.1
strategy,OS,,,,,,,,,,,,25,,,,,,,,2.50877,,3.50877
split,M,,,,,,,,,,,,23,,,,,,,,3.34783,,4.34783
split,N,,,,,,,,,,,,2,,,,,,,,0.1,,1.1
double_buffer,0,,,,,,,,,,,,25,,,,,,,,2.50877,,3.50877"
same "csv: one header's fields a line" "$(awk -F, '{ print NF }' <<<"$out" | sort -u)" 24

# --- text: aligned columns, a line per figure's meaning ---
run 0 report a.csv
has "text: what" "$out" "the model's estimate against 25 configs measured ok: 5 shapes of 1 journal"
has "text: header" "$out" "problem  shape      dtype  target     backend  unit    rows  spearman  kendall   regret  rank  top1  top5  top10  err_med  err_p90   bias"
has "text: up" "$out" "up       64x64x64   fp16   ascend910  sim      cycles     4    1.0000   1.0000    0.00%     1   yes   yes    yes   10.00%   10.00%  1.100"
has "text: down" "$out" "down     64x64x128  fp16   ascend910  sim      cycles     4   -1.0000  -1.0000  300.00%     4    no   yes    yes   89.17%   96.25%  0.108"
has "text: undefined" "$out" "one      64x64x320  fp16   ascend910  sim      cycles     1         -        -    0.00%     1   yes   yes    yes   16.67%   16.67%  0.833"
has "text: all" "$out" "all                                            cycles    25    0.4609   0.4403   82.00%     -   2/5   4/5    5/5  250.88%  711.51%  3.509"
has "text: bias" "$out" "cores          2         2  1.100   10.00%"
for figure in rows spearman kendall regret rank err_med bias all; do
    has "text: $figure explained" "$out" "
$figure "
done
same "text: no trailing blanks" "$(grep -c ' $' <<<"$out")" 0

# --- several journals: seconds against cycles (a fitted scale), a load-volume
# estimate, a config of another journal replacing one of a.csv, one failing there ---
{
    echo "$header"
    echo "secs,64,64,64,1,fp32,host,WS,16,16,16,0,1,M,500,1000,host,ok,1e-06,s,6x16,search"
    echo "secs,64,64,64,1,fp32,host,WS,32,16,16,0,1,M,500,2000,host,ok,2.2e-06,s,6x16,search"
    echo "secs,64,64,64,1,fp32,host,WS,48,16,16,0,1,M,500,3000,host,ok,2.9e-06,s,6x16,search"
    echo "secs,64,64,64,1,fp32,host,WS,64,16,16,1,2,N,500,4000,host,ok,4.1e-06,s,8x16,final"
} >"$work/b.csv"
{
    echo "$header"
    row up 64 96 550 500
    row up 64 32 220 250
    row down 128 64 40 "" timeout
    echo "load,64,64,64,1,fp16,ascend910,OS,16,16,16,0,1,M,300,,sim,ok,600,cycles,,search"
    echo "load,64,64,64,1,fp16,ascend910,OS,32,16,16,0,1,M,200,50,sim,ok,400,cycles,,search"
} >"$work/c.csv"
run 0 report b.csv c.csv --format csv
same "several: csv" "$(sed -n 2,5p <<<"$out")" "shape,,secs,64,64,64,1,fp32,host,host,s,est_cycles,1.0125e-09,4,1,1,0,1,1,1,1,0.0299569,0.069906,1.00015
shape,,up,64,64,64,1,fp16,ascend910,sim,cycles,est_cycles,1,2,1,1,0,1,1,1,1,0.11,0.118,0.99
shape,,load,64,64,64,1,fp16,ascend910,sim,cycles,load_volume_elems,2,2,1,1,0,1,1,1,1,0,0,1
all,,,,,,,,,,,,,8,1,1,0,,1,1,1,0.0299569,0.106,1"
has "several: micro-tiles" "$out" "micro,8x16,,,,,,,,,,,,1,,,,,,,,0.0121951,,0.987805"
run 0 report a.csv b.csv c.csv
has "several: what" "$out" "against 31 configs measured ok: 7 shapes of 3 journals"
has "several: up merged, m=32 from c.csv" "$out" "up       64x64x64   fp16   ascend910  sim      cycles     5    1.0000   1.0000    0.00%     1   yes   yes    yes   10.00%   11.20%  1.100"
has "several: scale said" "$out" "scale      host on host (s): est_cycles x 1.012e-09 s per estimate unit, the median measured/estimate of its 4 rows; errors and bias use the scaled estimate"
has "several: load volume said" "$out" "scale      sim on ascend910 (cycles): load_volume_elems x 2 cycles per estimate unit"
run 0 report a.csv a.csv --format csv
same "a journal twice counts once" "$(sed -n 7p <<<"$out")" "all,,,,,,,,,,cycles,,,25,0.460947,0.440339,0.82,,0.4,0.8,1,2.50877,7.11509,3.50877"

# --- errors ---
run 2 report
same "no journal" "$err" "npu-tune: report: a JOURNAL.csv is required (see 'npu-tune report --help')"
run 2 report a.csv --format xml
same "bad format" "$err" "npu-tune: report: --format 'xml' is not text or csv (see 'npu-tune report --help')"
run 2 report a.csv -o x
same "bad option" "$err" "npu-tune: report: unknown or incomplete option '-o' (see 'npu-tune report --help')"
run 0 report --help
has "help" "$out" "usage: npu-tune report JOURNAL.csv... [--format text|csv]"
run 1 report a.csv missing.csv
same "missing journal" "$err" "npu-tune: cannot open 'missing.csv': No such file or directory"
same "missing journal: nothing printed" "$out" ""
{ echo "$header"; row up 64 16 110 100; row up 64 32 220 x; } >"$work/bad.csv"
run 1 report bad.csv
same "malformed row" "$err" "npu-tune: bad.csv:3: field 'measured' is not a number: 'x'"
echo "a,b,c" >"$work/foreign.csv"
run 1 report foreign.csv
same "not a journal" "$err" "npu-tune: foreign.csv:1: columns are not the npu-tune journal's"
{ echo "$header"; echo "up,64,64,64,1,fp16,ascend910,OS,112,16,16,0,1,M,1000,550,sim,ok,5e-07,s,,search"; } >"$work/secs.csv"
run 1 report a.csv secs.csv
same "mixed units" "$err" "npu-tune: secs.csv:2: row is in s, a.csv:2 is in cycles; the rows of a problem, target and backend share one unit"
{ echo "$header"; echo "x,64,64,64,1,fp16,ascend910,OS,16,16,16,0,1,M,,,sim,ok,5,cycles,,search"; } >"$work/nofig.csv"
run 1 report nofig.csv
same "no figures" "$err" "npu-tune: nofig.csv:2: an ok row without the model's figures (its est_cycles and load_volume_elems are empty)"
{ echo "$header"; row up 64 16 1 "" crash; } >"$work/none.csv"
run 1 report none.csv
same "no ok rows" "$err" "npu-tune: no measurements with status ok in none.csv"
for format in text csv; do
    (cd "$work" && "$bin" report a.csv --format $format >/dev/full 2>"$work/.err")
    same "/dev/full ($format): exit" "$?" 1
    same "/dev/full ($format): message" "$(cat "$work/.err")" \
        "npu-tune: cannot write standard output: No space left on device"
done

# --- a real run's journal: every ok row counts once ---
cat >"$work/t.lua" <<'LUA'
target "ascend910"
matmul { name = "t", shapes = { {128, 96, 64}, {64, 64, 64} } }
space { cores = { 1, 2 }, split = { "M", "N" } }
tune { measure = "sim", budget = 6, results = "out/t.csv", table = "out/t-table.csv" }
LUA
run 0 --quiet t.lua
run 0 report out/t.csv --format csv
same "real run: rows" "$(awk -F, '$1 == "all" { print $14 }' <<<"$out")" \
    "$(grep -c ',sim,ok,' "$work/out/t.csv")"
same "real run: shapes" "$(grep -c '^shape,,t,' <<<"$out")" 2

finish
