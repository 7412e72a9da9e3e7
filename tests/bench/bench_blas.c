/* bench_blas.c — the library of `npu-tune lib` against OpenBLAS, BLIS and libxsmm: each library
 * in its own process (this program run as a driver), alternating rounds, medians and paired ratios. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "rounds.h"

#ifdef BENCH_BLAS_XSMM
#include <libxsmm.h>
#else
#include "base.h"
#endif

enum { MAXSHAPES = 32 };

/* Seconds of calls a sample takes at least: a small shape's sample is the mean
 * of a few consecutive calls (bench_burst_span), a large one's a single call. */
static const double SPAN = 20e-6;

typedef struct {
    int M, N, K;
} shape;

/* ---- the driver: one library, every shape once ---- */

/* Row-major C = A B (M x N, A M x K, B K x N, dense), as each library is called. */
typedef struct {
    void (*cblas)(int, int, int, int, int, int, float, const float *, int, const float *, int,
                  float, float *, int);
    void (*nt)(int, int, int, const float *, int, const float *, int, float *, int);
    shape s;
    const float *A, *B;
    float *C;
#ifdef BENCH_BLAS_XSMM
    libxsmm_smmfunction xsmm;
#endif
} call_ctx;

static void call(const void *p)
{
    const call_ctx *c = p;
    int M = c->s.M, N = c->s.N, K = c->s.K;
#ifdef BENCH_BLAS_XSMM
    /* column-major C^T (N x M) = B^T A^T: libxsmm's operands are column-major */
    c->xsmm(c->B, c->A, c->C);
    (void)M, (void)N, (void)K;
#else
    if (c->nt)
        c->nt(M, N, K, c->A, K, c->B, N, c->C, N);
    else /* CblasRowMajor 101, CblasNoTrans 111 */
        c->cblas(101, 111, 111, M, N, K, 1.0f, c->A, K, c->B, N, 0.0f, c->C, N);
#endif
}

/* Whether 16 sampled elements of C match the products, summed in double,
 * within fp32's rounding of a K-term sum of values in [-1, 1]. */
static bool result_ok(const call_ctx *c, gsl_rng *r)
{
    int M = c->s.M, N = c->s.N, K = c->s.K;
    for (int t = 0; t < 16; t++) {
        int i = (int)gsl_rng_uniform_int(r, (unsigned long)M);
        int j = (int)gsl_rng_uniform_int(r, (unsigned long)N);
        double ref = 0;
        for (int k = 0; k < K; k++)
            ref += (double)c->A[(size_t)i * K + k] * c->B[(size_t)k * N + j];
        if (!(fabs(c->C[(size_t)i * N + j] - ref) <= 1e-5 * K + 1e-4))
            return false;
    }
    return true;
}

/* Dense row-major operands of shape s: A and B uniform in [-1, 1) from r, C
 * zeros. False (all three NULL) when out of memory. */
static bool operands(shape s, gsl_rng *r, float **A, float **B, float **C)
{
    size_t a = (size_t)s.M * s.K, b = (size_t)s.K * s.N, cn = (size_t)s.M * s.N;
    *A = malloc(a * sizeof **A), *B = malloc(b * sizeof **B), *C = calloc(cn, sizeof **C);
    if (!*A || !*B || !*C) {
        free(*A), free(*B), free(*C);
        *A = *B = *C = NULL;
        return false;
    }
    for (size_t k = 0; k < a; k++)
        (*A)[k] = (float)(2 * gsl_rng_uniform(r) - 1);
    for (size_t k = 0; k < b; k++)
        (*B)[k] = (float)(2 * gsl_rng_uniform(r) - 1);
    return true;
}

/* Times gemm on each shape (one burst of bench_burst_span) and prints "MxNxK seconds"
 * per shape; a wrong result is an error. 0 ok, 1 error. */
