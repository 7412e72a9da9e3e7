/* generate.c — the kernel of a config: per-core OS/IS/WS loop nests over
 * tiles (tails padded), ping-pong buffers with event tokens, C drained via UB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

/* One step of a loop nest: load the A and/or B tile it needs, one mmad, and
 * after the last k-step of a C-tile the drain of that tile. */
typedef struct {
    int32_t b, i, j, kk; /* batch, M-tile, N-tile, k-step */
    uint8_t load_a, load_b, init, drain;
} step;

/* The element types of a kernel's inputs and accumulators per dtype: what
 * the cube (and the simulator) computes, fp16 -> fp32 and int8 -> int32;
 * in < 0: no NPU kernel takes the dtype (space's sp_kind_info.kernels). */
static const struct {
    int8_t in, acc;
} elems[SP_NDTYPE] = {
    [SP_FP16] = {CG_FP16, CG_FP32},
    [SP_INT8] = {CG_INT8, CG_INT32},
    [SP_FP32] = {-1, -1},
    [SP_BF16] = {-1, -1},
};

typedef struct {
    const sp_target *t;
    const sp_problem *p;
    const sp_config *c;
    uint8_t in_elem, acc_elem; /* element types of the inputs, the accumulators */
    int64_t Mp, Np, Kp;
    int k;              /* k-step (Kp for IS/WS) */
    int nb;             /* slots per operand: 2 with double buffering */
    int piece;          /* rows of C per drain piece */
    int nu;             /* UB pieces in flight (1 or 2) */
    cg_core *core;
    int ok;
    int slot[2];        /* current slot of A, B */
    int next_slot[2];
    int upiece;         /* next UB piece slot */
    /* indices of the declared buffers: [operand][slot], the accumulator,
     * the UB pieces */
    int l1[2][2], l0[2][2], acc, ub[2], nbufs;
} gen;

static cg_operand blk(int buf, int64_t r0, int64_t c0, int64_t rows, int64_t cols)
{
    cg_operand o = {.buf = (int16_t)buf, .rows = (uint16_t)rows, .cols = (uint16_t)cols,
                    .r0 = (int32_t)r0, .c0 = (int32_t)c0};
    return o;
}

static void emit(gen *g, cg_instr in)
{
    if (g->ok && !cg_emit(g->core, &in))
        g->ok = 0;
}

static void flag(gen *g, int op, int src, int dst, int event)
{
    cg_instr in = {.op = (uint8_t)op, .pipe = (uint8_t)(op == CG_SET_FLAG ? src : dst),
                   .src = (uint8_t)src, .dst = (uint8_t)dst, .event = (uint8_t)event};
    emit(g, in);
}

static void set(gen *g, int src, int dst, int e) { flag(g, CG_SET_FLAG, src, dst, e); }
static void wait(gen *g, int src, int dst, int e) { flag(g, CG_WAIT_FLAG, src, dst, e); }

static void copy(gen *g, cg_operand d, cg_operand a)
{
    int ds = d.buf < 0 ? CG_GM : g->core->bufs[d.buf].space;
    int as = a.buf < 0 ? CG_GM : g->core->bufs[a.buf].space;
    cg_instr in = {.op = CG_COPY, .pipe = (uint8_t)cg_copy_pipe(as, ds), .d = d, .a = a};
    emit(g, in);
}

/* Events: operand X (0 = A, 1 = B) in slot s uses event X * nb + s on the
 * pairs MTE2<->MTE1 and MTE1<->M; C uses event 0 on M<->FIX; UB piece q uses
 * event q on FIX<->MTE3. */
static int ev(const gen *g, int x, int s) { return x * g->nb + s; }

/* Tile extent (padded) and valid extent (inside the real matrix) of tile t
 * of size sz along a dimension of padded length pad and real length real. */
static void extent(int64_t t, int64_t sz, int64_t pad, int64_t real, int64_t *at, int64_t *n,
                   int64_t *valid)
{
    *at = t * sz;
    *n = pad - *at < sz ? pad - *at : sz;
    *valid = real - *at < *n ? real - *at : *n;
}

