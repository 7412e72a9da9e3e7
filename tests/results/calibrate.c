/* calibrate.c — the fit of the model's figures: rows made from the model at
 * known figures (plus noise) give those figures back within the intervals;
 * too few rows, no convergence and figures the rows cannot pin say so. */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixtures.h"
#include "results.h"
#include "synthetic.h"

static char err[1024];

static double *field(sp_target *t, const char *name)
{
    return sp_target_figure_at(t, sp_target_field_index(name, t->kind));
}

/* Whether the figures named in `moved` (NULL-terminated) are fitted with an
 * interval that holds the truth and is narrower than 2.5 times (hi / lo),
 * and every other fitted figure (left at its truth: the rows pin it loosely,
 * and the model's kinks make the intervals approximate) has the truth within
 * 1.5 times its interval; `quiet`: no line for a figure that is not. */
static bool found_truth(const rs_fit *fit, sp_target truth, const char *const *moved, bool quiet)
{
    bool all = fit->nfig > 0;
    for (const char *const *m = moved; *m; m++) {
        bool found = false;
        for (size_t j = 0; j < fit->nfig; j++)
            found |= strcmp(sp_target_fields[fit->fig[j].field].name, *m) == 0;
        if (!found && !quiet)
            printf("%s: not fitted\n", *m);
        all &= found;
    }
    for (size_t j = 0; j < fit->nfig; j++) {
        const rs_fit_figure *f = &fit->fig[j];
        const char *name = sp_target_fields[f->field].name;
        bool strict = false;
        for (const char *const *m = moved; *m; m++)
            strict |= strcmp(*m, name) == 0;
        double want = *field(&truth, name);
        bool in = strict ? f->lo <= want && want <= f->hi && f->hi / f->lo < 2.5
                         : f->lo / 1.5 <= want && want <= 1.5 * f->hi;
        if (!in && !quiet)
            printf("%s: truth %g, fitted %g in [%g, %g]\n", name, want, f->value, f->lo, f->hi);
        all &= in;
    }
    return all;
}

/* The truth found (found_truth) and the fit judging better than the start. */
static void recovered(const rs_fit *fit, sp_target truth, const char *const *moved)
{
    CHECK(found_truth(fit, truth, moved, false));
    CHECK(fit->after.error_median < fit->before.error_median);
    CHECK(fit->after.error_median < 0.05);
    CHECK(fit->rms_after < fit->rms_before);
}

static void show(const rs_fit *fit);

/* rs_calibrate that must succeed; the fit is shown. */
static bool fits(const sp_target *start, const rs_entry *rows, size_t n, const rs_fit_opts *o,
                 rs_fit *fit)
{
    bool ok = rs_calibrate(start, rows, n, o, fit, err, sizeof err);
    if (!ok)
        printf("%s\n", err);
    CHECK(ok);
    show(fit);
    return ok;
}

static void show(const rs_fit *fit)
{
    for (size_t j = 0; j < fit->nfig; j++)
        printf("  %-20s %10.4g -> %10.4g  [%g, %g]\n", sp_target_fields[fit->fig[j].field].name,
               fit->fig[j].start, fit->fig[j].value, fit->fig[j].lo, fit->fig[j].hi);
    for (size_t j = 0; j < fit->nkept; j++)
        printf("  kept %s\n", sp_target_fields[fit->kept[j]].name);
}

/* Each shape measured slower by a factor of its own (a machine slower for
 * one shape than another; a model that misses a shape as a whole): the
 * relative fit finds the truth all the same, the absolute one does not; a
 * relative fit has no use for the clock and needs a row more per shape. */
