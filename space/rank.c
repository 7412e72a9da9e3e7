/* rank.c — the total orders candidates are ranked by: estimated time or load
 * volume first, then the thesis's tie-break (larger buffer use), then config. */
#include <stdlib.h>

#include "space.h"

#define CMP(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)

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
    return 0;
}

int sp_cmp_time(const sp_candidate *a, const sp_candidate *b)
{
    CMP(a->fig.est_cycles, b->fig.est_cycles);
    CMP(b->fig.buffer_use, a->fig.buffer_use);
    CMP(a->fig.load_elems, b->fig.load_elems);
    return sp_cmp_config(&a->config, &b->config);
}

int sp_cmp_volume(const sp_candidate *a, const sp_candidate *b)
{
    CMP(a->fig.load_elems, b->fig.load_elems);
    CMP(b->fig.buffer_use, a->fig.buffer_use);
    CMP(a->fig.est_cycles, b->fig.est_cycles);
    return sp_cmp_config(&a->config, &b->config);
}

static int by_time(const void *a, const void *b) { return sp_cmp_time(a, b); }
static int by_volume(const void *a, const void *b) { return sp_cmp_volume(a, b); }

void sp_sort(sp_candidate *c, size_t n, sp_order order)
{
    qsort(c, n, sizeof *c, order == SP_BY_TIME ? by_time : by_volume);
}
