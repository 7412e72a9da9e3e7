/* model.c — the load-volume and time model on hand-worked cases: each
 * strategy, tails, double buffering, splits, and the worked 512x768x768 example. */
#include <math.h>
#include <omp.h>

#include "check.h"
#include "fixtures.h"

static sp_config cfg(int st, int m, int n, int k, int db, int cores, int split)
{
    sp_config c = {.m = m, .n = n, .k = k, .cores = cores, .strategy = (uint8_t)st,
                   .double_buffer = (uint8_t)db, .split = (uint8_t)split};
    return c;
}

static int same(const sp_candidate *a, const sp_candidate *b, size_t n);

static sp_figures model(const sp_target *t, const sp_problem *p, sp_config c)
{
    sp_figures f;
    CHECK_INT(sp_check(t, p, &c), 0);
    sp_model(t, p, &c, &f);
    return f;
}

/* The model's worked example: for 512x768x768 fp16
 * on one core without double buffering, the best tile by Sigma per strategy
 * is IS (32,32,768) with 9830400, WS (32,32,768) with 10027008 (M != N breaks
 * the symmetry) and OS (256,256,128) with 2359296, and OS is best. */
static void worked_example(void)
{
    sp_target t = fx_ascend910();
    sp_problem p = fx_problem(512, 768, 768, 1, SP_FP16);
    int32_t one = 1;
    sp_split m = SP_SPLIT_M;
    sp_space s = fx_space(1, 0, &one, 1, &m, 1);
    static const struct { int st, m, n, k; double sigma; } want[] = {
        {SP_IS, 32, 32, 768, 9830400}, {SP_WS, 32, 32, 768, 10027008},
        {SP_OS, 256, 256, 128, 2359296}};
    for (int i = 0; i < 3; i++) {
        sp_space only = s;
        for (int st = 0; st < SP_NSTRATEGY; st++)
            only.strategy[st] = st == want[i].st;
        sp_candidate best;
        sp_counts n;
        CHECK_INT(sp_rank_top(&t, &p, &only, SP_BY_VOLUME, 1, &best, &n), 1);
        CHECK_INT(best.config.m, want[i].m);
        CHECK_INT(best.config.n, want[i].n);
        CHECK_INT(best.config.k, want[i].k);
        CHECK_DBL(best.fig.load_elems, want[i].sigma);
    }
    /* The closed forms of the three schedules on divisible tiles. */
    double M = 512, N = 768, K = 768;
    CHECK_DBL(model(&t, &p, cfg(SP_OS, 256, 256, 128, 0, 1, 0)).load_elems,
              M * N * K * (256 + 256) / (256.0 * 256));
    CHECK_DBL(model(&t, &p, cfg(SP_IS, 32, 32, 768, 0, 1, 0)).load_elems, M * K + M * N * K / 32);
    CHECK_DBL(model(&t, &p, cfg(SP_WS, 32, 32, 768, 0, 1, 0)).load_elems, K * N + M * N * K / 32);
    /* OS is best overall, by volume and by estimated time. */
    sp_candidate top;
    sp_rank_top(&t, &p, &s, SP_BY_VOLUME, 1, &top, NULL);
    CHECK_INT(top.config.strategy, SP_OS);
    sp_rank_top(&t, &p, &s, SP_BY_TIME, 1, &top, NULL);
    CHECK_INT(top.config.strategy, SP_OS);
    /* The example's tile fits the ascend910 buffers exactly; its C-tile fills
     * L0C and drains through UB in pieces. */
    sp_config os = cfg(SP_OS, 256, 256, 128, 0, 1, 0);
    CHECK_INT(sp_check(&t, &p, &os), 0);
    sp_space_free(&s);
}

/* Shapes that are not multiples of the tile: padded to the fractal, tail
 * tiles counted with their padding. 100x50x40 pads to 112x64x48. */