/* GM -> L1 -> L0 for operand x of step s; the block's padding is zero-filled. */
static void load(gen *g, const step *s, int x)
{
    const sp_problem *p = g->p;
    int sl = g->next_slot[x];
    g->next_slot[x] = (sl + 1) % g->nb;
    g->slot[x] = sl;
    int64_t r0, rows, vr, c0, cols, vc;
    if (x == 0) { /* A: M x K */
        extent(s->i, g->c->m, g->Mp, p->M, &r0, &rows, &vr);
        extent(s->kk, g->k, g->Kp, p->K, &c0, &cols, &vc);
        r0 += (int64_t)s->b * p->M;
    } else { /* B: K x N */
        extent(s->kk, g->k, g->Kp, p->K, &r0, &rows, &vr);
        extent(s->j, g->c->n, g->Np, p->N, &c0, &cols, &vc);
        r0 += (int64_t)s->b * p->K;
    }
    int e = ev(g, x, sl);
    wait(g, CG_MTE1, CG_MTE2, e); /* the L1 slot is free */
    copy(g, blk(g->l1[x][sl], 0, 0, rows, cols), blk(-1 - x, r0, c0, vr, vc));
    set(g, CG_MTE2, CG_MTE1, e);
    wait(g, CG_MTE2, CG_MTE1, e);
    wait(g, CG_M, CG_MTE1, e);    /* the L0 slot is free */
    copy(g, blk(g->l0[x][sl], 0, 0, rows, cols), blk(g->l1[x][sl], 0, 0, rows, cols));
    set(g, CG_MTE1, CG_MTE2, e);
    set(g, CG_MTE1, CG_M, e);
}

/* L0C -> UB -> GM in row pieces; only the valid part reaches GM. */
static void drain(gen *g, const step *s)
{
    const sp_problem *p = g->p;
    int64_t r0, rows, vr, c0, cols, vc;
    extent(s->i, g->c->m, g->Mp, p->M, &r0, &rows, &vr);
    extent(s->j, g->c->n, g->Np, p->N, &c0, &cols, &vc);
    r0 += (int64_t)s->b * p->M;
    set(g, CG_M, CG_FIX, 0);
    wait(g, CG_M, CG_FIX, 0);
    for (int64_t at = 0; at < vr; at += g->piece) {
        int64_t pr = rows - at < g->piece ? rows - at : g->piece;
        int64_t pv = vr - at < pr ? vr - at : pr;
        int q = g->upiece;
        g->upiece = (q + 1) % g->nu;
        wait(g, CG_MTE3, CG_FIX, q);
        copy(g, blk(g->ub[q], 0, 0, pr, cols), blk(g->acc, at, 0, pr, cols));
        set(g, CG_FIX, CG_MTE3, q);
        wait(g, CG_FIX, CG_MTE3, q);
        copy(g, blk(-3, r0 + at, c0, pv, vc), blk(g->ub[q], 0, 0, pv, vc));
        set(g, CG_MTE3, CG_FIX, q);
    }
    set(g, CG_FIX, CG_M, 0); /* L0C is free again */
}

static void mmad(gen *g, const step *s, const step *next)
{
    int64_t r0, mi, vr, c0, ni, vc, k0, ki, vk;
    extent(s->i, g->c->m, g->Mp, g->p->M, &r0, &mi, &vr);
    extent(s->j, g->c->n, g->Np, g->p->N, &c0, &ni, &vc);
    extent(s->kk, g->k, g->Kp, g->p->K, &k0, &ki, &vk);
    if (s->load_a)
        wait(g, CG_MTE1, CG_M, ev(g, 0, g->slot[0]));
    if (s->load_b)
        wait(g, CG_MTE1, CG_M, ev(g, 1, g->slot[1]));
    if (s->init)
        wait(g, CG_FIX, CG_M, 0); /* the previous C-tile has left L0C */
    cg_instr in = {.op = CG_MMAD, .pipe = CG_M, .init = s->init,
                   .d = blk(g->acc, 0, 0, mi, ni),
                   .a = blk(g->l0[0][g->slot[0]], 0, 0, mi, ki),
                   .b = blk(g->l0[1][g->slot[1]], 0, 0, ki, ni)};
    emit(g, in);
    /* Release an L0 slot once its last mmad is issued. */
    if (!next || next->load_a)
        set(g, CG_M, CG_MTE1, ev(g, 0, g->slot[0]));
    if (!next || next->load_b)
        set(g, CG_M, CG_MTE1, ev(g, 1, g->slot[1]));
}

