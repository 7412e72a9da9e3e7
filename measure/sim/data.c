/* data.c — the simulator's functional mode: real bytes in GM and on-chip buffers,
 * vector-clock hazard checks per memory granule, and the exact check of C. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "internal.h"

#define GARBAGE 0x3c /* fill of on-chip memory: nonzero, non-integer as fp16 or fp32 */

/* ---- element conversions ---- */

static double half_to_double(uint16_t h)
{
    uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0 || e == 31) { /* zero, subnormal, inf, nan */
        double v = e == 0 ? ldexp(m, -24) : m ? NAN : INFINITY;
        return h & 0x8000 ? -v : v;
    }
    uint32_t x = (uint32_t)(h & 0x8000) << 16 | (e + 112) << 23 | m << 13; /* as fp32 */
    float f;
    memcpy(&f, &x, sizeof f);
    return f;
}

static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t a = x & 0x7fffffff;
    if (a >= 0x7f800000) /* inf, nan */
        return sign | 0x7c00 | (a > 0x7f800000 ? 0x200 : 0);
    if (a >= 0x477ff000) /* rounds to >= 65520: overflow */
        return sign | 0x7c00;
    if (a < 0x38800000) /* below 2^-14: a subnormal half, in units of 2^-24 */
        return sign | (uint16_t)nearbyintf(fabsf(f) * 16777216.0f);
    uint32_t h = ((a >> 23) - 112) << 10 | (a & 0x7fffff) >> 13, rem = a & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
        h++;
    return sign | (uint16_t)h;
}

static double load(int elem, const uint8_t *p)
{
    switch (elem) {
    case CG_FP16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return half_to_double(h);
    }
    case CG_INT8: return (int8_t)*p;
    case CG_FP32: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    default: {
        int32_t i;
        memcpy(&i, p, 4);
        return i;
    }
    }
}

static double clamp(double v, double lo, double hi)
{
    return v != v ? 0 : v < lo ? lo : v > hi ? hi : v;
}

static void store(int elem, uint8_t *p, double v)
{
    switch (elem) {
    case CG_FP16: {
        float f = v != v ? NAN : (float)clamp(v, -1e30, 1e30);
        uint16_t h = float_to_half(f);
        memcpy(p, &h, 2);
        break;
    }
    case CG_INT8: *p = (uint8_t)(int8_t)clamp(nearbyint(v), -128, 127); break;
    case CG_FP32: {
        float f = v != v ? NAN : (float)clamp(v, -3.4e38, 3.4e38);
        memcpy(p, &f, 4);
        break;
    }
    default: {
        int32_t i = (int32_t)clamp(nearbyint(v), -2147483648.0, 2147483647.0);
        memcpy(p, &i, 4);
    }
    }
}

/* ---- the inputs ---- */

int8_t *sim_inputs(const sp_problem *p, uint64_t seed)
{
    size_t b = (size_t)(p->batch > 0 ? p->batch : 1);
    size_t n = b * (size_t)p->M * (size_t)p->K + b * (size_t)p->K * (size_t)p->N;
    int8_t *in = malloc(n ? n : 1);
    gsl_rng *rng = in ? gsl_rng_alloc(gsl_rng_mt19937) : NULL;
    if (!rng) {
        free(in);
        return NULL;
    }
    gsl_rng_set(rng, (unsigned long)seed);
    for (size_t j = 0; j < n; j++)
        in[j] = (int8_t)((int)gsl_rng_uniform_int(rng, 9) - 4);
    gsl_rng_free(rng);
    return in;
}

/* Stores inputs `in` into GM tensors A and B of k (host byte order). */
static void store_inputs(const cg_kernel *k, const int8_t *in, uint8_t *a, uint8_t *b)
{
    uint8_t *dst[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        const cg_buf *u = &k->tensors[i];
        size_t n = (size_t)u->rows * (size_t)u->cols;
        int es = cg_elem_size(u->elem);
        for (size_t j = 0; j < n; j++)
            store(u->elem, dst[i] + j * (size_t)es, *in++);
    }
}

void sim_le_bytes(uint8_t *p, size_t n, int es)
{
    const uint16_t one = 1;
    if (*(const uint8_t *)&one == 1)
        return;
    for (size_t i = 0; i + (size_t)es <= n; i += (size_t)es)
        for (int lo = 0, hi = es - 1; lo < hi; lo++, hi--) {
            uint8_t t = p[i + lo];
            p[i + lo] = p[i + hi];
            p[i + hi] = t;
        }
}

