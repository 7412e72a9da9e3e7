/* names.c — the DSL accepts every name the engine has: each search strategy
 * of the tuner (tn_search_names), each measurement backend (ms_backend_names),
 * each kind of target (space's registry, sp_kind_get), naming them all when it
 * refuses another, and each op (sp_op_get) as a declaration of its own. */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "measure.h"
#include "script.h"
#include "search.h"

static char tmpdir[] = "/tmp/npu-tune-names-XXXXXX";

/* A CPU target for measure = "host" (the figures do not matter here). */
static bool fake_host(sp_target *out, char *e, size_t elen)
{
    (void)e, (void)elen;
    sp_target t = {
        .name = "host", .kind = SP_CPU, .cores = 2, .clock_mhz = 3000,
        .cpu = {.simd_floats = 8, .vregs = 16, .fma_units = 2, .load_ports = 2,
                .cache = {[SP_CL1] = 32 << 10, [SP_CL2] = 1 << 20, [SP_CL3] = 8 << 20},
                .bw_l2 = 32, .bw_l3 = 16, .bw_mem = 8, .bw_mem_shared = 16},
    };
    *out = t;
    return true;
}

/* Runs script text as the CLI's run does: the script (ls_close it), or NULL
 * with the error in err. */
static ls_script *run_text(const char *text, char err[LS_ERR_MAX])
{
    static const ls_options cli = {.measures = ms_backend_names, .default_measure = "sim",
                                   .searches = tn_search_names, .default_search = "model"};
    FILE *f = fopen("names.lua", "w");
    if (!CHECK(f != NULL))
        return NULL;
    fputs(text, f);
    fclose(f);
    ls_script *s = ls_open(&cli);
    if (CHECK(s != NULL) && !ls_run_file(s, "names.lua", err, LS_ERR_MAX)) {
        ls_close(s);
        s = NULL;
    }
    remove("names.lua");
    return s;
}

/* Runs `tune { key = value }` on target and checks that the script runs and
 * the tune block holds `want` under key. */
static void accepts(const char *target, const char *key, const char *value, const char *want)
{
    char text[512], err[LS_ERR_MAX] = "";
    snprintf(text, sizeof text,
             "target \"%s\"\nmatmul { name = \"x\", shapes = { {64, 64, 64} } }\n"
             "tune { %s = %s }\n",
             target, key, value);
    ls_script *s = run_text(text, err);
    if (!s)
        fprintf(stderr, "tune { %s = %s }: %s\n", key, value, err);
    if (CHECK(s != NULL)) {
        const ls_tune *t = ls_tune_get(s);
        CHECK_STR(strcmp(key, "search") == 0 ? t->search : t->measure, want);
    }
    ls_close(s);
}

/* The error of running script text ("(ran)" if it ran). */
static const char *error_of(const char *text)
{
    static char err[LS_ERR_MAX];
    ls_script *s = run_text(text, err);
    bool ran = s != NULL;
    ls_close(s);
    return ran ? "(ran)" : err;
}

/* Every kind of the registry is a target table's kind (whose fields the
 * table then lacks), and a kind outside it is refused naming them all. */
static void kinds(void)
{
    char text[128];
    int n = 0;
    for (const sp_kind_info *k; (k = sp_kind_get(n)); n++) {
        CHECK_INT(sp_kind_parse(k->name), n);
        CHECK_STR(sp_kind_name(n), k->name);
        snprintf(text, sizeof text, "target { kind = \"%s\" }\n", k->name);
        CHECK_STR(error_of(text), "names.lua:1: target: field 'name' is missing");
        /* its own measure is a backend of the registry */
        bool backend = false;
        for (const char *const *b = ms_backend_names; *b; b++)
            backend |= strcmp(*b, k->measure) == 0;
        if (!CHECK(backend && *k->measure_does))
            fprintf(stderr, "kind %s: measure '%s' is no backend\n", k->name, k->measure);
    }
    CHECK_INT(n, SP_NKIND);
    const char *err = error_of("target { kind = \"gpu\" }\n");
    CHECK_PREFIX(err, "names.lua:1: target: field 'kind' must be ");
    for (int k = 0; k < n; k++) {
        snprintf(text, sizeof text, "\"%s\"", sp_kind_name(k));
        CHECK_HAS(err, text);
    }
}

