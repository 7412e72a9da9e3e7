/* journal.c — the results journal: every measurement appended as one write as it
 * completes, a sidecar saying what it belongs to, and resuming after a kill. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "internal.h"

struct rs_journal {
    int fd;
    char *path;
    char *row;       /* formatting buffer of one row */
    size_t rowcap;
    int ncols;       /* the columns of its header, which its rows are written with */
    char unit[8];    /* the unit of the ok rows read, "" if none */
    long unit_line;  /* the first of them */
};

static const char move_away[] = "move it away or choose another results path";

/* ---- the sidecar PATH.sig: key=value lines ---- */

typedef struct {
    const char *key;
    size_t off, size;
    bool required;
} sig_field;

#define SIG_FIELD(name, req) {#name, offsetof(rs_signature, name), sizeof ((rs_signature *)0)->name, req}
static const sig_field sig_fields[] = {
    SIG_FIELD(version, false),    SIG_FIELD(script, false),    SIG_FIELD(target, true),
    SIG_FIELD(target_sig, true),  SIG_FIELD(space_sig, true),  SIG_FIELD(measure, true),
    SIG_FIELD(kernel_sig, false), SIG_FIELD(clock_mhz, false),
};
#define NSIG_FIELDS (sizeof sig_fields / sizeof sig_fields[0])

static bool write_sig(FILE *f, void *ctx)
{
    const rs_signature *s = ctx;
    for (size_t i = 0; i < NSIG_FIELDS; i++) {
        const char *value = (const char *)s + sig_fields[i].off;
        if (sig_fields[i].required || *value) /* an empty optional field: no line */
            fprintf(f, "%s=%s\n", sig_fields[i].key, value);
    }
    return true;
}

/* Reads the sidecar; false with "PATH.sig...: why" in err. */
static bool read_sig(const char *sigpath, rs_signature *s, char *err, size_t errlen)
{
    FILE *f = fopen(sigpath, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", sigpath, strerror(errno));
        return false;
    }
    memset(s, 0, sizeof *s);
    bool seen[NSIG_FIELDS] = {false}, ok = true;
    char line[512];
    for (long n = 1; ok && fgets(line, sizeof line, f); n++) {
        char *nl = strchr(line, '\n'), *eq = strchr(line, '=');
        if (!nl && !feof(f)) {
            snprintf(err, errlen, "%s:%ld: line too long", sigpath, n);
            ok = false;
            break;
        }
        if (nl) {
            *nl = '\0';
            if (nl > line && nl[-1] == '\r') /* an editor's CRLF line end */
                nl[-1] = '\0';
        }
        if (!eq) {
            snprintf(err, errlen, "%s:%ld: not a key=value line", sigpath, n);
            ok = false;
            break;
        }
        *eq = '\0';
        for (size_t i = 0; i < NSIG_FIELDS; i++) {
            if (strcmp(line, sig_fields[i].key) != 0)
                continue;
            if (strlen(eq + 1) >= sig_fields[i].size) {
                snprintf(err, errlen, "%s:%ld: the value of '%s' is too long", sigpath, n, line);
                ok = false;
            } else {
                strcpy((char *)s + sig_fields[i].off, eq + 1);
                seen[i] = true;
            }
        }
    }
    if (ok && ferror(f)) {
        snprintf(err, errlen, "cannot read '%s': %s", sigpath, strerror(errno));
        ok = false;
    }
    fclose(f);
    for (size_t i = 0; ok && i < NSIG_FIELDS; i++)
        if (sig_fields[i].required && !seen[i]) {
            snprintf(err, errlen, "%s: no '%s' line", sigpath, sig_fields[i].key);
            ok = false;
        }
    return ok;
}

