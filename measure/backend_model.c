/* backend_model.c — the "model" backend: a candidate's measurement is the model's own
 * estimated cycles. Instant, deterministic; a baseline and a dry run. */
#include <stdio.h>
#include <stdlib.h>

#include "measure.h"

static void model_measure(ms_backend *b, const sp_target *t, const sp_problem *p,
                          const sp_candidate *c, ms_measurement *out)
{
    (void)b;
    if (sp_check(t, p, &c->config)) {
        out->status = MS_ILLEGAL;
        sp_explain(t, p, &c->config, out->detail, sizeof out->detail);
        return;
    }
    sp_figures f;
    sp_model(t, p, &c->config, &f);
    double sample = f.est_cycles;
    out->status = MS_OK;
    ms_summarise(&sample, 1, out);
}

static void model_close(ms_backend *b) { free(b); }

ms_backend *ms_model_open(const ms_settings *s, char *err, size_t errlen)
{
    (void)s;
    ms_backend *b = calloc(1, sizeof *b);
    if (b)
        *b = (ms_backend){.unit = "cycles", .parallel = true,
                          .measure = model_measure, .close = model_close};
    if (!b)
        snprintf(err, errlen, "out of memory");
    return b;
}
