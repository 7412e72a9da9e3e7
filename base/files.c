/* files.c — files written whole (a temporary file renamed into place, so a
 * kill never leaves half a file) and files read whole. */
#define _DEFAULT_SOURCE /* realpath(path, NULL), fchmod, strndup */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

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

bool bs_write_atomic(const char *path, bool (*write)(FILE *f, void *ctx), void *ctx, char *err,
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
    static atomic_uint serial; /* with the pid: no two writers share a temporary */
    snprintf(tmp, strlen(dest) + 40, "%s.tmp.%ld.%u", dest, (long)getpid(),
             atomic_fetch_add(&serial, 1));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); /* the umask applies */
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
    if (!ok)
        unlink(tmp);
    free(dest), free(tmp);
    return ok;
}

bool bs_read_all(int fd, char **buf, size_t *len)
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