static void relative(const sp_target *start, sp_target truth, const char *const *names,
                     const rs_entry *rows, size_t n)
{
    rs_entry *slow = malloc(n * sizeof *slow);
    memcpy(slow, rows, n * sizeof *slow);
    for (size_t i = 0; i < n; i++)
        slow[i].measured *= 1.0 + 0.5 * (double)(slow[i].problem.M % 7); /* by the shape */
    rs_fit_opts o = {.fields = names, .nfields = 5, .holdout = 0.25, .seed = 7, .relative = true};
    rs_fit fit;
    fits(start, slow, n, &o, &fit);
    CHECK(found_truth(&fit, truth, names, false));
    CHECK(fit.rms_after < fit.rms_before && fit.rms_after < 0.05);
    CHECK(fit.after.spearman > fit.before.spearman);
    o.relative = false;
    fits(start, slow, n, &o, &fit);
    CHECK(!found_truth(&fit, truth, names, true));
    CHECK(fit.rms_after > 0.1);

    const char *const clock[] = {"clock_mhz"};
    o = (rs_fit_opts){.fields = clock, .nfields = 1, .relative = true};
    for (size_t i = 0; i < n; i++)
        strcpy(slow[i].unit, "s");
    CHECK(!rs_calibrate(start, slow, n, &o, &fit, err, sizeof err));
    CHECK_PREFIX(err, "'clock_mhz' is not a figure the fit can move on npu target ascend910 "
                      "with rows in seconds, fitted relative (it can: gm_l1.bandwidth, ");
    /* 2 rows per figure, 1 per shape: 11 rows of 2 shapes too few for 5 figures */
    size_t k = 0, of[2] = {0};
    for (size_t i = 0; i < n; i++) {
        int s = rows[i].problem.M == 512 ? 0 : rows[i].problem.M == 256 ? 1 : -1;
        if (s >= 0 && of[s] < (size_t)(6 - s))
            slow[k++] = rows[i], of[s]++;
    }
    CHECK_INT(k, 11);
    o = (rs_fit_opts){.fields = names, .nfields = 5, .relative = true};
    CHECK(!rs_calibrate(start, slow, k, &o, &fit, err, sizeof err));
    CHECK_STR(err, "11 rows are too few to fit 5 figures (12 at least: 2 per figure, and one "
                   "per shape for its level)");
    free(slow);
}

