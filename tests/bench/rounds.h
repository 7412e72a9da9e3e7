/* rounds.h — the host benchmarks' timing: a sample is the median call of a burst, contenders
 * are sampled round-robin, and two of them compare by the median of their per-round ratios. */
#ifndef NPU_TUNE_BENCH_ROUNDS_H
#define NPU_TUNE_BENCH_ROUNDS_H

#include <math.h>
#include <time.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

enum { BENCH_MAXN = 64 }; /* samples a median takes, rounds a comparison takes */

/* Seconds on the monotonic clock. */
static inline double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The median of v[0..n), which it sorts in place; NaN when n is 0. */
static inline double bench_sorted_median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    gsl_sort(v, 1, n);
    return gsl_stats_median_from_sorted_data(v, 1, n);
}

/* The median of the samples of v[0..n) (n <= BENCH_MAXN) that did not fail
 * (a failed one is NaN), NaN when none; v is left as it is: samples stay in
 * round order for bench_paired. */
static inline double bench_median(const double *v, int n)
{
    double c[BENCH_MAXN];
    size_t k = 0;
    for (int i = 0; i < n && i < BENCH_MAXN; i++)
        if (!isnan(v[i]))
            c[k++] = v[i];
    if (k == 0)
        return NAN;
    gsl_sort(c, 1, k);
    return gsl_stats_median_from_sorted_data(c, 1, k);
}

/* Paired comparison of a against b, sampled in the same rounds: the median
 * of the per-round ratios a[r] / b[r] and in how many rounds a was ahead
 * (rounds where either failed, NaN or <= 0, are left out; *used says how
 * many count). */
static inline double bench_paired(const double *a, const double *b, int rounds, int *ahead,
                                  int *used)
{
    double q[BENCH_MAXN];
    int n = 0;
    *ahead = 0;
    for (int r = 0; r < rounds && n < BENCH_MAXN; r++)
        if (a[r] > 0 && b[r] > 0) {
            q[n++] = a[r] / b[r];
            *ahead += a[r] > b[r];
        }
    *used = n;
    return bench_median(q, n);
}

/* Seconds of one call of call(ctx): the median sample of a burst (after 2
 * warm-up calls, at least 5 samples and 0.1 s, at most BENCH_MAXN), a sample
 * the mean call of as many consecutive calls as take `span` seconds (one call
 * when a call takes longer), so that a call much shorter than span is not
 * timed at the clock's resolution (10 ns steps on a VM: 0.4% of a 64x64x64
 * GEMM). */
static inline double bench_burst_span(void (*call)(const void *ctx), const void *ctx, double span)
{
    double t[BENCH_MAXN];
    int n = 0;
    call(ctx);
    double w = bench_now();
    call(ctx);
    w = bench_now() - w;
    long reps = w > 0 && w < span ? (long)ceil(span / w) : 1;
    double start = bench_now();
    while (n < BENCH_MAXN && (n < 5 || bench_now() - start < 0.1)) {
        double t0 = bench_now();
        for (long i = 0; i < reps; i++)
            call(ctx);
        t[n++] = (bench_now() - t0) / (double)reps;
    }
    return bench_median(t, n);
}

/* Seconds of one call of call(ctx): the median call of a burst (bench_burst_span,
 * every sample one call). */
static inline double bench_burst(void (*call)(const void *ctx), const void *ctx)
{
    return bench_burst_span(call, ctx, 0.0);
}

#endif
