/* script.h — Lua tuning scripts and target tables turned into plain C structs.
 * Lua is touched only here and only from the main thread. */
#ifndef NPU_TUNE_SCRIPT_H
#define NPU_TUNE_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#include "space.h"

/* The interface: exported, where the library's other symbols are hidden (cmake/library.cmake). */
#pragma GCC visibility push(default)

#define LS_ERR_MAX 2048

/* Scripts may use this much memory unless ls_options say otherwise. */
#define LS_MEMORY_LIMIT ((size_t)1 << 30)

/* What the engine of this build can do; the script is checked against it so
 * that `measure = "sim"` in a build without the simulator is a script error
 * with file:line, not a surprise later. The DSL keeps no list of its own:
 * these are the only names it accepts. */
typedef struct {
    const char *const *measures; /* NULL-terminated, e.g. {"model", NULL} */
    const char *default_measure;
    const char *const *searches;  /* NULL-terminated */
    const char *default_search;
    bool safe;                    /* --safe: only Lua's base, string, table and math
                                   * libraries, no measure = { command = ... } */
    size_t memory_limit;          /* bytes Lua may hold; 0: LS_MEMORY_LIMIT */
    double time_cap;              /* seconds: caps script_timeout and constraint_timeout
                                   * whatever the script sets (0: no cap) */
} ls_options;

/* The `tune { ... }` block. Strings are owned by the script. */
typedef struct {
    const char *measure;  /* "model", "sim", "host" or "command" */
    const char *command;  /* the template when measure is a {command=...} */
    const char *search;
    int budget;           /* measurements per problem, >= 1 */
    const char *results;  /* journal CSV path */
    const char *table;    /* tuning table CSV path */
    unsigned long seed;
    double timeout;       /* seconds per candidate, > 0 */
    int verify;           /* check each winner's result (0: a board that cannot
                           * return C; its table rows say verified 0) */
    int calibrate;        /* refit the model to the run's measurements after each batch
                           * and rank by it: 1, 0, or -1 when the script does not say
                           * (the backend decides: ms_backend.hardware) */
    int final;            /* time the search's best again side by side, where the
                           * backend can (ms_backend.final): 1 or 0 */
    double script_timeout;     /* seconds the script file may run, > 0 */
    double constraint_timeout; /* seconds all constraint calls may take together, > 0 */
} ls_tune;

typedef struct ls_script ls_script;

/* A fresh interpreter with the DSL (target, a declaration per op such as
 * matmul, space, tune, multiples, powers_of_two, range, KiB, MiB) installed;
 * NULL only when out of memory. Lua's memory is capped (opts->memory_limit) and its time too: the script
 * file may run tune.script_timeout seconds, all constraint calls together
 * tune.constraint_timeout (Lua code only: not a __gc finalizer, during
 * which Lua turns hooks off, nor one long call of a C function). */
ls_script *ls_open(const ls_options *opts);

/* Runs a script file and checks what it declared. Returns false with a
 * message in err: "cannot open 'x.lua': No such file or directory", a
 * "file:line: ..." DSL, syntax, time or memory error (one line), or a
 * runtime error whose first line names the file (and line when Lua knows
 * it) followed by a Lua traceback. Declarations are allowed only while the
 * script file runs (not in a __gc finalizer): once this returns, nothing
 * the script does changes what it declared. */
bool ls_run_file(ls_script *s, const char *path, char *err, size_t errlen);

/* Valid after a successful ls_run_file. */
const sp_target *ls_target(const ls_script *s);
size_t ls_nproblems(const ls_script *s);
const sp_problem *ls_problem(const ls_script *s, size_t i);
const sp_space *ls_space(const ls_script *s);
const ls_tune *ls_tune_get(const ls_script *s);

/* "file:line" of a declaration, for errors found after the script ran:
 * what is "space" or "constraint" or "tune" or an op's name, its first
 * declaration (the one that declared problem i is named by ls_problem_where). */
const char *ls_where(const ls_script *s, const char *what);
const char *ls_problem_where(const ls_script *s, size_t i);

bool ls_has_constraint(const ls_script *s);

/* Calls the space's constraint on (p, c) on the calling (main) thread.
 * Returns 1 keep, 0 drop, -1 error (message with traceback in err; a
 * declaration, the time limit of all calls together or the memory limit
 * are one "file:line: ..." line). */
int ls_constraint(ls_script *s, const sp_problem *p, const sp_config *c,
                  char *err, size_t errlen);

void ls_close(ls_script *s);

/* Loads a built-in target by name ("ascend910", ...), or a target file by
 * its path (ending in ".lua"). False with "unknown target 'x' (known: ...)"
 * or the file's error in err otherwise. */
bool ls_builtin_target(const char *name, sp_target *out, char *err, size_t errlen);

/* Whether a target's name is a target file's path: it ends in ".lua". */
bool ls_target_path(const char *name);

/* Writes target t (checked first) as a target file that `target "PATH"` in a
 * script or --target PATH loads: `return { name = ..., ... }` with every
 * field of its kind, numbers exact. comment (may be NULL; lines split at
 * '\n') goes on top as Lua comments; notes[i] (notes may be NULL, an entry
 * NULL) ends the line of field sp_target_fields[i] as a comment. Written
 * to a temporary file renamed over path; false with a reason in err. */
bool ls_target_write(const char *path, const sp_target *t, const char *comment,
                     const char *const *notes, char *err, size_t errlen);

/* Comma-separated names of the built-in targets (static string). */
const char *ls_builtin_names(void);

/* Detects the host CPU as a target (kind SP_CPU); false with a reason. */
typedef bool (*ls_host_fn)(sp_target *out, char *err, size_t errlen);

/* Makes `host` a built-in target whose figures fn detects on first use (once
 * per process). Call on the main thread before running scripts; without it,
 * "host" is an unknown target. */
void ls_set_host(ls_host_fn fn);

#pragma GCC visibility pop

#endif
