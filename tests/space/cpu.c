/* cpu.c — the space library on CPU targets: micro-tiles, the cache rules at
 * their byte boundaries with sp_explain's lines, the packed-volume model, the enumerator. */
#include <math.h>
#include <omp.h>

#include "check.h"
#include "fixtures.h"

/* AVX-512-like: 16 fp32 lanes, 32 registers, 2 FMAs, 2 loads, 48 KiB L1d,
 * 2 MiB L2, 32 MiB L3 over 2 cores. */
static sp_target fx_avx512(void)
{
    sp_target t = {
        .name = "avx512", .kind = SP_CPU, .cores = 2, .clock_mhz = 3000,
        .cpu = {.simd_floats = 16, .vregs = 32, .fma_units = 2, .load_ports = 2,
                .cache = {[SP_CL1] = 48 * KiB, [SP_CL2] = 2 * MiB, [SP_CL3] = 32 * MiB},
                .bw_l2 = 64, .bw_l3 = 32, .bw_mem = 16, .bw_mem_shared = 24},
    };
    return t;
}

/* AVX2-like: 8 lanes, 16 registers, 32 KiB L1d, 1 MiB L2, 16 MiB L3, 4 cores. */
static sp_target fx_avx2(void)
{
    sp_target t = {
        .name = "avx2", .kind = SP_CPU, .cores = 4, .clock_mhz = 2500,
        .cpu = {.simd_floats = 8, .vregs = 16, .fma_units = 2, .load_ports = 2,
                .cache = {[SP_CL1] = 32 * KiB, [SP_CL2] = 1 * MiB, [SP_CL3] = 16 * MiB},
                .bw_l2 = 32, .bw_l3 = 16, .bw_mem = 8, .bw_mem_shared = 20},
    };
    return t;
}

static sp_config cpu_cfg(int st, int m, int n, int k, int db, int cores, int split, int mr, int nr)
{
    sp_config c = {.m = m, .n = n, .k = k, .cores = cores, .strategy = (uint8_t)st,
                   .double_buffer = (uint8_t)db, .split = (uint8_t)split,
                   .mr = (uint8_t)mr, .nr = (uint8_t)nr};
    return c;
}

static sp_figures model(const sp_target *t, const sp_problem *p, sp_config c)
{
    sp_figures f;
    memset(&f, 0, sizeof f);
    CHECK_INT(sp_check(t, p, &c), 0);
    sp_model(t, p, &c, &f);
    return f;
}

/* sp_check must give exactly `bits`, and sp_explain exactly `lines`. */
#define EXPLAIN(t, p, c, bits, lines) explain_at((t), (p), (c), (bits), (lines), __LINE__)

static void explain_at(const sp_target *t, const sp_problem *p, sp_config c, unsigned bits,
                       const char *lines, int at)
{
    char why[1024];
    unsigned got = sp_check(t, p, &c);
    check_int(got, bits, "sp_check", __FILE__, at);
    int n = sp_explain(t, p, &c, why, sizeof why);
    int want_n = 0;
    for (const char *s = lines; *s; s++)
        want_n += *s == '\n';
    check_int(n, want_n, "sp_explain lines", __FILE__, at);
    check_str(why, lines, "sp_explain", __FILE__, at);
}

/* Targets, kinds, dtypes. */
static void targets(void)
{
    char err[256];
    sp_target a = fx_avx512(), b = fx_avx2(), npu = fx_ascend910();
    CHECK(sp_target_check(&a, err, sizeof err));
    CHECK(sp_target_check(&b, err, sizeof err));
    CHECK_STR(sp_kind_name(SP_CPU), "cpu");
    CHECK_STR(sp_kind_name(SP_NPU), "npu");
    CHECK(sp_kind_name(SP_NKIND) == NULL);
    CHECK_INT(sp_kind_parse("cpu"), SP_CPU);
    CHECK_INT(sp_kind_parse("npu"), SP_NPU);
    CHECK_INT(sp_kind_parse("gpu"), -1);
    CHECK_INT(sp_kind_parse("CPU"), -1);
    CHECK_STR(sp_dtype_name(SP_FP32), "fp32");
    CHECK_INT(sp_dtype_parse("fp32"), SP_FP32);
    CHECK(sp_target_computes(&a, SP_FP32));
    CHECK(sp_target_computes(&a, SP_FP16)); /* fp16 and bf16 as storage */
    CHECK(sp_target_computes(&a, SP_BF16));
    CHECK(!sp_target_computes(&a, SP_INT8));
    CHECK(!sp_target_computes(&npu, SP_FP32));
    CHECK(sp_target_computes(&npu, SP_FP16));
    /* Copied rows: whole 64-byte lines, an odd number of them. */
    CHECK_INT(sp_cpu_row_floats(1), 16);
    CHECK_INT(sp_cpu_row_floats(48), 48);
    CHECK_INT(sp_cpu_row_floats(64), 80);
    CHECK_INT(sp_cpu_row_floats(768), 784);
    CHECK_INT(sp_cpu_row_floats(3071), 3088);
    /* A CPU target is checked by its own fields; NPU fields stay 0. */
    sp_target t = a;
    t.cpu.simd_floats = 12;
    CHECK(!sp_target_check(&t, err, sizeof err));
    CHECK_STR(err, "target 'avx512': field 'simd_floats' must be a power of two from 1 to 64");
    t = a;
    t.cpu.vregs = 2;
    CHECK(!sp_target_check(&t, err, sizeof err));
    CHECK_STR(err, "target 'avx512': field 'vregs' must be an integer from 3 to 256");
    t = a;
    t.cpu.cache[SP_CL2] = 1000;
    CHECK(!sp_target_check(&t, err, sizeof err));
    CHECK_STR(err, "target 'avx512': field 'l2' must be at least 1024 bytes");
    t = a;
    t.cpu.cache[SP_CL3] = 0; /* no L3 is fine */
    CHECK(sp_target_check(&t, err, sizeof err));
    t.cpu.cache[SP_CL3] = -1;
    CHECK(!sp_target_check(&t, err, sizeof err));
    CHECK_STR(err, "target 'avx512': field 'l3' must be a byte count (0: no L3)");
    t = a;
    t.cpu.bw_mem_shared = 0;
    CHECK(!sp_target_check(&t, err, sizeof err));
    CHECK_STR(err, "target 'avx512': field 'bandwidth.mem_shared' must be positive");
    t = a;
    t.cpu.fork_join = -1;
    CHECK(!sp_target_check(&t, err, sizeof err));
    CHECK_STR(err, "target 'avx512': field 'fork_join' must be a cycle count from 0 to 1e9");
    t = a;
    t.cpu.load_stall = 100;
    CHECK(sp_target_check(&t, err, sizeof err));
    t.cpu.load_stall = 100.5;
    CHECK(!sp_target_check(&t, err, sizeof err));
    CHECK_STR(err, "target 'avx512': field 'load_stall' must be a cycle count from 0 to 100");
    t.cpu.load_stall = -0.5;
    CHECK(!sp_target_check(&t, err, sizeof err));
    t = a;
    t.cpu.prefetch_stall = NAN;
    CHECK(!sp_target_check(&t, err, sizeof err));
    CHECK_STR(err, "target 'avx512': field 'prefetch_stall' must be a cycle count from 0 to 100");
    t = a;
    t.cpu.alias_stall = 101;
    CHECK(!sp_target_check(&t, err, sizeof err));
    CHECK_STR(err, "target 'avx512': field 'alias_stall' must be a cycle count from 0 to 100");
    t = a;
    t.cpu.pack_stall = -1;
    CHECK(!sp_target_check(&t, err, sizeof err));
    CHECK_STR(err, "target 'avx512': field 'pack_stall' must be a cycle count from 0 to 100");
    t.cpu.pack_stall = 100;
    CHECK(sp_target_check(&t, err, sizeof err));
    t.cpu.stride_stall = 1e9;
    CHECK(!sp_target_check(&t, err, sizeof err));
    CHECK_STR(err, "target 'avx512': field 'stride_stall' must be a cycle count from 0 to 100");
    t = a;
    t.cpu.l1_ways = 12; /* 48 KiB: 12 ways of 4 KiB */
    CHECK(sp_target_check(&t, err, sizeof err));
    for (int bad = 0; bad < 3; bad++) { /* negative, too many, not dividing l1 */
        t.cpu.l1_ways = (int[]){-1, 257, 7}[bad];
        CHECK(!sp_target_check(&t, err, sizeof err));
        CHECK_STR(err, "target 'avx512': field 'l1_ways' must be 0 (not known) or a count from 1 "
                       "to 256 that divides l1");
    }
    t = a;
    t.kind = SP_NKIND;
    CHECK(!sp_target_check(&t, err, sizeof err));
    CHECK_STR(err, "target 'avx512': field 'kind' must be \"npu\" or \"cpu\"");
}

