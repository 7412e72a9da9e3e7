#!/usr/bin/env bash
# commands.sh — the npu-tune command line as a user meets it: exit codes, exact
# one-line errors, CSV headers, and a full run of examples/bert.lua.
# Usage: commands.sh PATH/TO/npu-tune SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/../lib.sh"

# --- usage and dispatch ---
run 2
same "no arguments" "$err" "npu-tune: a SCRIPT.lua or a command is required (see 'npu-tune --help')"
run 0 --help
has "help" "$out" "npu-tune model --target T"
# after a run's options too, as each command takes it
run 0 --quiet --format csv --help
has "help after a run's options" "$out" "npu-tune model --target T"
# --help of each command: its usage on stdout, exit 0; usage errors are one line
for c in model gen sim plot table report calibrate; do
    run 0 $c --help
    has "$c --help" "$out" "usage: npu-tune $c"
    same "$c --help stderr" "$err" ""
done
run 2 --quiet
same "no script" "$err" "npu-tune: a SCRIPT.lua is required (see 'npu-tune --help')"
run 2 a.lua b.lua
same "two scripts" "$err" "npu-tune: one SCRIPT.lua only (see 'npu-tune --help')"
run 0 --version
has "version" "$out" "npu-tune "
run 2 frobnicate
same "unknown command" "$err" "npu-tune: unknown command 'frobnicate' (commands: model, gen, sim, table, plot, report, calibrate, lib; or give a SCRIPT.lua)"
run 2 --frob
same "unknown option" "$err" "npu-tune: unknown or incomplete option '--frob' (see 'npu-tune --help')"
run 1 missing.lua
same "missing script" "$err" "npu-tune: cannot open 'missing.lua': No such file or directory"

# --- model: best tile per strategy ---
run 0 model --target ascend910 --shape 512x768x768 --format csv
header=$(printf '%s\n' "$out" | head -n 1)
same "model csv header" "$header" "strategy,m,n,k,double_buffer,cores,split,legal,load_volume_elems,store_elems,est_cycles,buffer_use_bytes,grid_m,grid_n,legal_configs,violations,micro,pack"
same "IS row" "$(printf '%s\n' "$out" | grep '^IS,' | cut -d, -f1-9)" "IS,32,32,768,0,1,M,1,9830400"
same "WS row" "$(printf '%s\n' "$out" | grep '^WS,' | cut -d, -f1-9)" "WS,32,32,768,0,1,M,1,10027008"
same "OS row" "$(printf '%s\n' "$out" | grep '^OS,' | cut -d, -f1-9)" "OS,256,256,128,0,1,M,1,2359296"
run 0 model --target ascend910 --shape 512x768x768
has "model text" "$out" "lowest load volume: OS 256x256x128"
# IS and WS cannot hold k = K = 3072 in L0A/L0B: reported, not an error.
run 0 model --target ascend910 --shape 512x768x3072 --format csv
same "no IS tile" "$(printf '%s\n' "$out" | grep '^IS,' | cut -d, -f1-8)" "IS,,,,0,1,M,0"
run 0 model --target ascend910 --shape 512x768x3072 --strategy OS
has "OS only" "$out" "lowest load volume: OS"

# --- model --tile: explain one config ---
run 0 model --target ascend910 --shape 512x768x768 --strategy OS --tile 256x256x128
has "legal tile" "$out" "legal: yes"
has "sigma" "$out" "load volume (Sigma): 2359296 elements"
run 0 model --target ascend910 --shape 512x768x768 --strategy OS --tile 256x256x128 --double-buffer on
has "db overflow" "$out" "legal: no"
has "db overflow L0A" "$out" "L0A overflows: A-tile 256x128 fp16 needs 131072 bytes (double-buffered: two copies), L0A has 65536"
run 0 model --target ascend910 --shape 512x768x768 --strategy OS --tile 256x256x128 --cores 4 --split M --format csv
same "split csv" "$(printf '%s\n' "$out" | tail -n 1 | cut -d, -f1-8)" "OS,256,256,128,0,4,M,0"
has "split reason" "$out" "split M over 4 cores leaves cores idle: only 2 M-tiles"
run 0 model --target ascend310 --shape 100x50x40 --tile 112x64x48 --strategy IS
has "tails pad" "$out" "legal: yes"

