/* workers.c — rank 0 of an MPI job: hands the workers what they measure with,
 * then each batch of candidates in chunks, a chunk to each worker that is
 * idle (dynamic: one that answers gets the next), and hears the results as
 * they arrive. Alone, the same calls use the run's own backend. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "workers.h"

/* The most candidates a chunk holds: bounds a message (about 30 bytes a
 * candidate out, 60 back) and how long a worker keeps results to itself
 * (what a kill of it loses). A backend that times hardware, seconds a
 * candidate, hands a worker only as many as it has threads. */
#define CHUNK_MAX 256

typedef struct {
    char node[64];
    char sig[TN_SIG_MAX]; /* its node's kind, when the backend times hardware */
    int threads;
    bool busy;
} rank_state;

struct tn_workers {
    const tn_transport *t;
    int size;             /* ranks, rank 0 included */
    rank_state *rank;     /* [1 .. size) */
    int threads;          /* over all workers */
    int next;             /* the worker the next final, verify or peak goes to */
    unsigned char *in;
    size_t incap;
    tn_out out;
};

void tn_node_name(char *out, size_t len)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0 || !*host)
        strcpy(host, "unknown");
    size_t i = 0;
    for (; host[i] && i + 1 < len; i++) {
        char ch = host[i];
        bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
        out[i] = keep ? ch : '_';
    }
    out[i] = '\0';
}

void tn_node_signature(char *out, size_t len)
{
    hs_info h;
    hs_detect(&h);
    hs_node_signature(&h, out, len);
}

bool tn_workers_join(const tn_transport *t, tn_workers **w, int *rc)
{
    char err[256];
    int rank, size;
    *w = NULL;
    if (!t->join(&rank, &size, err, sizeof err)) {
        tn_error("%s", err);
        *rc = TN_ERROR;
        return false;
    }
    if (rank != 0) {
        *rc = tn_worker(t);
        return false;
    }
    if (size <= 1) { /* a job of one: an ordinary run */
        t->leave();
        return true;
    }
    tn_workers *x = calloc(1, sizeof *x);
    if (!x || !(x->rank = calloc((size_t)size, sizeof *x->rank))) {
        free(x);
        tn_error("out of memory");
        t->abort(TN_ERROR);
    }
    x->t = t;
    x->size = size;
    x->next = 1;
    *w = x;
    return true;
}

static void send_out(tn_workers *w, int to)
{
    if (w->out.oom) {
        tn_error("out of memory");
        w->t->abort(TN_ERROR);
    }
    w->t->send(to, w->out.s, w->out.len);
    w->out.len = 0;
}

/* The next message from rank `from` (-1: any) of kind `kind`, its sender in
 * *from; a message of another kind ends the job. */
static tn_in receive(tn_workers *w, int *from, unsigned char kind)
{
    size_t len = w->t->recv(from, &w->in, &w->incap);
    if (!len || w->in[0] != kind) {
        tn_error("rank %d sent a message rank 0 does not expect (kind %d, %zu bytes); ranks of "
                 "different builds?",
                 *from, len ? w->in[0] : 0, len);
        w->t->abort(TN_ERROR);
    }
    return (tn_in){w->in, len, 1, false};
}

/* Ends the job: a worker's message did not read. */
_Noreturn static void malformed(tn_workers *w, int from)
{
    tn_error("rank %d (%s) sent a malformed message; ranks of different builds?", from,
             w->rank[from].node);
    w->t->abort(TN_ERROR);
    exit(TN_ERROR);
}

/* A backend that times hardware compares figures from different nodes: all
 * must be of one kind, rank 0's too (a `host` target is what it detects);
 * and one that times a kernel at a time (host) must have its node to itself,
 * so one worker per node. False with both ranks and nodes named. */
static bool same_nodes(tn_session *r, char *err, size_t errlen)
{
    tn_workers *w = r->workers;
    if (!r->backend->hardware)
        return true;
    tn_node_signature(w->rank[0].sig, sizeof w->rank[0].sig);
    snprintf(w->rank[0].node, sizeof w->rank[0].node, "%s", r->node);
    for (int k = 1; k < w->size; k++)
        if (strcmp(w->rank[k].sig, w->rank[0].sig) != 0) {
            snprintf(err, errlen,
                     "rank %d on %s is another kind of node (%s) than rank 0 on %s (%s): %s "
                     "measurements compare only on one kind of node; start the job on nodes "
                     "of one kind (tuning per kind of node is not supported)",
                     k, w->rank[k].node, w->rank[k].sig, w->rank[0].node, w->rank[0].sig,
                     r->backend->name);
            return false;
        }
    for (int k = 1; k < w->size && !r->backend->parallel; k++)
        for (int j = 1; j < k; j++)
            if (strcmp(w->rank[j].node, w->rank[k].node) == 0) {
                snprintf(err, errlen,
                         "ranks %d and %d both measure on %s, where %s times one kernel at a "
                         "time: start at most one worker per node (rank 0 may share a node "
                         "with one)",
                         j, k, w->rank[k].node, r->backend->name);
                return false;
            }
    return true;
}

