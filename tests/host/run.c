/* run.c — the host harness on hand-written kernels: good ones are timed,
 * wrong, crashing, hanging and uncompilable ones get their status; the roofline. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "check.h"
#include "codegen.h"
#include "host.h"
#include "procs.h"

#define SIG "(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C, int ldc)"

static char workdir[] = "/tmp/nt_host_test_XXXXXX";

/* Rows i = FIRST, FIRST + STEP, ... of C = A.B, naively (a kernel's body). */
#define ROWS(first, step)                                       \
    "    for (int i = " first "; i < M; i += " step ")\n"       \
    "        for (int j = 0; j < N; j++) {\n"                   \
    "            float s = 0;\n"                                \
    "            for (int k = 0; k < K; k++)\n"                 \
    "                s += A[i * lda + k] * B[k * ldb + j];\n"   \
    "            C[i * ldc + j] = s;\n"                         \
    "        }\n"

/* Kernel sources, SYMBOL standing for the symbol (filled by kernel()). */
static const char naive[] =
    "void SYMBOL" SIG "\n"
    "{\n"
    ROWS("0", "1")
    "}\n";

static const char blocked[] =
    "static void SYMBOL_rows(int i0, int i1, int N, int K, const float *A, int lda,\n"
    "                        const float *B, int ldb, float *C, int ldc)\n"
    "{\n"
    "    for (int i = i0; i < i1; i++)\n"
    "        for (int j = 0; j < N; j++)\n"
    "            C[i * ldc + j] = 0;\n"
    "    for (int k0 = 0; k0 < K; k0 += 64)\n"
    "        for (int i = i0; i < i1; i++)\n"
    "            for (int k = k0; k < K && k < k0 + 64; k++) {\n"
    "                float a = A[i * lda + k];\n"
    "                for (int j = 0; j < N; j++)\n"
    "                    C[i * ldc + j] += a * B[k * ldb + j];\n"
    "            }\n"
    "}\n"
    "void SYMBOL" SIG "\n"
    "{\n"
    "#pragma omp parallel for schedule(static)\n"
    "    for (int i0 = 0; i0 < M; i0 += 16)\n"
    "        SYMBOL_rows(i0, i0 + 16 < M ? i0 + 16 : M, N, K, A, lda, B, ldb, C, ldc);\n"
    "}\n";

/* C = A.B with each term and the stored value as given (a kernel's body). */
#define LOOPS(kend, term, value)                                \
    "    for (int i = 0; i < M; i++)\n"                        \
    "        for (int j = 0; j < N; j++) {\n"                  \
    "            float s = 0;\n"                               \
    "            for (int k = 0; k < " kend "; k++)\n"         \
    "                s += " term ";\n"                         \
    "            C[i * ldc + j] = " value ";\n"                \
    "        }\n"

/* Right everywhere but C[M/2][N/3]. */
static const char wrong[] =
    "void SYMBOL" SIG "\n"
    "{\n"
    LOOPS("K", "A[i * lda + k] * B[k * ldb + j]", "s + (i == M / 2 && j == N / 3 ? 0.5f : 0.0f)")
    "}\n";

/* Planted wrong kernels, each close to right: the last k step dropped, A and B
 * rounded to bf16 (for an fp32 problem), one element one unit in the last place off. */
static const char drop_last[] =
    "void SYMBOL" SIG "\n"
    "{\n"
    LOOPS("K - 1", "A[i * lda + k] * B[k * ldb + j]", "s")
    "}\n";

static const char bf16_operands[] =
    "#include <stdint.h>\n"
    "#include <string.h>\n"
    "static float SYMBOL_bf16(float x)\n"
    "{\n"
    "    uint32_t u;\n"
    "    memcpy(&u, &x, 4);\n"
    "    u = (u + 0x7fffu + (u >> 16 & 1u)) & 0xffff0000u;\n"
    "    memcpy(&x, &u, 4);\n"
    "    return x;\n"
    "}\n"
    "void SYMBOL" SIG "\n"
    "{\n"
    LOOPS("K", "SYMBOL_bf16(A[i * lda + k]) * SYMBOL_bf16(B[k * ldb + j])", "s")
    "}\n";

static const char ulp_off[] =
    "#include <math.h>\n"
    "void SYMBOL" SIG "\n"
    "{\n"
    LOOPS("K", "A[i * lda + k] * B[k * ldb + j]",
          "i == M / 2 && j == N / 3 ? nextafterf(s, INFINITY) : s")
    "}\n";