# --- model: usage errors ---
run 2 model --shape 512x768x768
same "no target" "$err" "npu-tune: model: --target is required (see 'npu-tune model --help')"
run 2 model --target ascend910 --shape 512x768
same "bad shape" "$err" "npu-tune: model: --shape '512x768' must be MxNxK, each 1 to 1048576 (see 'npu-tune model --help')"
run 2 model --target ascend999 --shape 512x768x768
same "unknown target" "$err" "npu-tune: model: unknown target 'ascend999' (known: ascend310, ascend910, ascend910b, host)"
run 2 model --target ascend910 --shape 16x16x16 --split Q
same "bad split" "$err" "npu-tune: model: --split 'Q' is not one of M, N, MN (see 'npu-tune model --help')"
run 2 model --target ascend910 --shape 16x16x16 --bogus
same "bad option" "$err" "npu-tune: model: unknown or incomplete option '--bogus' (see 'npu-tune model --help')"
run 2 model --target ascend910 --shape 16x16x16 --op conv
same "unknown op" "$err" "npu-tune: model: --op 'conv' is not one of matmul (see 'npu-tune model --help')"
# --op names the registry's op (matmul by default), whose shape text --shape reads
run 0 model --target ascend910 --shape 64x64x128 --batch 4
default_op=$out
run 0 model --op matmul --target ascend910 --shape '64x64x128 b4'
same "--op matmul, batch in the shape" "$out" "$default_op"
run 2 model --target ascend910 --shape '64x64x128 b0'
same "bad batch in the shape" "$err" "npu-tune: model: --shape '64x64x128 b0' must be MxNxK, each 1 to 1048576 (see 'npu-tune model --help')"

# --- a tuning run: examples/bert.lua with the model backend ---
mkdir -p "$work/examples"
cp "$src/examples/bert.lua" "$work/examples/"
run 0 examples/bert.lua
journal_header=$(head -n 1 "$work/results/bert.csv")
same "journal header" "$journal_header" "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,load_volume_elems,est_cycles,backend,status,measured,unit,micro,round,op,shape,node"
# the model search stops when the best's neighbours stop improving: within budget
rows=$(($(wc -l <"$work/results/bert.csv") - 1))
if [ "$rows" -ge 3 ] && [ "$rows" -le 96 ]; then ok; else bad "journal rows: $rows, expected 3..96"; fi
has "table signature" "$(head -n 1 "$work/results/bert-table.csv")" "# npu-tune table 5 version="
has "table target" "$(sed -n 2p "$work/results/bert-table.csv")" "# target ascend910 kind=npu cores=32 clock_mhz=1000 "
table_header=$(sed -n 3p "$work/results/bert-table.csv")
same "table header" "$table_header" "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,measured,unit,micro,verified,op,shape"
same "table rows verified" "$(tail -n +4 "$work/results/bert-table.csv" | cut -d, -f18 | sort -u)" "1"
same "table rows" "$(wc -l <"$work/results/bert-table.csv")" "6"
best=$(grep '^bert,512,768,768,' "$work/results/bert-table.csv" | cut -d, -f8)
same "best strategy of 512x768x768" "$best" "OS"
has "summary" "$out" "bert       512x768x768"
has "summary gap" "$out" "OS 128x192x160 db=0 cores=16 MN    0.00%"
same "no temp files" "$(ls "$work/results" | tr '\n' ' ')" "bert-table.csv bert.csv bert.csv.sig "
# a second run resumes: everything comes from the journal, nothing is re-measured
before=$(wc -l <"$work/results/bert.csv")
run 0 --quiet --format csv examples/bert.lua
same "resumed journal unchanged" "$(wc -l <"$work/results/bert.csv")" "$before"
same "summary csv header" "$(printf '%s\n' "$out" | head -n 1 | cut -d, -f1-11)" "problem,M,N,K,batch,dtype,legal,raw,measured,failed,resumed"
same "quiet" "$err" ""
# gen --table: exact entry, nearest legal shape, and the model's best
run 0 gen --table results/bert-table.csv --shape 512x768x768 -o k/t.npu
same "gen exact is silent" "$err" ""
run 0 sim k/t.npu --check
has "tuned kernel checks" "$out" "check: ok"
has "tuned kernel config" "$(sed -n 4p "$work/k/t.npu")" "config OS m=144 n=96 k=224"
run 0 gen --table results/bert-table.csv --shape 500x700x700 -o k/n.npu
same "gen nearest" "$err" "npu-tune: gen: 500x700x700 is not in results/bert-table.csv; using the entry for 512x768x768 (nearest legal shape): OS 144x96x224 double_buffer=0 cores=32 split=MN"
run 0 sim k/n.npu --check
has "fallback kernel checks" "$out" "check: ok"
run 0 gen --table results/bert-table.csv --shape 64x64x64 -o k/m.npu
has "gen model fallback" "$err" "npu-tune: gen: no entry of results/bert-table.csv is legal for 64x64x64 fp16 on ascend910; using the model's best: "
run 1 gen --table results/none.csv --shape 64x64x64
has "gen missing table" "$err" "npu-tune: gen: cannot open 'results/none.csv'"
# table export: a C header (compiled in tools.sh)
run 0 table export results/bert-table.csv -o k/bert.h

