/* lib_props.c — properties of a library npu-tune lib wrote (cli/lib.sh builds and links
 * it): cblas_sgemm, sgemm_, nt_sgemm and nt_sbgemm against a reference in double, from
 * one thread or several at once, and in a child of fork. */
#define _POSIX_C_SOURCE 200809L /* fork */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <threads.h>
#include <unistd.h>

#include "npu_tune_gemm.h"

void cblas_sgemm(int layout, int transa, int transb, int M, int N, int K, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc);

enum { ROW = 101, COL = 102, NOTRANS = 111, TRANS = 112, CONJ = 113 };

/* Shapes near which cases are drawn: the fixture's table entries (two.lua, one.lua),
 * tails around the micro-tiles, and the empty ones. */
static const int anchors[][3] = {{64, 64, 64}, {65, 33, 17}, {200, 300, 100}, {9, 17, 33},
                                 {33, 9, 65},  {12, 64, 33}, {1, 1, 1},       {7, 130, 3},
                                 {0, 5, 5},    {5, 0, 5},    {5, 5, 0},       {97, 61, 129},
                                 {1, 3000, 700}, {12, 64, 12}, {12, 32, 32}, {11, 64, 33}};

static _Atomic int failures;

/* One case: a call of cblas_sgemm (or sgemm_: fortran) on random operands
 * with lda, ldb, ldc pad[] past their minimum; C past its columns and the
 * operands must stay as they were, C where beta = 0 starts as NaN and must
 * not show it. */
static void check_case(gsl_rng *r, int n, int fortran, int layout, int ta, int tb, int M, int N,
                       int K, float alpha, float beta, const int pad[3])
{
    /* rows x cols of each stored matrix, in the layout's order */
    int row = layout == ROW;
    int ar = (ta == NOTRANS) == row ? M : K, ac = (ta == NOTRANS) == row ? K : M;
    int br = (tb == NOTRANS) == row ? K : N, bc = (tb == NOTRANS) == row ? N : K;
    int cr = row ? M : N, cc = row ? N : M;
    int lda = (ac > 1 ? ac : 1) + pad[0];
    int ldb = (bc > 1 ? bc : 1) + pad[1];
    int ldc = (cc > 1 ? cc : 1) + pad[2];
    size_t na = (size_t)(ar ? ar : 1) * (size_t)lda, nb = (size_t)(br ? br : 1) * (size_t)ldb;
    size_t nc = (size_t)(cr ? cr : 1) * (size_t)ldc;
    float *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B), *C = malloc(nc * sizeof *C);
    float *A0 = malloc(na * sizeof *A), *B0 = malloc(nb * sizeof *B), *C0 = malloc(nc * sizeof *C);
    for (size_t i = 0; i < na; i++)
        A[i] = (float)(gsl_rng_uniform(r) * 2 - 1);
    for (size_t i = 0; i < nb; i++)
        B[i] = (float)(gsl_rng_uniform(r) * 2 - 1);
    for (size_t i = 0; i < nc; i++)
        C[i] = beta == 0.0f ? NAN : (float)(gsl_rng_uniform(r) * 2 - 1);
    memcpy(A0, A, na * sizeof *A), memcpy(B0, B, nb * sizeof *B), memcpy(C0, C, nc * sizeof *C);
    if (fortran) {
        char la = "NTC"[ta - NOTRANS], lb = "ntc"[tb - NOTRANS];
        sgemm_(&la, &lb, &M, &N, &K, &alpha, A, &lda, B, &ldb, &beta, C, &ldc);
    } else {
        cblas_sgemm(layout, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    }
    int bad = 0;
    char what[200] = "";
    if (memcmp(A, A0, na * sizeof *A) || memcmp(B, B0, nb * sizeof *B))
        bad = snprintf(what, sizeof what, "an operand was written");
    for (int i = 0; !bad && i < M; i++)
        for (int j = 0; !bad && j < N; j++) {
            double s = 0, mag = 0;
            for (int p = 0; p < K; p++) {
                size_t ia = (ta == NOTRANS) == row ? (size_t)i * (size_t)lda + (size_t)p
                                                   : (size_t)p * (size_t)lda + (size_t)i;
                size_t ib = (tb == NOTRANS) == row ? (size_t)p * (size_t)ldb + (size_t)j
                                                   : (size_t)j * (size_t)ldb + (size_t)p;
                s += (double)A[ia] * B[ib];
                mag += fabs((double)A[ia] * B[ib]);
            }
            size_t ic = row ? (size_t)i * (size_t)ldc + (size_t)j : (size_t)j * (size_t)ldc + (size_t)i;
            double old = beta == 0.0f ? 0.0 : beta * (double)C0[ic];
            double want = alpha * s + old, tol = 1e-5 * (fabs(alpha) * mag + fabs(old) + 1);
            if (!(fabs(C[ic] - want) <= tol))
                bad = snprintf(what, sizeof what, "C(%d,%d) = %g, expected %g", i, j, C[ic], want);
        }
    for (int i = 0; !bad && i < cr; i++) /* past the columns: untouched */
        for (int j = cc; !bad && j < ldc; j++) {
            size_t ic = (size_t)i * (size_t)ldc + (size_t)j;
            if (memcmp(&C[ic], &C0[ic], sizeof *C))
                bad = snprintf(what, sizeof what, "C's padding at %zu was written", ic);
        }
    if (bad && failures++ < 5)
        printf("case %d: %s %s ta=%d tb=%d M=%d N=%d K=%d alpha=%g lda=%d ldb=%d beta=%g ldc=%d: "
               "%s\n",
               n, fortran ? "sgemm_" : "cblas_sgemm", row ? "row" : "col", ta, tb, M, N, K, alpha,
               lda, ldb, beta, ldc, what);
    free(A), free(B), free(C), free(A0), free(B0), free(C0);
}

