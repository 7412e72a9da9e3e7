#!/usr/bin/env bash
# resume.sh — kills tuning runs at chosen moments and resumes them: each resumed
# run must finish with the table of an uninterrupted run, every candidate
# measured once, a journal of whole rows and no temporary file left. The moment
# is chosen by the run's progress, never by a clock: a stand-in board blocks at
# its Nth call (search), a full FIFO holds the table write, a file-size limit
# (SIGXFSZ) stops a write at a chosen byte (after the simulator's check of the
# winner, in the middle of a row, in the table's temporary), and the host's
# compiler blocks at the final's kernels. A journal holding finals is resumed
# as it stands (replay).
# Usage: resume.sh PATH/TO/npu-tune [board|verify|final|calibrate|replay]
# (final needs cc: exit 77 without)
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
part=${2:-board}
. "$(dirname "$0")/../lib.sh"

state=$work/state # the stand-ins' counters
mkdir -p "$state"

# arm STOP: counters to zero; from call STOP on (0: never) the stand-in blocks.
arm() {
    echo "$1" >"$state/stop"
    echo 0 >"$state/calls"
    : >"$state/blocked"
}

# The stand-in for a board or a compiler: "stand-in.sh WHAT..." counts the
# call and, from call STOP on, records its pid and sleeps; else runs WHAT.
cat >"$work/stand-in.sh" <<'SH'
#!/bin/sh
state=$(dirname "$0")/state
n=$(flock "$state/lock" sh -c 'n=$(($(cat "$1/calls") + 1)); echo $n >"$1/calls"; echo $n' sh "$state")
stop=$(cat "$state/stop")
if [ "$stop" -gt 0 ] && [ "$n" -ge "$stop" ]; then
    echo $$ >>"$state/blocked"
    exec sleep 600
fi
exec "$@"
SH
# The board: a time from the kernel's bytes (the same kernel, the same time);
# each one it prints is counted in state/done.
cat >"$work/board.sh" <<'SH'
#!/bin/sh
sum=$(cksum <"$1" | cut -d' ' -f1)
echo "$1" >>"$(dirname "$0")/state/done"
echo "$((sum % 900000 + 1000)) us"
SH