uint8_t *sim_input_bytes(const cg_kernel *k, const int8_t *in, size_t *len)
{
    size_t na = (size_t)k->tensors[0].rows * (size_t)k->tensors[0].cols *
                (size_t)cg_elem_size(k->tensors[0].elem);
    size_t nb = (size_t)k->tensors[1].rows * (size_t)k->tensors[1].cols *
                (size_t)cg_elem_size(k->tensors[1].elem);
    uint8_t *bytes = malloc(na + nb + 1);
    if (!bytes)
        return NULL;
    store_inputs(k, in, bytes, bytes + na);
    sim_le_bytes(bytes, na, cg_elem_size(k->tensors[0].elem));
    sim_le_bytes(bytes + na, nb, cg_elem_size(k->tensors[1].elem));
    *len = na + nb;
    return bytes;
}

/* ---- set-up ---- */

static bool check_tensors(sim *s)
{
    const sp_problem *p = &s->k->problem;
    int64_t b = p->batch > 0 ? p->batch : 1;
    int64_t want[3][2] = {{b * p->M, p->K}, {b * p->K, p->N}, {b * p->M, p->N}};
    for (int i = 0; i < 3; i++) {
        const cg_buf *u = &s->k->tensors[i];
        if (u->rows != want[i][0] || u->cols != want[i][1]) {
            sim_fail(s, MS_ILLEGAL,
                     "GM tensor %c is %d x %d; the problem (batch %lld, %lldx%lldx%lld) needs "
                     "%lld x %lld",
                     "ABC"[i], (int)u->rows, (int)u->cols, (long long)b, (long long)p->M,
                     (long long)p->N, (long long)p->K, (long long)want[i][0],
                     (long long)want[i][1]);
            return false;
        }
    }
    return true;
}

static bool init_core(sim *s, sim_core *c)
{
    const cg_core *code = c->code;
    for (int b = 0; b < code->nbufs; b++) {
        const cg_buf *u = &code->bufs[b];
        int64_t end = u->offset + (int64_t)u->rows * u->cols * cg_elem_size(u->elem);
        int64_t g = s->t->buf_align[u->space - 1];
        end = (end + g - 1) / g * g;
        if (end > c->memlen[u->space])
            c->memlen[u->space] = end;
    }
    for (int sp = CG_L1; sp < CG_NSPACE; sp++) {
        int64_t len = c->memlen[sp], g = s->t->buf_align[sp - 1];
        if (!len)
            continue;
        c->mem[sp] = malloc((size_t)len);
        c->shadow[sp] = calloc((size_t)(len / g), sizeof(sim_granule));
        if (!c->mem[sp] || !c->shadow[sp])
            return false;
        memset(c->mem[sp], GARBAGE, (size_t)len);
    }
    /* mmad operands are converted to 4-byte values (at most 4 per input byte) */
    c->sa = malloc((size_t)(c->memlen[CG_L0A] + 4) * 4);
    c->sb = malloc((size_t)(c->memlen[CG_L0B] + 4) * 4);
    c->sd = malloc((size_t)c->memlen[CG_L0C] + 4);
    c->flagvc = calloc((size_t)s->nflags, sizeof *c->flagvc);
    uint32_t(*snap)[CG_NPIPE] = calloc(CG_NPIPE * SIM_QDEPTH, sizeof *snap);
    if (!c->sa || !c->sb || !c->sd || !c->flagvc || !snap)
        return false;
    for (int p = 0; p < CG_NPIPE; p++)
        c->pipe[p].snap = snap + p * SIM_QDEPTH;
    return true;
}

bool sim_data_init(sim *s)
{
    if (!check_tensors(s))
        return true;
    for (int i = 0; i < 3; i++) {
        const cg_buf *u = &s->k->tensors[i];
        size_t n = (size_t)u->rows * (size_t)u->cols;
        s->gmem[i] = calloc(n ? n : 1, (size_t)cg_elem_size(u->elem));
        if (i == 2)
            s->written = calloc(n ? n : 1, 1);
        if (!s->gmem[i] || (i == 2 && !s->written))
            return false;
    }
    if (!(s->in = sim_inputs(&s->k->problem, s->seed)))
        return false;
    store_inputs(s->k, s->in, s->gmem[0], s->gmem[1]);
    for (int ci = 0; ci < s->ncores; ci++)
        if (!init_core(s, &s->cores[ci]))
            return false;
    return true;
}