static int drive(call_ctx *c, const shape *s, int n)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        float *A, *B, *C;
        if (!operands(s[i], r, &A, &B, &C)) {
            fprintf(stderr, "bench_blas: out of memory for %dx%dx%d\n", s[i].M, s[i].N, s[i].K);
            rc = 1;
        } else {
            c->s = s[i], c->A = A, c->B = B, c->C = C;
#ifdef BENCH_BLAS_XSMM
            float alpha = 1, beta = 0;
            int flags = LIBXSMM_GEMM_FLAG_BETA_0;
            c->xsmm = libxsmm_smmdispatch(s[i].N, s[i].M, s[i].K, NULL, NULL, NULL, &alpha,
                                          &beta, &flags, NULL);
            if (!c->xsmm) {
                fprintf(stderr, "bench_blas: libxsmm has no kernel for %dx%dx%d\n", s[i].M,
                        s[i].N, s[i].K);
                rc = 1;
            }
#endif
            if (rc == 0) {
                double t = bench_burst_span(call, c, SPAN);
                if (!result_ok(c, r)) {
                    fprintf(stderr, "bench_blas: wrong result at %dx%dx%d\n", s[i].M, s[i].N,
                            s[i].K);
                    rc = 1;
                } else
                    printf("%dx%dx%d %.9g\n", s[i].M, s[i].N, s[i].K, t);
            }
        }
        free(A), free(B), free(C);
    }
    gsl_rng_free(r);
    return rc;
}

static bool parse_shape(const char *s, shape *out)
{
    char end;
    return sscanf(s, "%dx%dx%d%c", &out->M, &out->N, &out->K, &end) == 3 && out->M >= 1 &&
           out->N >= 1 && out->K >= 1 && out->M <= 8192 && out->N <= 8192 && out->K <= 8192;
}

