/* backend.c — the table of measurement backends, and measuring a batch of
 * candidates with one (in parallel when the backend says it is safe). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"

ms_backend *ms_model_open(const ms_settings *s, char *err, size_t errlen);
ms_backend *ms_sim_open(const ms_settings *s, char *err, size_t errlen);
ms_backend *ms_command_open(const ms_settings *s, char *err, size_t errlen);
ms_backend *ms_host_open(const ms_settings *s, char *err, size_t errlen);

static const struct {
    const char *name;
    ms_backend *(*open)(const ms_settings *s, char *err, size_t errlen);
} backends[] = {
    {"model", ms_model_open},
    {"sim", ms_sim_open},
    {"command", ms_command_open},
    {"host", ms_host_open},
};

const char *const ms_backend_names[] = {"model", "sim", "host", "command", NULL};

ms_backend *ms_open(const char *name, const ms_settings *settings, char *err, size_t errlen)
{
    static const ms_settings none = {0};
    for (size_t i = 0; i < sizeof backends / sizeof *backends; i++)
        if (strcmp(backends[i].name, name) == 0)
            return backends[i].open(settings ? settings : &none, err, errlen);
    snprintf(err, errlen, "measurement backend '%s' is not available in this build", name);
    return NULL;
}

void ms_measure_all(ms_backend *b, const sp_target *t, const sp_problem *p,
                    const sp_candidate *c, size_t n, ms_measurement *out, ms_done_fn done,
                    void *ctx)
{
    if (b->measure_batch) {
        b->measure_batch(b, t, p, c, n, out, done, ctx);
        return;
    }
    long count = (long)n;
#pragma omp parallel for schedule(dynamic, 1) if (b->parallel && count > 1)
    for (long i = 0; i < count; i++) {
        memset(&out[i], 0, sizeof out[i]);
        b->measure(b, t, p, &c[i], &out[i]);
        if (done) {
#pragma omp critical(ms_done)
            done(ctx, (size_t)i, &out[i]);
        }
    }
}

void ms_close(ms_backend *b)
{
    if (b && b->close)
        b->close(b);
}
