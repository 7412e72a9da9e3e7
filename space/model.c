/* model.c — the analytical model of NPU targets: load volume Sigma (of the three
 * stationary schedules, generalised to tails, splits and batch), bytes per path,
 * and an estimated cycle count; sp_model asks the target's kind. */
#include <stdbool.h>
#include <string.h>

#include "internal.h"

/* Elements loaded into L0A (*a) and L0B (*b) by strategy s over an M x N x K
 * (padded) problem cut into TM x TN tiles on a gm x gn core grid. Each core
 * works its own sub-block; IS re-loads its A rows once per core column, WS
 * its B columns once per core row. Exact for any tails. */
static void volumes(int s, double M, double N, double K, double TM, double TN, int gm, int gn,
                    double *a, double *b)
{
    switch (s) {
    case SP_IS:
        *a = K * M * gn, *b = K * N * TM;
        break;
    case SP_WS:
        *a = K * M * TN, *b = K * N * gm;
        break;
    default: /* OS: each C-tile streams its A row-panel and B column-panel */
        *a = K * M * TN, *b = K * N * TM;
        break;
    }
}

/* Accumulates the time of a sequence of kernel steps. A step loads an A
 * and/or B tile (GM->L1 on MTE2, L1->L0 on MTE1), runs one mmad (M) and
 * may drain its C-tile (FIX to UB, MTE3 to GM from two UB pieces, so MTE3
 * overlaps). The steady-state cost of a step is the longest dependency
 * cycle of the generated code (codegen/generate.c): single-buffered, an
 * operand's next GM->L1 load waits for MTE1 to take the current one
 * (t2x + t1x), and MTE1's next load waits for the mmad to release L0
 * (t1 + mmad + drain); double-buffered, only the busiest pipe remains. */
typedef struct {
    double inv2, lat2, inva, lata, invb, latb, invf, latf, inv3, lat3;
    double in, acc, inv_macs;
    int db;
    int64_t piece, nu; /* rows of C per drain piece; UB pieces in flight */
    int64_t quiet;     /* steps of a C-tile before the one that drains it */
    double body, t3sum, t3last;
    double fill, after;             /* unoverlapped before the first step, after the last */
    double first_alone, last_alone; /* what the first, the last step does not overlap */
    double last_tail;               /* the last step after its loads */
    double quiet_cost, quiet_bytes; /* a quiet step's time and GM bytes */
    double start3;                  /* when MTE3 first starts */
    double loads, stores;           /* GM bytes of the walk */
    double first_loads, last_store; /* of the first C-tile's loads, of the last drain */
    int filled, led;
} timer;

/* A C-tile of mi x ni drained as the generator does: L0C -> UB (FIX) and
 * UB -> GM (MTE3) in pieces of t->piece rows through t->nu UB buffers,
 * each copy paying its latency. *tf is FIX's time, the tile's hold on
 * L0C; *t3 MTE3's, with the waits for FIX: the FIX of a piece needs the
 * UB buffer the MTE3 copy nu pieces before frees, so with two buffers MTE3
 * idles when a piece's FIX takes longer than the MTE3 copy before it (the
 * drain's first piece follows the previous drain's last), and with one
 * every piece waits for its FIX. *tf0 is the FIX of the first piece. */
static void drain(const timer *t, int64_t mi, int64_t ni, double *tf, double *t3, double *tf0)
{
    double row = (double)ni * t->acc;
    int64_t full = mi / t->piece, rest = mi % t->piece;
    double whole = (double)t->piece * row, part = (double)rest * row;
    double ff = whole * t->invf + t->latf, fr = part * t->invf + t->latf; /* FIX */
    double mf = whole * t->inv3 + t->lat3, mr = part * t->inv3 + t->lat3; /* MTE3 */
    *tf = (double)full * ff + (rest ? fr : 0);
    *t3 = (double)full * mf + (rest ? mr : 0);
    *tf0 = full ? ff : fr;
    if (t->nu == 1) {
        *t3 += *tf;
        return;
    }
    double before = rest ? mr : mf; /* the previous drain's last piece */
    *t3 += (*tf0 > before ? *tf0 - before : 0) +
           (full > 1 && ff > mf ? (double)(full - 1) * (ff - mf) : 0) +
           (full && rest && fr > mf ? fr - mf : 0);
}

