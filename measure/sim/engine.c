/* engine.c — the cycle-level NPU simulator's engine: per-core scalar issue, in-order
 * pipe queues, flags and barriers, GM bandwidth shared between cores, in time order. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void sim_where(char *buf, size_t n, const sim *s, int core, uint32_t idx)
{
    const cg_instr *in = &s->k->cores[core].code[idx];
    if (in->line)
        snprintf(buf, n, "core %d #%u (line %u)", core, idx, in->line);
    else
        snprintf(buf, n, "core %d #%u", core, idx);
}

void sim_fail(sim *s, ms_status st, const char *fmt, ...)
{
    if (s->stop)
        return;
    s->stop = true;
    s->r->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->r->error, sizeof s->r->error, fmt, ap);
    va_end(ap);
}

void sim_fail_at(sim *s, int core, uint32_t idx, const char *fmt, ...)
{
    if (s->stop)
        return;
    char where[64], msg[sizeof s->r->error];
    sim_where(where, sizeof where, s, core, idx);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sim_fail(s, MS_ILLEGAL, "%s: %s", where, msg);
}

/* The component (S or a pipe) with the earliest next event, lowest index on
 * ties; a balanced tree of comparisons, so the chain of dependencies is short. */
static inline int earliest(const double *x)
{
    int i01 = x[1] < x[0] ? 1 : 0, i23 = x[3] < x[2] ? 3 : 2, i45 = x[5] < x[4] ? 5 : 4;
    int ia = x[i23] < x[i01] ? i23 : i01, ib = x[6] < x[i45] ? 6 : i45;
    return x[ib] < x[ia] ? ib : ia;
}

/* The earliest next event among the pipes (not S). */
static inline double pipes_min(const double *x)
{
    double a = x[1] < x[2] ? x[1] : x[2], b = x[3] < x[4] ? x[3] : x[4];
    double c = x[5] < x[6] ? x[5] : x[6];
    a = a < b ? a : b;
    return a < c ? a : c;
}

/* ---- scheduling: each core's earliest next event, and the earliest core ---- */

static void tree_update(sim *s, int ci)
{
    if (s->ncores == 1)
        return; /* run() scans the only core directly */
    const double *nx = s->cores[ci].next;
    s->cmin[ci] = nx[earliest(nx)];
    int *tree = s->tree;
    for (int pos = (s->tsize + ci) >> 1; pos >= 1; pos >>= 1) {
        int a = tree[2 * pos], b = tree[2 * pos + 1], old = tree[pos];
        tree[pos] = a < 0 ? b : b < 0 ? a : s->cmin[b] < s->cmin[a] ? b : a;
        if (tree[pos] == old && old != ci)
            break; /* the same other core still wins here: nothing above changes */
    }
}

/* The earliest next event of the cores other than ci (the tree's root when
 * ci is stepped): the best of the sibling subtrees on ci's path to the root. */
static double others_min(const sim *s, int ci)
{
    double m = SIM_INF;
    for (int pos = s->tsize + ci; pos > 1; pos >>= 1) {
        int sib = s->tree[pos ^ 1];
        if (sib >= 0 && s->cmin[sib] < m)
            m = s->cmin[sib];
    }
    return m;
}

static inline void add_cycles(sim *s, double t)
{
    if (t > s->r->cycles)
        s->r->cycles = t;
}

static void span(sim *s, sim_core *c, int pipe, double start, double end, uint32_t idx)
{
    if (s->trace && !sim_trace_span(s, c->index, pipe, start, end, idx)) {
        s->oom = true;
        s->stop = true;
    }
}

/* ---- GM sharing: a fluid model, each transfer at min(its path, G / n) ---- */

static void gm_rebalance(sim *s, double now)
{
    double share = s->t->gm_bandwidth / s->ngm;
    for (int i = 0; i < s->ngm; i++) {
        sim_core *c = &s->cores[s->gm[i].core];
        int p = s->gm[i].pipe;
        sim_pipe *pp = &c->pipe[p];
        double bw = s->t->path[pp->op.path].bandwidth, rate = bw < share ? bw : share;
        if (rate == pp->rate)
            continue;
        if (pp->rate > 0) {
            pp->remaining -= pp->rate * (now - pp->t_last);
            if (pp->remaining < 0)
                pp->remaining = 0;
        }
        pp->t_last = now;
        pp->rate = rate;
        c->next[p] = now + pp->remaining / rate;
        tree_update(s, c->index);
    }
}

static void gm_join(sim *s, sim_core *c, int p, double now)
{
    sim_pipe *pp = &c->pipe[p];
    pp->phase = PH_GM;
    pp->remaining = pp->op.bytes;
    pp->rate = 0;
    pp->t_last = now;
    pp->gm_slot = s->ngm;
    s->gm[s->ngm].core = c->index;
    s->gm[s->ngm].pipe = p;
    s->ngm++;
    gm_rebalance(s, now);
}