/* The default micro-tile maximises FMAs per load within the registers. */
static void micro(void)
{
    sp_target a = fx_avx512(), b = fx_avx2();
    sp_micro u = sp_micro_default(&a);
    CHECK_INT(u.mr, 6);
    CHECK_INT(u.nr, 64);
    u = sp_micro_default(&b);
    CHECK_INT(u.mr, 6);
    CHECK_INT(u.nr, 16);
    sp_target sse = b; /* 4 lanes, 16 registers: 6 x 8 */
    sse.cpu.simd_floats = 4;
    u = sp_micro_default(&sse);
    CHECK_INT(u.mr, 6);
    CHECK_INT(u.nr, 8);
    sp_target neon = a; /* 4 lanes, 32 registers: 6 x 16 */
    neon.cpu.simd_floats = 4;
    u = sp_micro_default(&neon);
    CHECK_INT(u.mr, 6);
    CHECK_INT(u.nr, 16);
    /* Every default fits its target. */
    CHECK(sp_micro_fits(&a, sp_micro_default(&a)));
    CHECK(sp_micro_fits(&b, sp_micro_default(&b)));
    CHECK(sp_micro_fits(&sse, sp_micro_default(&sse)));

    /* mr*nv + nv + 1 <= vregs: 14x32 is 28 + 2 + 1 = 31 of 32, 15x32 is 33. */
    CHECK(sp_micro_fits(&a, (sp_micro){14, 32}));
    CHECK(!sp_micro_fits(&a, (sp_micro){15, 32}));
    CHECK(sp_micro_fits(&a, (sp_micro){6, 64}));   /* 24 + 4 + 1 = 29 */
    CHECK(!sp_micro_fits(&a, (sp_micro){7, 64}));  /* 28 + 4 + 1 = 33 */
    CHECK(sp_micro_fits(&a, (sp_micro){30, 16}));  /* 30 + 1 + 1 = 32, exactly */
    CHECK(!sp_micro_fits(&a, (sp_micro){31, 16}));
    CHECK(sp_micro_fits(&a, (sp_micro){1, 240}));  /* 15 + 15 + 1 = 31 */
    /* nr a positive multiple of the lanes; mr positive. */
    CHECK(!sp_micro_fits(&a, (sp_micro){6, 24}));
    CHECK(!sp_micro_fits(&a, (sp_micro){6, 8}));
    CHECK(!sp_micro_fits(&a, (sp_micro){0, 64}));
    CHECK(!sp_micro_fits(&a, (sp_micro){6, 0}));
    CHECK(sp_micro_fits(&b, (sp_micro){6, 16}));   /* 12 + 2 + 1 = 15 of 16 */
    CHECK(sp_micro_fits(&b, (sp_micro){4, 24}));   /* 12 + 3 + 1 = 16 */
    CHECK(!sp_micro_fits(&b, (sp_micro){7, 16}));  /* 14 + 2 + 1 = 17 */
    CHECK(!sp_micro_fits(&b, (sp_micro){6, 20}));
}

/* Each rule at its boundary: the last legal byte count, then one over. */
static void rules(void)
{
    sp_target t = fx_avx512();
    sp_problem p = fx_problem(1024, 1024, 1024, 1, SP_FP32);
    sp_config c = cpu_cfg(SP_OS, 96, 512, 256, 0, 1, SP_SPLIT_M, 6, 64);
    EXPLAIN(&t, &p, c, 0, "");

    /* L1d: 2 * mr * k * 4 <= 49152: 6 x 1024 fits exactly, 6 x 1025 does not. */
    c = cpu_cfg(SP_OS, 96, 128, 1024, 0, 1, SP_SPLIT_M, 6, 64);
    EXPLAIN(&t, &p, c, 0, "");
    c.k = 1025;
    EXPLAIN(&t, &p, c, SP_BAD_CACHE1,
            "L1d overflows: the A micro-panel 6x1025 fp32 (24600 bytes) must fit half of L1d "
            "(24576 of 49152; the rest streams B and C)\n");
    /* 14 x 438: 49056; 14 x 439: 49168. Double buffering does not change L1. */
    c = cpu_cfg(SP_OS, 96, 256, 438, 1, 1, SP_SPLIT_M, 14, 32);
    EXPLAIN(&t, &p, c, 0, "");
    c.k = 439;
    EXPLAIN(&t, &p, c, SP_BAD_CACHE1,
            "L1d overflows: the A micro-panel 14x439 fp32 (24584 bytes) must fit half of L1d "
            "(24576 of 49152; the rest streams B and C)\n");

    /* L2: k * n * 4 * (db ? 2 : 1) <= 2 MiB / 2. */
    c = cpu_cfg(SP_OS, 96, 1024, 256, 0, 1, SP_SPLIT_M, 6, 64);
    EXPLAIN(&t, &p, c, 0, "");
    c.k = 257;
    EXPLAIN(&t, &p, c, SP_BAD_CACHE2,
            "L2 overflows: the packed B block 257x1024 fp32 (1052672 bytes) must fit half of L2 "
            "(1048576 of 2097152; the rest streams A and C)\n");
    c = cpu_cfg(SP_WS, 96, 1024, 128, 1, 1, SP_SPLIT_M, 6, 64);
    EXPLAIN(&t, &p, c, 0, "");
    c.k = 129;
    EXPLAIN(&t, &p, c, SP_BAD_CACHE2,
            "L2 overflows: the packed B block 129x1024 fp32 (1056768 bytes, double-buffered: two "
            "copies) must fit half of L2 (1048576 of 2097152; the rest streams A and C)\n");

    /* L3, IS: the packed A block m * k * 4 * db within L3 / threads. */
    c = cpu_cfg(SP_IS, 4096, 256, 1024, 0, 2, SP_SPLIT_M, 6, 64);
    EXPLAIN(&t, &p, c, 0, "");
    c.m = 4097;
    EXPLAIN(&t, &p, c, SP_BAD_CACHE3,
            "L3 overflows: IS keeps the packed A block 4097x1024 fp32 resident, 16781312 bytes, "
            "the L3 share of 2 threads is 16777216\n");
    c.cores = 1; /* one thread has all 32 MiB */
    EXPLAIN(&t, &p, c, 0, "");
    c = cpu_cfg(SP_IS, 4096, 128, 1024, 1, 1, SP_SPLIT_M, 6, 64);
    EXPLAIN(&t, &p, c, 0, "");
    c.m = 4097;
    EXPLAIN(&t, &p, c, SP_BAD_CACHE3,
            "L3 overflows: IS keeps the packed A block 4097x1024 fp32 resident, 33562624 bytes "
            "(double-buffered: two copies), the L3 share of 1 thread is 33554432\n");
    /* OS: the C block m * n * 4 * db. */
    c = cpu_cfg(SP_OS, 4096, 1024, 128, 0, 2, SP_SPLIT_N, 6, 64);
    EXPLAIN(&t, &p, c, 0, "");
    c.n = 1025;
    EXPLAIN(&t, &p, c, SP_BAD_CACHE3,
            "L3 overflows: OS keeps the C block 4096x1025 fp32 resident, 16793600 bytes, the L3 "
            "share of 2 threads is 16777216\n");
    /* WS keeps B, which L2 already holds: no L3 rule however large m is. */
    c = cpu_cfg(SP_WS, 1000000, 1024, 128, 1, 2, SP_SPLIT_M, 6, 64);
    EXPLAIN(&t, &p, c, 0, "");
    /* No L3 at all: no L3 rule. */
    sp_target nol3 = t;
    nol3.cpu.cache[SP_CL3] = 0;
    c = cpu_cfg(SP_IS, 100000, 128, 1024, 1, 2, SP_SPLIT_M, 6, 64);
    CHECK_INT(sp_check(&nol3, &p, &c), 0);
    CHECK_INT(sp_check(&t, &p, &c), SP_BAD_CACHE3);
    /* An L3 that does not divide evenly: 32 MiB / 3 = 11184810 bytes each. */
    sp_target three = t;
    three.cores = 3;
    c = cpu_cfg(SP_OS, 2730, 1024, 256, 0, 3, SP_SPLIT_M, 6, 64); /* 11182080 */
    CHECK_INT(sp_check(&three, &p, &c), 0);
    c.m = 2731; /* 11186176 */
    EXPLAIN(&three, &p, c, SP_BAD_CACHE3,
            "L3 overflows: OS keeps the C block 2731x1024 fp32 resident, 11186176 bytes, the L3 "
            "share of 3 threads is 11184810\n");

    /* The micro-tile must fit the registers. */
    c = cpu_cfg(SP_OS, 96, 512, 256, 0, 1, SP_SPLIT_M, 7, 64);
    EXPLAIN(&t, &p, c, SP_BAD_MICRO,
            "micro-tile 7x64 needs 28 accumulators + 4 B vectors + 1 broadcast = 33 vector "
            "registers, 'avx512' has 32\n");
    c.mr = 15, c.nr = 32;
    EXPLAIN(&t, &p, c, SP_BAD_MICRO,
            "micro-tile 15x32 needs 30 accumulators + 2 B vectors + 1 broadcast = 33 vector "
            "registers, 'avx512' has 32\n");
    c.mr = 6, c.nr = 24;
    EXPLAIN(&t, &p, c, SP_BAD_MICRO,
            "micro-tile 6x24: nr must be a positive multiple of the 16-float vector of "
            "'avx512'\n");
    c.mr = 0, c.nr = 64;
    EXPLAIN(&t, &p, c, SP_BAD_MICRO,
            "micro-tile 0x64: nr must be a positive multiple of the 16-float vector of "
            "'avx512'\n");
    /* A split is not judged without a valid micro-tile (no MICRO | SPLIT). */
    c.cores = 2;
    CHECK_INT(sp_check(&t, &p, &c), SP_BAD_MICRO);

    /* The dtype: fp32 (and fp16, bf16 storage) only on CPUs, never on the
     * ascend910 cube. */
    sp_problem h = fx_problem(1024, 1024, 1024, 1, SP_FP16);
    c = cpu_cfg(SP_OS, 96, 512, 256, 0, 1, SP_SPLIT_M, 6, 64);
    CHECK_INT(sp_check(&t, &h, &c), 0);
    h.dtype = SP_INT8;
    EXPLAIN(&t, &h, c, SP_BAD_DTYPE, "target 'avx512' (cpu) does not compute int8\n");
    sp_target npu = fx_ascend910();
    sp_problem f32 = fx_problem(512, 768, 768, 1, SP_FP32);
    sp_config nc = {.m = 64, .n = 64, .k = 64, .cores = 1, .strategy = SP_OS};
    EXPLAIN(&npu, &f32, nc, SP_BAD_DTYPE, "target 'ascend910' (npu) does not compute fp32\n");
    /* An NPU config has no micro-tile. */
    sp_problem f16 = fx_problem(512, 768, 768, 1, SP_FP16);
    nc.mr = 6, nc.nr = 64;
    EXPLAIN(&npu, &f16, nc, SP_BAD_MICRO,
            "micro-tile 6x64: NPU targets have no register micro-tile\n");

    /* Cores. */
    c = cpu_cfg(SP_OS, 96, 512, 256, 0, 3, SP_SPLIT_M, 6, 64);
    EXPLAIN(&t, &p, c, SP_BAD_CORES, "cores = 3, but target 'avx512' has 2\n");
    c.cores = 0;
    CHECK_INT(sp_check(&t, &p, &c), SP_BAD_CORES);

    /* Splits count micro-tiles: ceil(M / mr) rows, ceil(N / nr) columns. */
    sp_problem q = fx_problem(6, 128, 64, 1, SP_FP32);
    c = cpu_cfg(SP_OS, 96, 512, 64, 0, 2, SP_SPLIT_M, 6, 64);
    EXPLAIN(&t, &q, c, SP_BAD_SPLIT,
            "split M over 2 threads leaves threads idle: 1x2 micro-tiles of 6x64\n");
    c.cores = 1; /* one thread splits nothing */
    CHECK_INT(sp_check(&t, &q, &c), 0);
    c.cores = 2;
    q.M = 7; /* a tail row of micro-tiles is work */
    CHECK_INT(sp_check(&t, &q, &c), 0);
    int gm = 0, gn = 0;
    CHECK(sp_grid(&t, &q, &c, &gm, &gn));
    CHECK_INT(gm, 2);
    CHECK_INT(gn, 1);
    c.split = SP_SPLIT_N;
    CHECK_INT(sp_check(&t, &q, &c), 0);
    CHECK(sp_grid(&t, &q, &c, &gm, &gn));
    CHECK_INT(gm, 1);
    CHECK_INT(gn, 2);
    q.N = 64;
    EXPLAIN(&t, &q, c, SP_BAD_SPLIT,
            "split N over 2 threads leaves threads idle: 2x1 micro-tiles of 6x64\n");
    q.N = 65;
    CHECK_INT(sp_check(&t, &q, &c), 0);
    c.mr = 14, c.nr = 32; /* smaller tiles, more of them: 128 / 32 = 4 columns */
    q.N = 64;
    CHECK_INT(sp_check(&t, &q, &c), 0);
    /* MN needs a 2-D grid: none for 2 threads; 2x2 of 4 needs 2 rows and 2 columns. */
    c = cpu_cfg(SP_OS, 96, 512, 64, 0, 2, SP_SPLIT_MN, 6, 64);
    q = fx_problem(12, 128, 64, 1, SP_FP32);
    CHECK_INT(sp_check(&t, &q, &c), SP_BAD_SPLIT);
    sp_target four = t;
    four.cores = 4;
    c.cores = 4;
    CHECK_INT(sp_check(&four, &q, &c), 0);
    CHECK(sp_grid(&four, &q, &c, &gm, &gn));
    CHECK_INT(gm, 2);
    CHECK_INT(gn, 2);
    q.M = 6;
    EXPLAIN(&four, &q, c, SP_BAD_SPLIT,
            "split MN needs a grid of >= 2x2 threads dividing 4 within 1x2 micro-tiles of 6x64\n");
    /* More threads than the target has, and too few tiles: both lines. */
    q = fx_problem(6, 128, 64, 1, SP_FP32);
    c = cpu_cfg(SP_OS, 96, 512, 64, 0, 3, SP_SPLIT_M, 6, 64);
    EXPLAIN(&t, &q, c, SP_BAD_CORES | SP_BAD_SPLIT,
            "cores = 3, but target 'avx512' has 2\n"
            "split M over 3 threads leaves threads idle: 1x2 micro-tiles of 6x64\n");

    /* Several rules at once, in sp_explain's order. */
    sp_problem h2 = fx_problem(1024, 1024, 1024, 1, SP_INT8);
    c = cpu_cfg(SP_IS, 8192, 2048, 2048, 1, 4, SP_SPLIT_M, 6, 64);
    EXPLAIN(&t, &h2, c,
            SP_BAD_CORES | SP_BAD_DTYPE | SP_BAD_CACHE1 | SP_BAD_CACHE2 | SP_BAD_CACHE3,
            "cores = 4, but target 'avx512' has 2\n"
            "target 'avx512' (cpu) does not compute int8\n"
            "L1d overflows: the A micro-panel 6x2048 fp32 (49152 bytes) must fit half of L1d "
            "(24576 of 49152; the rest streams B and C)\n"
            "L2 overflows: the packed B block 2048x2048 fp32 (33554432 bytes, double-buffered: "
            "two copies) must fit half of L2 (1048576 of 2097152; the rest streams A and C)\n"
            "L3 overflows: IS keeps the packed A block 8192x2048 fp32 resident, 134217728 bytes "
            "(double-buffered: two copies), the L3 share of 4 threads is 8388608\n");
    /* NPU-only rules never apply to a CPU: no alignment, no k = K, blocks
     * larger than the problem are clamped by the kernel. */
    sp_problem odd = fx_problem(100, 90, 70, 1, SP_FP32);
    c = cpu_cfg(SP_IS, 37, 53, 11, 0, 1, SP_SPLIT_M, 6, 64);
    CHECK_INT(sp_check(&t, &odd, &c), 0);
    c = cpu_cfg(SP_OS, 500, 500, 500, 0, 1, SP_SPLIT_M, 6, 64);
    CHECK_INT(sp_check(&t, &odd, &c), 0);
    c.m = 0;
    CHECK_INT(sp_check(&t, &odd, &c), SP_BAD_DIM);

    /* A short buffer gets a truncated, terminated text. */
    char small[16];
    c = cpu_cfg(SP_OS, 96, 512, 256, 0, 3, SP_SPLIT_M, 6, 64);
    CHECK_INT(sp_explain(&t, &p, &c, small, sizeof small), 1);
    CHECK(strlen(small) < sizeof small);
    CHECK_PREFIX(small, "cores = 3, but");
}

