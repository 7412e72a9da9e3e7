/* roofline.c — the host's roofline, measured in-process: fp32 FMA peak on one
 * core and on all cores (OpenMP), and STREAM-triad memory bandwidth. */
#define _DEFAULT_SOURCE /* MADV_HUGEPAGE */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "base.h"
#include "host.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define NT_X86 1
#else
#define NT_X86 0
#endif

/* Peak: 12 independent accumulator chains, enough to cover 2 FMA units x 4-5
 * cycles of latency; each chain does acc = acc * MUL + ADD (fixed point 1, so
 * values stay normal). One call runs iters rounds of 12 vector FMAs. */
#define MUL 0.999f
#define ADD 0.001f
#define FMA_SECONDS 0.2    /* per measurement (one core, then all cores) */
#define CHUNK_ROUNDS 200000 /* rounds per timed chunk: 2.4 M FMAs, 0.33 ms at 2 per cycle and 3.6 GHz */
#define LOST_SECONDS 0.1    /* the lost-time probe */
#define MIN_REGIONS 20      /* all-core regions timed at least, however long they take */

/* Bandwidth: a STREAM triad a = b + s c over doubles with all threads, each
 * array max(64 MiB, L3 / 4) but at most 128 MiB and 1/16 of the RAM. Virtual
 * machines and chiplet CPUs often report an aggregate L3 (504 MiB on the
 * machine this was written on, whose triad shows no cache plateau from
 * 3 x 32 MiB up); 3 x 256 MiB would cost a second of page faults for nothing.
 * Bytes counted as STREAM does: 24 per element, no write-allocate traffic. */
#define TRIAD_MIN_BYTES (64.0 * 1048576)
#define TRIAD_MAX_BYTES (128.0 * 1048576)
#define TRIAD_PASSES 4

/* op(0) ... op(11): the twelve chains written out, so each is a register. */
#define X12(op) op(0) op(1) op(2) op(3) op(4) op(5) op(6) op(7) op(8) op(9) op(10) op(11)

#if NT_X86
__attribute__((target("avx512f,fma"))) static float fma_avx512(long iters)
{
    const __m512 m = _mm512_set1_ps(MUL), a = _mm512_set1_ps(ADD);
#define INIT512(i) __m512 c##i = _mm512_set1_ps(1.0f + 0.01f * (i));
#define OP512(i) c##i = _mm512_fmadd_ps(c##i, m, a);
    X12(INIT512)
    for (long i = 0; i < iters; i++) {
        X12(OP512)
    }
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3)),
                             _mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7)));
    s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(c8, c9), _mm512_add_ps(c10, c11)));
    return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) static float fma_avx2(long iters)
{
    const __m256 m = _mm256_set1_ps(MUL), a = _mm256_set1_ps(ADD);
#define INIT256(i) __m256 c##i = _mm256_set1_ps(1.0f + 0.01f * (i));
#define OP256(i) c##i = _mm256_fmadd_ps(c##i, m, a);
    X12(INIT256)
    for (long i = 0; i < iters; i++) {
        X12(OP256)
    }
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                             _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)));
    s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(c8, c9), _mm256_add_ps(c10, c11)));
    float out[8];
    _mm256_storeu_ps(out, s);
    return out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
}
#endif

/* Portable: 4-lane GCC vectors, multiply then add (fused where the compiler may). */
typedef float v4f __attribute__((vector_size(16)));

static float fma_portable(long iters)
{
    const v4f m = {MUL, MUL, MUL, MUL}, a = {ADD, ADD, ADD, ADD};
#define INITV(i) v4f c##i = {1.0f + 0.01f * (i), 1, 1, 1};
#define OPV(i) c##i = c##i * m + a;
    X12(INITV)
    for (long i = 0; i < iters; i++) {
        X12(OPV)
    }
    v4f s = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)) + ((c8 + c9) + (c10 + c11));
    return s[0] + s[1] + s[2] + s[3];
}

typedef float fma_fn(long iters);