static inline double max3(double a, double b, double c)
{
    double m = a > b ? a : b;
    return m > c ? m : c;
}

static inline void step(timer *t, int64_t count, int64_t mi, int64_t ni, int64_t ki, int la,
                        int lb, int store)
{
    if (count <= 0)
        return;
    double a = la ? (double)(mi * ki) * t->in : 0, b = lb ? (double)(ki * ni) * t->in : 0;
    double t2a = la * (a * t->inv2 + t->lat2), t2b = lb * (b * t->inv2 + t->lat2);
    double t1a = la * (a * t->inva + t->lata), t1b = lb * (b * t->invb + t->latb);
    double tc = (double)(mi * ni) * (double)ki * t->inv_macs;
    double tf = 0, t3 = 0, tf0 = 0;
    if (store)
        drain(t, mi, ni, &tf, &t3, &tf0);
    double t2 = t2a + t2b, t1 = t1a + t1b, cost;
    if (t->db)
        cost = max3(t2, t1, tc + tf);
    else
        cost = max3(t2, t1 + tc + tf, t1a + t2a > t1b + t2b ? t1a + t2a : t1b + t2b);
    /* What a step does not overlap with its neighbours: before the loads
     * when they are not the bottleneck (the first step's: pipeline fill),
     * after them when they are (the last step's: its compute and FIX). */
    double alone = t2 + t1 + tc + tf - cost;
    if (!t->filled) {
        t->fill = cost > t2 ? alone : 0;
        t->first_alone = alone;
        t->filled = 1;
    }
    t->after = cost > t2 ? 0 : alone;
    t->last_alone = alone;
    t->last_tail = t1 + tc + tf;
    /* MTE3 first starts once the first C-tile's quiet steps have passed,
     * its last step has loaded and computed (what the steps before did not
     * overlap of it) and the FIX of its first piece is done */
    if (!store && !t->led && !t->quiet_cost)
        t->quiet_cost = cost, t->quiet_bytes = a + b;
    if (store && !t->led) {
        t->start3 = (double)t->quiet * t->quiet_cost + t2 + t1 + tc + tf0;
        t->first_loads = (double)t->quiet * t->quiet_bytes + a + b;
        t->led = 1;
    }
    t->loads += (double)count * (a + b);
    if (store) {
        t->stores += (double)count * (double)(mi * ni) * t->acc;
        t->last_store = (double)(mi * ni) * t->acc;
    }
    t->body += (double)count * cost;
    t->t3sum += (double)count * t3;
    if (store)
        t->t3last = t3;
}

/* Walks the loop nest of strategy s over one core's block, cut into the
 * tiles TM x TN x TK. */
static void walk(timer *t, int s, sp_tiles TM, sp_tiles TN, sp_tiles TK, int64_t Kp, int64_t k)
{
    if (s == SP_OS) { /* for C-tile: for k-step: load A, B; mmad; drain at the end */
        int64_t klast = TK.count[1] ? TK.size[1] : k;
        int64_t quiet = TK.count[0] - (TK.count[1] ? 0 : 1);
        t->quiet = quiet;
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                int64_t tiles = TM.count[i] * TN.count[j];
                if (!tiles)
                    continue;
                step(t, tiles * quiet, TM.size[i], TN.size[j], k, 1, 1, 0);
                step(t, tiles, TM.size[i], TN.size[j], klast, 1, 1, 1);
            }
    } else if (s == SP_IS) { /* for A-tile (k = K): for n-block: load B; mmad; drain */
        int jf = TN.count[0] ? 0 : 1;
        for (int i = 0; i < 2; i++) {
            int64_t a = TM.count[i];
            if (!a)
                continue;
            step(t, a, TM.size[i], TN.size[jf], Kp, 1, 1, 1);
            step(t, a * (TN.count[0] - (jf == 0)), TM.size[i], TN.size[0], Kp, 0, 1, 1);
            step(t, a * (TN.count[1] - (jf == 1)), TM.size[i], TN.size[1], Kp, 0, 1, 1);
        }
    } else { /* WS: for B-tile (k = K): for m-block: load A; mmad; drain */
        int jf = TM.count[0] ? 0 : 1;
        for (int j = 0; j < 2; j++) {
            int64_t b = TN.count[j];
            if (!b)
                continue;
            step(t, b, TM.size[jf], TN.size[j], Kp, 1, 1, 1);
            step(t, b * (TM.count[0] - (jf == 0)), TM.size[0], TN.size[j], Kp, 1, 0, 1);
            step(t, b * (TM.count[1] - (jf == 1)), TM.size[1], TN.size[j], Kp, 1, 0, 1);
        }
    }
}

