/* cpu.c — the CPU kind: legality (the packed blocks must stay resident in the
 * cache level they are meant for; the no-pack family has rules of its own) and
 * why not, the load-cost model of both families, its figures checked and signed. */
#include <stdio.h>

#include "internal.h"

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

static bool computes(const sp_target *t, sp_dtype d)
{
    (void)t;
    return sp_cpu_computes(d);
}

static bool check_target(const sp_target *t, const char *n, char *err, size_t errlen)
{
    const sp_cpu *u = &t->cpu;
    if (u->simd_floats < 1 || u->simd_floats > 64 || (u->simd_floats & (u->simd_floats - 1)))
        FAIL("target '%s': field 'simd_floats' must be a power of two from 1 to 64", n);
    if (u->vregs < 3 || u->vregs > 256)
        FAIL("target '%s': field 'vregs' must be an integer from 3 to 256", n);
    if (u->fma_units < 1)
        FAIL("target '%s': field 'fma_units' must be a positive integer", n);
    if (u->load_ports < 1)
        FAIL("target '%s': field 'load_ports' must be a positive integer", n);
    for (int l = 0; l < SP_NCACHE; l++)
        if (u->cache[l] < (l == SP_CL3 ? 0 : 1024))
            FAIL("target '%s': field '%s' must be %s", n, sp_target_field_name(t, &u->cache[l]),
                 l == SP_CL3 ? "a byte count (0: no L3)" : "at least 1024 bytes");
    const double *bw[] = {&u->bw_l2, &u->bw_l3, &u->bw_mem, &u->bw_mem_shared};
    for (int i = 0; i < 4; i++)
        if (!(*bw[i] > 0))
            FAIL("target '%s': field '%s' must be positive", n, sp_target_field_name(t, bw[i]));
    if (!(u->fork_join >= 0 && u->fork_join <= SP_CPU_FORK_JOIN_MAX))
        FAIL("target '%s': field 'fork_join' must be a cycle count from 0 to 1e9", n);
    if (u->l1_ways < 0 || u->l1_ways > 256 || (u->l1_ways && u->cache[SP_CL1] % u->l1_ways))
        FAIL("target '%s': field 'l1_ways' must be 0 (not known) or a count from 1 to 256 "
             "that divides l1",
             n);
    const double *stall[] = {&u->load_stall, &u->prefetch_stall, &u->alias_stall,
                             &u->pack_stall, &u->stride_stall};
    for (size_t i = 0; i < sizeof stall / sizeof *stall; i++)
        if (!(*stall[i] >= 0 && *stall[i] <= SP_CPU_STALL_MAX))
            FAIL("target '%s': field '%s' must be a cycle count from 0 to 100", n,
                 sp_target_field_name(t, stall[i]));
    return true;
}

/* The NPU's figures (zeros, but for the cores) with no clock: a CPU's is
 * measured, a little different every run, and only turns the model's cycles
 * into microseconds, so its journals (seconds) do not depend on it. Then the
 * CPU's own; fork_join, load_stall, prefetch_stall, l1_ways, alias_stall,
 * pack_stall and stride_stall only when set, as before there were. */
static void sign(const sp_target *t, sp_text *o)
{
    const sp_cpu *u = &t->cpu;
    sp_npu_sign_figures(t, 0.0, o);
    sp_put(o, " cpu %d %d %d %d", u->simd_floats, u->vregs, u->fma_units, u->load_ports);
    for (int i = 0; i < SP_NCACHE; i++)
        sp_put(o, " %lld", (long long)u->cache[i]);
    sp_put(o, " %.17g %.17g %.17g %.17g", u->bw_l2, u->bw_l3, u->bw_mem, u->bw_mem_shared);
    if (u->fork_join > 0)
        sp_put(o, " fj %.17g", u->fork_join);
    if (u->load_stall > 0)
        sp_put(o, " ls %.17g", u->load_stall);
    if (u->prefetch_stall > 0)
        sp_put(o, " ps %.17g", u->prefetch_stall);
    if (u->l1_ways > 0)
        sp_put(o, " l1w %d", u->l1_ways);
    if (u->alias_stall > 0)
        sp_put(o, " as %.17g", u->alias_stall);
    if (u->pack_stall > 0)
        sp_put(o, " pk %.17g", u->pack_stall);
    if (u->stride_stall > 0)
        sp_put(o, " ss %.17g", u->stride_stall);
}