/* Copied volumes worked by hand for 40x48x64 (A 2560 elements, B 3072) with
 * a 4x16 micro-tile (10 x 3 micro-tiles), following codegen/host.c: fp32 A
 * is read in place, and each B block is packed once per call while the
 * thread's packed B fits SP_CPU_BCACHE_BYTES. Blocks 16x32x32: mc = 16,
 * nc = 32, nI = 3, nJ = 2, nP = 2. */
static void volumes(void)
{
    sp_target t = fx_avx512();
    sp_problem p = fx_problem(40, 48, 64, 1, SP_FP32);
    const double A = 40.0 * 64, B = 64.0 * 48;
    /* Every strategy packs B once and copies no A (whole micro-panels). */
    for (int st = 0; st < SP_NSTRATEGY; st++) {
        sp_figures f = model(&t, &p, cpu_cfg(st, 16, 32, 32, 0, 1, SP_SPLIT_M, 4, 16));
        CHECK_DBL(f.load_elems, B);
        CHECK_DBL(f.core_load_elems, B);
        CHECK_DBL(f.store_elems, 40.0 * 48 * 2); /* C written once per k block */
        CHECK_DBL(f.buffer_use, 2.0 * 4 * 32 * 4 + 2.0 * 32 * 32 * 4); /* halves reserved */
        CHECK_INT(f.grid_m, 1);
        CHECK_INT(f.grid_n, 1);
        /* blocks covering the problem (larger ones are clamped) */
        f = model(&t, &p, cpu_cfg(st, 40, 48, 64, 0, 1, SP_SPLIT_M, 4, 16));
        sp_figures g = model(&t, &p, cpu_cfg(st, 64, 64, 100, 0, 1, SP_SPLIT_M, 4, 16));
        CHECK(f.load_elems == B && g.load_elems == B);
        CHECK_DBL(f.store_elems, 40.0 * 48);
        CHECK_DBL(g.est_cycles, f.est_cycles);
    }
    /* A 6x16 tile: m = 16 rounds to mc = 18, so the blocks hold 18, 18 and 4
     * rows; the last one's partial micro-panel (4 rows) is copied at each
     * of the nJ = 2 column blocks over all of K: 4 * 64 * 2. */
    sp_figures f = model(&t, &p, cpu_cfg(SP_IS, 16, 32, 32, 0, 1, SP_SPLIT_M, 6, 16));
    CHECK_DBL(f.load_elems, B + 4.0 * 64 * 2);
    /* m = 17 -> mc = 20 with 4x16, like m = 20: the same figures. */
    sp_figures f17 = model(&t, &p, cpu_cfg(SP_OS, 17, 32, 32, 0, 1, SP_SPLIT_M, 4, 16));
    sp_figures f20 = model(&t, &p, cpu_cfg(SP_OS, 20, 32, 32, 0, 1, SP_SPLIT_M, 4, 16));
    CHECK(f17.load_elems == f20.load_elems && f17.est_cycles == f20.est_cycles);
    /* bf16: A is widened once per call, whatever the column blocks; with
     * split N each thread widens all of A, with split M its own rows. */
    sp_problem h = fx_problem(40, 48, 64, 1, SP_BF16);
    f = model(&t, &h, cpu_cfg(SP_WS, 16, 32, 32, 0, 1, SP_SPLIT_M, 4, 16));
    CHECK_DBL(f.load_elems, B + A);
    f = model(&t, &h, cpu_cfg(SP_WS, 16, 48, 32, 0, 1, SP_SPLIT_M, 4, 16));
    CHECK_DBL(f.load_elems, B + A);
    f = model(&t, &h, cpu_cfg(SP_WS, 16, 16, 32, 0, 2, SP_SPLIT_N, 4, 16));
    CHECK_DBL(f.load_elems, B + 2 * A);
    f = model(&t, &h, cpu_cfg(SP_WS, 8, 48, 32, 0, 2, SP_SPLIT_M, 4, 16));
    CHECK_DBL(f.load_elems, 2 * B + A); /* each thread packs all of B */
    /* Past SP_CPU_AWIDE_BYTES, A is widened in bands of whole row blocks and
     * WS packs B once per band: 256 x 64 x 65520 (rows 65520 floats apart,
     * 64 MiB of fp32 A) in blocks of 64 rows is 2 bands of 128 rows. */
    sp_problem wide = fx_problem(256, 64, 65520, 1, SP_BF16);
    f = model(&t, &wide, cpu_cfg(SP_WS, 64, 64, 256, 0, 1, SP_SPLIT_M, 4, 16));
    CHECK_DBL(f.load_elems, 256.0 * 65520 + 2 * 65520.0 * 64);
    wide.K = 65536; /* rows padded to 65552 floats: 127 rows fit, so bands of 64 */
    f = model(&t, &wide, cpu_cfg(SP_WS, 64, 64, 256, 0, 1, SP_SPLIT_M, 4, 16));
    CHECK_DBL(f.load_elems, 256.0 * 65536 + 4 * 65536.0 * 64);

    /* Past the budget (64 x 4096 x 4096: 16 x 16 blocks of 256 x 256, 64 MiB
     * packed) one block buffer is repacked whenever the block changes: IS
     * and OS once per row block (nI = 2), WS once. A's rows, 4096 floats
     * apart, alias in L1d, but 4-row micro-panels are read in place
     * (SP_CPU_ALIAS_ROWS): nothing of A is copied. */
    sp_problem big = fx_problem(64, 4096, 4096, 1, SP_FP32);
    const double Bb = 4096.0 * 4096;
    CHECK_DBL(model(&t, &big, cpu_cfg(SP_IS, 32, 256, 256, 0, 1, SP_SPLIT_M, 4, 16)).load_elems,
              2 * Bb);
    CHECK_DBL(model(&t, &big, cpu_cfg(SP_OS, 32, 256, 256, 0, 1, SP_SPLIT_M, 4, 16)).load_elems,
              2 * Bb);
    CHECK_DBL(model(&t, &big, cpu_cfg(SP_WS, 32, 256, 256, 0, 1, SP_SPLIT_M, 4, 16)).load_elems,
              Bb);
    /* Half as wide, the packed B is 32 MiB, exactly the budget: with nI = 4
     * row blocks (SP_CPU_BCACHE_VISITS or more) every block is kept, so IS
     * packs B once; with nI = 2 the one slot is repacked per row block. */
    sp_problem fits = fx_problem(64, 2048, 4096, 1, SP_FP32);
    CHECK(SP_CPU_BCACHE_VISITS > 2 && SP_CPU_BCACHE_VISITS <= 4);
    CHECK_DBL(model(&t, &fits, cpu_cfg(SP_IS, 16, 256, 256, 0, 1, SP_SPLIT_M, 4, 16)).load_elems,
              2048.0 * 4096);
    CHECK_DBL(model(&t, &fits, cpu_cfg(SP_OS, 16, 256, 256, 0, 1, SP_SPLIT_M, 4, 16)).load_elems,
              2048.0 * 4096);
    CHECK_DBL(model(&t, &fits, cpu_cfg(SP_IS, 32, 256, 256, 0, 1, SP_SPLIT_M, 4, 16)).load_elems,
              2 * 2048.0 * 4096);

    /* Two threads split M: each has Mt = ceil(10 / 2) * 4 = 20 rows and
     * packs all of B: with mc = 8 (nI = 3 row blocks) once, Sigma = 2B, the
     * busiest thread B; with mc = 16 (nI = 2) once per row block. */
    f = model(&t, &p, cpu_cfg(SP_IS, 8, 32, 32, 0, 2, SP_SPLIT_M, 4, 16));
    CHECK_INT(f.grid_m, 2);
    CHECK_INT(f.grid_n, 1);
    CHECK_DBL(f.load_elems, 2 * B);
    CHECK_DBL(f.core_load_elems, B);
    CHECK_DBL(model(&t, &p, cpu_cfg(SP_IS, 16, 32, 32, 0, 2, SP_SPLIT_M, 4, 16)).core_load_elems,
              2 * B);
    f = model(&t, &p, cpu_cfg(SP_IS, 16, 32, 32, 0, 2, SP_SPLIT_M, 4, 16));
    CHECK_DBL(f.store_elems, 40.0 * 48 * 2);
    /* Split N: Nt = ceil(3 / 2) * 16 = 32; the threads pack disjoint column
     * bands of B: Sigma = B, the busiest thread 64 x 32. */
    f = model(&t, &p, cpu_cfg(SP_WS, 16, 32, 32, 0, 2, SP_SPLIT_N, 4, 16));
    CHECK_INT(f.grid_m, 1);
    CHECK_INT(f.grid_n, 2);
    CHECK_DBL(f.load_elems, B);
    CHECK_DBL(f.core_load_elems, 64.0 * 32);

    /* Batch scales every volume and the time exactly. */
    sp_problem b3 = fx_problem(40, 48, 64, 3, SP_FP32);
    for (int st = 0; st < SP_NSTRATEGY; st++) {
        sp_config c = cpu_cfg(st, 16, 32, 32, 1, 2, SP_SPLIT_M, 4, 16);
        sp_figures one = model(&t, &p, c), three = model(&t, &b3, c);
        CHECK_DBL(three.load_elems, 3 * one.load_elems);
        CHECK_DBL(three.store_elems, 3 * one.store_elems);
        CHECK_DBL(three.core_load_elems, 3 * one.core_load_elems);
        CHECK_DBL(three.est_cycles, 3 * one.est_cycles);
        CHECK_DBL(three.buffer_use, one.buffer_use);
    }
    /* No NPU path carries anything on a CPU. */
    for (int i = 0; i < SP_NPATH; i++)
        CHECK_DBL(f.bytes[i], 0);
}

