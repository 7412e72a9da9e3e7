#!/usr/bin/env bash
# crowded.sh — a tuning run on a busy machine names the timings taken while
# the kernel's threads waited for a CPU. The compiler wrapper makes every kernel
# crowd the machine (16 threads spinning), as another process would. Needs the
# kernel's schedstat (exit 77 without). Usage: crowded.sh PATH/TO/npu-tune
set -u
bin=$1
. "$(dirname "$0")/../lib.sh"
[ -r /proc/self/schedstat ] || skip "no /proc/self/schedstat (the waits of a kernel's threads)"

cat >"$work/crowdcc.sh" <<'SH'
#!/usr/bin/env bash
args=()
for a in "$@"; do
    case "$a" in
    *.c)
        sed -e '/^void NT_SYMBOL(/,/^{/ s/^{/{ _Pragma("omp parallel num_threads(16)") { volatile double x = 0; for (long r = 0; r < 2000000; r++) x += (double)r; }/' \
            "$a" >"$a.crowded.c"
        args+=("$a.crowded.c") ;;
    *) args+=("$a") ;;
    esac
done
exec cc "${args[@]}"
SH
cat >"$work/crowd.lua" <<'LUA'
target "host"
matmul { name = "plant", shapes = { {96, 64, 64} } }
space { m = { 16, 32, 48, 96 }, n = { 32, 64 }, k = { 32, 64 }, micro = "4x16" }
tune { budget = 2, timeout = 3, results = "out/crowd.csv", table = "out/crowd-table.csv" }
LUA
(cd "$work" && CC="bash $work/crowdcc.sh" "$bin" --quiet crowd.lua >"$work/.out" 2>"$work/.err")
same "crowded run exit" "$?" "0"
has "busy warning" "$(cat "$work/.err")" "npu-tune: warning: plant: 2 of 2 timings were taken on a busy machine (the kernel's threads waited for a CPU, the winner's among them); their figures may be far off: tune on a quiet machine"

finish
