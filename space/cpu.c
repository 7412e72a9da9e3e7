/* cpu.c — legality and the load-cost model of CPU targets: the packed blocks
 * must stay resident in the cache level they are meant for (seed 002). */
#include <stdio.h>

#include "internal.h"

/* The generated host kernel (codegen/host.c) keeps an A micro-panel (mr x kc)
 * in L1 while the B panels of the packed kc x nc block stream from L2; the
 * block the strategy keeps across steps (IS: the A block, OS: the C block)
 * must stay in the core's share of L3. Double buffering prefetches the next
 * block's source beside the current one, so it doubles the L2 and L3 need. */
int64_t sp_cpu_need(const sp_config *c, int level)
{
    int64_t f = 4, db = c->double_buffer ? 2 : 1;
    switch (level) {
    case SP_CL1:
        return 2 * (int64_t)c->mr * c->k * f; /* half of L1d: the rest streams B and C */
    case SP_CL2:
        return (int64_t)c->k * c->n * f * db;
    default:
        if (c->strategy == SP_IS)
            return (int64_t)c->m * c->k * f * db;
        if (c->strategy == SP_OS)
            return (int64_t)c->m * c->n * f * db;
        return 0; /* WS keeps the B block, which already sits in L2 */
    }
}

/* The L3 bytes one thread may use: the shared L3 split among the threads. */
int64_t sp_cpu_l3_share(const sp_target *t, int threads)
{
    return t->cpu.cache[SP_CL3] / (threads >= 1 ? threads : 1);
}

bool sp_cpu_grid(const sp_problem *p, const sp_config *c, int *gm, int *gn)
{
    if (c->mr < 1 || c->nr < 1)
        return false;
    sp_divisors dv;
    sp_divisors_of(c->cores, &dv);
    return sp_grid_div(c->cores, c->split, sp_ceil_div(p->M, c->mr), sp_ceil_div(p->N, c->nr),
                       &dv, gm, gn);
}

unsigned sp_cpu_check(const sp_ctx *x, const sp_config *c)
{
    const sp_target *t = x->t;
    unsigned bad = 0;
    if (!sp_target_computes(t, x->p->dtype))
        bad |= SP_BAD_DTYPE;
    /* Blocks larger than the problem are clamped to it by the kernel, so no
     * dimension rule; a space drops such values for enumeration anyway. */
    if (c->m < 1 || c->n < 1 || c->k < 1)
        bad |= SP_BAD_DIM;
    if (!sp_micro_fits(t, (sp_micro){c->mr, c->nr}))
        bad |= SP_BAD_MICRO;
    if (sp_cpu_need(c, SP_CL1) > t->cpu.cache[SP_CL1])
        bad |= SP_BAD_CACHE1;
    if (sp_cpu_need(c, SP_CL2) > t->cpu.cache[SP_CL2])
        bad |= SP_BAD_CACHE2;
    if (t->cpu.cache[SP_CL3] > 0 && sp_cpu_need(c, SP_CL3) > sp_cpu_l3_share(t, c->cores))
        bad |= SP_BAD_CACHE3;
    if (c->cores < 1 || c->cores > t->cores)
        bad |= SP_BAD_CORES;
    int gm, gn;
    if (c->cores >= 1 && !(bad & SP_BAD_MICRO) && !sp_cpu_grid(x->p, c, &gm, &gn))
        bad |= SP_BAD_SPLIT;
    return bad;
}

/* Cycles per byte from the smallest level that holds `bytes` for one of
 * `threads` threads: L2, the L3 share, or memory (shared bandwidth). */
static double inv_bw_of(const sp_target *t, double bytes, int threads)
{
    const sp_cpu *u = &t->cpu;
    if (bytes <= (double)u->cache[SP_CL2])
        return 1.0 / u->bw_l2;
    if (bytes <= (double)sp_cpu_l3_share(t, threads))
        return 1.0 / u->bw_l3;
    double mem = u->bw_mem, shared = u->bw_mem_shared / threads;
    return 1.0 / (mem < shared ? mem : shared);
}

/* Micro-tiles that cover `dim` cut into blocks of `blk` (each block padded to
 * whole micro-tiles of `u`). */
static double tiles_of(int64_t dim, int64_t blk, int64_t u)
{
    int64_t full = dim / blk, rest = dim % blk;
    return (double)(full * sp_ceil_div(blk, u) + sp_ceil_div(rest, u));
}