void sp_plan_init(sp_plan *pl, const sp_ctx *x, int64_t m, int64_t n, int64_t k)
{
    pl->m = sp_tiles_of(x->Mp, m);
    pl->n = sp_tiles_of(x->Np, n);
    pl->k = sp_tiles_of(x->Kp, k);
}

/* The tiles of the busiest core along one axis: ceil(T/g) whole tiles, or
 * the whole axis (tail included) when it is not split. */
static inline sp_tiles busiest(sp_tiles all, int g)
{
    if (g == 1)
        return all;
    int64_t T = all.count[0] + all.count[1];
    sp_tiles r = {{all.size[0], 0}, {(T + g - 1) / g, 0}};
    return r;
}

static inline double span(sp_tiles t) /* elements covered */
{
    return (double)(t.size[0] * t.count[0] + t.size[1] * t.count[1]);
}

/* The cores of one axis alike in their tiles: n cores with tiles t. */
typedef struct {
    sp_tiles t;
    int n;
} part;

/* How g cores share the tiles of one axis, as the generator cuts it
 * (codegen/generate.c): the first T % g take one tile more, the last holds
 * the tail. The busiest part comes first. */
static int parts(sp_tiles all, int g, part out[3])
{
    if (g == 1) {
        out[0] = (part){all, 1};
        return 1;
    }
    int64_t T = all.count[0] + all.count[1], q = T / g, e = T % g, s = all.size[0];
    int k = 0;
    if (e)
        out[k++] = (part){{{s, 0}, {q + 1, 0}}, (int)e};
    if (g - e > 1)
        out[k++] = (part){{{s, 0}, {q, 0}}, (int)(g - e - 1)};
    sp_tiles last = {{s, all.size[1]}, {q - all.count[1], all.count[1]}};
    out[k++] = (part){last, 1};
    return k;
}

/* GM bytes of a core working tiles tm x tn: its loads and its stores; and
 * in *wait the latency of its GM copies (TK k-steps, drains of C-tiles in
 * pieces of `piece` rows), during which it moves nothing. */
static double core_bytes(const sp_ctx *x, int s, sp_tiles tm, sp_tiles tn, double TK,
                         int64_t piece, double *wait)
{
    double a, b, M = span(tm), N = span(tn);
    double Tm = (double)(tm.count[0] + tm.count[1]), Tn = (double)(tn.count[0] + tn.count[1]);
    volumes(s, M, N, (double)x->Kp, Tm, Tn, 1, 1, &a, &b);
    double loads = s == SP_OS ? 2 * Tm * Tn * TK : Tm * Tn + (s == SP_IS ? Tm : Tn);
    double pieces = Tm * Tn * (double)sp_ceil_div(tm.size[0], piece);
    *wait = loads * x->lat[SP_GM_L1] + pieces * x->lat[SP_UB_GM];
    return (a + b) * (double)x->in + M * N * (double)x->acc;
}

