/* op.c — the registry of operations (matmul, ...): each op's own file says its
 * dimensions, its GEMM view and its shape text; here they are found by name. */
#include <string.h>

#include "space.h"

/* The registry: every op, the default first. Op NAME is sp_op_NAME, defined
 * in its own op_NAME.c, which CMake compiles by glob: adding an op is that
 * file and one line here. */
#define SP_OPS(X) \
    X(matmul)

#define DECLARE(name) extern const sp_op sp_op_##name;
SP_OPS(DECLARE)
#define ENTRY(name) &sp_op_##name,
static const sp_op *const ops[] = {SP_OPS(ENTRY)};
#define NOPS ((int)(sizeof ops / sizeof *ops))

const sp_op *sp_op_get(int i) { return i >= 0 && i < NOPS ? ops[i] : NULL; }

const char *sp_op_name(int i) { return i >= 0 && i < NOPS ? ops[i]->name : NULL; }

int sp_op_parse(const char *name)
{
    for (int i = 0; name && i < NOPS; i++)
        if (strcmp(ops[i]->name, name) == 0)
            return i;
    return -1;
}

int sp_op_dim_index(const sp_op *o, const char *name)
{
    for (int i = 0; i < o->ndims; i++)
        if (strcmp(o->dim[i].name, name) == 0)
            return i;
    return -1;
}

void sp_problem_set(sp_problem *p, int op, const int64_t *dims)
{
    const sp_op *o = ops[op];
    p->op = (uint8_t)op;
    memset(p->dims, 0, sizeof p->dims);
    memcpy(p->dims, dims, (size_t)o->ndims * sizeof *dims);
    o->gemm(p);
}

int sp_problem_cmp(const sp_problem *a, const sp_problem *b, bool dtype)
{
    int c = strcmp(a->name, b->name);
    if (!c)
        c = (a->op > b->op) - (a->op < b->op);
    for (int i = 0; !c && i < ops[a->op]->ndims; i++)
        c = (a->dims[i] > b->dims[i]) - (a->dims[i] < b->dims[i]);
    if (!c && dtype)
        c = ((int)a->dtype > (int)b->dtype) - ((int)a->dtype < (int)b->dtype);
    return c;
}

bool sp_problem_same_shape(const sp_problem *a, const sp_problem *b)
{
    return a->op == b->op &&
           memcmp(a->dims, b->dims, (size_t)ops[a->op]->ndims * sizeof *a->dims) == 0;
}

bool sp_problem_from_gemm(sp_problem *p)
{
    const sp_op *o = ops[p->op];
    if (!o->from_gemm)
        return false;
    memset(p->dims, 0, sizeof p->dims);
    o->from_gemm(p, p->dims);
    return true;
}

int sp_problem_shape(const sp_problem *p, char *buf, size_t len)
{
    return ops[p->op]->format(p->dims, buf, len);
}

double sp_problem_flops(const sp_problem *p)
{
    return 2.0 * (double)p->M * (double)p->N * (double)p->K * (double)p->batch;
}