static void tails(void)
{
    sp_target t = fx_ascend910();
    sp_problem p = fx_problem(100, 50, 40, 1, SP_FP16);
    /* OS 32x32x16: TM = 4 (32,32,32,16), TN = 2: Kp(Mp TN + Np TM). */
    CHECK_DBL(model(&t, &p, cfg(SP_OS, 32, 32, 16, 0, 1, 0)).load_elems, 48.0 * (112 * 2 + 64 * 4));
    /* IS needs k = Kp = 48: Mp Kp + TM Kp Np. */
    CHECK_DBL(model(&t, &p, cfg(SP_IS, 32, 32, 48, 0, 1, 0)).load_elems,
              112.0 * 48 + 4.0 * 48 * 64);
    /* WS: Kp Np + TN Kp Mp. */
    CHECK_DBL(model(&t, &p, cfg(SP_WS, 32, 32, 48, 0, 1, 0)).load_elems,
              48.0 * 64 + 2.0 * 48 * 112);
    sp_figures f = model(&t, &p, cfg(SP_OS, 32, 32, 16, 0, 1, 0));
    CHECK_DBL(f.store_elems, 112.0 * 64);
    CHECK_DBL(f.bytes[SP_GM_L1], f.load_elems * 2);
    CHECK_DBL(f.bytes[SP_L1_L0A] + f.bytes[SP_L1_L0B], f.bytes[SP_GM_L1]);
    CHECK_DBL(f.bytes[SP_L0C_UB], 112.0 * 64 * 4);
    /* IS/WS with k != K are illegal; tiles beyond the padded dims too. */
    sp_config c = cfg(SP_IS, 32, 32, 32, 0, 1, 0);
    CHECK_INT(sp_check(&t, &p, &c), SP_BAD_FULL_K);
    c = cfg(SP_OS, 128, 32, 16, 0, 1, 0);
    CHECK_INT(sp_check(&t, &p, &c), SP_BAD_DIM);
    c = cfg(SP_OS, 24, 32, 16, 0, 1, 0);
    CHECK_INT(sp_check(&t, &p, &c), SP_BAD_ALIGN_M);
    /* int8 fractals are 16x32: k must be a multiple of 32. */
    sp_problem q = fx_problem(64, 64, 64, 1, SP_INT8);
    c = cfg(SP_OS, 16, 16, 16, 0, 1, 0);
    CHECK_INT(sp_check(&t, &q, &c), SP_BAD_ALIGN_K);
    c.k = 32;
    CHECK_INT(sp_check(&t, &q, &c), 0);
    /* Batch multiplies every volume. */
    sp_problem b = fx_problem(100, 50, 40, 3, SP_FP16);
    CHECK_DBL(model(&t, &b, cfg(SP_OS, 32, 32, 16, 0, 1, 0)).load_elems,
              3 * 48.0 * (112 * 2 + 64 * 4));
}

/* One 32x32x32 step on the round target, worked by hand:
 * MTE2 2048/64 + 2048/64 = 32 + 32; MTE1 2048/512 + 2048/256 = 4 + 8;
 * mmad 32768 / 4096 = 8; FIX 4096/256 = 16; MTE3 4096/64 = 64. */
