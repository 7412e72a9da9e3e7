/* cpu_emit.c — writes the host kernels of a fixed set of configs, one file each, for
 * tests/codegen/cpu_same_code.sh to compile against another revision's generator. */
#include <stdio.h>
#include <stdlib.h>

#include "codegen.h"

/* The ways threads share C: one thread, or 2, 3, 4 over M, N or a grid. */
static const struct {
    int cores, split;
} sharing[] = {{1, SP_SPLIT_M},  {2, SP_SPLIT_M},  {2, SP_SPLIT_N},
               {2, SP_SPLIT_MN}, {3, SP_SPLIT_MN}, {4, SP_SPLIT_MN}};

/* Micro-tiles for every vector code path (nr % 16: AVX-512, nr % 8: AVX2, else
 * portable), with and without narrower edge kernels, up to the largest tiles. */
static const sp_micro tiles[] = {{8, 48}, {14, 32}, {6, 64}, {4, 8},  {5, 24}, {3, 4},
                                 {7, 20}, {2, 12},  {32, 16}, {1, 4}, {2, 128}};

/* Cache blocks: odd, rounded, and beyond the generator's limits. */
static const int blocks[][3] = {{96, 512, 256}, {7, 17, 3}, {100, 300, 64},
                                {1 << 30, 1 << 30, 1 << 30}};

/* Writes DIR/NNN.c for every config (symbol hk) and a line describing it to stdout. */
int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cpu_emit DIR\n");
        return 2;
    }
    static const sp_dtype dtypes[] = {SP_FP32, SP_BF16, SP_FP16};
    int n = 0;
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
        for (int s = 0; s < SP_NSTRATEGY; s++)
            for (int db = 0; db < 2; db++)
                for (size_t h = 0; h < sizeof sharing / sizeof sharing[0]; h++, n++) {
                    /* every sharing in fp32; one thread, split M and a 4-thread grid in 16 bits */
                    if (dtypes[d] != SP_FP32 && h != 0 && h != 1 && h != 5)
                        continue;
                    const int *b = blocks[n % (sizeof blocks / sizeof blocks[0])];
                    sp_micro u = tiles[n % (sizeof tiles / sizeof tiles[0])];
                    sp_config c = {.m = b[0], .n = b[1], .k = b[2], .cores = sharing[h].cores,
                                   .strategy = (uint8_t)s, .double_buffer = (uint8_t)db,
                                   .split = (uint8_t)sharing[h].split, .mr = u.mr, .nr = u.nr};
                    char path[4096], err[256];
                    snprintf(path, sizeof path, "%s/%03d.c", argv[1], n);
                    FILE *f = fopen(path, "w");
                    bool ok = f && cg_host_source(f, &c, dtypes[d], "hk", err, sizeof err);
                    if (f && fclose(f) != 0)
                        ok = false;
                    if (!ok) {
                        fprintf(stderr, "cpu_emit: %s: %s\n", path, f ? err : "cannot write");
                        return 1;
                    }
                    printf("%03d %s %s db=%d cores=%d split=%s %dx%d\n", n,
                           sp_dtype_name(dtypes[d]), sp_strategy_name(c.strategy), db, c.cores,
                           sp_split_name(c.split), c.mr, c.nr);
                }
    return 0;
}
