#!/usr/bin/env bash
# mpi.sh — npu-tune under a launcher (mpirun).
#   missing: a build without MPI that a launcher starts as one of several ranks
#            says so and exits 1; a job of one rank is an ordinary run.
#   same:    mpirun -n 3 (rank 0 tunes, two workers measure) writes the table of a
#            run alone, byte for byte, and the same journal rows (sim, model); a
#            rerun measures nothing; mpirun -n 1 is a run alone.
#   kill:    kill -9 of a worker in the middle of a run ends the job; the same
#            command again measures only what is missing and writes the table of
#            a run that was never interrupted.
#   nodes:   a board's (command) measurements need workers on one kind of node: a
#            worker whose compiler says another ISA is refused, naming both; the
#            host backend needs a node per worker; the journal names the node.
# Usage: mpi.sh PATH/TO/npu-tune PART   (same, kill, nodes: exit 77 without mpirun)
set -u
npu=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
part=$2
bin=env # run: env VAR=VALUE... $npu ARGS
. "$(dirname "$0")/../lib.sh"

cat >"$work/t.lua" <<'LUA'
target "ascend910"
matmul { name = "t", shapes = { {128, 128, 128}, {64, 256, 128} } }
space { m = { 32, 64 }, n = { 32, 64 }, k = { 32, 64 } }
tune { measure = "model", search = "exhaustive", budget = 100, results = "t.csv", table = "t-table.csv" }
LUA

missing() {
    local why="built without MPI, but a launcher started it as one of several ranks"
    for env in OMPI_COMM_WORLD_SIZE=3 PMI_SIZE=2 PMIX_RANK=1 OMPI_COMM_WORLD_RANK=2; do
        run 1 env "$env" "$npu" --quiet t.lua
        same "$env: one line" "$(printf '%s\n' "$err" | wc -l)" 1
        has "$env" "$err" "npu-tune: this npu-tune was $why (${env}): rebuild it with MPI"
        absent "$env: no journal" "$work/t.csv"
    done
    for env in OMPI_COMM_WORLD_SIZE=1 PMI_SIZE=1 PMIX_RANK=0; do
        run 0 env "$env" "$npu" --quiet t.lua
        has "$env: a run" "$out" "table: t-table.csv"
        rm -f "$work"/t.csv* "$work/t-table.csv"
    done
}

