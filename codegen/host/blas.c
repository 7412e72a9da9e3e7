/* blas.c — the fixed code of a library of host kernels (npu-tune lib): the shape
 * dispatcher, nt_sgemm and the 16-bit entry points, CBLAS cblas_sgemm and Fortran sgemm_. */

/* codegen/library.c writes a library's source as its kernels (each host kernel with
 * NT_HOST_EX defined, so that it has the entry NT_(ex): alpha, beta, transposes,
 * a thread count), then for each dtype the list of its entries,
 *   #define NT_LIB_FP32(X) X(M, N, K, cores, split, mr, nr, seconds, kernel_ex, dense) ...
 * (dense: the kernel's NT_(dense_call) for the fp32 no-pack family, else 0)
 * (NT_LIB_BF16, NT_LIB_FP16 when the tables tuned those dtypes) and the kernel for any
 * other shape, NT_LIB_FP32_GENERAL (one thread), then pool.c (the kernels' threads)
 * and this file. */

#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npu_tune_gemm.h"

/* An entry's shape, what its legality depends on (split: NT_LIB_SPLIT_*), and the
 * seconds its shape took when tuned (on its threads; 0: not known). */
enum { NT_LIB_SPLIT_M = 1, NT_LIB_SPLIT_N = 2, NT_LIB_SPLIT_MN = 3 };
typedef struct {
    int M, N, K, cores, split, mr, nr;
    double seconds;
} nt_lib_shape;
#define NT_LIB_SHAPE(M, N, K, cores, split, mr, nr, seconds, fn, dense)                          \
    {M, N, K, cores, split, mr, nr, seconds},
#define NT_LIB_FN(M, N, K, cores, split, mr, nr, seconds, fn, dense) fn,
#define NT_LIB_DENSE(M, N, K, cores, split, mr, nr, seconds, fn, dense) dense,

/* The kernels' extended entries (see NT_(ex) in gemm.c), by the type of A and B. */
typedef void nt_lib_sfn(int, int, int, int, int, float, const float *, int, const float *, int,
                        float, float *, int, int);
typedef void nt_lib_hfn(int, int, int, int, int, float, const uint16_t *, int, const uint16_t *,
                        int, float, float *, int, int);
/* A no-pack kernel's loops for its dense shapes (see NT_(dense_call) in gemm.c). */
typedef int nt_lib_dfn(int, int, int, const float *, int, const float *, int, float *, int, int);

/* Whether entry e's config leaves no thread idle on an M x N problem: its
 * threads over ceil(M / mr) x ceil(N / nr) micro-tiles (npu-tune's rule:
 * split M needs a row of tiles per thread, split N a column, split MN a grid
 * r x cores/r, 2 <= r <= cores/2, within them). */
static int nt_lib_legal(const nt_lib_shape *e, long M, long N)
{
    long TM = (M + e->mr - 1) / e->mr, TN = (N + e->nr - 1) / e->nr;
    if (e->cores == 1)
        return 1;
    if (e->split == NT_LIB_SPLIT_M)
        return TM >= e->cores;
    if (e->split == NT_LIB_SPLIT_N)
        return TN >= e->cores;
    for (long r = 2; 2 * r <= e->cores; r++)
        if (e->cores % r == 0 && r <= TM && e->cores / r <= TN)
            return 1;
    return 0;
}

static double nt_lib_ratio(long a, long b) { return a > b ? (double)a / (double)b : (double)b / (double)a; }

/* How calls were dispatched: to an exact entry, the nearest legal one, the general kernel. */
enum { NT_LIB_EXACT, NT_LIB_NEAREST, NT_LIB_GENERAL, NT_LIB_NHOW };
static const char *const nt_lib_how[NT_LIB_NHOW] = {"exact", "nearest", "general"};

/* The entry of e[0..n) for an M x N x K problem (M, N, K >= 1): the one of
 * that shape, else the legal one nearest by |ln M/M'| + |ln N/N'| + |ln K/K'|
 * (the product of the ratios, which orders the same; ties to the earlier),
 * else -1: the general kernel. *how says which. */
