/* fits.c — tune { calibrate = true }: after each batch the model's figures are
 * refitted to what the run measured so far (results/calibrate.c) and recorded
 * in JOURNAL.fit, so that a resumed run ranks with the same figures. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "internal.h"

#define RECORD_HEAD "# npu-tune fit record 1"

/* The figures in use from a point of the run on: after `told` candidates of
 * problem `problem` were told. */
typedef struct {
    size_t problem, told;
    sp_target t;
} record;

struct tn_fits {
    char *path;            /* the record; NULL: the journal is written through */
    int fd;                /* appending to it, -1 before the first fit */
    char sig[64];          /* "target_sig=... space_sig=...": whose record it is */
    sp_target start;       /* the script's target: every fit starts from it */
    sp_target now;         /* the figures ranking now */
    rs_entry *rows;        /* the run's ok measurements so far, in the order told */
    size_t nrows, caprows;
    record *rec;           /* read from the record of a resumed run */
    size_t nrec;
    size_t refits, refused, need; /* fits taken, fits not taken, rows before the first */
    size_t fitted_rows;    /* the rows of the last fit */
};

/* Rows before the first fit: RS_FIT_ROWS_PER_FIGURE per free figure of the
 * target's kind (with the clock: the unit is not known yet). */
static size_t rows_needed(const sp_target *t)
{
    size_t k = 0;
    for (int i = 0; rs_fit_free(i); i++)
        for (int j = 0; j < SP_TARGET_NFIELDS; j++)
            if (strcmp(sp_target_fields[j].name, rs_fit_free(i)) == 0)
                k += sp_target_fields[j].kinds >> t->kind & 1;
    return RS_FIT_ROWS_PER_FIGURE * k;
}

/* Reads the record at f->path, if it is this journal's: a line per fit,
 * "PROBLEM TOLD TARGET key=value ...". A torn last line (a kill) is
 * dropped; anything else malformed is an error naming its line. */
