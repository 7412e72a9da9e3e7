/* stats.c — sample statistics of a measurement with GSL: median, mean,
 * standard deviation and the Student-t confidence interval of the mean. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>

#include "measure.h"

void ms_summarise(double *samples, int n, ms_measurement *m)
{
    m->nsamples = n;
    if (n < 1)
        return;
    gsl_sort(samples, 1, (size_t)n);
    m->value = gsl_stats_median_from_sorted_data(samples, 1, (size_t)n);
    m->mean = gsl_stats_mean(samples, 1, (size_t)n);
    if (n < 2) {
        m->stddev = 0;
        m->ci_lo = m->ci_hi = m->mean;
        return;
    }
    m->stddev = gsl_stats_sd_m(samples, 1, (size_t)n, m->mean);
    double half = gsl_cdf_tdist_Pinv(0.975, n - 1) * m->stddev / sqrt((double)n);
    m->ci_lo = m->mean - half;
    m->ci_hi = m->mean + half;
}
