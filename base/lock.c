/* lock.c — one process per file (a run's journal): the file opened with a kernel
 * lock on its descriptor (fcntl), held until closed or the process dies, even by kill -9. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

/* Opening and locking path again after it was replaced or removed while
 * this process waited for it, at most this many times. */
enum { MAX_REOPEN = 100 };

/* A POSIX record lock (not flock, not an open file description lock): only
 * it tells another process the holder's pid (F_GETLK). It is released when
 * this process closes any descriptor of the file: its caller opens the
 * file nowhere else. */
int bs_lock_open(const char *path, bool wait, long *holder, bool *created, char *err,
                 size_t errlen)
{
    *created = false;
    if (holder)
        *holder = 0;
    for (int attempt = 0; attempt < MAX_REOPEN; attempt++) {
        bool made = false;
        int fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT) {
            if (!bs_make_parents(path, err, errlen))
                return -1;
            fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            made = fd >= 0;
            if (fd < 0 && errno == EEXIST)
                continue; /* another process made it first */
        }
        if (fd < 0) {
            snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
            return -1;
        }
        struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET}; /* the whole file */
        while (fcntl(fd, wait ? F_SETLKW : F_SETLK, &l) != 0) {
            if (errno == EINTR)
                continue;
            struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
            bool busy = !wait && (errno == EAGAIN || errno == EACCES);
            int why = errno;
            if (busy && fcntl(fd, F_GETLK, &q) == 0 && q.l_type == F_UNLCK)
                continue; /* released in between */
            if (busy) {
                if (holder)
                    *holder = (long)q.l_pid;
                snprintf(err, errlen, "%s is in use by another npu-tune run (pid %ld)", path,
                         (long)q.l_pid);
            } else {
                snprintf(err, errlen, "cannot lock '%s': %s", path, strerror(why));
            }
            close(fd);
            return -1;
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
            a.st_ino == b.st_ino) {
            *created = made;
            return fd;
        }
        close(fd); /* moved away or removed while it was locked: lock what path is now */
    }
    snprintf(err, errlen, "cannot lock '%s': it keeps being replaced", path);
    return -1;
}
