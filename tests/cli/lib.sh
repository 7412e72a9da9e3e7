#!/usr/bin/env bash
# lib.sh — `npu-tune lib` as a user meets it: its errors, the library it writes built
# with CMake and installed, and that library checked: by properties against a
# reference (default), by the reference BLAS's own test programs (reference), by
# numpy with the library preloaded (numpy).
# Usage: lib.sh PATH/TO/npu-tune SOURCE_DIR [reference|numpy]
set -u
bin=$1
src=$2
mode=${3:-}
. "$(dirname "$0")/../lib.sh"
cc=${CC:-cc}
blas=/usr/lib/x86_64-linux-gnu/blas # Debian's libblas-test and reference BLAS
case "$mode" in
reference) [ -x "$blas/xblat3s" ] && [ -x "$blas/xscblat3" ] ||
    skip "libblas-test is not installed (xblat3s, xscblat3)" ;;
numpy) python=
    for p in python3 /usr/bin/python3; do
        if "$p" -c 'import numpy' 2>/dev/null; then python=$p; break; fi
    done
    [ -n "$python" ] || skip "no python3 with numpy (python3-numpy)" ;;
esac
command -v cmake >/dev/null || skip "cmake not found"

# --- the tables: a CPU like this one's class, tuned by the model (fast, the same
# everywhere): two-thread fp32 and bf16 entries, one-thread fp32 ones (64x64x64 again;
# 12x64x33, whole 6x32 tiles; 11x64x33, tiles of 6 and 5 rows; 12x64x12 and 12x32x32,
# whose dense operands have the strides of a transposed one), which may also take the
# no-pack family, a GEMV-like one with k blocks ---
cat >"$work/two.lua" <<'LUA'
target { name = "box", kind = "cpu", cores = 2, clock_mhz = 3000,
         simd_floats = 16, vregs = 32, fma_units = 2, load_ports = 2,
         l1 = 48 * KiB, l2 = 1 * MiB, l3 = 32 * MiB,
         bandwidth = { l2 = 64, l3 = 32, mem = 16, mem_shared = 24 } }
matmul { name = "two", shapes = { {64, 64, 64}, {65, 33, 17}, {200, 300, 100} }, dtype = "fp32" }
space { strategy = { "IS", "WS", "OS" }, m = { 24, 48, 96 }, n = { 32, 64, 128 }, k = { 32, 64 },
        micro = { "6x32", "4x16" }, double_buffer = { false, true }, cores = { 2 },
        split = { "M", "N", "MN" } }
tune { measure = "model", budget = 2, results = "two.csv", table = "two-table.csv" }
LUA
sed 's/"two"/"one"/; s/{64, 64, 64}, {65, 33, 17}, {200, 300, 100}/{9, 17, 33}, {64, 64, 64}, {33, 9, 65}, {12, 64, 33}, {11, 64, 33}, {12, 64, 12}, {12, 32, 32}, {1, 3000, 700}/
     s/m = { 24, 48, 96 }, n = { 32, 64, 128 }, k = { 32, 64 }/m = { 6, 12, 48 }, n = { 16, 32, 64, 3008 }, k = { 4, 16, 32, 64 }/
     s/"4x16" }/"4x16", "1x64" }/
     s/cores = { 2 }/cores = { 1 }, pack = { true, false }/; s/two\.csv/one.csv/; s/two-table/one-table/' \
    "$work/two.lua" >"$work/one.lua"
sed 's/"two"/"half"/; s/"fp32"/"bf16"/; s/two\.csv/half.csv/; s/two-table/half-table/' \
    "$work/two.lua" >"$work/half.lua"
for s in two one half; do
    run 0 --quiet "$s.lua"
done
tables="two-table.csv one-table.csv half-table.csv"

# builds DIR with CMake into DIR/build (extra cmake arguments after DIR); false with
# the first lines of the errors in $why
build() {
    local dir=$1
    shift
    if cmake -S "$work/$dir" -B "$work/$dir/build" "$@" >"$work/cmake.log" 2>&1 &&
        cmake --build "$work/$dir/build" -j2 >>"$work/cmake.log" 2>&1; then
        return 0
    fi
    why=$(grep -E -m 5 "error|Error" "$work/cmake.log")
    return 1
}

