/* lib_cmd.c — `npu-tune lib TABLE.csv... -o DIR`: every host entry of the tables as
 * one C library (codegen/library.c) with a shape dispatcher and the BLAS sgemm entries. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "codegen.h"
#include "results.h"
#include "script.h"
#include "tuner.h"

static const char usage_text[] =
    "usage: npu-tune lib TABLE.csv... -o DIR\n"
    "  writes DIR/npu_tune_gemm.c, npu_tune_gemm.h, CMakeLists.txt and npu_tune_gemm.pc.in:\n"
    "  a C library of every host (CPU) entry's kernel, whose nt_sgemm(M, N, K, A, lda, B, ldb,\n"
    "  C, ldc) runs the kernel tuned for the shape, else the nearest one whose threads all get\n"
    "  work, else a general one-thread kernel (nt_sbgemm, nt_shgemm: bf16, fp16 entries), with\n"
    "  the BLAS cblas_sgemm and sgemm_. Build: cmake -S DIR -B DIR/build && cmake --build\n"
    "  DIR/build (libnpu_tune_gemm.a and .so; cmake --install adds npu_tune_gemm.pc).\n"
    "  An entry of a shape and dtype an earlier one has is left out.\n";

static int usage(const char *why) { return tn_usage("lib", usage_text, why); }

/* The files the library is: name in DIR, and its writer. */
static bool write_source(FILE *f, void *ctx);
static bool write_header(FILE *f, void *ctx);
static bool write_cmake(FILE *f, void *ctx) { return (void)ctx, cg_lib_cmake(f); }
static bool write_pc(FILE *f, void *ctx) { return (void)ctx, cg_lib_pc(f); }
static const struct {
    const char *name;
    bool (*write)(FILE *f, void *ctx);
} outputs[] = {
    {"npu_tune_gemm.c", write_source},
    {"npu_tune_gemm.h", write_header},
    {"CMakeLists.txt", write_cmake},
    {"npu_tune_gemm.pc.in", write_pc},
};
enum { NOUT = sizeof outputs / sizeof *outputs };

/* What the library is made of. */
typedef struct {
    cg_lib_entry *e;
    size_t n;
    cg_lib_entry general[SP_NDTYPE];
    char *from; /* the tables, for comments */
    char err[1024];
} library;

static bool write_source(FILE *f, void *ctx)
{
    library *l = ctx;
    return cg_lib_source(f, l->e, l->n, l->general, l->from, l->err, sizeof l->err);
}

static bool write_header(FILE *f, void *ctx)
{
    library *l = ctx;
    return cg_lib_header(f, l->e, l->n, l->from);
}

/* A malloc'd copy of s for inside a C comment: no line break, no comment end. */
static char *comment_copy(const char *s)
{
    char *c = strdup(s);
    for (char *p = c; p && *p; p++)
        if (*p == '\n' || *p == '\r' || (*p == '*' && p[1] == '/'))
            *p = ' ';
    return c;
}

/* The target of the table's entry: the figures the table gives, else the
 * built-in target of that name (formats 1 and 2). */
static bool entry_target(const rs_table *tab, const rs_entry *e, sp_target *t, char *err,
                         size_t errlen)
{
    const sp_target *own = rs_table_target(tab, e->target);
    if (own) {
        *t = *own;
        return true;
    }
    return ls_builtin_target(e->target, t, err, errlen);
}

/* Adds the host entries of the table at path to l (CPU target, one of them
 * for all the tables: *t, set by the first; have says whether it is). */
static int add_table(library *l, const char *path, sp_target *t, bool *have, size_t *cap)
{
    rs_table tab;
    char err[1024];
    if (!rs_table_read(path, &tab, err, sizeof err)) {
        tn_error("lib: %s", err);
        return TN_ERROR;
    }
    int rc = TN_OK;
    for (size_t i = 0; rc == TN_OK && i < tab.n; i++) {
        const rs_entry *e = &tab.e[i];
        sp_target et;
        char why[1024];
        if (!entry_target(&tab, e, &et, err, sizeof err)) {
            tn_error("lib: %s:%ld: %s", path, e->line, err);
            rc = TN_ERROR;
            break;
        }
        if (!sp_kind_get(et.kind)->micro) /* not a kind with host C kernels (micro-tiles) */
            continue;
        if (!*have) {
            *t = et;
            *have = true;
        } else if (!sp_target_same(t, &et, why, sizeof why)) {
            tn_error("lib: %s:%ld: target '%s' is not the target '%s' of the entries before "
                     "(%s); a library is for one machine",
                     path, e->line, et.name, t->name, why);
            rc = TN_ERROR;
            break;
        }
        if (sp_check(t, &e->problem, &e->config)) {
            sp_explain_line(t, &e->problem, &e->config, why, sizeof why);
            tn_error("lib: %s:%ld: the entry for %lldx%lldx%lld is not legal on %s: %s", path,
                     e->line, (long long)e->problem.M, (long long)e->problem.N,
                     (long long)e->problem.K, t->name, why);
            rc = TN_ERROR;
            break;
        }
        size_t j = 0;
        while (j < l->n && !(l->e[j].M == e->problem.M && l->e[j].N == e->problem.N &&
                             l->e[j].K == e->problem.K && l->e[j].dtype == e->problem.dtype))
            j++;
        if (j < l->n)
            continue;
        if (l->n == *cap) {
            size_t nc = *cap ? 2 * *cap : 16;
            cg_lib_entry *ne = realloc(l->e, nc * sizeof *ne);
            if (!ne) {
                tn_error("lib: out of memory");
                rc = TN_ERROR;
                break;
            }
            l->e = ne, *cap = nc;
        }
        char origin[1100];
        snprintf(origin, sizeof origin, "%s:%ld", path, e->line);
        /* its time in seconds: measured so, or cycles of the target's clock */
        double s = strcmp(e->unit, "s") == 0 ? e->measured
                   : strcmp(e->unit, "cycles") == 0 && t->clock_mhz > 0
                       ? e->measured / (t->clock_mhz * 1e6)
                       : 0;
        l->e[l->n] = (cg_lib_entry){e->problem.M, e->problem.N, e->problem.K, e->problem.dtype,
                                    e->config, s, comment_copy(origin)};
        if (!l->e[l->n].origin) {
            tn_error("lib: out of memory");
            rc = TN_ERROR;
            break;
        }
        l->n++;
    }
    rs_table_free(&tab);
    return rc;
}

