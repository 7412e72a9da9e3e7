/* target.c — consistency checks of a target description, so that a bad table
 * is rejected by field name before it can reach the model. */
#include <stdio.h>

#include "space.h"

static const char *const path_keys[SP_NPATH] = {"gm_l1", "l1_l0a", "l1_l0b", "l0c_ub", "ub_gm"};
static const char *const buffer_keys[SP_NBUF] = {"l1", "l0a", "l0b", "l0c", "ub"};

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

bool sp_target_check(const sp_target *t, char *err, size_t errlen)
{
    const char *n = t->name[0] ? t->name : "(unnamed)";
    if (t->cores < 1)
        FAIL("target '%s': field 'cores' must be a positive integer", n);
    if (!(t->clock_mhz > 0))
        FAIL("target '%s': field 'clock_mhz' must be positive", n);
    for (int d = 0; d < SP_NDTYPE; d++)
        if (!(t->macs[d] > 0))
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