/* One micro-kernel call worked by hand: 6x64x16 with a 6x64 tile on the
 * AVX-512 fixture. Per k step 24 FMAs (12 cycles on 2 units) vs 6 + 4 loads
 * (5): compute 16 * 12 = 192, above the L2 stream (16 * (64 + 6) * 4 / 64 =
 * 70) and A's (96 * 4 / 64 = 6). C in and out: 2 * 1536 / 64 = 48, and
 * nothing more for the call. Packing B (1024 elements, in L2): read 4/64 and
 * write 4/64 each, 128. Total 368. Double buffering prefetches the next step's blocks, and
 * there is none: the same 368. */
static void cycles(void)
{
    sp_target t = fx_avx512();
    sp_problem p = fx_problem(6, 64, 16, 1, SP_FP32);
    CHECK_DBL(model(&t, &p, cpu_cfg(SP_OS, 6, 64, 16, 0, 1, SP_SPLIT_M, 6, 64)).est_cycles, 368);
    CHECK_DBL(model(&t, &p, cpu_cfg(SP_OS, 6, 64, 16, 1, 1, SP_SPLIT_M, 6, 64)).est_cycles, 368);
    /* A last, narrow column tile runs a kernel of its own width: 6x40 is 3
     * vectors of the 4-vector tile, so the FMAs cost 16 * 6 * 3 / 2 = 144. */
    sp_problem narrow = fx_problem(6, 40, 16, 1, SP_FP32);
    sp_figures nf = model(&t, &narrow, cpu_cfg(SP_OS, 6, 64, 16, 0, 1, SP_SPLIT_M, 6, 64));
    /* 144 + C 48 + packing 640 elements * 8 / 64 = 80 */
    CHECK_DBL(nf.est_cycles, 144 + 48 + 80);
    /* Cutting K into k blocks costs only the C tiles' extra loads and
     * stores: on 96x128x256 in k blocks of 64 rather than 256 (one row and
     * one column block: nothing repacked, the same FMAs and B panels), 16
     * rows x 2 columns of tiles make 3 more calls each, 1536 bytes in and out
     * at 64 B/cycle. */
    sp_problem deep = fx_problem(96, 128, 256, 1, SP_FP32);
    for (int st = 0; st < SP_NSTRATEGY; st++)
        CHECK_DBL(model(&t, &deep, cpu_cfg(st, 96, 128, 64, 0, 1, SP_SPLIT_M, 6, 64)).est_cycles -
                      model(&t, &deep, cpu_cfg(st, 96, 128, 256, 0, 1, SP_SPLIT_M, 6, 64)).est_cycles,
                  16.0 * 2 * 3 * 2 * 1536 / 64);
    /* load_stall: every load of a k step delays the FMAs, 6 broadcasts and
     * 4 B vectors: 16 steps of 10 loads at 0.25 cycles add 40 (compute 232
     * still above the L2 stream's 70). */
    t.cpu.load_stall = 0.25;
    CHECK_DBL(model(&t, &p, cpu_cfg(SP_OS, 6, 64, 16, 0, 1, SP_SPLIT_M, 6, 64)).est_cycles, 408);
    /* On 384^3 in one WS block, 6x64 and 12x32 issue the same FMAs, but
     * per k step 6x64 loads 64 rows of tiles x (6 x 6 broadcasts + 24 B
     * vectors), 12x32 32 x (12 x 12 + 24): the tile with fewer FMAs per
     * load loses more, and the default tile (most FMAs per load) ranks first. */
    sp_problem cube = fx_problem(384, 384, 384, 1, SP_FP32);
    sp_config c6 = cpu_cfg(SP_WS, 384, 384, 384, 0, 1, SP_SPLIT_M, 6, 64);
    sp_config c12 = cpu_cfg(SP_WS, 384, 384, 384, 0, 1, SP_SPLIT_M, 12, 32);
    double s6 = model(&t, &cube, c6).est_cycles, s12 = model(&t, &cube, c12).est_cycles;
    t.cpu.load_stall = 0;
    CHECK_DBL(s6 - model(&t, &cube, c6).est_cycles, 384.0 * 64 * (6 * 6 + 24) * 0.25);
    CHECK_DBL(s12 - model(&t, &cube, c12).est_cycles, 384.0 * 32 * (12 * 12 + 24) * 0.25);
    CHECK(s6 < s12);

    /* A rows 1536 floats (6 KiB) apart fall in one set of an 8-way 16 KiB
     * L1d (2 KiB a way): the 14 rows of a 14x32 tile leave 7 over the 7 ways
     * the B and C streams leave, 12x32 5, 8x48 one; 1540 floats apart, the
     * rows spread over the sets. Each row over costs alias_stall cycles a k
     * step of each tile (24 x 24 of 14x32, 28 x 24 of 12x32, 42 x 16 of 8x48). */
    sp_problem aliased = fx_problem(336, 768, 1536, 1, SP_FP32);
    sp_problem spread = fx_problem(336, 768, 1540, 1, SP_FP32);
    sp_config a14 = cpu_cfg(SP_IS, 336, 768, 64, 0, 1, SP_SPLIT_M, 14, 32);
    sp_config a12 = cpu_cfg(SP_IS, 336, 768, 64, 0, 1, SP_SPLIT_M, 12, 32);
    sp_config a8 = cpu_cfg(SP_IS, 336, 768, 64, 0, 1, SP_SPLIT_M, 8, 48);
    sp_target w = t;
    w.cpu.cache[SP_CL1] = 16 * KiB;
    w.cpu.l1_ways = 8;
    w.cpu.alias_stall = 0.5;
    CHECK_DBL(model(&w, &aliased, a14).est_cycles - model(&t, &aliased, a14).est_cycles,
              7 * 0.5 * 1536.0 * 24 * 24);
    CHECK_DBL(model(&w, &aliased, a12).est_cycles - model(&t, &aliased, a12).est_cycles,
              5 * 0.5 * 1536.0 * 28 * 24);
    CHECK_DBL(model(&w, &aliased, a8).est_cycles - model(&t, &aliased, a8).est_cycles,
              1 * 0.5 * 1536.0 * 42 * 16);
    CHECK_DBL(model(&w, &spread, a14).est_cycles, model(&t, &spread, a14).est_cycles);
    /* the no-pack family reads A in place too: the same rows over */
    sp_config n14 = cpu_cfg(SP_OS, 336, 768, 1536, 0, 1, SP_SPLIT_M, 14, 32);
    n14.nopack = 1;
    CHECK_DBL(model(&w, &aliased, n14).est_cycles - model(&t, &aliased, n14).est_cycles,
              7 * 0.5 * 1536.0 * 24 * 24);
    n14.k = 1540;
    CHECK_DBL(model(&w, &spread, n14).est_cycles, model(&t, &spread, n14).est_cycles);
    /* Rows a multiple of SP_CPU_ALIAS_FLOATS apart (3072 floats, 12 KiB) are
     * copied by the kernels, the no-pack family's and the packing family's of
     * more than SP_CPU_ALIAS_ROWS rows: no row is charged, and the copies (all
     * of A, once per column block: nJ = 1 here) count in Sigma. */
    sp_problem copied = fx_problem(336, 768, 3072, 1, SP_FP32);
    w.cpu.cache[SP_CL1] = 48 * KiB;
    w.cpu.l1_ways = 12;
    CHECK_DBL(model(&w, &copied, a14).est_cycles, model(&t, &copied, a14).est_cycles);
    CHECK_DBL(model(&t, &copied, a14).load_elems, 336.0 * 3072 + 3072.0 * 768);
    CHECK_DBL(model(&t, &spread, a14).load_elems, 1540.0 * 768);
    n14.k = 3072;
    CHECK_DBL(model(&w, &copied, n14).est_cycles, model(&t, &copied, n14).est_cycles);
    CHECK_DBL(model(&t, &copied, n14).load_elems, 336.0 * 3072);
    /* The packing family reads 8-row micro-panels in place at any stride (a
     * copy of each costs more than what the set evicts): 8x48 copies
     * nothing, and only on an L1d whose set holds fewer than its 8 rows are
     * rows charged: on the 8-way 16 KiB one, one over, as at 1536 floats. */
    CHECK(SP_CPU_ALIAS_ROWS >= 8 && SP_CPU_ALIAS_ROWS < 12);
    CHECK_DBL(model(&t, &copied, a8).load_elems, 3072.0 * 768);
    CHECK_DBL(model(&w, &copied, a8).est_cycles, model(&t, &copied, a8).est_cycles);
    sp_target w8 = w;
    w8.cpu.cache[SP_CL1] = 16 * KiB;
    w8.cpu.l1_ways = 8;
    CHECK_DBL(model(&w8, &copied, a8).est_cycles - model(&t, &copied, a8).est_cycles,
              1 * 0.5 * 3072.0 * 42 * 16);
    /* The copies read A from where A lives, as packing reads B: on 336x64x3072
     * A (4 MiB) is past L2, B and C within it, so an L3 as fast as L2 saves
     * only the copies' reads, 336 x 3072 floats (nJ = 1) at 4/32 rather
     * than 4/64 cycles each; double buffering fetched them into L2. */
    sp_problem deepa = fx_problem(336, 64, 3072, 1, SP_FP32);
    sp_target l3fast = t;
    l3fast.cpu.bw_l3 = t.cpu.bw_l2;
    sp_config wsa = cpu_cfg(SP_WS, 56, 64, 256, 0, 1, SP_SPLIT_M, 14, 32);
    CHECK_DBL(model(&t, &deepa, wsa).est_cycles - model(&l3fast, &deepa, wsa).est_cycles,
              336.0 * 3072 * 4 / 64);
    wsa.double_buffer = 1;
    CHECK_DBL(model(&t, &deepa, wsa).est_cycles, model(&l3fast, &deepa, wsa).est_cycles);
    /* widened bf16 rows are padded apart (sp_cpu_row_floats): no aliasing */
    sp_problem wide = fx_problem(336, 768, 1536, 1, SP_BF16);
    w.cpu.cache[SP_CL1] = 16 * KiB;
    w.cpu.l1_ways = 8;
    CHECK_DBL(model(&w, &wide, a14).est_cycles, model(&t, &wide, a14).est_cycles);

    /* prefetch_stall: each prefetched line of double buffering costs it on
     * top of the cycle that issues it. 6x128x16 in two steps of 6x64: the
     * second's B source (1024 elements) and C block (384), 88 lines; its A
     * block is the first's. */
    sp_problem p2 = fx_problem(6, 128, 16, 1, SP_FP32);
    sp_target pf = t;
    pf.cpu.prefetch_stall = 1.5;
    sp_config os2 = cpu_cfg(SP_OS, 6, 64, 16, 1, 1, SP_SPLIT_M, 6, 64);
    sp_config os1 = cpu_cfg(SP_OS, 6, 64, 16, 0, 1, SP_SPLIT_M, 6, 64);
    CHECK_DBL(model(&t, &p2, os2).est_cycles - model(&t, &p2, os1).est_cycles, 88);
    CHECK_DBL(model(&pf, &p2, os2).est_cycles - model(&t, &p2, os2).est_cycles, 1.5 * 88);
    /* Only the steps after the first prefetch their blocks: on 200x1000x64,
     * WS 192x960 in four steps, the first's A block (192 x 64), B source (64
     * x 960) and C block (192 x 960) are not prefetched, which leaves 13312,
     * 2560 and 15680 elements: 1972 lines, where all of A's, B's and C's
     * would be 18100 (side by side, 8x48: double buffering measured 2% slower,
     * 2.4% here with the default figures, 8% when charged for all). */
    sp_problem ws4 = fx_problem(200, 1000, 64, 1, SP_FP32);
    sp_config big4 = cpu_cfg(SP_WS, 192, 960, 64, 1, 1, SP_SPLIT_M, 8, 48);
    sp_config big1 = cpu_cfg(SP_WS, 192, 960, 64, 0, 1, SP_SPLIT_M, 8, 48);
    CHECK_DBL(model(&t, &ws4, big4).est_cycles - model(&t, &ws4, big1).est_cycles, 1972);
    CHECK_INT(sp_micro_default(&t).mr, 6);
    CHECK_INT(sp_micro_default(&t).nr, 64);

    /* pack_stall: packing a B block writes one stream per NR-column panel,
     * and the prefetchers follow SP_CPU_PACK_STREAMS (10) of them. On
     * 200x1000x64, 8x48, WS with n = 128 (3 panels) and with n = 896 (nc 912:
     * 19 panels, 9 past the 10th) tie without it, but measured 4% apart (the
     * wide one slower); with it the 432 columns past the 10th panel, 64 rows
     * of them, 1728 lines, cost 10 cycles each, IS twice (nI = 2 < VISITS:
     * B packed once per row block). B's source from L3 (200x10000x64, 2.4
     * MiB) hides them, unless double buffering fetched it into L2. */
    sp_problem ties = fx_problem(200, 1000, 64, 1, SP_FP32);
    sp_target ps = t;
    ps.cpu.pack_stall = 10;
    sp_config slim = cpu_cfg(SP_WS, 144, 128, 64, 0, 1, SP_SPLIT_M, 8, 48);
    sp_config wide_b = cpu_cfg(SP_WS, 144, 896, 64, 0, 1, SP_SPLIT_M, 8, 48);
    CHECK_DBL(model(&t, &ties, slim).est_cycles, model(&t, &ties, wide_b).est_cycles);
    CHECK_DBL(model(&ps, &ties, slim).est_cycles, model(&t, &ties, slim).est_cycles);
    CHECK_DBL(model(&ps, &ties, wide_b).est_cycles - model(&t, &ties, wide_b).est_cycles, 17280);
    wide_b.strategy = SP_IS;
    CHECK_DBL(model(&ps, &ties, wide_b).est_cycles - model(&t, &ties, wide_b).est_cycles, 34560);
    sp_problem far_b = fx_problem(200, 10000, 64, 1, SP_FP32);
    wide_b.strategy = SP_WS;
    CHECK_DBL(model(&ps, &far_b, wide_b).est_cycles, model(&t, &far_b, wide_b).est_cycles);
    wide_b.double_buffer = 1;
    CHECK(model(&ps, &far_b, wide_b).est_cycles > model(&t, &far_b, wide_b).est_cycles);

    /* Kept B blocks come back from L3 at each visit after the first while
     * the call's data passes half the L3 share. On 512x3072x768, IS
     * 144x64x64 12x32 (nI = 4 >= VISITS) keeps all of B (9 MiB); with A
     * (1.5 MiB), B's source and C (6 MiB) that is 25.5 MiB, past 16 MiB of
     * the 32 MiB share: three visits of 9 MiB at 1/32 - 1/64 cycles a byte
     * more than the L2 rate. In a 64 MiB L3, or in WS order (B packed once,
     * never kept), or on 512x768x768 (7.5 MiB in all), nothing. */
    sp_problem wide3 = fx_problem(512, 3072, 768, 1, SP_FP32);
    sp_config kis = cpu_cfg(SP_IS, 144, 64, 64, 0, 1, SP_SPLIT_M, 12, 32);
    sp_target big3 = t;
    big3.cpu.cache[SP_CL3] = 64 * MiB;
    CHECK_DBL(model(&t, &wide3, kis).est_cycles - model(&big3, &wide3, kis).est_cycles,
              3.0 * 768 * 3072 * 4 / 64);
    kis.strategy = SP_OS;
    CHECK_DBL(model(&t, &wide3, kis).est_cycles - model(&big3, &wide3, kis).est_cycles,
              3.0 * 768 * 3072 * 4 / 64);
    kis.strategy = SP_WS;
    CHECK_DBL(model(&t, &wide3, kis).est_cycles, model(&big3, &wide3, kis).est_cycles);
    kis.strategy = SP_IS;
    sp_problem sq3 = fx_problem(512, 768, 768, 1, SP_FP32);
    CHECK_DBL(model(&t, &sq3, kis).est_cycles, model(&big3, &sq3, kis).est_cycles);

    /* C's tiles at the L2 rate while C is within the L3 share: on 4096x256x32
     * only C (4 MiB) is past L2, and IS revisits it per k block (nP = 2), yet
     * no figure of L3 changes the estimate. Past the L3 share (cut to 1 MiB),
     * the 5464 calls of WS (683 rows x 4 columns of tiles x 2 k blocks) load
     * and store 6 x 64 x 4 x 2 bytes each at memory's rate: 16 B/cycle, then
     * min(32, shared 24). */
    sp_problem tall = fx_problem(4096, 256, 32, 1, SP_FP32);
    sp_config cis = cpu_cfg(SP_IS, 96, 256, 16, 0, 1, SP_SPLIT_M, 6, 64);
    sp_target l3 = t;
    l3.cpu.bw_l3 = 1000;
    CHECK_DBL(model(&l3, &tall, cis).est_cycles, model(&t, &tall, cis).est_cycles);
    sp_config cws = cpu_cfg(SP_WS, 96, 256, 16, 0, 1, SP_SPLIT_M, 6, 64);
    sp_target mem = t;
    mem.cpu.cache[SP_CL3] = 1 * MiB;
    double slow = model(&mem, &tall, cws).est_cycles;
    mem.cpu.bw_mem = 32;
    CHECK_DBL(slow - model(&mem, &tall, cws).est_cycles, 5464.0 * 3072 / 16 - 5464.0 * 3072 / 24);

    /* Sanity on a larger problem: bigger register tiles are not slower;
     * nothing beats the FMA peak; two threads beat one. */
    sp_problem q = fx_problem(384, 384, 384, 1, SP_FP32);
    double peak = 384.0 * 384 * 384 / (16 * 2);
    static const sp_micro tiles[] = {{1, 16}, {2, 16}, {4, 32}, {6, 64}};
    for (int st = 0; st < SP_NSTRATEGY; st++) {
        double prev = 0;
        for (int i = 0; i < 4; i++) {
            sp_config c = cpu_cfg(st, 384, 384, 384, 0, 1, SP_SPLIT_M, tiles[i].mr, tiles[i].nr);
            if (st == SP_OS)
                c.k = 256;
            double e = model(&t, &q, c).est_cycles;
            CHECK(e >= peak);
            if (i)
                CHECK(e <= prev);
            prev = e;
        }
    }
    sp_config c = cpu_cfg(SP_OS, 96, 384, 256, 0, 1, SP_SPLIT_M, 6, 64);
    sp_figures one = model(&t, &q, c);
    c.double_buffer = 1;
    sp_figures db = model(&t, &q, c);
    CHECK_DBL(db.load_elems, one.load_elems);
    /* B (576 KiB) sits in L2 either way: double buffering only adds its
     * prefetches, A once per column block (nP > 1), B once, C once, but
     * the first step's blocks (A 96 x 256, B 256 x 384, C 96 x 384). */
    CHECK_DBL(db.est_cycles, one.est_cycles + (384.0 * 384 * 3 - 96.0 * 256 - 256.0 * 384 -
                                               96.0 * 384) * 4 / 64);
    c.double_buffer = 0;
    c.cores = 2;
    sp_figures two = model(&t, &q, c);
    CHECK(two.est_cycles < 0.6 * one.est_cycles);
    CHECK(two.est_cycles >= peak / 2);
    /* split M: each packs all of B, and with 192 rows in nI = 2 row blocks
     * (fewer than SP_CPU_BCACHE_VISITS) once per row block */
    CHECK_DBL(two.core_load_elems, 2 * one.core_load_elems);
    /* starting and joining the threads: fork_join cycles per call (per batch
     * element), so a tiny problem is faster on one thread */
    t.cpu.fork_join = 10000;
    CHECK_DBL(model(&t, &q, c).est_cycles, two.est_cycles + 10000);
    c.cores = 1;
    CHECK_DBL(model(&t, &q, c).est_cycles, one.est_cycles);
    sp_problem tiny = fx_problem(64, 96, 80, 3, SP_FP32);
    sp_config tc = cpu_cfg(SP_WS, 64, 128, 80, 0, 1, SP_SPLIT_M, 6, 64);
    double tiny1 = model(&t, &tiny, tc).est_cycles;
    tc.cores = 2;
    double tiny2 = model(&t, &tiny, tc).est_cycles;
    CHECK(tiny2 > tiny1);
    t.cpu.fork_join = 0;
    CHECK_DBL(model(&t, &tiny, tc).est_cycles, tiny2 - 3 * 10000);
    /* A larger problem outside the caches pays memory bandwidth. IS there
     * repacks B (64 MiB, past the budget) for each of its 43 row blocks, and
     * double buffering pays off: that source comes from L2, not memory. */
    sp_problem big = fx_problem(4096, 4096, 4096, 1, SP_FP32);
    c = cpu_cfg(SP_IS, 96, 512, 256, 0, 1, SP_SPLIT_M, 6, 64);
    double e1 = model(&t, &big, c).est_cycles;
    CHECK(e1 >= 4096.0 * 4096 * 4096 / 32);
    c.double_buffer = 1;
    CHECK(model(&t, &big, c).est_cycles < e1);
    /* It hides the latency of B's source, not its rate: a GEMV's 9 MiB of B
     * in a slow L3 (2 B/cycle) arrive no faster double-buffered */
    sp_problem gemv = fx_problem(1, 3072, 768, 1, SP_FP32);
    t.cpu.bw_l3 = 2;
    c = cpu_cfg(SP_IS, 1, 128, 256, 1, 1, SP_SPLIT_M, 1, 64);
    CHECK(sp_check(&t, &gemv, &c) == 0);
    CHECK(model(&t, &gemv, c).est_cycles >= 768.0 * 3072 * 4 / 2);
}