same "journal backend" "$(sed -n 2p "$work/results/bert.csv" | cut -d, -f17-18,20)" "sim,ok,cycles"

# --- a run from before ops (tests/cli/before-ops: journal without op, table format 2) ---
cp -r "$src/tests/cli/before-ops" "$work/"
old=$work/before-ops
run 0 gen --table before-ops/r-table.csv --shape '64x96x80 b3' -o k/old.npu
same "old table: exact entry" "$err" ""
has "old table: its config" "$(sed -n 4p "$work/k/old.npu")" "config IS m=64 n=96 k=80"
run 0 table export before-ops/r-table.csv -o k/old.h
has "old table: header names the op" "$(cat "$work/k/old.h")" '"IS", 64, 96, 80, 0, 1, "M", 3328.0, "cycles", 0, 0, 0, "matmul", "64x96x80 b3", 1},'
# its signature is this build's: every candidate resumes, nothing is measured again
run 0 --quiet --format csv before-ops/r.lua
same "old journal resumed" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f9,11)" "4,4
4,4"
same_file "old journal untouched" "$old/r.csv" "$src/tests/cli/before-ops/r.csv"
has "rewritten table: format 4" "$(head -n 1 "$old/r-table.csv")" "# npu-tune table 5 version="
same "rewritten table: rows of op matmul" "$(tail -n +4 "$old/r-table.csv" | cut -d, -f19)" "matmul
matmul"
same "rewritten table: same configs" "$(tail -n +4 "$old/r-table.csv" | cut -d, -f1-18)" \
    "$(tail -n +3 "$src/tests/cli/before-ops/r-table.csv")"
# a larger budget measures more, appended in the journal's own columns
sed -i 's/budget = 4/budget = 6/' "$old/r.lua"
run 0 --quiet before-ops/r.lua
same "old journal keeps its header" "$(head -n 1 "$old/r.csv")" "$(head -n 1 "$src/tests/cli/before-ops/r.csv")"
same "old journal: rows of 22 fields" "$(awk -F, '{ print NF }' "$old/r.csv" | sort -u)" "22"
if [ "$(wc -l <"$old/r.csv")" -gt 9 ]; then ok; else bad "old journal: nothing appended"; fi