static __attribute__((noinline)) int nt_lib_find(const nt_lib_shape *e, int n, int M, int N,
                                                 int K, int *how)
{
    int best = -1;
    double best_d = 0;
    for (int i = 0; i < n; i++)
        if (e[i].M == M && e[i].N == N && e[i].K == K) {
            *how = NT_LIB_EXACT;
            return i;
        }
    for (int i = 0; i < n; i++) {
        if (!nt_lib_legal(&e[i], M, N))
            continue;
        double d = nt_lib_ratio(e[i].M, M) * nt_lib_ratio(e[i].N, N) * nt_lib_ratio(e[i].K, K);
        if (best < 0 || d < best_d)
            best = i, best_d = d;
    }
    *how = best < 0 ? NT_LIB_GENERAL : NT_LIB_NEAREST;
    return best;
}

/* A dtype's entries, its last pick per thread (the same shape again costs a
 * comparison), its calls by how they were dispatched and those that ran on
 * several threads. */
typedef struct {
    const nt_lib_shape *e;
    int n;
    long calls[NT_LIB_NHOW], threaded;
} nt_lib_table;

/* In the initial-exec TLS model: a load at a fixed offset from the thread
 * pointer, where the default model for a shared library calls
 * __tls_get_addr on every call (it takes 32 bytes of the static TLS that
 * the C library keeps spare for libraries loaded later with dlopen). */
typedef struct {
    const nt_lib_table *table;
    int M, N, K, pick, how;
} nt_lib_last;
static _Thread_local nt_lib_last nt_lib_cache __attribute__((tls_model("initial-exec")));

/* Counting is on when NPU_TUNE_GEMM_STATS is set (read once, at load): the
 * counts then go to standard error when the program ends. */
static int nt_lib_counting;

/* The entry of t for an M x N x K problem, or -1 (the general kernel). */
static int nt_lib_pick(nt_lib_table *t, int M, int N, int K)
{
    nt_lib_last *c = &nt_lib_cache;
    if (c->table != t || c->M != M || c->N != N || c->K != K) {
        c->table = t, c->M = M, c->N = N, c->K = K;
        c->pick = nt_lib_find(t->e, t->n, M, N, K, &c->how);
    }
    if (nt_lib_counting)
        __atomic_fetch_add(&t->calls[c->how], 1, __ATOMIC_RELAXED);
    return c->pick;
}

/* The most threads a call may take (read once, at load): NPU_TUNE_GEMM_THREADS,
 * else OMP_NUM_THREADS (its first number), and no more than the CPUs this
 * process may run on. An entry tuned on more runs on one. */
static int nt_lib_most = 1 << 20;

/* ---- the kernels' threads ---- */

/* nt_lib_now and the pool (nt_lib_parallel) are pool.c's, written before this file. */

#ifdef NT_HOST_POOL
static void nt_lib_nothing(void *arg, int t) { (void)arg, (void)t; }

/* Whether n - 1 workers exist and none sleeps: a call starts at once. (In a
 * child of fork `made` is its parent's: its first call makes them.) */
static int nt_lib_pool_awake(int n)
{
    return nt_lib_pool.made >= n - 1 && atomic_load(&nt_lib_pool.sleepers) == 0;
}

/* Wakes sleeping workers to spin again until `seconds` from now and their
 * spin after, so that the calls that follow this one (on one thread, taking
 * about `seconds`: the start-up would have cost more than the threads save)
 * find them awake. */
static void nt_lib_pool_rouse(double seconds)
{
    if (!nt_lib_pool_ok || atomic_load(&nt_lib_pool.sleepers) == 0)
        return;
    atomic_store(&nt_lib_pool.until, nt_lib_now() + seconds);
    atomic_fetch_add(&nt_lib_pool.alert, 1);
    mtx_lock(&nt_lib_pool.lock);
    cnd_broadcast(&nt_lib_pool.wake);
    mtx_unlock(&nt_lib_pool.lock);
}
#endif