/* Same config and figures. */
static int same(const sp_candidate *a, const sp_candidate *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sp_cmp_config(&a[i].config, &b[i].config) || memcmp(&a[i].fig, &b[i].fig, sizeof a->fig))
            return 0;
    return 1;
}

static int by_config(const void *k, const void *e)
{
    return sp_cmp_config(k, &((const sp_candidate *)e)->config);
}

/* The enumerator yields exactly what sp_check accepts, with sp_model's
 * figures; the ranking does not depend on the thread count. */
static void enumerator(void)
{
    sp_target t = fx_avx2(); /* small caches, so every rule bites */
    t.cpu.cache[SP_CL1] = 4 * KiB;
    t.cpu.cache[SP_CL2] = 16 * KiB;
    t.cpu.cache[SP_CL3] = 64 * KiB;
    sp_problem p = fx_problem(100, 90, 70, 2, SP_FP32);
    int32_t cores[] = {1, 2, 4, 8};
    sp_split splits[] = {SP_SPLIT_N, SP_SPLIT_M, SP_SPLIT_MN};
    sp_space s = fx_space(1, 1, cores, 4, splits, 3);
    int32_t mv[] = {8, 16, 24, 48, 100, 112, 128}, nv[] = {16, 32, 48, 96, 200};
    s.m = fx_axis(mv, 7);
    s.n = fx_axis(nv, 5);
    sp_micro micro[] = {{6, 16}, {2, 32}, {8, 8}, {7, 16}}; /* 7x16 needs 17 registers */
    s.micro = micro;
    s.nmicro = 4;
    sp_candidate *all;
    sp_counts n;
    size_t got = sp_enumerate(&t, &p, &s, &all, &n);
    CHECK(got != (size_t)-1);
    if (got == (size_t)-1)
        return;
    /* Padded 112 x 96 x 80: m keeps 6 values, n 4, k is 16..80 (5). */
    static const int32_t ms[] = {8, 16, 24, 48, 100, 112}, ns[] = {16, 32, 48, 96};
    size_t want = 0, bad_fig = 0;
    unsigned seen = 0;
    for (int st = 0; st < 3; st++)
        for (int db = 0; db < 2; db++)
            for (int mi = 0; mi < 6; mi++)
                for (int ni = 0; ni < 4; ni++)
                    for (int kk = 16; kk <= 80; kk += 16)
                        for (int ui = 0; ui < 4; ui++)
                            for (int ci = 0; ci < 4; ci++)
                                for (int si = 0; si < 3; si++) {
                                    if (cores[ci] == 1 && si > 0)
                                        continue; /* one thread is enumerated once */
                                    sp_config c = cpu_cfg(st, ms[mi], ns[ni], kk, db, cores[ci],
                                                          splits[si], micro[ui].mr, micro[ui].nr);
                                    unsigned bad = sp_check(&t, &p, &c);
                                    seen |= bad;
                                    if (bad)
                                        continue;
                                    sp_figures f;
                                    sp_model(&t, &p, &c, &f);
                                    const sp_candidate *e = bsearch(&c, all, got, sizeof *all, by_config);
                                    if (!e || memcmp(&e->fig, &f, sizeof f))
                                        bad_fig++;
                                    want++;
                                }
    /* Every CPU rule cut something here. */
    CHECK_INT(seen, SP_BAD_MICRO | SP_BAD_CACHE1 | SP_BAD_CACHE2 | SP_BAD_CACHE3 |
                        SP_BAD_CORES | SP_BAD_SPLIT);
    CHECK(want > 1000);
    CHECK_INT(got, want);
    CHECK_INT(n.legal, want);
    CHECK_INT(bad_fig, 0);
    CHECK_INT(n.raw, 3 * 2 * 6 * 4 * 5 * 4 * 3 * 4);
    size_t bad_micro = 0;
    for (size_t i = 0; i < got; i++)
        bad_micro += all[i].config.mr == 7 || sp_check(&t, &p, &all[i].config) != 0;
    CHECK_INT(bad_micro, 0);

    sp_sort(all, got, SP_BY_TIME);
    sp_candidate top[50], top2[50];
    omp_set_num_threads(1);
    CHECK_INT(sp_rank_top(&t, &p, &s, SP_BY_TIME, 50, top, NULL), 50);
    CHECK(same(top, all, 50));
    omp_set_num_threads(2);
    CHECK_INT(sp_rank_top(&t, &p, &s, SP_BY_TIME, 50, top2, NULL), 50);
    CHECK(same(top2, all, 50));
    sp_sort(all, got, SP_BY_VOLUME);
    omp_set_num_threads(1);
    CHECK_INT(sp_rank_top(&t, &p, &s, SP_BY_VOLUME, 50, top, NULL), 50);
    CHECK(same(top, all, 50));
    omp_set_num_threads(2);
    CHECK_INT(sp_rank_top(&t, &p, &s, SP_BY_VOLUME, 50, top2, NULL), 50);
    CHECK(same(top2, all, 50));
    free(all);

    /* No micro axis: the target's default tile (6x16 here) only. */
    s.micro = NULL;
    s.nmicro = 0;
    got = sp_enumerate(&t, &p, &s, &all, &n);
    CHECK(got > 0 && got != (size_t)-1);
    size_t other = 0;
    for (size_t i = 0; got != (size_t)-1 && i < got; i++)
        other += all[i].config.mr != 6 || all[i].config.nr != 16;
    CHECK_INT(other, 0);
    CHECK_INT(n.raw, 3 * 2 * 6 * 4 * 5 * 4 * 3);
    free(all);

    /* A dtype the target does not compute: nothing is legal. */
    sp_problem h = fx_problem(100, 90, 70, 1, SP_INT8);
    got = sp_enumerate(&t, &h, &s, &all, &n);
    CHECK_INT(got, 0);
    CHECK_INT(n.legal, 0);
    CHECK(n.raw > 0);
    free(all);
    sp_candidate one;
    CHECK_INT(sp_rank_top(&t, &h, &s, SP_BY_TIME, 1, &one, NULL), 0);
    /* ... nor for fp32 on an NPU (the cube has no fp32 rate). */
    sp_target npu = fx_ascend910();
    sp_problem f32 = fx_problem(64, 64, 64, 1, SP_FP32);
    sp_space ns1 = fx_space(1, 0, cores, 1, splits, 1);
    got = sp_enumerate(&npu, &f32, &ns1, &all, &n);
    CHECK_INT(got, 0);
    CHECK_INT(n.legal, 0);
    free(all);
    sp_space_free(&ns1);

    s.micro = NULL; /* not owned here: sp_space_free must not see the stack array */
    sp_space_free(&s);
}