/* Shapes from argv[0..n), at most MAXSHAPES; -1 (said) on a bad one. */
static int parse_shapes(char **argv, int n, shape *s)
{
    if (n > MAXSHAPES) {
        fprintf(stderr, "bench_blas: at most %d shapes\n", MAXSHAPES);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (!parse_shape(argv[i], &s[i])) {
            fprintf(stderr, "bench_blas: bad shape '%s' (MxNxK, each 1 to 8192)\n", argv[i]);
            return -1;
        }
    return n;
}

#ifdef BENCH_BLAS_XSMM

/* bench_blas_xsmm SHAPE...: the driver of libxsmm (linked statically: Debian ships only
 * its static libraries), its JIT kernels one thread. */
int main(int argc, char **argv)
{
    shape s[MAXSHAPES];
    int n = parse_shapes(argv + 1, argc - 1, s);
    if (n < 0)
        return 2;
    libxsmm_init();
    call_ctx c = {0};
    int rc = drive(&c, s, n);
    libxsmm_finalize();
    return rc;
}

#else

/* ---- the coordinator ---- */

/* A contender: a driver command (this program with --driver, or the libxsmm
 * driver) and the environment it runs under. */
enum { MAXC = 8, MAXR = 15 };
typedef struct {
    const char *name;
    const char *so, *sym; /* NULL so: the libxsmm driver */
    const char *env[4];   /* "NAME=VALUE" */
    bool small_only;      /* only shapes of M N K <= 128^3 */
    double t[MAXSHAPES][MAXR]; /* seconds per shape and round, NaN: not run */
} contender;

static const char *self_exe, *xsmm_exe;

/* The variables a driver's environment sets (each unset first). */
static const char *const env_names[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                        "BLIS_NUM_THREADS", "OMP_WAIT_POLICY",
                                        "OPENBLAS_CORETYPE", "BLIS_ARCH_TYPE"};

static bool applies(const contender *c, shape s)
{
    return !c->small_only || (double)s.M * s.N * s.K <= 128.0 * 128 * 128;
}

/* Runs contender c on the shapes s[0..n) once as round r at `threads` threads under
 * wait policy `policy` (NULL: the default), each shape in a process of its own: a
 * shape timed after others finds the heap (and so its operands' placement) in
 * another state, which moves a small shape's time by a few percent, and the peers
 * that apply only to small shapes would not share that history. False (said) if it failed. */
static bool run_round(contender *c, const shape *s, int n, int r, int threads, const char *policy)
{
    char thr[16];
    snprintf(thr, sizeof thr, "%d", threads);
    for (size_t i = 0; i < sizeof env_names / sizeof *env_names; i++)
        unsetenv(env_names[i]);
    setenv("OMP_NUM_THREADS", thr, 1);
    setenv("OPENBLAS_NUM_THREADS", thr, 1);
    setenv("BLIS_NUM_THREADS", thr, 1);
    if (policy)
        setenv("OMP_WAIT_POLICY", policy, 1);
    for (int i = 0; i < 4 && c->env[i]; i++) {
        char kv[128];
        snprintf(kv, sizeof kv, "%s", c->env[i]);
        char *eq = strchr(kv, '=');
        *eq = '\0';
        setenv(kv, eq + 1, 1);
    }
    for (int i = 0; i < n; i++) {
        if (!applies(c, s[i]))
            continue;
        char name[40];
        snprintf(name, sizeof name, "%dx%dx%d", s[i].M, s[i].N, s[i].K);
        const char *argv[6];
        int a = 0;
        if (c->so)
            argv[a++] = self_exe, argv[a++] = "--driver", argv[a++] = c->so, argv[a++] = c->sym;
        else
            argv[a++] = xsmm_exe;
        argv[a++] = name;
        argv[a] = NULL;
        bs_spawn_opts o = {.argv = argv, .io = {BS_NULL, BS_PIPE, BS_PIPE}, .group = true};
        static bs_result res;
        bs_run(&o, 600, &res);
        if (res.spawn_error || !res.exited || res.code != 0) {
            fprintf(stderr, "bench_blas: %s failed on %s: %s%s", c->name, name,
                    res.spawn_error ? strerror(res.spawn_error) : "", res.err);
            return false;
        }
        double t;
        if (sscanf(res.out, "%*s %lf", &t) != 1) {
            fprintf(stderr, "bench_blas: %s printed no time for %s\n", c->name, name);
            return false;
        }
        c->t[i][r] = t;
    }
    return true;
}

/* The CPUs this bench may use, and the first of them: every one-thread run (and the
 * processes it starts) goes there. A VM's CPUs need not be equal (on the one these
 * figures come from, one is 3-8% slower for every library), and a process the
 * scheduler puts on either would add that to the ratios. */
static cpu_set_t all_cpus, first_cpu;
static int first_cpu_id = -1;

static void find_cpus(void)
{
    CPU_ZERO(&first_cpu);
    if (sched_getaffinity(0, sizeof all_cpus, &all_cpus) != 0)
        return;
    for (int i = 0; i < CPU_SETSIZE && first_cpu_id < 0; i++)
        if (CPU_ISSET(i, &all_cpus))
            first_cpu_id = i;
    if (first_cpu_id >= 0)
        CPU_SET(first_cpu_id, &first_cpu);
}

/* Runs what follows (and what it starts) on the first CPU at one thread, else on all. */
static void use_cpus(int threads)
{
    if (first_cpu_id >= 0)
        sched_setaffinity(0, sizeof all_cpus, threads == 1 ? &first_cpu : &all_cpus);
}

/* Runs contenders c[0..nc) on the shapes in `rounds` rounds, each round in another
 * order (rotated by one), at `threads` under `policy`. */
static bool run_rounds(contender *c, int nc, const shape *s, int n, int rounds, int threads,
                       const char *policy)
{
    use_cpus(threads);
    for (int i = 0; i < nc; i++)
        for (int j = 0; j < n; j++)
            for (int r = 0; r < MAXR; r++)
                c[i].t[j][r] = NAN;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < nc; i++)
            if (!run_round(&c[(i + r) % nc], s, n, r, threads, policy))
                return false;
    return true;
}