static void gm_leave(sim *s, sim_core *c, int p, double now)
{
    int slot = c->pipe[p].gm_slot;
    s->ngm--;
    if (slot != s->ngm) {
        s->gm[slot] = s->gm[s->ngm];
        s->cores[s->gm[slot].core].pipe[s->gm[slot].pipe].gm_slot = slot;
    }
    if (s->ngm)
        gm_rebalance(s, now);
}

/* ---- flags ---- */

static void flag_set(sim *s, sim_core *c, int src, uint32_t flag, int dst, double now,
                     uint32_t idx)
{
    sim_flag *f = &c->flags[flag];
    if (f->set) {
        const cg_instr *in = &c->code->code[idx];
        sim_fail_at(s, c->index, idx, "set_flag %s->%s event %d sets a flag that is already set",
                    cg_pipe_name(in->src), cg_pipe_name(in->dst), in->event);
        return;
    }
    f->set = 1;
    if (s->functional)
        memcpy(c->flagvc[flag], c->vc[src], sizeof c->vc[src]);
    if (dst == CG_S) {
        if (c->block == BLK_WAIT && c->block_arg == (int)flag) {
            s->r->stall[CG_S] += now - c->s_stall_from;
            c->block = BLK_NONE;
            c->next[CG_S] = now;
        }
    } else if (c->pipe[dst].wait_flag == (int64_t)flag) {
        sim_pipe *dp = &c->pipe[dst];
        s->r->stall[dst] += now - dp->stall_from;
        dp->wait_flag = -1;
        c->next[dst] = now;
    }
}

/* ---- the pipes ---- */

static void pipe_finish(sim *s, sim_core *c, int p, double now)
{
    sim_pipe *pp = &c->pipe[p];
    uint32_t i = (uint32_t)pp->cur;
    const sim_op *o = &pp->op;
    s->r->busy[p] += now - pp->start;
    add_cycles(s, now);
    pp->finished++;
    pp->cur = -1;
    span(s, c, p, pp->start, now, i);
    if (o->op == CG_SET_FLAG)
        flag_set(s, c, p, o->flag, o->path, now, i);
    if (c->block == BLK_BARRIER && c->barrier == p && pp->finished == pp->issued) {
        c->block = BLK_NONE;
        c->next[CG_S] = now;
    }
}

static void pipe_step(sim *s, sim_core *c, int p, double now)
{
    sim_pipe *pp = &c->pipe[p];
    for (;;) {
        if (pp->cur >= 0) {
            if (pp->phase == PH_LAT) {
                gm_join(s, c, p, now);
                return;
            }
            if (pp->phase == PH_GM)
                gm_leave(s, c, p, now);
            pipe_finish(s, c, p, now);
            if (s->stop)
                return;
        }
        if (pp->started == pp->issued) {
            c->next[p] = SIM_INF;
            return;
        }
        int slot = (int)(pp->started % SIM_QDEPTH);
        uint32_t i = pp->qidx[slot];
        const sim_op *o = &pp->q[slot];
        if (o->op == CG_WAIT_FLAG) {
            sim_flag *f = &c->flags[o->flag];
            if (!f->set) {
                pp->wait_flag = o->flag;
                pp->stall_from = now;
                c->next[p] = SIM_INF;
                return;
            }
            f->set = 0;
        }
        pp->started++;
        if (c->block == BLK_QUEUE && c->block_arg == p) {
            c->block = BLK_NONE;
            c->next[CG_S] = now;
        }
        pp->cur = i;
        pp->op = *o;
        o = &pp->op;
        pp->start = now;
        if (s->functional) {
            sim_data_exec(s, c, p, i, slot, o);
            if (s->stop)
                return;
        }
        if (o->op == CG_COPY)
            s->r->bytes[o->path] += o->bytes;
        if (o->gm) {
            if (o->dur > 0) {
                pp->phase = PH_LAT;
                c->next[p] = now + o->dur;
            } else {
                gm_join(s, c, p, now);
            }
            return;
        }
        pp->phase = PH_FIXED;
        double end = now + o->dur;
        /* Run on to the end of this instruction when nothing else (of this
         * core or another) happens before: the next step would be this one. */
        c->next[p] = SIM_INF;
        if (!(end < c->next[earliest(c->next)]) ||
            (s->ncores > 1 && !(end < others_min(s, c->index)))) {
            c->next[p] = end;
            return;
        }
        now = end;
    }
}

/* ---- the scalar unit: issue in program order, one instruction a cycle ---- */

