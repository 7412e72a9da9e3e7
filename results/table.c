/* table.c — files written whole (a temporary file renamed into place) and the
 * tuning table: its signature line, strict reading, and picking an entry. */
#define _DEFAULT_SOURCE /* realpath(path, NULL), fchmod */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "internal.h"

/* Where a write to path lands: path itself, or for a symlink the file it
 * names, which need not exist yet (so the link survives); malloc'd, NULL
 * when out of memory. */
static char *write_target(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
        return strdup(path);
    char *real = realpath(path, NULL);
    if (real)
        return real;
    char link[4096]; /* a dangling link: its text, relative to its directory */
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0)
        return strdup(path);
    link[n] = '\0';
    const char *slash = strrchr(path, '/');
    size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - path) + 1;
    char *dest = malloc(dir + (size_t)n + 1);
    if (dest)
        memcpy(dest, path, dir), memcpy(dest + dir, link, (size_t)n + 1);
    return dest;
}

/* Removes the temporaries "DEST.tmp.PID.N" that writers of dest which no
 * longer run left behind (killed between writing and renaming); a live
 * writer's stay. Best effort: nothing is reported. */
static void drop_stale(const char *dest)
{
    const char *slash = strrchr(dest, '/');
    size_t dlen = slash ? (size_t)(slash - dest) + 1 : 0;
    char *dir = dlen ? strndup(dest, dlen) : strdup(".");
    DIR *d = dir ? opendir(dir) : NULL;
    const char *base = dest + dlen;
    size_t blen = strlen(base);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, base, blen) != 0 || strncmp(e->d_name + blen, ".tmp.", 5) != 0)
            continue;
        char *end;
        long pid = strtol(e->d_name + blen + 5, &end, 10);
        if (end == e->d_name + blen + 5 || *end != '.' || pid <= 0 || (pid_t)pid == getpid() ||
            kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char *stale = malloc(dlen + strlen(e->d_name) + 1);
        if (stale) {
            memcpy(stale, dest, dlen);
            strcpy(stale + dlen, e->d_name);
            unlink(stale);
            free(stale);
        }
    }
    if (d)
        closedir(d);
    free(dir);
}

/* Runs write on f, flushes, fsyncs when `sync`, and closes f (always);
 * false with "cannot write 'PATH': why" in err on any failure. */
static bool write_close(FILE *f, bool sync, const char *path,
                        bool (*write)(FILE *f, void *ctx), void *ctx, char *err, size_t errlen)
{
    errno = 0;
    bool ok = write(f, ctx) && fflush(f) == 0 && !ferror(f) && (!sync || fsync(fileno(f)) == 0);
    ok = fclose(f) == 0 && ok;
    if (!ok)
        snprintf(err, errlen, "cannot write '%s': %s", path, errno ? strerror(errno) : "write failed");
    return ok;
}

/* Writes into an existing FIFO, device or the like, which cannot be
 * replaced: directly, as far as it takes. */
static bool write_through(const char *path, bool (*write)(FILE *f, void *ctx), void *ctx,
                          char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return false;
    }
    return write_close(f, false, path, write, ctx, err, errlen);
}

/* A temporary file of a unique name beside path ("PATH.tmp.PID.N", so two
 * processes writing one path never share it), fsync'd, given the mode the
 * file has (else 0666 less the umask), renamed over path; temporaries of
 * writers killed before their rename are removed first. A file that is not
 * a regular one (a FIFO, /dev/stdout) is written directly; a symlink is
 * written through. */
bool rs_write_atomic(const char *path, bool (*write)(FILE *f, void *ctx), void *ctx, char *err,
                     size_t errlen)
{
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(EISDIR));
        return false;
    }
    if (exists && !S_ISREG(st.st_mode))
        return write_through(path, write, ctx, err, errlen);
    char *dest = write_target(path), *tmp = dest ? malloc(strlen(dest) + 40) : NULL;
    if (!tmp) {
        snprintf(err, errlen, "cannot write '%s': out of memory", path);
        free(dest);
        return false;
    }
    if (!bs_make_parents(dest, err, errlen)) {
        free(dest), free(tmp);
        return false;
    }
    drop_stale(dest);
    static unsigned serial; /* main thread only, like every file write */
    snprintf(tmp, strlen(dest) + 40, "%s.tmp.%ld.%u", dest, (long)getpid(), serial++);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666); /* the umask applies */
    FILE *f = fd < 0 || (exists && fchmod(fd, st.st_mode & 07777) != 0) ? NULL : fdopen(fd, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        if (fd >= 0)
            close(fd), unlink(tmp);
        free(dest), free(tmp);
        return false;
    }
    bool ok = write_close(f, true, path, write, ctx, err, errlen);
    if (ok && rename(tmp, dest) != 0) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        ok = false;
    }
    if (!ok) {
        unlink(tmp);
        free(dest), free(tmp);
        return false;
    }
    free(dest), free(tmp);
    return true;
}

/* The whole file behind fd, NUL-terminated. */
bool rs_read_all(int fd, char **buf, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    if (!b) {
        errno = ENOMEM;
        return false;
    }
    for (;;) {
        if (cap - n < 2) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                errno = ENOMEM;
                return false;
            }
            b = nb;
        }
        ssize_t r = read(fd, b + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            free(b);
            errno = e;
            return false;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return true;
}

/* ---- writing ---- */

