/* csv.c — formatting and parsing rows of the journal and the tuning table; the
 * column order is the contract of DESIGN.md section 7, fixed here in one place. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char rs_journal_header[] =
    "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,"
    "load_volume_elems,est_cycles,backend,status,measured,unit,micro,round";
const char rs_table_header[] =
    "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,measured,unit,"
    "micro,verified";

/* Column positions: the first 14 are shared, the rest differ per file. */
enum {
    C_PROBLEM, C_M, C_N, C_K, C_BATCH, C_DTYPE, C_TARGET, C_STRATEGY, C_TM, C_TN, C_TK,
    C_DB, C_CORES, C_SPLIT, C_SHARED,
    J_LOAD = C_SHARED, J_EST, J_BACKEND, J_STATUS, J_MEASURED, J_UNIT, J_MICRO, J_ROUND,
    T_MEASURED = C_SHARED, T_UNIT, T_MICRO, T_VERIFIED
};

static const char *const journal_names[RS_JOURNAL_COLUMNS] = {
    "problem", "M", "N", "K", "batch", "dtype", "target", "strategy", "m", "n", "k",
    "double_buffer", "cores", "split", "load_volume_elems", "est_cycles", "backend", "status",
    "measured", "unit", "micro", "round"};
static const char *const table_names[RS_TABLE_COLUMNS] = {
    "problem", "M", "N", "K", "batch", "dtype", "target", "strategy", "m", "n", "k",
    "double_buffer", "cores", "split", "measured", "unit", "micro", "verified"};

/* Non-empty, no comma, quote or line break. */
bool rs_csv_safe(const char *s)
{
    return s && *s && !strpbrk(s, ",\"\r\n");
}

