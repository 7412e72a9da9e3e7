#!/usr/bin/env bash
# cli.sh — the npu-tune command line as a user meets it: exit codes, exact
# one-line errors, CSV headers, and a full run of examples/bert.lua.
# Usage: cli.sh PATH/TO/npu-tune SOURCE_DIR
set -u
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# run CODE ARGS...: runs npu-tune in $work, checks the exit code; leaves
# stdout in $out and stderr in $err.
run() {
    local want=$1
    shift
    (cd "$work" && "$bin" "$@" >"$work/.out" 2>"$work/.err")
    local got=$?
    out=$(cat "$work/.out")
    err=$(cat "$work/.err")
    if [ "$got" -eq "$want" ]; then ok; else bad "npu-tune $* exited $got, expected $want; stderr: $err"; fi
}

same() { # same WHAT ACTUAL EXPECTED
    if [ "$2" == "$3" ]; then ok; else bad "$1: got '$2', expected '$3'"; fi
}

has() { # has WHAT HAYSTACK NEEDLE
    case "$2" in *"$3"*) ok ;; *) bad "$1: '$3' not in: $2" ;; esac
}

# --- usage and dispatch ---
run 2
run 0 --help
has "help" "$out" "npu-tune model --target T"
run 0 --version
has "version" "$out" "npu-tune "
run 2 frobnicate
same "unknown command" "$err" "npu-tune: unknown command 'frobnicate' (commands: model, gen, sim; or give a SCRIPT.lua)"
run 2 --frob
same "unknown option" "$err" "npu-tune: unknown option '--frob'"
run 1 missing.lua
same "missing script" "$err" "npu-tune: cannot open 'missing.lua': No such file or directory"

# --- model: best tile per strategy (the thesis's table) ---
run 0 model --target ascend910 --shape 512x768x768 --format csv
header=$(printf '%s\n' "$out" | head -n 1)
same "model csv header" "$header" "strategy,m,n,k,double_buffer,cores,split,legal,load_volume_elems,store_elems,est_cycles,buffer_use_bytes,grid_m,grid_n,legal_configs,violations"
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
same "no target" "$(printf '%s\n' "$err" | head -n 1)" "npu-tune: model: --target is required"
run 2 model --target ascend910 --shape 512x768
same "bad shape" "$(printf '%s\n' "$err" | head -n 1)" "npu-tune: model: --shape '512x768' must be MxNxK"
run 2 model --target ascend999 --shape 512x768x768
same "unknown target" "$err" "npu-tune: model: unknown target 'ascend999' (known: ascend310, ascend910, ascend910b)"
run 2 model --target ascend910 --shape 16x16x16 --split Q
same "bad split" "$(printf '%s\n' "$err" | head -n 1)" "npu-tune: model: --split 'Q' is not one of M, N, MN"
run 2 model --target ascend910 --shape 16x16x16 --bogus
same "bad option" "$(printf '%s\n' "$err" | head -n 1)" "npu-tune: model: unknown or incomplete option '--bogus'"

# --- a tuning run: examples/bert.lua with the model backend ---
mkdir -p "$work/examples"
cp "$src/examples/bert.lua" "$work/examples/"
run 0 examples/bert.lua
journal_header=$(head -n 1 "$work/results/bert.csv")
same "journal header" "$journal_header" "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,load_volume_elems,est_cycles,backend,status,measured,unit"
same "journal rows" "$(wc -l <"$work/results/bert.csv")" "97"
table_header=$(head -n 1 "$work/results/bert-table.csv")
same "table header" "$table_header" "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,measured,unit"
same "table rows" "$(wc -l <"$work/results/bert-table.csv")" "4"
best=$(grep '^bert,512,768,768,' "$work/results/bert-table.csv" | cut -d, -f8)
same "best strategy of 512x768x768" "$best" "OS"
has "summary" "$out" "bert         512x768x768"
same "no temp files" "$(ls "$work/results" | tr '\n' ' ')" "bert-table.csv bert.csv "

same "journal backend" "$(sed -n 2p "$work/results/bert.csv" | cut -d, -f17-18,20)" "sim,ok,cycles"

# --- gen and sim: a kernel file, simulated and checked ---
run 0 gen --target ascend910 --shape 100x70x50 --strategy OS --tile 32x32x32 --double-buffer on --cores 2 --split M -o k/os.npu
same "gen writes nothing on stdout" "$out" ""
same "kernel header" "$(head -n 1 "$work/k/os.npu")" "npu-kernel 1"
run 0 sim k/os.npu --check --trace k/trace.json
has "sim cycles" "$out" "cycles: "
has "sim check" "$out" "check: ok, C equals the reference matmul"
if command -v python3 >/dev/null; then
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["traceEvents"]' "$work/k/trace.json"; then ok; else bad "trace is not valid JSON"; fi
fi
run 0 sim k/os.npu --format csv
same "sim csv header" "$(printf '%s\n' "$out" | head -n 1 | cut -d, -f1-4)" "cycles,instructions,status,busy_S"
run 0 gen --target ascend910 --shape 64x64x64 --strategy IS --tile 16x16x64
has "gen to stdout" "$out" "config IS m=16 n=16 k=64"
# a kernel with its first MTE2->MTE1 wait removed reads L1 before it is written
awk '/wait_flag MTE2 MTE1/ && !done { done = 1; next } { print }' "$work/k/os.npu" >"$work/k/broken.npu"
run 1 sim k/broken.npu --check
has "hazard caught" "$err" "npu-tune: k/broken.npu: core 0 #"
has "hazard named" "$err" "reads L1 written by MTE2"
printf 'npu-kernel 2\n' >"$work/k/v2.npu"
run 1 sim k/v2.npu
same "bad kernel" "$err" "npu-tune: k/v2.npu:1: unsupported format version 2"
run 1 sim k/none.npu
same "no kernel" "$err" "npu-tune: cannot open 'k/none.npu': No such file or directory"
run 2 sim
same "sim usage" "$(printf '%s\n' "$err" | head -n 1)" "npu-tune: sim: a KERNEL file is required"
run 1 gen --target ascend910 --shape 512x768x768 --strategy OS --tile 256x256x128 --double-buffer on
same "gen illegal" "$err" "npu-tune: gen: illegal config: L0A overflows: A-tile 256x128 fp16 needs 131072 bytes (double-buffered: two copies), L0A has 65536"
run 2 gen --target ascend910 --shape 512x768x768 --strategy OS
same "gen needs tile" "$(printf '%s\n' "$err" | head -n 1)" "npu-tune: gen: --tile is required"

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
if [ -e "$work/out" ]; then bad "impossible space wrote output"; else ok; fi

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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