/* The generated host kernel (codegen/host.c) keeps an A micro-panel (mr x kc)
 * in L1 while the B panels of the packed kc x nc block stream from L2; the
 * block the strategy keeps across steps (IS: the A block, OS: the C block)
 * must stay in the core's share of L3. The A micro-panel may take half of
 * L1d and the B block half of L2: the A and C streams pass through the other
 * half, and a block filling L2 measured 4-6% slower. Double
 * buffering prefetches the next block's source beside the current one, so
 * it doubles the L2 and L3 need. The L1 and L2 needs are returned doubled
 * (compared with the whole level). */
int64_t sp_cpu_need(const sp_config *c, int level)
{
    /* in double, saturated: a config's blocks may be up to 2^31 (scripts and
     * files cap them at SP_VALUE_MAX, but sp_check takes any config) */
    double f = 4, db = c->double_buffer ? 2 : 1, need;
    switch (level) {
    case SP_CL1:
        need = 2.0 * c->mr * c->k * f; /* half of L1d: the rest streams B and C */
        break;
    case SP_CL2:
        need = 2.0 * c->k * c->n * f * db; /* half of L2: the rest streams A and C */
        break;
    default:
        need = c->strategy == SP_IS   ? (double)c->m * c->k * f * db
               : c->strategy == SP_OS ? (double)c->m * c->n * f * db
                                      : 0; /* WS keeps the B block, which already sits in L2 */
    }
    return need < 0x1p62 ? (int64_t)need : INT64_C(1) << 62;
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
    return sp_grid_div(c->cores, c->split, sp_ceil_div(p->M, c->mr), sp_ceil_div(p->N, c->nr),
                       gm, gn);
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
    if (c->nopack) {
        /* the no-pack family keeps no block resident, so no cache rule: the
         * model charges the level each read comes from */
        if (x->p->dtype != SP_FP32 || c->strategy != SP_OS || c->double_buffer)
            bad |= SP_BAD_NOPACK;
    } else {
        if (sp_cpu_need(c, SP_CL1) > t->cpu.cache[SP_CL1])
            bad |= SP_BAD_CACHE1;
        if (sp_cpu_need(c, SP_CL2) > t->cpu.cache[SP_CL2])
            bad |= SP_BAD_CACHE2;
        if (t->cpu.cache[SP_CL3] > 0 && sp_cpu_need(c, SP_CL3) > sp_cpu_l3_share(t, c->cores))
            bad |= SP_BAD_CACHE3;
    }
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

/* Cycles per byte of the C tiles the micro-kernels load and store, the
 * C a step revisits being `bytes`: L2's while that is within the L3 share,
 * else memory's. A tile's loads come after its k loop but do not depend on
 * it, so the out-of-order core issues them during the last k steps, which
 * hides L3's latency (not memory's): the lines then move at the rate they
 * enter L1, the L2 rate. (Charged at L3's, IS and WS rows with small k
 * blocks measured 4-9% faster than estimated, and calibrate made L3 93
 * B/cycle, its default 32, to make up for it.) */
static double c_inv_of(const sp_target *t, double bytes, int threads)
{
    return bytes <= (double)sp_cpu_l3_share(t, threads) ? 1.0 / t->cpu.bw_l2
                                                        : inv_bw_of(t, bytes, threads);
}

/* Micro-tiles that cover `dim` cut into blocks of `blk` (each block padded to
 * whole micro-tiles of `u`). */
static double tiles_of(int64_t dim, int64_t blk, int64_t u)
{
    int64_t full = dim / blk, rest = dim % blk;
    return (double)(full * sp_ceil_div(blk, u) + sp_ceil_div(rest, u));
}

/* Vectors of the micro-kernels across `dim` columns in tiles of nr = nv
 * vectors of w. Blocks are whole tiles, so only the last tile can be narrow:
 * it runs the kernel of its own width when the tile has narrower kernels
 * (SP_CPU_EDGE_VECTORS), else the whole one. */
static double vectors_of(int64_t dim, int64_t nr, int64_t w)
{
    int64_t nv = nr / w, edge = dim % nr;
    int64_t last = edge == 0 ? 0 : nv <= SP_CPU_EDGE_VECTORS ? sp_ceil_div(edge, w) : nv;
    return (double)(dim / nr * nv + last);
}

/* Columns of B's Nt that packing writes past the first SP_CPU_PACK_STREAMS
 * panels of their block: blocks of nc (whole panels of nr) and a last one
 * of Nt % nc, padded to whole panels. */
static double wide_cols(int64_t Nt, int64_t nc, int64_t nr)
{
    int64_t followed = SP_CPU_PACK_STREAMS * nr, last = sp_ceil_div(Nt % nc, nr) * nr;
    return (double)(Nt / nc * (nc > followed ? nc - followed : 0) +
                    (last > followed ? last - followed : 0));
}

/* Bytes of one way of L1d (rows this far apart share a set); 4096, x86's,
 * when the ways are not known. */
static int64_t l1_way_bytes(const sp_cpu *u)
{
    return u->l1_ways > 0 ? u->cache[SP_CL1] / u->l1_ways : 4096;
}

/* Rows of an A micro-panel of mr rows `stride` bytes apart, read in place,
 * that their L1d sets cannot hold. L1d has l1_ways ways of `period` bytes
 * (its size over its ways), and a line's set is its address within a way;
 * rows a multiple of the period apart (K = 1024, 2048, 3072 floats) share one
 * set, and those beyond l1_ways - 1 of a set (one way is left to the B and C
 * streams passing through) are evicted before their line's next k step. */
static double alias_rows(const sp_cpu *u, int64_t mr, int64_t stride)
{
    enum { LINE = 64, SETS_MAX = 4096 };
    if (u->l1_ways < 1 || !(u->alias_stall > 0) || mr < 1)
        return 0;
    int64_t period = l1_way_bytes(u), nsets = period / LINE;
    if (nsets < 1 || nsets > SETS_MAX)
        return 0;
    unsigned char rows[SETS_MAX] = {0};
    double over = 0;
    for (int64_t i = 0; i < mr; i++) {
        int64_t set = i * stride % period / LINE;
        if (++rows[set] > u->l1_ways - 1)
            over++;
    }
    return over;
}

/* The model follows codegen/host.c step by step for the busiest thread (its
 * share Mt x Nt of C in whole micro-tiles, blocks clamped to it):
 *  - B: packed whenever the step order reaches another kc x nc block: in WS
 *    order once per block, in IS and OS order once per block row of A (nI
 *    times), unless they meet each block SP_CPU_BCACHE_VISITS times or more
 *    and the thread's packed B fits SP_CPU_BCACHE_BYTES: then every block is
 *    kept, packed once, and read back from past L2 at each later visit
 *    (`back`, when the call's data passes half the L3 share). Packing is a
 *    phase of its own: the source read from the level that holds B (from
 *    L2 when double buffering fetched it during the previous step), written
 *    at the L2 rate into the one slot, or at the rate of the level that
 *    holds them into the kept blocks. Each row of the block goes to its
 *    ceil(nc / nr) panels, a stream each; the
 *    prefetchers follow SP_CPU_PACK_STREAMS of them, and every line written
 *    into the others waits for its line: pack_stall cycles (wide_cols), while
 *    the source comes from L2 (beyond, the pack waits on its reads anyway).
 *  - A: fp32 is read in place, its rows that their L1d set cannot hold
 *    costing alias_stall (below); only a last, partial micro-panel of a
 *    block is copied, or every one when A's rows are a multiple of
 *    SP_CPU_ALIAS_FLOATS apart and mr > SP_CPU_ALIAS_ROWS: a phase of its
 *    own, at every step, its source read from the level that holds A, as
 *    packing reads B's (charged at the L2 rate, OS and IS rows without
 *    double buffering measured 2-4% slower than estimated on 512x768x3072,
 *    whose 6 MiB of A were copied);
 *    bf16 and fp16 are widened to fp32 once per call, a phase of
 *    its own, in bands of whole row blocks of SP_CPU_AWIDE_BYTES (B packed
 *    again per band). Each step streams its A block, which the hardware
 *    prefetchers overlap with the FMAs, as they do the B panels from L2.
 *  - the micro-kernel: per k step mr x nv FMAs over the FMA units or mr + nv
 *    loads over the load ports, whichever is slower, and load_stall cycles
 *    per load (a load delays the FMAs even below the ports' limit: the tiles
 *    with fewer FMAs per load run slower); a narrow last tile runs a
 *    narrower kernel; each call loads and stores its C tile (c_inv_of: at the
 *    L2 rate unless the C a step revisits lies past the L3 share), and
 *    nothing more: the call's own instructions (the call, its pointers and
 *    loop counter) go to the integer ports, which the FMA-bound k loop
 *    leaves idle, so the out-of-order core runs them beside the previous
 *    tile's FMAs. (Charged 16 cycles a call, rows with small k blocks measured
 *    2-4% faster than estimated, those with large ones slower.) Rows of the A
 *    micro-panel that their L1d set cannot hold (alias_rows) cost
 *    alias_stall cycles each per k step (none when the panels are copied).
 *  - double buffering issues one prefetch per line of the next step's new
 *    blocks: a cycle each and prefetch_stall cycles more (what it hides, the
 *    prefetchers already hide on the machines measured; what it costs beyond
 *    issuing, the lines it brings in early evicting the current ones). It
 *    hides the latency of B's source, not its rate: the steps' work overlaps
 *    B's source arriving at the rate of the level that holds it.
 *  - more than one thread: fork_join cycles per call to start and join them. */
/* The no-pack family (codegen/host/gemm.c, NT_(direct)) for the busiest
 * thread (its share Mt x Nt of C in whole micro-tiles), as the generated code
 * runs it:
 *  - C in blocks of mc x nc (whole micro-tiles), in each k blocks of kc, in
 *    each a row of tiles at a time; each tile runs the micro-kernel over the
 *    k block with A's rows and B's columns read in place (B with its own row
 *    stride, N floats). Only a last column panel narrower than nr goes to
 *    the packing code: its K x (N % nr) part of B is packed once, as a phase
 *    of its own.
 *  - the micro-kernel computes as in the packing family.
 *  - B: the first row of tiles of each row block reads the block's columns
 *    from the level that holds B, the others from the level that holds the
 *    kc x nc block (L2 while it fits half of it). These loads overlap the
 *    FMAs while B's rows are at most 2 KiB apart, the longest stride the
 *    cores' stride prefetchers follow (Intel's optimization manual), or
 *    while its k blocks read at most SP_CPU_STREAMS rows, each along at
 *    least a 4 KiB page in every column block (the stream prefetchers follow
 *    each row); else each k step waits for its lines, and each line that
 *    comes from past L2 waits stride_stall cycles more: at one row of tiles
 *    (a GEMV) the kernel is then bound by the misses' latency, not by the
 *    level's rate. When the rows are a multiple of an L1d way (4 KiB
 *    when l1_ways is not known) apart, a tile's rows also fall in the same
 *    L1 (and few L2) sets: then every row of tiles reads B from where B lives.
 *  - A: each column block reads all of A from where A lives (a tile row's
 *    mr x kc rows then stay in L1 across the block's tiles), overlapped; its
 *    rows that their L1d set cannot hold cost alias_stall a k step, as in
 *    the packing family.
 *  - C: each tile loads and stores its C tile per k block, as in the packing
 *    family; while B streams, that work overlaps B's loads too.
 *  - more than one thread: fork_join cycles per call to start and join them. */
static void model_nopack(const sp_ctx *x, const sp_config *c, int gm, int gn, sp_figures *f)
{
    const sp_target *t = x->t;
    const sp_cpu *u = &t->cpu;
    const sp_problem *p = x->p;
    int threads = gm * gn;
    int64_t mr = c->mr, nr = c->nr, w = u->simd_floats, K = p->K;
    /* the busiest thread's share of C, in whole micro-tiles */
    int64_t M = sp_ceil_div(sp_ceil_div(p->M, mr), gm) * mr, N = sp_ceil_div(sp_ceil_div(p->N, nr), gn) * nr;
    if (M > p->M) M = p->M;
    if (N > p->N) N = p->N;
    int64_t Nd = N / nr * nr, tail = N - Nd; /* columns read in place, packed */
    int64_t mc = sp_ceil_div(c->m < M ? c->m : M, mr) * mr;
    int64_t nc = sp_ceil_div(c->n < N ? c->n : N, nr) * nr;
    int64_t kc = c->k < K ? c->k : K;
    int64_t nI = sp_ceil_div(M, mc), nJ = sp_ceil_div(N, nc), nP = sp_ceil_div(K, kc);
    double row_tiles = tiles_of(M, mc, mr);
    double col_tiles = (Nd ? tiles_of(Nd, nc, nr) : 0) + (tail ? 1 : 0);
    double vecs = vectors_of(N, nr, w);
    double fmas = (double)mr * vecs / u->fma_units;
    double nload = (double)mr * col_tiles + vecs;
    double loads = nload / u->load_ports;
    /* A's rows a multiple of SP_CPU_ALIAS_FLOATS apart: each row of tiles
     * reads a copy of its rows (once per column and k block), which no set
     * holds too many of */
    bool a_copied = K % SP_CPU_ALIAS_FLOATS == 0;
    double a_alias = a_copied ? 0 : alias_rows(u, mr, K * 4) * u->alias_stall * col_tiles;
    double compute =
        row_tiles * (double)K * ((fmas > loads ? fmas : loads) + u->load_stall * nload + a_alias);
    double b_bytes = (double)K * N * 4.0;
    bool alias = p->N * 4 % l1_way_bytes(u) == 0;
    int64_t narrow = N - (nJ - 1) * nc < nc ? N - (nJ - 1) * nc : nc; /* the narrowest block */
    bool streamed = kc < K && kc <= SP_CPU_STREAMS && narrow * 4 >= 4096;
    bool strided = p->N * 4 > 2048 && !streamed;
    double b_far = inv_bw_of(t, (double)K * p->N * 4.0, threads);
    double b_near = alias ? b_far : inv_bw_of(t, 2.0 * (double)kc * nc * 4.0, threads);
    double b_time = b_bytes * ((double)nI * b_far + (row_tiles - (double)nI) * b_near);
    if (strided) { /* the rows of tiles whose lines come from past L2 wait for each */
        bool b_past = (double)K * p->N * 4.0 > (double)u->cache[SP_CL2];
        bool near_past = alias || 2.0 * (double)kc * nc * 4.0 > (double)u->cache[SP_CL2];
        double far_rows = !b_past ? 0 : near_past ? row_tiles : (double)nI;
        b_time += b_bytes / 64.0 * far_rows * u->stride_stall;
    }
    double a_bytes = (double)M * K * 4.0;
    double a_stream = a_bytes * (double)nJ * inv_bw_of(t, (double)p->M * K * 4.0, threads);
    double calls = row_tiles * col_tiles * (double)nP;
    double c_inv = inv_bw_of(t, (double)mc * nc * 4.0, threads);
    double c_time = calls * ((double)(mr * nr) * 4.0 * 2.0 * c_inv + 16.0);
    if (streamed) /* the core's work, C's too, overlaps B's stream */
        compute += c_time, c_time = 0;
    double overlap = strided ? compute + b_time : compute > b_time ? compute : b_time;
    if (a_stream > overlap)
        overlap = a_stream;
    double packed = (double)K * tail; /* the narrow last panel */
    double copied = a_copied ? (double)M * K * (double)nJ : 0;
    double pack = packed * (4.0 * b_far + 4.0 / u->bw_l2) + copied * 8.0 / u->bw_l2;
    double batch = (double)p->batch;
    /* Sigma over all threads: the elements every thread copies of its share */
    f->load_elems = (packed * gm + copied * gn) * batch;
    f->store_elems = (double)p->M * p->N * batch;
    for (int i = 0; i < SP_NPATH; i++)
        f->bytes[i] = 0;
    f->core_load_elems = (packed + copied) * batch;
    f->est_cycles = (overlap + c_time + pack + (threads > 1 ? u->fork_join : 0)) * batch;
    f->buffer_use = (double)(sp_cpu_need(c, SP_CL1) + sp_cpu_need(c, SP_CL2));
    f->grid_m = gm;
    f->grid_n = gn;
}

void sp_cpu_model(const sp_ctx *x, const sp_config *c, int gm, int gn, sp_figures *f)
{
    if (c->nopack) {
        model_nopack(x, c, gm, gn, f);
        return;
    }
    const sp_target *t = x->t;
    const sp_cpu *u = &t->cpu;
    const sp_problem *p = x->p;
    int threads = gm * gn;
    int64_t mr = c->mr, nr = c->nr, w = u->simd_floats;
    /* the busiest thread's share of C, in whole micro-tiles */
    int64_t Mt = sp_ceil_div(sp_ceil_div(p->M, mr), gm) * mr, Nt = sp_ceil_div(sp_ceil_div(p->N, nr), gn) * nr;
    if (Mt > p->M) Mt = p->M;
    if (Nt > p->N) Nt = p->N;
    int64_t K = p->K;
    int64_t mc = sp_ceil_div(c->m < Mt ? c->m : Mt, mr) * mr;
    int64_t nc = sp_ceil_div(c->n < Nt ? c->n : Nt, nr) * nr;
    int64_t kc = c->k < K ? c->k : K;
    int64_t nI = sp_ceil_div(Mt, mc), nJ = sp_ceil_div(Nt, nc), nP = sp_ceil_div(K, kc);
    double in = (double)x->in; /* bytes per stored element: fp32 4, bf16 and fp16 2 */
    bool widen = p->dtype != SP_FP32;

    /* Elements copied: B blocks packed, A micro-panels widened or copied. */
    double a_once = (double)Mt * K, b_once = (double)K * Nt, b;
    double kept_bytes = (double)nP * nJ * (double)kc * nc * 4.0;
    bool revisits = c->strategy != SP_WS && nI > 1 && nJ * nP > 1;
    bool keep = revisits && nI >= SP_CPU_BCACHE_VISITS && kept_bytes <= SP_CPU_BCACHE_BYTES;
    /* bf16, fp16: A widened in bands of whole row blocks, rows kw floats apart */
    int64_t kw = sp_cpu_row_floats(K);
    int64_t band = (int64_t)(SP_CPU_AWIDE_BYTES / 4) / kw / mc * mc;
    double bands = widen && band < Mt ? (double)sp_ceil_div(Mt, band < mc ? mc : band) : 1;
    /* WS: the B block stays while A streams; IS, OS: it changes at every step */
    b = revisits && !keep ? b_once * nI : b_once * bands;
    /* fp32: blocks are whole micro-panels but the last, whose Mt % mr rows
     * are copied at every step (all rows when they alias in L1d:
     * SP_CPU_ALIAS_FLOATS, and are more than SP_CPU_ALIAS_ROWS); bf16, fp16:
     * all of A widened once */
    bool a_copied = !widen && K % SP_CPU_ALIAS_FLOATS == 0 && mr > SP_CPU_ALIAS_ROWS;
    double a = widen ? a_once : (double)(a_copied ? Mt : Mt % mr) * K * nJ;
    double a_in = widen ? 4.0 : in; /* bytes per element of the A the steps read */
    double a_foot = (double)p->M * K * a_in * (widen ? gn : 1); /* widened: a copy per column */

    /* The micro-kernel over every tile, padded rows included. */
    double row_tiles = tiles_of(Mt, mc, mr), col_tiles = tiles_of(Nt, nc, nr);
    double vecs = vectors_of(Nt, nr, w);
    double fmas = (double)mr * vecs / u->fma_units;  /* per row of tiles, k step */
    double nload = (double)mr * col_tiles + vecs;     /* broadcasts, B vectors */
    double loads = nload / u->load_ports;
    double alias = a_copied ? 0 : alias_rows(u, mr, (widen ? kw : K) * (int64_t)a_in) *
                                      u->alias_stall * col_tiles;
    double compute =
        row_tiles * (double)K * ((fmas > loads ? fmas : loads) + u->load_stall * nload + alias);
    double calls = row_tiles * col_tiles * (double)nP;
    double l2 = calls * (double)kc * (double)(nr + mr) * 4.0 / u->bw_l2;
    /* A streamed once per step through its block: a_once per column block */
    double a_stream = a_once * (double)nJ * a_in * inv_bw_of(t, a_foot, threads);
    double overlap = compute;
    if (l2 > overlap)
        overlap = l2;
    if (a_stream > overlap)
        overlap = a_stream;
    /* Kept B blocks: every visit after the first brings its blocks back
     * from the level past L2 that holds them, and while the call's data (its
     * share of A, B, C and the kept blocks) exceeds half the L3 share, the
     * prefetchers do not hide that: the micro-kernels wait on those bytes
     * beyond the L2 rate the l2 term charges. (512x3072x768 and 512x768x3072,
     * 9 MiB of B kept, 25.5 MiB in all: IS and OS rows keeping B measured
     * 1-6% slower than estimated against the others, more at more visits;
     * 512x768x768, 7.5 MiB in all, and smaller shapes: not.) */
    double back = 0, kept = b_once * 4.0; /* the blocks' data, no padding, read back */
    double call_bytes = kept + (a_once + b_once) * in + (double)Mt * Nt * 4.0;
    if (keep && call_bytes > (double)sp_cpu_l3_share(t, threads) / 2)
        back = ((double)nI - 1) * kept *
               (inv_bw_of(t, kept_bytes, threads) - 1.0 / u->bw_l2); /* from where written */
    /* C: each call loads and stores its tile (a first k block's store
     * brings the line in all the same); OS keeps its block across the k
     * blocks, IS revisits it after a row band of C (mc x Nt), WS after a
     * column band (Mt x nc) */
    int64_t c_rows = c->strategy == SP_WS ? Mt : mc, c_cols = c->strategy == SP_IS ? Nt : nc;
    double c_inv = c_inv_of(t, (double)c_rows * (double)c_cols * 4.0, threads);
    double c_time = calls * (double)(mr * nr) * 4.0 * 2.0 * c_inv;

    /* Packing and copying: a phase of its own. */
    /* B's source from L2: double buffering fetched it, or it fits there */
    bool b_near = c->double_buffer || (double)K * p->N * in <= (double)u->cache[SP_CL2];
    double b_src_inv = inv_bw_of(t, (double)K * p->N * in, threads); /* where B lives */
    double b_inv = b_near ? 1.0 / u->bw_l2 : b_src_inv;
    double w_inv = keep ? inv_bw_of(t, kept_bytes, threads) : 1.0 / u->bw_l2;
    double pack = b * (in * b_inv + 4.0 * w_inv);
    if (b_near) /* the lines past the followed panels, each pass over B */
        pack += b / b_once * (double)K * wide_cols(Nt, nc, nr) * 4.0 / 64.0 * u->pack_stall;
    if (widen) /* from where A lives into the widened copy's level */
        pack += a * (in * inv_bw_of(t, (double)p->M * K * in, threads) +
                     4.0 * inv_bw_of(t, a_foot, threads));
    else /* from where A lives (L2 when double buffering fetched it) into L1 */
        pack += a * (in * (c->double_buffer ? 1.0 / u->bw_l2 : inv_bw_of(t, a_foot, threads)) +
                     4.0 / u->bw_l2);

    /* Double buffering: one prefetch per line of each step's new blocks: A
     * when (i, p) changes (IS walks j inside it; OS and WS keep it across j
     * only when it is the one block of their inner loops), B's source when
     * it is still to be packed, C when (i, j) changes (OS walks p inside it;
     * IS and WS revisit it per k block unless their inner loop has one).
     * Each step prefetches the next one's, so the first step's blocks are
     * not (a few large blocks leave little to prefetch: 200x1000x64, WS
     * 192x960 in four steps, 8x48, double buffering measured 2% slower, not
     * the 8% it cost charged for all of A, B and C). */
    double prefetch = 0;
    if (c->double_buffer) {
        bool a_kept = c->strategy == SP_IS || (nP == 1 && (c->strategy == SP_OS || nI == 1));
        bool c_kept = c->strategy == SP_OS || (c->strategy == SP_IS ? nJ == 1 : nI == 1);
        double rows = (double)(mc < Mt ? mc : Mt), cols = (double)(nc < Nt ? nc : Nt);
        double a_new = a_once * (a_kept ? 1 : (double)nJ) - rows * (double)kc;
        double b_new = b - (double)kc * cols;
        double c_new = (double)Mt * Nt * (c_kept ? 1 : (double)nP) - rows * cols;
        prefetch = (a_new * a_in + b_new * in + c_new * 4.0) / 64.0 * (1.0 + u->prefetch_stall);
        /* It hides the latency of B's source, not its rate: those bytes come
         * from the level that holds B no faster than it gives them, beside
         * the steps' work (from L2, never faster than the l2 term's reads). */
        if (b * in * b_src_inv > overlap)
            overlap = b * in * b_src_inv;
    }
    /* more than one thread: the parallel region's start and join, per call */
    double cycles = overlap + back + c_time + pack + prefetch + (threads > 1 ? u->fork_join : 0);

    double batch = (double)p->batch;
    /* Sigma over all threads: the elements every thread copies of its share */
    double share_a = a_once > 0 ? (double)p->M * K * (a / a_once) : 0;
    double share_b = (double)K * p->N * (b / b_once);
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

/* The line of a cache level of which `what` (bytes) may use only half, the
 * streams named by `rest` passing through the other. */
static void half_line(sp_text *o, const char *level, const char *what, int64_t bytes, int db,
                      int64_t have, const char *rest)
{
    sp_line(o,
            "%s overflows: %s (%lld bytes%s) must fit half of %s (%lld of %lld; the rest "
            "streams %s)",
            level, what, (long long)bytes, db ? ", double-buffered: two copies" : "", level,
            (long long)have / 2, (long long)have, rest);
}

static void explain(const sp_ctx *x, const sp_config *c, unsigned bad, sp_text *o)
{
    const sp_target *t = x->t;
    const sp_problem *p = x->p;
    const sp_cpu *u = &t->cpu;
    int db = c->double_buffer ? 1 : 0;
    char tile[96];
    if (bad & SP_BAD_DIM)
        sp_line(o, "blocks %dx%dx%d: each must be at least 1", c->m, c->n, c->k);
    sp_explain_shared(x, c, bad, o);
    if (bad & SP_BAD_MICRO) {
        char why[160];
        sp_micro_why(t, (sp_micro){c->mr, c->nr}, why, sizeof why);
        sp_line(o, "%s", why);
    }
    if (bad & SP_BAD_CACHE1) {
        snprintf(tile, sizeof tile, "the A micro-panel %dx%d fp32", c->mr, c->k);
        half_line(o, "L1d", tile, sp_cpu_need(c, SP_CL1) / 2, 0, u->cache[SP_CL1], "B and C");
    }
    if (bad & SP_BAD_CACHE2) {
        snprintf(tile, sizeof tile, "the packed B block %dx%d fp32", c->k, c->n);
        half_line(o, "L2", tile, sp_cpu_need(c, SP_CL2) / 2, db, u->cache[SP_CL2], "A and C");
    }
    if (bad & SP_BAD_CACHE3)
        sp_line(o,
                "L3 overflows: %s keeps the %s block %dx%d fp32 resident, %lld bytes%s, the L3 "
                "share of %d thread%s is %lld",
                sp_strategy_name(c->strategy), c->strategy == SP_IS ? "packed A" : "C", c->m,
                c->strategy == SP_IS ? c->k : c->n, (long long)sp_cpu_need(c, SP_CL3),
                db ? " (double-buffered: two copies)" : "", c->cores, c->cores == 1 ? "" : "s",
                (long long)sp_cpu_l3_share(t, c->cores));
    if (bad & SP_BAD_NOPACK)
        sp_line(o,
                "pack = false (A and B read in place, each micro-tile over a k block) needs "
                "fp32, strategy OS and double_buffer off; this config has %s, strategy %s, "
                "double_buffer %s",
                sp_dtype_name(p->dtype), sp_strategy_name(c->strategy),
                c->double_buffer ? "on" : "off");
    if (bad & SP_BAD_SPLIT && c->split == SP_SPLIT_MN)
        sp_line(o,
                "split MN needs a grid of >= 2x2 threads dividing %d within %lldx%lld "
                "micro-tiles of %dx%d",
                c->cores, (long long)sp_ceil_div(p->M, c->mr), (long long)sp_ceil_div(p->N, c->nr),
                c->mr, c->nr);
    else if (bad & SP_BAD_SPLIT)
        sp_line(o, "split %s over %d threads leaves threads idle: %lldx%lld micro-tiles of %dx%d",
                sp_split_name(c->split), c->cores, (long long)sp_ceil_div(p->M, c->mr),
                (long long)sp_ceil_div(p->N, c->nr), c->mr, c->nr);
}

static void smallest(const sp_ctx *x, sp_config *c)
{
    (void)x;
    c->m = c->mr;
    c->n = c->nr;
    c->k = 1;
}

const sp_kind_ops sp_cpu_kind = {
    .info = {.name = "cpu", .a = "a cpu", .dtype = SP_FP32,
             .kernels = 1u << SP_FP32 | 1u << SP_BF16 | 1u << SP_FP16, .micro = true,
             .model_error = 0.05, .cuts_blocks = true,
             .measure = "host", .measure_does = "runs kernels on the host cpu",
             .measure_needs = "target \"host\", or "},
    .computes = computes,
    .check_target = check_target,
    .sign = sign,
    .check = sp_cpu_check,
    .grid = sp_cpu_grid,
    .explain = explain,
    .model = sp_cpu_model,
    .walk = sp_cpu_walk,
    .smallest = smallest,
};
