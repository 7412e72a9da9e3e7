/* bench_host_kernel.c — generated host kernels against OpenBLAS cblas_sgemm (default and every
 * usable OPENBLAS_CORETYPE) on the BERT shapes and 1024^3, at 1 and 2 threads, vs the FMA peak. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "codegen.h"
#include "csv.h"
#include "host.h"
#include "rounds.h"
#include "so.h"

typedef void (*kfn)(int, int, int, const float *, int, const float *, int, float *, int);

enum {
    NSHAPE = 4,
    NTHR = 2,     /* thread counts 1 .. NTHR */
    NCORE = 6,    /* OpenBLAS runs: default + the core types below */
    MAXROUNDS = BENCH_MAXN
};
static const int shapes[NSHAPE][3] = {{512, 768, 768}, {512, 3072, 768}, {512, 768, 3072},
                                      {1024, 1024, 1024}};

/* OPENBLAS_CORETYPE values tried besides the library's own choice (NULL). A
 * type this CPU or this OpenBLAS cannot run either fails in its child or
 * falls back to a core already measured, and is dropped. */
static const char *const coretypes[NCORE] = {NULL, "SkylakeX", "Cooperlake", "SapphireRapids", "Zen",
                                             "Haswell"};

/* Fixed configs per shape and thread count, used for the cells that no
 * --table or --config covers, so the bench runs on its own: legal in the
 * tuner's host space (48 KiB L1d, >= 1 MiB L2; --check-fixed checks it), the
 * winners of one tuned run on a 2-core AVX-512 EPYC. The figures docs/performance.md
 * quotes are of tuned kernels: tests/bench/host_bench.sh tunes at 1 and 2
 * threads and passes both tables (the config column says where each kernel
 * came from). */
#define CFG(S, M, N, K, C, SP, MR, NR)                                                             \
    {.strategy = S, .m = M, .n = N, .k = K, .double_buffer = 0, .cores = C, .split = SP,        \
     .mr = MR, .nr = NR}
static sp_config table[NSHAPE][NTHR] = {
    {CFG(SP_WS, 336, 64, 768, 1, SP_SPLIT_M, 8, 48), CFG(SP_WS, 288, 128, 768, 2, SP_SPLIT_N, 8, 48)},
    {CFG(SP_WS, 432, 128, 768, 1, SP_SPLIT_M, 8, 48), CFG(SP_OS, 432, 128, 768, 2, SP_SPLIT_N, 8, 48)},
    {CFG(SP_OS, 480, 64, 768, 1, SP_SPLIT_M, 8, 48), CFG(SP_OS, 384, 64, 768, 2, SP_SPLIT_N, 8, 48)},
    {CFG(SP_WS, 768, 64, 1024, 1, SP_SPLIT_M, 6, 64),
     CFG(SP_OS, 672, 64, 1024, 2, SP_SPLIT_N, 6, 64)},
};
static char origin[NSHAPE][NTHR][16]; /* where each config came from */

/* ---- the FMA peak ---- */

/* ---- operands and timing ---- */

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
    memset(p->C, 0, sizeof(float) * (size_t)p->M * p->N);
    return true;
}

/* GFLOP/s of one sample (bench_burst: the median call of a burst). */
typedef void (*call_fn)(const void *ctx, const problem *p);
typedef struct {
    call_fn f;
    const void *ctx;
    const problem *p;
} job;
static void run_job(const void *j)
{
    const job *x = j;
    x->f(x->ctx, x->p);
}
static double sample(call_fn f, const void *ctx, const problem *p)
{
    job j = {f, ctx, p};
    return 2.0 * p->M * p->N * (double)p->K / bench_burst(run_job, &j) * 1e-9;
}

static void call_kernel(const void *ctx, const problem *p)
{
    kfn f = *(const kfn *)ctx;
    f(p->M, p->N, p->K, p->A, p->K, p->B, p->N, p->C, p->N);
}

/* The FMA loop of the roofline for as many flops as the problem's GEMM, on
 * the threads in ctx: timed by sample() like a kernel, it is the peak over
 * calls of the same length (which long calls on a shared or virtual machine
 * do not reach: interrupts and the hypervisor take their share). */
