#!/usr/bin/env bash
# figures.sh — kernel files carry their target's figures: a run on a script-derived
# target, measured by a board that runs `npu-tune sim` on each kernel file, leaves
# kernels that sim runs in a directory without the script, to the run's cycles; files
# of the old format still run on the built-in target of their name.
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
done

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