/* bf16 (FP16 0) or fp16 (FP16 1) storage, naively; DROP 1 drops the last k step. */
#define SIG16 "(int M, int N, int K, const uint16_t *A, int lda, const uint16_t *B, int ldb, " \
              "float *C, int ldc)"
static const char naive16[] =
    "#include <math.h>\n"
    "#include <stdint.h>\n"
    "#include <string.h>\n"
    "static float SYMBOL_value(uint16_t h)\n"
    "{\n"
    "    if (!FP16) {\n"
    "        uint32_t u = (uint32_t)h << 16;\n"
    "        float x;\n"
    "        memcpy(&x, &u, 4);\n"
    "        return x;\n"
    "    }\n"
    "    int e = h >> 10 & 0x1f, m = h & 0x3ff;\n"
    "    float v = e ? ldexpf((float)(1024 + m), e - 25) : ldexpf((float)m, -24);\n"
    "    return h & 0x8000 ? -v : v;\n"
    "}\n"
    "void SYMBOL" SIG16 "\n"
    "{\n"
    LOOPS("K - DROP", "SYMBOL_value(A[i * lda + k]) * SYMBOL_value(B[k * ldb + j])", "s")
    "}\n";

static const char segfault[] =
    "#include <stdint.h>\n"
    "void SYMBOL" SIG "\n"
    "{\n"
    "    (void)M, (void)N, (void)K, (void)A, (void)lda, (void)B, (void)ldb, (void)ldc;\n"
    "    *(volatile float *)(uintptr_t)64 = C[0];\n"
    "}\n";

static const char noisy[] =
    "#include <stdio.h>\n"
    "void SYMBOL" SIG "\n"
    "{\n"
    "    printf(\"SYMBOL writes to stdout\\n\");\n"
    "    fflush(stdout);\n"
    "    fprintf(stderr, \"SYMBOL writes to stderr\\n\");\n"
    "    for (int i = 0; i < M; i++)\n"
    "        for (int j = 0; j < N; j++) {\n"
    "            double s = 0;\n"
    "            for (int k = 0; k < K; k++)\n"
    "                s += (double)A[i * lda + k] * B[k * ldb + j];\n"
    "            C[i * ldc + j] = (float)s;\n"
    "        }\n"
    "}\n";

/* Right, but crowds the machine: 8 threads per core share the rows, so each
 * spends most of the call runnable but waiting for a CPU, as the threads of a
 * kernel do on a machine another process keeps busy. */
static const char crowded[] =
    "#include <omp.h>\n"
    "void SYMBOL" SIG "\n"
    "{\n"
    "    _Pragma(\"omp parallel num_threads(8 * omp_get_num_procs())\")\n"
    "    {\n"
    "        int t = omp_get_thread_num(), n = omp_get_num_threads();\n"
    ROWS("t", "n")
    "        volatile double x = 0; /* long enough for the scheduler to rotate them */\n"
    "        for (long r = 0; r < 2000000; r++)\n"
    "            x += (double)r;\n"
    "    }\n"
    "}\n";

static const char broken[] =
    "void SYMBOL" SIG "\n"
    "{\n"
    "    this is not C;\n"
    "}\n";

static const char undefined_ref[] =
    "void nt_test_missing_helper(float *C);\n"
    "void SYMBOL" SIG "\n"
    "{\n"
    "    (void)M, (void)N, (void)K, (void)A, (void)lda, (void)B, (void)ldb, (void)ldc;\n"
    "    nt_test_missing_helper(C);\n"
    "}\n";

/* Hangs, and leaves a grandchild hanging too; writes both pids to PIDFILE. */
static const char hang[] =
    "#include <stdio.h>\n"
    "#include <unistd.h>\n"
    "void SYMBOL" SIG "\n"
    "{\n"
    "    (void)M, (void)N, (void)K, (void)A, (void)lda, (void)B, (void)ldb, (void)C, (void)ldc;\n"
    "    pid_t g = fork();\n"
    "    if (g != 0) {\n"
    "        FILE *f = fopen(\"PIDFILE\", \"w\");\n"
    "        if (f) {\n"
    "            fprintf(f, \"%ld %ld\\n\", (long)getpid(), (long)g);\n"
    "            fclose(f);\n"
    "        }\n"
    "    }\n"
    "    for (volatile unsigned long x = 0;; x++)\n"
    "        ;\n"
    "}\n";