/* The widest FMA loop this CPU runs (checked at run time) and its lanes. */
static fma_fn *pick_fma(int *lanes)
{
#if NT_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma")) {
        *lanes = 16;
        return fma_avx512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        *lanes = 8;
        return fma_avx2;
    }
#endif
    *lanes = 4;
    return fma_portable;
}

static volatile float sink; /* keeps the loops' results alive */

/* Flops of one chunk: rounds x 12 chains x lanes x 2. */
static double chunk_flops(int lanes) { return (double)CHUNK_ROUNDS * 12 * lanes * 2; }

enum { MAXCHUNKS = 4096 }; /* timed chunks kept per measurement */

/* The median of n rates in flop/s (sorted in place), in GFLOP/s; 0 if n = 0. */
static double median_gflops(double *rate, size_t n)
{
    if (n == 0)
        return 0;
    gsl_sort(rate, 1, n);
    return gsl_stats_median_from_sorted_data(rate, 1, n) * 1e-9;
}

/* One core: chunks for FMA_SECONDS; the median chunk's rate in GFLOP/s (the
 * kernels are timed by medians too: the best chunk catches clock peaks the
 * kernels do not sustain). *chunks gets how many chunks fit in FMA_SECONDS. */
static double peak_one(fma_fn *f, int lanes, long *chunks)
{
    static double rate[MAXCHUNKS];
    double start = bs_now(), t = start;
    long count = 0;
    size_t n = 0;
    sink = f(CHUNK_ROUNDS); /* warm up: clocks, power licence */
    while (t - start < FMA_SECONDS) {
        double t0 = bs_now();
        sink = f(CHUNK_ROUNDS);
        t = bs_now();
        count++;
        if (t > t0 && n < MAXCHUNKS)
            rate[n++] = chunk_flops(lanes) / (t - t0);
    }
    *chunks = count;
    return median_gflops(rate, n);
}

/* All cores: `chunks` parallel regions in which every OpenMP thread runs and
 * times one chunk; the sum over threads of each one's median chunk rate, in
 * GFLOP/s. Per thread, not per region: a region lasts until its last thread
 * is done, so on a machine another process keeps busy, a thread it displaces
 * made every region a time slice long (19 GFLOP/s for 2 cores measured so,
 * with another test running beside it). For the same reason the regions stop
 * after 2 x FMA_SECONDS once MIN_REGIONS are done, so a busy machine does not
 * stretch the probe to `chunks` time slices. */
static double peak_all(fma_fn *f, int lanes, long chunks)
{
    int threads = 1;
#pragma omp parallel
    {
#pragma omp single
        threads = omp_get_num_threads();
    }
    if (chunks > MAXCHUNKS)
        chunks = MAXCHUNKS;
    double *rate = malloc(sizeof *rate * (size_t)threads * (size_t)(chunks > 0 ? chunks : 1));
    if (!rate)
        return 0;
    long done = 0;
    double start = bs_now();
    for (long i = 0; i <= chunks; i++) {
        if (done >= MIN_REGIONS && bs_now() - start > 2 * FMA_SECONDS)
            break;
#pragma omp parallel
        {
            double t0 = bs_now();
            float acc = f(CHUNK_ROUNDS);
            double t = bs_now() - t0;
            int me = omp_get_thread_num();
            if (i > 0) /* region 0 warms the threads up */
                rate[(size_t)me * (size_t)chunks + (size_t)(i - 1)] = t > 0 ? chunk_flops(lanes) / t : 0;
#pragma omp critical
            sink += acc;
        }
        done = i;
    }
    double sum = 0;
    for (int me = 0; me < threads; me++)
        sum += median_gflops(rate + (size_t)me * (size_t)chunks, (size_t)done);
    free(rate);
    return sum;
}

/* A triad array of at least `bytes`, in transparent huge pages where the
 * kernel grants them: first touch of 3 x 128 MiB in 4 KiB pages took 0.6-1.1 s
 * of a 2.4 s probe on the machine this was written on, in 2 MiB pages
 * 0.02-0.4 s. NULL when memory ran out. */
