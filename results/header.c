/* header.c — the tuning table as a self-contained C header: a static const
 * array and npu_tune_lookup(), exact match first, then nearest legal, then a default. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <math.h>
#include <string.h>

#include "internal.h"

/* The rules, once for this file's readers and once in every header. */
static const char rules[] =
    " * npu_tune_lookup(M, N, K, batch, dtype) returns the entry to use:\n"
    " *  1. exact: the first entry with this dtype and the same M, N, K, batch;\n"
    " *  2. nearest legal: among the entries of this dtype whose config is legal\n"
    " *     for the shape, the one nearest by |ln M/M'| + |ln N/N'| + |ln K/K'| +\n"
    " *     |ln batch/batch'| (computed as the product of the max/min ratios, which\n"
    " *     orders the same without libm; ties go to the earlier entry). With\n"
    " *     pad(x, f) = x rounded up to a multiple of f and the dtype's fractal\n"
    " *     m0 x n0 x k0 (fp16 16x16x16, int8 16x16x32, fp32 16x16x16), a config\n"
    " *     is legal when\n"
    " *     m <= pad(M, m0), n <= pad(N, n0), k <= pad(K, k0); IS and WS have\n"
    " *     k == pad(K, k0); and its split leaves no core idle: with\n"
    " *     TM = ceil(pad(M, m0) / m) and TN = ceil(pad(N, n0) / n), one core is\n"
    " *     always fine, split M needs TM >= cores, split N needs TN >= cores,\n"
    " *     split MN needs a grid r x cores/r with r dividing cores,\n"
    " *     2 <= r <= cores/2, r <= TM and cores/r <= TN. Host (fp32) entries\n"
    " *     have a register micro-tile mr x nr: no dimension or k == K rule (the\n"
    " *     kernel clamps its blocks), and TM, TN count micro-tiles, ceil(M / mr)\n"
    " *     and ceil(N / nr). (Alignment, buffer\n"
    " *     capacities and the core count do not depend on the shape: every\n"
    " *     entry already meets them.)\n"
    " *  3. default: the first entry of this dtype, else the first entry (also\n"
    " *     for a dimension below 1 or an unknown dtype).\n"
    " * It returns NULL (0) only when the table is empty.\n";

/* Text for inside a comment: no line breaks, no comment terminator. */
static void comment_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\n' || *s == '\r')
            fputc(' ', f);
        else if (*s == '*' && s[1] == '/')
            fputs("* ", f);
        else
            fputc(*s, f);
    }
}