# --- gen and sim: a kernel file, simulated and checked ---
run 0 gen --target ascend910 --shape 100x70x50 --strategy OS --tile 32x32x32 --double-buffer on --cores 2 --split M -o k/os.npu
same "gen writes nothing on stdout" "$out" ""
same "kernel header" "$(head -n 1 "$work/k/os.npu")" "npu-kernel 2"
has "kernel target" "$(sed -n 2p "$work/k/os.npu")" "target ascend910 kind=npu cores=32 clock_mhz=1000 "
run 0 sim k/os.npu --check --trace k/trace.json
has "sim cycles" "$out" "cycles: "
has "sim check" "$out" "check: ok, C equals the reference matmul"
has "trace written" "$(head -c 16 "$work/k/trace.json")" '{"traceEvents":[' # JSON: tools.sh
run 0 sim k/os.npu --format csv
same "sim csv header" "$(printf '%s\n' "$out" | head -n 1 | cut -d, -f1-4)" "cycles,instructions,status,busy_S"
run 0 gen --target ascend910 --shape 64x64x64 --strategy IS --tile 16x16x64
has "gen to stdout" "$out" "config IS m=16 n=16 k=64"
# a kernel with its first MTE2->MTE1 wait removed reads L1 before it is written
awk '/wait_flag MTE2 MTE1/ && !done { done = 1; next } { print }' "$work/k/os.npu" >"$work/k/broken.npu"
run 1 sim k/broken.npu --check
has "hazard caught" "$err" "npu-tune: k/broken.npu: core 0 #"
has "hazard named" "$err" "reads L1 written by MTE2"
printf 'npu-kernel 3\n' >"$work/k/v3.npu"
run 1 sim k/v3.npu
same "bad kernel" "$err" "npu-tune: k/v3.npu:1: unsupported format version 3"
run 1 sim k/none.npu
same "no kernel" "$err" "npu-tune: cannot open 'k/none.npu': No such file or directory"
run 2 sim
same "sim usage" "$err" "npu-tune: sim: a KERNEL file is required (see 'npu-tune sim --help')"
run 1 gen --target ascend910 --shape 512x768x768 --strategy OS --tile 256x256x128 --double-buffer on
same "gen illegal" "$err" "npu-tune: gen: illegal config: L0A overflows: A-tile 256x128 fp16 needs 131072 bytes (double-buffered: two copies), L0A has 65536"
run 2 gen --target ascend910 --shape 512x768x768 --strategy OS
same "gen needs tile" "$err" "npu-tune: gen: --tile is required (see 'npu-tune gen --help')"

# --- an impossible space: clear error, nothing written ---
cat >"$work/impossible.lua" <<'EOF'
target "ascend910"
matmul { name = "big", shapes = { {512, 768, 3072} } }
space {
  strategy = { "IS" },
}
tune { results = "out/impossible.csv", table = "out/impossible-table.csv" }
EOF
run 1 impossible.lua
same "impossible space" "$err" "npu-tune: impossible.lua:3: space: no legal config for big 512x768x3072 on ascend910 (294912 candidates, all illegal); see npu-tune model --target ascend910 --shape 512x768x3072"
absent "output of an impossible space" "$work/out"

# --- an NPU's fp32 cube rate: the model ranks fp32, no NPU kernel takes it ---
cat >"$work/wide.lua" <<'EOF'
target { base = "ascend910", name = "wide", macs = { fp32 = 1024 } }
matmul { name = "p", dtype = "fp32", shapes = { {64, 64, 64} } }
tune { budget = 2, results = "out/wide.csv", table = "out/wide-table.csv" }
EOF
run 1 wide.lua
same "fp32 on an npu" "$err" "npu-tune: wide.lua:2: matmul: dtype 'fp32' runs on target 'wide' under measure = \"model\" only: npu kernels take fp16, int8"
absent "output of fp32 on an npu" "$work/out"
sed -i 's/budget = 2,/budget = 2, measure = "model",/' "$work/wide.lua"
run 0 --quiet wide.lua
rm -rf "$work/out"

