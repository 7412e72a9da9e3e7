#!/usr/bin/env bash
# tools.sh — what npu-tune writes for other tools, read by them: the C
# header of `table export` compiled with cc and asked (part "header"), the
# trace of `sim --trace` loaded as JSON by python3 (part "trace"); exit 77 where
# the tool is missing. Usage: tools.sh PATH/TO/npu-tune header|trace
set -u
bin=$1
. "$(dirname "$0")/../lib.sh"

case ${2:-} in
header)
    command -v cc >/dev/null 2>&1 || skip "no cc to compile the exported header"
    cat >"$work/t.lua" <<'LUA'
target "ascend910"
matmul { name = "t", shapes = { {512, 768, 768}, {64, 64, 64} } }
tune { measure = "model", budget = 4, results = "out/t.csv", table = "out/t-table.csv" }
LUA
    run 0 --quiet t.lua
    run 0 table export out/t-table.csv -o out/t.h
    m=$(grep '^t,512,768,768,' "$work/out/t-table.csv" | cut -d, -f9)
    printf '#include "t.h"\nint main(void) { return npu_tune_lookup(512, 768, 768, 1, "fp16")->m == %s ? 0 : 1; }\n' \
        "$m" >"$work/out/use.c"
    if cc -std=c11 -Wall -Wextra -Werror -o "$work/out/use" "$work/out/use.c" && "$work/out/use"; then ok; else
        bad "the exported header does not compile or finds another entry than m = $m"
    fi
    ;;
trace)
    command -v python3 >/dev/null 2>&1 || skip "no python3 to load the trace as JSON"
    run 0 gen --target ascend910 --shape 100x70x50 --strategy OS --tile 32x32x32 --double-buffer on --cores 2 --split M -o os.npu
    run 0 sim os.npu --format csv --trace trace.json
    instructions=$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f2)
    # one complete event ("X") per instruction
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len([e for e in d["traceEvents"] if e["ph"] == "X"]) == int(sys.argv[2])' \
        "$work/trace.json" "$instructions"; then ok; else bad "trace.json is not JSON with $instructions spans"; fi
    ;;
*)
    echo "tools.sh: part header or trace" >&2
    exit 2
    ;;
esac
finish
