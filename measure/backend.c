/* backend.c — the table of measurement backends, and measuring a batch of
 * candidates with one (in parallel when the backend says it is safe). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"

ms_backend *ms_model_open(void);
ms_backend *ms_sim_open(void);

static const struct {
    const char *name;
    ms_backend *(*open)(void);
} backends[] = {
    {"model", ms_model_open},
    {"sim", ms_sim_open},
};

const char *const ms_backend_names[] = {"model", "sim", NULL};

ms_backend *ms_open(const char *name, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof backends / sizeof *backends; i++)
        if (strcmp(backends[i].name, name) == 0) {
            ms_backend *b = backends[i].open();
            if (!b)
                snprintf(err, errlen, "cannot open measurement backend '%s': out of memory", name);
            return b;
        }
    snprintf(err, errlen, "measurement backend '%s' is not available in this build", name);
    return NULL;
}

void ms_measure_all(ms_backend *b, const sp_target *t, const sp_problem *p,
                    const sp_candidate *c, size_t n, ms_measurement *out)
{
    long count = (long)n;
#pragma omp parallel for schedule(dynamic, 1) if (b->parallel && count > 1)
    for (long i = 0; i < count; i++) {
        memset(&out[i], 0, sizeof out[i]);
        b->measure(b, t, p, &c[i], &out[i]);
    }
}

void ms_close(ms_backend *b)
{
    if (b && b->close)
        b->close(b);
}

const char *ms_status_name(ms_status s)
{
    static const char *const names[MS_NSTATUS] = {"ok", "wrong", "timeout", "crash", "illegal"};
    return s < MS_NSTATUS ? names[s] : "?";
}
