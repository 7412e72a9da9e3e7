/* slices.c — the host backend's batch, measured in slices: each
 * candidate's result lands at its own index and is reported once. */
#define _XOPEN_SOURCE 700
#include <gsl/gsl_errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "measure.h"

enum { N = 19 }; /* more than two slices of the backend's */

static void count_done(void *ctx, size_t i, const ms_measurement *m)
{
    (void)m;
    ((size_t *)ctx)[i]++;
}

int main(void)
{
    gsl_set_error_handler_off();
    char workdir[] = "/tmp/nt-host-batch-XXXXXX", err[256];
    if (!mkdtemp(workdir))
        return 1;
    ms_settings s = {.workdir = workdir, .timeout = 60};
    ms_backend *b = ms_open("host", &s, err, sizeof err);
    if (!CHECK(b != NULL)) {
        fprintf(stderr, "%s\n", err);
        return CHECK_DONE();
    }
    sp_target t = {0};
    sp_problem p = {.name = "p", .M = 24, .N = 20, .K = 16, .batch = 1, .dtype = SP_FP32};
    sp_candidate c[N];
    for (int i = 0; i < N; i++) /* blocks of 8 to 24 rows; 2, 9 and 17 are refused */
        c[i] = (sp_candidate){.config = {.m = i == 2 || i == 9 || i == 17 ? 0 : 8 + 8 * (i % 3),
                                         .n = 20, .k = 16, .cores = 1, .strategy = SP_OS,
                                         .mr = 4, .nr = 8}};
    ms_measurement m[N];
    size_t heard[N] = {0};
    ms_measure_all(b, &t, &p, c, N, m, count_done, heard);
    for (int i = 0; i < N; i++) {
        CHECK_INT(heard[i], 1);
        if (c[i].config.m == 0) {
            CHECK_INT(m[i].status, MS_ILLEGAL);
            CHECK_HAS(m[i].detail, "cache blocks m=0");
        } else if (!CHECK_INT(m[i].status, MS_OK))
            fprintf(stderr, "  candidate %d: %s\n", i, m[i].detail);
        else
            CHECK(m[i].value > 0);
    }
    ms_close(b);
    char cmd[sizeof workdir + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", workdir);
    CHECK(system(cmd) == 0);
    return CHECK_DONE();
}
