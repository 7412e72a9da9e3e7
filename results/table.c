/* table.c — the tuning table: its signature line and its target's figures,
 * written whole, read strictly, and picking an entry for a shape. */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "internal.h"

/* ---- writing ---- */

static const char table_magic[] = "# npu-tune table ";
/* The newest format; the older ones are read too. A table with a no-pack
 * entry is written in format 6, any other in format 5, which lacks the last
 * column (pack: its entries pack). Format 4 also lacks the one before (shape:
 * its rows' GEMM views give it), format 3 also the one before that (op: its
 * rows are of the default op), format 2 also the target lines (its rows name
 * built-in targets), format 1 also the column before (verified). */
enum { TABLE_FORMAT = 6, TABLE_PACKING = 5 };
/* The columns the table of each format lacks at the end. */
static const int missing[TABLE_FORMAT + 1] = {[1] = 4, [2] = 3, [3] = 3, [4] = 2, [5] = 1,
                                              [6] = 0};
/* A line of the target's figures (formats 3 and 4), between the signature and the columns. */
static const char target_magic[] = "# target ";

/* The signature line's fields; script comes last and may hold spaces. */
typedef struct {
    const char *key;
    size_t off, size;
} sig_key;
#define SIG_KEY(name) {#name, offsetof(rs_signature, name), sizeof ((rs_signature *)0)->name}
static const sig_key sig_keys[] = {SIG_KEY(version), SIG_KEY(target), SIG_KEY(target_sig),
                                   SIG_KEY(space_sig), SIG_KEY(measure), SIG_KEY(script)};
#define NSIG_KEYS (sizeof sig_keys / sizeof sig_keys[0])

typedef struct {
    const rs_signature *sig;
    const sp_target *target;
    const rs_row *rows;
    size_t n;
} table;

static bool write_table(FILE *f, void *ctx)
{
    const table *t = ctx;
    int format = TABLE_PACKING;
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].cand->config.nopack)
            format = TABLE_FORMAT;
    int ncols = rs_table_columns.n - missing[format];
    fprintf(f, "%s%d", table_magic, format);
    for (size_t i = 0; i < NSIG_KEYS; i++)
        fprintf(f, " %s=%s", sig_keys[i].key, (const char *)t->sig + sig_keys[i].off);
    char text[SP_TARGET_TEXT_MAX], head[RS_HEADER_MAX];
    sp_target_print(text, sizeof text, t->target);
    rs_header(head, sizeof head, &rs_table_columns, ncols);
    fprintf(f, "\n%s%s\n%s", target_magic, text, head);
    char small[512];
    for (size_t i = 0; i < t->n; i++) {
        const rs_columns *c = &rs_table_columns;
        size_t len = rs_format_row(small, sizeof small, &t->rows[i], c, ncols);
        char *b = len < sizeof small ? small : malloc(len + 1);
        if (!b)
            return false;
        if (b != small)
            rs_format_row(b, len + 1, &t->rows[i], c, ncols);
        fwrite(b, 1, len, f);
        if (b != small)
            free(b);
    }
    return true;
}

/* Checks the signature and rows (measured, of one unit, of the target), then
 * writes the table atomically. */