static void cycles(void)
{
    sp_target t = fx_round();
    sp_problem p = fx_problem(32, 32, 32, 1, SP_FP16);
    /* One step cannot overlap anything: the serial sum either way. */
    CHECK_DBL(model(&t, &p, cfg(SP_OS, 32, 32, 32, 0, 1, 0)).est_cycles, 64 + 12 + 8 + 16 + 64);
    CHECK_DBL(model(&t, &p, cfg(SP_OS, 32, 32, 32, 1, 1, 0)).est_cycles, 64 + 12 + 8 + 16 + 64);
    /* Two k-steps of 16: MTE2 16 + 16, MTE1 2 + 4, mmad 4; the second drains
     * (FIX 16, MTE3 64). Loads bound both steps (32 + 32) after a fill of
     * (32 + 6 + 4) - 32 = 10; MTE3 starts after the second step's mmad and
     * the FIX: 10 + 32 + 32 + 16, then 64: 154 single and double (the
     * simulator: 152 plus the scalar unit's issue). */
    CHECK_DBL(model(&t, &p, cfg(SP_OS, 32, 32, 16, 0, 1, 0)).est_cycles, 154);
    CHECK_DBL(model(&t, &p, cfg(SP_OS, 32, 32, 16, 1, 1, 0)).est_cycles, 154);
    /* A slow cube (256 MACs/cycle, mmad 64): single-buffered MTE1 waits for
     * the mmad, so steps cost 2 + 4 + 64 = 70 and 6 + 64 + 16 = 86, fill 32:
     * 70 + 86 + 32 + 64 = 252. Double-buffered the loads hide: 64 and 80,
     * fill 38: 246. */
    sp_target slow = fx_round();
    slow.macs[SP_FP16] = 256;
    CHECK_DBL(model(&slow, &p, cfg(SP_OS, 32, 32, 16, 0, 1, 0)).est_cycles, 252);
    CHECK_DBL(model(&slow, &p, cfg(SP_OS, 32, 32, 16, 1, 1, 0)).est_cycles, 246);
    /* Latencies add per copy instruction: 2 MTE2 + 2 MTE1 + FIX + MTE3. */
    sp_target l = fx_round();
    for (int i = 0; i < SP_NPATH; i++)
        l.path[i].latency = 10;
    CHECK_DBL(model(&l, &p, cfg(SP_OS, 32, 32, 32, 0, 1, 0)).est_cycles, 164 + 60);
}

/* Double buffering doubles L1, L0A and L0B needs; never slower. */
static void double_buffer(void)
{
    sp_target t = fx_ascend910();
    sp_problem p = fx_problem(512, 768, 768, 1, SP_FP16);
    sp_config c = cfg(SP_OS, 256, 256, 128, 1, 1, 0);
    CHECK_INT(sp_check(&t, &p, &c), SP_BAD_L0A | SP_BAD_L0B);
    char why[512];
    CHECK_INT(sp_explain(&t, &p, &c, why, sizeof why), 2);
    CHECK_STR(why, "L0A overflows: A-tile 256x128 fp16 needs 131072 bytes (double-buffered: two copies), L0A has 65536\n"
                   "L0B overflows: B-tile 128x256 fp16 needs 131072 bytes (double-buffered: two copies), L0B has 65536\n");
    CHECK_INT(sp_explain_line(&t, &p, &c, why, sizeof why), 2);
    CHECK_STR(why, "L0A overflows: A-tile 256x128 fp16 needs 131072 bytes (double-buffered: two copies), L0A has 65536; "
                   "L0B overflows: B-tile 128x256 fp16 needs 131072 bytes (double-buffered: two copies), L0B has 65536");
    char small[24];
    sp_explain_line(&t, &p, &c, small, sizeof small); /* cut, still terminated */
    CHECK_STR(small, "L0A overflows: A-tile 2");
    sp_figures one = model(&t, &p, cfg(SP_OS, 256, 256, 64, 0, 1, 0));
    sp_figures two = model(&t, &p, cfg(SP_OS, 256, 256, 64, 1, 1, 0));
    CHECK_DBL(two.load_elems, one.load_elems);
    CHECK(two.est_cycles < one.est_cycles);
    /* L0C holds one accumulator tile whatever the buffering. */
    c = cfg(SP_OS, 256, 512, 16, 0, 1, 0);
    CHECK_INT(sp_check(&t, &p, &c), SP_BAD_L0C);
    /* A larger k-step with the same volume never adds load volume. */
    CHECK_DBL(model(&t, &p, cfg(SP_OS, 128, 128, 128, 0, 1, 0)).load_elems,
              model(&t, &p, cfg(SP_OS, 128, 128, 32, 0, 1, 0)).load_elems);
}