static void call_fma(const void *ctx, const problem *p)
{
    hs_fma(2.0 * p->M * p->N * (double)p->K, *(const int *)ctx);
}

/* OpenBLAS cblas_sgemm, resolved with dlopen. */
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
static void call_blas(const void *ctx, const problem *p)
{
    sgemm_fn f = *(const sgemm_fn *)ctx;
    /* CblasRowMajor = 101, CblasNoTrans = 111 */
    f(101, 111, 111, p->M, p->N, p->K, 1.0f, p->A, p->K, p->B, p->N, 0.0f, p->C, p->N);
}

/* ---- worker processes ----
 * Every contender runs in its own child so that OPENBLAS_CORETYPE takes
 * effect when the library loads and no contender's idle threads run during
 * another's sample. The parent sends a request (what, shape, threads) and
 * reads back one double (GFLOP/s, < 0: unavailable). */
enum {
    REQ_QUIT,
    REQ_ROOF, /* measure the roofline (measure/host/roofline.c), the tuner's; answer the
               * one-core peak */
    REQ_ALL,  /* the last roofline's all-core peak */
    REQ_LOST, /* the last roofline's share of time lost (its lost-time probe) */
    REQ_FMA,
    REQ_RUN
};
typedef struct {
    int what, shape, threads;
} request;

typedef struct {
    pid_t pid;
    int to, from;        /* pipe ends in the parent */
    char name[64];       /* the OpenBLAS core it runs ("tuned" for the kernels) */
    bool ok;
} worker;

/* Reads (writing false) or writes all n bytes of buf, through EINTR. */
static bool io_all(int fd, char *p, size_t n, bool writing)
{
    while (n > 0) {
        ssize_t k = writing ? write(fd, p, n) : read(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k, n -= (size_t)k;
    }
    return true;
}

static bool write_all(int fd, const void *buf, size_t n)
{
    return io_all(fd, (char *)(uintptr_t)buf, n, true);
}

static bool read_all(int fd, void *buf, size_t n) { return io_all(fd, buf, n, false); }

/* The body of a worker: loads its contender (so: the kernels' library; else
 * OpenBLAS with the core type in the environment), answers with its name,
 * then serves requests until REQ_QUIT or EOF. */
static void serve(const char *so, int in, int out)
{
    kfn kernels[NSHAPE][NTHR] = {{0}};
    sgemm_fn sgemm = NULL;
    void (*set_threads)(int) = NULL;
    char name[64] = "";
    void *h = NULL;
    if (so) {
        h = dlopen(so, RTLD_NOW);
        for (int s = 0; h && s < NSHAPE; s++)
            for (int t = 0; t < NTHR; t++) {
                char sym[32];
                snprintf(sym, sizeof sym, "tuned_%d_%d", s, t);
                kernels[s][t] = (kfn)dlsym(h, sym);
            }
        if (h)
            snprintf(name, sizeof name, "tuned");
    } else {
        h = dlopen("libopenblas.so.0", RTLD_NOW);
        if (!h)
            h = dlopen("libopenblas.so", RTLD_NOW);
        if (h) {
            sgemm = (sgemm_fn)dlsym(h, "cblas_sgemm");
            set_threads = (void (*)(int))dlsym(h, "openblas_set_num_threads");
            char *(*corename)(void) = (char *(*)(void))dlsym(h, "openblas_get_corename");
            if (sgemm && set_threads && corename)
                snprintf(name, sizeof name, "%s", corename());
        }
    }
    if (!write_all(out, name, sizeof name) || !name[0])
        _exit(0);
    problem probs[NSHAPE];
    for (int s = 0; s < NSHAPE; s++)
        if (!problem_init(&probs[s], shapes[s]))
            _exit(1);
    request q;
    hs_roofline roof;
    bool have_roof = false;
    while (read_all(in, &q, sizeof q) && q.what != REQ_QUIT) {
        double g = NAN; /* failed */
        if (q.what == REQ_ROOF) {
            have_roof = hs_measure_roofline(&roof);
            g = have_roof ? roof.gflops_core : NAN;
        } else if (q.what == REQ_ALL || q.what == REQ_LOST) {
            if (have_roof)
                g = q.what == REQ_ALL ? roof.gflops_all : roof.lost.share;
        } else if (q.what == REQ_FMA && q.shape >= 0 && q.shape < NSHAPE && q.threads >= 1) {
            g = sample(call_fma, &q.threads, &probs[q.shape]);
        } else if (q.shape >= 0 && q.shape < NSHAPE && q.threads >= 1 && q.threads <= NTHR) {
            if (so && kernels[q.shape][q.threads - 1])
                g = sample(call_kernel, &kernels[q.shape][q.threads - 1], &probs[q.shape]);
            else if (sgemm) {
                set_threads(q.threads);
                g = sample(call_blas, &sgemm, &probs[q.shape]);
            }
        }
        if (!write_all(out, &g, sizeof g))
            break;
    }
    _exit(0);
}

/* Starts a worker for the kernels' library so (or, so NULL, OpenBLAS with
 * core type coretype, NULL: unset). */
static bool worker_start(worker *w, const char *so, const char *coretype)
{
    int down[2], up[2];
    memset(w, 0, sizeof *w);
    if (pipe(down) != 0)
        return false;
    if (pipe(up) != 0) {
        close(down[0]);
        close(down[1]);
        return false;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(down[0]), close(down[1]), close(up[0]), close(up[1]);
        return false;
    }
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        if (coretype)
            setenv("OPENBLAS_CORETYPE", coretype, 1);
        else
            unsetenv("OPENBLAS_CORETYPE");
        serve(so, down[0], up[1]);
    }
    close(down[0]);
    close(up[1]);
    w->pid = pid, w->to = down[1], w->from = up[0];
    w->ok = read_all(w->from, w->name, sizeof w->name) && w->name[0];
    w->name[sizeof w->name - 1] = 0;
    if (w->ok)
        kill(pid, SIGSTOP); /* until its first request (see ask) */
    return w->ok;
}

