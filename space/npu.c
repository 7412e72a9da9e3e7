/* npu.c — the NPU kind: which configs a DaVinci-like core can run (fractal
 * alignment, buffer capacities halved by double buffering, k = K for IS/WS,
 * core splits) and why not, its figures checked and signed (model.c models it). */
#include <stdio.h>

#include "internal.h"

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

#define FIELD(member) sp_target_field_name(t, &t->member) /* its name in scripts */

/* What the cube has a rate for. */
static bool computes(const sp_target *t, sp_dtype d)
{
    return t->macs[d] > 0;
}

static bool check_target(const sp_target *t, const char *n, char *err, size_t errlen)
{
    for (int d = 0; d < SP_NDTYPE; d++)
        if (d == SP_FP32 || d == SP_BF16 ? !(t->macs[d] >= 0) : !(t->macs[d] > 0))
            FAIL("target '%s': field 'macs.%s' must be positive", n, sp_dtype_name(d));
    for (int b = 0; b < SP_NBUF; b++) {
        if (t->buf_align[b] < 1)
            FAIL("target '%s': field '%s' must be a positive integer", n, FIELD(buf_align[b]));
        if (t->buf_bytes[b] < 1)
            FAIL("target '%s': field '%s' must be a positive byte count", n, FIELD(buf_bytes[b]));
        if (t->buf_bytes[b] % t->buf_align[b])
            FAIL("target '%s': field '%s' (%lld bytes) is not a multiple of its alignment %d",
                 n, FIELD(buf_bytes[b]), (long long)t->buf_bytes[b], t->buf_align[b]);
    }
    /* The smallest cube operand is one 512-byte fractal; the smallest
     * accumulator block is 16x16 of 4-byte elements. */
    for (int b = SP_L0A; b <= SP_L0B; b++)
        if (t->buf_bytes[b] < 512)
            FAIL("target '%s': field '%s' (%lld bytes) is smaller than one 512-byte fractal",
                 n, FIELD(buf_bytes[b]), (long long)t->buf_bytes[b]);
    if (t->buf_bytes[SP_L0C] < 1024)
        FAIL("target '%s': field 'l0c' (%lld bytes) is smaller than one 16x16 fp32 fractal (1024 bytes)",
             n, (long long)t->buf_bytes[SP_L0C]);
    if (t->buf_bytes[SP_UB] < 1024)
        FAIL("target '%s': field 'ub' (%lld bytes) cannot hold one 16x16 fp32 fractal (1024 bytes)",
             n, (long long)t->buf_bytes[SP_UB]);
    if (t->buf_bytes[SP_L1] < 1024)
        FAIL("target '%s': field 'l1' (%lld bytes) cannot stage one A and one B fractal",
             n, (long long)t->buf_bytes[SP_L1]);
    for (int p = 0; p < SP_NPATH; p++) {
        if (!(t->path[p].bandwidth > 0))
            FAIL("target '%s': field '%s' must be positive", n, FIELD(path[p].bandwidth));
        if (!(t->path[p].latency >= 0))
            FAIL("target '%s': field '%s' must not be negative", n, FIELD(path[p].latency));
    }
    if (!(t->gm_bandwidth > 0))
        FAIL("target '%s': field 'gm_bandwidth' must be positive", n);
    if (t->events < 1)
        FAIL("target '%s': field 'events' must be a positive integer", n);
    return true;
}

void sp_npu_sign_figures(const sp_target *t, double clock, sp_text *o)
{
    sp_put(o, "%d %.17g", t->cores, clock);
    for (int i = 0; i < SP_NDTYPE; i++)
        sp_put(o, " %.17g", t->macs[i]);
    for (int i = 0; i < SP_NBUF; i++)
        sp_put(o, " %lld/%d", (long long)t->buf_bytes[i], t->buf_align[i]);
    for (int i = 0; i < SP_NPATH; i++)
        sp_put(o, " %.17g/%.17g", t->path[i].bandwidth, t->path[i].latency);
    sp_put(o, " %.17g %d", t->gm_bandwidth, t->events);
}

static void sign(const sp_target *t, sp_text *o)
{
    sp_npu_sign_figures(t, t->clock_mhz, o);
}

/* Cores split the tiles of the padded M and N. */
static bool grid(const sp_problem *p, const sp_config *c, int *gm, int *gn)
{
    const sp_dtype_info *d = sp_dtype_get(p->dtype);
    if (c->m < 1 || c->n < 1)
        return false;
    int64_t TM = sp_ceil_div(sp_pad(p->M, d->m0), c->m);
    int64_t TN = sp_ceil_div(sp_pad(p->N, d->n0), c->n);
    return sp_grid_div(c->cores, c->split, TM, TN, gm, gn);
}