void sim_data_free(sim *s)
{
    for (int i = 0; i < 3; i++)
        free(s->gmem[i]);
    free(s->in);
    free(s->written);
    for (int ci = 0; ci < s->ncores; ci++) {
        sim_core *c = &s->cores[ci];
        for (int sp = 0; sp < CG_NSPACE; sp++) {
            free(c->mem[sp]);
            free(c->shadow[sp]);
        }
        free(c->sa);
        free(c->sb);
        free(c->sd);
        free(c->flagvc);
        free(c->pipe[0].snap);
        for (int p = 0; p < CG_NPIPE; p++)
            free(c->pipe[p].ran);
    }
}

/* ---- hazards ---- */

static void merge(uint32_t *dst, const uint32_t *src)
{
    for (int p = 0; p < CG_NPIPE; p++)
        if (src[p] > dst[p])
            dst[p] = src[p];
}

static void hazard(sim *s, sim_core *c, int pipe, uint32_t idx, bool write, int space,
                   int other, uint32_t tick, bool other_wrote)
{
    uint32_t j = c->pipe[other].ran[tick - 1];
    const cg_instr *in = &c->code->code[idx], *oi = &c->code->code[j];
    char at[48];
    if (oi->line)
        snprintf(at, sizeof at, "#%u (line %u)", j, oi->line);
    else
        snprintf(at, sizeof at, "#%u", j);
    sim_fail_at(s, c->index, idx,
                "%s %s %s %s %s by %s at %s with no set_flag/wait_flag chain between them",
                cg_pipe_name(pipe), in->op == CG_MMAD ? "mmad" : "copy",
                write ? "writes" : "reads", cg_space_name(space),
                other_wrote ? "written" : "read", cg_pipe_name(other), at);
}

/* Checks and records an access of `pipe` to the granules of an on-chip operand. */
static void access(sim *s, sim_core *c, int pipe, uint32_t idx, const cg_operand *o, bool write)
{
    const cg_buf *u = &c->code->bufs[o->buf];
    int space = u->space;
    int64_t g = s->t->buf_align[space - 1], es = cg_elem_size(u->elem);
    int64_t stride = (int64_t)u->cols * es, row = (int64_t)o->cols * es;
    int64_t base = u->offset + ((int64_t)o->r0 * u->cols + o->c0) * es;
    int rows = o->rows;
    if (o->cols == u->cols) { /* whole rows: one contiguous range */
        row *= rows;
        rows = 1;
    }
    const uint32_t *v = c->vc[pipe];
    uint32_t tick = v[pipe];
    sim_granule *sh = c->shadow[space];
    int64_t last = -1;
    for (int r = 0; r < rows; r++) {
        int64_t lo = base + r * stride, hi = lo + row;
        for (int64_t gi = lo / g; gi <= (hi - 1) / g; gi++) {
            if (gi <= last)
                continue;
            last = gi;
            sim_granule *x = &sh[gi];
            if (x->wpipe != pipe && x->wtick > v[x->wpipe]) {
                hazard(s, c, pipe, idx, write, space, x->wpipe, x->wtick, true);
                return;
            }
            if (!write) {
                x->rtick[pipe] = tick;
                continue;
            }
            for (int q = 0; q < CG_NPIPE; q++)
                if (q != pipe && x->rtick[q] > v[q]) {
                    hazard(s, c, pipe, idx, write, space, q, x->rtick[q], false);
                    return;
                }
            x->wpipe = (uint8_t)pipe;
            x->wtick = tick;
        }
    }
}

/* ---- data movement ---- */

static uint8_t *base_of(sim *s, sim_core *c, const cg_operand *o, const cg_buf **u)
{
    *u = sim_region(s->k->tensors, c->code, o);
    uint8_t *p = o->buf < 0 ? s->gmem[-1 - o->buf] : c->mem[(*u)->space] + (*u)->offset;
    return p + ((int64_t)o->r0 * (*u)->cols + o->c0) * cg_elem_size((*u)->elem);
}

