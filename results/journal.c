/* journal.c — the results journal: every measurement appended and flushed as
 * it completes, so a killed run keeps everything it measured. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct rs_journal {
    FILE *f;
    char *path;
};

rs_journal *rs_journal_create(const char *path, char *err, size_t errlen)
{
    if (!rs_make_parents(path, err, errlen))
        return NULL;
    rs_journal *j = calloc(1, sizeof *j);
    if (!j || !(j->path = strdup(path))) {
        free(j);
        snprintf(err, errlen, "cannot open '%s': out of memory", path);
        return NULL;
    }
    if (!(j->f = fopen(path, "w"))) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        free(j->path);
        free(j);
        return NULL;
    }
    fprintf(j->f, "%s\n", rs_journal_header);
    if (fflush(j->f)) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        fclose(j->f);
        free(j->path);
        free(j);
        return NULL;
    }
    return j;
}

bool rs_journal_append(rs_journal *j, const rs_row *row, char *err, size_t errlen)
{
    rs_write_journal_row(j->f, row);
    if (fflush(j->f) || ferror(j->f)) {
        snprintf(err, errlen, "cannot write '%s': %s", j->path, strerror(errno));
        return false;
    }
    return true;
}

bool rs_journal_close(rs_journal *j, char *err, size_t errlen)
{
    if (!j)
        return true;
    bool ok = !ferror(j->f);
    if (fclose(j->f))
        ok = false;
    if (!ok)
        snprintf(err, errlen, "cannot write '%s': %s", j->path, strerror(errno));
    free(j->path);
    free(j);
    return ok;
}
