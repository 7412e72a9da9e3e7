/* runner.c — the host timing runner, a program of its own: built at run time next to
 * the kernels (measure/host/compile.c), it loads them, checks them and times them. */

/* Why a separate program: libgomp is not fork-safe. Once the tuner has run an
 * OpenMP region (ranking, the roofline), a forked child that enters one
 * deadlocks, so kernels run in a freshly exec'd runner instead. The tuner embeds
 * this file at build time and compiles it with `cc -O3 -march=native ... -ldl -lm`.
 *
 * Threads: a threaded kernel runs its cells on the pool appended to this file
 * (codegen/host/pool.c, nt_lib_parallel, exported to the kernels), as a library
 * of kernels runs them: a worker spins a while after a call, so the calls of a
 * timing, back to back, find it awake as a caller's burst finds the library's
 * (the library runs a call on one thread where waking asleep workers would cost
 * more than they save). OMP_WAIT_POLICY does not apply.
 *
 * Protocol (usage: nt_runner [-cCPU] M N K BATCH fp32|bf16|fp16 SO SYMBOL [SO SYMBOL ...];
 * its stdin is a socket to the parent, its stdout and stderr are /dev/null): -cCPU pins
 * the runner to that CPU before anything else (where it cannot, it runs unpinned); DTYPE fp32, or
 * bf16 / fp16: A and B passed as bit patterns (uint16_t); at most 64 kernels.
 * It runs every kernel twice (below), then answers one line per kernel, in argv order:
 * "E why" (cannot load, symbol missing, out of memory), "W why" (wrong
 * result) or "V" (verified); then "S seconds waited threads" for each byte
 * i < 64 it reads (one timed call of kernel i, all kernels writing the same C;
 * the seconds the runner's threads spent runnable but waiting for a CPU around
 * it, from /proc/self/task/ * /schedstat, -1 where that cannot be read; and
 * how many threads the runner has after it), "E why" for a kernel that cannot be
 * timed; 'q' or end of file ends it. Verification, each kernel's C prefilled with
 * NaN, the reference in double (fixed seeds): first on small nonzero integers, where
 * every sum is exact in fp32 and C must equal the reference; then on A, B uniform in
 * [-1, 1], where an element is ok iff |c - ref| <= min(K u / (1 - K u), ~10 sqrt(K) u)
 * sum|a||b| (u = 2^-24; allowed() says why). Timed calls use the second inputs. */
#define _GNU_SOURCE /* sched_getcpu (the pool, appended) */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef void kernel_fn(int, int, int, const float *, int, const float *, int, float *, int);
typedef void kernel16_fn(int, int, int, const uint16_t *, int, const uint16_t *, int, float *,
                         int);

/* The kernel (f, or f16 for bf16 and fp16 inputs) and its operands. */
typedef struct {
    kernel_fn *f;
    kernel16_fn *f16;
    int M, N, K;
    size_t mk, kn, mn, nb; /* elements of one A, B, C; batch size */
    const float *A, *B;
    const uint16_t *A16, *B16;
    float *C;
} work;

/* One kernel call per batch element. */
static void run_all(const work *w)
{
    for (size_t b = 0; b < w->nb; b++)
        if (w->f16)
            w->f16(w->M, w->N, w->K, w->A16 + b * w->mk, w->K, w->B16 + b * w->kn, w->N,
                   w->C + b * w->mn, w->N);
        else
            w->f(w->M, w->N, w->K, w->A + b * w->mk, w->K, w->B + b * w->kn, w->N,
                 w->C + b * w->mn, w->N);
}

/* The fp16 bit pattern nearest |x| (ties to even) from |x|'s bits u, for |x| below
 * fp16's largest value (here |x| <= 1); *back = its value. */
static uint16_t fp16_of(uint32_t u, float *back)
{
    uint32_t h;
    if (u >= 0x38800000u) { /* normal: rebias the exponent (127 to 15), round off 13 bits */
        u -= 0x38000000u;
        h = (u + 0xfffu + (u >> 13 & 1u)) >> 13;
    } else { /* subnormal or zero: |x| * 2^24 = sig >> shift, rounded */
        int shift = 126 - (int)(u >> 23);
        uint32_t sig = (u & 0x7fffffu) | 0x800000u;
        h = 0;
        if (shift <= 24) {
            uint32_t rem = sig & ((1u << shift) - 1), half = 1u << (shift - 1);
            h = sig >> shift;
            h += rem > half || (rem == half && (h & 1u));
        }
    }
    if (h < 0x400u) {
        *back = (float)h * 0x1p-24f;
    } else {
        uint32_t v = ((h >> 10) + 112u) << 23 | (h & 0x3ffu) << 13;
        memcpy(back, &v, 4);
    }
    return (uint16_t)h;
}