static void do_copy(sim *s, sim_core *c, const cg_instr *in)
{
    const cg_buf *su, *du;
    const uint8_t *sp = base_of(s, c, &in->a, &su);
    uint8_t *dp = base_of(s, c, &in->d, &du);
    int se = su->elem, de = du->elem, ses = cg_elem_size(se), des = cg_elem_size(de);
    int64_t sstride = (int64_t)su->cols * ses, dstride = (int64_t)du->cols * des;
    for (int r = 0; r < in->d.rows; r++) {
        uint8_t *d = dp + r * dstride;
        int done = 0;
        if (r < in->a.rows) {
            const uint8_t *src = sp + r * sstride;
            if (se == de)
                memcpy(d, src, (size_t)in->a.cols * (size_t)des);
            else
                for (int j = 0; j < in->a.cols; j++)
                    store(de, d + j * des, load(se, src + j * ses));
            done = in->a.cols;
        }
        memset(d + done * des, 0, (size_t)(in->d.cols - done) * (size_t)des);
    }
    if (in->d.buf == -3) {
        int64_t cols = s->k->tensors[2].cols;
        for (int r = 0; r < in->d.rows; r++)
            memset(s->written + (in->d.r0 + r) * cols + in->d.c0, 1, in->d.cols);
    }
}

static void do_mmad(sim *s, sim_core *c, const cg_instr *in)
{
    const cg_buf *ua, *ub, *ud;
    const uint8_t *ap = base_of(s, c, &in->a, &ua), *bp = base_of(s, c, &in->b, &ub);
    uint8_t *dp = base_of(s, c, &in->d, &ud);
    int m = in->a.rows, k = in->a.cols, n = in->b.cols;
    int64_t as = (int64_t)ua->cols * cg_elem_size(ua->elem),
            bs = (int64_t)ub->cols * cg_elem_size(ub->elem);
    int64_t ds = (int64_t)ud->cols * 4;
    if (ua->elem == CG_FP16) {
        float *a = c->sa, *b = c->sb;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < k; j++)
                a[i * k + j] = (float)load(CG_FP16, ap + i * as + j * 2);
        for (int i = 0; i < k; i++)
            for (int j = 0; j < n; j++)
                b[i * n + j] = (float)load(CG_FP16, bp + i * bs + j * 2);
        float *row = c->sd; /* row i of the result, summed over k in order */
        for (int i = 0; i < m; i++) {
            if (in->init)
                memset(row, 0, (size_t)n * sizeof *row);
            else
                memcpy(row, dp + i * ds, (size_t)n * sizeof *row);
            int kk = 0;
            /* four k steps a pass over the row, each element's sum still in k order
             * (the same roundings): a quarter of the row's loads and stores */
            for (; kk + 4 <= k; kk += 4) {
                const float *x = a + i * k + kk, *b0 = b + kk * n, *b1 = b0 + n, *b2 = b1 + n,
                            *b3 = b2 + n;
                for (int j = 0; j < n; j++)
                    row[j] = row[j] + x[0] * b0[j] + x[1] * b1[j] + x[2] * b2[j] + x[3] * b3[j];
            }
            for (; kk < k; kk++) {
                float x = a[i * k + kk];
                const float *bk = b + kk * n;
                for (int j = 0; j < n; j++)
                    row[j] += x * bk[j];
            }
            memcpy(dp + i * ds, row, (size_t)n * sizeof *row);
        }
    } else {
        int32_t *a = c->sa, *b = c->sb;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < k; j++)
                a[i * k + j] = (int8_t)ap[i * as + j];
        for (int i = 0; i < k; i++)
            for (int j = 0; j < n; j++)
                b[i * n + j] = (int8_t)bp[i * bs + j];
        uint32_t *row = c->sd; /* int32 arithmetic wraps, as the hardware's */
        for (int i = 0; i < m; i++) {
            if (in->init)
                memset(row, 0, (size_t)n * sizeof *row);
            else
                memcpy(row, dp + i * ds, (size_t)n * sizeof *row);
            for (int kk = 0; kk < k; kk++) {
                int32_t x = a[i * k + kk];
                const int32_t *bk = b + kk * n;
                for (int j = 0; j < n; j++)
                    row[j] += (uint32_t)(x * bk[j]);
            }
            memcpy(dp + i * ds, row, (size_t)n * sizeof *row);
        }
    }
}

