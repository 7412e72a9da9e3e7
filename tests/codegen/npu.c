/* npu.c — generated kernels: structure (flags balanced, operands in
 * bounds), the text round trip, and the property test: random shapes x every
 * strategy x double buffering x splits, simulated functionally and exact. */
#define _POSIX_C_SOURCE 200809L
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

#include "check.h"
#include "codegen.h"
#include "fixtures.h"
#include "sim.h"

/* Every set_flag has its wait_flag per (src, dst, event); operands lie
 * inside their regions; mmad shapes agree. Returns a reason or NULL. */
static const char *structure(const cg_kernel *k)
{
    for (int ci = 0; ci < k->ncores; ci++) {
        const cg_core *c = &k->cores[ci];
        static int balance[CG_NPIPE][CG_NPIPE][256];
        memset(balance, 0, sizeof balance);
        for (size_t i = 0; i < c->n; i++) {
            const cg_instr *in = &c->code[i];
            if (in->op == CG_SET_FLAG)
                balance[in->src][in->dst][in->event]++;
            else if (in->op == CG_WAIT_FLAG)
                balance[in->src][in->dst][in->event]--;
            const cg_operand *ops[3] = {&in->d, &in->a, &in->b};
            int nops = in->op == CG_MMAD ? 3 : in->op == CG_COPY ? 2 : 0;
            for (int o = 0; o < nops; o++) {
                const cg_buf *r = ops[o]->buf < 0 ? &k->tensors[-1 - ops[o]->buf]
                                                  : &c->bufs[ops[o]->buf];
                if (ops[o]->r0 < 0 || ops[o]->c0 < 0 || ops[o]->rows < 1 || ops[o]->cols < 1 ||
                    ops[o]->r0 + ops[o]->rows > r->rows || ops[o]->c0 + ops[o]->cols > r->cols)
                    return "operand outside its region";
            }
            if (in->op == CG_MMAD && (in->a.rows != in->d.rows || in->b.cols != in->d.cols ||
                                      in->a.cols != in->b.rows))
                return "mmad shapes disagree";
        }
        for (int s = 0; s < CG_NPIPE; s++)
            for (int d = 0; d < CG_NPIPE; d++)
                for (int e = 0; e < 256; e++)
                    if (balance[s][d][e])
                        return "a set_flag without its wait_flag (or the reverse)";
    }
    return NULL;
}

/* Generates c for p, checks structure, round-trips the text, simulates it
 * functionally. Returns the simulated cycles (or -1 after a failed check). */
static double check_one(const sp_target *t, const sp_problem *p, const sp_config *c, uint64_t seed)
{
    cg_kernel k;
    char err[512];
    if (!CHECK(cg_generate(t, p, c, &k, err, sizeof err))) {
        fprintf(stderr, "  generate: %s\n", err);
        return -1;
    }
    double cycles = -1;
    const char *bad = structure(&k);
    if (!CHECK(bad == NULL))
        fprintf(stderr, "  structure: %s\n", bad);
    /* print -> parse -> print is the identity on generated kernels */
    char *text1 = NULL, *text2 = NULL;
    size_t len1 = 0, len2 = 0;
    FILE *f = open_memstream(&text1, &len1);
    cg_print(f, &k);
    fclose(f);
    f = fmemopen(text1, len1, "r");
    cg_kernel back;
    if (CHECK(cg_parse(f, "generated", &back, err, sizeof err))) {
        FILE *g = open_memstream(&text2, &len2);
        cg_print(g, &back);
        fclose(g);
        CHECK(len1 == len2 && memcmp(text1, text2, len1) == 0);
        cg_kernel_free(&back);
    } else {
        fprintf(stderr, "  parse: %s\n", err);
    }
    fclose(f);
    free(text1);
    free(text2);
    sim_options o = {.functional = true, .seed = seed};
    sim_result r;
    if (CHECK(sim_run(t, &k, &o, &r))) {
        if (!CHECK(r.status == MS_OK && r.checked))
            fprintf(stderr, "  simulate: %s\n", r.error);
        else
            cycles = r.cycles;
        sim_result_free(&r);
    }
    cg_kernel_free(&k);
    return cycles;
}

