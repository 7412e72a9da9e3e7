/* fuzz.h — what the libFuzzer harnesses share: a scratch directory of their
 * own, whole-file writes and reads in it, and a check that aborts (a finding). */
#ifndef NPU_TUNE_FUZZ_H
#define NPU_TUNE_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A property the input broke: the message and abort(), which libFuzzer
 * reports as a crash with the input saved. */
#define FZ_CHECK(cond)                                                                   \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                     \
        }                                                                                \
    } while (0)

static char fz_dir[512];

static inline void fz_cleanup(void)
{
    char cmd[sizeof fz_dir + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fz_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz: cannot remove %s\n", fz_dir);
}

/* dir/name in the scratch directory, made on first use in $TMPDIR, else in
 * /dev/shm (memory: a file rewritten on a disk file system can take
 * milliseconds), else /tmp, and removed at exit; the result lives until the
 * next call with the same slot (0..3). */
static inline const char *fz_path(int slot, const char *name)
{
    static char paths[4][sizeof fz_dir + 64];
    if (!fz_dir[0]) {
        const char *base = getenv("TMPDIR");
        if (!base || !*base)
            base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(fz_dir, sizeof fz_dir, "%s/npu-tune-fuzz-XXXXXX", base);
        if (!mkdtemp(fz_dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(fz_cleanup);
    }
    snprintf(paths[slot], sizeof paths[slot], "%s/%s", fz_dir, name);
    return paths[slot];
}

/* Replaces the file at path with n bytes of d. */
static inline void fz_write(const char *path, const uint8_t *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    FZ_CHECK(f != NULL);
    FZ_CHECK(fwrite(d, 1, n, f) == n);
    FZ_CHECK(fclose(f) == 0);
}

/* The whole file at path (malloc'd, *n bytes), or NULL if there is none. */
static inline uint8_t *fz_read(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    uint8_t *b = malloc(cap);
    FZ_CHECK(b != NULL);
    for (size_t got; (got = fread(b + len, 1, cap - len, f)) > 0;) {
        len += got;
        if (len == cap) {
            b = realloc(b, cap *= 2);
            FZ_CHECK(b != NULL);
        }
    }
    FZ_CHECK(!ferror(f));
    fclose(f);
    *n = len;
    return b;
}

#endif