# --- a constraint that rejects everything ---
cat >"$work/picky.lua" <<'EOF'
target "ascend910"
matmul { name = "small", shapes = { {64, 64, 64} } }
space {
  constraint = function(c) return c.m > 1000 end,
}
tune { results = "out/picky.csv", table = "out/picky-table.csv" }
EOF
run 1 picky.lua
same "impossible constraint" "$err" "npu-tune: picky.lua:4: constraint: rejects all 96 legal configs of small 64x64x64"

# --- a constraint that keeps some ---
cat >"$work/square.lua" <<'EOF'
target { base = "ascend910", cores = 4 }
matmul { name = "sq", shapes = { {256, 256, 256} } }
space {
  cores = { 1, 2, 4 }, split = { "M", "N", "MN" }, double_buffer = { false, true },
  constraint = function(c) return c.m == c.n end,
}
tune { budget = 5, results = "out/sq.csv", table = "out/sq-table.csv" }
EOF
run 0 square.lua
same "constrained rows" "$(wc -l <"$work/out/sq.csv")" "6"
same "constraint held" "$(tail -n +2 "$work/out/sq.csv" | awk -F, '$9 != $10' | wc -l)" "0"

# --- an output that is an input is refused before anything is written ---
mkdir -p "$work/same"
same_script() { # NAME RESULTS TABLE: a model run of one small shape
    printf 'target "ascend910"\nmatmul { name = "s", shapes = { {64, 64, 64} } }\ntune { measure = "model", budget = 2, results = "%s", table = "%s" }\n' "$2" "$3" >"$work/same/$1"
}
same_script t.lua same/out/t.csv same/t.lua
cp "$work/same/t.lua" "$work/same/t.orig"
run 1 same/t.lua
same "table is the script" "$err" "npu-tune: table 'same/t.lua' is the script same/t.lua; choose another path"
same_file "table is the script: the script" "$work/same/t.lua" "$work/same/t.orig"
absent "table is the script: its output" "$work/same/out"
ln -s t.lua "$work/same/link.lua"
same_script l.lua same/l.csv same/link.lua
cp "$work/same/t.orig" "$work/same/t.lua"
same_script t.lua same/l.csv same/link.lua
run 1 same/t.lua
same "table is a link to the script" "$err" "npu-tune: table 'same/link.lua' is the script same/t.lua; choose another path"
same_script j.lua same/j.csv same/j.csv
run 1 same/j.lua
same "table is the journal" "$err" "npu-tune: table 'same/j.csv' is the results journal same/j.csv; choose another path"
same_script n.lua same/a/../n.csv same/n.csv
run 1 same/n.lua
same "not yet existing, same path" "$err" "npu-tune: table 'same/n.csv' is the results journal same/a/../n.csv; choose another path"
same_script g.lua same/g.csv same/g.csv.sig
run 1 same/g.lua
same "table is the sidecar" "$err" "npu-tune: table 'same/g.csv.sig' is the journal's sidecar same/g.csv.sig; choose another path"
same_script k.lua same/k.csv same/k.csv.kernels
run 1 same/k.lua
same "table is the kernel directory" "$err" "npu-tune: table 'same/k.csv.kernels' is the kernel directory same/k.csv.kernels; choose another path"
same "nothing written" "$(ls "$work/same" | tr '\n' ' ')" "g.lua j.lua k.lua l.lua link.lua n.lua t.lua t.orig "
cp "$work/results/bert-table.csv" "$work/same/T.csv"
cp "$work/same/T.csv" "$work/same/T.orig"
run 1 table export same/T.csv -o same/T.csv
same "export over its table" "$err" "npu-tune: header 'same/T.csv' is the table same/T.csv; choose another path"
run 1 gen --table same/T.csv --shape 512x768x768 -o same/../same/T.csv
same "gen over its table" "$err" "npu-tune: gen: output 'same/../same/T.csv' is the table same/T.csv; choose another path"
same_file "the table" "$work/same/T.csv" "$work/same/T.orig"
cp "$work/k/os.npu" "$work/same/K.npu"
cp "$work/same/K.npu" "$work/same/K.orig"
run 1 sim same/K.npu --trace same/K.npu
same "trace over its kernel" "$err" "npu-tune: trace 'same/K.npu' is the kernel same/K.npu; choose another path"
same_file "the kernel" "$work/same/K.npu" "$work/same/K.orig"
run 1 plot results/bert.csv -o results/bert.csv
same "plot over its journal" "$err" "npu-tune: plot: plot directory 'results/bert.csv' is the results journal results/bert.csv; choose another path"

