/* synthetic.h — measurements made up from the model: rows of legal configs
 * sampled at random, "measured" as a target's estimate times lognormal noise. */
#ifndef NPU_TUNE_TEST_SYNTHETIC_H
#define NPU_TUNE_TEST_SYNTHETIC_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "results.h"
#include "space.h"

/* Appends to rows[*n..] up to `per` configs of p drawn uniformly (with
 * repeats dropped) from the legal space s on `start` (the target the rows
 * say they were measured on), each measured as truth's estimate (in
 * cycles, or in seconds at truth's clock) times exp(N(0, noise)). */
static inline void synth_shape(const sp_target *start, const sp_target *truth,
                               const sp_problem *p, const sp_space *s, size_t per, double noise,
                               bool seconds, gsl_rng *rng, rs_entry *rows, size_t *n)
{
    sp_candidate *all;
    size_t legal = sp_enumerate(start, p, s, &all, NULL);
    if (legal == (size_t)-1 || legal == 0)
        return;
    size_t *pick = malloc(legal * sizeof *pick);
    for (size_t i = 0; i < legal; i++)
        pick[i] = i;
    gsl_ran_shuffle(rng, pick, legal, sizeof *pick);
    for (size_t k = 0; k < per && k < legal; k++) {
        rs_entry *e = &rows[(*n)++];
        memset(e, 0, sizeof *e);
        e->problem = *p;
        snprintf(e->target, sizeof e->target, "%s", start->name);
        e->config = all[pick[k]].config;
        snprintf(e->status, sizeof e->status, "ok");
        snprintf(e->unit, sizeof e->unit, "%s", seconds ? "s" : "cycles");
        snprintf(e->round, sizeof e->round, "search");
        snprintf(e->backend, sizeof e->backend, "%s", seconds ? "host" : "sim");
        sp_figures f;
        sp_model(truth, p, &e->config, &f);
        double t = seconds ? f.est_cycles / (truth->clock_mhz * 1e6) : f.est_cycles;
        e->measured = t * exp(gsl_ran_gaussian(rng, noise));
        e->load_elems = all[pick[k]].fig.load_elems;
        e->est_cycles = all[pick[k]].fig.est_cycles;
        e->line = (long)*n + 1;
    }
    free(pick);
    free(all);
}

/* The figures the NPU tests and the benchmark make rows from: ascend910's
 * with GM slower and later, MTE3 faster and sooner, GM shared less. The
 * names of those changed in *moved (NULL-terminated), if moved. */
static inline sp_target synth_npu_truth(const sp_target *start, const char *const **moved)
{
    static const char *const names[] = {"gm_l1.bandwidth", "gm_l1.latency", "ub_gm.bandwidth",
                                        "ub_gm.latency", "gm_bandwidth", NULL};
    sp_target t = *start;
    t.path[SP_GM_L1].bandwidth = 48;
    t.path[SP_GM_L1].latency = 320;
    t.path[SP_UB_GM].bandwidth = 80;
    t.path[SP_UB_GM].latency = 120;
    t.gm_bandwidth = 900;
    if (moved)
        *moved = names;
    return t;
}

/* The multi-core space of those rows: every strategy and tile, double
 * buffering off and on, 1 to 32 cores, splits M, N and MN. */
static inline sp_space synth_npu_space(void)
{
    static const int32_t cores[] = {1, 2, 4, 8, 16, 32};
    static const sp_split splits[] = {SP_SPLIT_M, SP_SPLIT_N, SP_SPLIT_MN};
    return fx_space(1, 1, cores, 6, splits, 3);
}

#endif
