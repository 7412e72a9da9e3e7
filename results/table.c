/* table.c — writing files whole: a temporary file renamed into place, so no
 * reader sees half of one; the tuning table is written this way. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

bool rs_make_parents(const char *path, char *err, size_t errlen)
{
    char *dir = strdup(path);
    if (!dir) {
        snprintf(err, errlen, "cannot create the directory of '%s': out of memory", path);
        return false;
    }
    bool ok = true;
    for (char *s = dir + 1; ok && *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        struct stat st;
        if (mkdir(dir, 0777) && errno != EEXIST) {
            snprintf(err, errlen, "cannot create directory '%s': %s", dir, strerror(errno));
            ok = false;
        } else if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "cannot create directory '%s': %s", dir, strerror(ENOTDIR));
            ok = false;
        }
        *s = '/';
    }
    free(dir);
    return ok;
}

bool rs_write_atomic(const char *path, bool (*write)(FILE *f, void *ctx), void *ctx, char *err,
                     size_t errlen)
{
    if (!rs_make_parents(path, err, errlen))
        return false;
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (!tmp) {
        snprintf(err, errlen, "cannot write '%s': out of memory", path);
        return false;
    }
    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", tmp, strerror(errno));
        free(tmp);
        return false;
    }
    errno = 0;
    bool ok = write(f, ctx) && fflush(f) == 0 && !ferror(f) && fsync(fileno(f)) == 0;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path)) {
        snprintf(err, errlen, "cannot write '%s': %s", path, errno ? strerror(errno) : "write failed");
        unlink(tmp);
        free(tmp);
        return false;
    }
    free(tmp);
    return true;
}

typedef struct {
    const rs_row *rows;
    size_t n;
} table;

static bool write_table(FILE *f, void *ctx)
{
    const table *t = ctx;
    fprintf(f, "%s\n", rs_table_header);
    for (size_t i = 0; i < t->n; i++)
        rs_write_table_row(f, &t->rows[i]);
    return true;
}

bool rs_table_write(const char *path, const rs_row *rows, size_t n, char *err, size_t errlen)
{
    table t = {rows, n};
    return rs_write_atomic(path, write_table, &t, err, errlen);
}
