/* model.c — the analytical model of NPU targets: load volume Sigma (of the three
 * stationary schedules, generalised to tails, splits and batch), bytes per path,
 * and an estimated cycle count; sp_model asks the target's kind. */
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
    double body, fill, t3sum, t3last;
    int filled;
} timer;

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
    double tf = 0, t3 = 0;
    if (store) {
        double cb = (double)(mi * ni) * t->acc;
        tf = cb * t->invf + t->latf;
        t3 = cb * t->inv3 + t->lat3;
    }
    double t2 = t2a + t2b, t1 = t1a + t1b, cost;
    if (t->db)
        cost = max3(t2, t1, tc + tf);
    else
        cost = max3(t2, t1 + tc + tf, t1a + t2a > t1b + t2b ? t1a + t2a : t1b + t2b);
    if (!t->filled) { /* what the first step cannot overlap: pipeline fill */
        t->fill = t2 + t1 + tc + tf - cost;
        t->filled = 1;
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

    /* Cores that stream at once share the chip's GM bandwidth:
     * cycles/byte = max(1 / path bandwidth, active cores / GM bandwidth). */
    double shared = (double)(gm * gn) / tg->gm_bandwidth;
    double inv2 = x->inv_bw[SP_GM_L1], inv3 = x->inv_bw[SP_UB_GM];
    timer t = {
        .inv2 = inv2 > shared ? inv2 : shared, .lat2 = x->lat[SP_GM_L1],
        .inva = x->inv_bw[SP_L1_L0A], .lata = x->lat[SP_L1_L0A],
        .invb = x->inv_bw[SP_L1_L0B], .latb = x->lat[SP_L1_L0B],
        .invf = x->inv_bw[SP_L0C_UB], .latf = x->lat[SP_L0C_UB],
        .inv3 = inv3 > shared ? inv3 : shared, .lat3 = x->lat[SP_UB_GM],
        .in = (double)x->in, .acc = (double)x->acc, .inv_macs = x->inv_macs,
        .db = c->double_buffer ? 1 : 0,
    };
    walk(&t, c->strategy, hm, hn, pl->k, x->Kp, c->k);
    /* the steps, the pipeline fill and the last MTE3 drain; never less than
     * MTE3's own busy time */
    double cycles = t.body * batch + t.fill + t.t3last;
    double mte3 = t.fill + t.t3sum * batch;
    if (mte3 > cycles)
        cycles = mte3;
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
