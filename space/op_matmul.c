/* op_matmul.c — matmul, C[M x N] = A[M x K] . B[K x N] batch times: its own
 * GEMM view; its shape is "MxNxK", and " bB" after it for a batch above 1. */
#include <stdio.h>

#include "space.h"

enum { M, N, K, BATCH };

static void gemm(sp_problem *p)
{
    p->M = p->dims[M];
    p->N = p->dims[N];
    p->K = p->dims[K];
    p->batch = p->dims[BATCH];
}

/* The dimensions are the view's own. */
static void from_gemm(const sp_problem *p, int64_t *d)
{
    d[M] = p->M;
    d[N] = p->N;
    d[K] = p->K;
    d[BATCH] = p->batch;
}

static int format(const int64_t *d, char *buf, size_t len)
{
    if (d[BATCH] > 1)
        return snprintf(buf, len, "%lldx%lldx%lld b%lld", (long long)d[M], (long long)d[N],
                        (long long)d[K], (long long)d[BATCH]);
    return snprintf(buf, len, "%lldx%lldx%lld", (long long)d[M], (long long)d[N],
                    (long long)d[K]);
}

/* Digits making 1 to SP_VALUE_MAX at *s, advanced past them. */
static bool value(const char **s, int64_t *v)
{
    int64_t x = 0;
    const char *p = *s;
    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((x = x * 10 + (*p - '0')) > SP_VALUE_MAX)
            return false;
    *s = p;
    *v = x;
    return x >= 1;
}

static bool parse(const char *s, int64_t *d)
{
    d[BATCH] = 1;
    if (!value(&s, &d[M]) || *s++ != 'x' || !value(&s, &d[N]) || *s++ != 'x' ||
        !value(&s, &d[K]))
        return false;
    if (s[0] == ' ' && s[1] == 'b' && (s += 2, !value(&s, &d[BATCH])))
        return false;
    return *s == '\0';
}

const sp_op sp_op_matmul = {
    .name = "matmul",
    .ndims = 4,
    .dim = {{"M", 0}, {"N", 0}, {"K", 0}, {"batch", 1}},
    .syntax = "MxNxK",
    .gemm = gemm,
    .format = format,
    .parse = parse,
    .from_gemm = from_gemm,
};