/* A case drawn near an anchor: layout, transposes, alpha, beta and padding at random. */
static void one_case(gsl_rng *r, int n)
{
    const int *a = anchors[gsl_rng_uniform_int(r, sizeof anchors / sizeof *anchors)];
    int dims[3];
    for (int d = 0; d < 3; d++) /* the anchor, or near it */
        dims[d] = gsl_rng_uniform(r) < 0.5 || a[d] == 0
                      ? a[d]
                      : 1 + (int)gsl_rng_uniform_int(r, (unsigned long)(2 * a[d] + 2));
    int M = dims[0], N = dims[1], K = dims[2];
    int fortran = gsl_rng_uniform(r) < 0.25;
    int layout = fortran || gsl_rng_uniform(r) < 0.5 ? COL : ROW;
    static const int trans[] = {NOTRANS, TRANS, CONJ};
    int ta = trans[gsl_rng_uniform_int(r, 3)], tb = trans[gsl_rng_uniform_int(r, 3)];
    static const float alphas[] = {1.0f, 0.0f, -1.0f, 0.75f}, betas[] = {0.0f, 1.0f, -0.5f};
    float alpha = alphas[gsl_rng_uniform_int(r, 4)], beta = betas[gsl_rng_uniform_int(r, 3)];
    int pad[3];
    for (int d = 0; d < 3; d++)
        pad[d] = (int)gsl_rng_uniform_int(r, 4);
    check_case(r, n, fortran, layout, ta, tb, M, N, K, alpha, beta, pad);
}

