/* fixtures.h — targets, problems and spaces built in C for tests that must not
 * depend on the Lua layer (the built-in tables are checked against these). */
#ifndef NPU_TUNE_FIXTURES_H
#define NPU_TUNE_FIXTURES_H

#include <stdlib.h>
#include <string.h>

#include "space.h"

#define KiB 1024
#define MiB (1024 * 1024)

/* The ascend910 figures, as lua/targets.lua ships them. */
static inline sp_target fx_ascend910(void)
{
    sp_target t = {
        .name = "ascend910", .cores = 32, .clock_mhz = 1000,
        .macs = {[SP_FP16] = 4096, [SP_INT8] = 8192},
        .buf_bytes = {[SP_L1] = 1 * MiB, [SP_L0A] = 64 * KiB, [SP_L0B] = 64 * KiB,
                      [SP_L0C] = 256 * KiB, [SP_UB] = 256 * KiB},
        .buf_align = {[SP_L1] = 32, [SP_L0A] = 512, [SP_L0B] = 512, [SP_L0C] = 512, [SP_UB] = 32},
        .path = {[SP_GM_L1] = {64, 200}, [SP_L1_L0A] = {512, 16}, [SP_L1_L0B] = {256, 16},
                 [SP_L0C_UB] = {256, 16}, [SP_UB_GM] = {64, 200}},
        .gm_bandwidth = 1200, .events = 8,
    };
    return t;
}

/* A CPU target: 8 fp32 lanes, 16 registers, 32 KiB L1d, 1 MiB L2, 8 MiB L3
 * over 4 cores (the "box" of tests/cli/signatures.sh). */
static inline sp_target fx_box(void)
{
    sp_target t = {
        .name = "box", .kind = SP_CPU, .cores = 4, .clock_mhz = 3000,
        .cpu = {.simd_floats = 8, .vregs = 16, .fma_units = 2, .load_ports = 2,
                .cache = {[SP_CL1] = 32 * KiB, [SP_CL2] = 1 * MiB, [SP_CL3] = 8 * MiB},
                .bw_l2 = 32, .bw_l3 = 16, .bw_mem = 8, .bw_mem_shared = 16},
    };
    return t;
}

/* Round numbers and no latencies, for cycle counts worked by hand. */
static inline sp_target fx_round(void)
{
    sp_target t = fx_ascend910();
    strcpy(t.name, "round");
    for (int p = 0; p < SP_NPATH; p++)
        t.path[p].latency = 0;
    return t;
}

static inline sp_problem fx_problem(long M, long N, long K, long batch, sp_dtype d)
{
    sp_problem p = {.name = "p", .dtype = d};
    sp_problem_set(&p, sp_op_parse("matmul"), (const int64_t[]){M, N, K, batch});
    return p;
}

static inline sp_axis fx_axis(const int32_t *v, size_t n)
{
    sp_axis a = {malloc((n ? n : 1) * sizeof *v), n};
    if (n)
        memcpy(a.v, v, n * sizeof *v);
    sp_axis_normalise(&a);
    return a;
}

/* All strategies, automatic m/n/k, given double-buffer, cores and splits. */
static inline sp_space fx_space(int db_off, int db_on, const int32_t *cores, size_t ncores,
                                const sp_split *splits, int nsplit)
{
    sp_space s = {.strategy = {true, true, true}, .double_buffer = {db_off, db_on}};
    s.cores = fx_axis(cores, ncores);
    for (int i = 0; i < nsplit; i++)
        s.split[i] = splits[i];
    s.nsplit = nsplit;
    return s;
}

#endif
