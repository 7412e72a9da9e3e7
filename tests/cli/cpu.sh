#!/usr/bin/env bash
# cpu.sh — the host CPU as a user meets it: target "host" in model/gen,
# generated C that compiles into a program and is right, and a small tuning run.
# Usage: cpu.sh PATH/TO/npu-tune SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/../lib.sh"
cc=${CC:-cc}

# --- model on the host ---
run 0 model --target host --shape 200x96x80 --strategy WS --tile 48x64x64 --micro 6x16
has "host legal" "$out" "legal: yes"
has "host config" "$out" "micro-tile 6x16"
run 0 model --target host --shape 200x96x80 --strategy WS --tile 48x64x64 --micro 40x64
has "micro too big" "$out" "micro-tile 40x64 needs"
run 0 model --target host --shape 512x768x768 --format csv
same "host model rows" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f8 | sort -u)" "1"
run 2 model --target ascend910 --shape 64x64x64 --micro 6x64
has "micro on npu" "$err" "npu-tune: model: --micro is a register micro-tile of cpu targets; 'ascend910' is an npu"
run 2 model --target ascend910 --shape 64x64x64 --pack off
has "no-pack on npu" "$err" "npu-tune: model: --pack off is a kernel family of cpu targets; 'ascend910' is an npu"
run 2 model --target host --shape 64x64x64 --pack maybe
has "bad pack" "$err" "npu-tune: model: --pack 'maybe' is not on or off"
run 0 model --target host --shape 64x64x64 --pack off
has "model --pack off" "$out" ", no packing"
has "model --pack off: OS only" "$out" "fastest by the model: OS "
run 2 gen --target host --shape 64x64x64 --strategy OS --tile 64x64x64 --micro 6x0
has "bad micro" "$err" "npu-tune: gen: --micro '6x0' must be MRxNR (each 1 to 255)"

# --- gen --target host: nt_sgemm, compiled into a program, checked ---
cat >"$work/driver.c" <<'C'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
void nt_sgemm(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
              int ldc);
/* C = A.B on shapes other than the tuned one (tails, thin, padded strides)
 * against plain loops in double. */
int main(void)
{
    static const int shapes[][3] = {{100, 70, 50}, {1, 1, 1}, {7, 130, 3}, {65, 1, 200},
                                    {33, 47, 0}, {256, 96, 301}};
    int bad = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        int lda = K + 3, ldb = N + 5, ldc = N + 2;
        float *A = malloc(sizeof(float) * (size_t)(M * lda + 1));
        float *B = malloc(sizeof(float) * (size_t)(K * ldb + 1));
        float *C = malloc(sizeof(float) * (size_t)(M * ldc));
        for (int i = 0; i < M * lda; i++) A[i] = (float)((i * 7 % 13) - 6) / 8;
        for (int i = 0; i < K * ldb; i++) B[i] = (float)((i * 5 % 11) - 5) / 4;
        for (int i = 0; i < M * ldc; i++) C[i] = 1e9f;
        nt_sgemm(M, N, K, A, lda, B, ldb, C, ldc);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double r = 0;
                for (int p = 0; p < K; p++) r += (double)A[i * lda + p] * B[p * ldb + j];
                if (fabs(C[i * ldc + j] - r) > 1e-4 * (1 + fabs(r))) bad++;
            }
        free(A), free(B), free(C);
    }
    printf("%d wrong\n", bad);
    return bad != 0;
}
C
check_kernel() { # NAME FILE: compiles FILE as a user would and runs the driver
    if "$cc" -O3 -march=native -fopenmp -Wall -Wextra -Werror -c "$2" -o "$work/k.o" 2>"$work/cc.err" &&
        "$cc" -O2 -fopenmp "$work/driver.c" "$work/k.o" -lm -o "$work/driver" 2>>"$work/cc.err"; then
        ok
        if out=$("$work/driver"); then ok; else bad "$1: $out"; fi
    else
        bad "$1: does not compile: $(head -n 3 "$work/cc.err")"
    fi
}
for cfg in "IS 48x64x32 off 1 M 6x16" "WS 96x128x64 on 2 N 2x32" "OS 64x96x48 on 2 M 4x16"; do
    set -- $cfg
    run 0 gen --target host --shape 100x70x50 --strategy "$1" --tile "$2" --double-buffer "$3" \
        --cores "$4" --split "$5" --micro "$6" -o "$work/k_$1.c"
    check_kernel "gen $cfg" "$work/k_$1.c"
