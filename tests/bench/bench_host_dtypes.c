/* bench_host_dtypes.c — what 16-bit storage costs a generated host kernel: one config's kernel
 * in fp32, bf16 and fp16, verified, then timed side by side in round-robin rounds. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "codegen.h"
#include "csv.h"
#include "expect.h"
#include "rounds.h"
#include "so.h"

typedef void (*k32)(int, int, int, const float *, int, const float *, int, float *, int);
typedef void (*k16)(int, int, int, const uint16_t *, int, const uint16_t *, int, float *, int);

static const sp_dtype dtypes[] = {SP_FP32, SP_BF16, SP_FP16};
enum { NDT = sizeof dtypes / sizeof dtypes[0], MAXPAIRS = 8 };
#define WHO "bench_host_dtypes"

static int usage(void)
{
    fprintf(stderr,
            "usage: bench_host_dtypes [--check] [--rounds R] MxNxK \"STRATEGY m n k db cores split "
            "MRxNR\" [MxNxK \"...\" ...]\n"
            "  e.g. bench_host_dtypes 512x768x3072 \"WS 144 64 768 0 1 M 8x48\"\n"
            "  (up to %d shapes; R rounds each, default 15; --check: exit 1 naming the first\n"
            "  figure that is no positive number, or a ratio not taken over all R rounds)\n",
            MAXPAIRS);
    return 2;
}

/* Operands whose values are v / 8, v in -3..3: exact in fp32, bf16 and fp16
 * and in every sum, so the three kernels must agree with a double reference
 * exactly. */
static int val(size_t i, int mod) { return (int)(i % (size_t)mod) - mod / 2; }
static uint16_t bits(int v, sp_dtype d)
{
    static const uint16_t fp16_eighths[4] = {0x0000, 0x3000, 0x3400, 0x3600}; /* 0 .. 3/8 */
    if (d == SP_FP16)
        return (uint16_t)(fp16_eighths[v < 0 ? -v : v] | (v < 0 ? 0x8000u : 0u));
    float x = (float)v / 8.0f; /* bf16: the upper half of the fp32 */
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (uint16_t)(u >> 16);
}

typedef struct {
    int M, N, K;
    float *A, *B, *C;
    uint16_t *A16[NDT], *B16[NDT]; /* per dtype (fp32: NULL) */
    void *fn[NDT];
    int d; /* the dtype a call runs */
} work;

static void call(const void *ctx)
{
    const work *w = ctx;
    if (dtypes[w->d] == SP_FP32)
        ((k32)w->fn[w->d])(w->M, w->N, w->K, w->A, w->K, w->B, w->N, w->C, w->N);
    else
        ((k16)w->fn[w->d])(w->M, w->N, w->K, w->A16[w->d], w->K, w->B16[w->d], w->N, w->C, w->N);
}

/* Every dtype's C against the exact result at 256 elements (the corners among them). */
static bool verify(work *w)
{
    for (w->d = 0; w->d < NDT; w->d++) {
        call(w);
        for (int n = 0; n < 256; n++) {
            size_t i = n < 2 ? (size_t)(n ? w->M - 1 : 0) : (size_t)rand() % (size_t)w->M;
            size_t j = n < 2 ? (size_t)(n ? w->N - 1 : 0) : (size_t)rand() % (size_t)w->N;
            double ref = 0;
            for (int p = 0; p < w->K; p++)
                ref += val(i * (size_t)w->K + (size_t)p, 7) / 8.0 *
                       (val((size_t)p * (size_t)w->N + j, 5) / 8.0);
            if (w->C[i * (size_t)w->N + j] != ref) {
                fprintf(stderr, "bench_host_dtypes: %s kernel: C[%zu][%zu] = %.9g, expected %.9g\n",
                        sp_dtype_name(dtypes[w->d]), i, j, w->C[i * (size_t)w->N + j], ref);
                return false;
            }
        }
    }
    return true;
}

static void work_free(work *w)
{
    free(w->A), free(w->B), free(w->C);
    for (int d = 0; d < NDT; d++)
        free(w->A16[d]), free(w->B16[d]);
}

/* --check of one row's figures g (GFLOP/s per dtype and round): each dtype's median a
 * positive number, and the others' ratios to fp32 too, over every round; false, said in one
 * line naming the subject, if not. */
static bool check_row(const char *subject, double g[NDT][BENCH_MAXN], int rounds)
{
    char what[64];
    for (int d = 0; d < NDT; d++) {
        const char *name = sp_dtype_name(dtypes[d]);
        snprintf(what, sizeof what, "%s GFLOP/s", name);
        if (!expect_positive(WHO, subject, what, bench_median(g[d], rounds)))
            return false;
        if (d == 0)
            continue;
        int ahead, used;
        double q = bench_paired(g[d], g[0], rounds, &ahead, &used);
        snprintf(what, sizeof what, "%s ratio", name);
        if (!expect_positive(WHO, subject, what, q))
            return false;
        snprintf(what, sizeof what, "%s rounds compared", name);
        if (!expect_count(WHO, subject, what, used, rounds))
            return false;
    }
    return true;
}