/* Seconds the kernels' threads take to start a call on n threads: asleep
 * (awake = 0: the pool's workers after their spin, waiting to be woken; without
 * the pool OpenMP's, which sleep between regions with OMP_WAIT_POLICY=passive),
 * or awake (the pool's workers spinning: a call soon after the last). Measured
 * on the calling thread's first threaded call, the median of five starts after
 * one that makes the threads, and again 1, 2, 4 ... 256 s later, so that a
 * process that measured it while the machine was busy does not keep the
 * figure (the estimate asleep sleeps for about 2 ms); unless
 * NPU_TUNE_GEMM_START_US gave it. One thread measures at a time: another
 * meanwhile takes the last figure, or none (0) before the first. */
static long long nt_lib_start_ns[2] = {-1, -1}; /* asleep, awake; -1: not yet measured */
static long long nt_lib_start_due[2];           /* nt_lib_now in ns when measured again */
static int nt_lib_start_n[2];                   /* times measured; -1: given */
static int nt_lib_start_busy[2];                /* a thread is measuring */

static double nt_lib_start_cost(int n, int awake)
{
    long long known = __atomic_load_n(&nt_lib_start_ns[awake], __ATOMIC_ACQUIRE);
    long long due = __atomic_load_n(&nt_lib_start_due[awake], __ATOMIC_RELAXED);
    if (known >= 0 && (long long)(nt_lib_now() * 1e9) < due)
        return 1e-9 * (double)known;
    if (__atomic_exchange_n(&nt_lib_start_busy[awake], 1, __ATOMIC_ACQUIRE))
        return known >= 0 ? 1e-9 * (double)known : 0;
    double t[6];
    for (int r = 0; r < 6; r++) {
#ifdef NT_HOST_POOL
        if (r > 0 && !awake) { /* let the workers fall asleep */
            struct timespec pause = {0, (long)(nt_lib_spin * 1e9) + 200000};
            nanosleep(&pause, NULL);
        }
        double t0 = nt_lib_now();
        nt_lib_parallel(n, nt_lib_nothing, NULL);
#else
        double t0 = nt_lib_now();
#ifdef _OPENMP
#pragma omp parallel num_threads(n)
        __asm__ volatile("" ::: "memory");
#else
        (void)n;
#endif
#endif
        t[r] = nt_lib_now() - t0;
    }
    for (int i = 2; i < 6; i++) /* insertion sort of the five after the first */
        for (int j = i; j > 1 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1], t[j - 1] = x;
        }
    int times = nt_lib_start_n[awake]++;
    double life = times < 8 ? (double)(1 << times) : 256.0;
    long long due_ns = (long long)((nt_lib_now() + life) * 1e9);
    __atomic_store_n(&nt_lib_start_due[awake], due_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&nt_lib_start_ns[awake], (long long)(t[3] * 1e9), __ATOMIC_RELEASE);
    __atomic_store_n(&nt_lib_start_busy[awake], 0, __ATOMIC_RELEASE);
    return t[3];
}

/* The threads entry e (of several threads, no more than a call may take) runs
 * an M x N x K problem on: its own count, or one when what more threads save
 * cannot pay for starting them. The time on one thread is estimated from the
 * entry's tuned time, as if its threads had scaled perfectly (which favours
 * threads), scaled by the work; the threads are kept when they save more than
 * twice the start-up (nt_lib_start_cost: asleep or awake, as the pool's workers
 * are now; a call that runs on one thread while they sleep rouses them for the
 * calls that follow). */
static __attribute__((noinline)) int nt_lib_threads_of(const nt_lib_shape *e, int M, int N, int K)
{
    if (e->seconds <= 0)
        return e->cores;
    double work = (double)M * N * K / ((double)e->M * e->N * e->K);
    double one = e->seconds * e->cores * work;
#ifdef NT_HOST_POOL
    int awake = nt_lib_pool_awake(e->cores);
#else
    int awake = 0;
#endif
    if (one * (1.0 - 1.0 / e->cores) > 2.0 * nt_lib_start_cost(e->cores, awake))
        return e->cores;
#ifdef NT_HOST_POOL
    nt_lib_pool_rouse(one);
#endif
    return 1;
}