/* Multicore: disjoint parts of C per core, shared GM bandwidth. */
static void splits(void)
{
    sp_target t = fx_ascend910();
    sp_problem p = fx_problem(512, 768, 768, 1, SP_FP16);
    /* OS volume is the same whatever the split; the busiest core's halves. */
    sp_figures one = model(&t, &p, cfg(SP_OS, 256, 256, 128, 0, 1, SP_SPLIT_M));
    sp_figures two = model(&t, &p, cfg(SP_OS, 256, 256, 128, 0, 2, SP_SPLIT_M));
    CHECK_DBL(two.load_elems, one.load_elems);
    CHECK_DBL(two.core_load_elems, one.load_elems / 2);
    CHECK_INT(two.grid_m, 2);
    CHECK(two.est_cycles < 0.6 * one.est_cycles);
    /* IS split over N: every core column re-loads its A rows. */
    sp_figures isn = model(&t, &p, cfg(SP_IS, 32, 32, 768, 0, 2, SP_SPLIT_N));
    CHECK_DBL(isn.load_elems, 2.0 * 512 * 768 + 16.0 * 768 * 768);
    /* WS split over M: every core row re-loads its B columns. */
    sp_figures wsm = model(&t, &p, cfg(SP_WS, 32, 32, 768, 0, 4, SP_SPLIT_M));
    CHECK_DBL(wsm.load_elems, 4.0 * 768 * 768 + 24.0 * 768 * 512);
    /* No core without work: 2 M-tiles cannot feed 4 cores. */
    sp_config c = cfg(SP_OS, 256, 256, 128, 0, 4, SP_SPLIT_M);
    CHECK_INT(sp_check(&t, &p, &c), SP_BAD_SPLIT);
    /* MN needs a real 2-D grid: 4 cores on 2x3 tiles -> 2x2; 2 cores -> none. */
    c.split = SP_SPLIT_MN;
    int gm = 0, gn = 0;
    CHECK(sp_grid(&t, &p, &c, &gm, &gn));
    CHECK_INT(gm, 2);
    CHECK_INT(gn, 2);
    c.cores = 2;
    CHECK_INT(sp_check(&t, &p, &c), SP_BAD_SPLIT);
    c.cores = 64;
    CHECK_INT(sp_check(&t, &p, &c), SP_BAD_CORES | SP_BAD_SPLIT);
    /* Cores share 1200 B/cycle of GM: 32 cores stream at 37.5 B/cycle each,
     * not 64, so 32 cores are less than 32x faster than one on loads. */
    sp_problem big = fx_problem(4096, 4096, 768, 1, SP_FP16);
    sp_figures c1 = model(&t, &big, cfg(SP_OS, 128, 128, 64, 0, 1, SP_SPLIT_M));
    sp_figures c32 = model(&t, &big, cfg(SP_OS, 128, 128, 64, 0, 32, SP_SPLIT_M));
    CHECK(c32.est_cycles > c1.est_cycles / 32);
}

/* The enumerator yields exactly the configs sp_check accepts, with sp_model's
 * figures; the top-k is the prefix of the full ranking; threads don't matter. */