run 0 lib $tables -o lib
same "lib quiet" "$err" ""
# the model picks the no-pack family for the small one-thread shapes: their kernels are
# in the library, and every check below runs them
has "one-table format" "$(head -n 1 "$work/one-table.csv")" "# npu-tune table 6 "
nopack=$(grep -c '^#define NT_NOPACK 1 ' "$work/lib/npu_tune_gemm.c")
[ "$nopack" -ge 1 ] && ok || bad "lib: no no-pack kernel: $(cat "$work/one-table.csv")"
# each no-pack kernel lists its entries' shapes, for a loop specialized to each
same "lib no-pack shapes" "$(grep -c '^#define NT_DENSE(X) X(' "$work/lib/npu_tune_gemm.c")" "$nopack"
# the transposed dense calls of lib_props reach a dense loop only if these two are listed,
# and its tiles of 6 and 5 rows only if 11x64x33 is
dense=$(grep '^#define NT_DENSE(X) ' "$work/lib/npu_tune_gemm.c")
has "lib dense 12x64x12" "$dense" "X(12, 64, 12)"
has "lib dense 11x64x33" "$dense" "X(11, 64, 33)"
has "lib dense 12x32x32" "$dense" "X(12, 32, 32)"
kblocks=$(grep -c '^    NT_(MC) = 6, NT_(NC) = 3008, NT_(KC) = 4,' "$work/lib/npu_tune_gemm.c")
[ "$kblocks" -ge 1 ] && ok || bad "lib: no no-pack kernel with k blocks: $(cat "$work/one-table.csv")"
if ! build lib -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" \
    -DCMAKE_INSTALL_PREFIX="$work/prefix"; then
    bad "the library does not build: $why"
    finish
    exit
fi
so=$work/lib/build/libnpu_tune_gemm.so

case "$mode" in
reference)
    # the reference BLAS's Level 3 tests of SGEMM (error exits included) on sizes past the
    # micro-tiles and the tables' shapes, with the library preloaded over the reference
    # BLAS; the library counts the calls it dispatched (NPU_TUNE_GEMM_STATS)
    params='9                 NUMBER OF VALUES OF N
0 1 2 3 9 17 33 64 65       VALUES OF N
3                 NUMBER OF VALUES OF ALPHA
0.0 1.0 0.7       VALUES OF ALPHA
3                 NUMBER OF VALUES OF BETA
0.0 1.0 1.3       VALUES OF BETA'
    head=\''SBLAT3.SNAP'\''     NAME OF SNAPSHOT OUTPUT FILE
-1                UNIT NUMBER OF SNAPSHOT FILE (NOT USED IF .LT. 0)
F        LOGICAL FLAG, T TO REWIND SNAPSHOT FILE AFTER EACH RECORD.
F        LOGICAL FLAG, T TO STOP ON FAILURES.
T        LOGICAL FLAG, T TO TEST ERROR EXITS.'
    { printf "'sblat3.out'      NAME OF SUMMARY OUTPUT FILE\n6                 UNIT NUMBER OF SUMMARY FILE\n"
        printf '%s\n16.0     THRESHOLD VALUE OF TEST RATIO\n%s\n' "$head" "$params"
        for r in SGEMM SSYMM STRMM STRSM SSYRK SSYR2K; do
            printf '%-6s %s PUT F FOR NO TEST. SAME COLUMNS.\n' $r "$([ $r = SGEMM ] && echo T || echo F)"
        done; } >"$work/s3.in"
    { printf '%s\n2        0 TO TEST COLUMN-MAJOR, 1 TO TEST ROW-MAJOR, 2 TO TEST BOTH\n' "$head"
        printf '16.0     THRESHOLD VALUE OF TEST RATIO\n%s\n' "$params"
        for r in sgemm ssymm strmm strsm ssyrk ssyr2k; do
            printf 'cblas_%-6s %s PUT F FOR NO TEST. SAME COLUMNS.\n' $r "$([ $r = sgemm ] && echo T || echo F)"
        done; } >"$work/c3.in"
    for t in xblat3s:s3 xscblat3:c3; do
        prog=${t%%:*} in=${t#*:}
        (cd "$work" && LD_LIBRARY_PATH=$blas LD_PRELOAD=$so NPU_TUNE_GEMM_STATS=1 LD_DEBUG=bindings \
            LD_DEBUG_OUTPUT="$work/$prog.bind" "$blas/$prog" <"$in.in" >"$prog.out" 2>"$prog.err")
        same "$prog exit" "$?" 0
        report=$(cat "$work/$prog.out" "$work/sblat3.out" 2>/dev/null)
        rm -f "$work/sblat3.out"
        if [ $prog = xblat3s ]; then
            has "$prog error exits" "$report" "SGEMM  PASSED THE TESTS OF ERROR-EXITS"
            has "$prog computations" "$report" "SGEMM  PASSED THE COMPUTATIONAL TESTS ( 59049 CALLS)"
            entry=sgemm_
        else
            has "$prog error exits" "$report" "cblas_sgemm  PASSED THE TESTS OF ERROR-EXITS"
            has "$prog column-major" "$report" "cblas_sgemm  PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS ( 59049 CALLS)"
            has "$prog row-major" "$report" "cblas_sgemm  PASSED THE ROW-MAJOR    COMPUTATIONAL TESTS ( 59049 CALLS)"
            entry=cblas_sgemm
        fi
        case "$report" in *FAIL*|*"XERBLA WAS"*) bad "$prog: $(grep -m 3 -E 'FAIL|XERBLA' <<<"$report")" ;; *) ok ;; esac
        # the program's calls bound to the library, which ran them: the tables' shapes
        # exactly, the rest by the nearest entry
        has "$prog binds $entry" "$(cat "$work/$prog.bind".* 2>/dev/null)" \
            "to $so [0]: normal symbol \`$entry'"
        stats=$(grep "^npu_tune_gemm: sgemm:" "$work/$prog.err")
        if [[ $stats =~ ([0-9]+)\ exact,\ ([0-9]+)\ nearest ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] &&
            [ "${BASH_REMATCH[2]}" -gt 0 ]; then ok; else bad "$prog dispatch counts: '$stats'"; fi
    done
    finish
    exit
    ;;
numpy)
    # numpy's float32 matmul (cblas_sgemm through libblas.so.3) with the library preloaded
    # gives what it gives without, and went through the library
    cat >"$work/np.py" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(25)