/* One answer of worker w to request q; NaN if it failed (it is then dropped).
 * Between requests the worker is stopped (SIGSTOP): OpenBLAS's idle threads
 * spin for ~0.1 s after a call, libgomp's for a while too, and would run
 * during the next contender's sample. */
static double ask(worker *w, int what, int shape, int threads)
{
    request q = {what, shape, threads};
    double g;
    if (!w->ok)
        return NAN;
    kill(w->pid, SIGCONT);
    if (!write_all(w->to, &q, sizeof q) || !read_all(w->from, &g, sizeof g)) {
        w->ok = false;
        return NAN;
    }
    kill(w->pid, SIGSTOP);
    return g;
}

static void worker_stop(worker *w)
{
    if (!w->pid)
        return;
    request q = {REQ_QUIT, 0, 0};
    kill(w->pid, SIGCONT);
    if (w->ok)
        (void)write_all(w->to, &q, sizeof q);
    close(w->to);
    close(w->from);
    waitpid(w->pid, NULL, 0);
    w->pid = 0;
}

/* ---- the tuned kernels ---- */

/* Generates every table kernel into dir/kernels.c and builds dir/kernels.so. */
static bool build(const char *dir)
{
    char path[512], so[512], err[256], sym[32];
    snprintf(path, sizeof path, "%s/kernels.c", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    for (int s = 0; s < NSHAPE; s++)
        for (int t = 0; t < NTHR; t++) {
            snprintf(sym, sizeof sym, "tuned_%d_%d", s, t);
            if (!cg_host_source(f, &table[s][t], SP_FP32, sym, err, sizeof err)) {
                fprintf(stderr, "bench_host_kernel: %dx%dx%d at %d threads: %s\n", shapes[s][0],
                        shapes[s][1], shapes[s][2], t + 1, err);
                fclose(f);
                return false;
            }
        }
    if (fclose(f) != 0)
        return false;
    snprintf(so, sizeof so, "%s/kernels.so", dir);
    return bench_build_so(path, so);
}

/* One row of a tuning table: its config, at the row's cores, for the bench
 * shape it is of (if any); *ctx counts the rows used. */
static bool table_row(void *ctx, const char *const *v, const char *path, int lineno)
{
    char spec[256];
    snprintf(spec, sizeof spec, "%s %s %s %s %s %s %s %s", v[3], v[4], v[5], v[6], v[7], v[8],
             v[9], v[10]);
    sp_config c;
    if (!csv_config(spec, &c)) {
        fprintf(stderr, "bench_host_kernel: %s:%d: cannot read the config '%s'\n", path, lineno,
                spec);
        return false;
    }
    int M = atoi(v[0]), N = atoi(v[1]), K = atoi(v[2]), cores = c.cores;
    for (int s = 0; s < NSHAPE; s++)
        if (M == shapes[s][0] && N == shapes[s][1] && K == shapes[s][2] && cores >= 1 &&
            cores <= NTHR) {
            table[s][cores - 1] = c;
            snprintf(origin[s][cores - 1], sizeof origin[s][cores - 1], "table");
            ++*(int *)ctx;
        }
    return true;
}

/* Takes the configs of the rows of a tuning table whose M, N, K is a bench
 * shape, at the row's cores. False with a message for an unreadable table. */
static bool load_table(const char *path)
{
    static const char *const need[] = {"M", "N", "K", "strategy", "m", "n", "k",
                                       "double_buffer", "cores", "split", "micro"};
    int used = 0;
    if (!csv_read(path, "bench_host_kernel", need, sizeof need / sizeof need[0], table_row,
                  &used))
        return false;
    if (used == 0)
        fprintf(stderr, "bench_host_kernel: %s: no row for the bench shapes; fixed configs used\n",
                path);
    return true;
}

/* The machine the fixed configs were tuned on, as a host target: 2 cores,
 * AVX-512 (16 lanes, 32 registers), 48 KiB L1d, 1 MiB L2, 32 MiB L3. */
static void fixed_machine(sp_target *t)
{
    hs_info h = {.cores = 2, .cache = {48 << 10, 1 << 20, 32 << 20}, .simd_floats = 16,
                 .vregs = 32, .isa = "avx512"};
    hs_target(&h, t);
}

/* Whether every fixed config is legal for its shape on that machine and the
 * generator writes it (each failure one line on stderr): they are the
 * bench's fallbacks, and a change of the space's rules or of the generator
 * must not leave them behind. */
static bool check_fixed(void)
{
    sp_target t;
    fixed_machine(&t);
    bool ok = true;
    for (int s = 0; s < NSHAPE; s++)
        for (int th = 0; th < NTHR; th++) {
            const sp_config *c = &table[s][th];
            const int *d = shapes[s];
            sp_problem p = {.name = "bench", .M = d[0], .N = d[1], .K = d[2], .batch = 1,
                            .dtype = SP_FP32};
            char what[64], why[1024] = "", err[256], *text = NULL;
            snprintf(what, sizeof what, "fixed config of %dx%dx%d at %d thread%s", d[0], d[1],
                     d[2], th + 1, th ? "s" : "");
            if (c->cores != th + 1)
                snprintf(why, sizeof why, "cores = %d", c->cores);
            else if (sp_check(&t, &p, c))
                sp_explain_line(&t, &p, c, why, sizeof why);
            else if (!(text = cg_host_text(c, SP_FP32, "fixed", err, sizeof err)))
                snprintf(why, sizeof why, "the generator refuses it: %s", err);
            free(text);
            if (why[0]) {
                fprintf(stderr, "bench_host_kernel: %s: %s\n", what, why);
                ok = false;
            }
        }
    return ok;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_host_kernel [--rounds N] [--gap SECONDS] [--table FILE.csv]\n"
            "                         [--config THREADS \"STRATEGY m n k db cores split MRxNR\"]...\n"
            "  --rounds   round-robin rounds (default 5; each contender one sample per round)\n"
            "  --gap      pause between samples in seconds (default 0.01; the other contenders\n"
            "             are stopped meanwhile)\n"
            "  --table    take the configs from a tuning table's rows with a bench shape, at\n"
            "             the row's cores (repeatable; cells no table covers use fixed configs)\n"
            "  --config   this config for every shape at THREADS threads\n"
            "  --check-fixed  only check that the fixed configs are legal on the machine they\n"
            "             were tuned on and generate (exit 0), else name each failure (exit 1)\n");
}