/* Cycles per GM byte of the busiest core on the paths of inv cycles per
 * byte (GM->L1, UB->GM), out[path][s - 1] when each core has s transfers
 * in flight (its loads alone, or its loads and its stores at once). The
 * simulator shares the chip's GM bandwidth G fairly between the transfers
 * in flight (not those waiting out their latency), each at most its path's
 * bandwidth. Cores whose tiles are the busiest's size run its code in step:
 * they stream when it does, at its pace, and stop when the busiest has
 * moved as many bytes as they have; cores with a tail tile get out of step
 * and stream for the share of their time they move data rather than wait.
 * So over the busiest core's bytes the cores streaming fall from all of
 * them to the busiest alone, and each stretch of its bytes costs what they
 * leave it. */
static void gm_share(const sp_ctx *x, const sp_config *c, const sp_plan *pl, int gm, int gn,
                     int64_t piece, const double inv[2], double out[2][2])
{
    part pm[3], pn[3];
    int km = parts(pl->m, gm, pm), kn = parts(pl->n, gn, pn), k = 0;
    struct {
        double bytes, duty;
        int n;
    } core[9], tmp;
    const double G = x->t->gm_bandwidth, TK = (double)(pl->k.count[0] + pl->k.count[1]);
    const double crowded = inv[0] > gm * gn / G ? inv[0] : gm * gn / G;
    for (int i = 0; i < km; i++)
        for (int j = 0; j < kn; j++, k++) { /* by bytes, most first */
            double wait;
            core[k].bytes = core_bytes(x, c->strategy, pm[i].t, pn[j].t, TK, piece, &wait);
            /* tiles of the busiest's size keep a core in step with it;
             * a tail tile's shorter copies put it out of step */
            bool tail = (gm > 1 && pm[i].t.count[1]) || (gn > 1 && pn[j].t.count[1]);
            core[k].duty = tail ? core[k].bytes * crowded / (core[k].bytes * crowded + wait) : 1;
            core[k].n = pm[i].n * pn[j].n;
            for (int at = k; at > 0 && core[at - 1].bytes < core[at].bytes; at--)
                tmp = core[at], core[at] = core[at - 1], core[at - 1] = tmp;
        }
    const double most = core[0].bytes;
    memset(out, 0, 2 * sizeof *out);
    double streaming = 0;
    for (int i = 0; i < k; i++) {
        /* cores in step with the busiest stream when they do; the others
         * only for their share of the time */
        streaming += core[i].n * core[i].duty;
        double stretch = (core[i].bytes - (i + 1 < k ? core[i + 1].bytes : 0)) / most;
        for (int p = 0; p < 2; p++)
            for (int s = 1; s <= 2; s++) {
                double each = s * streaming / G;
                out[p][s - 1] += stretch * (inv[p] > each ? inv[p] : each);
            }
    }
}

/* The busiest core's cycles once t has walked its loop nest: the steps, the
 * pipeline fill and the last MTE3 drain; never less than MTE3's own busy
 * time from when it first starts. */
static double finish(const timer *t, double batch)
{
    /* loads that bind the first steps but not the last leave the lesser
     * of the two unoverlapped */
    double least = t->first_alone < t->last_alone ? t->first_alone : t->last_alone;
    double lag = t->fill + t->after > least ? t->fill + t->after : least;
    double cycles = t->body * batch + lag + t->t3last;
    double mte3 = t->start3 + t->t3sum * batch;
    return mte3 > cycles ? mte3 : cycles;
}