out = {}
for (M, N, K) in [(64, 64, 64), (65, 33, 17), (200, 300, 100), (9, 17, 33), (100, 120, 90)]:
    a = rng.standard_normal((M, K), dtype=np.float32)
    b = rng.standard_normal((K, N), dtype=np.float32)
    out[f"{M}x{N}x{K}"] = a @ b
    out[f"{M}x{N}x{K}T"] = np.asfortranarray(a) @ np.ascontiguousarray(b.T).T
    out[f"{M}x{N}x{K}V"] = np.ascontiguousarray(np.pad(a, ((0, 0), (0, 3))))[:, :K] @ b
np.savez(sys.argv[1], **out)
PY
    (cd "$work" && "$python" np.py plain.npz && LD_PRELOAD=$so NPU_TUNE_GEMM_STATS=1 "$python" np.py \
        preloaded.npz 2>"$work/np.err")
    same "numpy runs" "$?" 0
    stats=$(grep "^npu_tune_gemm: sgemm:" "$work/np.err")
    has "numpy calls the library" "$stats" "npu_tune_gemm: sgemm: 15 calls: 12 exact, 3 nearest"
    close=$(cd "$work" && "$python" -c '
import numpy as np
a, b = np.load("plain.npz"), np.load("preloaded.npz")
bad = [k for k in a.files if not np.allclose(a[k], b[k], rtol=1e-4, atol=1e-4)]
print(" ".join(bad) if bad else "same")')
    same "numpy results" "$close" same
    finish
    exit
    ;;
esac

# --- the files, and the entries in the source ---
for f in npu_tune_gemm.c npu_tune_gemm.h CMakeLists.txt npu_tune_gemm.pc.in; do
    [ -s "$work/lib/$f" ] && ok || bad "lib: no $f"
done
for f in libnpu_tune_gemm.a libnpu_tune_gemm.so; do
    [ -e "$work/lib/build/$f" ] && ok || bad "build: no $f"
done
lists=$(grep -E '^    X\(' "$work/lib/npu_tune_gemm.c" | sed 's| /\*.*||')
same "lib entries" "$(grep -c . <<<"$lists")" 13
# a no-pack entry names its kernel's loop for the dispatcher to call, a packing one none
has "lib dense loop listed" "$(grep 'X(11, 64, 33,' <<<"$lists")" "_dense_call)"
has "lib no dense loop" "$(grep 'X(200, 300, 100,' <<<"$lists")" ", 0)"
has "lib two-thread entry" "$lists" "X(200, 300, 100, 2, NT_LIB_SPLIT_"
has "lib later duplicate left out" "$(grep -c 'X(64, 64, 64' <<<"$lists")" 2
# the .so exports the entry points and nothing of the kernels
exports=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v '^_' | sort | tr '\n' ' ')
same "exports" "$exports" "cblas_sgemm cblas_xerbla nt_sbgemm nt_sgemm sgemm_ xerbla_ "
# the no-pack micro-kernel is inlined into its tile loop as in the kernel the tuner timed,
# also in a source of many kernels, where the compiler would call it per tile instead
same "no-pack tiles inlined" "$(nm "$so" | grep -c '_dkr')" 0
# the header alone, in C and C++
for lang in c c++; do
    if echo '#include "npu_tune_gemm.h"' | "$cc" -x $lang -fsyntax-only -Wall -Wextra -Werror \
        -I"$work/lib" - 2>"$work/cc.err"; then ok; else bad "header in $lang: $(head -n 3 "$work/cc.err")"; fi
