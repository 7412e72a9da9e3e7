/* internal.h — private pieces shared by the lua/ sources: the script state,
 * the DSL error raiser, value converters and the target table reader. */
#ifndef NPU_TUNE_LUA_INTERNAL_H
#define NPU_TUNE_LUA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lua.h>

#include "script.h"

#define LS_WHERE_MAX 96           /* "file:line"; Lua shortens file to 60 chars */
#define LS_DSL_ERROR "npu_tune.dsl_error"   /* registry: metatable of DSL errors */
#define LS_TARGETS "npu_tune.targets"       /* registry: built-in target tables */

/* What Lua runs for: declarations are allowed only in LS_SCRIPT; each phase
 * but LS_IDLE has a time limit. */
typedef enum { LS_IDLE, LS_SCRIPT, LS_CONSTRAINT } ls_phase;

#define LS_MAX_PROBLEMS 10000     /* problems a script may declare in all */

struct ls_script {
    lua_State *L;
    ls_options opts;
    char *path;                      /* script being run, NULL outside ls_run_file */

    ls_phase phase;
    const char *declaring;           /* the declaration running ("space"), or NULL */
    /* An error Lua may swallow (raised in a __gc finalizer, which only warns):
     * the first one, reported when the phase ends. */
    char late[LS_ERR_MAX];
    double clock_start;              /* monotonic seconds when the phase began */
    double constraint_spent;         /* seconds the constraint calls took so far */
    bool expired;                    /* the phase ran out of time */
    size_t mem_used;                 /* bytes Lua holds */
    bool mem_hit;                    /* an allocation went beyond opts.memory_limit */
    char mem_where[LS_WHERE_MAX];    /* the Lua code that asked for it */

    bool have_target;
    sp_target target;
    char target_where[LS_WHERE_MAX];

    sp_problem *problems;
    char (*problem_where)[LS_WHERE_MAX];
    size_t nproblems, cap;

    bool have_space;
    sp_space space;
    char space_where[LS_WHERE_MAX];
    int constraint_ref;              /* LUA_NOREF when no constraint */
    char constraint_where[LS_WHERE_MAX];

    bool have_tune;
    bool measure_given;              /* tune named a measure (else the target's default) */
    ls_tune tune;                    /* strings are malloc'd, owned here */
    char tune_where[LS_WHERE_MAX];

    int config_ref;                  /* the table reused for constraint calls */
};

/* ---- kinds.c ---- */

/* Reconciles what the script declared with its target's kind: an unset
 * dtype and measure become the kind's own (fp16 + "sim" on an NPU, fp32 +
 * "host" on a CPU, where the build has it; a default "model" stays); a dtype
 * the target cannot compute, micro-tiles on a kind without them or beyond
 * the registers, the measure of another kind, and a dtype the kind's
 * kernels do not take under a measure other than the model are
 * "file:line: what: message" errors. */
bool ls_check_kinds(ls_script *s, char *err, size_t errlen);

/* ---- dsl.c ---- */

/* Installs target, one declaration per op (matmul, ...), space and tune as
 * globals and the DSL error metatable; the script is found through ls_script_of. */
void ls_dsl_install(lua_State *L);

/* Writes "file:line" of the innermost Lua code (above the running C
 * function) with a current line into buf; the running script's path alone
 * when there is none, "" outside a script. */
void ls_where_here(lua_State *L, char buf[LS_WHERE_MAX]);

/* "file:line" of the innermost Lua code at or above stack level `level`
 * (0: the running function) with a current line into buf; false (buf
 * untouched) when there is none. Allocates nothing. */
bool ls_where_from(lua_State *L, int level, char buf[LS_WHERE_MAX]);

/* Frees the space of s and sets the defaults (all strategies, empty m/n/k
 * axes, double_buffer off, cores {1}, split M, no constraint). False only
 * when out of memory. */
bool ls_space_reset(ls_script *s);

/* Frees the tune strings of s and sets the defaults from the options and
 * the script path. False only when out of memory. */
bool ls_tune_reset(ls_script *s);

/* Raises a DSL error: an object the message handler passes through without a
 * traceback, carrying "file:line: fn: message" (no "fn: " when fn is NULL).
 * The location is that of the Lua code calling the running C function. */
#if defined(__GNUC__)
__attribute__((noreturn, format(printf, 3, 4)))
#endif
int ls_fail(lua_State *L, const char *fn, const char *fmt, ...);

/* Raises a DSL error with the message "where: msg" (no "where: " when where
 * is empty); a copy goes to s->late (when empty) if Lua may swallow it. */
