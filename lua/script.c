/* script.c — the interpreter of tuning scripts: opens Lua with the DSL, runs
 * a script file, checks what it declared and calls the space's constraint. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "internal.h"

/* Without options: the model, which every build has, measures and searches. */
static const char *const model_only[] = {"model", NULL};

/* Runs in protected mode: an out-of-memory error cannot panic. */
static int setup(lua_State *L)
{
    ls_script *s = lua_touserdata(L, 1);
    ls_libs_open(L, s->opts.safe);
    ls_values_install(L);
    ls_dsl_install(L);
    char err[LS_ERR_MAX];
    if (!ls_targets_load(L, err, sizeof err))
        return luaL_error(L, "%s", err);
    lua_createtable(L, 0, 14);
    s->config_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

/* A fresh interpreter; opts (or, when NULL, the model as the only measure
 * and search) must outlive the script. */
ls_script *ls_open(const ls_options *opts)
{
    ls_script *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->constraint_ref = LUA_NOREF;
    s->config_ref = LUA_NOREF;
    if (opts)
        s->opts = *opts;
    if (!s->opts.measures)
        s->opts.measures = model_only;
    if (!s->opts.searches)
        s->opts.searches = model_only;
    s->L = ls_state_new(s);
    if (!s->L) {
        free(s);
        return NULL;
    }
    lua_pushcfunction(s->L, setup);
    lua_pushlightuserdata(s->L, s);
    if (lua_pcall(s->L, 1, 0, 0) != LUA_OK || !ls_space_reset(s) || !ls_tune_reset(s)) {
        ls_close(s);
        return NULL;
    }
    return s;
}

/* True if the first line of msg names a place as Lua writes it, "x.lua:3:". */
static bool has_place(const char *msg)
{
    for (const char *p = msg; *p && *p != '\n'; p++)
        if (p[0] == ':' && p[1] >= '0' && p[1] <= '9') {
            const char *q = p + 1;
            while (*q >= '0' && *q <= '9')
                q++;
            if (*q == ':')
                return true;
        }
    return false;
}

/* Message handler: DSL errors pass through untouched, anything else gets the
 * place it was raised (when its message has none: error(nil), error({}),
 * error("x", 0)) and a traceback. */
static int message_handler(lua_State *L)
{
    const char *msg;
    if (ls_is_dsl_error(L, 1, &msg))
        return 1;
    msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else
            msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    if (!has_place(msg)) {
        char where[LS_WHERE_MAX];
        ls_where_here(L, where);
        msg = lua_pushfstring(L, "%s%s%s", where, where[0] ? ": " : "", msg);
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* The error of a call that returned status into err: one line naming the
 * place (memory, DSL errors), or the handler's message and traceback; a
 * message without a place (Lua's own, such as "error in error handling")
 * gets the script's path. */
static void take_error(ls_script *s, int status, char *err, size_t errlen)
{
    lua_State *L = s->L;
    const char *msg;
    if (status == LUA_ERRMEM) {
        ls_memory_error(s, err, errlen);
        return;
    }
    if (!ls_is_dsl_error(L, -1, &msg)) {
        msg = lua_tostring(L, -1);
        if (!msg)
            msg = "(error object is not a string)";
    }
    if (has_place(msg) || !s->path)
        snprintf(err, errlen, "%s", msg);
    else
        snprintf(err, errlen, "%s: %s", s->path, msg);
}

/* A full collection: garbage the script left is finalized while it runs. */
static int collect(lua_State *L)
{
    lua_gc(L, LUA_GCCOLLECT);
    return 0;
}

/* Forgets every declaration; false when out of memory. */
static bool reset(ls_script *s)
{
    s->have_target = s->have_space = s->have_tune = false;
    s->target_where[0] = s->space_where[0] = s->tune_where[0] = '\0';
    s->nproblems = 0;
    return ls_space_reset(s) && ls_tune_reset(s);
}

/* Runs the script at path; on success target, problems, space and tune are
 * filled (defaults for an absent space or tune). */
bool ls_run_file(ls_script *s, const char *path, char *err, size_t errlen)
{
    lua_State *L = s->L;
    char *copy = malloc(strlen(path) + 1);
    if (!copy) {
        snprintf(err, errlen, "%s: out of memory", path);
        return false;
    }
    strcpy(copy, path);
    free(s->path);
    s->path = copy;
    if (!reset(s)) {
        snprintf(err, errlen, "%s: out of memory", path);
        return false;
    }

    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return false;
    }
    int c = getc(f);
    if (c == EOF && ferror(f)) {
        int e = errno;
        fclose(f);
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(e));
        return false;
    }
    fclose(f);

    int top = lua_gettop(L);
    lua_pushcfunction(L, message_handler);
    s->constraint_spent = 0;
    ls_phase_begin(s, LS_SCRIPT);
    int status = luaL_loadfile(L, path);
    if (status == LUA_OK)
        status = lua_pcall(L, 0, 0, top + 1);
    if (status == LUA_OK) {
        lua_pushcfunction(L, collect);
        status = lua_pcall(L, 0, 0, top + 1);
    }
    bool late = status == LUA_OK && s->late[0];
    if (late)
        snprintf(err, errlen, "%s", s->late); /* a finalizer's, which Lua only warns of */
    else if (status != LUA_OK)
        take_error(s, status, err, errlen);
    ls_phase_end(s);
    lua_settop(L, top);
    if (late || status != LUA_OK)
        return false;

    if (!s->have_target) {
        snprintf(err, errlen, "%s: no target declared (add e.g. target \"ascend910\")", path);
        return false;
    }
    if (s->nproblems == 0) {
        char ops[128];
        snprintf(err, errlen, "%s: no %s declared", path,
                 sp_names(sp_op_name, ", ", " or ", ops, sizeof ops));
        return false;
    }
    /* A space or tune call that failed under the script's own pcall may have
     * left partial values: start again from the defaults. */
    if ((!s->have_space && !ls_space_reset(s)) || (!s->have_tune && !ls_tune_reset(s))) {
        snprintf(err, errlen, "%s: out of memory", path);
        return false;
    }
    return ls_check_kinds(s, err, errlen);
}

/* The declared target. */
const sp_target *ls_target(const ls_script *s) { return &s->target; }

/* Number of problems over all op declarations, in declaration order. */
size_t ls_nproblems(const ls_script *s) { return s->nproblems; }

/* Problem i < ls_nproblems(s). */
const sp_problem *ls_problem(const ls_script *s, size_t i) { return &s->problems[i]; }

/* The declared (or default) space; its axes are owned by s. */
const sp_space *ls_space(const ls_script *s) { return &s->space; }

/* The declared (or default) tune block; its strings are owned by s. */
const ls_tune *ls_tune_get(const ls_script *s) { return &s->tune; }

/* "file:line" of the target, space, tune, constraint (its function) or
 * first declaration of an op (what is its name); "" when there is none. */
const char *ls_where(const ls_script *s, const char *what)
{
    if (strcmp(what, "target") == 0)
        return s->have_target ? s->target_where : "";
    if (strcmp(what, "space") == 0)
        return s->have_space ? s->space_where : "";
    if (strcmp(what, "tune") == 0)
        return s->have_tune ? s->tune_where : "";
    if (strcmp(what, "constraint") == 0)
        return s->constraint_ref != LUA_NOREF ? s->constraint_where : "";
    int op = sp_op_parse(what);
    for (size_t i = 0; op >= 0 && i < s->nproblems; i++)
        if (s->problems[i].op == op)
            return s->problem_where[i];
    return "";
}

/* "file:line" of the op declaration that declared problem i; "" if none. */
const char *ls_problem_where(const ls_script *s, size_t i)
{
    return i < s->nproblems ? s->problem_where[i] : "";
}

/* True when the space has a constraint function. */
bool ls_has_constraint(const ls_script *s) { return s->constraint_ref != LUA_NOREF; }

static void set_int(lua_State *L, const char *key, lua_Integer v)
{
    lua_pushstring(L, key);
    lua_pushinteger(L, v);
    lua_rawset(L, -3);
}

static void set_str(lua_State *L, const char *key, const char *v)
{
    lua_pushstring(L, key);
    lua_pushstring(L, v); /* nil for NULL */
    lua_rawset(L, -3);
}

typedef struct {
    const ls_script *s;
    const sp_problem *p;
    const sp_config *c;
} constraint_call;

/* Fills the reused table with the config and the problem and calls the
 * constraint on it (protected by the caller: filling may run out of memory). */
static int call_constraint(lua_State *L)
{
    const constraint_call *a = lua_touserdata(L, 1);
    const sp_config *c = a->c;
    const sp_problem *p = a->p;
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->s->constraint_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, a->s->config_ref);
    set_str(L, "strategy", sp_strategy_name(c->strategy));
    set_int(L, "m", c->m);
    set_int(L, "n", c->n);
    set_int(L, "k", c->k);
    lua_pushstring(L, "double_buffer");
    lua_pushboolean(L, c->double_buffer);
    lua_rawset(L, -3);
    set_int(L, "cores", c->cores);
    set_str(L, "split", sp_split_name(c->split));
    set_int(L, "mr", c->mr);
    set_int(L, "nr", c->nr);
    lua_pushstring(L, "pack");
    lua_pushboolean(L, !c->nopack);
    lua_rawset(L, -3);
    set_int(L, "M", p->M);
    set_int(L, "N", p->N);
    set_int(L, "K", p->K);
    set_int(L, "batch", p->batch);
    const sp_op *o = sp_op_get(p->op); /* the op and its own dimensions */
    set_str(L, "op", o->name);
    for (int d = 0; d < o->ndims; d++)
        set_int(L, o->dim[d].name, p->dims[d]);
    set_str(L, "dtype", sp_dtype_name(p->dtype));
    set_str(L, "problem", p->name);
    lua_call(L, 1, 1);
    return 1;
}

/* Calls the constraint with one reused table c; 1 keep, 0 drop, -1 error
 * ("file:line: message" and a traceback in err). 1 when there is none. All
 * calls of a run share the time limit tune.constraint_timeout. */
int ls_constraint(ls_script *s, const sp_problem *p, const sp_config *c, char *err,
                  size_t errlen)
{
    if (s->constraint_ref == LUA_NOREF)
        return 1;
    lua_State *L = s->L;
    int top = lua_gettop(L);
    constraint_call a = {s, p, c};
    lua_pushcfunction(L, message_handler);
    lua_pushcfunction(L, call_constraint);
    lua_pushlightuserdata(L, &a);
    ls_phase_begin(s, LS_CONSTRAINT);
    int status = lua_pcall(L, 1, 1, top + 1), keep;
    if (status != LUA_OK) {
        take_error(s, status, err, errlen);
        keep = -1;
    } else if (s->late[0]) { /* a finalizer's, which Lua only warns of */
        snprintf(err, errlen, "%s", s->late);
        keep = -1;
    } else {
        keep = lua_toboolean(L, -1);
    }
    ls_phase_end(s);
    lua_settop(L, top);
    return keep;
}

/* Frees the interpreter and everything the script declared. */
void ls_close(ls_script *s)
{
    if (!s)
        return;
    if (s->L)
        lua_close(s->L);
    ls_axis_free(&s->space.m);
    ls_axis_free(&s->space.n);
    ls_axis_free(&s->space.k);
    ls_axis_free(&s->space.cores);
    free(s->space.micro);
    free(s->problems);
    free(s->problem_where);
    free((char *)s->tune.measure);
    free((char *)s->tune.command);
    free((char *)s->tune.search);
    free((char *)s->tune.results);
    free((char *)s->tune.table);
    free(s->path);
    free(s);
}