bool tn_workers_setup(tn_session *r, const ms_settings *s, char *err, size_t errlen)
{
    tn_workers *w = r->workers;
    if (!w)
        return true;
    unsigned char kind = TN_SETUP, no_verify = s->no_verify;
    tn_put(&w->out, &kind, 1);
    tn_put_build(&w->out);
    tn_put(&w->out, ls_target(r->script), sizeof(sp_target));
    tn_put_str(&w->out, r->backend->name);
    tn_put_str(&w->out, s->command);
    tn_put(&w->out, &s->timeout, sizeof s->timeout);
    tn_put_str(&w->out, s->workdir);
    tn_put(&w->out, &no_verify, 1);
    tn_put_str(&w->out, rs_journal_unit(r->journal, NULL));
    size_t len = w->out.len;
    for (int k = 1; k < w->size; k++) {
        w->out.len = len;
        send_out(w, k);
    }
    char why[512];
    int first = 0; /* the lowest rank that failed */
    w->threads = 0;
    for (int got = 1; got < w->size; got++) {
        int from = -1;
        tn_in in = receive(w, &from, TN_HELLO);
        rank_state *k = &w->rank[from];
        int32_t threads;
        if (!tn_get_str(&in, k->node, sizeof k->node) || !tn_get(&in, &threads, sizeof threads) ||
            !tn_get_str(&in, why, sizeof why) || !tn_get_str(&in, k->sig, sizeof k->sig) ||
            threads < 1)
            malformed(w, from);
        k->threads = threads;
        w->threads += threads;
        if (*why && (!first || from < first)) {
            first = from;
            snprintf(err, errlen, "rank %d on %s: %s", from, k->node, why);
        }
    }
    return !first && same_nodes(r, err, errlen);
}

void tn_workers_close(tn_workers *w)
{
    if (!w)
        return;
    unsigned char kind = TN_STOP;
    for (int k = 1; k < w->size; k++) {
        tn_put(&w->out, &kind, 1);
        send_out(w, k);
    }
    w->t->leave();
    free(w->rank);
    free(w->in);
    free(w->out.s);
    free(w);
}

/* ---- handing out jobs ---- */

/* Starts a job message: what it asks, of which problem, for n candidates. */
static void job_start(tn_workers *w, unsigned char op, const sp_problem *p, size_t n)
{
    unsigned char kind = TN_JOB;
    tn_put(&w->out, &kind, 1);
    tn_put(&w->out, &op, 1);
    tn_put(&w->out, p, sizeof *p);
    tn_put_u32(&w->out, (uint32_t)n);
}

static void job_cand(tn_workers *w, size_t slot, const sp_candidate *c)
{
    tn_put_u32(&w->out, (uint32_t)slot);
    tn_put(&w->out, &c->config, sizeof c->config);
}

/* Reads a DONE message's results into out[0..n) (their slots, each below
 * n), calling done for each; a run whose unit was not known yet takes the
 * worker's (the command backend learns it from the board's first answer),
 * and ok results in another unit than the run's fail as the board's would. */
static size_t take_done(tn_session *r, int from, tn_in *in, ms_measurement *out, size_t n,
                        tn_done_fn done, void *ctx)
{
    tn_workers *w = r->workers;
    char unit[8];
    uint32_t count, slot;
    if (!tn_get_str(in, unit, sizeof unit) || !tn_get_u32(in, &count))
        malformed(w, from);
    const char *node = w->rank[from].node;
    for (uint32_t i = 0; i < count; i++) {
        ms_measurement m;
        if (!tn_get_u32(in, &slot) || slot >= n || !tn_get_measurement(in, &m))
            malformed(w, from);
        if (m.status == MS_OK && strcmp(unit, r->backend->unit) != 0 &&
            !ms_backend_fix_unit(r->backend, unit)) {
            m.status = MS_WRONG;
            ms_set_detail(&m, "mixed units: rank %d on %s measured in %s but this run measures in %s",
                          from, node, unit, r->backend->unit);
        }
        out[slot] = m;
        if (done)
            done(ctx, slot, &out[slot], node);
    }
    return count;
}