bool rs_table_write(const char *path, const rs_signature *sig, const sp_target *target,
                    const rs_row *rows, size_t n, char *err, size_t errlen)
{
    if (strcmp(sig->target, target->name) != 0) {
        snprintf(err, errlen, "cannot write '%s': the signature's target '%s' is not '%s'", path,
                 sig->target, target->name);
        return false;
    }
    for (size_t i = 0; i < NSIG_KEYS; i++) {
        const char *v = (const char *)sig + sig_keys[i].off;
        bool last = i + 1 == NSIG_KEYS;
        if (strpbrk(v, last ? "\r\n" : " \t\r\n")) {
            snprintf(err, errlen, "cannot write '%s': the %s '%s' has %s", path,
                     sig_keys[i].key, v, last ? "a line break" : "white space");
            return false;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (!rs_row_check(&rows[i], err, errlen))
            return false;
        if (strcmp(rows[i].status, "ok") != 0 || !isfinite(rows[i].measured)) {
            snprintf(err, errlen,
                     "cannot write '%s': row %zu (problem '%s') is not a measured config "
                     "(status %s); a table holds only status-ok rows",
                     path, i + 1, rows[i].problem->name, rows[i].status);
            return false;
        }
        if (strcmp(rows[i].target, target->name) != 0) {
            snprintf(err, errlen,
                     "cannot write '%s': row %zu (problem '%s') is of target '%s', the table's "
                     "is '%s'",
                     path, i + 1, rows[i].problem->name, rows[i].target, target->name);
            return false;
        }
        if (strcmp(rows[i].unit, rows[0].unit) != 0) {
            snprintf(err, errlen,
                     "cannot write '%s': row %zu (problem '%s') is in %s, row 1 in %s; a table "
                     "holds one unit",
                     path, i + 1, rows[i].problem->name, rows[i].unit, rows[0].unit);
            return false;
        }
    }
    table t = {sig, target, rows, n};
    return bs_write_atomic(path, write_table, &t, err, errlen);
}

/* ---- reading ---- */

/* Parses line 1 (after the magic) into sig and *format: "2 key=value ...
 * script=rest". */
static bool read_sig_line(const char *path, char *s, rs_signature *sig, int *format, char *err,
                          size_t errlen)
{
    size_t digits = strspn(s, "0123456789");
    if (!digits || (s[digits] && s[digits] != ' ')) {
        snprintf(err, errlen, "%s:1: not an npu-tune table (no '# npu-tune table' line)", path);
        return false;
    }
    if (digits != 1 || s[0] < '1' || s[0] > '0' + TABLE_FORMAT) {
        snprintf(err, errlen, "%s:1: table format %.*s is not supported (this build reads 1 to %d)",
                 path, (int)digits, s, TABLE_FORMAT);
        return false;
    }
    *format = s[0] - '0';
    memset(sig, 0, sizeof *sig);
    for (s += digits; *s == ' '; ) {
        char *key = ++s, *eq = strchr(s, '='), *sp = strchr(s, ' ');
        if (!eq || (sp && sp < eq)) {
            snprintf(err, errlen, "%s:1: '%.*s' in the signature is not key=value", path,
                     sp ? (int)(sp - s) : (int)strlen(s), s);
            return false;
        }
        *eq = '\0';
        char *v = eq + 1;
        bool script = strcmp(key, "script") == 0;
        size_t vlen = script ? strlen(v) : strcspn(v, " ");
        s = v + vlen;
        for (size_t i = 0; i < NSIG_KEYS; i++) {
            if (strcmp(key, sig_keys[i].key) != 0)
                continue;
            if (vlen >= sig_keys[i].size) {
                snprintf(err, errlen, "%s:1: the value of '%s' is too long", path, key);
                return false;
            }
            memcpy((char *)sig + sig_keys[i].off, v, vlen);
        }
    }
    return true;
}

/* A "# target NAME key=value ..." line (s is after the magic) of format 3, 4:
 * the figures of the table's target, described once. */
static bool read_target(const char *path, long lineno, char *s, rs_table *tab, char *err,
                        size_t errlen)
{
    char *words[SP_TARGET_NFIELDS];
    size_t n = 0;
    for (char *save = NULL, *w = strtok_r(s, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (n == SP_TARGET_NFIELDS) {
            snprintf(err, errlen, "%s:%ld: more than %d figures on the target line", path, lineno,
                     SP_TARGET_NFIELDS - 1);
            return false;
        }
        words[n++] = w;
    }
    sp_target t;
    char why[512];
    if (!sp_target_scan(words, n, &t, why, sizeof why)) {
        snprintf(err, errlen, "%s:%ld: %s", path, lineno, why);
        return false;
    }
    if (strcmp(t.name, tab->sig.target) != 0) {
        snprintf(err, errlen, "%s:%ld: target '%s' is not the table's, '%s' (line 1)", path,
                 lineno, t.name, tab->sig.target);
        return false;
    }
    if (tab->has_target) { /* a table describes its one target once */
        snprintf(err, errlen, "%s:%ld: target '%s' is described twice (first at line 2)", path,
                 lineno, t.name);
        return false;
    }
    tab->target = t;
    tab->has_target = true;
    return true;
}

static bool read_table(const char *path, char *buf, size_t len, rs_table *tab, char *err,
                       size_t errlen)
{
    char *end = buf + len, *line = buf, *nl;
    size_t cap = 0;
    size_t mlen = strlen(table_magic), tlen = strlen(target_magic);
    if (len < mlen || memcmp(buf, table_magic, mlen) != 0) {
        snprintf(err, errlen, "%s:1: not an npu-tune table (no '# npu-tune table' line)", path);
        return false;
    }
    long lineno = 1;
    int format = TABLE_FORMAT, ncols = rs_table_columns.n;
    bool columns = false;
    for (; line < end; line = nl + 1, lineno++) {
        if (!(nl = memchr(line, '\n', (size_t)(end - line)))) {
            snprintf(err, errlen, "%s:%ld: the last line is cut off (no newline at its end)",
                     path, lineno);
            return false;
        }
        *nl = '\0';
        if (lineno == 1) {
            if (!read_sig_line(path, line + mlen, &tab->sig, &format, err, errlen))
                return false;
            ncols = rs_table_columns.n - missing[format];
            if (format >= 3 && !tab->sig.target[0]) {
                snprintf(err, errlen, "%s:1: the signature names no target", path);
                return false;
            }
            continue;
        }
        if (!columns && format >= 3 && strncmp(line, target_magic, tlen) == 0) {
            if (!read_target(path, lineno, line + tlen, tab, err, errlen))
                return false;
            continue;
        }
        if (!columns) {
            char head[RS_HEADER_MAX];
            size_t cols = rs_header(head, sizeof head, &rs_table_columns, ncols) - 1;
            if (strlen(line) != cols || strncmp(line, head, cols) != 0) {
                snprintf(err, errlen, "%s:%ld: columns are not the tuning table's", path, lineno);
                return false;
            }
            if (format >= 3 && !tab->has_target) {
                snprintf(err, errlen, "%s:%ld: no '%s%s' line before the columns", path, lineno,
                         target_magic, tab->sig.target);
                return false;
            }
            columns = true;
            continue;
        }
        if (tab->n == cap) {
            rs_entry *ne = realloc(tab->e, (cap = cap ? cap * 2 : 16) * sizeof *ne);
            if (!ne) {
                snprintf(err, errlen, "%s:%ld: out of memory", path, lineno);
                return false;
            }
            tab->e = ne;
        }
        rs_entry *e = &tab->e[tab->n];
        if (!rs_parse_row(line, &rs_table_columns, ncols, e, path, lineno, err, errlen))
            return false;
        if (tab->sig.target[0] && strcmp(e->target, tab->sig.target) != 0) {
            snprintf(err, errlen, "%s:%ld: target '%s' is not the table's, '%s' (line 1)", path,
                     lineno, e->target, tab->sig.target);
            return false;
        }
        tab->n++;
    }
    if (!columns) {
        snprintf(err, errlen, "%s:%ld: columns are not the tuning table's", path, lineno);
        return false;
    }
    return true;
}

/* All or nothing: a table only when every line is well-formed. */
bool rs_table_read(const char *path, rs_table *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char *buf;
    size_t len;
    if (fd < 0) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return false;
    }
    if (!bs_read_all(fd, &buf, &len)) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return false;
    }
    close(fd);
    bool ok = read_table(path, buf, len, t, err, errlen);
    free(buf);
    if (!ok)
        rs_table_free(t);
    return ok;
}