/* Rounds x[0..n) to bf16 or fp16 values (ties to even; exactly representable, so the
 * reference sees what the kernel sees) and writes their bit patterns to h. */
static void to_16(float *x, uint16_t *h, size_t n, int fp16)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        if (fp16) {
            float a;
            h[i] = (uint16_t)(u >> 16 & 0x8000u) | fp16_of(u & 0x7fffffffu, &a);
            x[i] = u >> 31 ? -a : a;
        } else {
            u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
            memcpy(&x[i], &u, 4);
            h[i] = (uint16_t)(u >> 16);
        }
    }
}

static void say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    for (int off = 0; off < n;) {
        ssize_t w = write(0, line + off, (size_t)(n - off));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            exit(3);
        off += (int)w;
    }
}

/* Closes every descriptor above stderr that the runner did not open. */
static void close_inherited(void)
{
    DIR *d = opendir("/dev/fd");
    if (!d) {
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        return;
    }
    int fds[256], n = 0, self = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        int fd = atoi(e->d_name);
        if (fd > 2 && fd != self)
            fds[n++] = fd;
    }
    closedir(d);
    for (int i = 0; i < n; i++)
        close(fds[i]);
}

static uint64_t rng_state = 0x243F6A8885A308D3u;

/* 64 random bits (splitmix64; fixed seed: every run sees the same data). */
static uint64_t next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* The inputs of a verification pass into x[0..n). Pass 0 (exact): nonzero integers in
 * [-v, v], where K v^2 <= 2^24; then every product and every partial sum of products
 * of a row of A and a column of B, in whatever order, is an integer of magnitude at
 * most 2^24, exact in fp32, and v is exact in bf16 and fp16: C must equal the
 * reference. Pass 1 (random): uniform in [-1, 1], 24 bits. */
static void fill(float *x, size_t n, int pass, int v)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t z = next();
        if (pass == 0) {
            int r = (int)(z % (uint64_t)(2 * v));
            x[i] = (float)(r < v ? r - v : r - v + 1);
        } else {
            x[i] = (float)((double)(z >> 40) / 8388608.0 - 1.0);
        }
    }
}

/* The error pass 1 allows an element of C whose terms |a_k b_k| sum to mag: the smaller
 * of the bound for any summation order, gamma_K = K u / (1 - K u), and the probabilistic
 * one of Higham and Mary (SIAM J. Sci. Comput. 41, 2019, Thm 3.1), exp(lambda sqrt(K) u
 * + K u^2 / (1 - u)) - 1, about lambda sqrt(K) u, which holds when the rounding errors
 * are independent and of mean zero, except with probability at most
 * 2K exp(-lambda^2 (1 - u)^2 / 2): with lambda = 10, 4e-22 K per element; u = 2^-24,
 * fp32's unit roundoff (bf16 and fp16 products are exact in fp32). Plus the error of
 * the reference itself, K 2^-53 mag (double). */
static double allowed(int K, double mag)
{
    const double u = 0x1p-24, lambda = 10;
    double ku = K * u, det = ku < 1 ? ku / (1 - ku) : HUGE_VAL;
    double prob = expm1(lambda * sqrt((double)K) * u + ku * u / (1 - u));
    return ((det < prob ? det : prob) + K * 0x1p-53) * mag;
}

/* Operands are placed where a caller's usually are: 16 bytes past a cache line,
 * where malloc puts a large block (and numpy its arrays), not on a line, where a
 * kernel that reads B in place can run faster than it will for the caller. */
enum { PLACE = 16 };

static float *alloc_floats(size_t n)
{
    void *p = NULL;
    size_t bytes = (n ? n : 1) * sizeof(float) + PLACE;
    return posix_memalign(&p, 64, bytes) ? NULL : (float *)(void *)((char *)p + PLACE);
}

static void free_floats(float *p)
{
    if (p)
        free((char *)p - PLACE);
}

