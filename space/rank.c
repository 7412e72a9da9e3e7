/* rank.c — the total orders candidates are ranked by: estimated time or load
 * volume first, then the tie-break to larger buffer use, then config. */
#include <math.h>
#include <stdlib.h>

#include "space.h"

#define CMP(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

/* Figures: a total order even when a target's extreme figures make the
 * model's times infinite or NaN (NaN last, equal to itself), so that sorts
 * and heaps stay consistent. */
static inline int cmp_fig(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

#define CMP_FIG(a, b) do { int c_ = cmp_fig((a), (b)); if (c_) return c_; } while (0)

/* Configs travel between MPI ranks as their bytes (tuner/wire.c): the no-pack flag
 * took a byte of the padding, and the size stays. */
_Static_assert(sizeof(sp_config) == 24, "sp_config grew");

int sp_cmp_config(const sp_config *a, const sp_config *b)
{
    CMP(a->strategy, b->strategy);
    CMP(a->m, b->m);
    CMP(a->n, b->n);
    CMP(a->k, b->k);
    CMP(a->double_buffer, b->double_buffer);
    CMP(a->cores, b->cores);
    CMP(a->split, b->split);
    CMP(a->mr, b->mr);
    CMP(a->nr, b->nr);
    CMP(a->nopack, b->nopack);
    return 0;
}

int sp_cmp_time(const sp_candidate *a, const sp_candidate *b)
{
    CMP_FIG(a->fig.est_cycles, b->fig.est_cycles);
    CMP_FIG(b->fig.buffer_use, a->fig.buffer_use);
    CMP_FIG(a->fig.load_elems, b->fig.load_elems);
    return sp_cmp_config(&a->config, &b->config);
}

int sp_cmp_volume(const sp_candidate *a, const sp_candidate *b)
{
    CMP_FIG(a->fig.load_elems, b->fig.load_elems);
    CMP_FIG(b->fig.buffer_use, a->fig.buffer_use);
    CMP_FIG(a->fig.est_cycles, b->fig.est_cycles);
    return sp_cmp_config(&a->config, &b->config);
}

static int by_time(const void *a, const void *b) { return sp_cmp_time(a, b); }
static int by_volume(const void *a, const void *b) { return sp_cmp_volume(a, b); }

void sp_sort(sp_candidate *c, size_t n, sp_order order)
{
    qsort(c, n, sizeof *c, order == SP_BY_TIME ? by_time : by_volume);
}