/* NPU rows in cycles over 1 to 32 cores, from perturbed figures. */
static void npu(gsl_rng *rng)
{
    const char *const *names;
    sp_target start = fx_ascend910(), truth = synth_npu_truth(&start, &names);
    sp_space s = synth_npu_space();
    const long shapes[][3] = {{512, 768, 768}, {256, 1024, 256}, {1024, 1024, 128},
                              {200, 1000, 64}, {3136, 64, 576}, {384, 384, 64}};
    rs_entry *rows = malloc(6 * 80 * sizeof *rows);
    size_t n = 0;
    for (int i = 0; i < 6; i++) {
        sp_problem p = fx_problem(shapes[i][0], shapes[i][1], shapes[i][2], 1, SP_FP16);
        synth_shape(&start, &truth, &p, &s, 80, 0.02, false, rng, rows, &n);
    }
    CHECK_INT(n, 480);

    /* the figures named: each recovered */
    rs_fit_opts o = {.fields = names, .nfields = 5, .holdout = 0.25, .seed = 7};
    rs_fit fit;
    fits(&start, rows, n, &o, &fit);
    CHECK_INT(fit.nfig, 5);
    CHECK_INT(fit.rows, 480);
    CHECK_INT(fit.held_rows, 120);
    CHECK_INT(fit.fit_rows, 360);
    CHECK(!fit.in_sample);
    recovered(&fit, truth, names);
    /* the fitted target holds them, the others as they were */
    CHECK_DBL(fit.target.path[SP_GM_L1].bandwidth, fit.fig[0].value);
    CHECK_DBL(fit.target.path[SP_L1_L0A].bandwidth, start.path[SP_L1_L0A].bandwidth);
    CHECK_INT(fit.target.cores, 32);

    /* the same again: the same fit; whole shapes held out */
    rs_fit again;
    CHECK(rs_calibrate(&start, rows, n, &o, &again, err, sizeof err));
    CHECK(memcmp(&again.target, &fit.target, sizeof fit.target) == 0);
    o.by_shape = true;
    CHECK(rs_calibrate(&start, rows, n, &o, &again, err, sizeof err));
    CHECK(again.held_rows % 80 == 0 && again.held_rows >= 80 && again.held_rows < n);
    recovered(&again, truth, names);
    relative(&start, truth, names, rows, n);

    /* left to choose: the figures that are pinned are recovered, the rest kept */
    o = (rs_fit_opts){.holdout = 0.25, .seed = 7};
    fits(&start, rows, n, &o, &fit);
    CHECK(fit.nfig >= 5);
    CHECK_INT(fit.nfig + fit.nkept, 11);
    recovered(&fit, truth, names);

    /* not converged within one iteration: says so */
    o = (rs_fit_opts){.fields = names, .nfields = 5, .iterations = 1};
    CHECK(!rs_calibrate(&start, rows, n, &o, &fit, err, sizeof err));
    CHECK_STR(err, "the fit of 5 figures to 480 rows did not converge within its iterations "
                   "(exceeded max number of iterations)");

    /* too few rows for the figures */
    o = (rs_fit_opts){.fields = names, .nfields = 5};
    CHECK(!rs_calibrate(&start, rows, 9, &o, &fit, err, sizeof err));
    CHECK_STR(err, "9 rows are too few to fit 5 figures (10 at least: 2 per figure)");

    /* holding out whole shapes of one shape */
    o = (rs_fit_opts){.fields = names, .nfields = 2, .holdout = 0.5, .by_shape = true};
    CHECK(!rs_calibrate(&start, rows, 40, &o, &fit, err, sizeof err));
    CHECK_STR(err, "holding out whole shapes needs rows of two shapes at least; these are of one");

    /* a figure no row depends on: the single-core rows never share GM */
    size_t single = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].config.cores == 1)
            rows[single++] = rows[i];
    o = (rs_fit_opts){.fields = names, .nfields = 5};
    CHECK(!rs_calibrate(&start, rows, single, &o, &fit, err, sizeof err));
    CHECK_STR(err, "gm_bandwidth is not identifiable from these rows (no row depends on it): "
                   "fit without it");
    /* a field that is no free figure, or not of the kind */
    const char *const cores_f[] = {"cores"}, *const fj[] = {"fork_join"},
                      *const clock[] = {"clock_mhz"};
    o = (rs_fit_opts){.fields = cores_f, .nfields = 1};
    CHECK(!rs_calibrate(&start, rows, n, &o, &fit, err, sizeof err));
    CHECK_PREFIX(err, "'cores' is not a figure the fit can move on npu target ascend910 with "
                      "rows in cycles (it can: gm_l1.bandwidth, gm_l1.latency, ");
    o.fields = fj;
    CHECK(!rs_calibrate(&start, rows, n, &o, &fit, err, sizeof err));
    CHECK_PREFIX(err, "'fork_join' is not a figure");
    o.fields = clock; /* the clock only scales seconds */
    CHECK(!rs_calibrate(&start, rows, n, &o, &fit, err, sizeof err));
    CHECK_PREFIX(err, "'clock_mhz' is not a figure");
    o = (rs_fit_opts){.holdout = 1};
    CHECK(!rs_calibrate(&start, rows, n, &o, &fit, err, sizeof err));
    CHECK_STR(err, "the share held out must be from 0 to below 1, not 1");
    /* a row that is no measurement */
    rows[3].measured = NAN;
    o = (rs_fit_opts){0};
    CHECK(!rs_calibrate(&start, rows, n, &o, &fit, err, sizeof err));
    CHECK_HAS(err, "is not an ok measurement in cycles");
    CHECK(!rs_calibrate(&start, rows, 0, &o, &fit, err, sizeof err));
    CHECK_STR(err, "no rows to fit");
    free(rows);
    sp_space_free(&s);
}

/* CPU rows in seconds: the clock and the cache rates, fork_join and
 * load_stall from 0. */
/* Where a fit starts figure f: its start, or 1 for a start of 0. */
static double origin(const rs_fit_figure *f)
{
    return f->start > 0 ? f->start : 1.0;
}

/* The squared log distance of a fit's figures from where they started. */
static double moved_by(const rs_fit *fit)
{
    double d = 0;
    for (size_t j = 0; j < fit->nfig; j++)
        d += pow(log(fit->fig[j].value / origin(&fit->fig[j])), 2);
    return d;
}