static double gflops(shape s, double t) { return 2.0 * s.M * s.N * s.K / t * 1e-9; }

/* The table of one setting: GFLOP/s (medians) per contender, c[0] the library,
 * and its ratio to the faster peer (median of the per-round ratios of the peer's
 * time to the library's: above 1 the library is faster) with the rounds it was ahead. */
static void print_table(const contender *c, int nc, const shape *s, int n, int rounds,
                        int threads, const char *policy)
{
    printf("\n%d thread%s, OMP_WAIT_POLICY %s: GFLOP/s (medians of %d rounds)\n\n", threads,
           threads == 1 ? "" : "s", policy ? policy : "unset", rounds);
    printf("| shape |");
    for (int i = 0; i < nc; i++)
        printf(" %s |", c[i].name);
    printf(" vs faster peer | rounds ahead |\n|---|");
    for (int i = 0; i <= nc; i++)
        printf("---:|");
    printf("---:|\n");
    int ahead_shapes = 0, shapes = 0;
    for (int j = 0; j < n; j++) {
        printf("| %dx%dx%d |", s[j].M, s[j].N, s[j].K);
        int best = -1;
        double best_t = 0;
        for (int i = 0; i < nc; i++) {
            double t = bench_median(c[i].t[j], rounds);
            if (isnan(t))
                printf(" - |");
            else
                printf(" %.1f |", gflops(s[j], t));
            if (i > 0 && !isnan(t) && (best < 0 || t < best_t))
                best = i, best_t = t;
        }
        int ahead = 0, used = 0;
        double q = best < 0 ? NAN : bench_paired(c[best].t[j], c[0].t[j], rounds, &ahead, &used);
        if (isnan(q))
            printf(" - | - |\n");
        else {
            printf(" %.3fx (%s) | %d of %d |\n", q, c[best].name, ahead, used);
            shapes++;
            ahead_shapes += round(q * 1000) >= 1000; /* as printed */
        }
    }
    printf("\nat or above the faster peer on %d of %d shapes\n", ahead_shapes, shapes);
}

/* OpenBLAS core types tried (NULL: its own choice), the AVX-512 ones only where
 * the CPU has it (elsewhere OpenBLAS runs another kernel under their name). */
static const char *const coretypes[] = {NULL, "Haswell", "Zen", "SkylakeX", "Cooperlake",
                                        "SapphireRapids"};
enum { NCORE = sizeof coretypes / sizeof *coretypes, NCORE_AVX2 = 3 };

/* Whether /proc/cpuinfo lists CPU flag `flag`. */
static bool cpu_flag(const char *flag)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    bool has = false;
    size_t n = strlen(flag);
    while (f && !has && fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0)
            for (char *p = strstr(line, flag); p && !has; p = strstr(p + 1, flag))
                has = p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n');
    if (f)
        fclose(f);
    return has;
}

/* The OpenBLAS core type that runs the probe shapes fastest at one thread
 * (geometric mean of the medians of 3 rounds); NULL: its own choice. */