/* Builds, verifies and times the three kernels of shape number `at`;
 * prints its row (check: and holds its figures to check_row). */
static bool bench_pair(int at, const char *shape, const char *config, int rounds, const char *dir,
                       bool check)
{
    long long M, N, K;
    char tail;
    sp_config c;
    if (sscanf(shape, "%lldx%lldx%lld%c", &M, &N, &K, &tail) != 3 || M < 1 || N < 1 || K < 1 ||
        M * K > (1LL << 28) || K * N > (1LL << 28) || M * N > (1LL << 26) ||
        !csv_config(config, &c)) {
        fprintf(stderr, "bench_host_dtypes: '%s' \"%s\" is no shape and config\n", shape, config);
        return false;
    }
    work w = {.M = (int)M, .N = (int)N, .K = (int)K};
    void *lib[NDT];
    bool ok = true;
    for (int d = 0; ok && d < NDT; d++) {
        char sym[32];
        snprintf(sym, sizeof sym, "dt%d_%s", at, sp_dtype_name(dtypes[d]));
        ok = (w.fn[d] = bench_kernel("bench_host_dtypes", &c, dtypes[d], sym, dir, &lib[d])) != NULL;
    }
    size_t mk = (size_t)(M * K), kn = (size_t)(K * N);
    w.A = malloc(mk * sizeof *w.A), w.B = malloc(kn * sizeof *w.B);
    w.C = malloc((size_t)(M * N) * sizeof *w.C);
    ok = ok && w.A && w.B && w.C;
    for (int d = 0; ok && d < NDT; d++)
        if (dtypes[d] != SP_FP32)
            ok = (w.A16[d] = malloc(mk * 2)) && (w.B16[d] = malloc(kn * 2));
    for (size_t i = 0; ok && i < mk; i++) {
        w.A[i] = (float)val(i, 7) / 8.0f;
        for (int d = 0; d < NDT; d++)
            if (w.A16[d])
                w.A16[d][i] = bits(val(i, 7), dtypes[d]);
    }
    for (size_t i = 0; ok && i < kn; i++) {
        w.B[i] = (float)val(i, 5) / 8.0f;
        for (int d = 0; d < NDT; d++)
            if (w.B16[d])
                w.B16[d][i] = bits(val(i, 5), dtypes[d]);
    }
    if (ok && !verify(&w))
        ok = false;
    static double g[NDT][BENCH_MAXN];
    double flops = 2.0 * (double)M * (double)N * (double)K;
    for (int r = 0; ok && r < rounds; r++)
        for (int k = 0; k < NDT; k++) { /* the order rotates by one each round */
            w.d = (r + k) % NDT;
            g[w.d][r] = flops / bench_burst(call, &w) * 1e-9;
        }
    if (ok) {
        printf("%-14s %-26s %8.1f", shape, config, bench_median(g[0], rounds));
        for (int d = 1; d < NDT; d++) {
            int ahead, used;
            double q = bench_paired(g[d], g[0], rounds, &ahead, &used);
            printf("  %8.1f %6.3f (%2d of %d)", bench_median(g[d], rounds), q, ahead, used);
        }
        printf("\n");
        fflush(stdout);
        char subject[160];
        snprintf(subject, sizeof subject, "%s %s", shape, config);
        ok = !check || check_row(subject, g, rounds);
    }
    /* the libraries stay loaded: OpenMP's threads keep the kernels' scratch,
     * whose destructor (C11 tss) runs from the library when they end */
    work_free(&w);
    return ok;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    int rounds = 15, first = 1;
    bool check = false;
    for (; first < argc && !strncmp(argv[first], "--", 2); first++)
        if (!strcmp(argv[first], "--check"))
            check = true;
        else if (!strcmp(argv[first], "--rounds") && first + 1 < argc)
            rounds = atoi(argv[++first]);
        else
            return usage();
    int pairs = (argc - first) / 2;
    if (pairs < 1 || pairs > MAXPAIRS || (argc - first) % 2 || rounds < 1 || rounds > BENCH_MAXN)
        return usage();
    char dir[] = "/tmp/npu_bench_dtypes_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_host_dtypes: mkdtemp");
        return 1;
    }
    printf("bench_host_dtypes: the same generated kernel over fp32, bf16 and fp16 A and B (C and "
           "sums fp32),\nverified exactly, then GFLOP/s: median of %d round-robin samples (each "
           "the median call of a burst\nof >= 5 calls and 0.1 s); ratios: the median of the "
           "per-round ratios to fp32, and the rounds ahead of it\n\n",
           rounds);
    printf("%-14s %-26s %8s  %8s %6s %9s  %8s %6s %9s\n", "shape", "config", "fp32", "bf16",
           "/fp32", "(ahead)", "fp16", "/fp32", "(ahead)");
    int bad = 0;
    for (int i = 0; i < pairs && !(check && bad); i++) /* --check: the first failure only */
        bad |= !bench_pair(i, argv[first + 2 * i], argv[first + 2 * i + 1], rounds, dir, check);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_host_dtypes: could not remove %s\n", dir);
    return bad;
}
