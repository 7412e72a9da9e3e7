/* lost.c — how much of its wall time a thread that never blocks still does not
 * run: interrupts, hypervisor exits and preemption, seen as gaps between clock reads. */
#include <stdlib.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "base.h"
#include "host.h"

/* A read of the monotonic clock takes tens of nanoseconds; two back-to-back
 * reads further apart than this had something else run in between. */
#define GAP_SECONDS 2e-6
enum { MAXGAPS = 1 << 16 }; /* gaps kept for the median */

/* See host.h: spins on the calling thread reading the clock. */
bool hs_measure_lost(double seconds, hs_lost *out)
{
    double *gap = malloc(sizeof *gap * MAXGAPS);
    if (!gap)
        return false;
    size_t kept = 0;
    long count = 0;
    double lost = 0, start = bs_now(), prev = start, t = start;
    while (t - start < seconds) {
        t = bs_now();
        double d = t - prev;
        if (d > GAP_SECONDS) {
            lost += d;
            count++;
            if (kept < MAXGAPS)
                gap[kept++] = d;
        }
        prev = t;
    }
    double wall = t - start;
    out->share = wall > 0 ? lost / wall : 0;
    out->per_second = wall > 0 ? (double)count / wall : 0;
    out->median_us = 0;
    if (kept > 0) {
        gsl_sort(gap, 1, kept);
        out->median_us = gsl_stats_median_from_sorted_data(gap, 1, kept) * 1e6;
    }
    free(gap);
    return true;
}