/* Every string of the row must fit the unquoted CSV. */
bool rs_row_check(const rs_row *r, char *err, size_t errlen)
{
    const char *name = r->problem->name;
    const struct {
        const char *what, *value;
    } fields[] = {{"problem name", name}, {"target", r->target}, {"backend", r->backend},
                  {"status", r->status},  {"unit", r->unit}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (!rs_csv_safe(fields[i].value)) {
            snprintf(err, errlen,
                     "cannot write a row of problem '%s': its %s '%s' is empty or has a comma, "
                     "quote or line break",
                     name, fields[i].what, fields[i].value ? fields[i].value : "");
            return false;
        }
    return true;
}

/* The shortest text that reads back as the same double: whole numbers in
 * full (cycles, element counts), others with 15 to 17 digits, so a resumed
 * run compares exactly the values an uninterrupted one did. Not-finite
 * values (figures of illegal candidates) are left empty. */
static void number(char *buf, size_t len, double v)
{
    buf[0] = '\0';
    if (!isfinite(v))
        return;
    if (v > -1e21 && v < 1e21) {
        snprintf(buf, len, "%.0f", v);
        if (strtod(buf, NULL) == v)
            return;
    }
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* One row of either file, snprintf-style. */
size_t rs_format_row(char *buf, size_t len, const rs_row *r, bool journal)
{
    const sp_problem *p = r->problem;
    const sp_config *c = &r->cand->config;
    char meas[40] = "", load[40] = "", est[40] = "", micro[16] = "";
    if (strcmp(r->status, "ok") == 0)
        number(meas, sizeof meas, r->measured);
    if (c->mr || c->nr) /* CPU configs: the register micro-tile */
        snprintf(micro, sizeof micro, "%dx%d", c->mr, c->nr);
    int n = snprintf(buf, len, "%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                               ",%s,%s,%s,%d,%d,%d,%d,%d,%s,",
                     p->name, p->M, p->N, p->K, p->batch, sp_dtype_name(p->dtype), r->target,
                     sp_strategy_name(c->strategy), (int)c->m, (int)c->n, (int)c->k,
                     c->double_buffer ? 1 : 0, (int)c->cores, sp_split_name(c->split));
    size_t used = n > 0 ? (size_t)n : 0;
    char *rest = used < len ? buf + used : NULL;
    size_t left = used < len ? len - used : 0;
    if (journal) {
        number(load, sizeof load, r->cand->fig.load_elems);
        number(est, sizeof est, r->cand->fig.est_cycles);
        n = snprintf(rest, left, "%s,%s,%s,%s,%s,%s,%s,%s\n", load, est, r->backend, r->status,
                     meas, r->unit, micro, r->round ? r->round : "search");
    } else {
        n = snprintf(rest, left, "%s,%s,%s,%d\n", meas, r->unit, micro, r->verified ? 1 : 0);
    }
    return used + (n > 0 ? (size_t)n : 0);
}

/* ---- parsing ---- */

typedef struct {
    const char *path;
    long line;
    const char *const *names;
    char *err;
    size_t errlen;
} where;

__attribute__((format(printf, 2, 3)))
static bool fail(const where *w, const char *fmt, ...)
{
    int n = snprintf(w->err, w->errlen, "%s:%ld: ", w->path, w->line);
    if (n >= 0 && (size_t)n < w->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->err + n, w->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* A decimal integer in [lo, hi], digits only. */
static bool integer(const where *w, int col, const char *s, int64_t lo, int64_t hi, int64_t *v)
{
    int64_t x = 0;
    if (!*s)
        return fail(w, "field '%s' is empty", w->names[col]);
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9')
            return fail(w, "field '%s' is not an integer: '%s'", w->names[col], s);
        if (x > (INT64_MAX - (*c - '0')) / 10)
            return fail(w, "field '%s' is out of range: '%s'", w->names[col], s);
        x = x * 10 + (*c - '0');
    }
    if (x < lo || x > hi)
        return fail(w, "field '%s' is out of range: '%s'", w->names[col], s);
    *v = x;
    return true;
}

/* 0 or 1. */
static bool bit(const where *w, int col, const char *s, int *v)
{
    int64_t x;
    if (!integer(w, col, s, 0, INT64_MAX, &x))
        return false;
    if (x > 1)
        return fail(w, "field '%s' is not 0 or 1: '%s'", w->names[col], s);
    *v = (int)x;
    return true;
}

/* A dimension, tile or core count: 1 to SP_VALUE_MAX, as scripts and the
 * command line take them. */
static bool int32(const where *w, int col, const char *s, int32_t *v)
{
    int64_t x;
    if (!integer(w, col, s, 1, SP_VALUE_MAX, &x))
        return false;
    *v = (int32_t)x;
    return true;
}

/* A finite number, nothing else in the field. */
static bool real(const where *w, int col, const char *s, double *v)
{
    char *end;
    if (!*s)
        return fail(w, "field '%s' is empty", w->names[col]);
    if (isspace((unsigned char)*s))
        return fail(w, "field '%s' is not a number: '%s'", w->names[col], s);
    *v = strtod(s, &end);
    if (*end || !isfinite(*v))
        return fail(w, "field '%s' is not a number: '%s'", w->names[col], s);
    return true;
}

/* A non-empty string shorter than size, copied into out (if out). */
static bool text(const where *w, int col, const char *s, char *out, size_t size)
{
    if (!*s)
        return fail(w, "field '%s' is empty", w->names[col]);
    if (strlen(s) >= size)
        return fail(w, "field '%s' is longer than %zu characters", w->names[col], size - 1);
    if (out)
        memcpy(out, s, strlen(s) + 1);
    return true;
}

/* One of a name list (through its parser); "is not A, B or C" otherwise. */
static bool choice(const where *w, int col, const char *s, int (*parse)(const char *),
                   const char *list, int *v)
{
    if ((*v = parse(s)) < 0)
        return fail(w, "field '%s' is not %s: '%s'", w->names[col], list, s);
    return true;
}

/* Splits a line of `want` fields on commas and checks every field; first
 * error wins. A table row of format 1 has one field less: no verified. */
static bool parse_row(char *line, bool journal, int want, rs_entry *e, const char *path,
                      long lineno, char *err, size_t errlen)
{
    where w = {path, lineno, journal ? journal_names : table_names, err, errlen};
    char *f[RS_JOURNAL_COLUMNS];
    int n = 0;
    if (!*line)
        return fail(&w, "empty line");
    for (char *s = line;; s++) {
        if (n < want)
            f[n] = s;
        n++;
        s = strchr(s, ',');
        if (!s)
            break;
        *s = '\0';
    }
    if (n != want)
        return fail(&w, "%d fields, expected %d", n, want);
    memset(e, 0, sizeof *e);
    e->line = lineno;
    sp_problem *p = &e->problem;
    sp_config *c = &e->config;
    int db, v;
    double ignored;
    if (!text(&w, C_PROBLEM, f[C_PROBLEM], NULL, SIZE_MAX))
        return false;
    if (!sp_label_ok(f[C_PROBLEM], strlen(f[C_PROBLEM])))
        return fail(&w, "field 'problem' is not a name of 1 to %d characters from A-Z a-z 0-9 _ . -: '%.60s'",
                    SP_LABEL_MAX, f[C_PROBLEM]);
    const int dims[4] = {C_M, C_N, C_K, C_BATCH};
    int64_t *dim[4] = {&p->M, &p->N, &p->K, &p->batch};
    for (int i = 0; i < 4; i++)
        if (!integer(&w, dims[i], f[dims[i]], 1, SP_VALUE_MAX, dim[i]))
            return false;
    strcpy(p->name, f[C_PROBLEM]);
    if (!choice(&w, C_DTYPE, f[C_DTYPE], sp_dtype_parse, "fp16, int8, fp32 or bf16", &v))
        return false;
    p->dtype = (sp_dtype)v;
    if (!text(&w, C_TARGET, f[C_TARGET], e->target, sizeof e->target) ||
        !choice(&w, C_STRATEGY, f[C_STRATEGY], sp_strategy_parse, "IS, WS or OS", &v))
        return false;
    c->strategy = (uint8_t)v;
    if (!int32(&w, C_TM, f[C_TM], &c->m) || !int32(&w, C_TN, f[C_TN], &c->n) ||
        !int32(&w, C_TK, f[C_TK], &c->k) || !bit(&w, C_DB, f[C_DB], &db))
        return false;
    c->double_buffer = (uint8_t)db;
    if (!int32(&w, C_CORES, f[C_CORES], &c->cores) ||
        !choice(&w, C_SPLIT, f[C_SPLIT], sp_split_parse, "M, N or MN", &v))
        return false;
    c->split = (uint8_t)v;
    int measured = T_MEASURED, unit = T_UNIT;
    if (journal) {
        measured = J_MEASURED, unit = J_UNIT;
        if ((*f[J_LOAD] && !real(&w, J_LOAD, f[J_LOAD], &ignored)) ||
            (*f[J_EST] && !real(&w, J_EST, f[J_EST], &ignored)) ||
            !text(&w, J_BACKEND, f[J_BACKEND], e->backend, sizeof e->backend) ||
            !text(&w, J_STATUS, f[J_STATUS], e->status, sizeof e->status))
            return false;
        if (strcmp(f[J_ROUND], "search") && strcmp(f[J_ROUND], "final") &&
            strcmp(f[J_ROUND], "verify"))
            return fail(&w, "field 'round' is not search, final or verify: '%s'", f[J_ROUND]);
        strcpy(e->round, f[J_ROUND]);
    } else {
        strcpy(e->status, "ok");
    }
    bool ok = strcmp(e->status, "ok") == 0;
    if (*f[measured] || ok) {
        if (!real(&w, measured, f[measured], &e->measured))
            return false;
        if (ok && e->measured <= 0) /* a time or a cycle count */
            return fail(&w, "field 'measured' of an ok row is not positive: '%s'", f[measured]);
    }
    if (!text(&w, unit, f[unit], e->unit, sizeof e->unit))
        return false;
    const char *m = f[journal ? J_MICRO : T_MICRO];
    if (*m) { /* "MRxNR", each 1..255 */
        int64_t mr, nr;
        char *x = strchr(m, 'x');
        if (!x)
            return fail(&w, "field 'micro' is not a micro-tile MRxNR: '%s'", m);
        *x = '\0';
        bool okm = integer(&w, journal ? J_MICRO : T_MICRO, m, 1, 255, &mr) &&
                   integer(&w, journal ? J_MICRO : T_MICRO, x + 1, 1, 255, &nr);
        *x = 'x';
        if (!okm)
            return false;
        c->mr = (uint8_t)mr;
        c->nr = (uint8_t)nr;
    }
    e->verified = -1;
    if (!journal && want == RS_TABLE_COLUMNS && !bit(&w, T_VERIFIED, f[T_VERIFIED], &e->verified))
        return false;
    return true;
}

bool rs_parse_row(char *line, bool journal, rs_entry *e, const char *path, long lineno,
                  char *err, size_t errlen)
{
    return parse_row(line, journal, journal ? RS_JOURNAL_COLUMNS : RS_TABLE_COLUMNS, e, path,
                     lineno, err, errlen);
}

bool rs_parse_table_row(char *line, int format, rs_entry *e, const char *path, long lineno,
                        char *err, size_t errlen)
{
    return parse_row(line, false, format == 1 ? RS_TABLE_COLUMNS - 1 : RS_TABLE_COLUMNS, e,
                     path, lineno, err, errlen);
}
