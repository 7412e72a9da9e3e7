/* worker.c — a rank above 0 of an MPI job: opens the backend rank 0 names,
 * then measures the candidates rank 0 hands it (generating their kernels
 * itself, with all of its node's cores) until it is told to stop. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "workers.h"

typedef struct {
    const tn_transport *t;
    unsigned char *in;
    size_t incap;
    tn_out out;
    sp_target target;
    ms_backend *backend;
    char node[64];
    char *command, *workdir; /* the backend's settings */
} worker;

static void reply(worker *w)
{
    if (w->out.oom) {
        tn_error("worker on %s: out of memory", w->node);
        w->t->abort(TN_ERROR);
    }
    w->t->send(0, w->out.s, w->out.len);
    w->out.len = 0;
}

/* SETUP: the target, the backend and its settings, the journal's unit.
 * Answers HELLO: the node, its threads, why the backend did not open, and
 * for a backend that times hardware the node's signature. */
static void setup(worker *w, tn_in *in)
{
    char name[32], unit[8], err[512] = "";
    unsigned char no_verify = 0;
    ms_settings s = {0};
    free(w->command), free(w->workdir);
    w->command = w->workdir = NULL;
    if (tn_get_build(in, err, sizeof err)) {
        if (!tn_get(in, &w->target, sizeof w->target) || !tn_get_str(in, name, sizeof name) ||
            !(w->command = tn_get_dup(in)) || !tn_get(in, &s.timeout, sizeof s.timeout) ||
            !(w->workdir = tn_get_dup(in)) || !tn_get(in, &no_verify, 1) ||
            !tn_get_str(in, unit, sizeof unit))
            snprintf(err, sizeof err, "a malformed setup message, or out of memory");
    }
    if (!*err) {
        s.command = *w->command ? w->command : NULL;
        s.workdir = *w->workdir ? w->workdir : NULL;
        s.no_verify = no_verify;
        ms_close(w->backend);
        w->backend = ms_open(name, &s, err, sizeof err);
        if (w->backend && *unit && !ms_backend_fix_unit(w->backend, unit))
            snprintf(err, sizeof err, "measure %s does not measure in %s", name, unit);
    }
    char sig[TN_SIG_MAX] = "";
    if (w->backend && w->backend->hardware)
        tn_node_signature(sig, sizeof sig);
    unsigned char kind = TN_HELLO;
    int32_t threads = omp_get_max_threads();
    tn_put(&w->out, &kind, 1);
    tn_put_str(&w->out, w->node);
    tn_put(&w->out, &threads, sizeof threads);
    tn_put_str(&w->out, err);
    tn_put_str(&w->out, sig);
    reply(w);
}

/* JOB: a problem and candidates (configs; their model figures computed
 * here) to measure, time side by side, verify, or the machine's peak.
 * Answers DONE with the backend's unit and each result. */
static bool job(worker *w, tn_in *in)
{
    unsigned char op, kind = TN_DONE;
    sp_problem p;
    uint32_t n;
    if (!w->backend || !tn_get(in, &op, 1) || !tn_get(in, &p, sizeof p) || !tn_get_u32(in, &n) ||
        n > in->len)
        return false;
    uint32_t *slot = malloc((n ? n : 1) * sizeof *slot);
    sp_candidate *c = calloc(n ? n : 1, sizeof *c);
    ms_measurement *m = calloc(n ? n : 1, sizeof *m);
    if (!slot || !c || !m) {
        tn_error("worker on %s: out of memory", w->node);
        w->t->abort(TN_ERROR);
    }
    bool ok = true;
    for (uint32_t i = 0; ok && i < n; i++) {
        ok = tn_get_u32(in, &slot[i]) && tn_get(in, &c[i].config, sizeof c[i].config) &&
             (op != TN_VERIFY || tn_get_measurement(in, &m[i]));
        if (ok && sp_check(&w->target, &p, &c[i].config) == 0)
            sp_model(&w->target, &p, &c[i].config, &c[i].fig);
    }
    ms_backend *b = w->backend;
    ms_peak peak = {0};
    unsigned char have_peak = 0;
    if (ok && op == TN_MEASURE)
        ms_measure_all(b, &w->target, &p, c, n, m, NULL, NULL);
    else if (ok && op == TN_FINAL && b->final)
        b->final(b, &w->target, &p, c, n, m);
    else if (ok && op == TN_VERIFY && b->verify && n == 1)
        b->verify(b, &w->target, &p, c, m);
    else if (ok && op == TN_PEAK && b->peak)
        have_peak = b->peak(b, &peak);
    else
        ok = false;
    if (ok) {
        tn_put(&w->out, &kind, 1);
        tn_put_str(&w->out, b->unit);
        tn_put_u32(&w->out, n);
        for (uint32_t i = 0; i < n; i++) {
            tn_put_u32(&w->out, slot[i]);
            tn_put_measurement(&w->out, &m[i]);
        }
        if (op == TN_PEAK) {
            tn_put(&w->out, &have_peak, 1);
            tn_put(&w->out, &peak, sizeof peak);
        }
        reply(w);
    }
    free(slot), free(c), free(m);
    return ok;
}

int tn_worker(const tn_transport *t)
{
    worker w = {.t = t};
    tn_node_name(w.node, sizeof w.node);
    for (;;) {
        int from = 0;
        size_t len = t->recv(&from, &w.in, &w.incap);
        tn_in in = {w.in, len, 1, false};
        unsigned char kind = len ? w.in[0] : 0;
        if (kind == TN_STOP)
            break;
        if (kind == TN_SETUP)
            setup(&w, &in);
        else if (kind != TN_JOB || !job(&w, &in)) {
            tn_error("worker on %s: a message from rank 0 it does not understand (kind %d, %zu "
                     "bytes); ranks of different builds?",
                     w.node, kind, len);
            t->abort(TN_ERROR);
        }
    }
    ms_close(w.backend);
    free(w.command), free(w.workdir);
    free(w.in);
    free(w.out.s);
    t->leave();
    return TN_OK;
}
