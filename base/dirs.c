/* dirs.c — mkdir -p: a directory with all its missing parents, or the parents
 * of a file about to be written. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base.h"

/* Makes every directory of path that ends at a '/' and, when `whole`, path
 * itself; each must be a directory afterwards. */
static bool make(const char *path, bool whole, char *err, size_t errlen)
{
    char *d = strdup(path);
    if (!d) {
        snprintf(err, errlen, "cannot create the directories of '%s': out of memory", path);
        return false;
    }
    bool ok = true;
    size_t n = strlen(d);
    for (size_t i = 1; ok && i <= n; i++) {
        if (d[i] != '/' && !(whole && d[i] == '\0'))
            continue;
        char saved = d[i];
        d[i] = '\0';
        struct stat st;
        if (mkdir(d, 0777) && errno != EEXIST) {
            snprintf(err, errlen, "cannot create directory '%s': %s", d, strerror(errno));
            ok = false;
        } else if (stat(d, &st) || !S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "cannot create directory '%s': %s", d, strerror(ENOTDIR));
            ok = false;
        }
        d[i] = saved;
    }
    free(d);
    return ok;
}

bool bs_mkdirs(const char *dir, char *err, size_t errlen)
{
    return make(dir, true, err, errlen);
}

bool bs_make_parents(const char *path, char *err, size_t errlen)
{
    return make(path, false, err, errlen);
}