/* Extreme but accepted inputs: a cores axis of 2^20 values costs
 * no more than the cores the target has; a raw count beyond int64 saturates. */
static void extremes(void)
{
    sp_target t = fx_avx2();
    sp_problem p = fx_problem(64, 80, 48, SP_VALUE_MAX, SP_FP32);
    int32_t *cores = malloc(SP_VALUE_MAX * sizeof *cores);
    for (int32_t i = 0; i < SP_VALUE_MAX; i++)
        cores[i] = i + 1;
    sp_split splits[] = {SP_SPLIT_M, SP_SPLIT_N, SP_SPLIT_MN};
    sp_space s = fx_space(1, 1, cores, SP_VALUE_MAX, splits, 3);
    sp_space s4 = fx_space(1, 1, cores, 4, splits, 3);
    sp_candidate *all, *all4;
    sp_counts n, n4;
    size_t got = sp_enumerate(&t, &p, &s, &all, &n);
    size_t got4 = sp_enumerate(&t, &p, &s4, &all4, &n4);
    CHECK(got != (size_t)-1 && got > 0);
    CHECK_INT(got, got4);
    CHECK(got == got4 && same(all, all4, got));
    /* 3 strategies x 2 db x m, n, k in 16s (4, 5, 3) x 2^20 cores x 3 splits x 1 micro */
    CHECK_INT(n.raw, (int64_t)3 * 2 * 4 * 5 * 3 * SP_VALUE_MAX * 3);
    CHECK_INT(n.legal, n4.legal);
    free(all);
    free(all4);

    /* Every micro-tile up to 255x255 on a huge problem: 65025 tiles x 2^48
     * blocks x 2^20 cores overflows int64. int8 does not run on a CPU, so
     * nothing is walked. */
    sp_problem big = fx_problem(SP_VALUE_MAX, SP_VALUE_MAX, SP_VALUE_MAX, 1, SP_INT8);
    sp_micro *micro = malloc(255 * 255 * sizeof *micro);
    for (int i = 0; i < 255 * 255; i++)
        micro[i] = (sp_micro){(uint8_t)(i / 255 + 1), (uint8_t)(i % 255 + 1)};
    s.micro = micro;
    s.nmicro = 255 * 255;
    sp_candidate one;
    CHECK_INT(sp_rank_top(&t, &big, &s, SP_BY_TIME, 1, &one, &n), 0);
    CHECK_INT(n.raw, INT64_MAX);
    CHECK_INT(n.legal, 0);
    sp_space_free(&s);
    sp_space_free(&s4);
    free(cores);
}