static unsigned check(const sp_ctx *x, const sp_config *c)
{
    const sp_target *t = x->t;
    unsigned bad = 0;
    int db = c->double_buffer ? 1 : 0;
    if (!sp_target_computes(t, x->p->dtype)) bad |= SP_BAD_DTYPE;
    if (c->mr || c->nr) bad |= SP_BAD_MICRO;
    if (c->m < 1 || c->m % x->m0) bad |= SP_BAD_ALIGN_M;
    if (c->n < 1 || c->n % x->n0) bad |= SP_BAD_ALIGN_N;
    if (c->k < 1 || c->k % x->k0) bad |= SP_BAD_ALIGN_K;
    if (c->m > x->Mp || c->n > x->Np || c->k > x->Kp) bad |= SP_BAD_DIM;
    if (c->strategy != SP_OS && c->k != x->Kp) bad |= SP_BAD_FULL_K;
    if (sp_need_l0a(x, c->m, c->k, db) > t->buf_bytes[SP_L0A]) bad |= SP_BAD_L0A;
    if (sp_need_l0b(x, c->k, c->n, db) > t->buf_bytes[SP_L0B]) bad |= SP_BAD_L0B;
    if (sp_need_l0c(x, c->m, c->n) > t->buf_bytes[SP_L0C]) bad |= SP_BAD_L0C;
    if (sp_need_l1(x, c->m, c->n, c->k, db) > t->buf_bytes[SP_L1]) bad |= SP_BAD_L1;
    if (c->cores < 1 || c->cores > t->cores) bad |= SP_BAD_CORES;
    int gm = 0, gn = 0;
    if (c->cores >= 1 && c->m >= 1 && c->n >= 1 && !grid(x->p, c, &gm, &gn))
        bad |= SP_BAD_SPLIT;
    return bad;
}

static void buffer_line(sp_text *o, const char *buf, const char *what, int64_t need,
                        int64_t have, int db)
{
    sp_line(o, "%s overflows: %s needs %lld bytes%s, %s has %lld", buf, what, (long long)need,
            db ? " (double-buffered: two copies)" : "", buf, (long long)have);
}

static void explain(const sp_ctx *x, const sp_config *c, unsigned bad, sp_text *o)
{
    const sp_target *t = x->t;
    int db = c->double_buffer ? 1 : 0;
    const char *dt = sp_dtype_name(x->p->dtype);
    char tile[96];
    if (bad & SP_BAD_ALIGN_M)
        sp_line(o, "m = %d is not a multiple of %lld (the %s fractal)", c->m, (long long)x->m0,
                dt);
    if (bad & SP_BAD_ALIGN_N)
        sp_line(o, "n = %d is not a multiple of %lld (the %s fractal)", c->n, (long long)x->n0,
                dt);
    if (bad & SP_BAD_ALIGN_K)
        sp_line(o, "k = %d is not a multiple of %lld (the %s fractal)", c->k, (long long)x->k0,
                dt);
    if (bad & SP_BAD_DIM)
        sp_line(o, "tile %dx%dx%d exceeds the padded shape %lldx%lldx%lld", c->m, c->n, c->k,
                (long long)x->Mp, (long long)x->Np, (long long)x->Kp);
    if (bad & SP_BAD_FULL_K)
        sp_line(o, "%s keeps its tile stationary over the whole reduction: needs k = K = %lld, not %d",
                sp_strategy_name(c->strategy), (long long)x->Kp, c->k);
    if (bad & SP_BAD_L0A) {
        snprintf(tile, sizeof tile, "A-tile %dx%d %s", c->m, c->k, dt);
        buffer_line(o, "L0A", tile, sp_need_l0a(x, c->m, c->k, db), t->buf_bytes[SP_L0A], db);
    }
    if (bad & SP_BAD_L0B) {
        snprintf(tile, sizeof tile, "B-tile %dx%d %s", c->k, c->n, dt);
        buffer_line(o, "L0B", tile, sp_need_l0b(x, c->k, c->n, db), t->buf_bytes[SP_L0B], db);
    }
    if (bad & SP_BAD_L0C) {
        snprintf(tile, sizeof tile, "C-tile %dx%d accumulators", c->m, c->n);
        buffer_line(o, "L0C", tile, sp_need_l0c(x, c->m, c->n), t->buf_bytes[SP_L0C], 0);
    }
    if (bad & SP_BAD_L1)
        buffer_line(o, "L1", "staging one A-tile and one B-tile",
                    sp_need_l1(x, c->m, c->n, c->k, db), t->buf_bytes[SP_L1], db);
    sp_explain_shared(x, c, bad, o);
    if (bad & SP_BAD_MICRO)
        sp_line(o, "micro-tile %dx%d: NPU targets have no register micro-tile", c->mr, c->nr);
    if (bad & SP_BAD_SPLIT) {
        int64_t TM = sp_ceil_div(x->Mp, c->m), TN = sp_ceil_div(x->Np, c->n);
        if (c->split == SP_SPLIT_MN)
            sp_line(o, "split MN needs a grid of >= 2x2 cores dividing %d within %lldx%lld tiles",
                    c->cores, (long long)TM, (long long)TN);
        else
            sp_line(o, "split %s over %d cores leaves cores idle: only %lld %s-tiles",
                    sp_split_name(c->split), c->cores,
                    (long long)(c->split == SP_SPLIT_M ? TM : TN), sp_split_name(c->split));
    }
}

static void model(const sp_ctx *x, const sp_config *c, int gm, int gn, sp_figures *f)
{
    sp_plan pl;
    sp_plan_init(&pl, x, c->m, c->n, c->k);
    sp_model_plan(x, c, &pl, gm, gn, f);
}

static void smallest(const sp_ctx *x, sp_config *c)
{
    c->m = (int32_t)x->m0;
    c->n = (int32_t)x->n0;
    c->k = (int32_t)(c->strategy == SP_OS ? x->k0 : x->Kp);
}

const sp_kind_ops sp_npu_kind = {
    .info = {.name = "npu", .a = "an npu", .dtype = SP_FP16,
             .kernels = 1u << SP_FP16 | 1u << SP_INT8, .micro = false, .model_error = 0,
             .measure = "sim",
             .measure_does = "simulates npu targets", .measure_needs = ""},
    .computes = computes,
    .check_target = check_target,
    .sign = sign,
    .check = check,
    .grid = grid,
    .explain = explain,
    .model = model,
    .walk = sp_npu_walk,
    .smallest = smallest,
};