done
run 1 gen --target host --shape 100x70x50 --strategy OS --tile 64x64x64 --cores 64
has "too many threads" "$err" "npu-tune: gen: config not legal on host: cores = 64, but target 'host' has"

# --- gen --dtype bf16 / fp16: nt_sbgemm / nt_shgemm over 16-bit A and B, fp32 C ---
cat >"$work/driver16.c" <<'C'
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef FP16
#define KERNEL nt_shgemm
#else
#define KERNEL nt_sbgemm
#endif
void KERNEL(int M, int N, int K, const uint16_t *A, int lda, const uint16_t *B, int ldb,
            float *C, int ldc);
/* the bits of a small integer v (-3..3) over 8: exact in bf16, fp16 and every sum */
static uint16_t bits(int v)
{
#ifdef FP16
    static const uint16_t mag[4] = {0x0000, 0x3000, 0x3400, 0x3600}; /* 0, 1/8, 2/8, 3/8 */
    return (uint16_t)(mag[v < 0 ? -v : v] | (v < 0 ? 0x8000 : 0));
#else
    float x = (float)v / 8.0f;
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (uint16_t)(u >> 16);
#endif
}
int main(void)
{
    static const int shapes[][3] = {{100, 70, 50}, {1, 1, 1}, {9, 130, 3}, {65, 1, 200}};
    int bad = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2], lda = K + 1, ldb = N + 3;
        uint16_t *A = malloc(sizeof *A * M * lda), *B = malloc(sizeof *B * K * ldb);
        float *C = malloc(sizeof *C * M * N);
        for (int i = 0; i < M * lda; i++) A[i] = bits(i % 7 - 3);
        for (int i = 0; i < K * ldb; i++) B[i] = bits(i % 5 - 2);
        KERNEL(M, N, K, A, lda, B, ldb, C, N);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double r = 0;
                for (int p = 0; p < K; p++)
                    r += (double)((i * lda + p) % 7 - 3) / 8 * ((double)((p * ldb + j) % 5 - 2) / 8);
                bad += C[i * N + j] != (float)r;
            }
        free(A), free(B), free(C);
    }
    printf("%d wrong\n", bad);
    return bad != 0;
}
C
# the entry point of a 16-bit storage kernel
sym_of() { [ "$1" = bf16 ] && echo nt_sbgemm || echo nt_shgemm; }
# whether FILE defines SYM(int M, int N, int K, const uint16_t *A, int lda, const uint16_t *B,
# int ldb, float *C, int ldc): its header names SYM, and a compiler takes that declaration
# after the kernel's definition
defines16() { # NAME FILE SYM
    has "$1 symbol" "$(cat "$2")" "#define NT_SYMBOL $3 "
    if { cat "$2"; printf 'void %s(int, int, int, const uint16_t *, int, const uint16_t *, int, float *,\n    int);\n' "$3"; } |
        "$cc" -std=c11 -fopenmp -fsyntax-only -x c - 2>"$work/cc.err"; then
        ok
    else
        bad "$1 signature: $(head -n 3 "$work/cc.err")"
    fi
}
for dt in bf16 fp16; do
    sym=$(sym_of $dt)
    run 0 gen --target host --shape 100x70x50 --dtype $dt --strategy WS --tile 48x64x32 --cores 2 \
        --split N --micro 6x16 -o "$work/k_$dt.c"
    defines16 "$dt entry" "$work/k_$dt.c" "$sym"
    if "$cc" -O3 -march=native -fopenmp -Wall -Wextra -Werror -c "$work/k_$dt.c" -o "$work/k_$dt.o" 2>"$work/cc.err" &&
        "$cc" -O2 -fopenmp $([ $dt = fp16 ] && echo -DFP16) "$work/driver16.c" "$work/k_$dt.o" -lm \
            -o "$work/driver_$dt" 2>>"$work/cc.err"; then
        ok
        if out=$("$work/driver_$dt"); then ok; else bad "$dt kernel: $out"; fi
    else
        bad "$dt kernel does not compile: $(head -n 3 "$work/cc.err")"
    fi
