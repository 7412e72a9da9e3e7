/* decode.c — the simulator's static pass: checks buffers and instructions for
 * program errors and precomputes each instruction's pipe, path, bytes and duration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int64_t round_up(int64_t x, int64_t unit)
{
    return unit & (unit - 1) ? (x + unit - 1) / unit * unit : (x + unit - 1) & -unit;
}
static int64_t ceil_div(int64_t x, int64_t unit)
{
    return unit == 16 ? (x + 15) >> 4 : (x + unit - 1) / unit;
}

static bool check_buffers(sim *s)
{
    const sp_target *t = s->t;
    for (int ci = 0; ci < s->k->ncores; ci++) {
        const cg_core *c = &s->k->cores[ci];
        for (int b = 0; b < c->nbufs; b++) {
            const cg_buf *u = &c->bufs[b];
            char name[sizeof u->name + 1];
            memcpy(name, u->name, sizeof u->name);
            name[sizeof u->name] = 0;
            if (u->space <= CG_GM || u->space >= CG_NSPACE) {
                sim_fail(s, MS_ILLEGAL, "buffer '%s' of core %d is in %s; core buffers are on-chip",
                         name, ci, u->space == CG_GM ? "GM" : "no memory space");
                return false;
            }
            int es = cg_elem_size(u->elem);
            const char *sp = cg_space_name(u->space);
            if (es == 0 || u->rows < 1 || u->cols < 1) {
                sim_fail(s, MS_ILLEGAL, "buffer '%s' (%s) has no valid shape or element type",
                         name, sp);
                return false;
            }
            int64_t lo = u->offset, hi = lo + (int64_t)u->rows * u->cols * es;
            int bi = u->space - 1;
            if (lo < 0 || hi > t->buf_bytes[bi]) {
                sim_fail(s, MS_ILLEGAL,
                         "buffer '%s' (%s, bytes %lld..%lld) exceeds %s (%lld bytes)", name, sp,
                         (long long)lo, (long long)hi, sp, (long long)t->buf_bytes[bi]);
                return false;
            }
            if (lo % t->buf_align[bi]) {
                sim_fail(s, MS_ILLEGAL,
                         "buffer '%s' (%s, bytes %lld..%lld) is misaligned: %s offsets are "
                         "multiples of %d bytes",
                         name, sp, (long long)lo, (long long)hi, sp, t->buf_align[bi]);
                return false;
            }
        }
    }
    return true;
}

/* Checks that an operand names a region and lies inside it. */
static bool check_operand(sim *s, const sim_core *c, uint32_t i, const cg_operand *o,
                          const char *role)
{
    if (o->buf >= c->code->nbufs || o->buf < -3) {
        if (o->buf < 0)
            sim_fail_at(s, c->index, i, "%s names GM tensor %d; only A, B and C exist", role,
                        -1 - o->buf);
        else
            sim_fail_at(s, c->index, i, "%s names buffer %d; the core has %d", role, o->buf,
                        c->code->nbufs);
        return false;
    }
    const sim_reg *u = &c->reg[o->buf + 3];
    if (o->rows < 1 || o->cols < 1 || o->r0 < 0 || o->c0 < 0 ||
        (int64_t)o->r0 + o->rows > u->rows || (int64_t)o->c0 + o->cols > u->cols) {
        sim_fail_at(s, c->index, i, "%s block [%d:%lld,%d:%lld] lies outside '%.16s' (%d x %d)",
                    role, (int)o->r0, (long long)o->r0 + o->rows, (int)o->c0,
                    (long long)o->c0 + o->cols, sim_region(s->k->tensors, c->code, o)->name,
                    (int)u->rows, (int)u->cols);
        return false;
    }
    return true;
}

static const char *pipe_name(int p) { return cg_pipe_name(p) ? cg_pipe_name(p) : "?"; }