static const char table_magic[] = "# npu-tune table ";
/* The format written; format 1, without the last column (verified), is read too. */
enum { TABLE_FORMAT = 2 };

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
    const rs_row *rows;
    size_t n;
} table;

static bool write_table(FILE *f, void *ctx)
{
    const table *t = ctx;
    fprintf(f, "%s%d", table_magic, TABLE_FORMAT);
    for (size_t i = 0; i < NSIG_KEYS; i++)
        fprintf(f, " %s=%s", sig_keys[i].key,
                t->sig ? (const char *)t->sig + sig_keys[i].off : "");
    fprintf(f, "\n%s\n", rs_table_header);
    char small[512];
    for (size_t i = 0; i < t->n; i++) {
        size_t len = rs_format_row(small, sizeof small, &t->rows[i], false);
        char *b = len < sizeof small ? small : malloc(len + 1);
        if (!b)
            return false;
        if (b != small)
            rs_format_row(b, len + 1, &t->rows[i], false);
        fwrite(b, 1, len, f);
        if (b != small)
            free(b);
    }
    return true;
}

/* Checks the signature and rows (measured, of one unit), then writes the
 * table atomically. */
bool rs_table_write(const char *path, const rs_signature *sig, const rs_row *rows, size_t n,
                    char *err, size_t errlen)
{
    for (size_t i = 0; sig && i < NSIG_KEYS; i++) {
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
        if (strcmp(rows[i].unit, rows[0].unit) != 0) {
            snprintf(err, errlen,
                     "cannot write '%s': row %zu (problem '%s') is in %s, row 1 in %s; a table "
                     "holds one unit",
                     path, i + 1, rows[i].problem->name, rows[i].unit, rows[0].unit);
            return false;
        }
    }
    table t = {sig, rows, n};
    return rs_write_atomic(path, write_table, &t, err, errlen);
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

static bool read_table(const char *path, char *buf, size_t len, rs_entry **out, size_t *nout,
                       rs_signature *sig, char *err, size_t errlen)
{
    char *end = buf + len, *line = buf, *nl;
    size_t cap = 0, n = 0;
    rs_entry *e = NULL;
    size_t mlen = strlen(table_magic);
    if (len < mlen || memcmp(buf, table_magic, mlen) != 0) {
        snprintf(err, errlen, "%s:1: not an npu-tune table (no '# npu-tune table' line)", path);
        return false;
    }
    long lineno = 1;
    int format = TABLE_FORMAT;
    for (; line < end; line = nl + 1, lineno++) {
        if (!(nl = memchr(line, '\n', (size_t)(end - line)))) {
            snprintf(err, errlen, "%s:%ld: the last line is cut off (no newline at its end)",
                     path, lineno);
            goto fail;
        }
        *nl = '\0';
        if (lineno == 1) {
            if (!read_sig_line(path, line + mlen, sig, &format, err, errlen))
                goto fail;
            continue;
        }
        if (lineno == 2) {
            size_t cols = strlen(rs_table_header) - (format == 1 ? strlen(",verified") : 0);
            if (strlen(line) != cols || strncmp(line, rs_table_header, cols) != 0) {
                snprintf(err, errlen, "%s:2: columns are not the tuning table's", path);
                goto fail;
            }
            continue;
        }
        if (n == cap) {
            rs_entry *ne = realloc(e, (cap = cap ? cap * 2 : 16) * sizeof *e);
            if (!ne) {
                snprintf(err, errlen, "%s:%ld: out of memory", path, lineno);
                goto fail;
            }
            e = ne;
        }
        if (!rs_parse_table_row(line, format, &e[n], path, lineno, err, errlen))
            goto fail;
        if (sig->target[0] && strcmp(e[n].target, sig->target) != 0) {
            snprintf(err, errlen, "%s:%ld: target '%s' is not the table's, '%s' (line 1)", path,
                     lineno, e[n].target, sig->target);
            goto fail;
        }
        n++;
    }
    if (lineno < 3) {
        snprintf(err, errlen, "%s:2: columns are not the tuning table's", path);
        goto fail;
    }
    *out = e;
    *nout = n;
    return true;
fail:
    free(e);
    return false;
}

/* All or nothing: entries only when every line is well-formed. */
bool rs_table_read(const char *path, rs_entry **entries, size_t *n, rs_signature *sig,
                   char *err, size_t errlen)
{
    *entries = NULL;
    *n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char *buf;
    size_t len;
    if (fd < 0) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return false;
    }
    if (!rs_read_all(fd, &buf, &len)) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
        return false;
    }
    close(fd);
    rs_signature ignored;
    bool ok = read_table(path, buf, len, entries, n, sig ? sig : &ignored, err, errlen);
    free(buf);
    return ok;
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

/* Exact shape first, then the nearest entry sp_check accepts. */
const rs_entry *rs_table_pick(const rs_entry *e, size_t n, const sp_target *t,
                              const sp_problem *p, bool *exact)
{
    const rs_entry *best = NULL;
    double best_d = 0;
    *exact = false;
    for (size_t i = 0; i < n; i++) {
        const sp_problem *q = &e[i].problem;
        if (q->dtype != p->dtype || strcmp(e[i].target, t->name) != 0)
            continue;
        if (q->M == p->M && q->N == p->N && q->K == p->K && q->batch == p->batch) {
            *exact = true;
            return &e[i];
        }
    }
    for (size_t i = 0; i < n; i++) {
        const sp_problem *q = &e[i].problem;
        if (q->dtype != p->dtype || strcmp(e[i].target, t->name) != 0 ||
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
