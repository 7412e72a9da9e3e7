/* measurement.c — a measurement's status names, its detail text, and the sample
 * statistics with GSL: median, mean, standard deviation, Student-t interval. */
#include <stdarg.h>
#include <stdio.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>

#include "measurement.h"

const char *ms_status_name(ms_status s)
{
    static const char *const names[MS_NSTATUS] = {"ok", "wrong", "timeout", "crash", "illegal"};
    return s < MS_NSTATUS ? names[s] : "?";
}

/* See measurement.h: vsnprintf into the fixed-size detail, which cuts it. */
void ms_set_detail(ms_measurement *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->detail, sizeof m->detail, fmt, ap);
    va_end(ap);
}

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
