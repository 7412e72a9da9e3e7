/* space.c — search-space axes: normalising user value lists and freeing them.
 * Enumeration relies on axes being ascending and free of duplicates. */
#include <stdlib.h>

#include "space.h"

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

void sp_axis_normalise(sp_axis *a)
{
    if (a->n < 2)
        return;
    qsort(a->v, a->n, sizeof *a->v, cmp_i32);
    size_t w = 1;
    for (size_t r = 1; r < a->n; r++)
        if (a->v[r] != a->v[w - 1])
            a->v[w++] = a->v[r];
    a->n = w;
}

void sp_space_free(sp_space *s)
{
    free(s->m.v);
    free(s->n.v);
    free(s->k.v);
    free(s->cores.v);
    free(s->micro);
    s->micro = NULL;
    s->nmicro = 0;
    s->m = s->n = s->k = s->cores = (sp_axis){0};
}