/* The threads entry i of t runs an M x N x K problem on: one when it has one
 * or more than a call may take (nt_lib_most), else nt_lib_threads_of's
 * count; the calls on several threads counted. */
static int nt_lib_threads(nt_lib_table *t, int i, int M, int N, int K)
{
    const nt_lib_shape *e = &t->e[i];
    if (e->cores <= 1 || e->cores > nt_lib_most) /* here, for the one-thread calls */
        return 1;
    int n = nt_lib_threads_of(e, M, N, K);
    if (nt_lib_counting && n > 1)
        __atomic_fetch_add(&t->threaded, 1, __ATOMIC_RELAXED);
    return n;
}

/* ---- fp32 ---- */

static const nt_lib_shape nt_lib_s_shape[] = {NT_LIB_FP32(NT_LIB_SHAPE){0, 0, 0, 0, 0, 0, 0, 0}};
static nt_lib_sfn *const nt_lib_s_fn[] = {NT_LIB_FP32(NT_LIB_FN) NULL};
static nt_lib_dfn *const nt_lib_s_dense[] = {NT_LIB_FP32(NT_LIB_DENSE) NULL};
static nt_lib_table nt_lib_s = {nt_lib_s_shape, (int)(sizeof nt_lib_s_fn / sizeof *nt_lib_s_fn) - 1,
                                {0}, 0};

/* Row-major C (M x N) = alpha op(A) op(B) + beta C (M, N, K >= 1, alpha not 0)
 * by fp32 entry i on `threads` threads: a one-thread call of a no-pack kernel's
 * own shape, untransposed, alpha 1, beta 0 or 1, by the kernel's loop for it,
 * else by the kernel's entry. */
static inline void nt_lib_s_run(int i, int ta, int tb, int M, int N, int K, float alpha,
                                const float *A, int lda, const float *B, int ldb, float beta,
                                float *C, int ldc, int threads)
{
    if (threads == 1 && nt_lib_s_dense[i] && !ta && !tb && alpha == 1.0f &&
        (beta == 0.0f || beta == 1.0f) &&
        nt_lib_s_dense[i](M, N, K, A, lda, B, ldb, C, ldc, beta != 0.0f))
        return;
    nt_lib_s_fn[i](ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, threads);
}

/* Row-major C (M x N) = alpha op(A) op(B) + beta C with arguments a BLAS has
 * checked, by the kernel the dispatcher picks. */
static void nt_lib_sgemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                         const float *B, int ldb, float beta, float *C, int ldc)
{
    if (M <= 0 || N <= 0)
        return;
    if (K <= 0 || alpha == 0.0f) { /* no product: C = beta C (0: not read) */
        if (beta != 1.0f)
            NT_LIB_FP32_GENERAL(0, 0, M, N, 0, alpha, A, lda, B, ldb, beta, C, ldc, 1);
        return;
    }
    int i = nt_lib_pick(&nt_lib_s, M, N, K);
    if (i < 0) {
        NT_LIB_FP32_GENERAL(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 1);
        return;
    }
    nt_lib_s_run(i, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
                 nt_lib_threads(&nt_lib_s, i, M, N, K));
}