/* The best candidate of p on t among the packing family (packs 1), the
 * no-pack family (2) or both (3), with the target's default micro-tile and
 * every m and n; its config in *c. */
static double best_of(const sp_target *t, const sp_problem *p, unsigned packs, sp_config *c)
{
    int32_t one = 1, kv[] = {64, 128, 256, 512, 1024};
    sp_split split = SP_SPLIT_M;
    sp_space s = fx_space(1, 0, &one, 1, &split, 1);
    s.k = fx_axis(kv, 5);
    s.packs = (uint8_t)packs;
    sp_candidate top;
    size_t got = sp_rank_top(t, p, &s, SP_BY_TIME, 1, &top, NULL);
    free(s.cores.v);
    free(s.k.v);
    if (!CHECK_INT(got, 1))
        return 0;
    *c = top.config;
    return top.fig.est_cycles;
}

/* The cycles stride_stall adds to a no-pack config: stride_stall at 20 against 0. */
static double stride_added(const sp_target *base, const sp_problem *p, sp_config c)
{
    sp_target t = *base;
    t.cpu.stride_stall = 0;
    double none = model(&t, p, c).est_cycles;
    t.cpu.stride_stall = 20;
    return model(&t, p, c).est_cycles - none;
}

/* stride_stall: each line of B the no-pack family reads down its columns
 * from past L2 waits for its miss. A GEMV over all of K then runs at the
 * misses' latency, slower than k blocks that stream B along its rows (the
 * 2-core AVX2 VM: 3-5 times), which the L3 rate alone did not make it; the
 * lines of rows of tiles that read B back from L2 wait for nothing. */