done
# under clang too, when there (with its OpenMP)
if command -v clang >/dev/null && [ "$cc" != clang ]; then
    run 0 lib $tables -o lib_clang
    if build lib_clang -DCMAKE_C_COMPILER=clang -DCMAKE_C_FLAGS="-Wall -Wextra -Werror"; then ok; else
        bad "the library does not build with clang: $why"
    fi
fi

# --- properties: random shapes, layouts, transposes, strides, alpha, beta; installed and
# found by pkg-config, linked statically ---
if cmake --install "$work/lib/build" >"$work/install.log" 2>&1; then ok; else
    bad "install: $(head -n 3 "$work/install.log")"
fi
pc=$(find "$work/prefix" -name npu_tune_gemm.pc)
[ -n "$pc" ] && ok || bad "install: no npu_tune_gemm.pc"
flags="-I$work/lib $work/lib/build/libnpu_tune_gemm.a -fopenmp"
if command -v pkg-config >/dev/null && [ -n "$pc" ]; then
    flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --static --cflags --libs npu_tune_gemm 2>&1) &&
        ok || bad "pkg-config: $flags"
    flags=${flags/-lnpu_tune_gemm/-Wl,-Bstatic -lnpu_tune_gemm -Wl,-Bdynamic} # the .a, not the .so
fi
if "$cc" -O2 -std=c11 -Wall -Wextra -Werror "$src/tests/cli/lib_props.c" $flags -lgsl -lgslcblas -lm \
    -o "$work/props" 2>"$work/cc.err"; then
    ok
    began=$(date +%s%N)
    out=$(NPU_TUNE_GEMM_STATS=1 "$work/props" 1000 2>"$work/props.err")
    same "properties" "$?" 0
    took=$((($(date +%s%N) - began) / 1000000))
    has "properties" "$out" "1000 cases, 0 failed"
    # the threads' start-up, measured at the first call that might take them (none where
    # one CPU caps every call at one thread) and again 1, 2, 4 ... s later (a busy moment's
    # figure does not stay): the more often measured of asleep and awake
    if [ "$(nproc)" -ge 2 ]; then
        startup=$(grep ' start-up:' "$work/props.err")
        times=0
        for n in $(sed -n 's/.*(measured \([0-9]*\) times\{0,1\}).*/\1/p' <<<"${startup//, /$'\n'}"); do
            [ "$n" -gt "$times" ] && times=$n
        done
        if [ "$times" -ge 1 ] && { [ "$took" -lt 2500 ] || [ "$times" -ge 2 ]; }; then ok; else
            bad "start-up measured (run of $took ms): '$startup'"
        fi
    fi
    # the two-thread kernels on one thread, as the dispatcher runs them where
    # starting threads costs more than they save
    out=$(NPU_TUNE_GEMM_THREADS=1 NPU_TUNE_GEMM_STATS=1 "$work/props" 300 2>"$work/one.err")
    same "properties, one thread" "$?" 0
    has "properties, one thread" "$out" "300 cases, 0 failed"
    has "one thread: none threaded" "$(grep ' sgemm:' "$work/one.err")" "; 0 on several threads"
    # OMP_NUM_THREADS caps the threads as NPU_TUNE_GEMM_THREADS does; so do the CPUs the
    # process may run on: two threads on one CPU would take turns at it
    # (a start-up given as free, so that only the cap can hold the threads back: measured,
    # it depends on how busy the machine is while the process starts)
    export NPU_TUNE_GEMM_START_US=0
    OMP_NUM_THREADS=1 NPU_TUNE_GEMM_STATS=1 "$work/props" 100 >/dev/null 2>"$work/omp.err"
    has "OMP_NUM_THREADS=1: none threaded" "$(grep ' sgemm:' "$work/omp.err")" "; 0 on several threads"
    if [ "$(nproc)" -ge 2 ]; then
        NPU_TUNE_GEMM_STATS=1 "$work/props" 100 >/dev/null 2>"$work/free.err"
        if [[ $(grep ' sgemm:' "$work/free.err") =~ \ ([1-9][0-9]*)\ on\ several\ threads ]]; then ok; else
            bad "threaded calls: '$(grep ' sgemm:' "$work/free.err")'"
        fi
        if command -v taskset >/dev/null; then
            NPU_TUNE_GEMM_STATS=1 taskset -c 0 "$work/props" 100 >/dev/null 2>"$work/cpu.err"
            has "one CPU: none threaded" "$(grep ' sgemm:' "$work/cpu.err")" "; 0 on several threads"
        fi
    fi
    # a start-up longer than any of these calls keeps every one on one thread
    NPU_TUNE_GEMM_START_US=10000000 NPU_TUNE_GEMM_STATS=1 "$work/props" 100 >/dev/null 2>"$work/slow.err"
    has "long start-up: none threaded" "$(grep ' sgemm:' "$work/slow.err")" "; 0 on several threads"
    has "long start-up: given" "$(grep ' start-up:' "$work/slow.err")" \
        "start-up: 10000000.0 us asleep (given), 10000000.0 us awake (given)"
    unset NPU_TUNE_GEMM_START_US
    # callers on four threads at once; the pool's workers asleep between calls
    out=$("$work/props" 400 4)
    same "properties, four callers" "$?" 0
    has "properties, four callers" "$out" "400 cases, 0 failed"
    out=$(NPU_TUNE_GEMM_SPIN_US=0 "$work/props" 300)
    same "properties, workers that never spin" "$?" 0
    has "properties, workers that never spin" "$out" "300 cases, 0 failed"
    # every way of dispatching was taken: exact, nearest, and (bf16, whose entries all
    # want two threads) the general kernel
    has "dispatch fp32" "$(cat "$work/props.err")" "npu_tune_gemm: sgemm:"
    stats=$(grep "sbgemm" "$work/props.err")
    if [[ $stats =~ ([1-9][0-9]*)\ exact,\ ([1-9][0-9]*)\ nearest,\ ([1-9][0-9]*)\ general ]]; then ok; else
        bad "dispatch bf16: '$stats'"
    fi