/* The template with SYMBOL replaced by symbol, PIDFILE by pidfile, and FP16 and DROP
 * by fp16 and drop (malloc'd). */
static char *kernel16(const char *tmpl, const char *symbol, const char *pidfile, int fp16,
                      int drop)
{
    char f[2] = {(char)('0' + fp16), 0}, d[2] = {(char)('0' + drop), 0};
    const char *const from[] = {"SYMBOL", "PIDFILE", "FP16", "DROP"};
    const char *const to[] = {symbol, pidfile, f, d};
    size_t len = strlen(tmpl) * 4 + 4096;
    char *out = malloc(len), *o = out;
    for (const char *s = tmpl; *s;) {
        size_t w = 0;
        for (size_t i = 0; i < 4 && !w; i++)
            if (strncmp(s, from[i], strlen(from[i])) == 0) {
                o += sprintf(o, "%s", to[i]);
                w = strlen(from[i]);
            }
        if (w)
            s += w;
        else
            *o++ = *s++;
    }
    *o = '\0';
    return out;
}

static char *kernel(const char *tmpl, const char *symbol, const char *pidfile)
{
    return kernel16(tmpl, symbol, pidfile, 0, 0);
}

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static bool no_children(void)
{
    int status;
    return waitpid(-1, &status, WNOHANG) < 0 && errno == ECHILD;
}

static void remove_workdir(void)
{
    DIR *d = opendir(workdir);
    if (!d)
        return;
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", workdir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(workdir);
}

static void show(const char *name, const ms_measurement *m)
{
    printf("  %-10s %-8s %.3g s  %s\n", name, ms_status_name(m->status), m->value, m->detail);
}

/* A good kernel's measurement: ok, positive, a sane interval around the mean,
 * and seconds (no CPU core does 10 TFLOP/s; a unit slip would). Not compared
 * with the roofline: under the sanitizers the probe is instrumented and the
 * kernels are not. */
static void check_ok(const ms_measurement *m, const sp_problem *p)
{
    if (!CHECK_INT(m->status, MS_OK))
        return;
    double flops = 2.0 * (double)(p->M * p->N * p->K * p->batch);
    CHECK(m->value > 0 && m->nsamples >= 1);
    CHECK(m->ci_lo <= m->mean && m->mean <= m->ci_hi);
    CHECK(flops / m->value < 1e13);
    CHECK(strstr(m->detail, "sample") != NULL && strstr(m->detail, "CI +-") != NULL);
}

/* Verification at large K: planted kernels that are close to right are wrong (the
 * exact pass on integer inputs, or the random pass within a bound that grows like
 * sqrt(K)); right kernels, in fp32 and in 16-bit storage, pass. */
static void large_k(void)
{
    static const struct {
        const char *tmpl, *symbol;
        int fp16, drop;
        sp_dtype dtype;
        ms_status want;
        const char *why; /* what the detail says */
    } cases[] = {
        {naive, "l_naive", 0, 0, SP_FP32, MS_OK, NULL},
        {blocked, "l_blocked", 0, 0, SP_FP32, MS_OK, NULL},
        {drop_last, "l_drop", 0, 0, SP_FP32, MS_WRONG, "(integer inputs, exact in fp32)"},
        {bf16_operands, "l_bf16", 0, 0, SP_FP32, MS_WRONG, "(random inputs: error "},
        {ulp_off, "l_ulp", 0, 0, SP_FP32, MS_WRONG, "(integer inputs, exact in fp32)"},
        {wrong, "l_wrong", 0, 0, SP_FP32, MS_WRONG, "(integer inputs, exact in fp32)"},
        {naive16, "l_bf16_ok", 0, 0, SP_BF16, MS_OK, NULL},
        {naive16, "l_bf16_drop", 0, 1, SP_BF16, MS_WRONG, "(integer inputs, exact in fp32)"},
        {naive16, "l_fp16_ok", 1, 0, SP_FP16, MS_OK, NULL},
        {naive16, "l_fp16_drop", 1, 1, SP_FP16, MS_WRONG, "(integer inputs, exact in fp32)"},
    };
    enum { NCASE = sizeof cases / sizeof *cases };
    static const int64_t ks[] = {3072, 4096};
    for (size_t q = 0; q < sizeof ks / sizeof *ks; q++) {
        sp_problem p[3];
        for (int d = 0; d < 3; d++)
            p[d] = (sp_problem){.name = "largek", .M = 24, .N = 40, .K = ks[q], .batch = 1,
                                .dtype = d == 0 ? SP_FP32 : d == 1 ? SP_BF16 : SP_FP16};
        hs_job jobs[NCASE];
        ms_measurement out[NCASE];
        for (int i = 0; i < NCASE; i++) {
            const sp_problem *pi = &p[cases[i].dtype == SP_FP32 ? 0 : cases[i].dtype == SP_BF16 ? 1 : 2];
            jobs[i] = (hs_job){kernel16(cases[i].tmpl, cases[i].symbol, "", cases[i].fp16,
                                        cases[i].drop),
                               cases[i].symbol, pi, 1};
        }
        char err[256];
        CHECK(hs_run(jobs, NCASE, workdir, 20, out, NULL, NULL, err, sizeof err));
        printf("K = %lld:\n", (long long)ks[q]);
        for (int i = 0; i < NCASE; i++) {
            show(cases[i].symbol, &out[i]);
            if (!CHECK_INT(out[i].status, cases[i].want))
                fprintf(stderr, "  %s at K = %lld: %s\n", cases[i].symbol, (long long)ks[q],
                        out[i].detail);
            if (cases[i].why)
                CHECK(strstr(out[i].detail, cases[i].why) != NULL);
            free((char *)jobs[i].source);
        }
    }
}