static void describe(const sp_problem *p, const sp_config *c)
{
    fprintf(stderr, "  case: %lldx%lldx%lld batch %lld %s, %s %dx%dx%d db=%d cores=%d split=%s\n",
            (long long)p->M, (long long)p->N, (long long)p->K, (long long)p->batch,
            sp_dtype_name(p->dtype), sp_strategy_name(c->strategy), c->m, c->n, c->k,
            c->double_buffer, c->cores, sp_split_name(c->split));
}

/* Random shapes (tails, odd multiples of 16, tiny, tall-skinny, batch) x
 * strategies x double buffering x splits: legal configs drawn from the
 * enumerator, each checked exactly. */
static void property(int cases)
{
    sp_target t = fx_ascend910();
    t.cores = 8;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 20261122);
    int32_t cores[] = {1, 2, 4};
    sp_split splits[] = {SP_SPLIT_M, SP_SPLIT_N, SP_SPLIT_MN};
    int done = 0, per_strategy[SP_NSTRATEGY] = {0}, db = 0, multi = 0, tails = 0, batched = 0;
    while (done < cases) {
        int kind = (int)gsl_rng_uniform_int(rng, 4);
        long M, N, K;
        if (kind == 0) { /* tiny */
            M = 1 + (long)gsl_rng_uniform_int(rng, 40);
            N = 1 + (long)gsl_rng_uniform_int(rng, 40);
            K = 1 + (long)gsl_rng_uniform_int(rng, 40);
        } else if (kind == 1) { /* odd multiples of 16 */
            M = 16 * (1 + 2 * (long)gsl_rng_uniform_int(rng, 6));
            N = 16 * (1 + 2 * (long)gsl_rng_uniform_int(rng, 6));
            K = 16 * (1 + 2 * (long)gsl_rng_uniform_int(rng, 6));
        } else if (kind == 2) { /* tall-skinny */
            M = 100 + (long)gsl_rng_uniform_int(rng, 300);
            N = 1 + (long)gsl_rng_uniform_int(rng, 24);
            K = 1 + (long)gsl_rng_uniform_int(rng, 200);
        } else { /* general with tails */
            M = 1 + (long)gsl_rng_uniform_int(rng, 200);
            N = 1 + (long)gsl_rng_uniform_int(rng, 200);
            K = 1 + (long)gsl_rng_uniform_int(rng, 200);
        }
        long batch = gsl_rng_uniform_int(rng, 5) == 0 ? 2 : 1;
        sp_dtype dt = gsl_rng_uniform_int(rng, 4) == 0 ? SP_INT8 : SP_FP16;
        sp_problem p = fx_problem(M, N, K, batch, dt);
        sp_space s = fx_space(1, 1, cores, 3, splits, 3);
        sp_candidate *all;
        size_t n = sp_enumerate(&t, &p, &s, &all, NULL);
        sp_space_free(&s);
        if (n == 0 || n == (size_t)-1) {
            free(all);
            continue;
        }
        /* a few configs of this shape, one per strategy when possible */
        for (int st = 0; st < SP_NSTRATEGY && done < cases; st++) {
            size_t first = n, count = 0;
            for (size_t i = 0; i < n; i++)
                if (all[i].config.strategy == st) {
                    if (first == n)
                        first = i;
                    count++;
                }
            if (!count)
                continue;
            const sp_config *c = &all[first + gsl_rng_uniform_int(rng, count)].config;
            int before = check_fail;
            check_one(&t, &p, c, gsl_rng_get(rng));
            if (check_fail != before)
                describe(&p, c);
            done++;
            per_strategy[st]++;
            db += c->double_buffer;
            multi += c->cores > 1;
            tails += M % 16 || N % 16 || K % 16 || M % c->m || N % c->n || K % c->k;
            batched += batch > 1;
        }
        free(all);
    }
    gsl_rng_free(rng);
    printf("property: %d kernels (IS %d, WS %d, OS %d; double-buffered %d, multicore %d, "
           "with tails %d, batched %d)\n", done, per_strategy[SP_IS], per_strategy[SP_WS],
           per_strategy[SP_OS], db, multi, tails, batched);
    CHECK(per_strategy[SP_IS] > 0 && per_strategy[SP_WS] > 0 && per_strategy[SP_OS] > 0);
    CHECK(db > 0 && multi > 0 && tails > 0 && batched > 0);
}

static sp_config cfg(int st, int m, int n, int k, int db, int cores, int split)
{
    sp_config c = {.m = m, .n = n, .k = k, .cores = cores, .strategy = (uint8_t)st,
                   .double_buffer = (uint8_t)db, .split = (uint8_t)split};
    return c;
}