static bool decode_copy(sim *s, const sim_core *c, uint32_t i, const cg_instr *in, sim_op *o)
{
    const sp_target *t = s->t;
    if (!check_operand(s, c, i, &in->a, "source") || !check_operand(s, c, i, &in->d, "destination"))
        return false;
    const sim_reg *ra = &c->reg[in->a.buf + 3], *rd = &c->reg[in->d.buf + 3];
    int ss = ra->space, ds = rd->space;
    int pipe = cg_copy_pipe(ss, ds);
    if (pipe < 0) {
        sim_fail_at(s, c->index, i, "copy %s->%s: no such data path", cg_space_name(ss),
                    cg_space_name(ds));
        return false;
    }
    if (in->pipe != pipe) {
        sim_fail_at(s, c->index, i, "copy %s->%s runs on %s, not %s", cg_space_name(ss),
                    cg_space_name(ds), pipe_name(pipe), pipe_name(in->pipe));
        return false;
    }
    if (ds == CG_GM ? (in->d.rows != in->a.rows || in->d.cols != in->a.cols)
                    : (in->d.rows < in->a.rows || in->d.cols < in->a.cols)) {
        sim_fail_at(s, c->index, i,
                    "copy destination block (%d x %d) %s the source block (%d x %d)", in->d.rows,
                    in->d.cols, ds == CG_GM ? "differs from" : "is smaller than", in->a.rows,
                    in->a.cols);
        return false;
    }
    if (ra->elem != rd->elem && pipe != CG_FIX) {
        sim_fail_at(s, c->index, i, "copy converts %s to %s; only FIX converts",
                    cg_elem_name(ra->elem), cg_elem_name(rd->elem));
        return false;
    }
    int path, align;
    switch (ss * CG_NSPACE + ds) {
    case CG_GM * CG_NSPACE + CG_L1: path = SP_GM_L1; align = t->buf_align[SP_L1]; break;
    case CG_GM * CG_NSPACE + CG_UB: path = SP_GM_L1; align = t->buf_align[SP_UB]; break;
    case CG_L1 * CG_NSPACE + CG_L0A: path = SP_L1_L0A; align = t->buf_align[SP_L0A]; break;
    case CG_L1 * CG_NSPACE + CG_L0B: path = SP_L1_L0B; align = t->buf_align[SP_L0B]; break;
    case CG_L0C * CG_NSPACE + CG_UB: path = SP_L0C_UB; align = t->buf_align[SP_UB]; break;
    case CG_L0C * CG_NSPACE + CG_GM: path = SP_L0C_UB; align = t->buf_align[SP_L0C]; break;
    default: path = SP_UB_GM; align = t->buf_align[SP_UB]; break; /* UB -> GM */
    }
    int64_t bytes = round_up((int64_t)in->a.rows * in->a.cols * ra->esize, align);
    bool gm = ss == CG_GM || ds == CG_GM;
    if (gm) {
        const cg_operand *g = ss == CG_GM ? &in->a : &in->d;
        const sim_reg *rg = ss == CG_GM ? ra : rd;
        int64_t row = (int64_t)g->cols * rg->esize;
        int64_t gb = g->c0 == 0 && g->cols == rg->cols ? round_up(row * g->rows, SIM_GM_BURST)
                                                        : g->rows * round_up(row, SIM_GM_BURST);
        if (gb > bytes)
            bytes = gb;
    }
    const sp_copy_path *cp = &t->path[path];
    o->pipe = (uint8_t)pipe;
    o->path = (uint8_t)path;
    o->gm = gm;
    o->bytes = (double)bytes;
    o->dur = gm ? cp->latency : cp->latency + (double)bytes / cp->bandwidth;
    return true;
}

static bool decode_mmad(sim *s, const sim_core *c, uint32_t i, const cg_instr *in, sim_op *o)
{
    if (!check_operand(s, c, i, &in->a, "a") || !check_operand(s, c, i, &in->b, "b") ||
        !check_operand(s, c, i, &in->d, "destination"))
        return false;
    if (in->pipe != CG_M) {
        sim_fail_at(s, c->index, i, "mmad runs on M, not %s", pipe_name(in->pipe));
        return false;
    }
    const sim_reg *ra = &c->reg[in->a.buf + 3], *rb = &c->reg[in->b.buf + 3];
    const sim_reg *rd = &c->reg[in->d.buf + 3];
    if (ra->space != CG_L0A || rb->space != CG_L0B || rd->space != CG_L0C) {
        sim_fail_at(s, c->index, i,
                    "mmad operands are in %s, %s -> %s; they must be L0A, L0B -> L0C",
                    cg_space_name(ra->space), cg_space_name(rb->space), cg_space_name(rd->space));
        return false;
    }
    int m = in->a.rows, k = in->a.cols, n = in->b.cols;
    if (in->b.rows != k || in->d.rows != m || in->d.cols != n) {
        sim_fail_at(s, c->index, i, "mmad shapes disagree: %d x %d = %d x %d . %d x %d",
                    in->d.rows, in->d.cols, m, k, in->b.rows, n);
        return false;
    }
    int ea = ra->elem, eb = rb->elem, ed = rd->elem;
    if (ea != eb || !((ea == CG_FP16 && ed == CG_FP32) || (ea == CG_INT8 && ed == CG_INT32))) {
        sim_fail_at(s, c->index, i,
                    "mmad types %s x %s -> %s; the cube does fp16 x fp16 -> fp32 and "
                    "int8 x int8 -> int32",
                    cg_elem_name(ea), cg_elem_name(eb), cg_elem_name(ed));
        return false;
    }
    int64_t fractals = ceil_div(m, s->m0) * ceil_div(n, s->n0) * ceil_div(k, s->k0);
    o->pipe = CG_M;
    o->dur = (double)fractals * s->fractal_cycles[ea == CG_FP16 ? SP_FP16 : SP_INT8];
    return true;
}