static bool read_record(tn_fits *f, char *err, size_t errlen)
{
    int fd = open(f->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return true;
    char *buf = NULL;
    size_t len = 0;
    bool ok = fd >= 0 && bs_read_all(fd, &buf, &len);
    if (!ok)
        snprintf(err, errlen, "cannot read '%s': %s", f->path, strerror(errno));
    if (fd >= 0)
        close(fd);
    char head[128];
    snprintf(head, sizeof head, "%s %s\n", RECORD_HEAD, f->sig);
    if (!ok || strncmp(buf, head, strlen(head)) != 0) { /* another journal's: stale */
        free(buf);
        return ok;
    }
    char *line = buf + strlen(head), *end = buf + len, *nl;
    for (long lineno = 2; ok && line < end && (nl = memchr(line, '\n', (size_t)(end - line)));
         line = nl + 1, lineno++) {
        *nl = '\0';
        char *words[SP_TARGET_NFIELDS + 3], *save = NULL, *endp;
        size_t n = 0;
        for (char *w = strtok_r(line, " ", &save); w && n < sizeof words / sizeof *words;
             w = strtok_r(NULL, " ", &save))
            words[n++] = w;
        record r;
        errno = 0;
        r.problem = n >= 3 ? strtoul(words[0], &endp, 10) : 0;
        ok = n >= 3 && !errno && !*endp;
        r.told = ok ? strtoul(words[1], &endp, 10) : 0;
        ok = ok && !errno && !*endp;
        char why[512] = "not PROBLEM TOLD TARGET key=value...";
        ok = ok && sp_target_scan(words + 2, n - 2, &r.t, why, sizeof why);
        ok = ok && strcmp(r.t.name, f->start.name) == 0 && f->start.kind == r.t.kind;
        record *grown = ok ? realloc(f->rec, (f->nrec + 1) * sizeof *grown) : NULL;
        if (!grown) {
            snprintf(err, errlen, "%s:%ld: %s: move it away (a resumed run then fits again)",
                     f->path, lineno, ok ? "out of memory" : why);
            ok = false;
            break;
        }
        f->rec = grown;
        f->rec[f->nrec++] = r;
    }
    /* a torn last line (killed while appending it) is cut off */
    if (ok && line < end && truncate(f->path, (off_t)(line - buf)) != 0) {
        snprintf(err, errlen, "cannot cut the torn last line off '%s': %s", f->path,
                 strerror(errno));
        ok = false;
    }
    free(buf);
    return ok;
}

static bool write_head(FILE *out, void *ctx)
{
    const tn_fits *f = ctx;
    fprintf(out, "%s %s\n", RECORD_HEAD, f->sig);
    return true;
}

tn_fits *tn_fits_open(const char *journal, const rs_signature *sig, bool resumed,
                      const sp_target *start, char *err, size_t errlen)
{
    tn_fits *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    f->fd = -1;
    f->start = f->now = *start;
    f->need = rows_needed(start);
    snprintf(f->sig, sizeof f->sig, "target_sig=%s space_sig=%s", sig->target_sig, sig->space_sig);
    if (!bs_written_through(journal)) {
        size_t n = strlen(journal);
        if (!(f->path = malloc(n + 5))) {
            free(f);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        memcpy(f->path, journal, n);
        memcpy(f->path + n, ".fit", 5);
    }
    /* a new journal's record starts afresh; a resumed one's is read */
    if (f->path && resumed && !read_record(f, err, errlen)) {
        tn_fits_close(f);
        return NULL;
    }
    return f;
}

/* Appends the fit now in use after (problem, told) to the record: its
 * header first when it is new, then one line with one write(2). */
static bool record_fit(tn_fits *f, size_t problem, size_t told, char *err, size_t errlen)
{
    if (!f->path)
        return true;
    if (f->fd < 0) {
        if (f->nrec == 0 && !bs_write_atomic(f->path, write_head, f, err, errlen))
            return false;
        if ((f->fd = open(f->path, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0) {
            snprintf(err, errlen, "cannot open '%s': %s", f->path, strerror(errno));
            return false;
        }
    }
    char line[SP_TARGET_TEXT_MAX + 64];
    int k = snprintf(line, sizeof line, "%zu %zu ", problem, told);
    size_t n = (size_t)k + sp_target_print(line + k, sizeof line - (size_t)k - 1, &f->now);
    line[n++] = '\n';
    for (size_t done = 0; done < n;) {
        ssize_t w = write(f->fd, line + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, errlen, "cannot write '%s': %s", f->path, strerror(errno));
            return false;
        }
        done += (size_t)w;
    }
    return true;
}

bool tn_fits_batch(tn_fits *f, size_t problem, size_t told, const sp_problem *p,
                   const sp_candidate *cands, const size_t *idx, size_t n,
                   const ms_measurement *ms, const char *unit, bool *changed, char *err,
                   size_t errlen)
{
    *changed = false;
    for (size_t i = 0; i < n; i++) {
        const ms_measurement *m = &ms[idx[i]];
        if (m->status != MS_OK || !(m->value > 0))
            continue;
        if (f->nrows == f->caprows) {
            size_t cap = f->caprows ? 2 * f->caprows : 64;
            rs_entry *r = realloc(f->rows, cap * sizeof *r);
            if (!r) {
                snprintf(err, errlen, "out of memory");
                return false;
            }
            f->rows = r, f->caprows = cap;
        }
        rs_entry *e = &f->rows[f->nrows++];
        memset(e, 0, sizeof *e);
        e->problem = *p;
        e->config = cands[idx[i]].config;
        e->measured = m->value;
        e->line = (long)f->nrows;
        snprintf(e->target, sizeof e->target, "%s", f->start.name);
        snprintf(e->status, sizeof e->status, "ok");
        snprintf(e->unit, sizeof e->unit, "%s", unit);
    }
    /* the figures a resumed run used from here, else a fit when the rows
     * are enough (a fit that fails leaves the figures as they are) */
    for (size_t i = 0; i < f->nrec; i++)
        if (f->rec[i].problem == problem && f->rec[i].told == told) {
            *changed = !sp_target_same(&f->rec[i].t, &f->now, NULL, 0);
            f->now = f->rec[i].t;
            f->fitted_rows = f->nrows;
            /* a fit not taken is recorded as the script's figures */
            if (sp_target_same(&f->now, &f->start, NULL, 0))
                f->refused++;
            else
                f->refits++;
            return true;
        }
    size_t grown = f->fitted_rows / 4 > TN_BATCH ? f->fitted_rows / 4 : TN_BATCH;
    if (f->nrows < f->need || (f->fitted_rows && f->nrows < f->fitted_rows + grown))
        return true;
    f->fitted_rows = f->nrows;
    rs_fit_opts o = {.holdout = 0, .prior = TN_REFIT_PRIOR};
    rs_fit *fit = malloc(sizeof *fit);
    char why[512];
    if (!fit) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    if (rs_calibrate(&f->start, f->rows, f->nrows, &o, fit, why, sizeof why)) {
        /* Figures that rank the rows they were fitted to worse than the script's
         * (Spearman averaged over the shapes) lower the residuals by what the
         * rows' order does not show, such as a level each shape has of its own:
         * the search ranks by the script's figures instead. */
        bool take = fit->after.spearman >= fit->before.spearman;
        const sp_target *use = take ? &fit->target : &f->start;
        *changed = !sp_target_same(use, &f->now, NULL, 0);
        f->now = *use;
        if (take)
            f->refits++;
        else
            f->refused++;
        free(fit);
        return record_fit(f, problem, told, err, errlen);
    }
    free(fit);
    return true;
}

const sp_target *tn_fits_target(const tn_fits *f)
{
    return &f->now;
}

size_t tn_fits_count(const tn_fits *f)
{
    return f ? f->refits : 0;
}

size_t tn_fits_refused(const tn_fits *f)
{
    return f ? f->refused : 0;
}

const char *tn_fits_path(const tn_fits *f)
{
    return f && f->path ? f->path : NULL;
}

void tn_fits_rank(const tn_fits *f, const sp_problem *p, sp_candidate *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sp_model(&f->now, p, &c[i].config, &c[i].fig);
}

void tn_fits_close(tn_fits *f)
{
    if (!f)
        return;
    if (f->fd >= 0)
        close(f->fd);
    free(f->path);
    free(f->rows);
    free(f->rec);
    free(f);
}
