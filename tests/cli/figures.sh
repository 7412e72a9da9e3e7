#!/usr/bin/env bash
# figures.sh — kernel files and tuning tables carry their target's figures: a run on a
# script-derived target, measured by a board that runs `npu-tune sim` on each kernel
# file, leaves kernels that sim runs and a table that `gen --table` turns into the same
# kernels, in a directory without the script, to the run's cycles; likewise a derived
# CPU target's table; files of the old formats still work through the built-in target
# of their name; hostile figures get one PATH:LINE line.
# Usage: figures.sh PATH/TO/npu-tune SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/../lib.sh"
export NPU_TUNE_BIN=$bin # for board.sh

# in_fresh CODE ARGS...: run, in a directory that holds no script and no journal
mkdir -p "$work/fresh"
in_fresh() { local work=$work/fresh; run "$@"; }

# --- a run on a derived target; the board keeps a copy of every kernel it runs ---
mkdir -p "$work/kept"
cat >"$work/derived.lua" <<EOF
target { base = "ascend910", cores = 4, l1 = 512 * KiB, gm_l1 = { bandwidth = 32 },
         gm_bandwidth = 600 }
matmul { name = "mm", shapes = { {256, 256, 256}, {100, 70, 50} } }
space { cores = { 1, 2 }, split = { "M", "N" } }
tune { measure = { command = "cp {kernel} kept/ && sh '$src/tests/board.sh' sim {kernel} {output}" },
       budget = 6 }
EOF
run 0 --quiet derived.lua
table=$work/results/derived-table.csv
for shape in 256,256,256 100,70,50; do
    row=$(grep "^mm,$shape," "$table")
    IFS=, read -r _ M N K _ _ target st m n k db c split measured _ <<<"$row"
    same "$shape: the table's target" "$target" "ascend910-custom"
    # the winner's kernel as the board ran it: sim runs it on its own figures, anywhere
    set -- "$work"/kept/mm_${M}x${N}x${K}_${st}_${m}x${n}x${k}_db${db}_c${c}_${split}_*.npu
    if [ -f "$1" ]; then ok; else bad "$shape: no kept kernel of $st ${m}x${n}x${k} db$db c$c $split"; continue; fi
    cp "$1" "$work/fresh/won.npu"
    same "$shape: kernel header" "$(head -n 1 "$work/fresh/won.npu")" "npu-kernel 2"
    has "$shape: kernel target" "$(sed -n 2p "$work/fresh/won.npu")" \
        "target ascend910-custom kind=npu cores=4 clock_mhz=1000 "
    in_fresh 0 sim won.npu --format csv
    same "$shape: cycles of the run" "$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f1)" "$measured"
    in_fresh 0 sim won.npu --check
    has "$shape: on its target" "$out" "on ascend910-custom, "
    has "$shape: checked" "$out" "check: ok"
    # the table alone gives the same kernel (but for the problem's name) and cycles
    cp "$table" "$work/fresh/t.csv"
    in_fresh 0 gen --table t.csv --shape "${M}x${N}x${K}" -o gen.npu
    same "$shape: gen --table is exact" "$err" ""
    same "$shape: the run's kernel" "$(grep -v '^problem ' "$work/fresh/gen.npu" | cksum)" \
        "$(grep -v '^problem ' "$work/fresh/won.npu" | cksum)"
    in_fresh 0 sim gen.npu --format csv
    same "$shape: cycles of the table's kernel" "$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f1)" "$measured"
done
same "table format" "$(head -n 1 "$table" | cut -d' ' -f1-4)" "# npu-tune table 5"
has "table target" "$(sed -n 2p "$table")" "# target ascend910-custom kind=npu cores=4 clock_mhz=1000 "
has "table target l1" "$(sed -n 2p "$table")" " l1=524288 "
has "table target bandwidth" "$(sed -n 2p "$table")" " gm_l1.bandwidth=32 gm_l1.latency=200 "
in_fresh 0 table export t.csv -o t.h
has "header figures" "$(cat "$work/fresh/t.h")" " * Its figures: kind=npu cores=4 clock_mhz=1000 "
# a nearby shape: the nearest legal entry, judged on the table's figures
in_fresh 0 gen --table t.csv --shape 250x250x250 -o near.npu
has "nearest entry" "$err" "npu-tune: gen: 250x250x250 is not in t.csv; using the entry for 256x256x256 (nearest legal shape): "
has "nearest on its target" "$(sed -n 2p "$work/fresh/near.npu")" "target ascend910-custom kind=npu cores=4 "
in_fresh 0 sim near.npu --check
has "nearest kernel checks" "$out" "check: ok"