/* nt_sgemm and nt_sbgemm on small integers over 8 (exact in bf16 and in every sum). */
static void entry_points(void)
{
    static const int shapes[][3] = {{64, 64, 64}, {200, 300, 100}, {9, 17, 33}, {3, 500, 7},
                                    {2, 3, 4}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        float *A = malloc(sizeof *A * (size_t)(M * K)), *B = malloc(sizeof *B * (size_t)(K * N));
        float *C = malloc(sizeof *C * (size_t)(M * N)), *H = malloc(sizeof *H * (size_t)(M * N));
        uint16_t *a = malloc(sizeof *a * (size_t)(M * K)), *b = malloc(sizeof *b * (size_t)(K * N));
        for (int i = 0; i < M * K; i++) {
            A[i] = (float)(i % 7 - 3) / 8;
            uint32_t u;
            memcpy(&u, &A[i], sizeof u);
            a[i] = (uint16_t)(u >> 16);
        }
        for (int i = 0; i < K * N; i++) {
            B[i] = (float)(i % 5 - 2) / 8;
            uint32_t u;
            memcpy(&u, &B[i], sizeof u);
            b[i] = (uint16_t)(u >> 16);
        }
        nt_sgemm(M, N, K, A, K, B, N, C, N);
        nt_sbgemm(M, N, K, a, K, b, N, H, N);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double want = 0;
                for (int p = 0; p < K; p++)
                    want += (double)A[i * K + p] * B[p * N + j];
                if ((C[i * N + j] != (float)want || H[i * N + j] != (float)want) && failures++ < 5)
                    printf("%dx%dx%d (%d,%d): nt_sgemm %g, nt_sbgemm %g, expected %g\n", M, N, K, i,
                           j, C[i * N + j], H[i * N + j], want);
            }
        free(A), free(B), free(C), free(H), free(a), free(b);
    }
}

/* A caller thread: its own cases, from its own seed. */
typedef struct {
    int cases;
    unsigned long seed;
} caller;

static int run_cases(void *p)
{
    const caller *c = p;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, c->seed);
    for (int n = 0; n < c->cases; n++)
        one_case(r, n);
    gsl_rng_free(r);
    return 0;
}

/* props [CASES [THREADS]]: CASES cases split over THREADS callers at once (the
 * library runs one call at a time on its threads, the others on their own),
 * then the entry points, then cases in a child of fork (the library's threads
 * are the parent's: the child must make its own). */
int main(int argc, char **argv)
{
    int cases = argc > 1 ? atoi(argv[1]) : 2000, threads = argc > 2 ? atoi(argv[2]) : 1;
    if (threads < 1 || threads > 16)
        threads = 1;
    caller c[16];
    thrd_t t[16];
    for (int i = 0; i < threads; i++) {
        c[i] = (caller){cases / threads + (i < cases % threads), 25 + (unsigned long)i};
        if (i > 0 && thrd_create(&t[i], run_cases, &c[i]) != thrd_success) {
            printf("cannot start caller %d\n", i);
            return 1;
        }
    }
    run_cases(&c[0]);
    for (int i = 1; i < threads; i++)
        thrd_join(t[i], NULL);
    /* each anchor as the most common call has it: row-major, dense, alpha 1, beta 0
     * and 1 (a library's own loop for its entries' shapes, codegen/library.c), and
     * so with either operand transposed, alpha 0.5 or beta 0.5, which that loop must
     * leave to the rest */
    static const float scale[][2] = {{1.0f, 0.0f}, {1.0f, 1.0f}, {0.5f, 0.0f}, {1.0f, 0.5f}};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 24);
    for (size_t a = 0; a < sizeof anchors / sizeof *anchors; a++)
        for (size_t s = 0; s < sizeof scale / sizeof *scale; s++)
            for (int t = 0; t < 4; t++)
                check_case(r, cases, 0, ROW, t & 1 ? TRANS : NOTRANS, t & 2 ? TRANS : NOTRANS,
                           anchors[a][0], anchors[a][1], anchors[a][2], scale[s][0],
                           scale[s][1], (const int[3]){0, 0, 0});
    gsl_rng_free(r);
    entry_points();
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        caller more = {50, 99};
        run_cases(&more);
        _exit(failures != 0);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        printf("in a child of fork: failed\n");
        failures++;
    }
    printf("%d cases, %d failed\n", cases, failures);
    return failures != 0;
}
