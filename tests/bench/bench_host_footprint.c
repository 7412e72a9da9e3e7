/* bench_host_footprint.c — what the memory a GEMM's operands take costs a generated host kernel:
 * how far the last-level cache reaches (a pointer chase), and one call against its flops on less. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "codegen.h"
#include "csv.h"
#include "expect.h"
#include "rounds.h"
#include "so.h"

typedef void (*kfn)(int, int, int, const float *, int, const float *, int, float *, int);
#define WHO "bench_host_footprint"

static int usage(void)
{
    fprintf(stderr,
            "usage: bench_host_footprint [MxNxK [\"STRATEGY m n k db cores split MRxNR\"]] "
            "[--rounds R] [--chase MIB] [--check]\n"
            "  default: 512x768x3072 \"WS 432 64 768 0 1 M 8x48\" --rounds 11 --chase 64\n"
            "  K must hold 2 or more k blocks; the pointer chase runs over 1, 2, 4 ... MIB MiB "
            "(0: none)\n"
            "  --check: exit 1 naming the first figure that is no positive number, or a ratio\n"
            "  not taken over all R rounds\n");
    return 2;
}

/* ---- how far the cache reaches ---- */

/* Nanoseconds per load of a pointer chase through `bytes`: each 64-byte line
 * once per lap, in a random order (GSL's shuffle) that no prefetcher can
 * follow; after one lap to warm, 2^20 loads. -1 if memory ran out. */
static double chase_ns(size_t bytes, gsl_rng *rng)
{
    size_t lines = bytes / 64;
    size_t *order = malloc(lines * sizeof *order), *mem = aligned_alloc(64, lines * 64);
    if (!order || !mem) {
        free(order);
        free(mem);
        return -1;
    }
    memset(mem, 0, lines * 64);
    for (size_t i = 0; i < lines; i++)
        order[i] = i;
    gsl_ran_shuffle(rng, order, lines, sizeof *order);
    for (size_t i = 0; i < lines; i++) /* a word per line: the next line's index */
        mem[order[i] * 8] = order[(i + 1) % lines] * 8;
    size_t at = 0;
    for (size_t i = 0; i < lines; i++)
        at = mem[at];
    const long loads = 1L << 20;
    double t0 = bench_now();
    for (long i = 0; i < loads; i++)
        at = mem[at];
    double t = bench_now() - t0;
    volatile size_t sink = at;
    (void)sink;
    free(order);
    free(mem);
    return t / (double)loads * 1e9;
}

/* ---- one GEMM's flops three ways ---- */

enum { CALL, SLICES_OWN, SLICES_ONE, NWAY };
static const char *const way_names[NWAY] = {
    "the call", "%d calls of K = %d, each on its own slices of A, B and its own C",
    "%d calls of K = %d on the first slices of A, B and one C"};

typedef struct {
    kfn f;
    int M, N, K, S, way; /* S slices of K / S */
    const float *A, *B;
    float *C, **Cs;
} work;

/* The GEMM's flops: one call, or S calls over K / S each (the k blocks the
 * call walks), on the slices of A and B they would use and one C each, or
 * all on the first slices and one C. */
static void run_way(const void *ctx)
{
    const work *w = ctx;
    int ks = w->K / w->S;
    if (w->way == CALL) {
        w->f(w->M, w->N, w->K, w->A, w->K, w->B, w->N, w->C, w->N);
        return;
    }
    for (int s = 0; s < w->S; s++) {
        int o = w->way == SLICES_OWN ? s : 0;
        w->f(w->M, w->N, ks, w->A + (size_t)o * ks, w->K, w->B + (size_t)o * ks * w->N, w->N,
             w->way == SLICES_OWN ? w->Cs[s] : w->C, w->N);
    }
}

/* MiB the way's operands take. */
static double way_mib(const work *w, int way)
{
    double M = w->M, N = w->N, K = w->K, ks = K / w->S;
    double floats = way == SLICES_ONE ? M * ks + ks * N + M * N
                                      : M * K + K * N + M * N * (way == SLICES_OWN ? w->S : 1);
    return floats * 4.0 / 1048576.0;
}

/* The name of way v (way_names with its counts) into name[size]. */
static void way_name(const work *w, int v, char *name, size_t size)
{
    snprintf(name, size, way_names[v], w->S, w->K / w->S);
}

/* --check of the figures printed: ns[i], the pointer chase's per load over 2^i MiB, and
 * each way's MiB, GFLOP/s (g: per round) and, but the call's, its ratio to the call over
 * every round: positive numbers; false, said in one line, if not. */
static bool check_figures(const double *ns, int nchase, const work *w,
                          double g[NWAY][BENCH_MAXN], int rounds)
{
    char subject[128];
    for (int i = 0; i < nchase; i++) {
        snprintf(subject, sizeof subject, "pointer chase over %d MiB", 1 << i);
        if (!expect_positive(WHO, subject, "ns per load", ns[i]))
            return false;
    }
    for (int v = 0; v < NWAY; v++) {
        way_name(w, v, subject, sizeof subject);
        int ahead, used;
        double q = bench_paired(g[v], g[CALL], rounds, &ahead, &used);
        if (!expect_positive(WHO, subject, "MiB", way_mib(w, v)) ||
            !expect_positive(WHO, subject, "GFLOP/s", bench_median(g[v], rounds)) ||
            (v != CALL && (!expect_positive(WHO, subject, "the ratio to the call", q) ||
                           !expect_count(WHO, subject, "rounds compared", used, rounds))))
            return false;
    }
    return true;
}

/* Checks the call's C and the sum of the slices' Cs against a double
 * reference at 512 random elements: within 2 (K + 1) u sum|a b| each. */