/* Generated kernels at large K, with tails, of every strategy, split and dtype, with
 * one or two threads and micro-tiles of each code path: all pass both checks. */
static void generated_large_k(void)
{
    static const sp_config cfg[] = {
        {.strategy = SP_WS, .m = 29, .n = 64, .k = 1000, .cores = 2, .split = SP_SPLIT_MN,
         .double_buffer = 1, .mr = 8, .nr = 48},
        {.strategy = SP_OS, .m = 16, .n = 40, .k = 4096, .cores = 1, .split = SP_SPLIT_N,
         .mr = 3, .nr = 4},
        {.strategy = SP_IS, .m = 37, .n = 83, .k = 256, .cores = 2, .split = SP_SPLIT_M,
         .double_buffer = 1, .mr = 6, .nr = 16},
    };
    static const sp_dtype dtypes[] = {SP_FP32, SP_BF16, SP_FP16};
    enum { NCFG = sizeof cfg / sizeof *cfg, NDT = sizeof dtypes / sizeof *dtypes };
    sp_problem p[NDT];
    hs_job jobs[NCFG * NDT];
    ms_measurement out[NCFG * NDT];
    char sym[NCFG * NDT][16], err[256];
    for (int d = 0; d < NDT; d++) {
        p[d] = (sp_problem){.name = "gen", .M = 37, .N = 83, .K = 4096, .batch = 1,
                            .dtype = dtypes[d]};
        for (int c = 0; c < NCFG; c++) {
            int i = d * NCFG + c;
            snprintf(sym[i], sizeof sym[i], "g_%d_%d", d, c);
            char *text = cg_host_text(&cfg[c], dtypes[d], sym[i], err, sizeof err);
            if (!CHECK(text != NULL))
                fprintf(stderr, "  %s: %s\n", sym[i], err);
            jobs[i] = (hs_job){text ? text : strdup(""), sym[i], &p[d], cfg[c].cores};
        }
    }
    CHECK(hs_run(jobs, NCFG * NDT, workdir, 20, out, NULL, NULL, err, sizeof err));
    for (int i = 0; i < NCFG * NDT; i++) {
        show(sym[i], &out[i]);
        check_ok(&out[i], jobs[i].problem);
        free((char *)jobs[i].source);
    }
}

/* A kernel whose threads wait for a CPU is timed but marked busy, in the
 * search and in the final: its figure says little about the kernel. Only
 * where the kernel reports the waits (schedstat): 77 (skipped) elsewhere. */
