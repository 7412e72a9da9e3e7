/* target.c — consistency checks of a target description, so that a bad table
 * is rejected by field name before it can reach the model. */
#include <stdio.h>

#include "space.h"

static const char *const path_keys[SP_NPATH] = {"gm_l1", "l1_l0a", "l1_l0b", "l0c_ub", "ub_gm"};
static const char *const buffer_keys[SP_NBUF] = {"l1", "l0a", "l0b", "l0c", "ub"};

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

bool sp_cpu_computes(sp_dtype d)
{
    return d == SP_FP32 || d == SP_BF16 || d == SP_FP16;
}

int64_t sp_cpu_row_floats(int64_t n)
{
    int64_t w = (n + 15) / 16 * 16;
    return w / 16 % 2 ? w : w + 16;
}

bool sp_target_computes(const sp_target *t, sp_dtype d)
{
    if (t->kind == SP_CPU)
        return sp_cpu_computes(d);
    return d >= 0 && d < SP_NDTYPE && t->macs[d] > 0;
}

const char *sp_target_dtypes(const sp_target *t, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int d = 0; d < SP_NDTYPE && used < len; d++)
        if (sp_target_computes(t, (sp_dtype)d)) {
            int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", sp_dtype_name(d));
            if (w > 0)
                used += (size_t)w;
        }
    return buf;
}

/* The fields of a CPU target. */
static bool cpu_check(const sp_target *t, const char *n, char *err, size_t errlen)
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
    static const char *const cache_keys[SP_NCACHE] = {"l1", "l2", "l3"};
    for (int l = 0; l < SP_NCACHE; l++)
        if (u->cache[l] < (l == SP_CL3 ? 0 : 1024))
            FAIL("target '%s': field '%s' must be %s", n, cache_keys[l],
                 l == SP_CL3 ? "a byte count (0: no L3)" : "at least 1024 bytes");
    const double bw[] = {u->bw_l2, u->bw_l3, u->bw_mem, u->bw_mem_shared};
    static const char *const bw_keys[] = {"l2", "l3", "mem", "mem_shared"};
    for (int i = 0; i < 4; i++)
        if (!(bw[i] > 0))
            FAIL("target '%s': field 'bandwidth.%s' must be positive", n, bw_keys[i]);
    if (!(u->fork_join >= 0 && u->fork_join <= 1e9))
        FAIL("target '%s': field 'fork_join' must be a cycle count from 0 to 1e9", n);
    return true;
}

bool sp_target_check(const sp_target *t, char *err, size_t errlen)
{
    const char *n = t->name[0] ? t->name : "(unnamed)";
    if (t->kind >= SP_NKIND)
        FAIL("target '%s': field 'kind' must be \"npu\" or \"cpu\"", n);
    if (t->cores < 1)
        FAIL("target '%s': field 'cores' must be a positive integer", n);
    if (!(t->clock_mhz > 0))
        FAIL("target '%s': field 'clock_mhz' must be positive", n);
    if (t->kind == SP_CPU)
        return cpu_check(t, n, err, errlen);
    for (int d = 0; d < SP_NDTYPE; d++)
        if (d == SP_FP32 || d == SP_BF16 ? !(t->macs[d] >= 0) : !(t->macs[d] > 0))
            FAIL("target '%s': field 'macs.%s' must be positive", n, sp_dtype_name(d));
    for (int b = 0; b < SP_NBUF; b++) {
        if (t->buf_align[b] < 1)
            FAIL("target '%s': field 'align.%s' must be a positive integer", n, buffer_keys[b]);
        if (t->buf_bytes[b] < 1)
            FAIL("target '%s': field '%s' must be a positive byte count", n, buffer_keys[b]);
        if (t->buf_bytes[b] % t->buf_align[b])
            FAIL("target '%s': field '%s' (%lld bytes) is not a multiple of its alignment %d",
                 n, buffer_keys[b], (long long)t->buf_bytes[b], t->buf_align[b]);
    }
    /* The smallest cube operand is one 512-byte fractal; the smallest
     * accumulator block is 16x16 of 4-byte elements. */
    for (int b = SP_L0A; b <= SP_L0B; b++)
        if (t->buf_bytes[b] < 512)
            FAIL("target '%s': field '%s' (%lld bytes) is smaller than one 512-byte fractal",
                 n, buffer_keys[b], (long long)t->buf_bytes[b]);
    if (t->buf_bytes[SP_L0C] < 1024)
        FAIL("target '%s': field 'l0c' (%lld bytes) is smaller than one 16x16 fp32 fractal (1024 bytes)",
             n, (long long)t->buf_bytes[SP_L0C]);
    if (t->buf_bytes[SP_UB] < 1024)
        FAIL("target '%s': field 'ub' (%lld bytes) cannot hold one 16x16 fp32 fractal (1024 bytes)",
             n, (long long)t->buf_bytes[SP_UB]);
    if (t->buf_bytes[SP_L1] < 1024)
        FAIL("target '%s': field 'l1' (%lld bytes) cannot stage one A and one B fractal",
             n, (long long)t->buf_bytes[SP_L1]);
    for (int p = 0; p < SP_NPATH; p++) {
        if (!(t->path[p].bandwidth > 0))
            FAIL("target '%s': field '%s.bandwidth' must be positive", n, path_keys[p]);
        if (!(t->path[p].latency >= 0))
            FAIL("target '%s': field '%s.latency' must not be negative", n, path_keys[p]);
    }
    if (!(t->gm_bandwidth > 0))
        FAIL("target '%s': field 'gm_bandwidth' must be positive", n);
    if (t->events < 1)
        FAIL("target '%s': field 'events' must be a positive integer", n);
    return true;
}