# --- journal rows that are not this run's are refused, nothing resumed ---
mkdir -p "$work/rows"
printf 'target "ascend910"\nmatmul { name = "s", shapes = { {64, 64, 64} } }\ntune { measure = "model", budget = 3, results = "rows/r.csv", table = "rows/r-table.csv" }\n' >"$work/rows/r.lua"
run 0 --quiet rows/r.lua
cp "$work/rows/r.csv" "$work/rows/r.orig"
foreign_row() { # WHAT SED-SCRIPT MESSAGE: the journal edited so is refused, left as it is
    cp "$work/rows/r.orig" "$work/rows/r.csv"
    sed -i "$2" "$work/rows/r.csv"
    cp "$work/rows/r.csv" "$work/rows/r.edited"
    run 1 --quiet rows/r.lua
    same "row of another $1" "$err" "npu-tune: rows/r.csv:$3"
    same_file "the refused journal" "$work/rows/r.csv" "$work/rows/r.edited"
}
foreign_row target '3s/,ascend910,/,ascend310,/' "3: row is for target ascend310, this run is for ascend910"
foreign_row backend '2s/,model,/,sim,/' "2: row was measured with sim, this run measures with model"
foreign_row unit '4s/,cycles,/,s,/' "4: row is in s, line 2 is in cycles; a journal holds one unit"
foreign_row dtype '2s/^s,64,64,64,1,fp16,/s,64,64,64,1,int8,/' "2: row is for s 64x64x64 in int8, this run tunes it in fp16"
foreign_row problem '4{p;s/^s,64,/t,64,/}' "5: row is for t 64x64x64, which this run does not tune"
cp "$work/rows/r.orig" "$work/rows/r.csv"
tr -d '\r' <"$work/rows/r.csv.sig" | sed 's/$/\r/' >"$work/rows/sig.crlf"
mv "$work/rows/sig.crlf" "$work/rows/r.csv.sig"
run 0 --quiet rows/r.lua
same "a sidecar with CRLF line ends resumes" "$err" ""

# --- a journal that is not a regular file: written through, no sidecar, no lock ---
mkdir -p "$work/dev"
ln -s /dev/null "$work/dev/null.csv"
printf 'target "ascend910"\nmatmul { name = "s", shapes = { {64, 64, 64} } }\ntune { measure = "model", budget = 2, results = "dev/null.csv", table = "dev/null-table.csv" }\n' >"$work/dev/null.lua"
run 0 --quiet dev/null.lua
run 0 --quiet dev/null.lua
same "nothing beside /dev/null" "$(ls "$work/dev" | tr '\n' ' ')" "null-table.csv null.csv null.lua "
same "table of a /dev/null journal" "$(wc -l <"$work/dev/null-table.csv")" "4"