/* The journal's sidecar must describe this run (the version may differ). */
static bool same_origin(const char *path, const rs_signature *old, const rs_signature *now,
                        char *err, size_t errlen)
{
    if (strcmp(old->target, now->target) || strcmp(old->target_sig, now->target_sig)) {
        snprintf(err, errlen,
                 "%s was written for target %s (signature %s), this run is %s (%s): %s", path,
                 old->target, old->target_sig, now->target, now->target_sig, move_away);
        return false;
    }
    if (strcmp(old->space_sig, now->space_sig)) {
        snprintf(err, errlen,
                 "%s was written for other problems or another space (signature %s, script "
                 "%s), this run's are %s (script %s): %s",
                 path, old->space_sig, *old->script ? old->script : "?", now->space_sig,
                 *now->script ? now->script : "?", move_away);
        return false;
    }
    if (strcmp(old->measure, now->measure)) {
        snprintf(err, errlen, "%s was written with measure %s, this run uses %s: %s", path,
                 old->measure, now->measure, move_away);
        return false;
    }
    if (strcmp(old->kernel_sig, now->kernel_sig)) { /* its timings are of other kernels */
        snprintf(err, errlen,
                 "%s was written with other generated kernels (signature %s), this build "
                 "generates %s: %s",
                 path, *old->kernel_sig ? old->kernel_sig : "none",
                 *now->kernel_sig ? now->kernel_sig : "none", move_away);
        return false;
    }
    return true;
}

/* ---- opening ---- */

/* The columns of the oldest journal read: all but the last four, op,
 * shape, node and pack (a journal from before shapes lacks the last three,
 * one from before nodes the last two). Its rows are of the default op, and
 * so are the rows a resumed run appends to it, which keep its columns (the
 * space signature of a run with problems of another op differs). A journal
 * has the last, pack, when the run that created it had no-pack configs
 * (rs_journal_opts): one without cannot take their rows, and the space
 * signature of such a run differs from any without them. */
#define BEFORE_OPS (rs_journal_columns.n - 4)
#define BEFORE_PACK (rs_journal_columns.n - 1)

/* The header line of the first n columns into head, with its newline; its
 * length without. */
static size_t header(char head[RS_HEADER_MAX], int n)
{
    return rs_header(head, RS_HEADER_MAX, &rs_journal_columns, n) - 1;
}

static bool write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        buf += w;
        len -= (size_t)w;
    }
    return true;
}

/* Starts a journal from nothing in fd: the sidecar first (atomically), then
 * the header. Without a sidecar path (a journal written through) only the
 * header. */
static bool start(const char *path, const char *sigpath, int fd, const rs_signature *sig,
                  int ncols, char *err, size_t errlen)
{
    for (size_t i = 0; sigpath && i < NSIG_FIELDS; i++)
        if (strchr((const char *)sig + sig_fields[i].off, '\n')) {
            snprintf(err, errlen, "cannot write '%s': the %s has a line break", sigpath,
                     sig_fields[i].key);
            return false;
        }
    if (sigpath && !bs_write_atomic(sigpath, write_sig, (void *)sig, err, errlen))
        return false;
    char head[RS_HEADER_MAX];
    size_t n = header(head, ncols) + 1;
    bool ok = (!sigpath || ftruncate(fd, 0) == 0) && write_all(fd, head, n);
    if (!ok)
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    return ok;
}

/* ---- the rows of a resumed journal must be this run's ---- */

typedef struct {
    const rs_signature *sig;     /* NULL: any target and backend (rs_journal_read) */
    bool search_figures;         /* a final's row does not replace the search's figure */
    const sp_problem **problems; /* sorted by problem_cmp; NULL: not checked */
    size_t np;
    char unit[8];                /* of the first ok row, "" before it */
    long unit_line;
    int ncols;                   /* the columns of the journal's header */
} rules;

/* Orders problems by name, op, dimensions, then dtype (shape_cmp: not). */
static int problem_cmp(const void *a, const void *b)
{
    return sp_problem_cmp(*(const sp_problem *const *)a, *(const sp_problem *const *)b, true);
}
static int shape_cmp(const void *a, const void *b)
{
    return sp_problem_cmp(*(const sp_problem *const *)a, *(const sp_problem *const *)b, false);
}

/* A row must be of this run's target, backend and problems, and an ok row
 * in the unit of the journal's other ok rows; "PATH:LINE: ..." otherwise. */