/* The steps of one core: tiles [i0, i1) x [j0, j1), every batch. */
static step *steps_of(const gen *g, int i0, int i1, int j0, int j1, size_t *n)
{
    int64_t TK = (g->Kp + g->k - 1) / g->k;
    size_t count = (size_t)g->p->batch * (size_t)(i1 - i0) * (size_t)(j1 - j0) * (size_t)TK;
    step *v = malloc((count ? count : 1) * sizeof *v), *s = v;
    if (!v)
        return NULL;
    for (int b = 0; b < g->p->batch; b++) {
        if (g->c->strategy == SP_OS) {
            for (int i = i0; i < i1; i++)
                for (int j = j0; j < j1; j++)
                    for (int kk = 0; kk < TK; kk++)
                        *s++ = (step){b, i, j, kk, 1, 1, kk == 0, kk == TK - 1};
        } else if (g->c->strategy == SP_IS) { /* A-tile stationary over n */
            for (int i = i0; i < i1; i++)
                for (int j = j0; j < j1; j++)
                    *s++ = (step){b, i, j, 0, j == j0, 1, 1, 1};
        } else { /* WS: B-tile stationary over m */
            for (int j = j0; j < j1; j++)
                for (int i = i0; i < i1; i++)
                    *s++ = (step){b, i, j, 0, 1, i == i0, 1, 1};
        }
    }
    *n = (size_t)(s - v);
    return v;
}

/* Declares the buffers in use: per slot an A- and a B-tile in L1 (a0 b0 a1
 * b1) and in L0A/L0B, the accumulator tile, the UB drain pieces. Returns
 * how many (at most 11) into bufs. */
static int declare(gen *g, cg_buf *bufs)
{
    const sp_dtype_info *d = sp_dtype_get(g->p->dtype);
    uint8_t in = g->in_elem, acc = g->acc_elem;
    int32_t m = g->c->m, n = g->c->n, k = g->k;
    int32_t ab = m * k * d->in_bytes, bb = k * n * d->in_bytes;
    int nb = 0;
    for (int s = 0; s < g->nb; s++) {
        g->l1[0][s] = nb;
        bufs[nb] = (cg_buf){"", CG_L1, in, s * (ab + bb), m, k};
        snprintf(bufs[nb++].name, sizeof bufs->name, "a%d", s);
        g->l1[1][s] = nb;
        bufs[nb] = (cg_buf){"", CG_L1, in, s * (ab + bb) + ab, k, n};
        snprintf(bufs[nb++].name, sizeof bufs->name, "b%d", s);
    }
    for (int s = 0; s < g->nb; s++) {
        g->l0[0][s] = nb;
        bufs[nb] = (cg_buf){"", CG_L0A, in, s * ab, m, k};
        snprintf(bufs[nb++].name, sizeof bufs->name, "la%d", s);
        g->l0[1][s] = nb;
        bufs[nb] = (cg_buf){"", CG_L0B, in, s * bb, k, n};
        snprintf(bufs[nb++].name, sizeof bufs->name, "lb%d", s);
    }
    g->acc = nb;
    bufs[nb++] = (cg_buf){"c0", CG_L0C, acc, 0, m, n};
    for (int q = 0; q < g->nu; q++) {
        g->ub[q] = nb;
        bufs[nb] = (cg_buf){"", CG_UB, acc, q * g->piece * n * d->acc_bytes, g->piece, n};
        snprintf(bufs[nb++].name, sizeof bufs->name, "u%d", q);
    }
    return nb;
}

/* Contiguous share r of T tiles over g groups (the first T % g get one more). */
static void share(int64_t T, int g, int r, int *lo, int *hi)
{
    int64_t q = T / g, extra = T % g;
    *lo = (int)(r * q + (r < extra ? r : extra));
    *hi = (int)(*lo + q + (r < extra ? 1 : 0));
}

/* The "free" tokens of every slot, of L0C and of the UB pieces: handed out
 * (set) before the first step, taken back (wait) after the last, so every
 * flag a kernel sets is consumed. */
static void tokens(gen *g, int op)
{
    for (int x = 0; x < 2; x++)
        for (int sl = 0; sl < g->nb; sl++) {
            flag(g, op, CG_MTE1, CG_MTE2, ev(g, x, sl));
            flag(g, op, CG_M, CG_MTE1, ev(g, x, sl));
        }
    flag(g, op, CG_FIX, CG_M, 0);
    for (int q = 0; q < g->nu; q++)
        flag(g, op, CG_MTE3, CG_FIX, q);
}