done
run 2 gen --target host --shape 100x70x50 --dtype int8 --strategy WS --tile 48x64x32
same "int8 on host" "$err" "npu-tune: gen: --dtype int8 does not run on target 'host' (cpu: computes fp16, fp32, bf16) (see 'npu-tune gen --help')"
run 2 model --target host --shape 100x70x50 --dtype int8
same "int8 on host" "$err" "npu-tune: model: --dtype int8 does not run on target 'host' (cpu: computes fp16, fp32, bf16) (see 'npu-tune model --help')"
run 2 model --target ascend910 --shape 64x64x64 --dtype fp32
same "fp32 on npu" "$err" "npu-tune: model: --dtype fp32 does not run on target 'ascend910' (npu: computes fp16, int8) (see 'npu-tune model --help')"

# --- a small tuning run on the host ---
cat >"$work/tiny.lua" <<'LUA'
target "host"
matmul { name = "tiny", shapes = { {64, 64, 64}, {100, 37, 50} } }
space { m = { 16, 48 }, n = { 32, 64 }, k = { 32, 64 }, micro = { "6x16", "2x32" } }
tune { budget = 4, results = "out/tiny.csv", table = "out/tiny-table.csv" }
LUA
run 0 --quiet tiny.lua
has "roofline" "$out" "host roofline: FMA peak"
has "time lost" "$out" "; a running thread loses "
has "gflops" "$out" "GFLOP/s"
same "table target" "$(sed -n 2p "$work/out/tiny-table.csv" | cut -d' ' -f1-4)" "# target host kind=cpu"
same "table header" "$(sed -n 3p "$work/out/tiny-table.csv")" "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,measured,unit,micro,verified,op,shape"
same "table rows" "$(tail -n +4 "$work/out/tiny-table.csv" | cut -d, -f1,6,7,16,18 | sort -u)" "tiny,fp32,host,s,1"
same "journal statuses" "$(tail -n +2 "$work/out/tiny.csv" | cut -d, -f17,18,20 | sort -u)" "host,ok,s"
same "journal search rows" "$(tail -n +2 "$work/out/tiny.csv" | grep -c ',search,')" "8"
# The final: the search's best (up to 4 within 10%, and the runner-up) and the model's pick timed
# again side by side;
# its rows are ok, each of a searched config, and a problem that had one has
# its winner among them, at the final's figure.
journal_rows=$(tail -n +2 "$work/out/tiny.csv" | wc -l | tr -d ' ')
final_check=$(awk -F, 'NR > 1 && $22 == "search" { seen[$1 FS $2 FS $3 FS $4 FS $8 FS $9 FS $10 FS $11 FS $21] = 1 }
    NR > 1 && $22 == "final" { n++; key = $1 FS $2 FS $3 FS $4 FS $8 FS $9 FS $10 FS $11 FS $21
        if ($18 != "ok" || !(key in seen)) bad++; fin[$2 "x" $3 "x" $4 FS $19] = 1; had[$2 "x" $3 "x" $4] = 1 }
    END { print n + 0, bad + 0 > "/dev/stderr"; for (k in fin) print k }' "$work/out/tiny.csv" 2>"$work/final.n")
same "final rows are ok searched configs" "$(cut -d' ' -f2 "$work/final.n")" "0"
same "journal rows" "$journal_rows" "$((8 + $(cut -d' ' -f1 "$work/final.n")))"
while IFS=, read -r _ M N K _ _ _ _ _ _ _ _ _ _ measured _; do
    shape="${M}x${N}x${K}"
    if printf '%s\n' "$final_check" | grep -q "^$shape,"; then
        if printf '%s\n' "$final_check" | grep -qx "$shape,$measured"; then ok; else bad "winner of $shape is not the final's ($measured)"; fi
    fi
done < <(tail -n +4 "$work/out/tiny-table.csv")
micro=$(tail -n +4 "$work/out/tiny-table.csv" | cut -d, -f17 | sort -u | tr '\n' ' ')
case "$micro" in *6x16*|*2x32*) ok ;; *) bad "table micro-tiles: '$micro'" ;; esac
run 0 --quiet --format csv tiny.lua # resumed: nothing measured again
same "resumed journal" "$(tail -n +2 "$work/out/tiny.csv" | wc -l | tr -d ' ')" "$journal_rows"
# The model's pick (measured ok) is a finalist: the summary's gap sets two
# figures of one final against each other.
printf '%s\n' "$out" >"$work/summary.csv"
pick_check=$(awk -F, 'FNR == 1 { next } FILENAME != ARGV[2] { if ($22 == "final") fin[$2 "x" $3 "x" $4] = fin[$2 "x" $3 "x" $4] " " $19; next }
    { shape = $2 "x" $3 "x" $4; if (!(shape in fin) || $22 == "") next; n++; found = 0
      k = split(fin[shape], v, " "); for (q = 1; q <= k; q++) if (v[q] - $22 <= 1e-5 * v[q] && $22 - v[q] <= 1e-5 * v[q]) found = 1
      if (!found) print "pick of " shape " measured " $22 " is no final figure (" fin[shape] " )" }
    END { if (!n) print "no problem had a final and a measured pick" }' "$work/out/tiny.csv" "$work/summary.csv")
same "model's pick in the final" "$pick_check" ""
# The clock is measured, a little different every run, and journals in seconds
# do not depend on it: another clock resumes the same journal.
sed 's/^target "host"$/target { base = "host", name = "host", clock_mhz = 1234 }/' "$work/tiny.lua" >"$work/tiny_clock.lua"
run 0 --quiet tiny_clock.lua
same "resumed at another clock" "$(tail -n +2 "$work/out/tiny.csv" | wc -l | tr -d ' ')" "$journal_rows"
# A journal of other generated kernels (as after an upgrade) is not resumed.
has "kernel signature" "$(cat "$work/out/tiny.csv.sig")" "kernel_sig="
cp "$work/out/tiny.csv.sig" "$work/tiny.sig.saved"
sed -i 's/^kernel_sig=.*/kernel_sig=0000000000000000/' "$work/out/tiny.csv.sig"
run 1 --quiet tiny.lua
has "other kernels refused" "$err" "out/tiny.csv was written with other generated kernels (signature 0000000000000000), this build generates "
cp "$work/tiny.sig.saved" "$work/out/tiny.csv.sig"
run 0 gen --table out/tiny-table.csv --shape 100x37x50 -o k_table.c
same "gen --table exact" "$err" ""
check_kernel "gen --table" "$work/k_table.c"
# bf16 and fp16 storage: verified and timed through the runner as well; gen
# --table takes the table's dtype
for dt in bf16 fp16; do
    sed -e "s/shapes = {/dtype = \"$dt\", shapes = {/" -e "s|out/tiny|out/tiny_$dt|g" \
        "$work/tiny.lua" >"$work/tiny_$dt.lua"
    run 0 --quiet "tiny_$dt.lua"
    same "$dt journal" "$(tail -n +2 "$work/out/tiny_$dt.csv" | grep ',search,' | cut -d, -f6,18 | sort | uniq -c | tr -s ' ')" " 8 $dt,ok"
    run 0 gen --table "out/tiny_$dt-table.csv" --shape 100x37x50 -o "k_table_$dt.c"
    same "gen --table $dt exact" "$err" ""
    defines16 "gen --table $dt" "$work/k_table_$dt.c" "$(sym_of $dt)"
done
run 2 gen --table out/tiny-table.csv --shape 100x37x50 --cores 2 -o k_table2.c
has "gen --table --cores" "$err" "npu-tune: gen: --table takes the config from the table; drop --strategy, --tile, --double-buffer, --cores, --split, --micro and --pack"
absent "gen --table --cores: a kernel" "$work/k_table2.c"
# a hand-edited table: an entry no longer legal is named by file:line; a row
# of another target than the signature's is refused where it stands
awk -F, -v OFS=, '$2 == 100 && $3 == 37 { $13 = 64 } { print }' "$work/out/tiny-table.csv" >"$work/edited.csv"
line=$(grep -n '^[^,]*,100,37,50,' "$work/edited.csv" | cut -d: -f1)
run 1 gen --table edited.csv --shape 100x37x50 -o k_edited.c
has "illegal entry" "$err" "npu-tune: gen: edited.csv:$line: the entry for 100x37x50, "
has "illegal entry why" "$err" "is not legal on host: cores = 64, but target 'host' has"
absent "gen of an illegal entry: a kernel" "$work/k_edited.c"
awk -F, -v OFS=, 'NR > 2 && $2 == 100 { $7 = "ascend910" } { print }' "$work/out/tiny-table.csv" >"$work/other.csv"
line=$(grep -n ',ascend910,' "$work/other.csv" | head -n 1 | cut -d: -f1)
run 1 gen --table other.csv --shape 100x37x50
same "other target" "$err" "npu-tune: gen: other.csv:$line: target 'ascend910' is not the table's, 'host' (line 1)"
# -o through a symlink writes its file and keeps the link
ln -sf k_real.c "$work/k_link.c"
run 0 gen --table out/tiny-table.csv --shape 100x37x50 -o k_link.c
[ -L "$work/k_link.c" ] && cmp -s "$work/k_real.c" "$work/k_table.c" && ok || bad "gen -o symlink"
run 0 table export out/tiny-table.csv -o tiny.h
cat >"$work/lookup.c" <<'C'
#include <stdio.h>
#include "tiny.h"
int main(void)
{
    const npu_tune_entry *e = npu_tune_lookup(100, 37, 50, 1, "fp32");
    printf("%ld %d %d\n", e ? e->M : 0L, e ? e->mr : 0, e ? e->nr : 0);
    return 0;
}
C
if "$cc" -std=c11 -Wall -Wextra -Werror -I"$work" "$work/lookup.c" -o "$work/lookup" 2>"$work/cc.err"; then
    ok
    has "header lookup" "$("$work/lookup")" "100 "
else
    bad "header: $(head -n 3 "$work/cc.err")"
fi

# --- a crashing and a hanging candidate in a tuning run ---
# The compiler wrapper plants a trap in the entry point of the third kernel of each
# batch (between its header's #define NT_SYMBOL and the template's #undef) and an
# endless loop in the sixth's; the run must give them their statuses and go on.
cat >"$work/plantcc.sh" <<'SH'
#!/usr/bin/env bash
args=()
for a in "$@"; do
    case "$a" in
    *.c)
        sed -e '/^#define NT_SYMBOL nt_k2 /,/^#undef NT_SYMBOL/ { /^void NT_SYMBOL(/,/^{/ s/^{/{ __builtin_trap();/ }' \
            -e '/^#define NT_SYMBOL nt_k5 /,/^#undef NT_SYMBOL/ { /^void NT_SYMBOL(/,/^{/ s/^{/{ for (;;) {}/ }' \
            "$a" >"$a.planted.c"
        args+=("$a.planted.c") ;;
    *) args+=("$a") ;;
    esac