static bool check_row(const char *path, const rs_entry *e, rules *r, char *err, size_t errlen)
{
    const sp_problem *p = &e->problem, *key = p;
    const char *dtype = sp_dtype_name(p->dtype);
    if (r->sig && strcmp(e->target, r->sig->target) != 0) {
        snprintf(err, errlen, "%s:%ld: row is for target %s, this run is for %s", path, e->line,
                 e->target, r->sig->target);
        return false;
    }
    if (r->sig && strcmp(e->backend, r->sig->measure) != 0) {
        snprintf(err, errlen, "%s:%ld: row was measured with %s, this run measures with %s",
                 path, e->line, e->backend, r->sig->measure);
        return false;
    }
    if (strcmp(e->status, "ok") == 0 && !r->unit[0]) {
        strcpy(r->unit, e->unit);
        r->unit_line = e->line;
    } else if (strcmp(e->status, "ok") == 0 && strcmp(e->unit, r->unit) != 0) {
        snprintf(err, errlen, "%s:%ld: row is in %s, line %ld is in %s; a journal holds one unit",
                 path, e->line, e->unit, r->unit_line, r->unit);
        return false;
    }
    if (!r->problems || bsearch(&key, r->problems, r->np, sizeof key, problem_cmp))
        return true;
    const sp_problem *const *run = bsearch(&key, r->problems, r->np, sizeof key, shape_cmp);
    char shape[SP_SHAPE_MAX];
    sp_problem_shape(p, shape, sizeof shape);
    if (run)
        snprintf(err, errlen, "%s:%ld: row is for %s %s in %s, this run tunes it in %s", path,
                 e->line, p->name, shape, dtype, sp_dtype_name((*run)->dtype));
    else
        snprintf(err, errlen, "%s:%ld: row is for %s %s, which this run does not tune", path,
                 e->line, p->name, shape);
    return false;
}

/* Reads the rows of buf (the whole file, NUL-terminated) into c, each
 * checked against r; *keep is the length of its complete lines (a torn last
 * line is not kept). */
static bool read_rows(const char *path, char *buf, size_t len, rules *r, rs_cache *c,
                      size_t *keep, char *err, size_t errlen)
{
    char head[RS_HEADER_MAX];
    char *nl = memchr(buf, '\n', len);
    for (r->ncols = rs_journal_columns.n; r->ncols >= BEFORE_OPS; r->ncols--) {
        size_t hn = header(head, r->ncols);
        if ((size_t)(nl - buf) == hn && memcmp(buf, head, hn) == 0)
            break;
    }
    if (r->ncols < BEFORE_OPS) {
        snprintf(err, errlen, "%s:1: columns are not the npu-tune journal's", path);
        return false;
    }
    char *line = nl + 1, *end = buf + len;
    long lineno = 2;
    for (; line < end; line = nl + 1, lineno++) {
        if (!(nl = memchr(line, '\n', (size_t)(end - line))))
            break; /* torn: the last write of a killed run */
        *nl = '\0';
        rs_entry e;
        if (!rs_parse_row(line, &rs_journal_columns, r->ncols, &e, path, lineno, err, errlen) ||
            !check_row(path, &e, r, err, errlen))
            return false;
        /* a later row replaces the one before, keeping its final's figure
         * and its verification's status; with search_figures a final's or a
         * verification's row only adds those; a final that failed replaces
         * no ok row, and leaves no figure but its line (the final was held,
         * and it took part) */
        const rs_entry *had = rs_cache_find(c, &e.problem, &e.config);
        bool final = strcmp(e.round, "final") == 0, verify = strcmp(e.round, "verify") == 0,
             ok = strcmp(e.status, "ok") == 0;
        double figure = had ? had->final : NAN;
        long at = had ? had->final_line : 0;
        char verdict[sizeof e.verdict];
        snprintf(verdict, sizeof verdict, "%s", verify ? e.status : had ? had->verdict : "");
        if (final)
            figure = ok ? e.measured : NAN, at = e.line;
        bool beside = r->search_figures ? final || verify : final && !ok;
        if (beside && had && strcmp(had->status, "ok") == 0)
            e = *had; /* the search's row stands */
        e.final = figure;
        e.final_line = at;
        memcpy(e.verdict, verdict, sizeof verdict);
        if (!rs_cache_put(c, &e)) {
            snprintf(err, errlen, "%s:%ld: out of memory", path, lineno);
            return false;
        }
    }
    *keep = (size_t)(line - buf);
    return true;
}