/* A prior holds the figures near their starts: the tighter, the nearer (a
 * sd of 1e-4: within 1%), never nearer the truth than no prior (`free`),
 * every interval around its figure; a bad sd is refused. */
static void prior(const sp_target *start, const rs_entry *rows, size_t n, const rs_fit *free)
{
    rs_fit loose, tight;
    rs_fit_opts o = {.holdout = 0.2, .seed = 3, .prior = 0.5};
    fits(start, rows, n, &o, &loose);
    o.prior = 1e-4;
    fits(start, rows, n, &o, &tight);
    CHECK(moved_by(&tight) < moved_by(&loose) && moved_by(&loose) < moved_by(free));
    CHECK(free->rms_after <= loose.rms_after && loose.rms_after < tight.rms_after);
    for (size_t j = 0; j < tight.nfig; j++) {
        const rs_fit_figure *f = &tight.fig[j];
        CHECK(fabs(f->value / origin(f) - 1) < 0.01);
        CHECK(f->lo <= f->value && f->value <= f->hi);
    }
    for (double bad = -1; bad <= 1000; bad += 1001) {
        o.prior = bad;
        CHECK(!rs_calibrate(start, rows, n, &o, &tight, err, sizeof err));
        CHECK_HAS(err, "the prior's sd must be from 0 (none) to 100");
    }
}

/* Rows measured as if load_stall were 400 cycles, more than a target may
 * say (its check stops at 100): the fit stops there, keeps the figure as it
 * was and fits the others, so the target it gives loads; asked to fit it,
 * it says why it cannot. */
static void ceiling(const sp_target *start, sp_target truth, const sp_space *s, gsl_rng *rng)
{
    truth.cpu.load_stall = 400;
    rs_entry *rows = malloc(2 * 100 * sizeof *rows);
    size_t n = 0;
    const long shapes[][3] = {{512, 768, 768}, {1024, 1024, 256}};
    for (int i = 0; i < 2; i++) {
        sp_problem p = fx_problem(shapes[i][0], shapes[i][1], shapes[i][2], 1, SP_FP32);
        synth_shape(start, &truth, &p, s, 100, 0.02, true, rng, rows, &n);
    }
    rs_fit_opts o = {.holdout = 0, .seed = 3};
    rs_fit fit;
    if (fits(start, rows, n, &o, &fit)) {
        bool kept = false;
        for (size_t i = 0; i < fit.nkept; i++)
            kept |= strcmp(sp_target_fields[fit.kept[i]].name, "load_stall") == 0;
        CHECK(kept);
        CHECK_DBL(fit.target.cpu.load_stall, start->cpu.load_stall);
        CHECK(sp_target_check(&fit.target, err, sizeof err));
    }
    const char *only[] = {"load_stall"};
    o.fields = only, o.nfields = 1;
    CHECK(!rs_calibrate(start, rows, n, &o, &fit, err, sizeof err));
    CHECK_STR(err, "load_stall is not identifiable from these rows (the fit runs off to the "
                   "edge of its range): fit without it");
    free(rows);
}

/* rows: n random configs of each shape timed on truth (seconds, 2% noise). */
static size_t rows_on(const sp_target *start, const sp_target *truth, const long (*shapes)[3],
                      int nshapes, const sp_space *s, gsl_rng *rng, rs_entry *rows)
{
    size_t n = 0;
    for (int i = 0; i < nshapes; i++) {
        sp_problem p = fx_problem(shapes[i][0], shapes[i][1], shapes[i][2], 1, SP_FP32);
        synth_shape(start, truth, &p, s, 100, 0.02, true, rng, rows, &n);
    }
    return n;
}

/* A farther level's rate stays at or below a nearer one's: a figure the fit
 * keeps is lowered with a fitted one it would pass, along the levels; one
 * fitted past the level above it is refused, or kept and named; a start that
 * breaks an order no fitted figure touches stays as it is; a CPU with no L3
 * bounds memory by L2. */
