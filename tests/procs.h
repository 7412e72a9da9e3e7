/* procs.h — for the tests that start processes: whether a process is gone,
 * given the moment its killer and its reaper take. */
#ifndef NPU_TUNE_TEST_PROCS_H
#define NPU_TUNE_TEST_PROCS_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* True once pid is gone (or a zombie awaiting its reaper), waiting up to 2 s. */
static inline bool process_gone(long pid)
{
    for (int i = 0; pid > 0 && i < 200; i++) {
        if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
            return true;
        char path[64], stat[256] = "";
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        if (f) {
            size_t n = fread(stat, 1, sizeof stat - 1, f);
            stat[n] = '\0';
            fclose(f);
            const char *paren = strrchr(stat, ')');
            if (paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X'))
                return true;
        }
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    return pid <= 0;
}

#endif
