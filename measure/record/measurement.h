/* measurement.h — what measuring one candidate yields: a status and the statistics of
 * its samples. The noun the backends (measure.h), the simulator and the host share. */
#ifndef NPU_TUNE_MEASUREMENT_H
#define NPU_TUNE_MEASUREMENT_H

#include <stdbool.h>
#include <stddef.h>

/* The interface: exported, where the library's other symbols are hidden (cmake/library.cmake). */
#pragma GCC visibility push(default)

typedef enum { MS_OK, MS_WRONG, MS_TIMEOUT, MS_CRASH, MS_ILLEGAL, MS_NSTATUS } ms_status;

/* One candidate's measurement: its status and, when ok, the statistics of
 * its samples (value = median, the figure candidates are ranked by). */
typedef struct {
    ms_status status;
    double value;
    int nsamples;
    double mean, stddev, ci_lo, ci_hi; /* 95% confidence interval of the mean */
    bool busy;   /* host: its threads waited long for a CPU while timed (the machine
                  * was busy; hs_busy), so the figure may be far off however
                  * tight its CI; detail then ends "; busy: ..." */
    char detail[320];                   /* why, when status is not ok */
} ms_measurement;

/* Called as each measurement completes, one call at a time (never
 * concurrently), from whichever thread measured it. */
typedef void (*ms_done_fn)(void *ctx, size_t i, const ms_measurement *m);

/* "ok", "wrong", "timeout", "crash", "illegal". */
const char *ms_status_name(ms_status s);

/* m->detail = the printf-formatted text, cut to fit. */
void ms_set_detail(ms_measurement *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Fills the statistics of m from n >= 1 samples (sorted in place): median,
 * mean, standard deviation and a Student-t 95% interval of the mean. */
void ms_summarise(double *samples, int n, ms_measurement *m);

#pragma GCC visibility pop

#endif