static int crowded_kernel(void)
{
    if (access("/proc/self/task", R_OK) != 0 || access("/proc/self/schedstat", R_OK) != 0) {
        printf("skipped: no /proc/self/schedstat (the waits of a kernel's threads)\n");
        return 77;
    }
    sp_problem square = {.name = "square", .M = 96, .N = 80, .K = 72, .batch = 1, .dtype = SP_FP32};
    ms_measurement out[2];
    char err[256];
    hs_job cjobs[2] = {{kernel(crowded, "c_crowded", ""), "c_crowded", &square, 0},
                       {kernel(naive, "c_naive", ""), "c_naive", &square, 1}};
    CHECK(hs_run(cjobs, 1, workdir, 10, out, NULL, NULL, err, sizeof err));
    show(cjobs[0].symbol, &out[0]);
    check_ok(&out[0], &square);
    CHECK(out[0].busy);
    CHECK(strstr(out[0].detail, "; busy: its threads waited ") != NULL);
    CHECK(hs_final(cjobs, 2, workdir, 10, out, err, sizeof err));
    show(cjobs[0].symbol, &out[0]);
    check_ok(&out[0], &square);
    CHECK(out[0].busy);
    CHECK(strstr(out[0].detail, "; busy: its threads waited ") != NULL);
    /* busy where it was pinned (its threads all on the home CPU): no more pinning */
    CHECK(hs_home_cpu() >= 0);
    cjobs[0].threads = 1;
    CHECK(hs_run(cjobs, 1, workdir, 10, out, NULL, NULL, err, sizeof err));
    show(cjobs[0].symbol, &out[0]);
    CHECK(out[0].busy);
    CHECK_INT(hs_home_cpu(), -1);
    for (int i = 0; i < 2; i++)
        free((char *)cjobs[i].source);
    return CHECK_DONE();
}

/* Right only where its affinity holds just CPU HOME (a %d for snprintf). */
static const char pinned[] =
    "#define _GNU_SOURCE\n"
    "#include <sched.h>\n"
    "void SYMBOL" SIG "\n"
    "{\n"
    "    cpu_set_t s;\n"
    "    int home = sched_getaffinity(0, sizeof s, &s) == 0 && CPU_COUNT(&s) == 1 &&\n"
    "               CPU_ISSET(%d, &s);\n"
    ROWS("0", "1")
    "    if (!home)\n"
    "        C[0] += 1;\n"
    "}\n";

/* One-thread kernels run pinned to the home CPU, alone and in a final;
 * a runner with a kernel of other threads is not pinned. First of the
 * harness's timings: a busy one (the suite runs tests side by side) ends the
 * pinning, so the finals expect what the home CPU is just before them. */
static void pinning(void)
{
    cpu_set_t mine;
    int home = hs_home_cpu();
    CHECK(home >= 0 && home == hs_home_cpu());
    CHECK(sched_getaffinity(0, sizeof mine, &mine) == 0 && CPU_ISSET(home, &mine));
    char text[2048];
    snprintf(text, sizeof text, pinned, home);
    sp_problem p = {.name = "pinned", .M = 33, .N = 40, .K = 17, .batch = 1, .dtype = SP_FP32};
    hs_job jobs[3] = {{kernel(text, "p_one", ""), "p_one", &p, 1},
                      {kernel(text, "p_two", ""), "p_two", &p, 1},
                      {kernel(text, "p_free", ""), "p_free", &p, 0}};
    ms_measurement out[3];
    char err[256];
    CHECK(hs_run(jobs, 3, workdir, 10, out, NULL, NULL, err, sizeof err));
    show("p_one", &out[0]);
    check_ok(&out[0], &p);
    /* where this process may use one CPU only, a free runner has it too */
    ms_status free_status = CPU_COUNT(&mine) > 1 ? MS_WRONG : MS_OK;
    CHECK_INT(out[2].status, free_status);
    ms_status pinned_status = hs_home_cpu() >= 0 ? MS_OK : free_status;
    CHECK(hs_final(jobs, 2, workdir, 10, out, err, sizeof err));
    CHECK_INT(out[0].status, pinned_status);
    CHECK_INT(out[1].status, pinned_status);
    CHECK(hs_final(jobs, 3, workdir, 10, out, err, sizeof err));
    CHECK_INT(out[0].status, free_status);
    CHECK_INT(out[2].status, free_status);
    for (int i = 0; i < 3; i++)
        free((char *)jobs[i].source);
}