# --- two runs on one journal: the second waits (--wait) or says who holds it ---
mkdir -p "$work/lock"
cat >"$work/lock/slow.sh" <<'EOF'
#!/bin/sh
# a board that says it started, then answers once the test lets it
touch "$1.started"
while [ ! -e "$1.go" ]; do sleep 0.05; done
echo "100 cycles"
EOF
printf 'target "ascend910"\nmatmul { name = "s", shapes = { {64, 64, 64} } }\ntune { measure = { command = "sh lock/slow.sh lock/b {kernel}" }, budget = 3, verify = false, results = "lock/r.csv", table = "lock/r-table.csv" }\n' >"$work/lock/r.lua"
(cd "$work" && exec "$bin" --quiet lock/r.lua >"$work/lock/a.out" 2>"$work/lock/a.err") &
first=$!
while [ ! -e "$work/lock/b.started" ] && kill -0 "$first" 2>/dev/null; do sleep 0.05; done
run 1 --quiet lock/r.lua
same "second run on a journal" "$err" "npu-tune: lock/r.csv is in use by another npu-tune run (pid $first); wait for it or pass --wait"
(cd "$work" && exec "$bin" --wait lock/r.lua >"$work/lock/c.out" 2>"$work/lock/c.err") &
second=$!
while ! grep -q waiting "$work/lock/c.err" 2>/dev/null && kill -0 "$second" 2>/dev/null; do sleep 0.05; done
same "the waiting run says so" "$(cat "$work/lock/c.err")" "npu-tune: lock/r.csv is in use by another npu-tune run (pid $first); waiting for it"
touch "$work/lock/b.go"
wait "$first"
same "first run" "$?" "0"
rows_after_first=$(wc -l <"$work/lock/r.csv")
cp "$work/lock/r-table.csv" "$work/lock/first-table.csv"
wait "$second"
same "waiting run" "$?" "0"
same "the waiting run measured nothing again" "$(wc -l <"$work/lock/r.csv")" "$rows_after_first"
same_file "the waiting run's table" "$work/lock/r-table.csv" "$work/lock/first-table.csv"

# --- the unit of a resumed board run comes from its journal ---
mkdir -p "$work/unit"
printf 'target "ascend910"\nmatmul { name = "u", shapes = { {64, 64, 64}, {32, 32, 32} } }\ntune { measure = { command = "sh %s $(cat unit/mode) {kernel}" }, budget = 2, verify = false, results = "unit/r.csv", table = "unit/r-table.csv" }\n' "$src/tests/board.sh" >"$work/unit/r.lua"
echo cycles >"$work/unit/mode"
run 0 --quiet unit/r.lua
has "board run in cycles" "$out" "measured in cycles"
run 0 --quiet unit/r.lua
has "resumed run in cycles" "$out" "measured in cycles"
same "resumed table in cycles" "$(tail -n +4 "$work/unit/r-table.csv" | cut -d, -f16 | sort -u)" "cycles"
# the board now prints microseconds: new answers are refused (mixed units), the table stays in cycles
echo bytes >"$work/unit/mode"
sed -i 's/budget = 2/budget = 4/' "$work/unit/r.lua"
run 0 --quiet unit/r.lua
same "answers in another unit refused" "$(grep ',command,crash,,' "$work/unit/r.csv" | grep -c ',search,')" "4"
same "finalists in another unit refused" "$(grep ',command,crash,,' "$work/unit/r.csv" | grep -c ',final,')" "4"
same "table stays in cycles" "$(tail -n +4 "$work/unit/r-table.csv" | cut -d, -f16 | sort -u)" "cycles"

# --- a write error on standard output is an error of every command ---
full() { # CMD ARGS...: npu-tune ARGS >/dev/full must exit 1 with one line
    (cd "$work" && "$bin" "$@" >/dev/full 2>"$work/.err")
    local rc=$?
    same "$* >/dev/full: exit" "$rc" "1"
    same "$* >/dev/full: message" "$(cat "$work/.err")" "npu-tune: cannot write standard output: No space left on device"
}
full --help
full --version
full model --help
full model --target ascend910 --shape 512x768x768
full model --target ascend910 --shape 512x768x768 --format csv
full model --target ascend910 --shape 512x768x768 --strategy OS --tile 256x256x128
full sim k/os.npu
full sim k/os.npu --format csv
full table --help
full gen --target ascend910 --shape 64x64x64 --strategy IS --tile 16x16x64
full --quiet examples/bert.lua
full --quiet --format csv examples/bert.lua

