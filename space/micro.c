/* micro.c — register micro-tiles of CPU targets: which fit the vector
 * registers, and the one the generator uses when a space names none. */
#include <stdio.h>

#include "space.h"

bool sp_micro_fits(const sp_target *t, sp_micro u)
{
    int w = t->cpu.simd_floats;
    if (u.mr < 1 || u.nr < 1 || w < 1 || u.nr % w)
        return false;
    int nv = u.nr / w;
    return u.mr * nv + nv + 1 <= t->cpu.vregs;
}

void sp_micro_why(const sp_target *t, sp_micro u, char *buf, size_t len)
{
    int w = t->cpu.simd_floats;
    if (len)
        buf[0] = '\0';
    if (sp_micro_fits(t, u))
        return;
    if (u.mr < 1 || u.nr < 1 || w < 1 || u.nr % w) {
        snprintf(buf, len, "micro-tile %dx%d: nr must be a positive multiple of the %d-float "
                 "vector of '%s'", u.mr, u.nr, w, t->name);
        return;
    }
    int nv = u.nr / w;
    snprintf(buf, len,
             "micro-tile %dx%d needs %d accumulators + %d B vectors + 1 broadcast = %d vector "
             "registers, '%s' has %d",
             u.mr, u.nr, u.mr * nv, nv, u.mr * nv + nv + 1, t->name, t->cpu.vregs);
}

/* A k step of the micro-kernel loads mr broadcasts and nv B vectors for
 * mr*nv FMAs; loads slow the FMAs even below the load ports' limit, so the
 * tile with the most FMAs per load wins. AVX-512 (16 lanes, 32 registers):
 * 6 x 64; AVX2 (8, 16): 6 x 16; SSE (4, 16): 6 x 8; NEON (4, 32): 6 x 16. */
sp_micro sp_micro_default(const sp_target *t)
{
    int w = t->cpu.simd_floats >= 1 ? t->cpu.simd_floats : 4;
    int vregs = t->cpu.vregs >= 3 ? t->cpu.vregs : 3;
    sp_micro best = {1, (uint8_t)(w <= 255 ? w : 255)};
    double best_ratio = 0;
    for (int nv = 1; nv * w <= 255 && nv + 2 <= vregs; nv *= 2) {
        int mr = (vregs - 1 - nv) / nv;
        if (mr > 32)
            mr = 32;
        if (mr < 1)
            continue;
        double ratio = (double)(mr * nv) / (mr + nv);
        if (ratio > best_ratio + 1e-9) {
            best_ratio = ratio;
            best.mr = (uint8_t)mr;
            best.nr = (uint8_t)(nv * w);
        }
    }
    return best;
}

/* The tiles of micro = "auto" by register file, in vectors (rows x vectors
 * of B): those the generated micro-kernels run fastest with by themselves
 * (bench_host_ukr: with 32 registers of 16 floats, 6x64, 8x48, 12x32 and
 * 14x32 at 88-94% of the FMA peak; with 16 of 8, 4x24, 3x24, 5x16 and 6x16 at
 * 84-92%, 12x8 and 14x8 at under 70%). */
static const struct {
    int vregs;
    uint8_t tile[4][2];
} auto_tiles[] = {
    {32, {{6, 4}, {8, 3}, {12, 2}, {14, 2}}},
    {16, {{6, 2}, {4, 3}, {5, 2}, {3, 3}}},
};

size_t sp_micro_auto(const sp_target *t, sp_micro *out)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof auto_tiles / sizeof auto_tiles[0] && !n; i++)
        for (size_t j = 0; j < 4 && auto_tiles[i].vregs <= t->cpu.vregs; j++) {
            int nr = auto_tiles[i].tile[j][1] * t->cpu.simd_floats;
            sp_micro u = {auto_tiles[i].tile[j][0], (uint8_t)(nr <= 255 ? nr : 0)};
            if (u.nr && sp_micro_fits(t, u))
                out[n++] = u;
        }
    if (!n)
        out[n++] = sp_micro_default(t);
    return n;
}