/* No argument: the harness; --crowded: a busy kernel (a test of its own). */
int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    if (!mkdtemp(workdir)) {
        perror("mkdtemp");
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "--crowded") == 0) {
        int rc = crowded_kernel();
        remove_workdir();
        return rc;
    }

    /* The roofline first: the parent has run OpenMP regions from here on,
     * which is what makes a plain fork unusable for OpenMP kernels. */
    hs_roofline r;
    double t0 = bs_now();
    CHECK(hs_measure_roofline(&r));
    printf("roofline: %.1f GFLOP/s per core, %.1f GFLOP/s all cores, %.1f GB/s (%.2f s)\n",
           r.gflops_core, r.gflops_all, r.gbytes, bs_now() - t0);
    /* figures, not speeds: a timed bound fails on a busy machine (the suite
     * runs tests side by side, sanitizers slow the FMA loop down) */
    CHECK(isfinite(r.gflops_core) && r.gflops_core > 0);
    CHECK(isfinite(r.gflops_all) && r.gflops_all > 0);
    CHECK(isfinite(r.gbytes) && r.gbytes > 0);
    /* The FMA loop for a given work: rounds of 12 vectors of at most 16
     * lanes (384 flops), split evenly over the threads. */
    for (int threads = 1; threads <= 2; threads++) {
        double done = hs_fma(1e6, threads);
        CHECK(done > 1e6 - 384.0 * threads && done < 1e6 + 384.0 * threads);
        CHECK(hs_fma(1, threads) > 0); /* at least one round each */
    }

    pinning();

    /* A mixed batch of ten: two translation units, one bad kernel in each. */
    sp_problem square = {.name = "square", .M = 96, .N = 80, .K = 72, .batch = 1, .dtype = SP_FP32};
    sp_problem tails = {.name = "tails", .M = 67, .N = 45, .K = 33, .batch = 1, .dtype = SP_FP32};
    sp_problem batched = {.name = "batched", .M = 40, .N = 24, .K = 56, .batch = 3, .dtype = SP_FP32};
    sp_problem thin = {.name = "thin", .M = 1, .N = 300, .K = 200, .batch = 1, .dtype = SP_FP32};
    struct {
        const char *tmpl, *symbol;
        const sp_problem *p;
        ms_status want;
    } mix[] = {
        {naive, "k_naive", &square, MS_OK},          {blocked, "k_blocked", &square, MS_OK},
        {wrong, "k_wrong", &square, MS_WRONG},       {segfault, "k_segv", &tails, MS_CRASH},
        {broken, "k_broken", &square, MS_ILLEGAL},   {noisy, "k_noisy", &tails, MS_OK},
        {naive, "k_naive_b", &batched, MS_OK},       {blocked, "k_blocked_t", &tails, MS_OK},
        {undefined_ref, "k_undef", &thin, MS_ILLEGAL}, {blocked, "k_thin", &thin, MS_OK},
    };
    enum { NMIX = sizeof mix / sizeof *mix };
    hs_job jobs[NMIX + 1];
    ms_measurement out[NMIX + 1];
    for (int i = 0; i < NMIX; i++)
        jobs[i] = (hs_job){kernel(mix[i].tmpl, mix[i].symbol, ""), mix[i].symbol, mix[i].p,
                           mix[i].tmpl == blocked ? 0 : 1};
    /* A source that does not define the symbol it is measured under. */
    jobs[NMIX] = (hs_job){kernel(naive, "k_other", ""), "k_absent", &square, 1};

    int fds = open_fds();
    fflush(stdout);
    char capture[] = "/tmp/nt_host_stdout_XXXXXX";
    int cap = mkstemp(capture), saved = dup(1);
    dup2(cap, 1);
    char err[256] = "x";
    t0 = bs_now();
    bool ran = hs_run(jobs, NMIX + 1, workdir, 10, out, NULL, NULL, err, sizeof err);
    double took = bs_now() - t0;
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    CHECK(lseek(cap, 0, SEEK_END) == 0); /* the kernels' output went nowhere near ours */
    close(cap);
    unlink(capture);
    CHECK(ran);
    CHECK_STR(err, "");
    printf("mixed batch: %.2f s\n", took);
    for (int i = 0; i < NMIX; i++) {
        show(mix[i].symbol, &out[i]);
        CHECK_INT(out[i].status, mix[i].want);
        if (mix[i].want == MS_OK)
            check_ok(&out[i], mix[i].p);
    }
    show("k_absent", &out[NMIX]);
    CHECK_INT(out[NMIX].status, MS_ILLEGAL);
    CHECK(strstr(out[NMIX].detail, "k_absent") != NULL);
    CHECK(strstr(out[2].detail, "C[48][26] = ") == out[2].detail);
    CHECK(strstr(out[2].detail, "1 of 7680 elements wrong") != NULL);
    CHECK(strstr(out[3].detail, "SIGSEGV") != NULL);
    CHECK(strstr(out[4].detail, "error") != NULL && strstr(out[4].detail, "\n") == NULL);
    CHECK(strstr(out[8].detail, "nt_test_missing_helper") != NULL);
    CHECK_INT(open_fds(), fds);
    CHECK(no_children());
    for (int i = 0; i <= NMIX; i++)
        free((char *)jobs[i].source);

    /* A hang under a 1 s timeout between two good kernels: the good ones are
     * timed within the budget, the hang's runner and its grandchild die. */
    char pidfile[128];
    snprintf(pidfile, sizeof pidfile, "%s/hang.pid", workdir);
    hs_job hjobs[3] = {{kernel(naive, "h_before", ""), "h_before", &tails, 1},
                       {kernel(hang, "h_hang", pidfile), "h_hang", &tails, 1},
                       {kernel(blocked, "h_after", ""), "h_after", &batched, 0}};
    t0 = bs_now();
    CHECK(hs_run(hjobs, 3, workdir, 1.0, out, NULL, NULL, err, sizeof err));
    took = bs_now() - t0;
    printf("hang batch (timeout 1 s): %.2f s\n", took);
    for (int i = 0; i < 3; i++)
        show(hjobs[i].symbol, &out[i]);
    check_ok(&out[0], &tails);
    check_ok(&out[2], &batched);
    CHECK_INT(out[1].status, MS_TIMEOUT);
    CHECK(strstr(out[1].detail, "timed out after 1 s") != NULL);
    CHECK(took < 15);
    long pids[2] = {0, 0};
    FILE *f = fopen(pidfile, "r");
    CHECK(f && fscanf(f, "%ld %ld", &pids[0], &pids[1]) == 2);
    if (f)
        fclose(f);
    CHECK(pids[0] > 0 && process_gone(pids[0]));
    CHECK(pids[1] > 0 && process_gone(pids[1]));
    CHECK(no_children());
    CHECK_INT(open_fds(), fds);
    for (int i = 0; i < 3; i++)
        free((char *)hjobs[i].source);

    /* The final: two good kernels and a wrong one in one runner; the good
     * ones are timed side by side (the same rounds each), the wrong one is
     * caught by the same verification. */
    hs_job fjobs[3] = {{kernel(naive, "f_naive", ""), "f_naive", &square, 1},
                       {kernel(wrong, "f_wrong", ""), "f_wrong", &square, 1},
                       {kernel(blocked, "f_blocked", ""), "f_blocked", &square, 0}};
    t0 = bs_now();
    CHECK(hs_final(fjobs, 3, workdir, 10, out, err, sizeof err));
    printf("final of 3: %.2f s\n", bs_now() - t0);
    for (int i = 0; i < 3; i++)
        show(fjobs[i].symbol, &out[i]);
    check_ok(&out[0], &square);
    check_ok(&out[2], &square);
    CHECK_INT(out[1].status, MS_WRONG);
    CHECK(strstr(out[1].detail, "C[48][26] = ") == out[1].detail);
    /* at least the final's 11 rounds (more when the kernels are quick; under
     * contention the 2-thread kernel's calls take a time slice each) */
    CHECK(out[0].nsamples >= 11 && out[0].nsamples == out[2].nsamples);
    CHECK(strstr(out[0].detail, "final: ") == out[0].detail);
    CHECK(strstr(out[0].detail, "side by side with 1 other,") != NULL);
    /* ... timed as the caller chooses: 4 rounds of single calls */
    hs_final_opts quick = {.rounds = 4, .seconds = 1e-9, .burst_calls = 1, .burst_seconds = 1e-9};
    CHECK(hs_final_with(fjobs, 3, workdir, 10, &quick, out, err, sizeof err));
    check_ok(&out[0], &square);
    CHECK_INT(out[0].nsamples, 4);
    CHECK_INT(out[2].nsamples, 4);
    CHECK_INT(out[1].status, MS_WRONG);
    CHECK(strstr(out[0].detail, "final: 4 samples side by side") == out[0].detail);
    /* ... and handing over each round's sample: the same 4 rounds for each
     * kernel timed, their median the value; NaN after them and for the wrong one */
    static double round_s[3 * HS_FINAL_ROUNDS];
    for (size_t i = 0; i < sizeof round_s / sizeof *round_s; i++)
        round_s[i] = -1;
    quick.round_s = round_s;
    CHECK(hs_final_with(fjobs, 3, workdir, 10, &quick, out, err, sizeof err));
    for (int i = 0; i < 3; i += 2) {
        const double *r = round_s + i * HS_FINAL_ROUNDS;
        CHECK_INT(out[i].nsamples, 4);
        CHECK(r[0] > 0 && r[1] > 0 && r[2] > 0 && r[3] > 0);
        CHECK(isnan(r[4]) && isnan(r[HS_FINAL_ROUNDS - 1]));
        double sorted[4] = {r[0], r[1], r[2], r[3]};
        gsl_sort(sorted, 1, 4);
        CHECK_DBL(out[i].value, (sorted[1] + sorted[2]) / 2);
    }
    CHECK(isnan(round_s[HS_FINAL_ROUNDS]) && isnan(round_s[2 * HS_FINAL_ROUNDS - 1]));
    /* ... each at its own job's row when a job before it does not compile
     * (it leaves the runner: the timed list's places are not the jobs') */
    hs_job cjobs[2] = {{kernel(broken, "c_broken", ""), "c_broken", &square, 1}, fjobs[2]};
    for (size_t i = 0; i < 2 * HS_FINAL_ROUNDS; i++)
        round_s[i] = -1;
    CHECK(hs_final_with(cjobs, 2, workdir, 10, &quick, out, err, sizeof err));
    CHECK_INT(out[0].status, MS_ILLEGAL);
    CHECK_INT(out[1].nsamples, 4);
    CHECK(isnan(round_s[0]) && isnan(round_s[HS_FINAL_ROUNDS - 1]));
    CHECK(round_s[HS_FINAL_ROUNDS] > 0 && round_s[HS_FINAL_ROUNDS + 3] > 0);
    free((char *)cjobs[0].source);
    /* A kernel that crashes takes the final's runner down with it: every
     * finalist is marked, and the call returns. */
    free((char *)fjobs[1].source);
    fjobs[1] = (hs_job){kernel(segfault, "f_segv", ""), "f_segv", &square, 1};
    CHECK(hs_final(fjobs, 3, workdir, 10, out, err, sizeof err));
    for (int i = 0; i < 3; i++) {
        show(fjobs[i].symbol, &out[i]);
        CHECK_INT(out[i].status, MS_CRASH);
        CHECK(strstr(out[i].detail, "the final's runner was killed by SIGSEGV") == out[i].detail);
        CHECK(strstr(out[i].detail, "while verifying") != NULL);
    }
    /* A hang: every finalist times out within the time allowed (1 s each). */
    free((char *)fjobs[1].source);
    fjobs[1] = (hs_job){kernel(hang, "f_hang", pidfile), "f_hang", &square, 1};
    t0 = bs_now();
    CHECK(hs_final(fjobs, 3, workdir, 1.0, out, err, sizeof err));
    took = bs_now() - t0;
    printf("final with a hang (1 s each): %.2f s\n", took);
    for (int i = 0; i < 3; i++) {
        CHECK_INT(out[i].status, MS_TIMEOUT);
        CHECK(strstr(out[i].detail, "timed out after 3 s while verifying") != NULL);
    }
    CHECK(took < 15);
    CHECK(no_children());
    CHECK_INT(open_fds(), fds);
    hs_job many[HS_FINAL_MAX + 1];
    CHECK(!hs_final(many, HS_FINAL_MAX + 1, workdir, 1, out, err, sizeof err));
    CHECK(strstr(err, "at most 16 kernels") != NULL);
    for (int i = 0; i < 3; i++)
        free((char *)fjobs[i].source);

    /* The busy rule: at least 25% of the thread time and 1 ms spent waiting
     * for a CPU; an unknown wait (-1) never. */
    CHECK(hs_busy(0.3, 1.0) && hs_busy(0.25, 1.0));
    CHECK(!hs_busy(0.2, 1.0) && !hs_busy(0, 1.0) && !hs_busy(-1, 1.0));
    CHECK(!hs_busy(0.0009, 0.001)); /* under 1 ms */
    CHECK(hs_busy(0.002, 0.004));
    large_k();
    generated_large_k();

    /* Nothing to do; a work directory that cannot be made. */
    CHECK(hs_run(NULL, 0, workdir, 1, NULL, NULL, NULL, err, sizeof err));
    hs_job one = {naive, "x", &square, 1};
    CHECK(!hs_run(&one, 1, "/proc/nt_host_test/work", 1, out, NULL, NULL, err, sizeof err));
    CHECK(strstr(err, "/proc/nt_host_test") != NULL);

    remove_workdir();
    return CHECK_DONE();
}