done
exec cc "${args[@]}"
SH
cat >"$work/plant.lua" <<'LUA'
target "host"
matmul { name = "plant", shapes = { {96, 64, 64} } }
space { m = { 16, 32, 48, 96 }, n = { 32, 64 }, k = { 32, 64 }, micro = "4x16" }
tune { budget = 8, timeout = 3, results = "out/plant.csv", table = "out/plant-table.csv" }
LUA
(cd "$work" && CC="bash $work/plantcc.sh" "$bin" --quiet plant.lua >"$work/.out" 2>"$work/.err")
code=$?
same "planted run exit" "$code" "0"
statuses=$(tail -n +2 "$work/out/plant.csv" | grep ',search,' | cut -d, -f18 | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')
same "planted statuses" "$statuses" "crash=1 ok=6 timeout=1 "
has "planted crash detail" "$(cat "$work/out/plant.csv")" ",crash,"
same "planted table" "$(tail -n +4 "$work/out/plant-table.csv" | cut -d, -f1,16)" "plant,s"
# A compiler that fails every candidate: the run says why, not only that none measured ok.
sed -e 's/budget = 8/budget = 2/' -e 's/, micro = "4x16"//' -e 's|out/plant|out/nocc|g' "$work/plant.lua" >"$work/nocc.lua"
(cd "$work" && CC=false "$bin" --quiet nocc.lua >"$work/.out" 2>"$work/.err")
same "no compiler exit" "$?" "1"
has "no compiler why" "$(cat "$work/.err")" "npu-tune: warning: plant: none of 2 candidates measured ok; the first, "
has "no compiler reason" "$(cat "$work/.err")" ", is illegal: the compiler failed without a message"

# --- the no-pack family: gen, a tuning run that measures and verifies it, its table ---
run 0 gen --target host --shape 100x70x50 --strategy OS --tile 48x64x50 --micro 6x16 --pack off \
    -o "$work/k_nopack.c"
has "gen --pack off" "$(cat "$work/k_nopack.c")" "#define NT_NOPACK 1 "
check_kernel "gen --pack off" "$work/k_nopack.c"
run 0 gen --target host --shape 100x70x50 --strategy OS --tile 48x64x3 --micro 1x16 --pack off \
    --cores 2 --split N -o "$work/k_nopack_kb.c"
check_kernel "gen --pack off, k blocks, 2 threads" "$work/k_nopack_kb.c"
run 1 gen --target host --shape 100x70x50 --strategy OS --tile 48x64x32 --micro 6x16 --pack off \
    --double-buffer on
has "no-pack needs no double buffering" "$err" "needs fp32, strategy OS and double_buffer off"
cat >"$work/small.lua" <<'LUA'
target "host"
matmul { name = "small", shapes = { {64, 64, 64}, {9, 40, 33} } }
space { m = { 16, 64 }, n = { 32, 64 }, k = { 32, 64 }, micro = { "4x16", "2x32" }, pack = false }
tune { budget = 3, results = "out/small.csv", table = "out/small-table.csv" }
LUA
run 0 --quiet small.lua
same "no-pack table format" "$(head -n 1 "$work/out/small-table.csv" | cut -d' ' -f1-4)" "# npu-tune table 6"
same "no-pack entries verified" "$(tail -n +4 "$work/out/small-table.csv" | cut -d, -f1,18,21 | sort -u)" "small,1,0"
same "no-pack rows" "$(tail -n +2 "$work/out/small.csv" | cut -d, -f18,26 | sort -u)" "ok,0"
run 0 gen --table out/small-table.csv --shape 9x40x33 -o k_small.c
has "gen --table no-pack" "$(cat "$work/k_small.c")" "#define NT_NOPACK 1 "
check_kernel "gen --table no-pack" "$work/k_small.c"
# no-pack only where it cannot apply (16-bit storage): no legal config, as for any space
sed -e 's/shapes = { {64, 64, 64}, {9, 40, 33} }/shapes = { {64, 64, 64} }, dtype = "bf16"/' \
    -e 's|out/small|out/half|g' "$work/small.lua" >"$work/half.lua"
run 1 half.lua
has "no-pack bf16" "$err" "half.lua:3: space: no legal config for small 64x64x64 on host"

# --- kinds that do not mix ---
printf 'target "host"\nmatmul { name = "x", shapes = { {64, 64, 64} } }\ntune { measure = "sim" }\n' >"$work/hostsim.lua"
run 1 hostsim.lua
same "sim on host" "$err" "npu-tune: hostsim.lua:3: tune: measure 'sim' simulates npu targets; target 'host' is a cpu (use measure = \"host\")"
printf 'target "ascend910"\nmatmul { name = "x", shapes = { {64, 64, 64} } }\ntune { measure = "host" }\n' >"$work/npuhost.lua"
run 1 npuhost.lua
same "host on npu" "$err" "npu-tune: npuhost.lua:3: tune: measure 'host' runs kernels on the host cpu; target 'ascend910' is an npu (use target \"host\", or measure = \"sim\")"

finish