# children PID: the processes whose parent is PID.
children() {
    local f line rest
    for f in /proc/[0-9]*/stat; do
        read -r line 2>/dev/null <"$f" || continue
        rest=${line##*) } # after the command name: state, ppid, pgrp, ...
        rest=${rest#* }
        if [ "${rest%% *}" == "$1" ]; then
            f=${f#/proc/}
            echo "${f%/stat}"
        fi
    done
}

# kill_run: kill -9 the run $pid. Stopped first, so that it starts nothing
# more; then its children's process groups (a board or a compiler runs in a
# group of its own) with whatever they started, then the run.
kill_run() {
    local c
    kill -STOP "$pid" 2>/dev/null
    for c in $(children "$pid"); do kill -9 -- -"$c" "$c" 2>/dev/null; done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}

rows() { if [ -f "$1" ]; then echo $(($(wc -l <"$1") - 1)); else echo -1; fi; }

# start DIR [PREFIX...]: starts npu-tune on DIR/r.lua in the background ($pid).
start() {
    local dir=$1
    shift
    (cd "$dir" && exec "$@" "$bin" --quiet r.lua >"$dir/out.txt" 2>"$dir/err" 3<&-) &
    pid=$!
}

# until_ CMD...: waits until CMD succeeds (true) or the run $pid has ended
# without it (false); a safety bound of 120 s, far above any run here.
until_() {
    local i
    for ((i = 0; i < 1200; i++)); do
        "$@" && return 0
        kill -0 "$pid" 2>/dev/null || { "$@"; return; }
        sleep 0.1
    done
    return 1
}

# finish_run DIR [PREFIX...]: runs npu-tune on DIR/r.lua to its end; true if it exits 0.
finish_run() {
    local dir=$1
    shift
    arm 0
    (cd "$dir" && "$@" "$bin" --quiet r.lua >"$dir/out.txt" 2>"$dir/err")
}

# limited DIR BYTES: runs npu-tune on DIR/r.lua with no file to grow beyond
# BYTES (the first write past them ends it with SIGXFSZ); its exit status in
# $rc. Its output goes through pipes, which the limit does not stop.
limited() {
    local dir=$1 bytes=$2
    arm 0
    (cd "$dir" && exec prlimit --fsize="$bytes" "$bin" --quiet r.lua) 2>&1 >/dev/null | cat >"$dir/err"
    rc=${PIPESTATUS[0]}
}

# whole JOURNAL: every line complete, every row of the journal's 22 fields.
whole() {
    [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" == '\n' ] &&
        [ -z "$(awk -F, 'NR == 1 { n = NF } NF != n' "$1")" ]
}

# check WHAT DIR REF: DIR's run (finished) against the uninterrupted REF.
check() {
    local what=$1 dir=$2 ref=$3
    if cmp -s "$ref/out/r-table.csv" "$dir/out/r-table.csv"; then ok; else
        bad "$what: tables differ"; diff "$ref/out/r-table.csv" "$dir/out/r-table.csv" >&2
    fi
    if diff <(tail -n +2 "$ref/out/r.csv" | sort) <(tail -n +2 "$dir/out/r.csv" | sort) >/dev/null; then ok; else
        bad "$what: the journal holds other rows than the uninterrupted run's"
    fi
    local dups
    dups=$(tail -n +2 "$dir/out/r.csv" | cut -d, -f1-14,21,22 | sort | uniq -d | wc -l)
    if [ "$dups" -eq 0 ]; then ok; else bad "$what: $dups candidates measured twice"; fi
    if whole "$dir/out/r.csv"; then ok; else bad "$what: the journal has a torn or malformed line"; fi
    local tmp
    tmp=$(find "$dir" -name '*.tmp.*')
    if [ -z "$tmp" ]; then ok; else bad "$what: temporary files left: $tmp"; fi
}

# three_shapes DIR COMMAND [TUNE]: DIR/r.lua, whose board runs COMMAND: the model search
# on three shapes of a large space (with more of tune { } in TUNE, "key = value,")
three_shapes() {
    mkdir -p "$1/out"
    cat >"$1/r.lua" <<LUA
target "ascend910"
matmul { name = "r", shapes = { {512, 512, 512}, {200, 1000, 64}, {384, 384, 64} } }
space {
  m = multiples(16, 128), n = multiples(16, 128), k = multiples(16, 128),
  double_buffer = { false, true }, cores = { 1, 2, 4, 8, 16, 32 }, split = { "M", "N", "MN" },
}
tune { measure = { command = "$2" }, search = "model", budget = 40, ${3:-}
       verify = false, timeout = 600, results = "out/r.csv", table = "out/r-table.csv" }
LUA
}

# asked FILE: the search's rows' problems and configs, sorted by problem
asked() {
    tail -n +2 "$1" | grep ',search,' | cut -d, -f1-14,21 | sort
}

# kill_at DIR N: starts a run whose board blocks at its call N, waits for
# the N-1 calls before it to be journaled, kill -9.
kill_at() {
    local dir=$1 n=$2 want
    want=$(($(rows "$dir/out/r.csv") + n - 1))
    [ "$want" -lt $((n - 1)) ] && want=$((n - 1)) # no journal yet
    arm "$n"
    start "$dir"
    reached() { [ -s "$state/blocked" ] && [ "$(rows "$dir/out/r.csv")" -eq "$want" ]; }
    if until_ reached; then ok; else
        bad "kill at call $n: the run did not reach it (journal rows $(rows "$dir/out/r.csv")): $(cat "$dir/err")"
    fi
    kill_run
    same "kill at call $n: rows journaled" "$(rows "$dir/out/r.csv")" "$want"
}

# ---------------------------------------------------------------------------
# The command backend: 2 problems x 20 candidates, batches of 8 (calls 1-8,
# 9-16, 17-20 for the first problem, 21-40 for the second).
board_part() {
    script() {
        mkdir -p "$1"
        cat >"$1/r.lua" <<LUA
target "ascend910"
matmul { name = "r", shapes = { {512, 512, 512}, {300, 200, 400} } }
space {
  m = multiples(16, 64), n = multiples(16, 64), k = multiples(16, 64),
  double_buffer = { false, true },
}
tune { measure = { command = "sh $work/stand-in.sh sh $work/board.sh {kernel}" }, search = "random",
       budget = 20, seed = 7, verify = false, final = false, timeout = 600,
       results = "out/r.csv", table = "out/r-table.csv" }
LUA
    }
    local ref=$work/ref
    script "$ref"
    : >"$state/done"
    if finish_run "$ref"; then ok; else bad "uninterrupted run failed: $(cat "$ref/err")"; fi
    local total
    total=$(rows "$ref/out/r.csv")
    same "uninterrupted run: rows" "$total" 40
    same "uninterrupted run: measurements" "$(wc -l <"$state/done")" 40

    # again DIR WHAT: a finished run's journal resumed once more measures
    # nothing and writes the same table; then DIR is checked against ref.
    again() {
        local dir=$1 what=$2
        : >"$state/done"
        finish_run "$dir" || bad "$what: resuming the finished journal failed: $(cat "$dir/err")"
        same "$what: measured on resuming a finished journal" "$(wc -l <"$state/done")" 0
        check "$what" "$dir" "$ref"
    }

    # --- the search: before the first row, at a batch's start, the last
    # call of problem 1, the first of problem 2, the last of the run ---
    local n dir
    for n in 1 9 20 21 40; do
        dir=$work/search-$n
        script "$dir"
        : >"$state/done"
        kill_at "$dir" "$n"
        if finish_run "$dir"; then ok; else bad "resume after the kill at call $n failed: $(cat "$dir/err")"; fi
        same "kill at call $n: measured in all" "$(wc -l <"$state/done")" "$total"
        again "$dir" "kill at call $n"
    done

    # --- kills in a row: each resumed run killed again before it ends ---
    dir=$work/chain
    script "$dir"
    : >"$state/done"
    kill_at "$dir" 5
    kill_at "$dir" 5 # call 5 of the resumed run: row 8 of the journal
    kill_at "$dir" 14
    if finish_run "$dir"; then ok; else bad "chain: the last resume failed: $(cat "$dir/err")"; fi
    same "chain: measured in all" "$(wc -l <"$state/done")" "$total"
    again "$dir" "chain"

    # --- torn last lines (a kill in the middle of a write(2)): the journal of
    # a kill at call 12 cut inside its last row, inside its first row, and
    # inside the header ---
    local cut
    for cut in last first header; do
        dir=$work/torn-$cut
        script "$dir"
        : >"$state/done"
        kill_at "$dir" 12
        local j=$dir/out/r.csv size
        size=$(stat -c %s "$j")
        case $cut in
        last) truncate -s $((size - 7)) "$j" ;;
        first) truncate -s $(($(head -n 1 "$j" | wc -c) + 20)) "$j" ;;
        header) truncate -s 40 "$j" ;;
        esac
        if finish_run "$dir"; then ok; else bad "torn $cut line: resume failed: $(cat "$dir/err")"; fi
        local lost=1
        [ $cut == first ] && lost=11
        [ $cut == header ] && lost=11
        same "torn $cut line: measured in all" "$(wc -l <"$state/done")" $((total + lost))
        again "$dir" "torn $cut line"
    done

    # --- the table write of the measuring run: the table is a FIFO whose pipe
    # is full, so the run blocks inside the write until killed ---
    dir=$work/table-fifo
    script "$dir"
    mkdir -p "$dir/out"
    mkfifo "$dir/out/r-table.csv"
    exec 3<>"$dir/out/r-table.csv"
    dd if=/dev/zero of="$dir/out/r-table.csv" bs=4096 count=4096 oflag=nonblock 2>/dev/null
    dd if=/dev/zero of="$dir/out/r-table.csv" bs=1 count=65536 oflag=nonblock 2>/dev/null
    : >"$state/done"
    arm 0
    start "$dir"
    writing() { # npu-tune itself (not the shell before its exec) holds the FIFO
        local f
        [ /proc/"$pid"/exe -ef "$bin" ] || return 1
        for f in /proc/"$pid"/fd/*; do
            [ "$f" -ef "$dir/out/r-table.csv" ] && return 0
        done
        return 1
    }
    if until_ writing; then ok; else bad "table fifo: the run never opened its table: $(cat "$dir/err")"; fi
    kill_run
    exec 3<&-
    rm -f "$dir/out/r-table.csv"
    same "table fifo: rows journaled before the table" "$(rows "$dir/out/r.csv")" "$total"
    if finish_run "$dir"; then ok; else bad "table fifo: resume failed: $(cat "$dir/err")"; fi
    same "table fifo: measured in all" "$(wc -l <"$state/done")" "$total"
    again "$dir" "table fifo"

    # --- the table's temporary: a resumed run of a complete journal, stopped
    # by a file-size limit in the temporary (before its rename). The limit
    # is above the 1 KiB file LLVM's OpenMP runtime (clang builds) creates at
    # start-up, so the table is of 8 shapes measured on the simulator ---
    tmp_script() {
        mkdir -p "$1/out"
        cat >"$1/r.lua" <<'LUA'
target "ascend910"
matmul { name = "r", shapes = { {512, 512, 512}, {300, 200, 400}, {64, 64, 64}, {128, 96, 80},
                                {256, 128, 64}, {96, 96, 96}, {200, 100, 50}, {1024, 64, 32} } }
space { m = multiples(16, 64), n = multiples(16, 64), k = multiples(16, 64) }
tune { search = "random", budget = 2, seed = 7, results = "out/r.csv", table = "out/r-table.csv" }
LUA
    }
    local tref=$work/table-tmp-ref limit=1100
    tmp_script "$tref"
    if finish_run "$tref"; then ok; else bad "table tmp: uninterrupted run failed: $(cat "$tref/err")"; fi
    if [ "$(stat -c %s "$tref/out/r-table.csv")" -gt "$limit" ]; then ok; else
        bad "table tmp: the table is no larger than the limit ($limit bytes)"
    fi
    dir=$work/table-tmp
    tmp_script "$dir"
    cp "$tref/out/r.csv" "$tref/out/r.csv.sig" "$dir/out/"
    limited "$dir" "$limit"
    same "table tmp: killed by SIGXFSZ (exit 128+25)" "$rc" 153
    local left
    left=$(find "$dir/out" -name 'r-table.csv.tmp.*' -size "${limit}c" | wc -l)
    same "table tmp: a $limit-byte temporary and no table" "$left$([ -e "$dir/out/r-table.csv" ] && echo ' and a table')" 1
    if finish_run "$dir"; then ok; else bad "table tmp: resume failed: $(cat "$dir/err")"; fi
    check "table tmp" "$dir" "$tref"

    # --- a journal from another target refuses to resume ---
    dir=$work/search-20
    sed -i 's/target "ascend910"/target { base = "ascend910", cores = 8 }/' "$dir/r.lua"
    finish_run "$dir"
    local rc=$?
    if [ "$rc" -eq 1 ] && grep -q "out/r.csv was written for target" "$dir/err"; then ok; else
        bad "foreign target resumed (exit $rc): $(cat "$dir/err")"
    fi
}

# ---------------------------------------------------------------------------
# The simulator: it checks the winner of each problem in its functional mode
# after the search, writing nothing when it passes; a kill there leaves what a
# kill at the next write leaves, which a file-size limit gives exactly.
verify_part() {
    script() {
        mkdir -p "$1"
        cat >"$1/r.lua" <<'LUA'
target "ascend910"
matmul { name = "r", shapes = { {512, 512, 512}, {300, 200, 400} } }
space {
  m = multiples(16, 64), n = multiples(16, 64), k = multiples(16, 64),
  double_buffer = { false, true },
}
tune { search = "random", budget = 24, seed = 7, results = "out/r.csv", table = "out/r-table.csv" }
LUA
    }
    local ref=$work/ref-sim
    script "$ref"
    if finish_run "$ref"; then ok; else bad "verify: uninterrupted run failed: $(cat "$ref/err")"; fi
    # the journal's bytes up to the end of the first problem's rows
    local first
    first=$(awk 'NR == 1 || /^r,512,512,512,/ { n += length($0) + 1 } END { print n }' "$ref/out/r.csv")
    local at what dir
    for at in 0 30; do
        what="verify: killed $at bytes into the second problem's rows"
        dir=$work/sim-$at
        script "$dir"
        limited "$dir" $((first + at))
        same "$what: SIGXFSZ (exit 128+25)" "$rc" 153
        same "$what: journal size" "$(stat -c %s "$dir/out/r.csv")" $((first + at))
        if finish_run "$dir"; then ok; else bad "$what: resume failed: $(cat "$dir/err")"; fi
        check "$what" "$dir" "$ref"
    done

    # A board whose OS kernels of m = 64 cheat (no mmad: fast, and a wrong C): the
    # best fail their verification one after another until an honest one
    # wins. Run again, the annealing search must hear what it heard (each
    # cheat's time, not its verdict), so it asks nothing new; the journal's
    # verdicts stand and only the winner is verified again.
    dir=$work/cheat
    mkdir -p "$dir/out"
    cat >"$dir/r.lua" <<LUA
target "ascend910"
matmul { name = "r", shapes = { {256, 256, 256} } }
space { strategy = { "IS", "WS", "OS" }, m = multiples(16, 64), n = multiples(16, 64),
        k = multiples(16, 64), double_buffer = { false, true } }
tune { measure = { command = "sh $work/stand-in.sh sh $(cd "$(dirname "$0")/.." && pwd)/board.sh cheat {kernel} {output} 'OS m=64'" },
       search = "anneal", budget = 24, seed = 3, results = "out/r.csv", table = "out/r-table.csv" }
LUA
    export NPU_TUNE_BIN=$bin
    if finish_run "$dir"; then ok; else bad "verify: cheats: run failed: $(cat "$dir/err")"; fi
    if [ "$(grep -c ',verify,' "$dir/out/r.csv")" -ge 1 ]; then ok; else
        bad "verify: cheats: no failed verification journaled: $(cat "$dir/err")"
    fi
    same "verify: cheats: the winner is honest" "$(tail -n 1 "$dir/out/r-table.csv" | cut -d, -f8,9 | grep -c '^OS,64$')" 0
    cp "$dir/out/r.csv" "$dir/journal.csv"
    cp "$dir/out/r-table.csv" "$dir/table.csv"
    if finish_run "$dir"; then ok; else bad "verify: cheats: run again failed: $(cat "$dir/err")"; fi
    same "verify: cheats: run again: board calls (the winner's verification)" "$(cat "$state/calls")" 1
    same_file "verify: cheats: run again: the journal" "$dir/out/r.csv" "$dir/journal.csv"
    same_file "verify: cheats: run again: the table" "$dir/out/r-table.csv" "$dir/table.csv"
}

# ---------------------------------------------------------------------------
# The host's final: the best candidates of the search timed again side by
# side with the model's pick. The compiler blocks at the final's kernels (its
# second shared object). So that there always is a final, the search's first
# kernel, the model's pick (the model search asks it first), is made slow:
# it is then no finalist by its time, and joins the best as the pick. Host
# timings differ from run to run, so the resumed table is checked against its
# own journal: the best of the final.
final_part() {
    command -v cc >/dev/null 2>&1 || skip "the host's final needs a C compiler (cc)"
    local dir=$work/final
    mkdir -p "$dir"
    cat >"$dir/r.lua" <<'LUA'
target "host"
matmul { name = "r", shapes = { {96, 64, 64} } }
space { m = { 16, 32 }, n = 64, k = 64, micro = "4x16", cores = 1 }
tune { budget = 2, results = "out/r.csv", table = "out/r-table.csv" }
LUA
    cat >"$work/cc.sh" <<SH
#!/bin/sh
case "\$*" in
*_tu.so*)
    [ -e "$state/slow" ] && for a; do
        case \$a in
        *.c) sed -i '/^#define NT_SYMBOL nt_k0 /,/^#undef NT_SYMBOL/ { /^void NT_SYMBOL(/,/^{/ s/^{/{ for (volatile long r = 0; r < 2000000; r++) {}/ }' "\$a"
            grep -q 'r < 2000000' "\$a" || echo "\$a" >>"$state/unslowed" ;;
        esac
    done
    exec sh "$work/stand-in.sh" cc "\$@" ;;
esac
exec cc "\$@"
SH
    arm 2
    touch "$state/slow"
    start "$dir" env CC="sh $work/cc.sh"
    blocked() { [ -s "$state/blocked" ]; }
    if until_ blocked; then ok; else bad "final: the run never compiled its final: $(cat "$dir/err")"; fi
    if [ ! -e "$state/unslowed" ]; then ok; else bad "final: cc.sh found no nt_k0 to slow in $(cat "$state/unslowed")"; fi
    kill_run
    rm "$state/slow"
    local j=$dir/out/r.csv
    same "final: rows before the kill" "$(tail -n +2 "$j" | cut -d, -f22 | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')" "search=2 "
    if finish_run "$dir" env CC="sh $work/cc.sh"; then ok; else bad "final: resume failed: $(cat "$dir/err")"; fi
    # the search's 2 rows, and the final's 2 (the best and the pick) once
    same "final: rows after the resume" "$(tail -n +2 "$j" | cut -d, -f22 | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')" "final=2 search=2 "
    local dups
    dups=$(tail -n +2 "$j" | cut -d, -f1-14,21,22 | sort | uniq -d | wc -l)
    same "final: candidates measured twice in a round" "$dups" 0
    if whole "$j"; then ok; else bad "final: the journal has a torn or malformed line"; fi
    # the table's row is the final's best (of equal figures, any)
    local best row
    best=$(grep ',ok,' "$j" | grep ',final,' | sort -t, -k19,19g | head -n 1 | cut -d, -f19)
    row=$(tail -n +4 "$dir/out/r-table.csv" | cut -d, -f1-17) # all but verified
    if [ -n "$best" ] && [ "$(echo "$row" | cut -d, -f15)" == "$best" ] &&
        grep ',ok,' "$j" | grep ',final,' | cut -d, -f1-14,19,20,21 | grep -qxF "$row"; then ok; else
        bad "final: the table's row '$row' is not the final's best ($best): $(cat "$j")"
    fi
    local tmp
    tmp=$(find "$dir" -name '*.tmp.*')
    if [ -z "$tmp" ]; then ok; else bad "final: temporary files left: $tmp"; fi
    # again WHAT: run again, the journal's final stands: nothing compiled,
    # nothing journaled, the same table (the best of the final's figures; the
    # target line has the clock as measured now)
    again() {
        cp "$j" "$dir/journal.csv"
        sed 2d "$dir/out/r-table.csv" >"$dir/table.csv"
        if finish_run "$dir" env CC="sh $work/cc.sh"; then ok; else bad "final: $1: $(cat "$dir/err")"; fi
        same "final: $1: kernels compiled" "$(cat "$state/calls")" 0
        same_file "final: $1: the journal" "$j" "$dir/journal.csv"
        sed 2d "$dir/out/r-table.csv" >"$dir/table-again.csv"
        same_file "final: $1: the table" "$dir/table-again.csv" "$dir/table.csv"
    }
    again "run again"

    # killed between the final's two rows: the one left is no final; the
    # resumed run holds the final again, both finalists side by side
    sed -i '$d' "$j"
    if finish_run "$dir" env CC="sh $work/cc.sh"; then ok; else bad "final: cut final: $(cat "$dir/err")"; fi
    if [ "$(cat "$state/calls")" -gt 0 ]; then ok; else bad "final: cut final: held again: nothing compiled"; fi
    same "final: cut final: rows" "$(tail -n +2 "$j" | cut -d, -f22 | tr '\n' ' ')" \
        "search search final final final "
    best=$(tail -n 2 "$j" | grep ',ok,' | sort -t, -k19,19g | head -n 1 | cut -d, -f19)
    same "final: cut final: the table's figure is the new final's best" \
        "$(tail -n +4 "$dir/out/r-table.csv" | cut -d, -f15)" "$best"

    # a larger budget: one more search row and a final of its own; run again,
    # that final stands alone, not mixed with the earlier one
    sed -i 's/budget = 2,/budget = 3,/' "$dir/r.lua"
    if finish_run "$dir" env CC="sh $work/cc.sh"; then ok; else bad "final: budget 3: $(cat "$dir/err")"; fi
    same "final: budget 3: search rows" "$(grep -c ',search,' "$j")" 3
    again "budget 3 again"
}

# ---------------------------------------------------------------------------
# tune { calibrate }, on by default with a board: the simulator behind the
# command backend, the model refitted after the batches once there are rows
# enough (11 + 40 + 40 calls, four fits from call 42 on); killed before the
# first fit, after it, in the third problem and near the end, each
# resumed run must ask for the candidates the uninterrupted one asked for
# (the journal does not keep the order within a batch: its rows come as
# measurements complete) and record the same fits.
calibrate_part() {
    export NPU_TUNE_BIN=$bin
    local boardsh
    boardsh=$(cd "$(dirname "$0")/.." && pwd)/board.sh
    script() { three_shapes "$1" "sh $work/stand-in.sh sh $boardsh sim {kernel}" "final = false,"; }
    local ref=$work/cal-ref
    script "$ref"
    if finish_run "$ref"; then ok; else bad "calibrate: uninterrupted run failed: $(cat "$ref/err")"; fi
    has "calibrate: said" "$(cat "$ref/out.txt")" "calibrate: the search ranked by the model refitted"
    local fits total
    fits=$(($(wc -l <"$ref/out/r.csv.fit") - 1))
    total=$(rows "$ref/out/r.csv")
    same "calibrate: fits recorded" "$fits" 4
    same "calibrate: rows" "$total" 91
    local n dir
    for n in 20 46 60 88; do
        dir=$work/cal-$n
        script "$dir"
        kill_at "$dir" "$n"
        if finish_run "$dir"; then ok; else bad "calibrate: resume after call $n failed: $(cat "$dir/err")"; fi
        if diff <(asked "$ref/out/r.csv") <(asked "$dir/out/r.csv") >/dev/null; then ok; else
            bad "calibrate: killed at call $n, the resumed run asked otherwise: $(diff <(asked "$ref/out/r.csv") <(asked "$dir/out/r.csv") | head -n 4)"
        fi
        same_file "calibrate: killed at call $n, the fits" "$dir/out/r.csv.fit" "$ref/out/r.csv.fit"
        check "calibrate: killed at call $n" "$dir" "$ref"
    done
    # a fit record torn in its last line: cut off, the fit taken again
    dir=$work/cal-torn
    script "$dir"
    kill_at "$dir" 60
    truncate -s -9 "$dir/out/r.csv.fit"
    if finish_run "$dir"; then ok; else bad "calibrate: torn record: resume failed: $(cat "$dir/err")"; fi
    same_file "calibrate: torn record" "$dir/out/r.csv.fit" "$ref/out/r.csv.fit"
    # the record is what a resumed run ranks by: figures put in it change its choices
    dir=$work/cal-edited
    script "$dir"
    kill_at "$dir" 46
    sed -i '2s/ gm_l1.bandwidth=[^ ]*/ gm_l1.bandwidth=0.5/' "$dir/out/r.csv.fit"
    if finish_run "$dir"; then ok; else bad "calibrate: edited record: resume failed: $(cat "$dir/err")"; fi
    if diff <(asked "$ref/out/r.csv") <(asked "$dir/out/r.csv") >/dev/null; then
        bad "calibrate: a resumed run did not rank by the figures of its record"
    else ok; fi
    # another journal's record is not used; a malformed one is refused by line
    dir=$work/cal-bad
    script "$dir"
    kill_at "$dir" 60
    sed -i '2s/ gm_l1.bandwidth=[^ ]*//' "$dir/out/r.csv.fit"
    finish_run "$dir"
    has "calibrate: malformed record" "$(cat "$dir/err")" "out/r.csv.fit:2: target 'ascend910': field 'gm_l1.bandwidth' is missing: move it away"
    sed -i '1s/space_sig=.*/space_sig=0000000000000000/' "$dir/out/r.csv.fit"
    if finish_run "$dir"; then ok; else bad "calibrate: stale record: resume failed: $(cat "$dir/err")"; fi
    check "calibrate: a stale record" "$dir" "$ref"
}

# ---------------------------------------------------------------------------
# A resumed run replays its search from the journal: it must hear the figures
# the search heard, not a final's re-measurement of them, so that an adaptive
# search asks again what it asked and the table comes out the same. The board
# (the simulator behind the command backend) gives a kernel's second timing
# and later 3x its first, so each final (3 rounds of the search's best 4)
# hears other figures than the search. With and without tune { calibrate },
# whose refits are made from the figures the search heard.
replay_part() {
    export NPU_TUNE_BIN=$bin
    local boardsh
    boardsh=$(cd "$(dirname "$0")/.." && pwd)/board.sh
    cat >"$work/count.sh" <<SH
#!/bin/sh
# count.sh KERNEL: board.sh sim's cycles, 3x from the kernel's second timing on
n=\$(cksum <"\$1" | cut -d' ' -f1)
c=\$(flock "$state/lock" sh -c 'n=\$((\$(cat "\$1" 2>/dev/null || echo 0) + 1)); echo \$n >"\$1"; echo \$n' sh "$state/count-\$n")
echo "\$1" >>"$state/done"
t=\$(sh "$boardsh" sim "\$1" | cut -d' ' -f1)
[ "\$c" -gt 1 ] && t=\$((t * 3))
echo "\$t cycles"
SH
    script() { three_shapes "$1" "sh $work/count.sh {kernel}" "calibrate = $2,"; }
    # board_reset: no kernel timed yet
    board_reset() {
        rm -f "$state"/count-*
        : >"$state/done"
    }
    # first_problems JOURNAL N: its header and the rows of its first N problems
    # (each problem's search, then its final)
    first_problems() {
        local key
        head -n 1 "$1"
        for key in $(tail -n +2 "$1" | cut -d, -f1-6 | uniq | head -n "$2"); do
            grep "^$key," "$1"
        done
    }
    # calls JOURNAL: the board calls that made its rows (a final's row: 3 rounds)
    calls() {
        echo $(($(grep -c ',search,' "$1") + 3 * $(grep -c ',final,' "$1")))
    }
    local cal ref dir total first what
    for cal in false true; do
        ref=$work/replay-ref-$cal
        script "$ref" $cal
        board_reset
        if finish_run "$ref"; then ok; else bad "replay: uninterrupted run failed: $(cat "$ref/err")"; fi
        total=$(calls "$ref/out/r.csv")
        same "replay: calibrate $cal: measured" "$(wc -l <"$state/done")" "$total"
        same "replay: calibrate $cal: finals" "$(grep -c ',final,' "$ref/out/r.csv")" 13
        if [ $cal == true ]; then
            same "replay: calibrate: fits recorded" "$(($(wc -l <"$ref/out/r.csv.fit") - 1))" 4
        fi

        # the finished journal with its finals, run again: nothing measured,
        # nothing written, the same table
        what="replay: calibrate $cal: a finished journal with finals run again"
        dir=$work/replay-all-$cal
        script "$dir" $cal
        cp "$ref/out/r.csv" "$ref/out/r.csv.sig" "$dir/out/"
        [ $cal == true ] && cp "$ref/out/r.csv.fit" "$dir/out/"
        cp "$dir/out/r.csv" "$dir/journal.csv"
        board_reset
        if finish_run "$dir"; then ok; else bad "$what: failed: $(cat "$dir/err")"; fi
        same "$what: measured" "$(wc -l <"$state/done")" 0
        same_file "$what: the table" "$dir/out/r-table.csv" "$ref/out/r-table.csv"
        same_file "$what: the journal" "$dir/out/r.csv" "$dir/journal.csv"
        [ $cal == true ] && same_file "$what: the fits" "$dir/out/r.csv.fit" "$ref/out/r.csv.fit"

        # killed just after the first problem's final (and its fits): the
        # resumed run asks what the uninterrupted one asked, measuring the rest
        what="replay: calibrate $cal: killed after the first final"
        dir=$work/replay-cut-$cal
        script "$dir" $cal
        first_problems "$ref/out/r.csv" 1 >"$dir/out/r.csv"
        first=$(calls "$dir/out/r.csv")
        cp "$ref/out/r.csv.sig" "$dir/out/"
        [ $cal == true ] && grep -E '^(#|0 )' "$ref/out/r.csv.fit" >"$dir/out/r.csv.fit"
        board_reset
        if finish_run "$dir"; then ok; else bad "$what: resume failed: $(cat "$dir/err")"; fi
        same "$what: measured" "$(wc -l <"$state/done")" $((total - first))
        if diff <(asked "$ref/out/r.csv") <(asked "$dir/out/r.csv") >/dev/null; then ok; else
            bad "$what: the resumed run asked otherwise: $(diff <(asked "$ref/out/r.csv") <(asked "$dir/out/r.csv") | head -n 4)"
        fi
        same_file "$what: the table" "$dir/out/r-table.csv" "$ref/out/r-table.csv"
        [ $cal == true ] && same_file "$what: the fits" "$dir/out/r.csv.fit" "$ref/out/r.csv.fit"
    done
}

case $part in
board) board_part ;;
replay) replay_part ;;
calibrate) calibrate_part ;;
verify) verify_part ;;
final) final_part ;;
*) echo "resume.sh: unknown part '$part'" >&2; exit 2 ;;
esac
finish
