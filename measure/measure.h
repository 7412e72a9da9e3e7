/* measure.h — measurements and the backends that take them. The model backend
 * is here now; the simulator, the host CPU and a board command plug in alike. */
#ifndef NPU_TUNE_MEASURE_H
#define NPU_TUNE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>

#include "space.h"

typedef enum { MS_OK, MS_WRONG, MS_TIMEOUT, MS_CRASH, MS_ILLEGAL, MS_NSTATUS } ms_status;

/* One candidate's measurement: its status and, when ok, the statistics of
 * its samples (value = median, the figure candidates are ranked by). */
typedef struct {
    ms_status status;
    double value;
    int nsamples;
    double mean, stddev, ci_lo, ci_hi; /* 95% confidence interval of the mean */
    char detail[160];                   /* why, when status is not ok */
} ms_measurement;

typedef struct ms_backend ms_backend;

/* A measurement backend. measure() must be safe to call concurrently on
 * different candidates when `parallel` is set. */
struct ms_backend {
    const char *name;
    const char *unit; /* "cycles" or "s" */
    bool parallel;
    void (*measure)(ms_backend *b, const sp_target *t, const sp_problem *p,
                    const sp_candidate *c, ms_measurement *out);
    void (*close)(ms_backend *b);
    void *state;
};

/* Names of the backends this build has, NULL-terminated. */
extern const char *const ms_backend_names[];

/* Opens backend `name`; NULL with a one-line reason in err otherwise. */
ms_backend *ms_open(const char *name, char *err, size_t errlen);

/* Measures n candidates into out[0..n), in parallel when the backend allows. */
void ms_measure_all(ms_backend *b, const sp_target *t, const sp_problem *p,
                    const sp_candidate *c, size_t n, ms_measurement *out);

void ms_close(ms_backend *b);

/* "ok", "wrong", "timeout", "crash", "illegal". */
const char *ms_status_name(ms_status s);

/* Fills the statistics of m from n >= 1 samples (sorted in place): median,
 * mean, standard deviation and a Student-t 95% interval of the mean. */
void ms_summarise(double *samples, int n, ms_measurement *m);

#endif