static bool core_program(gen *g, int i0, int i1, int j0, int j1)
{
    size_t n;
    step *s = steps_of(g, i0, i1, j0, j1, &n);
    if (!s)
        return false;
    g->slot[0] = g->slot[1] = g->next_slot[0] = g->next_slot[1] = g->upiece = 0;
    tokens(g, CG_SET_FLAG);
    for (size_t i = 0; i < n; i++) {
        if (s[i].load_a)
            load(g, &s[i], 0);
        if (s[i].load_b)
            load(g, &s[i], 1);
        mmad(g, &s[i], i + 1 < n ? &s[i + 1] : NULL);
        if (s[i].drain)
            drain(g, &s[i]);
    }
    tokens(g, CG_WAIT_FLAG);
    free(s);
    return g->ok;
}

bool cg_generate(const sp_target *t, const sp_problem *p, const sp_config *c, cg_kernel *k,
                 char *err, size_t errlen)
{
    memset(k, 0, sizeof *k);
    unsigned bad = sp_check(t, p, c);
    if (bad) {
        char why[512];
        sp_explain(t, p, c, why, sizeof why);
        why[strcspn(why, "\n")] = '\0';
        snprintf(err, errlen, "illegal config: %s", why);
        return false;
    }
    if (elems[p->dtype].in < 0) {
        char list[64] = "";
        for (int e = 0; e < SP_NDTYPE; e++)
            if (elems[e].in >= 0 && strlen(list) + 8 < sizeof list)
                strcat(strcat(list, *list ? ", " : ""), sp_dtype_name(e));
        snprintf(err, errlen, "npu kernels take %s, not %s", list, sp_dtype_name(p->dtype));
        return false;
    }
    const sp_dtype_info *d = sp_dtype_get(p->dtype);
    gen g = {.t = t, .p = p, .c = c, .ok = 1, .nb = c->double_buffer ? 2 : 1,
             .in_elem = (uint8_t)elems[p->dtype].in, .acc_elem = (uint8_t)elems[p->dtype].acc};
    g.Mp = sp_pad(p->M, d->m0);
    g.Np = sp_pad(p->N, d->n0);
    g.Kp = sp_pad(p->K, d->k0);
    g.k = c->strategy == SP_OS ? c->k : (int)g.Kp;
    if (t->events < 2 * g.nb) {
        snprintf(err, errlen, "target '%s' has %d event ids per pipe pair; this kernel needs %d",
                 t->name, t->events, 2 * g.nb);
        return false;
    }
    /* Drain pieces: whole 16-row bands; two in flight when two fit in UB. */
    int64_t row_bytes = (int64_t)c->n * d->acc_bytes;
    int64_t fit = t->buf_bytes[SP_UB] / row_bytes / d->m0 * d->m0;
    g.nu = fit >= 2 * d->m0 ? 2 : 1;
    fit = g.nu == 2 ? fit / 2 / d->m0 * d->m0 : fit;
    if (fit < d->m0) {
        snprintf(err, errlen, "UB (%lld bytes) cannot hold 16 rows of a %d-column C-tile",
                 (long long)t->buf_bytes[SP_UB], c->n);
        return false;
    }
    g.piece = (int)(fit < c->m ? fit : c->m);

    k->target = *t;
    k->figures = true;
    k->problem = *p;
    k->config = *c;
    k->tensors[0] = (cg_buf){"A", CG_GM, g.in_elem, 0, (int32_t)(p->batch * p->M), (int32_t)p->K};
    k->tensors[1] = (cg_buf){"B", CG_GM, g.in_elem, 0, (int32_t)(p->batch * p->K), (int32_t)p->N};
    k->tensors[2] = (cg_buf){"C", CG_GM, g.acc_elem, 0, (int32_t)(p->batch * p->M), (int32_t)p->N};

    int gm = 1, gn = 1;
    sp_grid(t, p, c, &gm, &gn);
    int64_t TM = (g.Mp + c->m - 1) / c->m, TN = (g.Np + c->n - 1) / c->n;
    k->ncores = gm * gn;
    k->cores = calloc((size_t)k->ncores, sizeof *k->cores);
    bool ok = k->cores != NULL;
    for (int r = 0; ok && r < gm; r++)
        for (int s = 0; ok && s < gn; s++) {
            cg_core *core = &k->cores[r * gn + s];
            core->bufs = calloc(11, sizeof *core->bufs);
            if (!(ok = core->bufs != NULL))
                break;
            g.core = core;
            core->nbufs = declare(&g, core->bufs);
            int i0, i1, j0, j1;
            share(TM, gm, r, &i0, &i1);
            share(TN, gn, s, &j0, &j1);
            ok = core_program(&g, i0, i1, j0, j1);
        }
    if (!ok) {
        cg_kernel_free(k);
        snprintf(err, errlen, "out of memory generating the kernel");
    }
    return ok;
}
