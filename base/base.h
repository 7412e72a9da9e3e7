/* base.h — the plumbing every library shares, on libc alone: the monotonic
 * clock, directories made whole (mkdir -p), children run with deadlines,
 * whole files, same-file checks, the file lock, the FNV hash and CSV lines. */
#ifndef NPU_TUNE_BASE_H
#define NPU_TUNE_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The interface: exported, where the library's other symbols are hidden (cmake/library.cmake). */
#pragma GCC visibility push(default)

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

/* ---- whole files (files.c) ---- */

/* Writes a file through write(f, ctx) into a temporary file beside path
 * ("PATH.tmp.PID.N"), fsync'd, with the mode the file had (else 0666 less
 * the umask), renamed over path: a reader sees the old file or the new one,
 * whole. Directories are made; temporaries that killed writers left are
 * removed first. A symlink is written through (the file it names is
 * replaced, the link stays); an existing FIFO or device is written into
 * directly. False with a one-line reason naming path in err. */
bool bs_write_atomic(const char *path, bool (*write)(FILE *f, void *ctx), void *ctx, char *err,
                     size_t errlen);

/* Reads everything from fd into a malloc'd, NUL-terminated *buf of *len
 * bytes (the NUL not counted); false with errno set otherwise. */
bool bs_read_all(int fd, char **buf, size_t *len);

/* ---- same-file checks (paths.c) ---- */

/* A file a command reads or writes, for bs_paths_distinct: what it is to the
 * user ("script", "table", ...), its path (NULL: none), whether it is written. */
typedef struct {
    const char *what;
    const char *path;
    bool output;
} bs_file;

/* False with "WHAT 'PATH' is the WHAT2 PATH2; choose another path" in err when
 * an output of files[0..n) is the same file as an input or another output:
 * the same device and inode when both exist, else the same absolute path
 * once the existing directories are resolved (symlinks followed, also a
 * dangling one) and '.' and '..' of the rest applied. A device or FIFO is
 * written through (bs_written_through) and may be shared. */
bool bs_paths_distinct(const bs_file *files, size_t n, char *err, size_t errlen);

/* True if path exists and is neither a regular file nor a directory (a
 * device such as /dev/null, a FIFO): written through, never replaced. */
bool bs_written_through(const char *path);

/* ---- the lock of a file (lock.c) ---- */

/* Opens path for reading and appending, creating it (and its directories)
 * if missing, and takes the lock that one process at a time holds: waits
 * for another process that holds it when `wait`, else fails with "PATH is
 * in use by another npu-tune run (pid N)" and N in *holder (may be NULL).
 * The lock lasts until the process closes a descriptor of the file or dies.
 * The fd (close-on-exec), or -1 with a reason in err; *created tells
 * whether this call made the file. */
int bs_lock_open(const char *path, bool wait, long *holder, bool *created, char *err,
                 size_t errlen);

/* ---- hashing (hash.c) ---- */

/* ---- a growing string (buf.c) ---- */

/* Starts as {0}; s is NUL-terminated once anything was added; oom once an
 * append ran out of memory (later appends do nothing). Free s when done. */
typedef struct {
    char *s;
    size_t len, cap;
    bool oom;
} bs_buf;
/* Appends n bytes of p. */
void bs_buf_add(bs_buf *b, const void *p, size_t n);
/* Appends the formatted text. */
void bs_buf_printf(bs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 64-bit FNV-1a: the offset basis, and h advanced over n bytes. */
#define BS_FNV_BASIS 0xcbf29ce484222325ULL
uint64_t bs_fnv(uint64_t h, const void *data, size_t n);

/* FNV-1a of n bytes as 16 lowercase hex digits (+ NUL). */
void bs_hash_hex(const void *data, size_t n, char out[17]);

/* ---- CSV without quoting (csv.c) ---- */

/* Splits line at commas, in place, into fields f[0..max); returns how many
 * fields the line has (more than max: the rest are counted, not stored).
 * An empty line is one empty field. */
int bs_csv_split(char *line, char **f, int max);

/* Joins fields f[0..n) (NULL: empty) with commas into a line ending in
 * '\n', like snprintf: returns the length it needs, whatever len is. */
size_t bs_csv_join(char *buf, size_t len, const char *const *f, int n);

/* True if s is non-empty and has no comma, quote or line break: a value an
 * unquoted CSV field can hold. */
bool bs_csv_safe(const char *s);

/* The shortest text that reads back (strtod) as the same double: whole
 * numbers in full, others with 15 to 17 significant digits; "" for a value
 * that is not finite. */
void bs_csv_number(char *buf, size_t len, double v);

#pragma GCC visibility pop

#endif