static void stride(const sp_problem *g)
{
    sp_target t = fx_avx2();
    t.cpu.stride_stall = 20;
    sp_config whole = cpu_cfg(SP_OS, 1, 3072, 768, 0, 1, SP_SPLIT_M, 1, 32), k4 = whole;
    whole.nopack = k4.nopack = 1;
    k4.k = SP_CPU_STREAMS;
    double lines = 768.0 * 3072 * 4 / 64;
    CHECK(model(&t, g, k4).est_cycles < model(&t, g, whole).est_cycles);
    CHECK(fabs(stride_added(&t, g, whole) - 20 * lines) < 1);
    CHECK_INT((long)stride_added(&t, g, k4), 0); /* streamed */
    /* 64 rows in tiles of 4: the first row of tiles reads B from L3, the
     * others from L2 while 2 x 64 x 512 floats fit it, else from L3 too */
    sp_problem q = fx_problem(64, 3000, 768, 1, SP_FP32);
    lines = 768.0 * 3000 * 4 / 64;
    sp_config fits = cpu_cfg(SP_OS, 64, 512, 64, 0, 1, SP_SPLIT_M, 4, 16);
    fits.nopack = 1;
    sp_config over = fits;
    over.k = 768;
    CHECK(fabs(stride_added(&t, &q, fits) - 20 * lines) < 1);
    CHECK(fabs(stride_added(&t, &q, over) - 16 * 20 * lines) < 1);
    /* rows a multiple of 4 KiB apart share their L1 and L2 sets: every row
     * of tiles reads B from L3 (3072 floats, as the GEMV's) */
    sp_problem a = fx_problem(64, 3072, 768, 1, SP_FP32);
    CHECK(fabs(stride_added(&t, &a, fits) - 16 * 20 * 768.0 * 3072 * 4 / 64) < 1);
    /* B within L2 (1024 x 64 floats, rows 4 KiB apart): no miss to wait for */
    sp_problem small = fx_problem(1, 1024, 64, 1, SP_FP32);
    sp_config s = cpu_cfg(SP_OS, 1, 1024, 64, 0, 1, SP_SPLIT_M, 1, 32);
    s.nopack = 1;
    CHECK_INT((long)stride_added(&t, &small, s), 0);
}

/* The no-pack family: its own rules (fp32, OS, no double buffering; no cache
 * rule), its enumeration beside the packing family's, and a model that picks
 * it where packing costs more than it saves, with k blocks that stream B
 * along its rows on GEMV-like shapes. */
static void nopack(void)
{
    sp_target t = fx_avx512();
    sp_problem p = fx_problem(64, 64, 64, 1, SP_FP32);
    sp_config c = cpu_cfg(SP_OS, 64, 64, 64, 0, 1, SP_SPLIT_M, 6, 16);
    c.nopack = 1;
    CHECK_INT(sp_check(&t, &p, &c), 0);
    const char *why = "pack = false (A and B read in place, each micro-tile over a k block) needs "
                      "fp32, strategy OS and double_buffer off; this config has ";
    char line[512];
    /* k blocks and threads are the family's too */
    sp_config kb = c;
    kb.k = 4;
    kb.cores = 2;
    kb.split = SP_SPLIT_N;
    CHECK_INT(sp_check(&t, &p, &kb), 0);
    sp_config bad = c;
    bad.strategy = SP_IS;
    bad.double_buffer = 1;
    snprintf(line, sizeof line, "%sfp32, strategy IS, double_buffer on\n", why);
    EXPLAIN(&t, &p, bad, SP_BAD_NOPACK, line);
    sp_problem h = fx_problem(64, 64, 64, 1, SP_BF16);
    snprintf(line, sizeof line, "%sbf16, strategy OS, double_buffer off\n", why);
    EXPLAIN(&t, &h, c, SP_BAD_NOPACK, line);
    /* nothing stays resident, so no cache rule: an A panel of 6 x 100000
     * would overflow L1 when packing */
    sp_problem deep = fx_problem(6, 16, 100000, 1, SP_FP32);
    sp_config d = cpu_cfg(SP_OS, 6, 16, 100000, 0, 1, SP_SPLIT_M, 6, 16);
    CHECK(sp_check(&t, &deep, &d) & SP_BAD_CACHE1);
    d.nopack = 1;
    CHECK_INT(sp_check(&t, &deep, &d), 0);

    /* Enumeration: the packing family, the no-pack one (the k axis's values
     * below K, and K: 16, 32 and 70 per m x n x micro-tile x cores), or both;
     * never a config sp_check refuses, figures as sp_model gives them. */
    sp_problem q = fx_problem(100, 90, 70, 1, SP_FP32);
    int32_t cores[] = {1, 2}, kv[] = {16, 32};
    sp_split splits[] = {SP_SPLIT_M};
    sp_space s = fx_space(1, 1, cores, 2, splits, 1);
    int32_t mv[] = {8, 48, 100}, nv[] = {16, 96};
    s.m = fx_axis(mv, 3);
    s.n = fx_axis(nv, 2);
    s.k = fx_axis(kv, 2);
    sp_micro micro[] = {{6, 16}, {2, 32}, {7, 16}};
    s.micro = micro;
    s.nmicro = 3;
    size_t got[4] = {0};
    sp_counts n[4];
    for (unsigned packs = 1; packs <= 3; packs++) {
        s.packs = (uint8_t)packs;
        sp_candidate *all;
        got[packs] = sp_enumerate(&t, &q, &s, &all, &n[packs]);
        if (!CHECK(got[packs] != (size_t)-1))
            return;
        size_t wrong = 0, nopacks = 0;
        for (size_t i = 0; i < got[packs]; i++) {
            const sp_config *e = &all[i].config;
            sp_figures f;
            memset(&f, 0, sizeof f);
            sp_model(&t, &q, e, &f);
            wrong += sp_check(&t, &q, e) != 0 || memcmp(&f, &all[i].fig, sizeof f) != 0 ||
                     (e->nopack && ((e->k != 16 && e->k != 32 && e->k != 70) ||
                                    e->strategy != SP_OS || e->double_buffer));
            nopacks += e->nopack;
        }
        CHECK_INT(wrong, 0);
        CHECK_INT(nopacks, packs & 2 ? 3 * 2 * 3 * 3 * 2 : 0); /* m x n x micro x k x cores */
        CHECK_INT(n[packs].legal, got[packs]);
        free(all);
    }
    CHECK_INT(got[3], got[1] + got[2]);
    /* the raw product: the k axis for packing, its values below K and K for no-pack */
    CHECK_INT(n[1].raw, 3 * 2 * 3 * 2 * 2 * 2 * 1 * 3);
    CHECK_INT(n[2].raw, 3 * 2 * 3 * 2 * 3 * 2 * 1 * 3);
    CHECK_INT(n[3].raw, 3 * 2 * 3 * 2 * 5 * 2 * 1 * 3);
    /* a space of no-pack only on a problem it cannot take: nothing legal */
    sp_problem q16 = fx_problem(100, 90, 70, 1, SP_BF16);
    s.packs = 2;
    sp_candidate *none;
    CHECK_INT(sp_enumerate(&t, &q16, &s, &none, NULL), 0);
    free(none);
    free(s.m.v);
    free(s.n.v);
    free(s.k.v);
    free(s.cores.v);

    /* The model: no packing wins on small problems and on GEMV-like ones
     * (every element of B used once), packing on large ones whose rows of B
     * are 4 KiB apart; with both allowed the ranking takes the faster. */
    static const struct {
        long M, N, K;
        int nopack;
    } shapes[] = {{64, 64, 64, 1}, {96, 96, 96, 1}, {1, 768, 3072, 1}, {1, 3072, 768, 1},
                  {2048, 2048, 2048, 0}, {1024, 1024, 1024, 0}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        sp_problem r = fx_problem(shapes[i].M, shapes[i].N, shapes[i].K, 1, SP_FP32);
        sp_config cp, cn, cb;
        double packed = best_of(&t, &r, 1, &cp), direct = best_of(&t, &r, 2, &cn);
        double both = best_of(&t, &r, 3, &cb);
        if (!CHECK_INT(direct < packed, shapes[i].nopack))
            fprintf(stderr, "  %ldx%ldx%ld: packing %.0f cycles, no-pack %.0f\n", shapes[i].M,
                    shapes[i].N, shapes[i].K, packed, direct);
        CHECK_INT(cb.nopack, shapes[i].nopack);
        CHECK(both == (direct < packed ? direct : packed));
    }

    /* GEMV-like: 1x64 tiles over k blocks of a few rows stream B along its
     * rows, faster than over all of K (down B's columns, 12 KiB apart), than
     * k blocks of more rows than the prefetchers follow, and than column
     * blocks of which one is too narrow to stream; two threads split N */
    sp_problem g = fx_problem(1, 3072, 768, 1, SP_FP32);
    sp_config whole = cpu_cfg(SP_OS, 1, 3072, 768, 0, 1, SP_SPLIT_M, 1, 64);
    whole.nopack = 1;
    sp_config k4 = whole, k64 = whole, k4n = whole, k4t = whole;
    k4.k = k4n.k = k4t.k = SP_CPU_STREAMS;
    k64.k = 64;
    k4n.n = 2944;
    k4t.cores = 2;
    k4t.split = SP_SPLIT_N;
    double est[5];
    const sp_config *gc[5] = {&k4, &whole, &k64, &k4n, &k4t};
    for (int i = 0; i < 5; i++) {
        sp_figures f;
        CHECK_INT(sp_check(&t, &g, gc[i]), 0);
        sp_model(&t, &g, gc[i], &f);
        est[i] = f.est_cycles;
    }
    CHECK(est[0] < est[1]);
    CHECK(est[0] < est[2]);
    CHECK(est[0] < est[3]);
    CHECK(est[4] < est[0]);
    stride(&g);
}

int main(void)
{
    targets();
    micro();
    rules();
    volumes();
    cycles();
    enumerator();
    extremes();
    nopack();
    return CHECK_DONE();
}
