/* stats.c — the GSL sample statistics of a measurement and the model
 * backend (the journal and table files are tested in tests/results/). */
#define _XOPEN_SOURCE 700
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "fixtures.h"
#include "measure.h"

static void stats(void)
{
    double s[] = {12, 10, 11, 13, 100};
    ms_measurement m = {0};
    ms_summarise(s, 5, &m);
    CHECK_DBL(m.value, 12);
    CHECK(fabs(m.mean - 29.2) < 1e-12);
    CHECK(m.ci_lo < m.mean && m.mean < m.ci_hi);
    /* t(0.975, 4) = 2.776445; sd = 39.5878... */
    CHECK(fabs((m.ci_hi - m.mean) - 2.776445105 * m.stddev / sqrt(5.0)) < 1e-6);
    double one = 7;
    ms_summarise(&one, 1, &m);
    CHECK_DBL(m.value, 7);
    CHECK_DBL(m.ci_lo, 7);
    CHECK_DBL(m.ci_hi, 7);
    CHECK_INT(m.nsamples, 1);
    CHECK_STR(ms_status_name(MS_TIMEOUT), "timeout");
}

static void count_done(void *ctx, size_t i, const ms_measurement *m)
{
    (void)m;
    ((size_t *)ctx)[i]++;
}

static void model_backend(void)
{
    char err[256];
    ms_backend *b = ms_open("model", NULL, err, sizeof err);
    CHECK(b != NULL);
    CHECK(ms_open("board", NULL, err, sizeof err) == NULL);
    CHECK_STR(err, "measurement backend 'board' is not available in this build");
    ms_backend *sim = ms_open("sim", NULL, err, sizeof err);
    CHECK(sim != NULL && strcmp(sim->unit, "cycles") == 0 && sim->verify != NULL);
    ms_close(sim);
    sp_target t = fx_ascend910();
    sp_problem p = fx_problem(512, 768, 768, 1, SP_FP16);
    sp_candidate c[2] = {{.config = {.m = 256, .n = 256, .k = 128, .cores = 1, .strategy = SP_OS}},
                         {.config = {.m = 512, .n = 16, .k = 128, .cores = 1, .strategy = SP_OS}}};
    ms_measurement m[2];
    size_t heard[2] = {0, 0};
    ms_measure_all(b, &t, &p, c, 2, m, count_done, heard);
    CHECK_INT(heard[0], 1); /* each completion reported once */
    CHECK_INT(heard[1], 1);
    sp_figures f;
    sp_model(&t, &p, &c[0].config, &f);
    CHECK_INT(m[0].status, MS_OK);
    CHECK_DBL(m[0].value, f.est_cycles);
    CHECK_INT(m[1].status, MS_ILLEGAL);
    CHECK_STR(m[1].detail, "L0A overflows: A-tile 512x128 fp16 needs 131072 bytes, L0A has 65536\n");
    ms_close(b);
}

int main(void)
{
    gsl_set_error_handler_off();
    stats();
    model_backend();
    return CHECK_DONE();
}