static void enumerator(void)
{
    sp_target t = fx_ascend910();
    t.buf_bytes[SP_L0A] = t.buf_bytes[SP_L0B] = 8 * KiB; /* keep the brute force small */
    t.buf_bytes[SP_L0C] = 16 * KiB;
    t.buf_bytes[SP_L1] = 24 * KiB;
    t.cores = 6;
    sp_problem p = fx_problem(200, 90, 70, 2, SP_FP16);
    int32_t cores[] = {1, 2, 3, 4, 6, 8};
    sp_split splits[] = {SP_SPLIT_N, SP_SPLIT_M, SP_SPLIT_MN};
    sp_space s = fx_space(1, 1, cores, 6, splits, 3);
    int32_t mk[] = {16, 32, 48, 64, 24, 208, 80, 96, 128, 192};
    s.m = fx_axis(mk, 10);
    sp_candidate *all;
    sp_counts n;
    size_t got = sp_enumerate(&t, &p, &s, &all, &n);
    /* Brute force over the same axes (auto n, k: multiples of 16 to 96/80). */
    size_t want = 0, bad_fig = 0;
    for (int st = 0; st < 3; st++)
        for (int db = 0; db < 2; db++)
            for (size_t mi = 0; mi < s.m.n; mi++)
                for (int nn = 16; nn <= 96; nn += 16)
                    for (int kk = 16; kk <= 80; kk += 16)
                        for (int ci = 0; ci < 6; ci++)
                            for (int si = 0; si < 3; si++) {
                                if (cores[ci] == 1 && si > 0)
                                    continue; /* one core is enumerated once */
                                sp_config c = cfg(st, s.m.v[mi], nn, kk, db, cores[ci], splits[si]);
                                if (sp_check(&t, &p, &c))
                                    continue;
                                sp_figures f;
                                sp_model(&t, &p, &c, &f);
                                size_t j = 0;
                                while (j < got && sp_cmp_config(&all[j].config, &c))
                                    j++;
                                if (j == got || memcmp(&all[j].fig, &f, sizeof f))
                                    bad_fig++;
                                want++;
                            }
    CHECK(want > 100);
    CHECK_INT(got, want);
    CHECK_INT(n.legal, want);
    CHECK_INT(bad_fig, 0);
    /* raw = 3 strategies x 2 db x 9 m (208 > 208? no: Mp = 208 keeps it) x 6 n x 5 k x 6 x 3 */
    CHECK_INT(n.raw, 3 * 2 * 10 * 6 * 5 * 6 * 3);
    sp_sort(all, got, SP_BY_TIME);
    sp_candidate top[40];
    omp_set_num_threads(1);
    CHECK_INT(sp_rank_top(&t, &p, &s, SP_BY_TIME, 40, top, NULL), 40);
    CHECK(same(top, all, 40));
    omp_set_num_threads(2);
    sp_candidate top2[40];
    CHECK_INT(sp_rank_top(&t, &p, &s, SP_BY_TIME, 40, top2, NULL), 40);
    CHECK(same(top2, all, 40));
    /* Asking for more than exist returns them all. */
    sp_candidate *many = malloc((got + 10) * sizeof *many);
    CHECK_INT(sp_rank_top(&t, &p, &s, SP_BY_TIME, got + 10, many, NULL), got);
    free(many);
    free(all);
    sp_space_free(&s);
}

/* Values 1..n. */
static int32_t *one_to(int32_t n)
{
    int32_t *v = malloc((size_t)n * sizeof *v);
    for (int32_t i = 0; v && i < n; i++)
        v[i] = i + 1;
    return v;
}

/* Extreme but accepted inputs: dimensions, batch and axes at
 * SP_VALUE_MAX. The raw count saturates instead of overflowing (UBSan
 * would stop here); a cores axis of 2^20 values costs no more than the
 * values the target has; the result is the same. */
