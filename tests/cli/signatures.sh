#!/usr/bin/env bash
# signatures.sh — the target signatures journals are signed with, pinned: a
# journal resumes only under the same target_sig, so a change to how a target
# is signed would refuse every journal written before it. Built-in and
# script-derived NPU targets, CPU targets with and without fork_join and load_stall.
# Usage: signatures.sh PATH/TO/npu-tune
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/../lib.sh"

# signed NAME WANT TARGET...: a one-candidate model run of TARGET (the lines of
# a target declaration) signs its journal with target_sig WANT.
signed() {
    local name=$1 want=$2
    shift 2
    {
        printf '%s\n' "$@"
        printf 'matmul { name = "p", shapes = { {64, 64, 64} } }\n'
        printf 'tune { measure = "model", budget = 1, results = "%s.csv", table = "%s-table.csv" }\n' \
            "$name" "$name"
    } >"$work/$name.lua"
    run 0 --quiet "$name.lua"
    same "$name target_sig" "$(sed -n 's/^target_sig=//p' "$work/$name.csv.sig")" "$want"
}

cpu='name = "box", kind = "cpu", cores = 4, clock_mhz = 3000,
     simd_floats = 8, vregs = 16, fma_units = 2, load_ports = 2,
     l1 = 32 * KiB, l2 = 1 * MiB, l3 = 8 * MiB,
     bandwidth = { l2 = 32, l3 = 16, mem = 8, mem_shared = 16 }'

signed builtin d52808c2ef1a94bb 'target "ascend910"'
signed derived 42b38051ecd871d1 \
    'target { base = "ascend910", name = "mine", cores = 8, l0c = 128 * KiB,' \
    '         gm_l1 = { bandwidth = 32.5 } }'
signed wide 5e748655b4601c84 \
    'target { base = "ascend910", name = "wide", macs = { fp32 = 1024, bf16 = 2048 } }'
signed cpu 4ffa89ea0dbafd8f "target { $cpu }"
signed cpu_fork_join 9c4e3dd7503e7032 "target { $cpu, fork_join = 2500 }"
signed cpu_load_stall 60766fe7fc73cbd4 "target { $cpu, load_stall = 0.125 }"
# a CPU's clock is measured, a little different every run: not signed
signed cpu_clock 4ffa89ea0dbafd8f "target { ${cpu/clock_mhz = 3000/clock_mhz = 2900} }"

finish