else
    bad "properties: does not compile: $(head -n 3 "$work/cc.err")"
fi

# --- errors: one line each, nothing written ---
run 2 lib
has "no table" "$err" "npu-tune: lib: a TABLE.csv is required (see 'npu-tune lib --help')"
run 2 lib two-table.csv
has "no -o" "$err" "npu-tune: lib: -o DIR is required"
run 2 lib two-table.csv -o x --frobnicate
has "bad option" "$err" "npu-tune: lib: unknown or incomplete option '--frobnicate'"
run 0 lib --help
has "help" "$out" "usage: npu-tune lib TABLE.csv... -o DIR"
run 1 lib missing.csv -o out1
has "missing table" "$err" "npu-tune: lib: cannot open 'missing.csv'"
absent "missing table: no output" "$work/out1"
mkdir -p "$work/d"
cp "$work/two-table.csv" "$work/d/npu_tune_gemm.h"
run 1 lib d/npu_tune_gemm.h -o d
has "output is an input" "$err" "is the table"
same_file "output is an input: the table kept" "$work/d/npu_tune_gemm.h" "$work/two-table.csv"
touch "$work/afile"
run 1 lib two-table.csv -o afile
has "output dir is a file" "$err" "npu-tune: lib: "
same "one line" "$(grep -c . <<<"$err")" 1
cat >"$work/npu.lua" <<'LUA'
target "ascend910"
matmul { name = "npu", shapes = { {256, 256, 256} } }
tune { measure = "model", budget = 2, results = "npu.csv", table = "npu-table.csv" }
LUA
run 0 --quiet npu.lua
run 1 lib npu-table.csv -o npu
has "npu table" "$err" "npu-tune: lib: npu-table.csv has no host entry; a library is made of host (CPU) kernels"
absent "npu table: nothing written" "$work/npu"
# a hand-edited entry that is no longer legal: named by its file and line
awk -F, -v OFS=, '$2 == 200 { $13 = 64 } { print }' "$work/two-table.csv" >"$work/edited.csv"
run 1 lib edited.csv -o edited
has "illegal entry" "$err" "npu-tune: lib: edited.csv:6: the entry for 200x300x100 is not legal on box:"
finish
