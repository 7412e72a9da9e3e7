/* progress.c — what a long tuning run shows while it works: shape i/n,
 * measured/budget, best so far, rate and ETA, on stderr. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "base.h"
#include "internal.h"

void tn_progress_start(tn_session *r)
{
    r->tty = isatty(STDERR_FILENO);
    r->t0 = r->last = bs_now();
    r->drawn = 0;
    r->done_before = 0;
}

void tn_progress(tn_session *r, size_t problem, size_t measured, size_t budget, double best)
{
    if (r->quiet)
        return;
    double t = bs_now(), elapsed = t - r->t0;
    /* plain lines at most every 2 s, a terminal's line ten times a second */
    if (t - r->last < (r->tty ? 0.1 : 2))
        return;
    r->last = t;
    size_t total = r->done_before + measured;
    double rate = elapsed > 0 ? (double)total / elapsed : 0;
    size_t left = (budget - (measured < budget ? measured : budget)) +
                  (r->np - problem - 1) * budget;
    const sp_problem *p = r->problem;
    char eta[32] = "-", bestv[32] = "-";
    if (rate > 0) {
        long s = lround((double)left / rate);
        snprintf(eta, sizeof eta, "%ld:%02ld", s / 60, s % 60);
    }
    if (!isnan(best))
        snprintf(bestv, sizeof bestv, "%.6g %s", best, r->backend->unit);
    char shape[SP_SHAPE_MAX];
    sp_problem_shape(p, shape, sizeof shape);
    fprintf(stderr, "%s[%zu/%zu] %s %s: %zu/%zu measured, best %s, %.1f/s, ETA %s%s",
            r->tty ? "\r\033[K" : "", problem + 1, r->np, p->name, shape, measured, budget,
            bestv, rate, eta, r->tty ? "" : "\n");
    r->drawn = r->tty;
    fflush(stderr);
}

void tn_progress_done(tn_session *r, size_t measured)
{
    r->done_before += measured;
}

void tn_progress_end(tn_session *r)
{
    if (r->drawn)
        fputs("\r\033[K", stderr);
    r->drawn = 0;
}