# --- a table never holds two targets under one name ---
# a derived target may take a built-in's name: its table says which figures it means
sed 's/ascend910-custom/ascend910/g' "$work/fresh/t.csv" >"$work/fresh/named.csv"
in_fresh 1 gen --table named.csv --target ascend910 --shape 256x256x256
same "built-in name, other figures" "$err" "npu-tune: gen: named.csv: its target 'ascend910' is not the built-in one (field 'cores' is 4, not 32); leave out --target"
in_fresh 0 gen --table named.csv --shape 256x256x256 -o named.npu
has "the table's figures" "$(sed -n 2p "$work/fresh/named.npu")" "target ascend910 kind=npu cores=4 "
sed -n 2p "$work/fresh/t.csv" >"$work/line2"
sed '2r '"$work/line2" "$work/fresh/t.csv" >"$work/fresh/twice.csv"
in_fresh 1 gen --table twice.csv --shape 256x256x256
same "described twice" "$err" "npu-tune: gen: twice.csv:3: target 'ascend910-custom' is described twice (first at line 2)"
sed '2s/ cores=4 / cores=8 /' "$work/fresh/twice.csv" >"$work/fresh/twice2.csv"
in_fresh 1 table export twice2.csv -o x.h
same "described twice, differently" "$err" "npu-tune: twice2.csv:3: target 'ascend910-custom' is described twice (first at line 2)"
absent "no header of a bad table" "$work/fresh/x.h"
# hostile figures in a table: one line naming the file and the line
for edit in 's/ cores=4 / cores=4.5 /' 's/ events=8/ events=8 events=8/' 's/ ub=262144 / ubb=262144 /' \
            's/ l1=524288 / l1=99999999999999999999 /' 's/ clock_mhz=1000 / clock_mhz=1e999 /'; do
    sed "2$edit" "$work/fresh/t.csv" >"$work/fresh/bad.csv"
    in_fresh 1 gen --table bad.csv --shape 256x256x256
    has "bad table ($edit)" "$err" "npu-tune: gen: bad.csv:2: target 'ascend910-custom': "
done
same "bad figure in a table" "$err" "npu-tune: gen: bad.csv:2: target 'ascend910-custom': field 'clock_mhz' must be a finite number, not '1e999'"

# --- tables of format 2 and 1 name a built-in target (and have no op column) ---
old2=(-e '1s/^# npu-tune table 5 /# npu-tune table 2 /' -e '2d' -e '3s/,op,shape$//' -e 's/,matmul,[^,]*$//')
sed "${old2[@]}" "$work/fresh/named.csv" >"$work/fresh/old.csv"
in_fresh 0 gen --table old.csv --shape 256x256x256 -o old.npu
has "format 2 on the built-in" "$(sed -n 2p "$work/fresh/old.npu")" "target ascend910 kind=npu cores=32 "
sed "${old2[@]}" -e '1s/^# npu-tune table 2 /# npu-tune table 1 /' -e 's/,[01]$//' \
    -e '3s/,verified$//' "$work/fresh/named.csv" >"$work/fresh/old1.csv"
in_fresh 0 gen --table old1.csv --shape 256x256x256 -o old1.npu
same "format 1 too" "$(cksum <"$work/fresh/old1.npu")" "$(cksum <"$work/fresh/old.npu")"
in_fresh 0 table export old.csv -o old.h
same "no figures of a format 2 table" "$(grep -c 'Its figures' "$work/fresh/old.h")" "0"
sed "${old2[@]}" "$work/fresh/t.csv" >"$work/fresh/lost.csv"
in_fresh 1 gen --table lost.csv --shape 256x256x256
same "format 2 of an unknown name" "$err" "npu-tune: gen: lost.csv: unknown target 'ascend910-custom' (known: ascend310, ascend910, ascend910b, host)"

