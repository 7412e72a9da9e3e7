/* expect.h — the host benchmarks' --check: what a run must give whatever the machine (every
 * figure a finite positive number, every count the one asked for), told in one line if not. */
#ifndef NPU_TUNE_BENCH_EXPECT_H
#define NPU_TUNE_BENCH_EXPECT_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

/* Whether v is finite and above 0; if not, says on stderr
 * "who: subject: what is V, expected a positive number". */
static inline bool expect_positive(const char *who, const char *subject, const char *what,
                                   double v)
{
    if (isfinite(v) && v > 0)
        return true;
    fprintf(stderr, "%s: %s: %s is %g, expected a positive number\n", who, subject, what, v);
    return false;
}

/* Whether got == want; if not, says on stderr "who: subject: what is GOT, expected WANT". */
static inline bool expect_count(const char *who, const char *subject, const char *what, long got,
                                long want)
{
    if (got == want)
        return true;
    fprintf(stderr, "%s: %s: %s is %ld, expected %ld\n", who, subject, what, got, want);
    return false;
}

#endif