/* Resumes the journal in fd: checks the sidecar, reads the rows and cuts off
 * a torn last line. */
static bool resume(const char *path, const char *sigpath, int fd, char *buf, size_t len,
                   rules *r, rs_cache *c, char *err, size_t errlen)
{
    rs_signature old;
    if (access(sigpath, F_OK) != 0 && errno == ENOENT) {
        snprintf(err, errlen, "%s: no %s beside it; not resuming a journal of unknown origin",
                 path, sigpath);
        return false;
    }
    size_t keep;
    if (!read_sig(sigpath, &old, err, errlen) || !same_origin(path, &old, r->sig, err, errlen) ||
        !read_rows(path, buf, len, r, c, &keep, err, errlen))
        return false;
    if (keep < len && ftruncate(fd, (off_t)keep) != 0) {
        snprintf(err, errlen, "cannot cut the torn last line off '%s': %s", path,
                 strerror(errno));
        return false;
    }
    return true;
}

rs_journal *rs_journal_open(const char *path, const rs_signature *sig, rs_cache **cache,
                            char *err, size_t errlen)
{
    return rs_journal_open_with(path, sig, NULL, cache, err, errlen);
}

/* Written through: header and rows, nothing read, no sidecar, no lock.
 * Else locked; new: sidecar + header; existing: check, read, cut a torn
 * line. A journal this call created is removed again when it fails. */
rs_journal *rs_journal_open_with(const char *path, const rs_signature *sig,
                                 rs_journal_opts *o, rs_cache **cache, char *err, size_t errlen)
{
    *cache = NULL;
    size_t plen = strlen(path), np = o && o->problems ? o->nproblems : 0;
    rs_journal *j = calloc(1, sizeof *j);
    char *sigpath = malloc(plen + 5), *buf = NULL;
    rs_cache *c = rs_cache_new();
    rules r = {.sig = sig, .search_figures = true, .np = np,
               .ncols = o && o->pack ? rs_journal_columns.n : BEFORE_PACK};
    if (o && o->problems)
        r.problems = malloc((np ? np : 1) * sizeof *r.problems);
    if (!j || !sigpath || !c || (o && o->problems && !r.problems) || !(j->path = strdup(path))) {
        snprintf(err, errlen, "cannot open '%s': out of memory", path);
        goto fail;
    }
    if (r.problems) {
        memcpy(r.problems, o->problems, np * sizeof *r.problems);
        qsort(r.problems, np, sizeof *r.problems, problem_cmp);
    }
    memcpy(sigpath, path, plen);
    memcpy(sigpath + plen, ".sig", 5);
    size_t len = 0;
    bool through = bs_written_through(path), created = false;
    int fd = through ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
                     : bs_lock_open(path, o && o->wait, o ? &o->holder : NULL, &created, err,
                                    errlen);
    if (fd < 0) {
        if (through)
            snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        goto fail;
    }
    if (!through && !bs_read_all(fd, &buf, &len)) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        goto fail_fd;
    }
    if (through || !memchr(buf, '\n', len)) {
        /* New, or killed before its header was complete: start afresh. */
        char head[RS_HEADER_MAX];
        size_t hn = header(head, r.ncols);
        if (len > hn || (len && memcmp(buf, head, len) != 0)) {
            snprintf(err, errlen, "%s:1: columns are not the npu-tune journal's", path);
            goto fail_fd;
        }
        if (!start(path, through ? NULL : sigpath, fd, sig, r.ncols, err, errlen))
            goto fail_fd;
    } else if (!resume(path, sigpath, fd, buf, len, &r, c, err, errlen)) {
        goto fail_fd;
    }
    free(buf);
    free(sigpath);
    free(r.problems);
    j->fd = fd;
    j->ncols = r.ncols;
    memcpy(j->unit, r.unit, sizeof j->unit);
    j->unit_line = r.unit_line;
    *cache = c;
    return j;