/* The general kernel of dtype d on t: the model's best one-thread config, with
 * the target's default micro-tile, for a square problem of 1024. */
static bool general_config(const sp_target *t, sp_dtype d, cg_lib_entry *g)
{
    sp_problem p = {.M = 1024, .N = 1024, .K = 1024, .batch = 1, .dtype = d};
    snprintf(p.name, sizeof p.name, "general");
    sp_space s = {.strategy = {true, true, true}, .double_buffer = {true, true}, .nsplit = 1};
    sp_micro u = sp_micro_default(t);
    int32_t one = 1;
    s.micro = &u, s.nmicro = 1;
    s.cores = (sp_axis){&one, 1};
    sp_candidate best;
    if (sp_rank_top(t, &p, &s, SP_BY_TIME, 1, &best, NULL) != 1)
        return false;
    *g = (cg_lib_entry){0, 0, 0, d, best.config, 0, NULL};
    return true;
}

static void library_free(library *l)
{
    for (size_t i = 0; i < l->n; i++)
        free((char *)l->e[i].origin);
    free(l->e);
    free(l->from);
}

/* npu-tune lib TABLE.csv... -o DIR */
int tn_lib(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *dir = NULL;
    char why[300];
    int o;
    opterr = 0;
    optind = 1;
    while ((o = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (o) {
        case 'o': dir = optarg; break;
        case 'h': return usage(NULL);
        default:
            snprintf(why, sizeof why, "unknown or incomplete option '%s'", argv[optind - 1]);
            return usage(why);
        }
    }
    if (optind >= argc)
        return usage("a TABLE.csv is required");
    if (!dir || !*dir)
        return usage("-o DIR is required");
    size_t nt = (size_t)(argc - optind);
    char path[NOUT][4096];
    bs_file *files = calloc(nt + NOUT, sizeof *files);
    if (!files) {
        tn_error("lib: out of memory");
        return TN_ERROR;
    }
    for (size_t i = 0; i < nt; i++)
        files[i] = (bs_file){"table", argv[optind + (int)i], false};
    for (int i = 0; i < NOUT; i++) {
        snprintf(path[i], sizeof path[i], "%s/%s", dir, outputs[i].name);
        files[nt + (size_t)i] = (bs_file){"output", path[i], true};
    }
    char err[1024];
    bool distinct = bs_paths_distinct(files, nt + NOUT, err, sizeof err);
    free(files);
    if (!distinct) {
        tn_error("lib: %s", err);
        return TN_ERROR;
    }

    library l = {0};
    sp_target t;
    bool have = false;
    size_t cap = 0, len = 0;
    int rc = TN_OK;
    for (size_t i = 0; rc == TN_OK && i < nt; i++) {
        rc = add_table(&l, argv[optind + (int)i], &t, &have, &cap);
        len += strlen(argv[optind + (int)i]) + 2;
    }
    if (rc == TN_OK && l.n == 0) {
        tn_error("lib: %s %s no host entry; a library is made of host (CPU) kernels",
                 nt == 1 ? argv[optind] : "the tables", nt == 1 ? "has" : "have");
        rc = TN_ERROR;
    }
    if (rc == TN_OK && (l.from = calloc(1, len + 1))) {
        for (size_t i = 0; i < nt; i++) {
            char *c = comment_copy(argv[optind + (int)i]);
            if (c)
                strcat(strcat(l.from, i ? ", " : ""), c);
            free(c);
        }
    } else if (rc == TN_OK) {
        tn_error("lib: out of memory");
        rc = TN_ERROR;
    }
    for (int d = 0; rc == TN_OK && d < SP_NDTYPE; d++) {
        bool used = d == SP_FP32;
        for (size_t i = 0; i < l.n; i++)
            used = used || l.e[i].dtype == (sp_dtype)d;
        if (used && !general_config(&t, (sp_dtype)d, &l.general[d])) {
            tn_error("lib: no one-thread config is legal on %s for a general %s kernel", t.name,
                     sp_dtype_name((sp_dtype)d));
            rc = TN_ERROR;
        }
    }
    if (rc == TN_OK && !bs_mkdirs(dir, err, sizeof err)) {
        tn_error("lib: %s", err);
        rc = TN_ERROR;
    }
    for (int i = 0; rc == TN_OK && i < NOUT; i++) {
        *l.err = '\0';
        if (!bs_write_atomic(path[i], outputs[i].write, &l, err, sizeof err)) {
            tn_error("lib: %s", *l.err ? l.err : err);
            rc = TN_ERROR;
        }
    }
    library_free(&l);
    return rc;
}
