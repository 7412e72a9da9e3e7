#!/usr/bin/env bash
# mpi.sh — npu-tune under a launcher (mpirun).
#   missing: a build without MPI that a launcher starts as one of several ranks
#            says so and exits 1; a job of one rank is an ordinary run.
# Usage: mpi.sh PATH/TO/npu-tune PART
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

"$part"
finish