void sp_model_plan(const sp_ctx *x, const sp_config *c, const sp_plan *pl, int gm, int gn,
                   sp_figures *f)
{
    const sp_target *tg = x->t;
    const double batch = (double)x->p->batch, Mp = (double)x->Mp, Np = (double)x->Np,
                 Kp = (double)x->Kp;
    double TM = (double)(pl->m.count[0] + pl->m.count[1]);
    double TN = (double)(pl->n.count[0] + pl->n.count[1]);
    double a, b;

    volumes(c->strategy, Mp, Np, Kp, TM, TN, gm, gn, &a, &b);
    f->load_elems = (a + b) * batch;
    f->store_elems = Mp * Np * batch;
    f->bytes[SP_GM_L1] = f->load_elems * (double)x->in;
    f->bytes[SP_L1_L0A] = a * batch * (double)x->in;
    f->bytes[SP_L1_L0B] = b * batch * (double)x->in;
    f->bytes[SP_L0C_UB] = f->store_elems * (double)x->acc;
    f->bytes[SP_UB_GM] = f->store_elems * (double)x->acc;

    sp_tiles hm = busiest(pl->m, gm), hn = busiest(pl->n, gn);
    volumes(c->strategy, span(hm), span(hn), Kp, (double)(hm.count[0] + hm.count[1]),
            (double)(hn.count[0] + hn.count[1]), 1, 1, &a, &b);
    f->core_load_elems = (a + b) * batch;

    /* The generator's drain pieces: whole fractal rows, two in flight when
     * two fit in UB. Cores that stream at once share the chip's GM. */
    int64_t fit = tg->buf_bytes[SP_UB] / ((c->n > 0 ? c->n : 1) * x->acc) / x->m0 * x->m0;
    int64_t nu = fit >= 2 * x->m0 ? 2 : 1;
    fit = nu == 2 ? fit / 2 / x->m0 * x->m0 : fit;
    int64_t piece = fit < x->m0 ? x->m0 : fit < c->m ? fit : c->m;
    double share[2][2];
    gm_share(x, c, pl, gm, gn, piece,
             (const double[2]){x->inv_bw[SP_GM_L1], x->inv_bw[SP_UB_GM]}, share);
    timer t = {
        .inv2 = share[0][0], .lat2 = x->lat[SP_GM_L1],
        .inva = x->inv_bw[SP_L1_L0A], .lata = x->lat[SP_L1_L0A],
        .invb = x->inv_bw[SP_L1_L0B], .latb = x->lat[SP_L1_L0B],
        .invf = x->inv_bw[SP_L0C_UB], .latf = x->lat[SP_L0C_UB],
        .inv3 = share[1][0], .lat3 = x->lat[SP_UB_GM],
        .in = (double)x->in, .acc = (double)x->acc, .inv_macs = x->inv_macs,
        .db = c->double_buffer ? 1 : 0,
    };
    t.nu = nu;
    t.piece = piece;
    timer fresh = t;
    walk(&t, c->strategy, hm, hn, pl->k, x->Kp, c->k);
    double cycles = finish(&t, batch);
    /* from MTE3's first start to the end of the last load */
    double window = cycles - t.t3last - t.last_tail - t.start3;
    double lw = (t.loads * batch - t.first_loads) * share[0][0];
    double sw = (t.stores * batch - t.last_store) * share[1][0];
    if ((share[0][1] > share[0][0] || share[1][1] > share[1][0]) && window > 0 && lw > 0 &&
        sw > 0) {
        /* A core's loads and stores take two shares when they stream at
         * once, which they can from MTE3's start to the last load: the
         * loads after the first C-tile's with the stores before the last.
         * Within that window they meet as often as chance has it, never
         * longer than the shorter of them; each path pays the second share
         * for the part of its streaming the other overlaps. */
        double both = lw * sw / window, least = lw < sw ? lw : sw;
        least = least < window ? least : window;
        both = both < least ? both : least;
        double s3 = both / (t.loads * batch * share[0][0]);
        double l2 = both / (t.stores * batch * share[1][0]);
        t = fresh;
        t.inv2 = (1 - s3) * share[0][0] + s3 * share[0][1];
        t.inv3 = (1 - l2) * share[1][0] + l2 * share[1][1];
        walk(&t, c->strategy, hm, hn, pl->k, x->Kp, c->k);
        cycles = finish(&t, batch);
    }
    f->est_cycles = cycles;
    f->buffer_use = (double)(sp_need_l0a(x, c->m, c->k, 0) + sp_need_l0b(x, c->k, c->n, 0) +
                             sp_need_l0c(x, c->m, c->n));
    f->grid_m = gm;
    f->grid_n = gn;
}

void sp_model(const sp_target *t, const sp_problem *p, const sp_config *c, sp_figures *f)
{
    sp_ctx x;
    int gm = 1, gn = 1;
    sp_ctx_init(&x, t, p);
    x.kind->grid(p, c, &gm, &gn);
    x.kind->model(&x, c, gm, gn, f);
}