static void orders(const sp_target *start, const sp_space *s, gsl_rng *rng)
{
    const long in_l3[][3] = {{512, 768, 768}, {1024, 1024, 256}};
    rs_entry *rows = malloc(2 * 100 * sizeof *rows);
    rs_fit_opts o = {.holdout = 0, .seed = 3};
    rs_fit fit;
    /* L3 fitted below memory's rate: memory follows */
    sp_target truth = *start;
    truth.cpu.bw_l3 = start->cpu.bw_mem / 2;
    size_t n = rows_on(start, &truth, in_l3, 2, s, rng, rows);
    const char *const l3[] = {"bandwidth.l3"}, *const l2[] = {"bandwidth.l2"};
    o.fields = l3, o.nfields = 1;
    if (fits(start, rows, n, &o, &fit)) {
        CHECK(fabs(fit.target.cpu.bw_l3 / truth.cpu.bw_l3 - 1) < 0.1);
        CHECK_DBL(fit.target.cpu.bw_mem, fit.target.cpu.bw_l3);
        CHECK_INT(fit.nlowered, 1);
        CHECK_STR(sp_target_fields[fit.lowered[0]].name, "bandwidth.mem");
        CHECK_STR(sp_target_fields[fit.lowered_by[0]].name, "bandwidth.l3");
        CHECK(sp_target_check(&fit.target, err, sizeof err));
    }
    /* L2 fitted below L3 and memory: both follow it, memory through L3 */
    truth = *start;
    truth.cpu.bw_l2 = truth.cpu.bw_l3 = truth.cpu.bw_mem = start->cpu.bw_mem / 2;
    n = rows_on(start, &truth, in_l3, 2, s, rng, rows);
    o.fields = l2;
    if (fits(start, rows, n, &o, &fit)) {
        CHECK(fit.target.cpu.bw_l2 < start->cpu.bw_mem);
        CHECK_DBL(fit.target.cpu.bw_l3, fit.target.cpu.bw_l2);
        CHECK_DBL(fit.target.cpu.bw_mem, fit.target.cpu.bw_l2);
        CHECK_INT(fit.nlowered, 2);
        for (size_t j = 0; j < fit.nlowered && j < 2; j++)
            CHECK_STR(sp_target_fields[fit.lowered_by[j]].name, "bandwidth.l2");
    }
    /* a start whose memory outruns L3, the fit moving neither (L2 as it
     * was): the start stays as it is */
    sp_target odd = *start;
    odd.cpu.bw_mem = odd.cpu.bw_l3 * 1.5;
    n = rows_on(&odd, &odd, in_l3, 2, s, rng, rows);
    if (fits(&odd, rows, n, &o, &fit)) {
        CHECK_INT(fit.nlowered, 0);
        CHECK_DBL(fit.target.cpu.bw_mem, odd.cpu.bw_mem);
    }
    /* no L3: memory stays at or below L2, bandwidth.l3 is not touched */
    sp_target flat = *start;
    flat.cpu.cache[SP_CL3] = 0;
    truth = flat;
    truth.cpu.bw_l2 = flat.cpu.bw_mem / 2;
    n = rows_on(&flat, &truth, in_l3, 2, s, rng, rows);
    if (fits(&flat, rows, n, &o, &fit)) {
        CHECK_DBL(fit.target.cpu.bw_mem, fit.target.cpu.bw_l2);
        CHECK_DBL(fit.target.cpu.bw_l3, flat.cpu.bw_l3);
        CHECK_INT(fit.nlowered, 1);
    }
    /* memory, pinned by the C that the last shape's steps revisit (with a
     * share of all cores' rate that does not bound it), twice as fast as L3:
     * refused when named, kept and named when the fit chooses */
    free(rows);
    rows = malloc(100 * sizeof *rows);
    const long past_l3[][3] = {{4096, 8192, 128}};
    sp_target wide = *start;
    wide.cpu.bw_mem_shared = 100;
    truth = wide;
    truth.cpu.bw_mem = wide.cpu.bw_l3 * 2;
    n = rows_on(&wide, &truth, past_l3, 1, s, rng, rows);
    const char *const mem[] = {"bandwidth.mem"};
    o.fields = mem;
    CHECK(!rs_calibrate(&wide, rows, n, &o, &fit, err, sizeof err));
    CHECK_PREFIX(err, "bandwidth.mem runs past bandwidth.l3 at the fit (");
    CHECK_HAS(err, "): fit without it");
    o.fields = NULL, o.nfields = 0;
    if (fits(&wide, rows, n, &o, &fit)) {
        CHECK_INT(fit.npast, 1);
        CHECK_STR(sp_target_fields[fit.past[0]].name, "bandwidth.mem");
        CHECK_STR(sp_target_fields[fit.past_of[0]].name, "bandwidth.l3");
        CHECK(fit.target.cpu.bw_mem <= fit.target.cpu.bw_l3);
    }
    free(rows);
}