static bool verify(const work *w, gsl_rng *rng)
{
    int bad = 0;
    for (int n = 0; n < 512; n++) {
        size_t i = gsl_rng_uniform_int(rng, (unsigned long)w->M);
        size_t j = gsl_rng_uniform_int(rng, (unsigned long)w->N);
        double ref = 0, mag = 0, sum = 0;
        for (int p = 0; p < w->K; p++) {
            double t = (double)w->A[i * w->K + p] * w->B[(size_t)p * w->N + j];
            ref += t;
            mag += fabs(t);
        }
        for (int s = 0; s < w->S; s++)
            sum += w->Cs[s][i * w->N + j];
        double bound = 2.0 * (w->K + 1) * 5.9604644775390625e-08 * mag;
        if (!(fabs(w->C[i * w->N + j] - ref) <= bound && fabs(sum - ref) <= bound) && bad++ < 3)
            fprintf(stderr, "bench_host_footprint: C[%zu][%zu] = %.9g, slices %.9g, expected %.9g\n",
                    i, j, w->C[i * w->N + j], sum, ref);
    }
    return bad == 0;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    const char *shape = "512x768x3072", *config = "WS 432 64 768 0 1 M 8x48";
    int rounds = 11, chase = 64, pos = 0;
    bool check = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--check"))
            check = true;
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--chase") && i + 1 < argc)
            chase = atoi(argv[++i]);
        else if (argv[i][0] != '-' && pos < 2)
            *(pos++ ? &config : &shape) = argv[i];
        else
            return usage();
    }
    long long M, N, K;
    char tail;
    sp_config c;
    if (sscanf(shape, "%lldx%lldx%lld%c", &M, &N, &K, &tail) != 3 || M < 1 || N < 1 || K < 1 ||
        M * K > (1LL << 28) || K * N > (1LL << 28) || M * N > (1LL << 26) ||
        !csv_config(config, &c) || K % c.k || K / c.k < 2 || rounds < 1 ||
        rounds > BENCH_MAXN || chase < 0 || chase > 1024)
        return usage();
    int S = (int)(K / c.k);

    char dir[] = "/tmp/npu_bench_footprint_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_host_footprint: mkdtemp");
        return 1;
    }
    void *lib;
    kfn f;
    *(void **)&f = bench_kernel("bench_host_footprint", &c, SP_FP32, "fp_kernel", dir, &lib);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_host_footprint: could not remove %s\n", dir);
    if (!f)
        return 1;

    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    work w = {f, (int)M, (int)N, (int)K, S, CALL, NULL, NULL, NULL, NULL};
    float *A = malloc(sizeof(float) * (size_t)(M * K)), *B = malloc(sizeof(float) * (size_t)(K * N));
    w.C = calloc((size_t)(M * N), sizeof(float));
    w.Cs = calloc((size_t)S, sizeof *w.Cs);
    bool ok = rng && A && B && w.C && w.Cs;
    for (int s = 0; ok && s < S; s++)
        ok = (w.Cs[s] = calloc((size_t)(M * N), sizeof(float))) != NULL;
    if (!ok) {
        fprintf(stderr, "bench_host_footprint: out of memory\n");
        return 1;
    }
    for (long long i = 0; i < M * K; i++)
        A[i] = (float)(2.0 * gsl_rng_uniform(rng) - 1.0);
    for (long long i = 0; i < K * N; i++)
        B[i] = (float)(2.0 * gsl_rng_uniform(rng) - 1.0);
    w.A = A, w.B = B;
    run_way(&w);
    w.way = SLICES_OWN;
    run_way(&w);
    if (!verify(&w, rng)) {
        fprintf(stderr, "bench_host_footprint: the kernel computes wrong results\n");
        return 1;
    }

    printf("bench_host_footprint: %s fp32, \"%s\" (generated), %d k blocks of %d; %d rounds\n",
           shape, config, S, (int)c.k, rounds);
    double ns[16];
    int nchase = 0;
    if (chase > 0) {
        printf("pointer chase (each 64-byte line once per lap, in random order; 4 KiB pages), "
               "ns per load:\n");
        for (int mib = 1; mib <= chase; mib *= 2, nchase++) {
            ns[nchase] = chase_ns((size_t)mib << 20, rng);
            printf("  %4d MiB %7.1f\n", mib, ns[nchase]);
        }
    }

    static double g[NWAY][BENCH_MAXN];
    double flops = 2.0 * (double)M * (double)N * (double)K;
    for (int r = 0; r < rounds; r++)
        for (int v = 0; v < NWAY; v++) {
            w.way = v;
            g[v][r] = flops / bench_burst(run_way, &w) * 1e-9;
        }
    printf("GFLOP/s: median of %d round-robin samples (each the median of >= 5 calls and 0.1 s);\n"
           "ratio: the median of the per-round ratios to the call's, and the rounds ahead of it\n",
           rounds);
    printf("%-66s %7s %8s  %s\n", "operands", "MiB", "GFLOP/s", "/ the call");
    for (int v = 0; v < NWAY; v++) {
        char name[128];
        way_name(&w, v, name, sizeof name);
        int ahead, used;
        double q = bench_paired(g[v], g[CALL], rounds, &ahead, &used);
        printf("%-66s %7.1f %8.1f  ", name, way_mib(&w, v), bench_median(g[v], rounds));
        if (v == CALL)
            printf("1.000\n");
        else
            printf("%.3f (%d of %d)\n", q, ahead, used);
    }
    bool right = !check || check_figures(ns, nchase, &w, g, rounds);
    for (int s = 0; s < S; s++)
        free(w.Cs[s]);
    free(w.Cs);
    free(w.C);
    free(A);
    free(B);
    gsl_rng_free(rng);
    dlclose(lib);
    return !right;
}
