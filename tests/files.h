/* files.h — small file helpers for the tests that read and write results
 * files: whole-file read, write with a mode, globbing, a scratch dir and its paths. */
#ifndef NPU_TUNE_TEST_FILES_H
#define NPU_TUNE_TEST_FILES_H

#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

/* The whole file (static buffer; "" if missing). */
static inline const char *slurp(const char *path)
{
    static char buf[1 << 16];
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return buf;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Writes (mode "w") or appends (mode "a") text to path. */
static inline void put_mode(const char *path, const char *text, const char *mode)
{
    FILE *f = fopen(path, mode);
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Whether any file matches the glob pattern (a temporary left behind). */
static inline bool any_file(const char *pattern)
{
    glob_t g;
    bool any = glob(pattern, 0, NULL, &g) == 0;
    globfree(&g);
    return any;
}

/* Removes the scratch directory dir with all in it. */
static inline void remove_tree(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

/* dir/name in one of 8 rotating static buffers. */
static inline const char *path_in(const char *dir, const char *name)
{
    static char paths[8][512];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 512, "%s/%s", dir, name);
    return p;
}

#endif