static bool decode_flag(sim *s, const sim_core *c, uint32_t i, const cg_instr *in, sim_op *o)
{
    const char *what = in->op == CG_SET_FLAG ? "set_flag" : "wait_flag";
    int pipe = in->op == CG_SET_FLAG ? in->src : in->dst;
    if (in->src >= CG_NPIPE || in->dst >= CG_NPIPE) {
        sim_fail_at(s, c->index, i, "%s names pipe %d; pipes are 0..%d", what,
                    in->src >= CG_NPIPE ? in->src : in->dst, CG_NPIPE - 1);
        return false;
    }
    if (in->event >= s->events) {
        sim_fail_at(s, c->index, i, "%s %s->%s event %d: the target has event ids 0..%d", what,
                    pipe_name(in->src), pipe_name(in->dst), in->event, s->events - 1);
        return false;
    }
    if (in->pipe != pipe) {
        sim_fail_at(s, c->index, i, "%s %s->%s runs on %s, not %s", what, pipe_name(in->src),
                    pipe_name(in->dst), pipe_name(pipe), pipe_name(in->pipe));
        return false;
    }
    o->pipe = (uint8_t)pipe;
    o->flag = (uint32_t)((in->src * CG_NPIPE + in->dst) * s->events + in->event);
    o->path = in->dst;
    o->dur = 1;
    return true;
}

bool sim_decode(sim *s, const sim_core *sc, uint32_t i, sim_op *o)
{
    const cg_instr *in = &sc->code->code[i];
    int ci = sc->index;
    memset(o, 0, sizeof *o);
    o->dur = 1;
    o->op = in->op;
    switch (in->op) {
    case CG_COPY: return decode_copy(s, sc, i, in, o);
    case CG_MMAD: return decode_mmad(s, sc, i, in, o);
    case CG_SET_FLAG:
    case CG_WAIT_FLAG: return decode_flag(s, sc, i, in, o);
    case CG_BARRIER:
    case CG_NOP:
        if (in->pipe >= CG_NPIPE) {
            sim_fail_at(s, ci, i, "%s names pipe %d; pipes are 0..%d",
                        in->op == CG_NOP ? "nop" : "barrier", in->pipe, CG_NPIPE - 1);
            return false;
        }
        o->pipe = in->op == CG_NOP ? in->pipe : CG_S;
        o->path = in->pipe;
        o->dur = 1;
        return true;
    default:
        sim_fail_at(s, ci, i, "unknown operation %d", in->op);
        return false;
    }
}

bool sim_check(sim *s)
{
    char err[200];
    if (!sp_target_check(s->t, err, sizeof err)) {
        sim_fail(s, MS_ILLEGAL, "%s", err);
        return true;
    }
    if ((unsigned)s->k->problem.dtype >= SP_NDTYPE) {
        sim_fail(s, MS_ILLEGAL, "the kernel's problem has no valid dtype (%d)",
                 (int)s->k->problem.dtype);
        return true;
    }
    if (s->k->ncores > s->t->cores) {
        sim_fail(s, MS_ILLEGAL, "the kernel has %d cores; target '%s' has %d", s->k->ncores,
                 s->t->name, s->t->cores);
        return true;
    }
    for (int i = 0; i < 3; i++)
        if (cg_elem_size(s->k->tensors[i].elem) == 0 || s->k->tensors[i].rows < 0 ||
            s->k->tensors[i].cols < 0) {
            sim_fail(s, MS_ILLEGAL, "GM tensor %c has no valid shape or element type", "ABC"[i]);
            return true;
        }
    for (int ci = 0; ci < s->ncores; ci++)
        if (s->cores[ci].code->n >= UINT32_MAX) {
            sim_fail(s, MS_ILLEGAL, "core %d has too many instructions", ci);
            return true;
        }
    const sp_dtype_info *di = sp_dtype_get(s->k->problem.dtype);
    s->m0 = di->m0;
    s->n0 = di->n0;
    s->k0 = di->k0;
    for (int d = 0; d < SP_NDTYPE; d++)
        s->fractal_cycles[d] = (double)s->m0 * s->n0 * s->k0 / s->t->macs[d];
    if (!check_buffers(s))
        return true;
    for (int ci = 0; ci < s->ncores; ci++) {
        sim_core *c = &s->cores[ci];
        c->reg = malloc((size_t)(c->code->nbufs + 3) * sizeof *c->reg);
        if (!c->reg)
            return false;
        for (int b = -3; b < c->code->nbufs; b++) {
            const cg_buf *u = b < 0 ? &s->k->tensors[-1 - b] : &c->code->bufs[b];
            c->reg[b + 3] = (sim_reg){u->rows, u->cols, b < 0 ? CG_GM : u->space, u->elem,
                                      (uint8_t)cg_elem_size(u->elem)};
        }
    }
    return true;
}
