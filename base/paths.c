/* paths.c — which file a path names, for refusing an output that is an input or
 * another output of the same command (same inode, or the same path once resolved). */
#define _DEFAULT_SOURCE /* realpath(path, NULL), readlink */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

/* Symlinks followed while resolving one path, as the kernel's limit. */
enum { MAX_LINKS = 40 };

/* A path's file: its device and inode when it exists, else the absolute
 * path it will have (malloc'd); shared for a device or FIFO. */
typedef struct {
    bool exists, shared;
    dev_t dev;
    ino_t ino;
    char *name;
} ident;

bool bs_written_through(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Appends "/" and n bytes of c to the malloc'd *s; false when out of memory. */
static bool append(char **s, const char *c, size_t n)
{
    size_t len = strlen(*s);
    char *t = realloc(*s, len + n + 2);
    if (!t)
        return false;
    t[len] = '/';
    memcpy(t + len + 1, c, n);
    t[len + n + 1] = '\0';
    *s = t;
    return true;
}

/* The absolute path a write to `path` (which does not exist) creates: the
 * existing directories resolved by realpath (symlinks followed), a dangling
 * symlink's text followed, '.' and '..' of the rest applied by name, as
 * bs_make_parents creates them (links that loop: path as it is). NULL when
 * out of memory. */
static char *future(const char *path, int links)
{
    char *res, cwd[PATH_MAX];
    if (path[0] == '/')
        res = strdup("");
    else if (getcwd(cwd, sizeof cwd))
        res = strdup(strcmp(cwd, "/") ? cwd : "");
    else
        return NULL;
    size_t real = res ? strlen(res) : 0; /* res[0..real) exists and is resolved */
    for (const char *s = path; res && *s;) {
        size_t n = strcspn(s, "/"), parent = strlen(res);
        const char *c = s;
        s += n + (s[n] == '/');
        if (n == 0 || (n == 1 && c[0] == '.'))
            continue;
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            *(strrchr(res, '/') ? strrchr(res, '/') : res) = '\0';
            if (strlen(res) < real)
                real = strlen(res);
            continue;
        }
        if (!append(&res, c, n)) {
            free(res);
            return NULL;
        }
        if (parent > real)
            continue; /* under a directory still to be made */
        char *r = realpath(res, NULL), link[PATH_MAX];
        ssize_t len;
        if (r) {
            free(res);
            res = r;
            real = strlen(res);
        } else if ((len = readlink(res, link, sizeof link - 1)) > 0) {
            /* a dangling link: its text, then the rest, from its directory */
            link[len] = '\0';
            res[parent] = '\0';
            size_t size = strlen(res) + (size_t)len + strlen(s) + 3;
            if (links >= MAX_LINKS) { /* a loop: the write fails anyway; the name stands */
                free(res);
                return strdup(path);
            }
            char *next = malloc(size);
            if (next)
                snprintf(next, size, "%s%s%s%s%s", link[0] == '/' ? "" : res,
                         link[0] == '/' ? "" : "/", link, *s ? "/" : "", s);
            free(res);
            res = next ? future(next, links + 1) : NULL;
            free(next);
            return res;
        }
    }
    if (res && !*res) { /* the root */
        free(res);
        res = strdup("/");
    }
    return res;
}

/* Fills id for path; false when out of memory. */
static bool identify(const char *path, ident *id)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        id->exists = true;
        id->shared = !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        return true;
    }
    return (id->name = future(path, 0)) != NULL;
}

static bool same_file(const ident *a, const ident *b)
{
    if (a->shared || b->shared || a->exists != b->exists)
        return false;
    return a->exists ? a->dev == b->dev && a->ino == b->ino : strcmp(a->name, b->name) == 0;
}

/* Every pair with an output in it; the message names the (later) output
 * first. */
bool bs_paths_distinct(const bs_file *f, size_t n, char *err, size_t errlen)
{
    ident *id = calloc(n ? n : 1, sizeof *id);
    bool ok = id != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = !f[i].path || identify(f[i].path, &id[i]);
    if (!ok)
        snprintf(err, errlen, "out of memory");
    for (size_t i = 0; ok && i < n; i++)
        for (size_t j = 0; ok && j < i; j++) {
            if (!f[i].path || !f[j].path || !(f[i].output || f[j].output) ||
                !same_file(&id[i], &id[j]))
                continue;
            const bs_file *a = f[i].output ? &f[i] : &f[j], *b = a == &f[i] ? &f[j] : &f[i];
            snprintf(err, errlen, "%s '%s' is the %s %s; choose another path", a->what, a->path,
                     b->what, b->path);
            ok = false;
        }
    for (size_t i = 0; id && i < n; i++)
        free(id[i].name);
    free(id);
    return ok;
}
