/* bench_host_kernel.c — generated host kernels against OpenBLAS cblas_sgemm (default and
 * best OPENBLAS_CORETYPE) on the BERT shapes and 1024^3, at 1 and 2 threads, vs the FMA peak. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "codegen.h"

typedef void (*kfn)(int, int, int, const float *, int, const float *, int, float *, int);

enum { NSHAPE = 4, NTHR = 2, NCORE = 4 };
static const int shapes[NSHAPE][3] = {{512, 768, 768}, {512, 3072, 768}, {512, 768, 3072},
                                      {1024, 1024, 1024}};

/* The tuned configs per shape and thread count (from tuning sweeps on a
 * 2-core AVX-512 host); --config replaces them all. */
typedef struct {
    sp_config c;
} tuned;

static tuned table[NSHAPE][NTHR] = {
    {{{96, 768, 256, 1, SP_WS, 0, SP_SPLIT_M, 8, 48}},
     {{96, 1536, 128, 2, SP_WS, 0, SP_SPLIT_M, 6, 64}}},
    {{{96, 768, 256, 1, SP_WS, 0, SP_SPLIT_M, 12, 32}},
     {{96, 768, 256, 2, SP_WS, 0, SP_SPLIT_N, 12, 32}}},
    {{{96, 768, 192, 1, SP_WS, 0, SP_SPLIT_M, 8, 48}},
     {{96, 768, 256, 2, SP_WS, 0, SP_SPLIT_M, 6, 64}}},
    {{{96, 1536, 128, 1, SP_WS, 0, SP_SPLIT_M, 6, 64}},
     {{96, 768, 256, 2, SP_WS, 0, SP_SPLIT_N, 6, 64}}},
};

static const char *const coretypes[NCORE] = {NULL, "SkylakeX", "Cooperlake", "Haswell"};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define FMA12(T, F)                                                                                \
    a0 = F(a0, b, c), a1 = F(a1, b, c), a2 = F(a2, b, c), a3 = F(a3, b, c), a4 = F(a4, b, c),      \
    a5 = F(a5, b, c), a6 = F(a6, b, c), a7 = F(a7, b, c), a8 = F(a8, b, c), a9 = F(a9, b, c),      \
    a10 = F(a10, b, c), a11 = F(a11, b, c)

/* GFLOP/s of 12 independent AVX-512 FMA chains (the core's FMA peak). */
__attribute__((target("avx512f"))) static double peak512(long n)
{
    __m512 b = _mm512_set1_ps(0.5f), c = _mm512_set1_ps(1e-3f);
    __m512 a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b, a6 = b, a7 = b, a8 = b, a9 = b, a10 = b,
           a11 = b;
    double t0 = now();
    for (long i = 0; i < n; i++) {
        FMA12(__m512, _mm512_fmadd_ps);
        __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5),
                         "+v"(a6), "+v"(a7), "+v"(a8), "+v"(a9), "+v"(a10), "+v"(a11));
    }
    double dt = now() - t0;
    volatile float sink = _mm512_reduce_add_ps(_mm512_add_ps(a0, a11));
    (void)sink;
    return 12.0 * 32.0 * (double)n / dt * 1e-9;
}

/* The same with AVX2 FMA (8 lanes). */
__attribute__((target("avx2,fma"))) static double peak256(long n)
{
    __m256 b = _mm256_set1_ps(0.5f), c = _mm256_set1_ps(1e-3f);
    __m256 a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b, a6 = b, a7 = b, a8 = b, a9 = b, a10 = b,
           a11 = b;
    double t0 = now();
    for (long i = 0; i < n; i++) {
        FMA12(__m256, _mm256_fmadd_ps);
        __asm__ volatile("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5),
                         "+x"(a6), "+x"(a7), "+x"(a8), "+x"(a9), "+x"(a10), "+x"(a11));
    }
    double dt = now() - t0;
    float out[8];
    _mm256_storeu_ps(out, _mm256_add_ps(a0, a11));
    volatile float sink = out[0];
    (void)sink;
    return 12.0 * 16.0 * (double)n / dt * 1e-9;
}

/* One core's FMA peak in GFLOP/s (best of several 20 ms runs), 0 if unknown. */
static double fma_peak(void)
{
    double best = 0;
    for (int r = 0; r < 10; r++) {
        double g = __builtin_cpu_supports("avx512f")                               ? peak512(2000000)
                   : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? peak256(2000000)
                                                                                     : 0;
        if (g > best)
            best = g;
    }
    return best;
}
#else
static double fma_peak(void) { return 0; }
#endif

/* Operands of one shape. */
typedef struct {
    int M, N, K;
    float *A, *B, *C;
} problem;

