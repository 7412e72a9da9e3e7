#!/usr/bin/env bash
# mpi_bench.sh — npu-tune under mpirun on this machine: the coordinator's ceiling
# (bench_coordinator), a simulator-exhaustive multi-core run as 1 rank x 2 threads
# against 2 worker ranks x 1 thread (mpirun -n 3: rank 0 only coordinates), the
# host's cost per candidate, and from these a projection to 16, 256 and 4096 nodes.
# Usage: mpi_bench.sh PATH/TO/npu-tune PATH/TO/bench_coordinator
set -euo pipefail
npu=$1
coord=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=(mpirun --oversubscribe)

echo "== the coordinator's ceiling: ${mpi[*]} -n 3 bench_coordinator (2 workers, OMP_NUM_THREADS=1)"
OMP_NUM_THREADS=1 "${mpi[@]}" -n 3 "$coord" | tee "$work/ceiling"
step8=$(awk -F'|' '/8 at a time/ { gsub(/ /, "", $3); print $3 }' "$work/ceiling")
whole=$(awk -F'|' '/all at once/ { gsub(/ /, "", $3); print $3 }' "$work/ceiling")

# Every legal config of one BERT shape on 1, 2 and 4 cores, simulated (exhaustive).
cat >"$work/s.lua" <<'LUA'
target "ascend910"
matmul { name = "s", shapes = { {512, 768, 768} } }
space { strategy = { "OS", "WS" }, m = multiples(16, 256), n = multiples(16, 256),
        k = multiples(16, 256), double_buffer = { false, true }, cores = { 1, 2, 4 },
        split = { "M", "N" } }
tune { measure = "sim", search = "exhaustive", budget = 100000, results = "s.csv", table = "s-table.csv" }
LUA
# seconds of one run (journal removed first), in $work
timed() {
    rm -f "$work"/s.csv* "$work/s-table.csv"
    local t0 t1
    t0=$(date +%s.%N)
    (cd "$work" && "$@" >/dev/null)
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
echo
echo "== the simulator, exhaustive: $(grep -o 'shapes = .*' "$work/s.lua" | head -1), cores 1, 2, 4"
echo "| run | candidates | seconds | candidates/s |"
echo "|---|---|---|---|"
alone=() spread=()
for round in 1 2; do # alternated, so that a change in the machine's load hits both
    a=$(OMP_NUM_THREADS=2 timed "$npu" --quiet s.lua)
    n=$(($(wc -l <"$work/s.csv") - 1))
    alone+=("$a")
    echo "| 1 rank x 2 threads (round $round) | $n | $a | $(awk -v n="$n" -v s="$a" 'BEGIN { printf "%.1f", n / s }') |"
    b=$(OMP_NUM_THREADS=1 timed "${mpi[@]}" -n 3 "$npu" --quiet s.lua)
    spread+=("$b")
    echo "| mpirun -n 3: 2 workers x 1 thread (round $round) | $n | $b | $(awk -v n="$n" -v s="$b" 'BEGIN { printf "%.1f", n / s }') |"
done
per_sim=$(awk -v a="${alone[0]}" -v b="${alone[1]}" -v n="$n" 'BEGIN { printf "%.4g", (a < b ? a : b) * 2 / n }')
echo
echo "2 worker ranks x 1 thread against 1 rank x 2 threads: $(awk -v a="${alone[0]}" -v b="${alone[1]}" \
    -v c="${spread[0]}" -v d="${spread[1]}" 'BEGIN { x = a < b ? a : b; y = c < d ? c : d; printf "%.2fx", x / y }') the throughput (best round of each; goal >= 0.9x)"
echo "(mpirun's start, about a second, is in the MPI runs' time)"

# One host candidate: generated, compiled, verified and timed.
echo
per_host=""
if command -v cc >/dev/null; then
    cat >"$work/h.lua" <<'LUA'
target "host"
matmul { name = "h", shapes = { {512, 768, 768} } }
space { m = { 96, 192 }, n = { 64, 128 }, k = { 256 }, cores = { 1 } }
tune { measure = "host", search = "exhaustive", budget = 4, results = "s.csv", table = "s-table.csv" }
LUA
    h=$(timed "$npu" --quiet h.lua)
    per_host=$(awk -v s="$h" 'BEGIN { printf "%.3g", s / 4 }')
    echo "== the host: 4 candidates of 512x768x768 in $h s (with the final and the roofline): $per_host s a candidate"
fi

echo
echo "== projection (not measured): N nodes, one worker rank each"
cat <<TXT
A run hands out one search step at a time and waits for all of it (so that a run does
not depend on its ranks): a step of 4096 candidates for the searches whose asks do not
depend on what they hear (exhaustive, random), of 8 for the others (model, anneal,
genetic), one problem at a time. Rank 0 hands out and journals at most $whole
results/s in long steps and $step8/s in steps of 8. With t the seconds a candidate
takes on one worker, the projected speed-up over one worker is min(N, step,
t x ceiling); the last column is what the ceiling alone would allow.
TXT
echo "| measure | search | s a candidate | 16 nodes | 256 nodes | 4096 nodes | the ceiling alone (N) |"
echo "|---|---|---|---|---|---|---|"
for row in "sim, 1 thread:$per_sim" ${per_host:+"host:$per_host"}; do
    for search in "exhaustive, random:4096:$whole" "model, anneal, genetic:8:$step8"; do
        IFS=: read -r sname step ceil <<<"$search"
        awk -v name="${row%%:*}" -v t="${row##*:}" -v sname="$sname" -v step="$step" \
            -v c="$ceil" 'BEGIN {
            printf "| %s | %s | %s |", name, sname, t
            split("16 256 4096", ns, " ")
            for (i = 1; i <= 3; i++) {
                s = ns[i]; if (s > step) s = step; if (s > t * c) s = t * c
                printf " %.1fx |", s
            }
            printf " %.0f |\n", t * c
        }'
    done
done
cat <<TXT
Limits: a step waits for its slowest candidate (a step of a multi-core sim run mixes
1- and 4-core kernels), which the long steps make rare and the steps of 8 pay on
every step; one problem at a time, so a model search uses at most 8 workers; beyond
that rank 0's ceiling (one thread handing out, receiving and writing one journal row
per result) and the network's latency per step, which this one-machine run does not
see. A host worker measures one kernel at a time and needs its node to itself; it is
handed as many candidates as it has threads, so a kill loses at most those. These
figures come from a 2-core VM: they are noisy.
TXT