#if defined(__GNUC__)
__attribute__((noreturn))
#endif
int ls_raise(lua_State *L, const char *where, const char *msg);

/* True if the value at idx is a DSL error object; *msg gets its text. */
bool ls_is_dsl_error(lua_State *L, int idx, const char **msg);

/* The candidate nearest to word within edit distance 2 (and shorter than the
 * word itself), or NULL. */
const char *ls_suggest(const char *word, const char *const *cands, size_t n);

/* True when Lua code on the stack of L runs as a __gc finalizer. */
bool ls_in_finalizer(lua_State *L);

/* ---- limits.c ---- */

/* A new Lua state for s: its allocator keeps s->mem_used within the memory
 * limit, and an instruction-count hook stops code that runs beyond the time
 * limit of the current phase. NULL when out of memory. */
lua_State *ls_state_new(ls_script *s);

/* The script of L (any of its threads). */
ls_script *ls_script_of(lua_State *L);

/* Starts phase p (its clock, a fresh memory report and late error); the
 * time of all LS_CONSTRAINT phases adds up. */
void ls_phase_begin(ls_script *s, ls_phase p);

/* Ends the phase (back to LS_IDLE). */
void ls_phase_end(ls_script *s);

/* "where: not enough memory (a script may use at most 32 MiB)" into buf:
 * where the allocation failed (the script's path when Lua had no line). */
void ls_memory_error(const ls_script *s, char *buf, size_t len);

/* ---- libs.c ---- */

/* Opens the libraries a script gets: all of Lua's, or with opts.safe only
 * base (without dofile and loadfile; load takes text only), string, table
 * and math; reading a global of the others is a DSL error naming --safe. */
void ls_libs_open(lua_State *L, bool safe);

/* ---- values.c ---- */

/* Installs multiples, powers_of_two, range, KiB and MiB as globals. */
void ls_values_install(lua_State *L);

/* True if the value at idx is a number with an integral value (floats such
 * as 2^10 count) that fits lua_Integer; *out gets it. Strings never count. */
bool ls_get_int(lua_State *L, int idx, lua_Integer *out);

/* A short description of the value at idx for messages: -16, 1.5, 'abc',
 * true, a table. */
const char *ls_describe(lua_State *L, int idx, char *buf, size_t len);

/* Checks that the value at idx is an integer or a list of integers in
 * [1, SP_VALUE_MAX] and stores them sorted and distinct in *out (freeing
 * what *out held). Raises "fn: 'key' ..." DSL errors. */
void ls_axis_read(lua_State *L, int idx, const char *fn, const char *key, sp_axis *out);

/* Checks that the table at idx is a list (keys 1..n only) of at most
 * SP_VALUE_MAX items and returns n; raises "fn: 'key' must be a list (found
 * key x)" or "fn: 'key' has more than 1048576 items" otherwise. */
size_t ls_list_len(lua_State *L, int idx, const char *fn, const char *key);

/* Frees an axis and leaves it empty. */
void ls_axis_free(sp_axis *a);

/* ---- target.c ---- */

/* Reads the target table at idx into *t (fields not in the table are left
 * as they are). With complete, every field must be present. The top-level
 * key `skip` (if not NULL) is ignored. On failure writes a message such as
 * "field 'l0c' is missing" into err and returns false; raises only on
 * memory errors. */
bool ls_target_read(lua_State *L, int idx, sp_target *t, bool complete,
                    const char *skip, char *err, size_t errlen);

/* Runs the embedded targets.lua and stores its table in the registry under
 * LS_TARGETS. False with a message in err on failure. */
bool ls_targets_load(lua_State *L, char *err, size_t errlen);

/* Reads built-in target `name` from the registry table of L into *out and
 * checks it. False with "unknown target 'x' (known: a, b)" or another
 * message in err. */
bool ls_builtin_read(lua_State *L, const char *name, sp_target *out, char *err, size_t errlen);

/* Reads a script's target table at idx (target.c): every field, or `base`
 * naming a built-in target or a target file and the fields it changes
 * (named BASE-custom unless the table names it); not checked
 * (sp_target_check). False with a message in err. */
bool ls_target_table(lua_State *L, int idx, sp_target *out, char *err, size_t errlen);

/* ---- target files (target_file.c) ---- */

/* Reads the target table the file at path returns (run with only KiB and
 * MiB, at most 1 MiB of text and a million Lua instructions), as
 * ls_target_table does; a file's `base` is a built-in target. False with
 * "cannot open 'x.lua': ...", "x.lua:3: ..." or "x.lua: field ..." in err. */
bool ls_target_file_read(lua_State *L, const char *path, sp_target *out, char *err,
                         size_t errlen);

#endif
