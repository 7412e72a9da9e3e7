/* backend_host.c — the "host" backend: generates each candidate's C kernel,
 * compiles a batch at once and verifies and times every kernel in isolation. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "host.h"
#include "measure.h"

typedef struct {
    char workdir[512];
    double timeout;
} host_state;

/* Reports job j of the batch as candidate idx[j] to the caller's done. */
typedef struct {
    const size_t *idx;
    ms_measurement *out;
    ms_done_fn done;
    void *ctx;
} relay;

static void relay_done(void *ctx, size_t j, const ms_measurement *m)
{
    relay *r = ctx;
    r->out[r->idx[j]] = *m;
    if (r->done)
        r->done(r->ctx, r->idx[j], m);
}

/* The jobs of candidates c[0..n) (symbols nt_k<i> in syms): returns how
 * many; idx[j] is job j's candidate. A candidate without one (the generator
 * refused it, or memory ran out) has its out[] set. */
static size_t make_jobs(const sp_problem *p, const sp_candidate *c, size_t n, hs_job *jobs,
                        char (*syms)[32], size_t *idx, ms_measurement *out)
{
    size_t nj = 0;
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        if (!jobs || !syms || !idx) {
            out[i].status = MS_CRASH;
            ms_set_detail(&out[i], "out of memory");
            continue;
        }
        snprintf(syms[nj], sizeof syms[nj], "nt_k%zu", i);
        char *src = cg_host_text(&c[i].config, p->dtype, syms[nj], out[i].detail, sizeof out[i].detail);
        if (!src) {
            out[i].status = MS_ILLEGAL;
            continue;
        }
        jobs[nj] = (hs_job){.source = src, .symbol = syms[nj], .problem = p,
                            .threads = c[i].config.cores};
        idx[nj++] = i;
    }
    return nj;
}

static void free_jobs(hs_job *jobs, size_t nj, char (*syms)[32], size_t *idx)
{
    for (size_t j = 0; j < nj; j++)
        free((char *)jobs[j].source);
    free(jobs), free(syms), free(idx);
}

/* Kernels compiled together (in parallel) before they are timed one by one:
 * a long batch goes in slices, so that its first timings come (and are
 * journaled) after a slice's compilation, not the whole batch's. */
#define SLICE 8

static void host_slice(host_state *st, const sp_problem *p, const sp_candidate *c, size_t n,
                       ms_measurement *out, ms_done_fn done, void *ctx)
{
    hs_job *jobs = calloc(n ? n : 1, sizeof *jobs);
    char (*syms)[32] = calloc(n ? n : 1, sizeof *syms);
    size_t *idx = calloc(n ? n : 1, sizeof *idx);
    ms_measurement *got = calloc(n ? n : 1, sizeof *got);
    size_t nj = make_jobs(p, c, n, got ? jobs : NULL, syms, idx, out);
    for (size_t i = 0, j = 0; i < n; i++) /* the ones without a job, at once */
        if (j < nj && idx[j] == i)
            j++;
        else if (done)
            done(ctx, i, &out[i]);
    if (nj) {
        relay r = {idx, out, done, ctx};
        char err[256];
        if (!hs_run(jobs, nj, st->workdir, st->timeout, got, relay_done, &r, err,
                    sizeof err))
            for (size_t j = 0; j < nj; j++) {
                ms_measurement *m = &out[idx[j]];
                m->status = MS_CRASH;
                ms_set_detail(m, "%s", err);
                if (done)
                    done(ctx, idx[j], m);
            }
    }
    free_jobs(jobs, nj, syms, idx);
    free(got);
}

/* Reports slice job i as candidate base + i. */
typedef struct {
    size_t base;
    ms_done_fn done;
    void *ctx;
} offset;

static void offset_done(void *ctx, size_t i, const ms_measurement *m)
{
    offset *o = ctx;
    o->done(o->ctx, o->base + i, m);
}

static void host_batch(ms_backend *b, const sp_target *t, const sp_problem *p,
                       const sp_candidate *c, size_t n, ms_measurement *out, ms_done_fn done,
                       void *ctx)
{
    (void)t;
    for (size_t at = 0; at < n; at += SLICE) {
        offset o = {at, done, ctx};
        host_slice(b->state, p, c + at, n - at < SLICE ? n - at : SLICE, out + at,
                   done ? offset_done : NULL, &o);
    }
}

/* The final: candidates c[0..n) side by side (hs_final; at most
 * HS_FINAL_MAX, the rest are not run and keep status crash). */
static void host_final(ms_backend *b, const sp_target *t, const sp_problem *p,
                       const sp_candidate *c, size_t n, ms_measurement *out)
{
    (void)t;
    host_state *st = b->state;
    size_t k = n < HS_FINAL_MAX ? n : HS_FINAL_MAX;
    hs_job *jobs = calloc(k ? k : 1, sizeof *jobs);
    char (*syms)[32] = calloc(k ? k : 1, sizeof *syms);
    size_t *idx = calloc(k ? k : 1, sizeof *idx);
    ms_measurement got[HS_FINAL_MAX];
    for (size_t i = k; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].status = MS_CRASH;
        ms_set_detail(&out[i], "not run: a final takes at most %d", HS_FINAL_MAX);
    }
    size_t nj = make_jobs(p, c, k, jobs, syms, idx, out);
    char err[256];
    bool ran = nj && hs_final(jobs, nj, st->workdir, st->timeout, got, err, sizeof err);
    for (size_t j = 0; j < nj; j++) {
        out[idx[j]] = got[j];
        if (!ran) {
            out[idx[j]].status = MS_CRASH;
            ms_set_detail(&out[idx[j]], "%s", err);
        }
    }
    free_jobs(jobs, nj, syms, idx);
}

static void host_measure(ms_backend *b, const sp_target *t, const sp_problem *p,
                         const sp_candidate *c, ms_measurement *out)
{
    host_batch(b, t, p, c, 1, out, NULL, NULL);
}

/* The roofline: the FMA peak per core and of all cores, and the time lost. */
static bool host_peak(ms_backend *b, ms_peak *out)
{
    (void)b;
    hs_roofline r;
    if (!hs_measure_roofline(&r))
        return false;
    *out = (ms_peak){.gflops_core = r.gflops_core, .gflops_all = r.gflops_all,
                     .lost = r.lost.share};
    FILE *f = fmemopen(out->text, sizeof out->text, "w");
    if (f) {
        hs_roofline_print(f, &r);
        fclose(f);
    }
    return true;
}

static void host_close(ms_backend *b)
{
    if (b)
        free(b->state);
    free(b);
}

ms_backend *ms_host_open(const ms_settings *s, char *err, size_t errlen)
{
    ms_backend *b = calloc(1, sizeof *b);
    host_state *st = calloc(1, sizeof *st);
    if (!b || !st) {
        free(b), free(st);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(st->workdir, sizeof st->workdir, "%s",
             s->workdir && *s->workdir ? s->workdir : "npu-tune-kernels");
    st->timeout = s->timeout > 0 ? s->timeout : 60;
    *b = (ms_backend){.unit = "s", .parallel = false, .checked = true, .hardware = true,
                      .measure = host_measure, .measure_batch = host_batch, .final = host_final,
                      .peak = host_peak, .close = host_close, .state = st};
    return b;
}
