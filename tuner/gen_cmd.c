/* gen_cmd.c — `npu-tune gen`: the kernel of one explicit config: NPU program
 * text that `npu-tune sim` runs, or C source of nt_sgemm for a CPU target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "codegen.h"
#include "results.h"
#include "script.h"
#include "tuner.h"

static const char usage_text[] =
    "usage: npu-tune gen --target T --shape MxNxK --strategy {strategies} --tile mxnxk\n"
    "                    [--batch B] [--dtype {dtypes}] [--double-buffer on|off]\n"
    "                    [--cores C] [--split {splits}] [--micro MRxNR] [--pack on|off]\n"
    "                    [--op {ops}] [-o FILE]\n"
    "       npu-tune gen --table TABLE.csv --shape MxNxK [--batch B] [--dtype D]\n"
    "                    [--target T] [--op {ops}] [-o FILE]\n"
    "  NPU targets: the kernel program (text, runs in npu-tune sim); --target host:\n"
    "  C source defining nt_sgemm (cc -O3 -march=native -fopenmp -c)\n";

static void describe(const sp_config *c, char *out, size_t len)
{
    int w = snprintf(out, len, "%s %dx%dx%d double_buffer=%d cores=%d split=%s",
                     sp_strategy_name(c->strategy), c->m, c->n, c->k, c->double_buffer,
                     c->cores, sp_split_name(c->split));
    if ((c->mr || c->nr) && w > 0 && (size_t)w < len)
        w += snprintf(out + w, len - (size_t)w, " micro=%dx%d", c->mr, c->nr);
    if (c->nopack && w > 0 && (size_t)w < len)
        snprintf(out + w, len - (size_t)w, " pack=off");
}

/* The config for r's shape from a tuning table, on the target the table
 * describes (format 3) or names (a built-in target; --target one of them):
 * the exact entry (an error naming its file:line if it is no longer legal),
 * else the nearest entry legal for the shape, else the model's best; says
 * which on stderr unless exact. */
static int from_table(tn_request *r)
{
    rs_table tab;
    char err[512], what[128];
    if (!rs_table_read(r->table, &tab, err, sizeof err)) {
        tn_error("gen: %s", err);
        return TN_ERROR;
    }
    rs_entry *e = tab.e;
    size_t n = tab.n;
    int rc = TN_OK;
    const sp_target *own = rs_table_target(&tab, r->have_target ? r->t.name : tab.sig.target);
    if (r->have_target && own && !sp_target_same(own, &r->t, err, sizeof err)) {
        tn_error("gen: %s: its target '%s' is not the built-in one (%s); leave out --target",
                 r->table, own->name, err);
        rc = TN_ERROR;
    } else if (!r->have_target && own) {
        r->t = *own;
    } else if (!r->have_target && !ls_builtin_target(tab.sig.target, &r->t, err, sizeof err)) {
        tn_error("gen: %s: %s", r->table, err);
        rc = TN_ERROR;
    }
    if (rc == TN_OK && !r->have_target && !tn_request_target(r, err, sizeof err))
        rc = tn_usage("gen", usage_text, err);
    /* without --dtype, the dtype the table tuned this shape in (the first
     * entry of the shape's, as a table of one shape in two dtypes is rare) */
    for (size_t i = 0; rc == TN_OK && !r->have_dtype && i < n; i++)
        if (sp_problem_same_shape(&e[i].problem, &r->p)) {
            r->p.dtype = e[i].problem.dtype;
            break;
        }
    bool exact = false;
    const rs_entry *pick = rc == TN_OK ? rs_table_pick(e, n, &r->t, &r->p, &exact) : NULL;
    char shape[SP_SHAPE_MAX], near[SP_SHAPE_MAX];
    sp_problem_shape(&r->p, shape, sizeof shape);
    if (pick && exact && sp_check(&r->t, &r->p, &pick->config)) {
        char why[1024];
        describe(&pick->config, what, sizeof what);
        sp_explain_line(&r->t, &r->p, &pick->config, why, sizeof why);
        tn_error("gen: %s:%ld: the entry for %s, %s, is not legal on %s: %s", r->table,
                 pick->line, shape, what, r->t.name, why);
        rc = TN_ERROR;
    } else if (pick) {
        r->c = pick->config;
        if (!exact) {
            describe(&r->c, what, sizeof what);
            sp_problem_shape(&pick->problem, near, sizeof near);
            tn_error("gen: %s is not in %s; using the entry for %s (nearest legal shape): %s",
                     shape, r->table, near, what);
        }
    } else if (rc == TN_OK) {
        sp_space s = {.strategy = {true, true, true}, .double_buffer = {true, true}, .nsplit = 1};
        sp_micro u = {r->c.mr, r->c.nr}; /* kinds with micro-tiles: the default one */
        s.micro = &u, s.nmicro = 1;
        int32_t one = 1;
        s.cores = (sp_axis){&one, 1};
        sp_candidate best;
        if (sp_rank_top(&r->t, &r->p, &s, SP_BY_TIME, 1, &best, NULL) != 1) {
            tn_error("gen: %s has no entry for %s and no config is legal for it on %s", r->table,
                     shape, r->t.name);
            rc = TN_ERROR;
        } else {
            r->c = best.config;
            describe(&r->c, what, sizeof what);
            tn_error("gen: no entry of %s is legal for %s %s on %s; using the model's best: %s",
                     r->table, shape, sp_dtype_name(r->p.dtype), r->t.name, what);
        }
    }
    rs_table_free(&tab);
    return rc;
}

static bool write_text(FILE *f, void *text) { return fputs(text, f) >= 0; }

int tn_gen(int argc, char **argv)
{
    tn_request r;
    int rc = tn_parse_request(argc, argv, "gen", usage_text, TN_OPT_OUTPUT | TN_OPT_TABLE, &r);
    if (rc != TN_OK)
        return rc == TN_HELP ? TN_OK : rc;
    if (r.table) {
        if (r.strategy >= 0 || r.have_tile || r.have_knobs) {
            return tn_usage("gen", usage_text,
                            "--table takes the config from the table; drop --strategy, --tile, "
                            "--double-buffer, --cores, --split, --micro and --pack");
        }
        if ((rc = from_table(&r)) != TN_OK)
            return rc;
        const bs_file files[] = {{"table", r.table, false}, {"output", r.output, true}};
        char err[512];
        if (!bs_paths_distinct(files, 2, err, sizeof err)) {
            tn_error("gen: %s", err);
            return TN_ERROR;
        }
    } else if (r.strategy < 0 || !r.have_tile) {
        return tn_usage("gen", usage_text,
                        r.strategy < 0 ? "--strategy is required" : "--tile is required");
    }
    char err[2048];
    char *text = cg_kernel_text(&r.t, &r.p, &r.c, err, sizeof err);
    if (!text) {
        tn_error("gen: %s", err);
        return TN_ERROR;
    }
    bool ok = true;
    if (r.output)
        ok = bs_write_atomic(r.output, write_text, text, err, sizeof err);
    else /* a write error is main's check of standard output */
        fputs(text, stdout);
    free(text);
    if (!ok) {
        tn_error("gen: %s", err);
        return TN_ERROR;
    }
    return TN_OK;
}