void sp_cpu_model(const sp_ctx *x, const sp_config *c, int gm, int gn, sp_figures *f)
{
    const sp_target *t = x->t;
    const sp_cpu *u = &t->cpu;
    const sp_problem *p = x->p;
    int threads = gm * gn;
    int64_t mr = c->mr, nr = c->nr, nv = nr / u->simd_floats;
    /* the busiest thread's share of C, in whole micro-tiles */
    int64_t Mt = sp_ceil_div(sp_ceil_div(p->M, mr), gm) * mr, Nt = sp_ceil_div(sp_ceil_div(p->N, nr), gn) * nr;
    if (Mt > p->M) Mt = p->M;
    if (Nt > p->N) Nt = p->N;
    int64_t K = p->K;
    int64_t mc = sp_ceil_div(c->m < Mt ? c->m : Mt, mr) * mr;
    int64_t nc = sp_ceil_div(c->n < Nt ? c->n : Nt, nr) * nr;
    int64_t kc = c->k < K ? c->k : K;
    int64_t nI = sp_ceil_div(Mt, mc), nJ = sp_ceil_div(Nt, nc), nP = sp_ceil_div(K, kc);

    /* Elements packed: each block is packed when the step order reaches a
     * block other than the one in the buffer. */
    double a_once = (double)Mt * K, b_once = (double)K * Nt, a, b;
    switch (c->strategy) {
    case SP_IS: /* i, p outer; B blocks stream */
        a = a_once;
        b = b_once * (nJ == 1 && nP == 1 ? 1 : nI);
        break;
    case SP_WS: /* j, p outer; A blocks stream */
        b = b_once;
        a = a_once * (nI == 1 && nP == 1 ? 1 : nJ);
        break;
    default: /* OS: i, j outer, p inner */
        a = a_once * (nP == 1 ? 1 : nJ);
        b = b_once * (nP == 1 && nJ == 1 ? 1 : nI);
        break;
    }

    /* The micro-kernel: per k step mr broadcasts and nv B loads for mr*nv
     * FMAs; B panels stream from L2; C is loaded and stored once per call. */
    double tiles = tiles_of(Mt, mc, mr) * tiles_of(Nt, nc, nr);
    double step = (double)(mr * nv) / u->fma_units, ld = (double)(mr + nv) / u->load_ports;
    double compute = tiles * (double)K * (step > ld ? step : ld);
    double l2 = tiles * (double)K * (double)nr * 4.0 / u->bw_l2;
    double calls = tiles * (double)nP;
    double c_bytes = (double)mc * nc * 4.0;
    double c_inv = inv_bw_of(t, c->strategy == SP_OS ? c_bytes : (double)Mt * Nt * 4.0, threads);
    double c_time = calls * (double)(mr * nr) * 4.0 * 2.0 * c_inv + calls * 16.0;

    /* Packing reads the source from wherever the operand lives and writes
     * the packed block (into L1/L2 at the L2 rate); with double buffering the
     * source was prefetched while the previous block computed. */
    double in = (double)x->in; /* bytes per stored element: fp32 4, bf16 2 */
    double a_inv = inv_bw_of(t, (double)p->M * K * in, threads);
    double b_inv = inv_bw_of(t, (double)K * p->N * in, threads);
    double fetch = (a * a_inv + b * b_inv) * in, write = (a + b) * 4.0 / u->bw_l2;
    double overlap = compute > l2 ? compute : l2;
    if (c->double_buffer && fetch > overlap)
        overlap = fetch;
    double cycles = overlap + c_time + write + (c->double_buffer ? 0.0 : fetch);

    double batch = (double)p->batch;
    /* Sigma over all threads: the packed elements of every thread's share */
    double share_a = (double)p->M * K * (a / a_once), share_b = (double)K * p->N * (b / b_once);
    f->load_elems = (share_a * gn + share_b * gm) * batch;
    f->store_elems = (double)p->M * p->N * (double)nP * batch;
    for (int i = 0; i < SP_NPATH; i++)
        f->bytes[i] = 0;
    f->core_load_elems = (a + b) * batch;
    f->est_cycles = cycles * batch;
    f->buffer_use = (double)(sp_cpu_need(c, SP_CL1) + sp_cpu_need(c, SP_CL2));
    f->grid_m = gm;
    f->grid_n = gn;
}
