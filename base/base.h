/* base.h — the plumbing every library shares, on libc alone: the monotonic
 * clock, directories made whole (mkdir -p) and the FNV hash. */
#ifndef NPU_TUNE_BASE_H
#define NPU_TUNE_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* ---- the clock (clock.c) ---- */

/* Seconds of the monotonic clock: for intervals and deadlines only. */
double bs_now(void);

/* ---- directories (dirs.c) ---- */

/* mkdir -p dir: every missing directory of it made; false with "cannot
 * create directory 'D': why" (D the first that failed) in err. */
bool bs_mkdirs(const char *dir, char *err, size_t errlen);

/* bs_mkdirs of the directory part of path (nothing when it has no '/'). */
bool bs_make_parents(const char *path, char *err, size_t errlen);

/* ---- hashing (hash.c) ---- */

/* 64-bit FNV-1a: the offset basis, and h advanced over n bytes. */
#define BS_FNV_BASIS 0xcbf29ce484222325ULL
uint64_t bs_fnv(uint64_t h, const void *data, size_t n);

/* FNV-1a of n bytes as 16 lowercase hex digits (+ NUL). */
void bs_hash_hex(const void *data, size_t n, char out[17]);

#endif