static void s_step(sim *s, sim_core *c, double now)
{
    if (c->pending_set >= 0) {
        uint32_t flag = (uint32_t)c->pending_set;
        c->pending_set = -1;
        flag_set(s, c, CG_S, flag, c->pending_dst, now, c->pending_idx);
        if (s->stop)
            return;
    }
    if (c->barrier >= 0) {
        sim_pipe *bp = &c->pipe[c->barrier];
        if (bp->finished < bp->issued) {
            c->block = BLK_BARRIER;
            c->next[CG_S] = SIM_INF;
            return;
        }
        if (s->functional)
            sim_data_barrier(s, c, c->barrier);
        span(s, c, CG_S, c->barrier_from, now, c->barrier_idx);
        add_cycles(s, now);
        c->barrier = -1;
    }
    const uint32_t n = (uint32_t)c->code->n;
    /* Keep issuing while nothing else happens first: no pipe of this core (S
     * wins ties with them) and no other core (strictly). */
    double limit = pipes_min(c->next), others = s->ncores > 1 ? others_min(s, c->index) : SIM_INF;
    uint32_t done = 0;
    double next = SIM_INF;
    while (c->pc < n) {
        uint32_t i = c->pc;
        sim_op op;
        if (!sim_decode(s, c, i, &op))
            return;
        const sim_op *o = &op;
        int p = o->pipe;
        if (p == CG_S) {
            if (o->op == CG_WAIT_FLAG) {
                sim_flag *f = &c->flags[o->flag];
                if (!f->set) {
                    c->block = BLK_WAIT;
                    c->block_arg = (int)o->flag;
                    c->s_stall_from = now;
                    break;
                }
                f->set = 0;
            } else if (o->op == CG_SET_FLAG) {
                c->pending_set = o->flag;
                c->pending_idx = i;
                c->pending_dst = o->path;
            } else if (o->op == CG_BARRIER) {
                c->barrier = o->path == CG_S ? -1 : o->path;
                c->barrier_idx = i;
                c->barrier_from = now;
            }
            if (s->functional) {
                sim_data_exec(s, c, CG_S, i, -1, o);
                if (s->stop)
                    return;
            }
            if (o->op != CG_BARRIER || c->barrier < 0)
                span(s, c, CG_S, now, now + 1, i);
        } else {
            sim_pipe *pp = &c->pipe[p];
            if (pp->issued - pp->started == SIM_QDEPTH) {
                c->block = BLK_QUEUE;
                c->block_arg = p;
                break;
            }
            int slot = (int)(pp->issued % SIM_QDEPTH);
            pp->q[slot] = op;
            pp->qidx[slot] = i;
            if (s->functional)
                memcpy(pp->snap[slot], c->vc[CG_S], sizeof c->vc[CG_S]);
            if (pp->cur < 0 && pp->started == pp->issued) {
                c->next[p] = now;
                limit = now;
            }
            pp->issued++;
        }
        c->pc++;
        done++;
        now += 1;
        if (c->pending_set >= 0 || c->barrier >= 0 || now > limit || now >= others || c->pc == n) {
            next = now; /* the next step: a pending set or barrier, or the next issue */
            break;
        }
    }
    c->next[CG_S] = next;
    s->r->instructions += done;
    s->r->busy[CG_S] += done;
    if (done)
        add_cycles(s, now);
}

/* ---- a run ---- */

static void report_deadlock(sim *s)
{
    for (int ci = 0; ci < s->ncores; ci++) {
        sim_core *c = &s->cores[ci];
        int64_t best = -1;
        if (c->block == BLK_WAIT)
            best = c->pc;
        for (int p = 1; p < CG_NPIPE; p++) {
            sim_pipe *pp = &c->pipe[p];
            uint32_t head = pp->qidx[pp->started % SIM_QDEPTH];
            if (pp->wait_flag >= 0 && (best < 0 || head < best))
                best = head;
        }
        if (best >= 0) {
            const cg_instr *in = &c->code->code[best];
            sim_fail_at(s, ci, (uint32_t)best,
                        "wait_flag %s->%s event %d waits for a flag that is never set "
                        "(deadlock: every pipe is blocked)",
                        cg_pipe_name(in->src), cg_pipe_name(in->dst), in->event);
            return;
        }
    }
    for (int ci = 0; ci < s->ncores; ci++)
        if (s->cores[ci].pc < s->cores[ci].code->n) {
            sim_fail_at(s, ci, s->cores[ci].pc, "deadlock: the core cannot issue this instruction");
            return;
        }
}

