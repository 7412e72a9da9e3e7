/* backend_sim.c — the "sim" backend: generates a candidate's kernel, runs it
 * on the simulator (timing mode), and verifies chosen kernels functionally. */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "sim.h"

static void run(const sp_target *t, const sp_problem *p, const sp_candidate *c, bool functional,
                ms_measurement *out)
{
    cg_kernel k;
    if (!ms_generate(t, p, c, &k, out))
        return;
    sim_options o = {.functional = functional, .seed = 1};
    sim_result r;
    if (!sim_run(t, &k, &o, &r)) {
        out->status = MS_CRASH;
        ms_set_detail(out, "out of memory simulating");
    } else {
        out->status = r.status;
        ms_set_detail(out, "%s", r.error);
        double cycles = r.cycles;
        if (r.status == MS_OK)
            ms_summarise(&cycles, 1, out);
        sim_result_free(&r);
    }
    cg_kernel_free(&k);
}

static void sim_measure(ms_backend *b, const sp_target *t, const sp_problem *p,
                        const sp_candidate *c, ms_measurement *out)
{
    (void)b;
    run(t, p, c, false, out);
}

static void sim_verify(ms_backend *b, const sp_target *t, const sp_problem *p,
                       const sp_candidate *c, ms_measurement *out)
{
    (void)b;
    ms_measurement m = {0};
    run(t, p, c, true, &m);
    if (m.status != MS_OK) {
        out->status = m.status;
        ms_set_detail(out, "%s", m.detail);
    }
}

static void sim_close(ms_backend *b) { free(b); }

ms_backend *ms_sim_open(const ms_settings *s, char *err, size_t errlen)
{
    (void)s;
    ms_backend *b = calloc(1, sizeof *b);
    if (b)
        *b = (ms_backend){.unit = "cycles", .parallel = true,
                          .measure = sim_measure, .verify = sim_verify, .close = sim_close};
    if (!b)
        snprintf(err, errlen, "out of memory");
    return b;
}