void sim_data_exec(sim *s, sim_core *c, int pipe, uint32_t idx, int slot, const sim_op *o)
{
    uint32_t *v = c->vc[pipe];
    const cg_instr *in = &c->code->code[idx];
    sim_pipe *pp = &c->pipe[pipe];
    if (pp->nran == pp->capran) {
        uint32_t cap = pp->capran ? 2 * pp->capran : 256;
        uint32_t *ran = realloc(pp->ran, cap * sizeof *ran);
        if (!ran) {
            s->oom = s->stop = true;
            return;
        }
        pp->ran = ran;
        pp->capran = cap;
    }
    pp->ran[pp->nran++] = idx;
    v[pipe]++;
    if (slot >= 0)
        merge(v, c->pipe[pipe].snap[slot]);
    if (in->op == CG_WAIT_FLAG)
        merge(v, c->flagvc[o->flag]);
    if (in->op == CG_COPY) {
        if (in->a.buf >= 0)
            access(s, c, pipe, idx, &in->a, false);
        if (in->d.buf >= 0 && !s->stop)
            access(s, c, pipe, idx, &in->d, true);
        if (!s->stop)
            do_copy(s, c, in);
    } else if (in->op == CG_MMAD) {
        access(s, c, pipe, idx, &in->a, false);
        if (!s->stop)
            access(s, c, pipe, idx, &in->b, false);
        if (!s->stop && !in->init)
            access(s, c, pipe, idx, &in->d, false);
        if (!s->stop)
            access(s, c, pipe, idx, &in->d, true);
        if (!s->stop)
            do_mmad(s, c, in);
    }
}

void sim_data_barrier(sim *s, sim_core *c, int drained)
{
    (void)s;
    merge(c->vc[CG_S], c->vc[drained]);
}

/* ---- the result ---- */

/* Row r (of batch*M) of the exact C = A . B of inputs `in` into row[0..N); row32 is N
 * int32 of scratch. */
static void reference_row(const sp_problem *p, const int8_t *in, int64_t r, int64_t *row,
                          int32_t *row32)
{
    int64_t M = p->M, N = p->N, K = p->K, bi = r / M;
    const int8_t *a = in + r * K, *b = in + (p->batch > 0 ? p->batch : 1) * M * K + bi * K * N;
    /* |sums| <= 16 K: 32 bits hold them (and vectorise) unless K is huge */
    if (K < (INT64_C(1) << 26)) {
        memset(row32, 0, (size_t)N * sizeof *row32);
        for (int64_t kk = 0; kk < K; kk++)
            for (int64_t j = 0; j < N; j++)
                row32[j] += a[kk] * b[kk * N + j];
        for (int64_t j = 0; j < N; j++)
            row[j] = row32[j];
    } else {
        memset(row, 0, (size_t)N * sizeof *row);
        for (int64_t kk = 0; kk < K; kk++)
            for (int64_t j = 0; j < N; j++)
                row[j] += a[kk] * b[kk * N + j];
    }
}

int64_t sim_compare(const sp_problem *p, const int8_t *in, int elem, const uint8_t *c,
                    const uint8_t *written, char *why, size_t len)
{
    int64_t b = p->batch > 0 ? p->batch : 1, M = p->M, N = p->N;
    int es = cg_elem_size(elem);
    int64_t *row = malloc((size_t)(N ? N : 1) * sizeof *row);
    int32_t *row32 = malloc((size_t)(N ? N : 1) * sizeof *row32);
    if (!row || !row32) {
        free(row);
        free(row32);
        return -1;
    }
    int64_t wrong = 0, fr = -1, fc = -1;
    double got = 0, want = 0;
    for (int64_t r = 0; r < b * M; r++) {
        reference_row(p, in, r, row, row32);
        for (int64_t j = 0; j < N; j++) {
            uint8_t tmp[4];
            store(elem, tmp, (double)row[j]);
            double w = load(elem, tmp);
            bool seen = !written || written[r * N + j];
            double g = seen ? load(elem, c + (r * N + j) * es) : 0;
            if (seen && g == w)
                continue;
            if (wrong++ == 0) {
                fr = r;
                fc = j;
                got = seen ? g : NAN;
                want = w;
            }
        }
    }
    free(row);
    free(row32);
    int64_t total = b * M * N;
    if (!wrong)
        snprintf(why, len, "C equals the reference");
    else if (got != got && written && !written[fr * N + fc])
        snprintf(why, len, "C[%lld][%lld] never written (%lld of %lld elements wrong)",
                 (long long)fr, (long long)fc, (long long)wrong, (long long)total);
    else
        snprintf(why, len, "C[%lld][%lld] = %g, expected %g (%lld of %lld elements wrong)",
                 (long long)fr, (long long)fc, got, want, (long long)wrong, (long long)total);
    return wrong;
}

void sim_data_check(sim *s)
{
    char why[sizeof s->r->error];
    int64_t wrong = sim_compare(&s->k->problem, s->in, s->k->tensors[2].elem, s->gmem[2],
                                s->written, why, sizeof why);
    if (wrong < 0) {
        s->oom = true;
        return;
    }
    s->r->checked = true;
    if (wrong)
        sim_fail(s, MS_WRONG, "%s", why);
}