/* Simulated result of c in timing mode (fast). */
static sim_result timed(const sp_target *t, const sp_problem *p, sp_config c)
{
    cg_kernel k;
    char err[512];
    sim_result r = {.status = MS_CRASH};
    if (!CHECK(cg_generate(t, p, &c, &k, err, sizeof err))) {
        fprintf(stderr, "  generate: %s\n", err);
        return r;
    }
    sim_options o = {.functional = false};
    CHECK(sim_run(t, &k, &o, &r));
    CHECK(r.status == MS_OK);
    sim_result_free(&r);
    cg_kernel_free(&k);
    return r;
}

/* Sanity that must hold for any sane machine model. */
static void timing(void)
{
    sp_problem p = fx_problem(512, 768, 768, 1, SP_FP16);
    /* Loads and compute balanced (GM->L1 at 128 B/cycle with short
     * latencies: 288 cycles of loads per 256-cycle mmad): double buffering
     * is never slower. */
    sp_target t = fx_ascend910();
    t.path[SP_GM_L1].bandwidth = 128;
    t.path[SP_GM_L1].latency = 16;
    double single = timed(&t, &p, cfg(SP_OS, 128, 128, 64, 0, 1, 0)).cycles;
    double dbl = timed(&t, &p, cfg(SP_OS, 128, 128, 64, 1, 1, 0)).cycles;
    printf("balanced 128x128x64: single %.0f, double-buffered %.0f cycles\n", single, dbl);
    CHECK(dbl <= single);
    /* Compute-bound (a slow cube): 2 cores with half the work each are at
     * least 1.6x faster. */
    sp_target slow = fx_ascend910();
    slow.macs[SP_FP16] = 256;
    double c1 = timed(&slow, &p, cfg(SP_OS, 128, 128, 64, 1, 1, SP_SPLIT_M)).cycles;
    double c2 = timed(&slow, &p, cfg(SP_OS, 128, 128, 64, 1, 2, SP_SPLIT_M)).cycles;
    printf("compute-bound: 1 core %.0f, 2 cores %.0f cycles (%.2fx)\n", c1, c2, c1 / c2);
    CHECK(c1 / c2 >= 1.6);
    /* A larger k-step with the same volume never adds load volume. */
    t = fx_ascend910();
    sim_result k32 = timed(&t, &p, cfg(SP_OS, 128, 128, 32, 0, 1, 0));
    sim_result k64 = timed(&t, &p, cfg(SP_OS, 128, 128, 64, 0, 1, 0));
    CHECK(k64.bytes[SP_GM_L1] <= k32.bytes[SP_GM_L1]);
    CHECK(k64.bytes[SP_L1_L0A] + k64.bytes[SP_L1_L0B] <= k32.bytes[SP_L1_L0A] + k32.bytes[SP_L1_L0B]);
}

/* The model's worked example, on the simulator: for 512x768x768 the best tile
 * of each strategy (by the model's Sigma), OS is the fastest, and double
 * buffering speeds up the best OS tile. */
static void worked_example(void)
{
    sp_target t = fx_ascend910();
    sp_problem p = fx_problem(512, 768, 768, 1, SP_FP16);
    double is = timed(&t, &p, cfg(SP_IS, 32, 32, 768, 0, 1, 0)).cycles;
    double ws = timed(&t, &p, cfg(SP_WS, 32, 32, 768, 0, 1, 0)).cycles;
    double os = timed(&t, &p, cfg(SP_OS, 256, 256, 128, 0, 1, 0)).cycles;
    double os64 = timed(&t, &p, cfg(SP_OS, 256, 256, 64, 0, 1, 0)).cycles;
    double osdb = timed(&t, &p, cfg(SP_OS, 256, 256, 64, 1, 1, 0)).cycles;
    printf("512x768x768: IS %.0f, WS %.0f, OS %.0f cycles; OS 256x256x64 single %.0f, "
           "double-buffered %.0f\n", is, ws, os, os64, osdb);
    CHECK(os < is && os < ws);
    /* The example's OS tile fills L0A and L0B, so it cannot be double-buffered;
     * the best tile that can, (256,256,64), gets faster with it. */
    CHECK(osdb < os64);
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    int cases = argc > 1 ? atoi(argv[1]) : 300;
    timing();
    worked_example();
    property(cases);
    return CHECK_DONE();
}