static double *triad_array(size_t bytes)
{
    size_t huge = (size_t)2 << 20;
    bytes = (bytes + huge - 1) / huge * huge;
    double *p = aligned_alloc(huge, bytes);
#ifdef MADV_HUGEPAGE
    if (p)
        (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: 4 KiB pages otherwise */
#endif
    return p;
}

/* Triad bandwidth in GB/s (best of TRIAD_PASSES); 0 when memory ran out. */
static double triad(void)
{
    hs_info h;
    hs_detect(&h);
    double bytes = (double)h.cache[2] / 4;
    if (bytes < TRIAD_MIN_BYTES)
        bytes = TRIAD_MIN_BYTES;
    if (bytes > TRIAD_MAX_BYTES)
        bytes = TRIAD_MAX_BYTES;
#ifdef _SC_PHYS_PAGES
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && bytes > (double)pages * (double)page / 16)
        bytes = (double)pages * (double)page / 16;
#endif
    long n = (long)(bytes / sizeof(double));
    double *a = triad_array((size_t)n * sizeof *a), *b = triad_array((size_t)n * sizeof *b);
    double *c = triad_array((size_t)n * sizeof *c);
    double best = 0;
    if (a && b && c) {
        /* First touch by the threads that will stream the data. */
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) {
            a[i] = 0;
            b[i] = 1;
            c[i] = 2;
        }
        for (int pass = 0; pass <= TRIAD_PASSES; pass++) {
            double t0 = bs_now();
#pragma omp parallel for schedule(static)
            for (long i = 0; i < n; i++)
                a[i] = b[i] + 3.0 * c[i];
            double t = bs_now() - t0;
            if (pass > 0 && t > 0 && 24.0 * (double)n / t > best) /* pass 0 warms up */
                best = 24.0 * (double)n / t;
        }
        sink += (float)a[n / 2];
    }
    free(a);
    free(b);
    free(c);
    return best * 1e-9;
}

/* See host.h: `flops` of the widest FMA loop, shared evenly by `threads`
 * OpenMP threads (the calling thread alone when 1). */
double hs_fma(double flops, int threads)
{
    int lanes;
    fma_fn *f = pick_fma(&lanes);
    if (threads < 1)
        threads = 1;
    double per_round = 12.0 * lanes * 2;
    long rounds = (long)(flops / per_round / threads + 0.5);
    if (rounds < 1)
        rounds = 1;
    if (threads == 1) {
        sink = f(rounds);
    } else {
#pragma omp parallel num_threads(threads)
        {
            float acc = f(rounds);
#pragma omp critical
            sink += acc;
        }
    }
    return per_round * (double)rounds * threads;
}

/* See host.h: FMA peak with the widest vector FMA the CPU has (AVX-512,
 * AVX2+FMA, else 4-lane portable), ~0.2 s on one core then on all OpenMP
 * threads; bandwidth from the triad over all threads; then 0.1 s of the
 * lost-time probe on the calling thread. False if memory ran out. */
bool hs_measure_roofline(hs_roofline *r)
{
    int lanes;
    fma_fn *f = pick_fma(&lanes);
    long chunks;
    r->gflops_core = peak_one(f, lanes, &chunks);
    r->gflops_all = peak_all(f, lanes, chunks);
    r->gbytes = triad();
    if (!hs_measure_lost(LOST_SECONDS, &r->lost))
        return false;
    return r->gbytes > 0;
}

/* See host.h. */
void hs_roofline_print(FILE *f, const hs_roofline *r)
{
    fprintf(f,
            "FMA peak %.1f GFLOP/s per core, %.1f all cores; memory %.1f GB/s; a running "
            "thread loses %.1f%% of its time (%.0f gaps/s, median %.0f us)",
            r->gflops_core, r->gflops_all, r->gbytes, 100 * r->lost.share, r->lost.per_second,
            r->lost.median_us);
}