# --- a derived CPU target: its table makes its kernel without the script ---
cat >"$work/cpu.lua" <<'EOF'
target { base = "host", l2 = 1 * MiB, cores = 1 }
matmul { name = "s", shapes = { {100, 37, 50} } }
tune { measure = "model", budget = 4 }
EOF
run 0 --quiet cpu.lua
has "cpu table target" "$(sed -n 2p "$work/results/cpu-table.csv")" "# target host-custom kind=cpu cores=1 "
has "cpu table l2" "$(sed -n 2p "$work/results/cpu-table.csv")" " l2=1048576 "
cp "$work/results/cpu-table.csv" "$work/fresh/c.csv"
IFS=, read -r _ _ _ _ _ _ _ st m n k db c split _ _ micro _ <<<"$(sed -n 4p "$work/fresh/c.csv")"
in_fresh 0 gen --table c.csv --shape 100x37x50 -o c.c
same "cpu gen --table is exact" "$err" ""
has "cpu kernel config" "$(head -n 5 "$work/fresh/c.c")" "strategy $st "
has "cpu kernel blocks" "$(head -n 5 "$work/fresh/c.c")" "m = $m, n = $n, k = $k (cache blocks mc x nc x kc), double_buffer = $db,"
has "cpu kernel micro-tile" "$(head -n 5 "$work/fresh/c.c")" "micro-tile: ${micro%x*} x ${micro#*x} "

# --- kernels of format 1 name a built-in target; format 2 describes its own ---
run 0 sim "$src/tests/kernels/two_core.npu" --check
has "format 1 on ascend910" "$out" "on ascend910, 64x32x32 fp16"
has "format 1 checked" "$out" "check: ok"
run 0 sim "$src/tests/kernels/figures.npu" --check
has "format 2 on its target" "$out" "on tiny-npu, 64x32x32 fp16"
has "format 2 at its clock" "$out" "MHz"
has "format 2 checked" "$out" "check: ok"
sed 's/^target ascend910$/target mynpu/' "$src/tests/kernels/two_core.npu" >"$work/old.npu"
run 1 sim old.npu
same "format 1, unknown name" "$err" "npu-tune: old.npu: unknown target 'mynpu' (known: ascend310, ascend910, ascend910b, host)"
# hostile figures: one line naming the file and the line
sed '4s/ cores=2 / cores=lots /' "$src/tests/kernels/figures.npu" >"$work/bad.npu"
run 1 sim bad.npu
same "bad figure" "$err" "npu-tune: bad.npu:4: target 'tiny-npu': field 'cores' must be an integer from -2147483647 to 2147483647, not 'lots'"
sed 's/ events=4/ events=4 events=8/' "$src/tests/kernels/figures.npu" >"$work/bad.npu"
run 1 sim bad.npu
same "duplicate figure" "$err" "npu-tune: bad.npu:4: target 'tiny-npu': field 'events' given twice"
sed 's/ events=4/ event=4/' "$src/tests/kernels/figures.npu" >"$work/bad.npu"
run 1 sim bad.npu
same "unknown figure" "$err" "npu-tune: bad.npu:4: target 'tiny-npu': unknown field 'event'"
sed 's/ l1=8192 / l1=9999999999999999999999 /' "$src/tests/kernels/figures.npu" >"$work/bad.npu"
run 1 sim bad.npu
same "huge figure" "$err" "npu-tune: bad.npu:4: target 'tiny-npu': field 'l1' must be a 64-bit integer, not '9999999999999999999999'"
# the figures bound the kernel: a target with fewer cores than the kernel's is refused
sed '4s/ cores=2 / cores=1 /' "$src/tests/kernels/figures.npu" >"$work/small.npu"
run 1 sim small.npu
same "fewer cores" "$err" "npu-tune: small.npu: the kernel has 2 cores; target 'tiny-npu' has 1"

finish