/* How many of the `left` candidates worker k gets: its share of twice the
 * workers' threads (so that the last chunks are small and finish together),
 * at least its own threads (so that none idles), at most `most`. */
static size_t chunk(const tn_workers *w, int k, size_t left, size_t most)
{
    size_t t = (size_t)w->rank[k].threads;
    size_t c = (left * t + 2 * (size_t)w->threads - 1) / (2 * (size_t)w->threads);
    c = c < t ? t : c;
    c = c > most ? most : c;
    return c < left ? c : left;
}

/* Relays the backend's ms_done_fn to a tn_done_fn with this process's node. */
typedef struct {
    tn_done_fn done;
    void *ctx;
    const char *node;
} relay;

static void relay_done(void *ctx, size_t i, const ms_measurement *m)
{
    relay *x = ctx;
    if (x->done)
        x->done(x->ctx, i, m, x->node);
}

void tn_measure(tn_session *r, const sp_problem *p, const sp_candidate *c, size_t n,
                ms_measurement *out, tn_done_fn done, void *ctx)
{
    tn_workers *w = r->workers;
    if (!w) {
        relay x = {done, ctx, r->node};
        ms_measure_all(r->backend, ls_target(r->script), p, c, n, out, relay_done, &x);
        return;
    }
    size_t next = 0, pending = 0;
    while (next < n || pending) {
        for (int k = 1; k < w->size && next < n; k++) {
            if (w->rank[k].busy)
                continue;
            size_t most = r->backend->hardware ? (size_t)w->rank[k].threads : CHUNK_MAX;
            size_t m = chunk(w, k, n - next, most);
            job_start(w, TN_MEASURE, p, m);
            for (size_t i = next; i < next + m; i++)
                job_cand(w, i, &c[i]);
            send_out(w, k);
            w->rank[k].busy = true;
            next += m;
            pending += m;
        }
        int from = -1;
        tn_in in = receive(w, &from, TN_DONE);
        size_t got = take_done(r, from, &in, out, n, done, ctx);
        if (got > pending)
            malformed(w, from);
        pending -= got;
        w->rank[from].busy = false;
    }
}

/* Sends the job in w->out to the next worker in turn and reads its answer
 * (into out[0..n)); *k: the worker. */
static tn_in one_job(tn_session *r, ms_measurement *out, size_t n, int *k)
{
    tn_workers *w = r->workers;
    *k = w->next;
    w->next = w->next + 1 < w->size ? w->next + 1 : 1;
    send_out(w, *k);
    tn_in in = receive(w, k, TN_DONE);
    if (take_done(r, *k, &in, out, n, NULL, NULL) != n)
        malformed(w, *k);
    return in;
}

void tn_final(tn_session *r, const sp_problem *p, const sp_candidate *c, size_t n,
              ms_measurement *out, const char **node)
{
    tn_workers *w = r->workers;
    int k;
    *node = r->node;
    if (!w) {
        r->backend->final(r->backend, ls_target(r->script), p, c, n, out);
        return;
    }
    job_start(w, TN_FINAL, p, n);
    for (size_t i = 0; i < n; i++)
        job_cand(w, i, &c[i]);
    one_job(r, out, n, &k);
    *node = w->rank[k].node;
}

void tn_verify(tn_session *r, const sp_problem *p, const sp_candidate *c, ms_measurement *m,
               const char **node)
{
    tn_workers *w = r->workers;
    int k;
    *node = r->node;
    if (!w) {
        r->backend->verify(r->backend, ls_target(r->script), p, c, m);
        return;
    }
    job_start(w, TN_VERIFY, p, 1);
    job_cand(w, 0, c);
    tn_put_measurement(&w->out, m);
    one_job(r, m, 1, &k);
    *node = w->rank[k].node;
}

bool tn_peak(tn_session *r, ms_peak *out)
{
    tn_workers *w = r->workers;
    if (!w)
        return r->backend->peak(r->backend, out);
    static const sp_problem none;
    unsigned char ok;
    int k;
    job_start(w, TN_PEAK, &none, 0);
    tn_in in = one_job(r, NULL, 0, &k);
    if (!tn_get(&in, &ok, 1) || ok > 1 || !tn_get(&in, out, sizeof *out))
        malformed(w, k);
    out->text[sizeof out->text - 1] = '\0';
    return ok;
}