int main(int argc, char **argv)
{
    int rounds = 5;
    double gap = 0.01;
    for (int s = 0; s < NSHAPE; s++)
        for (int t = 0; t < NTHR; t++)
            snprintf(origin[s][t], sizeof origin[s][t], "fixed");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--gap") == 0 && i + 1 < argc) {
            gap = atof(argv[++i]);
        } else if (strcmp(argv[i], "--table") == 0 && i + 1 < argc) {
            if (!load_table(argv[++i]))
                return 2;
        } else if (strcmp(argv[i], "--check-fixed") == 0) {
            if (!check_fixed())
                return 1;
            printf("bench_host_kernel: the %d fixed configs are legal and generate\n",
                   NSHAPE * NTHR);
            return 0;
        } else if (strcmp(argv[i], "--config") == 0 && i + 2 < argc) {
            int t = atoi(argv[++i]) - 1;
            sp_config c;
            if (t < 0 || t >= NTHR || !csv_config(argv[++i], &c)) {
                fprintf(stderr, "bench_host_kernel: bad --config\n");
                return 2;
            }
            for (int s = 0; s < NSHAPE; s++) {
                table[s][t] = c;
                snprintf(origin[s][t], sizeof origin[s][t], "--config");
            }
        } else {
            usage();
            return 2;
        }
    }
    if (rounds < 1)
        rounds = 1;
    if (rounds > MAXROUNDS)
        rounds = MAXROUNDS;
    if (gap < 0)
        gap = 0;
    signal(SIGPIPE, SIG_IGN);

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

    /* the contenders: the kernels, then OpenBLAS per core type (a type
     * resolving to a core already running is dropped) */
    worker tuned, blas[NCORE];
    int nblas = 0;
    if (!worker_start(&tuned, so, NULL)) {
        fprintf(stderr, "bench_host_kernel: loading %s failed\n", so);
        return 1;
    }
    for (int c = 0; c < NCORE; c++) {
        worker w;
        bool dup = false;
        if (!worker_start(&w, NULL, coretypes[c])) {
            worker_stop(&w);
            if (c == 0)
                break; /* no OpenBLAS at all */
            continue;
        }
        for (int d = 0; d < nblas; d++)
            dup = dup || strcmp(blas[d].name, w.name) == 0;
        if (dup)
            worker_stop(&w);
        else
            blas[nblas++] = w;
    }

    /* round-robin: in each round the peak and, on every (threads, shape)
     * cell, the FMA loop of the same flops and every contender get one
     * sample, in turn */
    static double peak[NTHR][MAXROUNDS], lost[MAXROUNDS], kern[NSHAPE][NTHR][MAXROUNDS];
    static double fma[NSHAPE][NTHR][MAXROUNDS];
    static double lib[NCORE][NSHAPE][NTHR][MAXROUNDS];
    struct timespec pause = {(time_t)gap, (long)((gap - (double)(time_t)gap) * 1e9)};
    double start = bench_now();
    int tty = isatty(STDERR_FILENO);
    for (int r = 0; r < rounds; r++) {
        /* one roofline a round: the peaks of 1 and of all threads, the time lost */
        peak[0][r] = ask(&tuned, REQ_ROOF, 0, 1);
        for (int t = 1; t < NTHR; t++)
            peak[t][r] = ask(&tuned, REQ_ALL, 0, t + 1);
        lost[r] = ask(&tuned, REQ_LOST, 0, 1);
        nanosleep(&pause, NULL);
        for (int t = 0; t < NTHR; t++) {
            for (int s = 0; s < NSHAPE; s++) {
                fma[s][t][r] = ask(&tuned, REQ_FMA, s, t + 1);
                nanosleep(&pause, NULL);
                kern[s][t][r] = ask(&tuned, REQ_RUN, s, t + 1);
                nanosleep(&pause, NULL);
                for (int c = 0; c < nblas; c++) {
                    lib[c][s][t][r] = ask(&blas[c], REQ_RUN, s, t + 1);
                    nanosleep(&pause, NULL);
                }
            }
        }
        fprintf(stderr, "%sbench_host_kernel: round %d/%d (%.0f s)%s", tty ? "\r" : "", r + 1,
                rounds, bench_now() - start, tty ? "" : "\n");
    }
    if (tty)
        fprintf(stderr, "\n");
    worker_stop(&tuned);
    for (int c = 0; c < nblas; c++)
        worker_stop(&blas[c]);

    double pk[NTHR];
    for (int t = 0; t < NTHR; t++)
        pk[t] = bench_median(peak[t], rounds);
    printf("FMA peak (measure/host/roofline.c, median of %d rounds): 1 core %.1f GFLOP/s, %d cores "
           "%.1f GFLOP/s\n",
           rounds, pk[0], NTHR, pk[NTHR - 1]);
    printf("A running thread lost %.1f%% of its wall time (the roofline's probe, "
           "measure/host/lost.c: gaps of > 2 us between clock reads, median of %d rounds)\n",
           100 * bench_median(lost, rounds), rounds);
    if (nblas == 0)
        printf("OpenBLAS (libopenblas.so.0) not found: the tuned kernels alone\n");
    else {
        printf("OpenBLAS core types: %s (default)", blas[0].name);
        for (int c = 1; c < nblas; c++)
            printf(", %s", blas[c].name);
        printf("\n");
    }
    printf("GFLOP/s: median of %d round-robin samples (each the median call of >= 0.1 s); "
           "peak: the roofline's (per core at 1 thread, of all %d cores at %d); FMA loop: "
           "the roofline's loop for the GEMM's flops on the same threads, timed like the "
           "kernels in the same rounds; ratios: the median of the %d per-round ratios (samples "
           "taken seconds apart), and in how many rounds the tuned kernel was ahead\n\n",
           rounds, NTHR, NTHR, rounds);
    printf("| shape (MxNxK) | threads | tuned GFLOP/s | tuned / peak | FMA loop GFLOP/s | "
           "tuned / FMA loop | OpenBLAS default | best OpenBLAS (core) | best OpenBLAS / FMA loop | "
           "tuned / best OpenBLAS (rounds ahead) | config |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int s = 0; s < NSHAPE; s++)
        for (int t = 0; t < NTHR; t++) {
            const double *k = kern[s][t], *f = fma[s][t];
            int best = 0, ahead, used;
            double b[NCORE];
            for (int c = 0; c < nblas; c++) {
                b[c] = bench_median(lib[c][s][t], rounds); /* NaN: every round failed */
                if (isnan(b[best]) || b[c] > b[best])
                    best = c;
            }
            const sp_config *c = &table[s][t];
            printf("| %dx%dx%d | %d | %.1f | %.2f | %.1f | %.2f | ", shapes[s][0], shapes[s][1],
                   shapes[s][2], t + 1, bench_median(k, rounds),
                   bench_paired(k, peak[t], rounds, &ahead, &used), bench_median(f, rounds),
                   bench_paired(k, f, rounds, &ahead, &used));
            if (nblas) {
                const double *l = lib[best][s][t];
                double fb = bench_paired(l, f, rounds, &ahead, &used);
                double kb = bench_paired(k, l, rounds, &ahead, &used);
                printf("%.1f | %.1f (%s) | %.2f | %.2f (%d of %d) | ", b[0], b[best], blas[best].name,
                       fb, kb, ahead, used);
            } else {
                printf("- | - | - | - | ");
            }
            printf("%s %dx%dx%d db%d cores%d %s %dx%d (%s) |\n", sp_strategy_name(c->strategy),
                   (int)c->m, (int)c->n, (int)c->k, c->double_buffer, (int)c->cores,
                   sp_split_name(c->split), c->mr, c->nr, origin[s][t]);
        }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_host_kernel: could not remove %s\n", dir);
    return 0;
}