# --- an impossible explicit request names the limit ---
run 1 model --target ascend910 --shape 64x64x64 --cores 99999
same "too many cores" "$err" "npu-tune: model: no legal tile for 64x64x64 fp16 on ascend910 with 99999 cores, split M: the smallest, OS 16x16x16, is not legal: cores = 99999, but target 'ascend910' has 32; split M over 99999 cores leaves cores idle: only 4 M-tiles"
same "nothing on stdout" "$out" ""
# --- hostile scripts: names, integer edges, late declarations, limits, --safe ---
M='matmul { name = "x", shapes = { {64, 64, 64} } }'
printf 'target "ascend910"\n%s\ntune { measure = "model", search = "genetic", budget = 4, results = "names/g.csv", table = "names/g-table.csv" }\n' "$M" >"$work/genetic.lua"
run 0 --quiet genetic.lua
has "genetic search" "$out" "measured in cycles"
printf 'target "ascend910"\n%s\nspace { m = range(math.mininteger, math.maxinteger) }\n' "$M" >"$work/wide.lua"
run 1 wide.lua
same "range at the integer limits" "$err" "npu-tune: wide.lua:3: range: too many items (more than 1048576)"
cat >"$work/late.lua" <<'EOF'
target "ascend910"
matmul { name = "small", shapes = { {64, 64, 64} } }
space {
  constraint = function(c)
    matmul { name = "more", shapes = { {16, 16, 16} } }
    return true
  end,
}
tune { measure = "model", results = "late/late.csv", table = "late/late-table.csv" }
EOF
run 1 late.lua
same "late declaration" "$err" "npu-tune: late.lua:5: matmul: declarations are only allowed while the script runs; the constraint (late.lua:4) is called during tuning"
absent "output of a late declaration" "$work/late"
printf 'target "ascend910"\n%s\ntune { script_timeout = 0.2 }\nwhile true do end\n' "$M" >"$work/spin.lua"
run 1 spin.lua
same "endless script" "$err" "npu-tune: spin.lua:4: the script ran for more than 0.2 s (tune { script_timeout = ... } raises the limit)"
printf 'target "ascend910"\n%s\nspace { constraint = function(c)\n  while true do end\nend }\ntune { measure = "model", constraint_timeout = 0.2, results = "late/spin.csv" }\n' "$M" >"$work/spinc.lua"
run 1 spinc.lua
same "endless constraint" "$err" "npu-tune: spinc.lua:4: the constraint ran for more than 0.2 s in all (tune { constraint_timeout = ... } raises the limit)"
printf 'target "ascend910"\n%s\nlocal s = string.rep("x", (1 << 31) - 1)\n' "$M" >"$work/mem.lua"
run 1 mem.lua
same "script memory" "$err" "npu-tune: mem.lua:3: not enough memory (a script may use at most 1 GiB)"
printf 'target "ascend910"\n%s\nerror(nil)\n' "$M" >"$work/nil.lua"
run 1 nil.lua
same "error(nil)" "$(printf '%s\n' "$err" | head -n 1)" "npu-tune: nil.lua:3: (error object is a nil value)"
printf 'target "ascend910"\n%s\nlocal f = assert(io.open("io.lua"))\nf:close()\ntune { measure = "model", results = "late/io.csv", table = "late/io-table.csv" }\n' "$M" >"$work/io.lua"
run 0 io.lua
run 1 --safe io.lua
same "--safe io" "$err" "npu-tune: io.lua:3: 'io' is not available with --safe (scripts get only the base, string, table and math libraries)"
printf 'target "ascend910"\n%s\ntune { measure = { command = "sh board.sh {kernel}" } }\n' "$M" >"$work/cmd.lua"
run 1 --safe cmd.lua
same "--safe command" "$err" "npu-tune: cmd.lua:3: tune: measure {command = ...} runs a shell command: --safe forbids it"
run 0 --help
has "help --safe" "$out" "--safe"

finish
