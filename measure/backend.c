/* backend.c — the registry of measurement backends, and measuring a batch of
 * candidates with one (in parallel when the backend says it is safe). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The registry: every backend, in the order scripts' messages and --help
 * list them. Backend NAME is opened by ms_NAME_open, defined in its own
 * backend_NAME.c, which CMake compiles by glob: adding a backend is that
 * file and one line here. It takes its name from here. */
#define MS_BACKENDS(B) \
    B(model)           \
    B(sim)             \
    B(host)            \
    B(command)

#define DECLARE(name) ms_backend *ms_##name##_open(const ms_settings *s, char *err, size_t errlen);
MS_BACKENDS(DECLARE)
#define NAME(name) #name,
const char *const ms_backend_names[] = {MS_BACKENDS(NAME) NULL};
#define OPEN(name) ms_##name##_open,
static ms_backend *(*const opens[])(const ms_settings *s, char *err, size_t errlen) = {
    MS_BACKENDS(OPEN)};

ms_backend *ms_open(const char *name, const ms_settings *settings, char *err, size_t errlen)
{
    static const ms_settings none = {0};
    for (size_t i = 0; i < sizeof opens / sizeof *opens; i++)
        if (strcmp(ms_backend_names[i], name) == 0) {
            ms_backend *b = opens[i](settings ? settings : &none, err, errlen);
            if (b)
                b->name = ms_backend_names[i];
            return b;
        }
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

bool ms_generate(const sp_target *t, const sp_problem *p, const sp_candidate *c, cg_kernel *k,
                 ms_measurement *out)
{
    if (cg_generate(t, p, &c->config, k, out->detail, sizeof out->detail))
        return true;
    out->status = MS_ILLEGAL;
    return false;
}