static bool problem_init(problem *p, const int *s)
{
    p->M = s[0], p->N = s[1], p->K = s[2];
    p->A = malloc(sizeof(float) * (size_t)p->M * p->K);
    p->B = malloc(sizeof(float) * (size_t)p->K * p->N);
    p->C = malloc(sizeof(float) * (size_t)p->M * p->N);
    if (!p->A || !p->B || !p->C)
        return false;
    unsigned x = 12345;
    for (size_t i = 0; i < (size_t)p->M * p->K; i++)
        p->A[i] = (float)((x = x * 1103515245u + 12345u) >> 9) / 8388608.0f - 1.0f;
    for (size_t i = 0; i < (size_t)p->K * p->N; i++)
        p->B[i] = (float)((x = x * 1103515245u + 12345u) >> 9) / 8388608.0f - 1.0f;
    return true;
}

/* Median GFLOP/s of repeated calls (2 warm-ups, then >= 0.4 s or 40 runs). */
typedef void (*call_fn)(void *ctx, const problem *p);
static double time_median(call_fn f, void *ctx, const problem *p)
{
    double t[64];
    int n = 0;
    f(ctx, p);
    f(ctx, p);
    double start = now();
    while (n < 64 && (n < 5 || (now() - start < 0.4 && n < 40))) {
        double t0 = now();
        f(ctx, p);
        t[n++] = now() - t0;
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    return 2.0 * p->M * p->N * (double)p->K / t[n / 2] * 1e-9;
}

static void call_kernel(void *ctx, const problem *p)
{
    kfn f = (kfn)ctx;
    f(p->M, p->N, p->K, p->A, p->K, p->B, p->N, p->C, p->N);
}

/* OpenBLAS entry points resolved with dlopen. */
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
static sgemm_fn blas_sgemm;
static void call_blas(void *ctx, const problem *p)
{
    (void)ctx;
    /* CblasRowMajor = 101, CblasNoTrans = 111 */
    blas_sgemm(101, 111, 111, p->M, p->N, p->K, 1.0f, p->A, p->K, p->B, p->N, 0.0f, p->C, p->N);
}

/* Times OpenBLAS with one core type (NULL: its own choice) in a child
 * process, so that the environment variable takes effect on loading; fills
 * res[shape][threads] (0 when unavailable) and the core name. */
static void bench_openblas(const char *coretype, const problem *probs, double res[NSHAPE][NTHR],
                           char *core, size_t corelen)
{
    int fd[2];
    memset(res, 0, sizeof(double) * NSHAPE * NTHR);
    snprintf(core, corelen, "-");
    if (pipe(fd) != 0)
        return;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return;
    }
    if (pid == 0) {
        close(fd[0]);
        if (coretype)
            setenv("OPENBLAS_CORETYPE", coretype, 1);
        double out[NSHAPE][NTHR] = {{0}};
        char name[64] = "-";
        void *h = dlopen("libopenblas.so.0", RTLD_NOW);
        if (!h)
            h = dlopen("libopenblas.so", RTLD_NOW);
        if (h) {
            blas_sgemm = (sgemm_fn)dlsym(h, "cblas_sgemm");
            void (*set_threads)(int) = (void (*)(int))dlsym(h, "openblas_set_num_threads");
            char *(*corename)(void) = (char *(*)(void))dlsym(h, "openblas_get_corename");
            if (corename)
                snprintf(name, sizeof name, "%s", corename());
            for (int t = 0; blas_sgemm && set_threads && t < NTHR; t++) {
                set_threads(t + 1);
                for (int s = 0; s < NSHAPE; s++)
                    out[s][t] = time_median(call_blas, NULL, &probs[s]);
            }
        }
        if (write(fd[1], out, sizeof out) != (ssize_t)sizeof out ||
            write(fd[1], name, sizeof name) != (ssize_t)sizeof name)
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    double in[NSHAPE][NTHR];
    char name[64];
    if (read(fd[0], in, sizeof in) == (ssize_t)sizeof in &&
        read(fd[0], name, sizeof name) == (ssize_t)sizeof name) {
        memcpy(res, in, sizeof in);
        name[sizeof name - 1] = 0;
        snprintf(core, corelen, "%s", name);
    }
    close(fd[0]);
    waitpid(pid, NULL, 0);
}

/* Generates every table kernel into dir/kernels.c and builds dir/kernels.so. */
static bool build(const char *dir)
{
    char path[512], err[256], sym[32], cmd[1200];
    snprintf(path, sizeof path, "%s/kernels.c", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    for (int s = 0; s < NSHAPE; s++)
        for (int t = 0; t < NTHR; t++) {
            snprintf(sym, sizeof sym, "tuned_%d_%d", s, t);
            if (!cg_host_source(f, &table[s][t].c, sym, err, sizeof err)) {
                fprintf(stderr, "bench_host_kernel: %s\n", err);
                fclose(f);
                return false;
            }
        }
    if (fclose(f) != 0)
        return false;
    snprintf(cmd, sizeof cmd,
             "cc -O3 -march=native -fopenmp -fPIC -shared %s/kernels.c -o %s/kernels.so", dir, dir);
    return system(cmd) == 0;
}

static bool parse_config(const char *s, tuned *out)
{
    char st[8], sp[8];
    int m, n, k, db, cores, mr, nr;
    if (sscanf(s, "%7s %d %d %d %d %d %7s %dx%d", st, &m, &n, &k, &db, &cores, sp, &mr, &nr) != 9)
        return false;
    int strategy = sp_strategy_parse(st), split = sp_split_parse(sp);
    if (strategy < 0 || split < 0)
        return false;
    out->c = (sp_config){.m = m, .n = n, .k = k, .cores = cores, .strategy = (uint8_t)strategy,
                         .double_buffer = (uint8_t)(db != 0), .split = (uint8_t)split,
                         .mr = (uint8_t)mr, .nr = (uint8_t)nr};
    return true;
}

int main(int argc, char **argv)
{
    int rounds = 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--config") == 0 && i + 2 < argc) {
            /* --config THREADS "STRATEGY m n k db cores split MRxNR" for every shape */
            int t = atoi(argv[++i]) - 1;
            tuned c;
            if (t < 0 || t >= NTHR || !parse_config(argv[++i], &c)) {
                fprintf(stderr, "bench_host_kernel: bad --config\n");
                return 2;
            }
            for (int s = 0; s < NSHAPE; s++)
                table[s][t] = c;
        } else {
            fprintf(stderr, "usage: bench_host_kernel [--rounds N] "
                            "[--config THREADS \"STRATEGY m n k db cores split MRxNR\"]...\n");
            return 2;
        }
    }
    if (rounds < 1)
        rounds = 1;
    char dir[] = "/tmp/npu_bench_host_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char so[600];
    snprintf(so, sizeof so, "%s/kernels.so", dir);
    if (!build(dir)) {
        fprintf(stderr, "bench_host_kernel: building the kernels failed (is cc installed?)\n");
        return 1;
    }
    void *h = dlopen(so, RTLD_NOW);
    if (!h) {
        fprintf(stderr, "bench_host_kernel: %s\n", dlerror());
        return 1;
    }
    problem probs[NSHAPE];
    for (int s = 0; s < NSHAPE; s++)
        if (!problem_init(&probs[s], shapes[s])) {
            fprintf(stderr, "bench_host_kernel: out of memory\n");
            return 1;
        }

    /* rounds of: peak, tuned kernels, each OpenBLAS core type; best median of
     * each cell over the rounds */
    double peak = 0, tune[NSHAPE][NTHR] = {{0}}, blas[NCORE][NSHAPE][NTHR] = {{{0}}};
    char names[NCORE][64];
    for (int r = 0; r < rounds; r++) {
        double p = fma_peak();
        if (p > peak)
            peak = p;
        for (int t = 0; t < NTHR; t++)
            for (int s = 0; s < NSHAPE; s++) {
                char sym[32];
                snprintf(sym, sizeof sym, "tuned_%d_%d", s, t);
                kfn f = (kfn)dlsym(h, sym);
                double g = f ? time_median(call_kernel, (void *)f, &probs[s]) : 0;
                if (g > tune[s][t])
                    tune[s][t] = g;
            }
        for (int c = 0; c < NCORE; c++) {
            double res[NSHAPE][NTHR];
            bench_openblas(coretypes[c], probs, res, names[c], sizeof names[c]);
            for (int s = 0; s < NSHAPE; s++)
                for (int t = 0; t < NTHR; t++)
                    if (res[s][t] > blas[c][s][t])
                        blas[c][s][t] = res[s][t];
        }
    }

    printf("FMA peak, one core: %.1f GFLOP/s (%.2f GHz x 32 flop/cycle/FMA-unit x 2 units)\n", peak,
           peak / 64.0);
    printf("OpenBLAS default core type: %s\n", names[0]);
    printf("| shape | threads | tuned GFLOP/s | tuned/peak | OpenBLAS default | best OpenBLAS "
           "(core) | tuned/best OpenBLAS | config |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (int s = 0; s < NSHAPE; s++)
        for (int t = 0; t < NTHR; t++) {
            int best = 0;
            for (int c = 1; c < NCORE; c++)
                if (blas[c][s][t] > blas[best][s][t])
                    best = c;
            const sp_config *c = &table[s][t].c;
            printf("| %dx%dx%d | %d | %.1f | %.2f | %.1f | %.1f (%s) | %.2f | %s m%d n%d k%d db%d "
                   "cores%d %s %dx%d |\n",
                   shapes[s][0], shapes[s][1], shapes[s][2], t + 1, tune[s][t],
                   peak > 0 ? tune[s][t] / (peak * (t + 1)) : 0.0, blas[0][s][t], blas[best][s][t],
                   names[best], blas[best][s][t] > 0 ? tune[s][t] / blas[best][s][t] : 0.0,
                   sp_strategy_name(c->strategy), (int)c->m, (int)c->n, (int)c->k,
                   c->double_buffer, (int)c->cores, sp_split_name(c->split), c->mr, c->nr);
        }
    for (int s = 0; s < NSHAPE; s++) {
        free(probs[s].A);
        free(probs[s].B);
        free(probs[s].C);
    }
    /* no dlclose: the kernels' OpenMP runtime threads outlive the calls */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_host_kernel: could not remove %s\n", dir);
    return 0;
}