static void extremes(void)
{
    sp_target t = fx_ascend910();
    t.buf_bytes[SP_L0A] = t.buf_bytes[SP_L0B] = 8 * KiB; /* few legal tiles: a quick test */
    t.buf_bytes[SP_L0C] = 16 * KiB;
    t.buf_bytes[SP_L1] = 24 * KiB;
    sp_problem p = fx_problem(SP_VALUE_MAX, SP_VALUE_MAX, SP_VALUE_MAX, SP_VALUE_MAX, SP_FP16);
    int32_t *cores = one_to(SP_VALUE_MAX);
    sp_split splits[] = {SP_SPLIT_M, SP_SPLIT_N, SP_SPLIT_MN};
    /* OS only: 2 db x 65536^3 tiles x 8192 cores x 3 splits > 2^63 */
    sp_space s = fx_space(1, 1, cores, 8192, splits, 3);
    s.strategy[SP_IS] = s.strategy[SP_WS] = false;
    sp_space s32 = fx_space(1, 1, cores, 32, splits, 3);
    s32.strategy[SP_IS] = s32.strategy[SP_WS] = false;
    sp_candidate top[4], top32[4];
    sp_counts n, n32;
    CHECK_INT(sp_rank_top(&t, &p, &s, SP_BY_TIME, 4, top, &n), 4);
    CHECK_INT(n.raw, INT64_MAX);
    CHECK_INT(sp_rank_top(&t, &p, &s32, SP_BY_TIME, 4, top32, &n32), 4);
    CHECK_INT(n32.raw, 2 * (INT64_C(1) << 48) * 32 * 3);
    CHECK_INT(n.legal, n32.legal);
    CHECK(same(top, top32, 4));
    CHECK(top[0].fig.est_cycles > 0 && top[0].fig.load_elems > 0);
    sp_space_free(&s);
    sp_space_free(&s32);

    /* Every strategy, every core count up to 2^20: as fast as the 32 the
     * target has (IS and WS jump to k = K instead of walking the k axis). */
    s = fx_space(1, 1, cores, SP_VALUE_MAX, splits, 3);
    s32 = fx_space(1, 1, cores, 32, splits, 3);
    CHECK_INT(sp_rank_top(&t, &p, &s, SP_BY_VOLUME, 4, top, &n), 4);
    CHECK_INT(sp_rank_top(&t, &p, &s32, SP_BY_VOLUME, 4, top32, &n32), 4);
    CHECK_INT(n.raw, INT64_MAX);
    CHECK_INT(n.legal, n32.legal);
    CHECK(same(top, top32, 4));
    /* A small problem, all of it enumerated. */
    sp_problem q = fx_problem(64, 96, 64, SP_VALUE_MAX, SP_FP16);
    sp_candidate *all, *all32;
    size_t got = sp_enumerate(&t, &q, &s, &all, &n);
    size_t got32 = sp_enumerate(&t, &q, &s32, &all32, &n32);
    CHECK(got != (size_t)-1 && got > 0);
    CHECK_INT(got, got32);
    CHECK(got == got32 && same(all, all32, got));
    CHECK_INT(n.raw, (int64_t)3 * 2 * 4 * 6 * 4 * SP_VALUE_MAX * 3);
    free(all);
    free(all32);
    sp_space_free(&s);
    sp_space_free(&s32);
    free(cores);

    /* A target whose figures make the model's times infinite (a bandwidth
     * of 1e-308 is finite and positive): the orders stay total. */
    t = fx_ascend910();
    t.path[SP_GM_L1].bandwidth = 1e-308;
    sp_problem r = fx_problem(512, 512, 512, 1, SP_FP16);
    sp_figures f = model(&t, &r, cfg(SP_OS, 64, 64, 64, 0, 1, SP_SPLIT_M));
    sp_figures g = model(&t, &r, cfg(SP_OS, 128, 64, 64, 0, 1, SP_SPLIT_M));
    sp_candidate a = {cfg(SP_OS, 64, 64, 64, 0, 1, SP_SPLIT_M), f};
    sp_candidate b = {cfg(SP_OS, 128, 64, 64, 0, 1, SP_SPLIT_M), g};
    a.fig.est_cycles = NAN;
    CHECK_INT(sp_cmp_time(&a, &b), -sp_cmp_time(&b, &a));
    CHECK_INT(sp_cmp_volume(&a, &b), -sp_cmp_volume(&b, &a));
    CHECK(sp_cmp_time(&a, &b) != 0);
    CHECK_INT(sp_cmp_time(&a, &a), 0);
    b.fig.est_cycles = NAN;
    CHECK_INT(sp_cmp_time(&a, &b), -sp_cmp_time(&b, &a));
    /* NaN sorts after every number. */
    b.fig.est_cycles = 1;
    CHECK_INT(sp_cmp_time(&a, &b), 1);
}

/* Same config and figures (candidates hold padding, so no memcmp of them). */
static int same(const sp_candidate *a, const sp_candidate *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sp_cmp_config(&a[i].config, &b[i].config) || memcmp(&a[i].fig, &b[i].fig, sizeof a->fig))
            return 0;
    return 1;
}

int main(void)
{
    worked_example();
    tails();
    cycles();
    double_buffer();
    splits();
    enumerator();
    extremes();
    return CHECK_DONE();
}