# The MPI parts: mpirun as the program `run` runs, OpenMP threads one per
# rank (two workers share this machine); `alone` runs npu-tune without it.
# Under AddressSanitizer, the leaks of OpenMPI's own start and end are not
# reported (mpi.supp; full stacks, so that a leak of npu-tune's stays one).
launcher() {
    command -v mpirun >/dev/null || skip "no mpirun (Debian: openmpi-bin)"
    bin=mpirun
    export OMP_NUM_THREADS=1
    [ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/mpi.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    export ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
}
alone() {
    bin=$npu
    run "$@"
    bin=mpirun
}

# rows FILE: a journal's rows without their node, sorted (the order results
# arrive in differs between runs).
rows() { tail -n +2 "$1" | cut -d, -f1-24 | sort; }

same_run() {
    launcher
    for measure in sim model; do
        sed "s/\"model\"/\"$measure\"/" "$work/t.lua" >"$work/m.lua"
        OMP_NUM_THREADS=2 alone 0 m.lua
        local alone=$out
        mv "$work/t-table.csv" "$work/alone-table.csv"
        rows "$work/t.csv" >"$work/alone-rows"
        rm -f "$work"/t.csv*
        run 0 --oversubscribe -n 3 "$npu" m.lua
        same "$measure: summary" "$out" "$alone"
        same_file "$measure: table" "$work/t-table.csv" "$work/alone-table.csv"
        rows "$work/t.csv" >"$work/mpi-rows"
        same_file "$measure: journal" "$work/mpi-rows" "$work/alone-rows"
        same "$measure: node" "$(tail -n +2 "$work/t.csv" | cut -d, -f25 | sort -u)" "$(hostname)"
        # resumed: nothing measured again
        run 0 --oversubscribe -n 3 "$npu" --quiet m.lua
        same "$measure: resumed rows" "$(rows "$work/t.csv")" "$(cat "$work/alone-rows")"
        same_file "$measure: resumed table" "$work/t-table.csv" "$work/alone-table.csv"
        rm -f "$work"/t.csv* "$work/t-table.csv"
        run 0 -n 1 "$npu" m.lua
        same "$measure: -n 1" "$out" "$alone"
        rm -f "$work"/t.csv* "$work/t-table.csv"
    done
}

# The ranks mpirun PID started (its children), as "PID RANK" lines.
ranks() {
    local f line rest pid
    for f in /proc/[0-9]*/stat; do
        read -r line 2>/dev/null <"$f" || continue
        rest=${line##*) }
        rest=${rest#* }
        [ "${rest%% *}" == "$1" ] || continue
        pid=${f#/proc/}
        pid=${pid%/stat}
        tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null |
            sed -n "s/^OMPI_COMM_WORLD_RANK=/$pid /p"
    done
}

kill_run() {
    launcher
    cat >"$work/k.lua" <<'LUA'
target "ascend910"
matmul { name = "k", shapes = { {1024, 1024, 512} } }
space { strategy = { "OS", "WS" }, m = { 16, 32, 64 }, n = { 16, 32, 64 }, k = { 16, 32, 64 },
        double_buffer = { false, true } }
tune { measure = "sim", search = "exhaustive", budget = 1000, results = "k.csv", table = "k-table.csv" }
LUA
    alone 0 --quiet k.lua # never interrupted
    mv "$work/k-table.csv" "$work/whole-table.csv"
    local all
    all=$(rows "$work/k.csv" | wc -l)
    rm -f "$work"/k.csv*
    (cd "$work" && exec mpirun --oversubscribe -n 3 "$npu" --quiet k.lua >"$work/.out" 2>"$work/.err") &
    local job=$! n=0 worker=""
    # by the run's progress, not a clock: once 8 rows are journaled (the loop's
    # bound only keeps a broken run from hanging the test)
    for ((i = 0; i < 6000; i++)); do
        [ -f "$work/k.csv" ] && n=$(($(wc -l <"$work/k.csv") - 1))
        [ "$n" -ge 8 ] && worker=$(ranks "$job" | awk '$2 == 1 { print $1 }')
        [ -n "$worker" ] && break
        sleep 0.05
    done
    if [ -z "$worker" ]; then
        bad "the run did not get to 8 rows with its worker of rank 1 alive (rows: $n)"
    else
        kill -9 "$worker"
    fi
    wait "$job"
    local rc=$?
    if [ "$rc" -ne 0 ]; then ok; else bad "mpirun went on after its worker was killed"; fi
    local before
    before=$(rows "$work/k.csv" | wc -l)
    echo "killed rank 1 ($worker) after $n rows; journal: $before of $all rows; mpirun: $(head -c 300 "$work/.err")"
    if [ "$before" -lt "$all" ]; then ok; else bad "the killed run measured everything ($before rows)"; fi
    run 0 --oversubscribe -n 3 "$npu" --quiet k.lua
    same_file "table after the kill" "$work/k-table.csv" "$work/whole-table.csv"
    same "each candidate once" "$(rows "$work/k.csv" | cut -d, -f1-14 | sort -u | wc -l)" "$all"
    same "rows" "$(rows "$work/k.csv" | wc -l)" "$all"
}

nodes() {
    launcher
    cat >"$work/c.lua" <<'LUA'
target "ascend910"
matmul { name = "c", shapes = { {128, 128, 128} } }
space { strategy = { "OS" }, m = { 32, 64 }, n = { 32, 64 }, k = { 64 } }
tune { measure = { command = "test -s {kernel} && echo 5 us" }, verify = false,
       search = "exhaustive", budget = 8, results = "c.csv", table = "c-table.csv" }
LUA
    # a compiler whose -march=native is another ISA than this machine's
    local isa=""
    cc -march=native -dM -E -x c /dev/null 2>/dev/null | grep -q __AVX512F__ ||
        isa="echo '#define __AVX512F__ 1'"
    printf '#!/bin/sh\n%s\n' "$isa" >"$work/other-cc"
    chmod +x "$work/other-cc"
    run 1 --oversubscribe -n 2 "$npu" --quiet c.lua : -n 1 -x CC="$work/other-cc" "$npu" --quiet c.lua
    has "another kind" "$err" "npu-tune: rank 2 on $(hostname) is another kind of node ("
    has "names rank 0" "$err" ") than rank 0 on $(hostname) ("
    has "says why" "$err" "): command measurements compare only on one kind of node"
    absent "nothing measured" "$work/c-table.csv"
    rm -f "$work"/c.csv*
    # one kind: two workers on this node, each row's node this one
    run 0 --oversubscribe -n 3 "$npu" --quiet c.lua
    same "node column" "$(tail -n +2 "$work/c.csv" | cut -d, -f25 | sort -u)" "$(hostname)"
    same "rows" "$(grep -c ',search,' "$work/c.csv")" 4
    same "rows of the final" "$(grep -c ',final,' "$work/c.csv")" 4
    # the host backend times one kernel at a time: one worker per node
    sed 's/{ command = "test -s {kernel} \&\& echo 5 us" }, verify = false/"host"/; s/"ascend910"/"host"/; s/c\.csv/h.csv/; s/c-table/h-table/' \
        "$work/c.lua" >"$work/h.lua"
    run 1 --oversubscribe -n 3 "$npu" --quiet h.lua
    has "one per node" "$err" "npu-tune: ranks 1 and 2 both measure on $(hostname), where host times one kernel at a time"
}

case $part in
same) same_run ;;
kill) kill_run ;;
*) "$part" ;;
esac
finish