NT_GEMM_API void nt_sgemm(int M, int N, int K, const float *A, int lda, const float *B, int ldb, float *C,
              int ldc)
{
    nt_lib_sgemm(0, 0, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
}

/* ---- the 16-bit storage dtypes the tables tuned ---- */

/* The entry point of a 16-bit dtype D (its list NT_LIB_D, its general kernel
 * NT_LIB_D_GENERAL) named NAME. */
#define NT_LIB_16(D, NAME)                                                                      \
    static const nt_lib_shape nt_lib_##D##_shape[] = {                                         \
        NT_LIB_##D(NT_LIB_SHAPE){0, 0, 0, 0, 0, 0, 0, 0}};                                      \
    static nt_lib_hfn *const nt_lib_##D##_fn[] = {NT_LIB_##D(NT_LIB_FN) NULL};                 \
    static nt_lib_table nt_lib_##D = {                                                          \
        nt_lib_##D##_shape, (int)(sizeof nt_lib_##D##_fn / sizeof *nt_lib_##D##_fn) - 1, {0}, 0};\
    NT_GEMM_API void NAME(int M, int N, int K, const uint16_t *A, int lda, const uint16_t *B,  \
                          int ldb, float *C, int ldc)                                          \
    {                                                                                           \
        if (M <= 0 || N <= 0)                                                                   \
            return;                                                                             \
        int i = K > 0 ? nt_lib_pick(&nt_lib_##D, M, N, K) : -1;                                 \
        if (i < 0)                                                                              \
            NT_LIB_##D##_GENERAL(0, 0, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc, 1);         \
        else                                                                                    \
            nt_lib_##D##_fn[i](0, 0, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc,               \
                               nt_lib_threads(&nt_lib_##D, i, M, N, K));                       \
    }
#ifdef NT_LIB_BF16
NT_LIB_16(BF16, nt_sbgemm)
#endif
#ifdef NT_LIB_FP16
NT_LIB_16(FP16, nt_shgemm)
#endif

/* ---- the counts at exit ---- */

static void nt_lib_report(const char *name, const nt_lib_table *t)
{
    long n = t->calls[0] + t->calls[1] + t->calls[2];
    if (n == 0)
        return;
    fprintf(stderr, "npu_tune_gemm: %s: %ld call%s:", name, n, n == 1 ? "" : "s");
    for (int h = 0; h < NT_LIB_NHOW; h++)
        fprintf(stderr, " %ld %s%s", t->calls[h], nt_lib_how[h], h + 1 < NT_LIB_NHOW ? "," : ";");
    fprintf(stderr, " %ld on several threads\n", t->threaded);
}

/* The threads' start-up the library last took, asleep and awake, and how it
 * came by it (nothing when it never needed one). */
static void nt_lib_report_start(void)
{
    if (!nt_lib_start_n[0] && !nt_lib_start_n[1])
        return;
    fprintf(stderr, "npu_tune_gemm: start-up:");
    for (int awake = 0; awake < 2; awake++) {
        int times = nt_lib_start_n[awake];
        const char *state = awake ? "awake" : "asleep";
        fputs(awake ? ", " : " ", stderr);
        if (times == 0)
            fprintf(stderr, "not measured %s", state);
        else if (times < 0)
            fprintf(stderr, "%.1f us %s (given)", 1e-3 * (double)nt_lib_start_ns[awake], state);
        else
            fprintf(stderr, "%.1f us %s (measured %d time%s)",
                    1e-3 * (double)nt_lib_start_ns[awake], state, times, times == 1 ? "" : "s");
    }
    fputc('\n', stderr);
}

__attribute__((destructor)) static void nt_lib_end(void)
{
    if (!nt_lib_counting)
        return;
    nt_lib_report("sgemm", &nt_lib_s);
    nt_lib_report_start();
#ifdef NT_LIB_BF16
    nt_lib_report("sbgemm", &nt_lib_BF16);
#endif
#ifdef NT_LIB_FP16
    nt_lib_report("shgemm", &nt_lib_FP16);
#endif
}

__attribute__((constructor)) static void nt_lib_start(void)
{
    const char *s = getenv("NPU_TUNE_GEMM_STATS"), *t = getenv("NPU_TUNE_GEMM_THREADS");
    nt_lib_counting = s && *s && strcmp(s, "0") != 0;
    if (!t || !*t)
        t = getenv("OMP_NUM_THREADS");
    char *end;
    long most = t && *t ? strtol(t, &end, 10) : 0;
    if (most >= 1 && (*end == '\0' || *end == ',') && most < nt_lib_most)
        nt_lib_most = (int)most;
#if defined(__linux__) && defined(_GNU_SOURCE)
    cpu_set_t cpus;
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) < nt_lib_most)
        nt_lib_most = CPU_COUNT(&cpus);
#endif
    const char *start = getenv("NPU_TUNE_GEMM_START_US");
    double start_us = start && *start ? strtod(start, &end) : -1;
    if (start_us >= 0 && start_us <= 1e7 && *end == '\0')
        for (int awake = 0; awake < 2; awake++) {
            nt_lib_start_ns[awake] = (long long)(start_us * 1e3);
            nt_lib_start_due[awake] = LLONG_MAX, nt_lib_start_n[awake] = -1;
        }
#ifdef NT_HOST_POOL
    const char *spin = getenv("NPU_TUNE_GEMM_SPIN_US");
    double us = spin && *spin ? strtod(spin, &end) : -1;
    if (us >= 0 && us <= 1e7 && *end == '\0')
        nt_lib_spin = us * 1e-6;
#endif
}

/* ---- the reference BLAS's argument checks and error handlers ---- */

/* LSAME: c is the letter u in either case. */
static int nt_lib_lsame(char c, char u) { return c == u || c == u + ('a' - 'A'); }

/* The reference SGEMM's check of its arguments (column-major): the number of
 * the first bad one (1 TRANSA, 2 TRANSB, 3 M, 4 N, 5 K, 8 LDA, 10 LDB, 13
 * LDC), or 0; *ta and *tb are the transposes ('C' is 'T' for real matrices). */
static int nt_lib_check(char transa, char transb, int M, int N, int K, int lda, int ldb, int ldc,
                        int *ta, int *tb)
{
    int nota = nt_lib_lsame(transa, 'N'), notb = nt_lib_lsame(transb, 'N');
    int nrowa = nota ? M : K, nrowb = notb ? K : N;
    *ta = !nota, *tb = !notb;
    if (!nota && !nt_lib_lsame(transa, 'C') && !nt_lib_lsame(transa, 'T'))
        return 1;
    if (!notb && !nt_lib_lsame(transb, 'C') && !nt_lib_lsame(transb, 'T'))
        return 2;
    if (M < 0)
        return 3;
    if (N < 0)
        return 4;
    if (K < 0)
        return 5;
    if (lda < (nrowa > 1 ? nrowa : 1))
        return 8;
    if (ldb < (nrowb > 1 ? nrowb : 1))
        return 10;
    if (ldc < (M > 1 ? M : 1))
        return 13;
    return 0;
}

/* The CBLAS call being checked is row-major: cblas_xerbla's parameter
 * numbers of gemm are then those of the swapped Fortran call. */
static _Thread_local int nt_lib_row_major;

/* The reference CBLAS's global of the same meaning, set for a handler that
 * reads it, where a reference BLAS is loaded. */
extern int RowMajorStrg __attribute__((weak));

/* The handlers a program (or another BLAS) may define instead: these are
 * weak. As the reference's, they print which parameter was bad and end the
 * program (the reference's Fortran XERBLA with STOP, status 0: here 1). */
__attribute__((weak)) NT_GEMM_API void xerbla_(const char *srname, const int *info, size_t len)
{
    int n = 0;
    while (n < 6 && (size_t)n < len && srname[n] && srname[n] != ' ')
        n++;
    fprintf(stderr, " ** On entry to %.*s parameter number %2d had an illegal value\n", n, srname,
            *info);
    exit(1);
}

__attribute__((weak)) NT_GEMM_API void cblas_xerbla(int info, const char *rout, const char *form, ...)
{
    if (nt_lib_row_major && strstr(rout, "gemm")) /* the user's parameter numbers */
        info = info == 4 ? 5 : info == 5 ? 4 : info == 9 ? 11 : info == 11 ? 9 : info;
    if (info)
        fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
    va_list ap;
    va_start(ap, form);
    vfprintf(stderr, form, ap);
    va_end(ap);
    exit(-1);
}

/* ---- Fortran 77 ---- */

NT_GEMM_API void sgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const float *alpha, const float *A, const int *lda, const float *B, const int *ldb,
            const float *beta, float *C, const int *ldc)
{
    int ta, tb, info = nt_lib_check(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc, &ta, &tb);
    if (info) {
        xerbla_("SGEMM ", &info, 6);
        return;
    }
    /* column-major C = row-major C^T = op(B)^T op(A)^T: the same transposes */
    nt_lib_sgemm(tb, ta, *n, *m, *k, *alpha, B, *ldb, A, *lda, *beta, C, *ldc);
}