static const char *best_coretype(const char *openblas, char env[NCORE][64], bool *ok)
{
    static const shape probe[] = {{512, 768, 768}, {96, 96, 96}, {257, 383, 511}};
    static contender c[NCORE];
    int ntypes = cpu_flag("avx512f") ? NCORE : NCORE_AVX2;
    for (int i = 0; i < ntypes; i++) {
        c[i] = (contender){.name = coretypes[i] ? coretypes[i] : "default", .so = openblas,
                           .sym = "cblas_sgemm"};
        if (coretypes[i]) {
            snprintf(env[i], 64, "OPENBLAS_CORETYPE=%s", coretypes[i]);
            c[i].env[0] = env[i];
        }
    }
    *ok = run_rounds(c, ntypes, probe, 3, 3, 1, NULL);
    printf("OpenBLAS core types (1 thread, GFLOP/s, medians of 3 rounds):\n\n| core type |");
    for (int j = 0; j < 3; j++)
        printf(" %dx%dx%d |", probe[j].M, probe[j].N, probe[j].K);
    printf(" geomean |\n|---|---:|---:|---:|---:|\n");
    int best = 0;
    double best_g = 0;
    for (int i = 0; i < ntypes && *ok; i++) {
        double lg = 0;
        printf("| %s |", c[i].name);
        for (int j = 0; j < 3; j++) {
            double g = gflops(probe[j], bench_median(c[i].t[j], 3));
            printf(" %.1f |", g);
            lg += log(g) / 3;
        }
        printf(" %.1f |\n", exp(lg));
        if (!isnan(lg) && exp(lg) > best_g) /* NaN: a type this CPU cannot run */
            best = i, best_g = exp(lg);
    }
    return coretypes[best];
}

/* The dispatcher's cost: nt_sgemm against the kernel of its 64x64x64 entry
 * called directly, both of the library `so` loaded in this process (one code
 * and data placement: two processes differ by more than the dispatcher costs,
 * up to 12% on a shared VM), a burst each in turn, the first turning each
 * round. False with a line on stderr when it cannot load or computes wrong. */
static bool dispatcher_cost(const char *so, int rounds)
{
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    void *f[2] = {h ? dlsym(h, "nt_sgemm") : NULL, h ? dlsym(h, "bench_direct_sgemm") : NULL};
    if (!f[0] || !f[1]) {
        fprintf(stderr, "bench_blas: cannot load nt_sgemm and bench_direct_sgemm from '%s': %s\n",
                so, dlerror());
        return false;
    }
    static const shape small = {64, 64, 64};
    float *A = NULL, *B = NULL, *C = NULL;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    bool ok = r && operands(small, r, &A, &B, &C), memory = ok;
    call_ctx c[2] = {{.s = small, .A = A, .B = B, .C = C}, {.s = small, .A = A, .B = B, .C = C}};
    *(void **)&c[0].nt = f[0];
    *(void **)&c[1].nt = f[1];
    double t[2][MAXR];
    for (int i = 0; ok && i < rounds; i++)
        for (int w = 0; ok && w < 2; w++) {
            int j = (i + w) % 2;
            t[j][i] = bench_burst_span(call, &c[j], SPAN);
            ok = result_ok(&c[j], r);
        }
    if (ok) {
        int ahead, used;
        double q = bench_paired(t[1], t[0], rounds, &ahead, &used);
        printf("\nThe dispatcher at 64x64x64, 1 thread (the library of the 1-thread table, in "
               "one process): nt_sgemm %.3f us, its entry's kernel called directly %.3f us "
               "(medians of %d rounds); nt_sgemm's cost: %+.2f%% (median of the per-round "
               "ratios)\n",
               1e6 * bench_median(t[0], rounds), 1e6 * bench_median(t[1], rounds), rounds,
               100 * (1 / q - 1));
    } else
        fprintf(stderr, "bench_blas: the dispatcher's comparison %s\n",
                memory ? "computed a wrong result" : "is out of memory");
    free(A), free(B), free(C);
    gsl_rng_free(r);
    return ok;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: bench_blas [--rounds N] --lib1 SO --lib2 SO [--direct SO] [--xsmm EXE] SHAPE...\n"
            "       bench_blas --driver SO SYMBOL SHAPE...\n"
            "  --rounds        rounds of every library on every shape (1 to 15; 9)\n"
            "  --lib1, --lib2  libnpu_tune_gemm.so built from the 1-thread and the 1-or-2-thread table\n"
            "  --direct        the library's source built with blas_direct.c (the dispatcher's cost)\n"
            "  --xsmm          the libxsmm driver (bench_blas_xsmm)\n");
    return 2;
}