void rs_table_free(rs_table *t)
{
    free(t->e);
    memset(t, 0, sizeof *t);
}

const sp_target *rs_table_target(const rs_table *t, const char *name)
{
    return t->has_target && strcmp(t->target.name, name) == 0 ? &t->target : NULL;
}

/* ---- picking an entry for a shape ---- */

static double ratio(int64_t a, int64_t b)
{
    return a > b ? (double)a / (double)b : (double)b / (double)a;
}

/* Product of the max/min ratios of M, N, K and batch. */
double rs_shape_distance(const sp_problem *a, const sp_problem *b)
{
    double d = ratio(a->M, b->M);
    d *= ratio(a->N, b->N);
    d *= ratio(a->K, b->K);
    d *= ratio(a->batch, b->batch);
    return d;
}

/* Exact shape first, then the nearest entry sp_check accepts; of p's op and dtype. */
const rs_entry *rs_table_pick(const rs_entry *e, size_t n, const sp_target *t,
                              const sp_problem *p, bool *exact)
{
    const rs_entry *best = NULL;
    double best_d = 0;
    *exact = false;
    for (size_t i = 0; i < n; i++) {
        const sp_problem *q = &e[i].problem;
        if (q->op != p->op || q->dtype != p->dtype || strcmp(e[i].target, t->name) != 0)
            continue;
        if (sp_problem_same_shape(q, p)) {
            *exact = true;
            return &e[i];
        }
    }
    for (size_t i = 0; i < n; i++) {
        const sp_problem *q = &e[i].problem;
        if (q->op != p->op || q->dtype != p->dtype || strcmp(e[i].target, t->name) != 0 ||
            sp_check(t, p, &e[i].config) != 0)
            continue;
        double d = rs_shape_distance(q, p);
        if (!best || d < best_d) {
            best = &e[i];
            best_d = d;
        }
    }
    return best;
}