fail_fd:
    if (created)
        unlink(path);
    close(fd);
fail:
    free(buf);
    free(sigpath);
    free(r.problems);
    rs_cache_free(c);
    if (j)
        free(j->path);
    free(j);
    return NULL;
}

bool rs_journal_read(const char *path, bool search_figures, rs_cache **cache, char *err,
                     size_t errlen)
{
    *cache = NULL;
    char *buf = NULL;
    size_t len = 0, keep;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return false;
    }
    bool ok = bs_read_all(fd, &buf, &len);
    if (!ok)
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
    close(fd);
    rules r = {.search_figures = search_figures};
    rs_cache *c = ok ? rs_cache_new() : NULL;
    if (ok && !c) {
        snprintf(err, errlen, "cannot read '%s': out of memory", path);
        ok = false;
    } else if (ok && !memchr(buf, '\n', len)) { /* no whole header line */
        if (len)
            snprintf(err, errlen, "%s:1: columns are not the npu-tune journal's", path);
        else
            snprintf(err, errlen, "%s: empty file, not an npu-tune journal", path);
        ok = false;
    }
    ok = ok && read_rows(path, buf, len, &r, c, &keep, err, errlen);
    free(buf);
    if (!ok) {
        rs_cache_free(c);
        return false;
    }
    *cache = c;
    return true;
}

bool rs_journal_signature(const char *path, rs_signature *sig, char *err, size_t errlen)
{
    size_t n = strlen(path);
    char *sigpath = malloc(n + 5);
    if (!sigpath) {
        snprintf(err, errlen, "cannot read '%s.sig': out of memory", path);
        return false;
    }
    memcpy(sigpath, path, n);
    memcpy(sigpath + n, ".sig", 5);
    bool ok = read_sig(sigpath, sig, err, errlen);
    free(sigpath);
    return ok;
}

const char *rs_journal_unit(const rs_journal *j, long *line)
{
    if (line)
        *line = j->unit_line;
    return j->unit;
}

/* ---- appending ---- */

/* Formats the row, then writes it with one write(2). */
bool rs_journal_append(rs_journal *j, const rs_row *row, char *err, size_t errlen)
{
    if (!rs_row_check(row, err, errlen))
        return false;
    if (strcmp(row->status, "ok") == 0 && !isfinite(row->measured)) {
        snprintf(err, errlen, "cannot write a row of problem '%s': status ok but the measurement is %g",
                 row->problem->name, row->measured);
        return false;
    }
    if (row->cand->config.nopack && j->ncols < rs_journal_columns.n) {
        snprintf(err, errlen,
                 "cannot write a no-pack config of problem '%s' to '%s': it has no pack column",
                 row->problem->name, j->path);
        return false;
    }
    size_t n = rs_format_row(j->row, j->rowcap, row, &rs_journal_columns, j->ncols);
    if (n >= j->rowcap) {
        char *b = realloc(j->row, n + 1);
        if (!b) {
            snprintf(err, errlen, "cannot write '%s': out of memory", j->path);
            return false;
        }
        j->row = b;
        j->rowcap = n + 1;
        rs_format_row(j->row, j->rowcap, row, &rs_journal_columns, j->ncols);
    }
    /* One write(2) per row, no stdio buffer: a kill tears at most this line. */
    if (!write_all(j->fd, j->row, n)) {
        snprintf(err, errlen, "cannot write '%s': %s", j->path, strerror(errno));
        return false;
    }
    return true;
}

/* Closes the file; reports a failing close. */
bool rs_journal_close(rs_journal *j, char *err, size_t errlen)
{
    if (!j)
        return true;
    bool ok = close(j->fd) == 0;
    if (!ok)
        snprintf(err, errlen, "cannot write '%s': %s", j->path, strerror(errno));
    free(j->row);
    free(j->path);
    free(j);
    return ok;
}