/* ---- CBLAS ---- */

enum { NT_LIB_ROW = 101, NT_LIB_COL = 102, NT_LIB_NOTRANS = 111, NT_LIB_TRANS = 112,
       NT_LIB_CONJTRANS = 113 };

/* The Fortran letter of a CBLAS transpose, or 0. */
static char nt_lib_letter(int t)
{
    return t == NT_LIB_NOTRANS ? 'N' : t == NT_LIB_TRANS ? 'T' : t == NT_LIB_CONJTRANS ? 'C' : 0;
}

/* Reports bad parameter `info` of cblas_sgemm as the reference does. */
static void nt_lib_cblas_error(int row, int info, const char *form, int value)
{
    nt_lib_row_major = row;
    if (&RowMajorStrg)
        RowMajorStrg = row;
    if (form)
        cblas_xerbla(info, "cblas_sgemm", form, value);
    else
        cblas_xerbla(info, "cblas_sgemm", "");
    nt_lib_row_major = 0;
    if (&RowMajorStrg)
        RowMajorStrg = 0;
}

/* cblas_sgemm (below) past its most common call: the arguments checked as the
 * reference checks them, then the call. Out of line, so that the common call
 * keeps a small frame. */
static __attribute__((noinline)) void nt_lib_cblas(int layout, int transa, int transb, int M,
                                                  int N, int K, float alpha, const float *A,
                                                  int lda, const float *B, int ldb, float beta,
                                                  float *C, int ldc)
{
    char la = nt_lib_letter(transa), lb = nt_lib_letter(transb);
    int row = layout == NT_LIB_ROW, ta, tb, info;
    if (!row && layout != NT_LIB_COL) {
        nt_lib_cblas_error(0, 1, "Illegal layout setting, %d\n", layout);
        return;
    }
    if (!la || !lb) {
        nt_lib_cblas_error(row, la ? 3 : 2, la ? "Illegal TransB setting, %d\n"
                                               : "Illegal TransA setting, %d\n",
                           la ? transb : transa);
        return;
    }
    if (row) { /* the reference calls Fortran SGEMM with B and A swapped */
        info = nt_lib_check(lb, la, N, M, K, ldb, lda, ldc, &tb, &ta);
        if (info) {
            nt_lib_cblas_error(1, info + 1, NULL, 0);
            return;
        }
        nt_lib_sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    } else {
        info = nt_lib_check(la, lb, M, N, K, lda, ldb, ldc, &ta, &tb);
        if (info) {
            nt_lib_cblas_error(0, info + 1, NULL, 0);
            return;
        }
        nt_lib_sgemm(tb, ta, N, M, K, alpha, B, ldb, A, lda, beta, C, ldc);
    }
}

/* Layout and transposes are the CBLAS enums (CblasRowMajor 101, CblasColMajor 102,
 * CblasNoTrans 111, CblasTrans 112, CblasConjTrans 113), passed as int. */
NT_GEMM_API void cblas_sgemm(int layout, int transa, int transb, int M, int N, int K, float alpha,
                 const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    /* The most common call, row-major and neither transposed, with the arguments
     * nt_lib_check would pass (A is M x K, B K x N, C M x N, each lda, ldb, ldc
     * at least its columns and 1), goes straight to the dispatcher. */
    if (layout == NT_LIB_ROW && transa == NT_LIB_NOTRANS && transb == NT_LIB_NOTRANS && M >= 0 &&
        N >= 0 && K >= 0 && lda >= (K > 1 ? K : 1) && ldb >= (N > 1 ? N : 1) &&
        ldc >= (N > 1 ? N : 1))
        nt_lib_sgemm(0, 0, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    else
        nt_lib_cblas(layout, transa, transb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