static long long arg(const char *s, long long lo, long long hi)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        say("E bad argument '%s'", s);
        exit(2);
    }
    return v;
}

/* Seconds this process's threads have spent runnable but waiting for a CPU
 * (the second field of each thread's schedstat), or -1 if unknown; *threads
 * gets how many there are. */
static double waited(int *threads)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    double sum = 0;
    struct dirent *e;
    *threads = 0;
    while (sum >= 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        ++*threads;
        char path[64];
        unsigned long long run, wait;
        snprintf(path, sizeof path, "/proc/self/task/%.20s/schedstat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f || fscanf(f, "%llu %llu", &run, &wait) != 2)
            sum = -1;
        else
            sum += (double)wait * 1e-9;
        if (f)
            fclose(f);
    }
    closedir(d);
    return sum;
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Each kernel's verdict so far: why it cannot run (failed), or how many elements of C
 * were wrong (bad) and the first of them. */
static char failed[64][300], first[64][300];
static size_t bad[64];

/* Compares the C of every kernel k that ran in pass `pass` (ran[k]) with the reference
 * on w's A and B, row by row: equal in pass 0, within allowed() in pass 1. ref and mag:
 * N doubles of scratch. */
static void compare(int pass, const work *w, const int *ran, int nk, double *ref, double *mag)
{
    int M = w->M, N = w->N, K = w->K;
    for (size_t b = 0; b < w->nb; b++)
        for (int i = 0; i < M; i++) {
            const float *a = w->A + b * w->mk + (size_t)i * K, *bb = w->B + b * w->kn;
            for (int j = 0; j < N; j++)
                ref[j] = mag[j] = 0;
            for (int k = 0; k < K; k++) {
                double x = a[k], ax = fabs(x);
                const float *row = bb + (size_t)k * N;
                for (int j = 0; j < N; j++) {
                    ref[j] += x * row[j];
                    mag[j] += ax * fabs((double)row[j]);
                }
            }
            for (int k = 0; k < nk; k++) {
                const float *c = w[k].C + b * w->mn + (size_t)i * N;
                for (int j = 0; j < N && ran[k]; j++) {
                    double err = fabs((double)c[j] - ref[j]), bound = pass ? allowed(K, mag[j]) : 0;
                    if (err <= bound)
                        continue;
                    if (bad[k]++ == 0) {
                        char where[64] = "", why[96];
                        if (w->nb > 1)
                            snprintf(where, sizeof where, " of batch %zu", b);
                        if (pass)
                            snprintf(why, sizeof why, "random inputs: error %.3g > bound %.3g", err,
                                     bound);
                        else
                            snprintf(why, sizeof why, "integer inputs, exact in fp32");
                        snprintf(first[k], sizeof first[k], "C[%d][%d]%s = %.9g, expected %.9g (%s)",
                                 i, j, where, (double)c[j], ref[j], why);
                    }
                }
            }
        }
}

/* Answers timing requests (bytes: the kernel to time) until 'q' or end of file. */
static void serve(const work *w, int nk)
{
    for (;;) {
        unsigned char cmd;
        ssize_t r = read(0, &cmd, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || cmd == 'q')
            return;
        if (cmd >= nk || failed[cmd][0] || bad[cmd]) {
            say("E kernel %d cannot be timed", (int)cmd);
            continue;
        }
        int threads;
        double w0 = waited(&threads), t0 = seconds();
        run_all(&w[cmd]);
        double t = seconds() - t0, w1 = waited(&threads);
        say("S %.17g %.17g %d", t, w0 >= 0 && w1 >= w0 ? w1 - w0 : -1.0, threads);
    }
}

int main(int argc, char **argv)
{
    close_inherited();
    if (argc > 1 && strncmp(argv[1], "-c", 2) == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        long cpu = arg(argv[1] + 2, 0, CPU_SETSIZE - 1);
        CPU_SET((int)cpu, &one);
        sched_setaffinity(0, sizeof one, &one);
        argv[1] = argv[0];
        argv++, argc--;
    }
    int nk = (argc - 6) / 2;
    int fp16 = argc > 5 && strcmp(argv[5], "fp16") == 0;
    int narrow = fp16 || (argc > 5 && strcmp(argv[5], "bf16") == 0); /* 16-bit A, B */
    if (argc < 8 || argc % 2 || nk > 64 || (strcmp(argv[5], "fp32") && !narrow)) {
        say("E usage: nt_runner [-cCPU] M N K BATCH fp32|bf16|fp16 SO SYMBOL [SO SYMBOL ...]");
        return 2;
    }
    int M = (int)arg(argv[1], 0, INT_MAX), N = (int)arg(argv[2], 0, INT_MAX);
    int K = (int)arg(argv[3], 0, 1 << 24); /* fill: exact sums need K <= 2^24 */
    long long batch = arg(argv[4], 1, INT_MAX);
    size_t mk = (size_t)M * (size_t)K, kn = (size_t)K * (size_t)N, mn = (size_t)M * (size_t)N;
    size_t nb = (size_t)batch;
    if ((mk && nb > SIZE_MAX / sizeof(float) / mk) || (kn && nb > SIZE_MAX / sizeof(float) / kn) ||
        (mn && nb > SIZE_MAX / sizeof(float) / mn / 64)) {
        for (int k = 0; k < nk; k++)
            say("E problem too large for this machine");
        return 1;
    }
    float *A = alloc_floats(nb * mk), *B = alloc_floats(nb * kn), *C[64] = {0};
    double *ref = malloc((N ? (size_t)N : 1) * sizeof(double));
    double *mag = malloc((N ? (size_t)N : 1) * sizeof(double));
    uint16_t *A16 = narrow ? malloc((nb * mk + 1) * sizeof *A16) : NULL;
    uint16_t *B16 = narrow ? malloc((nb * kn + 1) * sizeof *B16) : NULL;
    int short_of_memory = !A || !B || !ref || !mag || (narrow && (!A16 || !B16));
    for (int k = 0; k < nk && !short_of_memory; k++)
        short_of_memory = !(C[k] = alloc_floats(nb * mn));
    int rc = 0;
    if (short_of_memory) {
        for (int k = 0; k < nk; k++)
            say("E out of memory for A, B and %d C (%.0f MiB)", nk,
                (double)(nb * (mk + kn + (size_t)nk * mn)) * sizeof(float) / 1048576.0);
        rc = 1;
        goto done;
    }

    static work w[64];
    for (int k = 0; k < nk; k++) {
        w[k] = (work){0, 0, M, N, K, mk, kn, mn, nb, A, B, A16, B16, C[k]};
        void *lib = dlopen(argv[6 + 2 * k], RTLD_NOW | RTLD_LOCAL);
        void *sym = lib ? dlsym(lib, argv[7 + 2 * k]) : NULL;
        if (!lib)
            snprintf(failed[k], sizeof failed[k], "cannot load: %s", dlerror());
        else if (!sym)
            snprintf(failed[k], sizeof failed[k], "symbol '%s' not found in the compiled kernel",
                     argv[7 + 2 * k]);
        else if (narrow)
            *(void **)&w[k].f16 = sym;
        else
            *(void **)&w[k].f = sym;
    }

    /* Every kernel on exact inputs, then on random ones (fill), each time into its own C
     * prefilled with NaN (an element never written is wrong); a kernel stops at its first
     * wrong pass. */
    int v = 9.0 * K <= 0x1p24 ? 3 : 4.0 * K <= 0x1p24 ? 2 : 1;
    for (int pass = 0; pass < 2; pass++) {
        fill(A, nb * mk, pass, v);
        fill(B, nb * kn, pass, v);
        if (narrow) {
            to_16(A, A16, nb * mk, fp16);
            to_16(B, B16, nb * kn, fp16);
        }
        int ran[64];
        for (int k = 0; k < nk; k++) {
            if (!(ran[k] = !failed[k][0] && !bad[k]))
                continue;
            for (size_t i = 0; i < nb * mn; i++)
                C[k][i] = NAN;
            run_all(&w[k]);
        }
        compare(pass, w, ran, nk, ref, mag);
    }
    for (int k = 0; k < nk; k++) {
        if (failed[k][0])
            say("E %s", failed[k]);
        else if (bad[k])
            say("W %s; %zu of %zu elements wrong", first[k], bad[k], nb * mn);
        else
            say("V");
        w[k].C = C[0]; /* timed calls all write the same C */
    }

    serve(w, nk);
done:
    free_floats(A), free_floats(B), free(ref), free(mag), free(A16), free(B16);
    for (int k = 0; k < nk; k++)
        free_floats(C[k]);
    return rc;
}
