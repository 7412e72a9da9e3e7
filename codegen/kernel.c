/* kernel.c — owning and growing kernels: appending instructions to a core's
 * stream, sizes, and freeing. */
#include <stdlib.h>
#include <string.h>

#include "codegen.h"

bool cg_emit(cg_core *c, const cg_instr *in)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        cg_instr *v = realloc(c->code, cap * sizeof *v);
        if (!v)
            return false;
        c->code = v;
        c->cap = cap;
    }
    c->code[c->n++] = *in;
    return true;
}

size_t cg_kernel_size(const cg_kernel *k)
{
    size_t n = 0;
    for (int i = 0; i < k->ncores; i++)
        n += k->cores[i].n;
    return n;
}

void cg_kernel_free(cg_kernel *k)
{
    for (int i = 0; i < k->ncores; i++) {
        free(k->cores[i].bufs);
        free(k->cores[i].code);
    }
    free(k->cores);
    memset(k, 0, sizeof *k);
}
