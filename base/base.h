/* base.h — the plumbing every library shares, on libc alone: the monotonic
 * clock, directories made whole (mkdir -p), children run with deadlines and
 * the FNV hash. */
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

/* ---- children (spawn.c, run.c) ---- */

/* Where one of a child's standard descriptors comes from or goes to. */
typedef enum {
    BS_NULL,    /* /dev/null (the default) */
    BS_PIPE,    /* a pipe whose other end the caller reads (stdout, stderr) */
    BS_FD,      /* the caller's descriptor fd[i] (above 2) */
    BS_INHERIT, /* the caller's own */
} bs_stream;

/* A child to start: a program with its arguments (argv[0] searched in PATH
 * unless it has a '/'), or else a command line for /bin/sh -c. */
typedef struct {
    const char *const *argv; /* NULL-terminated */
    const char *shell;       /* when argv is NULL */
    bs_stream io[3];         /* stdin, stdout, stderr */
    int fd[3];               /* for BS_FD */
    bool group;              /* its own process group, so a kill reaches all it starts */
} bs_spawn_opts;

/* A started child: its pid and the caller's ends of its BS_PIPE streams
 * (fd[1] stdout, fd[2] stderr; -1 for the others). */
typedef struct {
    pid_t pid;
    int fd[3];
} bs_child;

/* Starts a child as o says, with default signal handling and nothing
 * blocked; every descriptor this makes is close-on-exec, so a child that
 * another thread starts at the same time inherits none. Returns 0, or an
 * errno value (nothing started, no descriptor left open). */
int bs_spawn(const bs_spawn_opts *o, bs_child *c);

/* Reaps child pid once it has exited, first killing what it left in its
 * process group (the leader stays a zombie until then, so the group id
 * cannot be reused). Waits until deadline (bs_now); false, nothing reaped,
 * if it still runs then. */
bool bs_reap_by(pid_t pid, double deadline, int *status);

/* Kills child pid (its whole process group when it leads one) and reaps it. */
void bs_kill_and_reap(pid_t pid);

/* What a child run by bs_run did. */
typedef struct {
    int spawn_error; /* an errno: it could not be started (or waited for); else 0 */
    bool timed_out;  /* killed at the deadline */
    bool exited;     /* exited with code; else (not timed out) killed by signal */
    int code, signal;
    char out[16384]; /* the tail of its stdout, when piped; NUL-terminated */
    size_t outlen;
    char err[4096];  /* the head of its stderr, when piped; NUL-terminated */
    size_t errlen;
} bs_result;

/* Runs a child (bs_spawn) to its end, reading its pipes meanwhile: kills it
 * (its whole group when o->group) when timeout seconds (> 0; else none)
 * have passed, and once it has exited, whatever it left running in its
 * group; output that a process outside the group still writes is read for
 * half a second more. Safe to call from several threads at once. */
void bs_run(const bs_spawn_opts *o, double timeout, bs_result *r);

/* ---- hashing (hash.c) ---- */

/* 64-bit FNV-1a: the offset basis, and h advanced over n bytes. */
#define BS_FNV_BASIS 0xcbf29ce484222325ULL
uint64_t bs_fnv(uint64_t h, const void *data, size_t n);

/* FNV-1a of n bytes as 16 lowercase hex digits (+ NUL). */
void bs_hash_hex(const void *data, size_t n, char out[17]);

#endif
