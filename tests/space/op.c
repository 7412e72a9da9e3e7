/* op.c — the op registry: every op has named dimensions, a GEMM view within
 * the limits and a shape text that reads back the same; matmul's by example. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "space.h"

/* Op o's dimensions set to v, or to their defaults where `defaults`. */
static void fill(const sp_op *o, int64_t v, bool defaults, int64_t *dims)
{
    for (int d = 0; d < o->ndims; d++)
        dims[d] = defaults && o->dim[d].dflt ? o->dim[d].dflt : v;
}

/* The shape of p prints, reads back to the same dimensions, and prints the same. */
static void round_trip(const sp_op *o, const sp_problem *p)
{
    char text[256], again[256];
    int n = sp_problem_shape(p, text, sizeof text);
    if (!CHECK(n > 0 && (size_t)n < sizeof text))
        return;
    int64_t dims[SP_OP_DIMS_MAX] = {0};
    if (!CHECK(o->parse(text, dims))) {
        fprintf(stderr, "op %s: '%s' does not read back\n", o->name, text);
        return;
    }
    for (int d = 0; d < o->ndims; d++)
        CHECK_INT(dims[d], p->dims[d]);
    sp_problem q = {0};
    sp_problem_set(&q, p->op, dims);
    sp_problem_shape(&q, again, sizeof again);
    CHECK_STR(again, text);
    CHECK(sp_problem_same_shape(&q, p));
    CHECK_INT(sp_problem_cmp(&q, p, true), 0);
    /* the dimensions back from the GEMM view alone, where the op can */
    sp_problem g = {.M = p->M, .N = p->N, .K = p->K, .batch = p->batch, .op = p->op};
    if (o->from_gemm && CHECK(sp_problem_from_gemm(&g)))
        CHECK(sp_problem_same_shape(&g, p));
}

/* Whatever every op must be. */
static void every_op(void)
{
    int n = 0;
    for (const sp_op *o; (o = sp_op_get(n)); n++) {
        CHECK(o->name && *o->name);
        CHECK_STR(sp_op_name(n), o->name);
        CHECK_INT(sp_op_parse(o->name), n);
        CHECK(sp_label_ok(o->name, strlen(o->name))); /* it goes into CSV files */
        CHECK(o->ndims >= 1 && o->ndims <= SP_OP_DIMS_MAX);
        CHECK(o->syntax && *o->syntax);
        CHECK(o->gemm && o->format && o->parse);
        bool defaults = false;
        for (int d = 0; d < o->ndims; d++) {
            CHECK(o->dim[d].name && *o->dim[d].name);
            CHECK_INT(sp_op_dim_index(o, o->dim[d].name), d); /* distinct names */
            CHECK(o->dim[d].dflt >= 0 && o->dim[d].dflt <= SP_VALUE_MAX);
            if (!CHECK(!defaults || o->dim[d].dflt)) /* the ones with a default come last */
                fprintf(stderr, "op %s: dimension %s without a default after one with\n",
                        o->name, o->dim[d].name);
            defaults |= o->dim[d].dflt != 0;
        }
        CHECK_INT(sp_op_dim_index(o, "no such dimension"), -1);
        /* the GEMM view within the limits, and shapes that read back, at the
         * smallest, the largest and in between (defaults too) */
        const int64_t values[] = {1, 7, 640, SP_VALUE_MAX};
        for (size_t v = 0; v < sizeof values / sizeof *values; v++)
            for (int with_defaults = 0; with_defaults < 2; with_defaults++) {
                int64_t dims[SP_OP_DIMS_MAX];
                fill(o, values[v], with_defaults, dims);
                sp_problem p = {0};
                sp_problem_set(&p, n, dims);
                CHECK_INT(p.op, n);
                const int64_t view[] = {p.M, p.N, p.K, p.batch};
                for (int i = 0; i < 4; i++)
                    CHECK(view[i] >= 1 && view[i] <= SP_VALUE_MAX);
                CHECK(sp_problem_flops(&p) > 0);
                round_trip(o, &p);
                CHECK(sp_problem_shape(&p, NULL, 0) < SP_SHAPE_MAX);
            }
        /* text that is no shape */
        const char *bad[] = {"", "x", "1", "0", "-1", "1x", "abc", " 1", "1 ", "1x1x1x1x1x1x1x1x1x1x1x1x1x1"};
        for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
            int64_t dims[SP_OP_DIMS_MAX];
            if (!CHECK(!o->parse(bad[b], dims)))
                fprintf(stderr, "op %s reads '%s'\n", o->name, bad[b]);
        }
    }
    CHECK(n >= 1);
    CHECK(sp_op_get(-1) == NULL);
    CHECK(sp_op_name(n) == NULL);
    CHECK_INT(sp_op_parse("nope"), -1);
    CHECK_INT(sp_op_parse(NULL), -1);
}

/* The default op, matmul: its dimensions are its GEMM view; its shape is the
 * text the summary has always printed. */
static void matmul(void)
{
    const sp_op *o = sp_op_get(0);
    CHECK_STR(o->name, "matmul");
    CHECK_INT(o->ndims, 4);
    CHECK_STR(o->syntax, "MxNxK");
    sp_problem p = {0};
    sp_problem_set(&p, 0, (const int64_t[]){512, 768, 3072, 1});
    CHECK_INT(p.M, 512);
    CHECK_INT(p.N, 768);
    CHECK_INT(p.K, 3072);
    CHECK_INT(p.batch, 1);
    CHECK_DBL(sp_problem_flops(&p), 2.0 * 512 * 768 * 3072);
    char text[64];
    CHECK_INT(sp_problem_shape(&p, text, sizeof text), 12);
    CHECK_STR(text, "512x768x3072");
    sp_problem_set(&p, 0, (const int64_t[]){64, 96, 80, 4});
    CHECK_INT(p.batch, 4);
    sp_problem_shape(&p, text, sizeof text);
    CHECK_STR(text, "64x96x80 b4");
    CHECK_DBL(sp_problem_flops(&p), 2.0 * 64 * 96 * 80 * 4);
    /* its dimensions from its view (files from before the shape column) */
    sp_problem v = {.M = 64, .N = 96, .K = 80, .batch = 4};
    CHECK(sp_problem_from_gemm(&v));
    CHECK(sp_problem_same_shape(&v, &p));
    sp_problem_set(&v, 0, (const int64_t[]){64, 96, 80, 3});
    CHECK(!sp_problem_same_shape(&v, &p));
    CHECK(sp_problem_cmp(&v, &p, false) < 0);
    /* cut to fit, like snprintf */
    CHECK_INT(sp_problem_shape(&p, text, 5), 11);
    CHECK_STR(text, "64x9");
    int64_t d[SP_OP_DIMS_MAX];
    CHECK(o->parse("16x32x48", d));
    CHECK_INT(d[3], 1);
    CHECK(o->parse("1048576x1x1 b1048576", d));
    CHECK_INT(d[0], SP_VALUE_MAX);
    CHECK_INT(d[3], SP_VALUE_MAX);
    const char *bad[] = {"1048577x1x1", "1x1x1 b0", "1x1x1 b", "1x1x1b2", "1x1x1 b2 ", "1x1x1 c2",
                         "1x1x1x2", "1x0x1", "1xx1", "99999999999999999999x1x1"};
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++)
        if (!CHECK(!o->parse(bad[b], d)))
            fprintf(stderr, "matmul reads '%s'\n", bad[b]);
    CHECK_INT(sp_op_dim_index(o, "batch"), 3);
}

int main(void)
{
    every_op();
    matmul();
    return CHECK_DONE();
}