/* A C string literal of s (octal escapes for anything unusual). */
static void literal(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 32 || *c > 126 || *c == '?')
            fprintf(f, "\\%03o", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

/* A double literal that reads back the same value (0.0 if not finite). */
static void real(FILE *f, double v)
{
    char b[40];
    snprintf(b, sizeof b, "%.17g", isfinite(v) ? v : 0.0);
    fprintf(f, "%s%s", b, strpbrk(b, ".e") ? "" : ".0");
}

static void entry(FILE *f, const rs_entry *e)
{
    const sp_problem *p = &e->problem;
    const sp_config *c = &e->config;
    fputs("    {", f);
    literal(f, p->name);
    fprintf(f, ", %lld, %lld, %lld, %lld, ", (long long)p->M, (long long)p->N, (long long)p->K,
            (long long)p->batch);
    literal(f, sp_dtype_name(p->dtype) ? sp_dtype_name(p->dtype) : "?");
    fputs(", ", f);
    literal(f, e->target);
    fputs(", ", f);
    literal(f, sp_strategy_name(c->strategy) ? sp_strategy_name(c->strategy) : "?");
    fprintf(f, ", %d, %d, %d, %d, %d, ", (int)c->m, (int)c->n, (int)c->k,
            c->double_buffer ? 1 : 0, (int)c->cores);
    literal(f, sp_split_name(c->split) ? sp_split_name(c->split) : "?");
    fputs(", ", f);
    real(f, e->measured);
    fputs(", ", f);
    literal(f, e->unit);
    fprintf(f, ", %d, %d, %d, ", c->mr, c->nr, e->verified);
    literal(f, sp_op_name(p->op) ? sp_op_name(p->op) : "?");
    char shape[SP_SHAPE_MAX];
    sp_problem_shape(p, shape, sizeof shape);
    fputs(", ", f);
    literal(f, shape);
    fprintf(f, ", %d},\n", c->nopack ? 0 : 1);
}

/* The fractal of each dtype, as the space library defines it. */
static void fractal_function(FILE *f)
{
    fputs("/* The fractal (m0, n0, k0) of a dtype; 0 for an unknown one. */\n"
          "static inline int npu_tune_fractal_(const char *dtype, int which)\n"
          "{\n",
          f);
    for (int d = 0; d < SP_NDTYPE; d++) {
        const sp_dtype_info *i = sp_dtype_get((sp_dtype)d);
        fputs("    if (npu_tune_streq_(dtype, ", f);
        literal(f, i->name);
        fprintf(f, "))\n        return which == 0 ? %d : which == 1 ? %d : %d;\n", i->m0, i->n0,
                i->k0);
    }
    fputs("    return 0;\n}\n\n", f);
}

static const char functions[] =
    "static inline int npu_tune_streq_(const char *a, const char *b)\n"
    "{\n"
    "    if (!a || !b)\n"
    "        return 0;\n"
    "    while (*a && *a == *b)\n"
    "        a++, b++;\n"
    "    return *a == *b;\n"
    "}\n"
    "\n";

static const char lookup[] =
    "static inline long npu_tune_pad_(long x, long f)\n"
    "{\n"
    "    return (x + f - 1) / f * f;\n"
    "}\n"
    "\n"
    "static inline double npu_tune_ratio_(long a, long b)\n"
    "{\n"
    "    return a > b ? (double)a / (double)b : (double)b / (double)a;\n"
    "}\n"
    "\n"
    "/* Rule 2's legality of entry e for an M x N x K matmul of its dtype. */\n"
    "static inline int npu_tune_legal_(const npu_tune_entry *e, long M, long N, long K)\n"
    "{\n"
    "    long Mp = npu_tune_pad_(M, npu_tune_fractal_(e->dtype, 0));\n"
    "    long Np = npu_tune_pad_(N, npu_tune_fractal_(e->dtype, 1));\n"
    "    long Kp = npu_tune_pad_(K, npu_tune_fractal_(e->dtype, 2));\n"
    "    long TM, TN, r;\n"
    "    if (e->mr < 1 && (e->m > Mp || e->n > Np || e->k > Kp))\n"
    "        return 0;\n"
    "    if (e->mr < 1 && !npu_tune_streq_(e->strategy, \"OS\") && e->k != Kp)\n"
    "        return 0;\n"
    "    if (e->cores == 1)\n"
    "        return 1;\n"
    "    TM = e->mr > 0 ? (M + e->mr - 1) / e->mr : (Mp + e->m - 1) / e->m;\n"
    "    TN = e->nr > 0 ? (N + e->nr - 1) / e->nr : (Np + e->n - 1) / e->n;\n"
    "    if (npu_tune_streq_(e->split, \"M\"))\n"
    "        return TM >= e->cores;\n"
    "    if (npu_tune_streq_(e->split, \"N\"))\n"
    "        return TN >= e->cores;\n"
    "    for (r = 2; 2 * r <= e->cores; r++)\n"
    "        if (e->cores % r == 0 && r <= TM && e->cores / r <= TN)\n"
    "            return 1;\n"
    "    return 0;\n"
    "}\n"
    "\n"
    "/* The entry for a matmul: exact, else nearest legal, else the default. */\n"
    "static inline const npu_tune_entry *npu_tune_lookup(long M, long N, long K, long batch,\n"
    "                                                    const char *dtype)\n"
    "{\n"
    "    const npu_tune_entry *best = 0, *first = 0;\n"
    "    double best_d = 0, d;\n"
    "    long i;\n"
    "    if (npu_tune_table_size == 0)\n"
    "        return 0;\n"
    "    for (i = 0; i < npu_tune_table_size; i++) {\n"
    "        const npu_tune_entry *e = &npu_tune_table[i];\n"
    "        if (!npu_tune_streq_(e->dtype, dtype))\n"
    "            continue;\n"
    "        if (!first)\n"
    "            first = e;\n"
    "        if (e->M == M && e->N == N && e->K == K && e->batch == batch)\n"
    "            return e;\n"
    "    }\n"
    "    if (!first)\n"
    "        return &npu_tune_table[0];\n"
    "    if (M < 1 || N < 1 || K < 1 || batch < 1)\n"
    "        return first;\n"
    "    for (i = 0; i < npu_tune_table_size; i++) {\n"
    "        const npu_tune_entry *e = &npu_tune_table[i];\n"
    "        if (!npu_tune_streq_(e->dtype, dtype) || !npu_tune_legal_(e, M, N, K))\n"
    "            continue;\n"
    "        d = npu_tune_ratio_(e->M, M);\n"
    "        d *= npu_tune_ratio_(e->N, N);\n"
    "        d *= npu_tune_ratio_(e->K, K);\n"
    "        d *= npu_tune_ratio_(e->batch, batch);\n"
    "        if (!best || d < best_d) {\n"
    "            best = e;\n"
    "            best_d = d;\n"
    "        }\n"
    "    }\n"
    "    return best ? best : first;\n"
    "}\n";

/* The figures of target t in the comment, as lines of at most about 90 columns. */
static void figures(FILE *f, const sp_target *t)
{
    char text[SP_TARGET_TEXT_MAX];
    sp_target_print(text, sizeof text, t);
    fputs(" * Its figures:", f);
    int col = 14;
    for (char *save = NULL, *w = strtok_r(text + strcspn(text, " "), " ", &save); w;
         w = strtok_r(NULL, " ", &save)) {
        int len = (int)strlen(w);
        if (col + 1 + len > 90) {
            fputs("\n *  ", f);
            col = 4;
        }
        fputc(' ', f);
        comment_text(f, w);
        col += 1 + len;
    }
    fputs("\n", f);
}

/* Header text: comment, type, table, size, then the lookup (rules above). */
bool rs_header_write(FILE *f, const rs_table *t)
{
    const rs_signature *sig = &t->sig;
    const rs_entry *e = t->e;
    size_t n = t->n;
    fputs("/* Tuned matmul configs for npu_tune_lookup(), generated by npu-tune", f);
    if (*sig->version) {
        fputc(' ', f);
        comment_text(f, sig->version);
    }
    fputs("; do not edit.\n", f);
    fputs(" * Target ", f);
    comment_text(f, sig->target);
    fputs(" (signature ", f);
    comment_text(f, sig->target_sig);
    fputs("), space signature ", f);
    comment_text(f, sig->space_sig);
    fputs(", measure ", f);
    comment_text(f, sig->measure);
    fputs(", script ", f);
    comment_text(f, sig->script);
    fputs(".\n", f);
    if (t->has_target)
        figures(f, &t->target);
    fprintf(f,
            " * Self-contained C11 (and C++): include it, nothing to link. %zu entr%s.\n"
            " *\n%s */\n"
            "#ifndef NPU_TUNE_TABLE_H\n"
            "#define NPU_TUNE_TABLE_H\n\n",
            n, n == 1 ? "y" : "ies", rules);
    fputs("typedef struct {\n"
          "    const char *problem;\n"
          "    long M, N, K, batch;\n"
          "    const char *dtype;    /* \"fp16\", \"int8\" or \"fp32\" (host) */\n"
          "    const char *target;\n"
          "    const char *strategy; /* \"IS\", \"WS\" or \"OS\" */\n"
          "    int m, n, k;          /* the tile */\n"
          "    int double_buffer;    /* 0 or 1 */\n"
          "    int cores;\n"
          "    const char *split;    /* \"M\", \"N\" or \"MN\" */\n"
          "    double measured;      /* the best measurement, in unit */\n"
          "    const char *unit;     /* \"cycles\" or \"s\" */\n"
          "    int mr, nr;           /* host: the register micro-tile; 0 on NPUs */\n"
          "    int verified;         /* 1: its result was checked against a reference; 0: not\n"
          "                           * (tune { verify = false }, the model); -1: not known */\n",
          f);
    char ops[256];
    fprintf(f,
            "    const char *op;       /* the operation: %s; M, N, K and batch are the\n"
            "                           * GEMM it computes as, which the lookup compares */\n"
            "    const char *shape;    /* the op's own shape, as npu-tune writes it */\n"
            "    int pack;             /* 1: B is packed; 0 (host): the no-pack family, A and B\n"
            "                           * read in place */\n"
            "} npu_tune_entry;\n\n",
            sp_names(sp_op_name, ", ", " or ", ops, sizeof ops));
    fputs("static const npu_tune_entry npu_tune_table[] = {\n", f);
    for (size_t i = 0; i < n; i++)
        entry(f, &e[i]);
    if (n == 0) /* C has no empty arrays: a placeholder that lookup never returns */
        fputs("    {\"\", 0, 0, 0, 0, \"\", \"\", \"\", 0, 0, 0, 0, 0, \"\", 0.0, \"\", 0, 0, 0, \"\", \"\", 0},\n", f);
    fprintf(f, "};\n\nenum { npu_tune_table_size = %zu };\n\n", n);
    fputs(functions, f);
    fractal_function(f);
    fputs(lookup, f);
    fputs("\n#endif\n", f);
    return !ferror(f);
}