static void cpu(gsl_rng *rng)
{
    sp_target start = fx_box(), truth = start;
    truth.clock_mhz = 2400;
    truth.cpu.bw_l2 = 20;
    truth.cpu.bw_l3 = 11;
    truth.cpu.bw_mem = 6;
    truth.cpu.fork_join = 8000;
    truth.cpu.load_stall = 0.2;
    const int32_t cores[] = {1, 2, 4};
    const sp_split splits[] = {SP_SPLIT_M, SP_SPLIT_N};
    sp_space s = fx_space(1, 0, cores, 3, splits, 2);
    const int32_t mv[] = {24, 48, 96, 192, 384}, nv[] = {32, 64, 128, 256, 512},
                  kv[] = {32, 64, 128, 256, 512, 1024};
    s.m = fx_axis(mv, 5), s.n = fx_axis(nv, 5), s.k = fx_axis(kv, 6);
    sp_micro micro[] = {{6, 16}, {4, 16}, {8, 8}};
    s.micro = micro, s.nmicro = 3;
    /* the last: the C the steps revisit lies past the L3 share at every
     * thread count, so C's traffic pins memory's rate */
    const long shapes[][3] = {{512, 768, 768}, {64, 64, 64}, {1024, 1024, 256},
                              {3136, 64, 576}, {4096, 8192, 128}};
    rs_entry *rows = malloc(5 * 100 * sizeof *rows);
    size_t n = 0;
    for (int i = 0; i < 5; i++) {
        sp_problem p = fx_problem(shapes[i][0], shapes[i][1], shapes[i][2], 1, SP_FP32);
        synth_shape(&start, &truth, &p, &s, 100, 0.02, true, rng, rows, &n);
    }
    CHECK(n > 300);
    rs_fit_opts o = {.holdout = 0.2, .seed = 3};
    rs_fit fit;
    fits(&start, rows, n, &o, &fit);
    const char *const moved[] = {"clock_mhz", "bandwidth.l2", "bandwidth.l3", "bandwidth.mem",
                                 "fork_join", "load_stall", NULL};
    recovered(&fit, truth, moved);
    prior(&start, rows, n, &fit);
    ceiling(&start, truth, &s, rng);
    orders(&start, &s, rng);
    /* rows in seconds are estimated at the target's clock */
    sp_figures f;
    sp_model(&start, &rows[0].problem, &rows[0].config, &f);
    CHECK_DBL(rs_fit_estimate(&start, &rows[0]), f.est_cycles / (start.clock_mhz * 1e6));
    s.micro = NULL, s.nmicro = 0;
    sp_space_free(&s);
    free(rows);
}

/* Every free figure is a number field of the target table. */
static void figures(void)
{
    int n = 0;
    for (int i = 0; rs_fit_free(i); i++, n++) {
        int f = -1;
        for (int j = 0; j < SP_TARGET_NFIELDS; j++)
            if (strcmp(sp_target_fields[j].name, rs_fit_free(i)) == 0)
                f = j;
        CHECK(f >= 0);
        if (f >= 0)
            CHECK_INT(sp_target_fields[f].type, SP_FIELD_NUM);
    }
    CHECK(n > 0 && n <= RS_FIT_MAX);
    CHECK(rs_fit_free(-1) == NULL);
}

int main(void)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 42);
    figures();
    npu(rng);
    cpu(rng);
    gsl_rng_free(rng);
    return CHECK_DONE();
}