int main(int argc, char **argv)
{
    shape s[MAXSHAPES];
    if (argc >= 4 && strcmp(argv[1], "--driver") == 0) {
        int n = parse_shapes(argv + 4, argc - 4, s);
        if (n < 0)
            return 2;
        void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
        void *f = h ? dlsym(h, argv[3]) : NULL;
        if (!f) {
            fprintf(stderr, "bench_blas: cannot load %s from '%s': %s\n", argv[3], argv[2],
                    dlerror());
            return 1;
        }
        call_ctx c = {0};
        if (strcmp(argv[3], "cblas_sgemm") == 0)
            *(void **)&c.cblas = f;
        else
            *(void **)&c.nt = f;
        return drive(&c, s, n);
    }
    const char *lib[2] = {NULL, NULL}, *direct = NULL;
    int rounds = 9, i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (i + 1 >= argc)
            return usage();
        if (strcmp(argv[i], "--rounds") == 0) {
            rounds = atoi(argv[i + 1]);
            if (rounds < 1 || rounds > MAXR) {
                fprintf(stderr, "bench_blas: --rounds must be 1 to %d\n", MAXR);
                return 2;
            }
        } else if (strcmp(argv[i], "--lib1") == 0)
            lib[0] = argv[i + 1];
        else if (strcmp(argv[i], "--lib2") == 0)
            lib[1] = argv[i + 1];
        else if (strcmp(argv[i], "--direct") == 0)
            direct = argv[i + 1];
        else if (strcmp(argv[i], "--xsmm") == 0)
            xsmm_exe = argv[i + 1];
        else
            return usage();
    }
    int n = parse_shapes(argv + i, argc - i, s);
    if (n < 1 || !lib[0] || !lib[1])
        return n < 0 ? 2 : usage();
    static char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        fprintf(stderr, "bench_blas: cannot find this program: %s\n", strerror(errno));
        return 1;
    }
    exe[len] = '\0';
    self_exe = exe;

    find_cpus();
    if (first_cpu_id >= 0)
        printf("\nAt one thread every library (and the dispatcher's cost) runs on CPU %d.\n",
               first_cpu_id);
    static char coreenv[NCORE][64], ctype[64];
    bool ok;
    const char *core = best_coretype("libopenblas.so.0", coreenv, &ok);
    if (!ok)
        return 1;
    snprintf(ctype, sizeof ctype, "OPENBLAS_CORETYPE=%s", core ? core : "");
    /* Debian's BLIS takes its generic kernels on AVX-512 CPUs it does not know */
    const char *blis = cpu_flag("avx512f") ? "BLIS_ARCH_TYPE=skx" : NULL;
    printf("\nOpenBLAS runs as %s, BLIS with %s, libxsmm (its JIT kernels, one "
           "thread) on the shapes of at most 128^3 flops/2.\n",
           core ? core : "its own choice", blis ? blis : "its own choice of kernels");

    static contender c[4];
    int nc = 0;
    c[nc++] = (contender){.name = "npu-tune", .sym = "cblas_sgemm"};
    c[nc++] = (contender){.name = "OpenBLAS", .so = "libopenblas.so.0", .sym = "cblas_sgemm",
                          .env = {core ? ctype : NULL}};
    c[nc++] = (contender){.name = "BLIS", .so = "libblis.so.4", .sym = "cblas_sgemm",
                          .env = {blis}};
    if (xsmm_exe)
        c[nc++] = (contender){.name = "libxsmm", .small_only = true};
    static const char *const policies[] = {NULL, "passive"};
    for (int threads = 1; threads <= 2; threads++)
        for (int p = 0; p < 2; p++) {
            c[0].so = lib[threads - 1];
            if (!run_rounds(c, nc, s, n, rounds, threads, policies[p]))
                return 1;
            print_table(c, nc, s, n, rounds, threads, policies[p]);
            fflush(stdout);
        }

    use_cpus(1);
    if (direct && !dispatcher_cost(direct, MAXR))
        return 1;
    return 0;
}

#endif