/* Declares one problem of op `op` (its dimensions 16, 32, ... in a shape, or
 * those with a default by their keys, set to 3) with a constraint that keeps
 * the configs of a problem it sees as this op with these dimensions by name;
 * checks the problem and that the constraint kept. */
static void declares(int op, bool keys)
{
    const sp_op *o = sp_op_get(op);
    char text[1024], err[LS_ERR_MAX] = "";
    size_t used = (size_t)snprintf(text, sizeof text,
                                   "target \"ascend910\"\n%s { name = \"x\", shapes = { {", o->name);
    int64_t want[SP_OP_DIMS_MAX];
    for (int d = 0, n = 0; d < o->ndims; d++) {
        want[d] = keys && o->dim[d].dflt ? 3 : 16 << d;
        if (!keys || !o->dim[d].dflt)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%lld", n++ ? ", " : "",
                                     (long long)want[d]);
    }
    used += (size_t)snprintf(text + used, sizeof text - used, "} }");
    for (int d = 0; keys && d < o->ndims; d++)
        if (o->dim[d].dflt)
            used += (size_t)snprintf(text + used, sizeof text - used, ", %s = 3", o->dim[d].name);
    used += (size_t)snprintf(text + used, sizeof text - used,
                             " }\nspace { constraint = function(c) return c.op == '%s'", o->name);
    for (int d = 0; d < o->ndims; d++)
        used += (size_t)snprintf(text + used, sizeof text - used, " and c['%s'] == %lld",
                                 o->dim[d].name, (long long)want[d]);
    snprintf(text + used, sizeof text - used, " end }\n");
    ls_script *s = run_text(text, err);
    if (!s)
        fprintf(stderr, "%s: %s\n", text, err);
    if (CHECK(s != NULL) && CHECK_INT(ls_nproblems(s), 1)) {
        const sp_problem *p = ls_problem(s, 0);
        CHECK_INT(p->op, op);
        for (int d = 0; d < o->ndims; d++)
            CHECK_INT(p->dims[d], want[d]);
        CHECK_STR(ls_where(s, o->name), "names.lua:2");
        sp_config c = {.m = 16, .n = 16, .k = 16, .cores = 1};
        if (!CHECK_INT(ls_constraint(s, p, &c, err, sizeof err), 1))
            fprintf(stderr, "%s", text);
    }
    ls_close(s);
}

int main(void)
{
    if (!mkdtemp(tmpdir) || chdir(tmpdir) != 0) {
        perror(tmpdir);
        return 1;
    }
    ls_set_host(fake_host);
    size_t n = 0;
    for (const char *const *name = tn_search_names; *name; name++, n++) {
        char value[64];
        snprintf(value, sizeof value, "\"%s\"", *name);
        accepts("ascend910", "search", value, *name);
    }
    CHECK(n >= 5); /* model, exhaustive, random, anneal, genetic */
    for (const char *const *name = ms_backend_names; *name; name++) {
        char value[64];
        /* the command backend is a table with its template; the host
         * backend measures CPU targets */
        if (strcmp(*name, "command") == 0)
            snprintf(value, sizeof value, "{ command = \"./board {kernel}\" }");
        else
            snprintf(value, sizeof value, "\"%s\"", *name);
        accepts(strcmp(*name, "host") == 0 ? "host" : "ascend910", "measure", value, *name);
    }
    kinds();
    int nops = 0;
    for (; sp_op_get(nops); nops++) {
        declares(nops, false);
        declares(nops, true);
    }
    CHECK(nops >= 1);
    rmdir(tmpdir);
    return CHECK_DONE();
}