static void run(sim *s)
{
    for (int ci = 0; ci < s->ncores; ci++) {
        sim_core *c = &s->cores[ci];
        c->next[CG_S] = 0;
        for (int p = 1; p < CG_NPIPE; p++)
            c->next[p] = SIM_INF;
        tree_update(s, ci);
    }
    if (s->ncores == 1) {
        sim_core *c = &s->cores[0];
        while (!s->stop) {
            int p = earliest(c->next);
            double now = c->next[p];
            if (now == SIM_INF)
                break;
            if (p == CG_S)
                s_step(s, c, now);
            else
                pipe_step(s, c, p, now);
        }
    }
    while (!s->stop && s->ncores > 1) {
        int ci = s->tree[1];
        double now = s->cmin[ci];
        if (now == SIM_INF)
            break;
        sim_core *c = &s->cores[ci];
        int p = earliest(c->next);
        if (p == CG_S)
            s_step(s, c, now);
        else
            pipe_step(s, c, p, now);
        tree_update(s, ci);
    }
    if (s->stop)
        return;
    for (int ci = 0; ci < s->ncores; ci++) {
        sim_core *c = &s->cores[ci];
        bool done = c->pc == c->code->n && c->barrier < 0 && c->pending_set < 0;
        for (int p = 1; p < CG_NPIPE; p++)
            done = done && c->pipe[p].finished == c->pipe[p].issued;
        if (!done) {
            report_deadlock(s);
            return;
        }
    }
}

static void sim_free(sim *s)
{
    for (int ci = 0; ci < s->ncores; ci++) {
        free(s->cores[ci].flags);
        free(s->cores[ci].reg);
    }
    sim_data_free(s);
    free(s->cores);
    free(s->gm);
    free(s->cmin);
    free(s->tree);
}

bool sim_run(const sp_target *t, const cg_kernel *k, const sim_options *o, sim_result *r)
{
    static const sim_options defaults = {0};
    if (!o)
        o = &defaults;
    memset(r, 0, sizeof *r);
    r->status = MS_OK;
    sim s = {.t = t, .k = k, .r = r, .functional = o->functional, .seed = o->seed,
             .ncores = k->ncores};
    /* event ids are 8-bit: more than 256 per pipe pair are never named */
    s.events = t->events < 1 ? 1 : t->events > 256 ? 256 : t->events;
    s.nflags = CG_NPIPE * CG_NPIPE * s.events;
    int nc = s.ncores > 0 ? s.ncores : 1;
    s.tsize = 1;
    while (s.tsize < nc)
        s.tsize *= 2;
    s.cores = calloc((size_t)nc, sizeof *s.cores);
    s.gm = calloc((size_t)nc * CG_NPIPE, sizeof *s.gm);
    s.cmin = calloc((size_t)nc, sizeof *s.cmin);
    s.tree = malloc(2 * (size_t)s.tsize * sizeof *s.tree);
    bool ok = s.cores && s.gm && s.cmin && s.tree;
    if (ok) {
        for (int i = 0; i < 2 * s.tsize; i++)
            s.tree[i] = -1;
        for (int ci = 0; ci < s.ncores; ci++) {
            s.tree[s.tsize + ci] = ci;
            s.cores[ci].index = ci;
            s.cores[ci].code = &k->cores[ci];
            s.cores[ci].pending_set = -1;
            s.cores[ci].barrier = -1;
            for (int p = 0; p < CG_NPIPE; p++) {
                s.cores[ci].pipe[p].cur = -1;
                s.cores[ci].pipe[p].wait_flag = -1;
            }
            s.cores[ci].flags = calloc((size_t)s.nflags, sizeof *s.cores[ci].flags);
            ok = ok && s.cores[ci].flags;
        }
        if (ok)
            ok = sim_check(&s);
    }
    if (ok && !s.stop && o->trace) {
        ok = sim_trace_init(&s);
        r->trace = s.trace;
    }
    if (ok && !s.stop && s.functional)
        ok = sim_data_init(&s);
    if (ok && !s.stop) {
        run(&s);
        ok = !s.oom;
    }
    if (ok && !s.stop && s.functional) {
        sim_data_check(&s);
        ok = !s.oom;
        if (ok && o->keep_c && (r->status == MS_OK || r->status == MS_WRONG)) {
            const cg_buf *c = &k->tensors[2];
            r->c = s.gmem[2];
            r->c_bytes = (size_t)c->rows * (size_t)c->cols * (size_t)cg_elem_size(c->elem);
            s.gmem[2] = NULL;
        }
    }
    sim_free(&s);
    if (!ok) {
        sim_result_free(r);
        r->status = MS_CRASH;
        snprintf(r->error, sizeof r->error, "out of memory");
    }
    return ok;
}

void sim_result_free(sim_result *r)
{
    if (!r)
        return;
    sim_trace_free(r->trace);
    r->trace = NULL;
    free(r->c);
    r->c = NULL;
}
