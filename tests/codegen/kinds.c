/* kinds.c — the generator of each kind of target: cg_kernel_text gives an
 * NPU's kernel program and a CPU's C source, refuses illegal configs with
 * their rules and dtypes the kind's kernels do not take, and only a CPU's
 * journals sign the kernels they time. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdlib.h>

#include "check.h"
#include "codegen.h"
#include "fixtures.h"

/* The text cg_print writes for the kernel of (t, p, c). */
static char *printed(const sp_target *t, const sp_problem *p, const sp_config *c)
{
    cg_kernel k;
    char err[256], *text = NULL;
    size_t len = 0;
    if (!CHECK(cg_generate(t, p, c, &k, err, sizeof err)))
        return NULL;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && cg_print(f, &k));
    if (f)
        fclose(f);
    cg_kernel_free(&k);
    return text;
}

static void npu(void)
{
    sp_target t = fx_ascend910();
    sp_problem p = fx_problem(100, 70, 50, 2, SP_FP16);
    sp_config c = {.m = 64, .n = 32, .k = 32, .cores = 2, .strategy = SP_OS,
                   .split = SP_SPLIT_M};
    char err[1024];
    char *text = cg_kernel_text(&t, &p, &c, err, sizeof err), *want = printed(&t, &p, &c);
    if (CHECK(text && want))
        CHECK_STR(text, want);
    free(text);
    free(want);
    c.m = 24; /* not a multiple of the fractal */
    CHECK(!cg_kernel_text(&t, &p, &c, err, sizeof err));
    CHECK_STR(err, "illegal config: m = 24 is not a multiple of 16 (the fp16 fractal)");

    cg_batch b = {&p, NULL, 0};
    char sig[17] = "x";
    CHECK(cg_kernel_signature(&t, &b, 1, sig));
    CHECK_STR(sig, ""); /* an NPU's journals do not sign its kernels */
}

static void cpu(void)
{
    sp_target t = fx_box();
    sp_problem p = fx_problem(100, 70, 50, 1, SP_BF16);
    sp_config c = {.m = 48, .n = 64, .k = 32, .cores = 2, .strategy = SP_WS,
                   .split = SP_SPLIT_N, .mr = 6, .nr = 16};
    char err[1024];
    char *text = cg_kernel_text(&t, &p, &c, err, sizeof err);
    char *want = cg_host_text(&c, SP_BF16, NULL, err, sizeof err);
    if (CHECK(text && want))
        CHECK_STR(text, want);
    CHECK_HAS(text ? text : "", "nt_sbgemm");
    free(text);
    free(want);
    c.cores = 5;
    CHECK(!cg_kernel_text(&t, &p, &c, err, sizeof err));
    CHECK_STR(err, "config not legal on box: cores = 5, but target 'box' has 4");

    /* signed: one kernel per kind of code, so configs that differ only in
     * their numbers sign alike, and another micro-tile does not */
    sp_candidate one[] = {{.config = {.m = 48, .n = 64, .k = 32, .cores = 1, .mr = 6, .nr = 16}}};
    sp_candidate two[] = {{.config = {.m = 48, .n = 64, .k = 32, .cores = 1, .mr = 6, .nr = 16}},
                          {.config = {.m = 96, .n = 32, .k = 64, .cores = 1, .mr = 6, .nr = 16}}};
    sp_candidate other[] = {{.config = {.m = 48, .n = 64, .k = 32, .cores = 1, .mr = 4, .nr = 16}}};
    char a[17], b2[17], o[17];
    cg_batch b = {&p, one, 1};
    CHECK(cg_kernel_signature(&t, &b, 1, a));
    CHECK_INT(strlen(a), 16);
    b = (cg_batch){&p, two, 2};
    CHECK(cg_kernel_signature(&t, &b, 1, b2));
    CHECK_STR(b2, a);
    b = (cg_batch){&p, other, 1};
    CHECK(cg_kernel_signature(&t, &b, 1, o));
    CHECK(strcmp(o, a) != 0);
}

/* Each kind's kernels take the dtypes its registry entry says
 * (sp_kind_info.kernels), and no other, of those its target computes: the
 * model's best config for each is generated, or refused naming the dtype. */
static void dtypes(void)
{
    sp_target wide = fx_ascend910(), box = fx_box();
    wide.macs[SP_FP32] = 1024, wide.macs[SP_BF16] = 2048; /* the cube computes every dtype */
    const sp_target *targets[] = {&wide, &box};
    int32_t one = 1;
    sp_space s = {.strategy = {true, true, true}, .double_buffer = {true, false},
                  .cores = {&one, 1}, .split = {SP_SPLIT_M}, .nsplit = 1};
    for (size_t i = 0; i < sizeof targets / sizeof *targets; i++)
        for (int d = 0; d < SP_NDTYPE; d++) {
            const sp_target *t = targets[i];
            sp_problem p = fx_problem(64, 48, 32, 1, (sp_dtype)d);
            sp_candidate best;
            if (!sp_target_computes(t, p.dtype))
                continue;
            if (!CHECK_INT(sp_rank_top(t, &p, &s, SP_BY_TIME, 1, &best, NULL), 1))
                continue;
            char err[1024] = "", what[96];
            char *text = cg_kernel_text(t, &p, &best.config, err, sizeof err);
            snprintf(what, sizeof what, "%s kernel of %s", sp_dtype_name(d), t->name);
            bool takes = sp_target_kind(t)->kernels & 1u << d;
            check_int(text != NULL, takes, what, __FILE__, __LINE__);
            if (!takes)
                CHECK_HAS(err, sp_dtype_name(d));
            free(text);
        }
}

int main(void)
{
    npu();
    cpu();
    dtypes();
    return CHECK_DONE();
}
