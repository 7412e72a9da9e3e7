/* dsl.c — the declarations of a tuning script (target, one per op such as matmul,
 * space, tune): each validates its table at once, failing with "file:line: fn: message". */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "internal.h"

/* ---- errors and locations ---- */

/* "file:line" of the nearest Lua code at or above level with a line. */
bool ls_where_from(lua_State *L, int level, char buf[LS_WHERE_MAX])
{
    lua_Debug ar;
    for (; lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            snprintf(buf, LS_WHERE_MAX, "%s:%d", ar.short_src, ar.currentline);
            return true;
        }
    }
    return false;
}

/* "file:line" of the nearest Lua caller with a line into buf. */
void ls_where_here(lua_State *L, char buf[LS_WHERE_MAX])
{
    if (ls_where_from(L, 1, buf))
        return;
    ls_script *s = ls_script_of(L);
    snprintf(buf, LS_WHERE_MAX, "%s", s && s->path ? s->path : "");
}

/* True when a function on the stack runs as a __gc finalizer (Lua names
 * it so; finalizers run with the collector, whenever it decides). */
bool ls_in_finalizer(lua_State *L)
{
    lua_Debug ar;
    for (int level = 0; lua_getstack(L, level, &ar); level++)
        if (lua_getinfo(L, "n", &ar) && ar.namewhat && strcmp(ar.namewhat, "metamethod") == 0 &&
            ar.name && strcmp(ar.name, "__gc") == 0)
            return true;
    return false;
}

/* Raises a DSL error "where: msg"; never returns. */
int ls_raise(lua_State *L, const char *where, const char *msg)
{
    ls_script *s = ls_script_of(L);
    /* Lua turns an error in a finalizer into a warning: keep it for the
     * end of the phase. */
    if (!s->late[0] && ls_in_finalizer(L))
        snprintf(s->late, sizeof s->late, "%s%s%s", where, where[0] ? ": " : "", msg);
    lua_createtable(L, 0, 1);
    lua_pushfstring(L, "%s%s%s", where, where[0] ? ": " : "", msg);
    lua_setfield(L, -2, "message");
    luaL_setmetatable(L, LS_DSL_ERROR);
    lua_error(L);
    abort(); /* lua_error does not return */
}

/* Raises a DSL error "file:line: fn: message"; never returns. */
int ls_fail(lua_State *L, const char *fn, const char *fmt, ...)
{
    char msg[1024], where[LS_WHERE_MAX], full[1100];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ls_where_here(L, where);
    snprintf(full, sizeof full, "%s%s%s", fn ? fn : "", fn ? ": " : "", msg);
    ls_raise(L, where, full);
}

/* True (with its text in *msg) if the value at idx is a DSL error. */
bool ls_is_dsl_error(lua_State *L, int idx, const char **msg)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx))
        return false;
    luaL_getmetatable(L, LS_DSL_ERROR);
    bool is = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    if (is) {
        lua_getfield(L, idx, "message");
        /* The string stays alive as long as the error object does. */
        *msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "(DSL error)";
        lua_pop(L, 1);
    }
    return is;
}

static int dsl_error_tostring(lua_State *L)
{
    lua_getfield(L, 1, "message");
    return 1;
}

/* Optimal string alignment distance (edits plus adjacent swaps). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t d[33][33];
    if (la > 32 || lb > 32)
        return (size_t)-1;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* The candidate within edit distance 2 of word (closest first), or NULL. */
const char *ls_suggest(const char *word, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t best_d = 3, len = strlen(word);
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(word, cands[i]);
        if (d < best_d && d < len) {
            best = cands[i];
            best_d = d;
        }
    }
    return best;
}

/* ---- table checks ---- */

static size_t count(const char *const *list)
{
    size_t n = 0;
    while (list && list[n])
        n++;
    return n;
}

static bool in_list(const char *const *list, const char *name)
{
    for (size_t i = 0; list && list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

static void expect_one_arg(lua_State *L, const char *fn)
{
    if (lua_gettop(L) != 1)
        ls_fail(L, fn, "expected one argument, got %d", lua_gettop(L));
}

/* The start of a declaration made at most once (target, space, tune): one
 * argument, its script position into where, and no earlier declaration
 * (declared, first made at first). */
static void begin_once(lua_State *L, const char *fn, bool declared, const char *first,
                       char *where)
{
    expect_one_arg(L, fn);
    ls_where_here(L, where);
    if (declared)
        ls_fail(L, fn, "declared twice (first at %s)", first);
}

/* Checks that argument 1 is a table whose keys are all in `keys`; the
 * alphabetically first unknown key is reported, so errors are stable. */
static void check_keys(lua_State *L, const char *fn, const char *const *keys)
{
    if (!lua_istable(L, 1))
        ls_fail(L, fn, "argument must be a table");
    char unknown[128] = "";
    bool have_unknown = false;
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) {
            char d[64];
            ls_fail(L, fn, "unexpected key %s (write name = value)", ls_describe(L, -1, d, sizeof d));
        }
        const char *k = lua_tostring(L, -1);
        if (!in_list(keys, k) && (!have_unknown || strcmp(k, unknown) < 0)) {
            snprintf(unknown, sizeof unknown, "%s", k);
            have_unknown = true;
        }
    }
    if (have_unknown) {
        const char *hint = ls_suggest(unknown, keys, count(keys));
        if (hint)
            ls_fail(L, fn, "unknown key '%s' (did you mean '%s'?)", unknown, hint);
        ls_fail(L, fn, "unknown key '%s'", unknown);
    }
}

/* Pushes field `key` of argument 1; true if it is not nil. */
static bool get(lua_State *L, const char *key)
{
    return lua_getfield(L, 1, key) != LUA_TNIL;
}

/* The string on the top of the stack, checked as a name for CSV files. */
static const char *top_name(lua_State *L, const char *fn, const char *key)
{
    if (lua_type(L, -1) != LUA_TSTRING)
        ls_fail(L, fn, "'%s' must be a string", key);
    size_t len;
    const char *v = lua_tolstring(L, -1, &len);
    if (!sp_label_ok(v, len))
        ls_fail(L, fn, "%s '%.60s' must be 1 to %d characters from A-Z a-z 0-9 _ . -", key, v,
                SP_LABEL_MAX);
    return v;
}

/* Positive integer on the top of the stack, at most max. */
static lua_Integer top_positive(lua_State *L, const char *fn, const char *key, lua_Integer max)
{
    lua_Integer v;
    if (!ls_get_int(L, -1, &v) || v < 1)
        ls_fail(L, fn, "'%s' must be a positive integer", key);
    if (v > max)
        ls_fail(L, fn, "'%s' must be at most %lld", key, (long long)max);
    return v;
}

/* Joins names as "a, b, c" into buf; "command" is shown as {command = ...}. */
static const char *join(const char *const *names, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; names && names[i] && used < len; i++) {
        const char *shown = strcmp(names[i], "command") == 0 ? "{command = ...}" : names[i];
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", shown);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

/* Reads a string or a list of strings at the top of the stack, each one of
 * the names name(0), name(1), ...; stores the distinct values in user order
 * in out (room for every name) and returns how many. */
static int enum_list(lua_State *L, const char *fn, const char *key,
                     int (*parse)(const char *), const char *(*name)(int), int *out)
{
    int idx = lua_gettop(L);
    size_t n = 1;
    bool single = lua_type(L, idx) == LUA_TSTRING;
    if (!single) {
        if (!lua_istable(L, idx))
            ls_fail(L, fn, "'%s' must be a string or a list of strings", key);
        n = ls_list_len(L, idx, fn, key);
        if (n == 0)
            ls_fail(L, fn, "'%s' is empty", key);
    }
    int nout = 0;
    for (size_t i = 1; i <= n; i++) {
        if (single)
            lua_pushvalue(L, idx);
        else
            lua_rawgeti(L, idx, (lua_Integer)i);
        if (lua_type(L, -1) != LUA_TSTRING) {
            char d[64];
            ls_fail(L, fn, "'%s' must hold strings (item %zu is %s)", key, i,
                    ls_describe(L, -1, d, sizeof d));
        }
        const char *v = lua_tostring(L, -1);
        int e = parse(v);
        if (e < 0) {
            char allowed[128];
            ls_fail(L, fn, "%s '%.60s' is not one of %s", key, v,
                    sp_names(name, ", ", ", ", allowed, sizeof allowed));
        }
        bool seen = false;
        for (int j = 0; j < nout; j++)
            seen |= out[j] == e;
        if (!seen)
            out[nout++] = e;
        lua_pop(L, 1);
    }
    return nout;
}

/* ---- target ---- */

/* The target as a table of its fields, as a target file spells them: name,
 * kind, the figures, groups ("bandwidth.l2") as tables of their own. */
static void push_target(lua_State *L, const sp_target *t)
{
    char text[SP_TARGET_TEXT_MAX];
    sp_target_print(text, sizeof text, t);
    lua_newtable(L);
    lua_pushstring(L, t->name);
    lua_setfield(L, -2, "name");
    for (char *w = strchr(text, ' '), *rest; w; w = rest) { /* the words after the name */
        w += strspn(w, " ");
        size_t len = strcspn(w, " ");
        rest = w[len] ? w + len + 1 : NULL;
        w[len] = '\0';
        char *eq = strchr(w, '=');
        if (!eq)
            continue;
        *eq = '\0';
        int depth = 0;
        for (char *dot; (dot = strchr(w, '.')); w = dot + 1, depth++) { /* into the group */
            lua_pushlstring(L, w, (size_t)(dot - w));
            if (lua_rawget(L, -2 - depth) != LUA_TTABLE) {
                lua_pop(L, 1);
                lua_newtable(L);
                lua_pushlstring(L, w, (size_t)(dot - w));
                lua_pushvalue(L, -2);
                lua_rawset(L, -4);
            }
        }
        if (!lua_stringtonumber(L, eq + 1))
            lua_pushstring(L, eq + 1);
        lua_setfield(L, -2, w);
        lua_pop(L, depth);
    }
}

static int l_target(lua_State *L)
{
    ls_script *s = ls_script_of(L);
    char where[LS_WHERE_MAX], err[LS_ERR_MAX];
    begin_once(L, "target", s->have_target, s->target_where, where);
    sp_target t;
    memset(&t, 0, sizeof t);
    if (lua_type(L, 1) == LUA_TSTRING) {
        if (!ls_builtin_read(L, lua_tostring(L, 1), &t, err, sizeof err))
            ls_fail(L, "target", "%s", err);
    } else if (lua_istable(L, 1)) {
        if (!ls_target_table(L, 1, &t, err, sizeof err))
            ls_fail(L, "target", "%s", err);
    } else {
        ls_fail(L, "target", "argument must be a string or a table");
    }
    if (!sp_target_check(&t, err, sizeof err))
        ls_fail(L, NULL, "%s", err);
    s->target = t;
    s->have_target = true;
    memcpy(s->target_where, where, sizeof where);
    push_target(L, &t);
    return 1;
}

/* ---- the ops (matmul, ...): one declaration each, made from its registry entry ---- */

/* The forms a shape of op o may take: "{M, N, K}", "{M, N, K} or {M, N, K,
 * batch}" (the dimensions with a default may be left off the end), or the
 * first form alone (all), into buf; returns buf. */
static const char *shape_forms(const sp_op *o, bool all, char *buf, size_t len)
{
    size_t used = 0;
    int nreq = 0;
    while (nreq < o->ndims && !o->dim[nreq].dflt)
        nreq++;
    buf[0] = '\0';
    for (int k = nreq; k <= (all ? o->ndims : nreq) && used < len; k++)
        for (int d = 0; d < k && used < len; d++) {
            int w = snprintf(buf + used, len - used, "%s%s%s%s",
                             d ? "" : k == nreq ? "" : k == o->ndims ? " or " : ", ",
                             d ? ", " : "{", o->dim[d].name, d + 1 == k ? "}" : "");
            used += w > 0 ? (size_t)w : 0;
        }
    return buf;
}

/* Checks shape i of op o at the top of the stack: its dimensions in order,
 * those with a default may be left off the end (dims keeps what it holds
 * for them). */
static void read_shape(lua_State *L, const sp_op *o, size_t i, int64_t *dims)
{
    char forms[256];
    int idx = lua_gettop(L), nreq = 0;
    while (nreq < o->ndims && !o->dim[nreq].dflt)
        nreq++;
    size_t n = lua_istable(L, idx) ? (size_t)lua_rawlen(L, idx) : 0;
    bool ok = n >= (size_t)nreq && n <= (size_t)o->ndims;
    for (size_t j = 1; ok && j <= n; j++) {
        lua_Integer v;
        lua_rawgeti(L, idx, (lua_Integer)j);
        ok = ls_get_int(L, -1, &v) && v >= 1;
        lua_pop(L, 1);
        if (ok && v > SP_VALUE_MAX)
            ls_fail(L, o->name, "shape %zu: %lld is larger than the largest dimension %d", i,
                    (long long)v, SP_VALUE_MAX);
        if (ok)
            dims[j - 1] = v;
    }
    if (ok) {
        /* No keys other than 1..n. */
        lua_pushnil(L);
        while (ok && lua_next(L, idx)) {
            lua_Integer k;
            lua_pop(L, 1);
            ok = ls_get_int(L, -1, &k) && k >= 1 && (size_t)k <= n;
        }
        if (!ok)
            lua_pop(L, 1);
    }
    if (!ok)
        ls_fail(L, o->name, "shape %zu must be %s of positive integers", i,
                shape_forms(o, true, forms, sizeof forms));
}

/* OP { name = ..., shapes = ..., dtype = ..., DIM = ... }: a problem per
 * shape of the op in upvalue 1; DIM is any of its dimensions with a default,
 * the value for the shapes that leave it out. */
static int l_op(lua_State *L)
{
    int op = (int)lua_tointeger(L, lua_upvalueindex(1));
    const sp_op *o = sp_op_get(op);
    const char *fn = o->name;
    const char *keys[3 + SP_OP_DIMS_MAX + 1] = {"name", "shapes", "dtype"};
    int64_t dflt[SP_OP_DIMS_MAX];
    for (int d = 0, k = 3; d < o->ndims; d++)
        if ((dflt[d] = o->dim[d].dflt))
            keys[k++] = o->dim[d].name;
    ls_script *s = ls_script_of(L);
    char where[LS_WHERE_MAX], forms[256];
    expect_one_arg(L, fn);
    ls_where_here(L, where);
    check_keys(L, fn, keys);

    if (!get(L, "name"))
        ls_fail(L, fn, "'name' is missing");
    const char *name = top_name(L, fn, "name");

    int dtype = SP_NDTYPE; /* unset: the target's own dtype (ls_check_kinds) */
    if (get(L, "dtype")) {
        if (lua_type(L, -1) != LUA_TSTRING)
            ls_fail(L, fn, "'dtype' must be a string");
        dtype = sp_dtype_parse(lua_tostring(L, -1));
        if (dtype < 0) {
            char allowed[128];
            ls_fail(L, fn, "dtype '%.60s' is not one of %s", lua_tostring(L, -1),
                    sp_names(sp_dtype_name, ", ", ", ", allowed, sizeof allowed));
        }
    }
    lua_pop(L, 1);

    for (int d = 0; d < o->ndims; d++) {
        if (!dflt[d])
            continue;
        if (get(L, o->dim[d].name))
            dflt[d] = top_positive(L, fn, o->dim[d].name, SP_VALUE_MAX);
        lua_pop(L, 1);
    }

    if (!get(L, "shapes"))
        ls_fail(L, fn, "'shapes' is missing");
    int shapes = lua_gettop(L);
    if (!lua_istable(L, shapes))
        ls_fail(L, fn, "'shapes' must be a list of %s", shape_forms(o, false, forms, sizeof forms));
    /* shapes = {M, N, K} stands for one shape. */
    lua_rawgeti(L, shapes, 1);
    bool single = lua_type(L, -1) == LUA_TNUMBER;
    lua_pop(L, 1);
    size_t n = single ? 1 : ls_list_len(L, shapes, fn, "shapes");
    if (n == 0)
        ls_fail(L, fn, "'shapes' is empty");
    if (n > LS_MAX_PROBLEMS - s->nproblems)
        ls_fail(L, fn, "'shapes' would make %zu problems; a script declares at most %d",
                s->nproblems + n, LS_MAX_PROBLEMS);

    /* Validate everything before touching s. */
    for (int pass = 0; pass < 2; pass++) {
        if (pass && s->nproblems + n > s->cap) {
            size_t cap = s->cap ? s->cap : 8;
            while (cap < s->nproblems + n)
                cap *= 2;
            sp_problem *p = realloc(s->problems, cap * sizeof *p);
            if (!p)
                return luaL_error(L, "not enough memory");
            s->problems = p;
            char (*w)[LS_WHERE_MAX] = realloc(s->problem_where, cap * sizeof *w);
            if (!w)
                return luaL_error(L, "not enough memory");
            s->problem_where = w;
            s->cap = cap;
        }
        for (size_t i = 1; i <= n; i++) {
            int64_t dims[SP_OP_DIMS_MAX];
            memcpy(dims, dflt, sizeof dims);
            if (single)
                lua_pushvalue(L, shapes);
            else
                lua_rawgeti(L, shapes, (lua_Integer)i);
            read_shape(L, o, i, dims);
            lua_pop(L, 1);
            if (!pass)
                continue;
            sp_problem *p = &s->problems[s->nproblems];
            memset(p, 0, sizeof *p);
            snprintf(p->name, sizeof p->name, "%s", name);
            p->dtype = (sp_dtype)dtype;
            sp_problem_set(p, op, dims);
            memcpy(s->problem_where[s->nproblems], where, sizeof where);
            s->nproblems++;
        }
    }
    return 0;
}

/* ---- space ---- */

/* Frees the space of s and sets the defaults; false when out of memory. */
bool ls_space_reset(ls_script *s)
{
    sp_space *sp = &s->space;
    ls_axis_free(&sp->m);
    ls_axis_free(&sp->n);
    ls_axis_free(&sp->k);
    ls_axis_free(&sp->cores);
    free(sp->micro);
    sp->micro = NULL;
    sp->nmicro = 0;
    sp->packs = 0;
    if (s->constraint_ref != LUA_NOREF)
        luaL_unref(s->L, LUA_REGISTRYINDEX, s->constraint_ref);
    s->constraint_ref = LUA_NOREF;
    s->constraint_where[0] = '\0';
    for (int i = 0; i < SP_NSTRATEGY; i++)
        sp->strategy[i] = true;
    sp->double_buffer[0] = true;
    sp->double_buffer[1] = false;
    sp->split[0] = SP_SPLIT_M;
    sp->nsplit = 1;
    sp->cores.v = malloc(sizeof *sp->cores.v);
    if (!sp->cores.v)
        return false;
    sp->cores.v[0] = 1;
    sp->cores.n = 1;
    return true;
}

/* key = a boolean | a list of booleans: which of false, true are allowed. */
static void read_bools(lua_State *L, const char *key, bool allowed[2])
{
    int idx = lua_gettop(L);
    size_t n = 1;
    bool single = lua_type(L, idx) == LUA_TBOOLEAN;
    if (!single) {
        if (!lua_istable(L, idx))
            ls_fail(L, "space", "'%s' must be a boolean or a list of booleans", key);
        n = ls_list_len(L, idx, "space", key);
        if (n == 0)
            ls_fail(L, "space", "'%s' is empty", key);
    }
    allowed[0] = allowed[1] = false;
    for (size_t i = 1; i <= n; i++) {
        if (single)
            lua_pushvalue(L, idx);
        else
            lua_rawgeti(L, idx, (lua_Integer)i);
        if (lua_type(L, -1) != LUA_TBOOLEAN) {
            char d[64];
            ls_fail(L, "space", "'%s' must hold booleans (item %zu is %s)", key, i,
                    ls_describe(L, -1, d, sizeof d));
        }
        allowed[lua_toboolean(L, -1)] = true;
        lua_pop(L, 1);
    }
}

/* One micro-tile: "6x64" or {6, 64}; false if it is neither. */
static bool micro_item(lua_State *L, int idx, sp_micro *u)
{
    lua_Integer mr = 0, nr = 0;
    idx = lua_absindex(L, idx); /* items of a list come at -1 */
    if (lua_type(L, idx) == LUA_TSTRING) {
        const char *t = lua_tostring(L, idx);
        if (strspn(t, "0123456789x") != strlen(t)) /* no signs or blanks */
            return false;
        char *end;
        long a = strtol(t, &end, 10);
        if (end == t || *end != 'x')
            return false;
        const char *second = end + 1;
        long b = strtol(second, &end, 10);
        if (end == second || *end)
            return false;
        mr = a, nr = b;
    } else if (lua_istable(L, idx) && lua_rawlen(L, idx) == 2) {
        lua_rawgeti(L, idx, 1);
        lua_rawgeti(L, idx, 2);
        bool ok = ls_get_int(L, -2, &mr) && ls_get_int(L, -1, &nr);
        lua_pop(L, 2);
        if (!ok)
            return false;
    } else {
        return false;
    }
    if (mr < 1 || mr > 255 || nr < 1 || nr > 255)
        return false;
    u->mr = (uint8_t)mr;
    u->nr = (uint8_t)nr;
    return true;
}

/* micro = "6x64" | {6, 64} | a list of them: the CPU micro-tiles to try;
 * "auto": the ones that suit the target's registers (sp_micro_auto). */
static void read_micro(lua_State *L, ls_script *s)
{
    sp_space *sp = &s->space;
    int idx = lua_gettop(L);
    if (lua_type(L, idx) == LUA_TSTRING && strcmp(lua_tostring(L, idx), "auto") == 0) {
        if (!s->have_target)
            ls_fail(L, "space", "'micro = \"auto\"' takes the tiles of the target: declare the "
                    "target before the space");
        sp_micro *v = malloc(SP_MICRO_AUTO_MAX * sizeof *v);
        if (!v)
            luaL_error(L, "not enough memory");
        free(sp->micro);
        sp->micro = v;
        sp->nmicro = sp_micro_auto(&s->target, v); /* a kind without tiles: refused later */
        return;
    }
    sp_micro one;
    bool single = micro_item(L, idx, &one);
    size_t n = 1;
    if (!single) {
        if (!lua_istable(L, idx))
            ls_fail(L, "space", "'micro' must be a micro-tile \"MRxNR\" (e.g. \"6x64\") or a list of them");
        n = ls_list_len(L, idx, "space", "micro");
        if (n == 0)
            ls_fail(L, "space", "'micro' is empty");
    }
    /* At most one of each of the 255 x 255 tiles: a bit each. */
    uint8_t *seen = calloc(256 * 256 / 8, 1);
    sp_micro *v = malloc((n < 255 * 255 ? n : 255 * 255) * sizeof *v);
    if (!v || !seen) {
        free(v), free(seen);
        luaL_error(L, "not enough memory");
    }
    free(sp->micro);
    sp->micro = v;
    sp->nmicro = 0;
    for (size_t i = 1; i <= n; i++) {
        sp_micro u = one;
        if (!single) {
            lua_rawgeti(L, idx, (lua_Integer)i);
            bool ok = micro_item(L, -1, &u);
            lua_pop(L, 1);
            if (!ok) {
                free(seen);
                ls_fail(L, "space", "'micro' item %zu is not a micro-tile \"MRxNR\" with 1 <= MR, NR <= 255", i);
            }
        }
        unsigned bit = (unsigned)u.mr << 8 | u.nr;
        if (!(seen[bit / 8] & 1u << bit % 8))
            sp->micro[sp->nmicro++] = u;
        seen[bit / 8] |= (uint8_t)(1u << bit % 8);
    }
    free(seen);
}

static int l_space(lua_State *L)
{
    static const char *const keys[] = {"strategy", "m", "n", "k", "double_buffer",
                                       "cores", "split", "micro", "pack", "constraint", NULL};
    ls_script *s = ls_script_of(L);
    char where[LS_WHERE_MAX];
    begin_once(L, "space", s->have_space, s->space_where, where);
    check_keys(L, "space", keys);
    if (!ls_space_reset(s))
        return luaL_error(L, "not enough memory");
    sp_space *sp = &s->space;

    if (get(L, "strategy")) {
        int v[SP_NSTRATEGY];
        int n = enum_list(L, "space", "strategy", sp_strategy_parse, sp_strategy_name, v);
        for (int i = 0; i < SP_NSTRATEGY; i++)
            sp->strategy[i] = false;
        for (int i = 0; i < n; i++)
            sp->strategy[v[i]] = true;
    }
    lua_pop(L, 1);

    static const char *const axes[] = {"m", "n", "k", "cores"};
    sp_axis *dst[] = {&sp->m, &sp->n, &sp->k, &sp->cores};
    for (int a = 0; a < 4; a++) {
        if (get(L, axes[a]))
            ls_axis_read(L, -1, "space", axes[a], dst[a]);
        lua_pop(L, 1);
    }

    if (get(L, "double_buffer"))
        read_bools(L, "double_buffer", sp->double_buffer);
    lua_pop(L, 1);

    /* pack = true: the packing family (the default); false: the no-pack one */
    bool pack[2];
    if (get(L, "pack")) {
        read_bools(L, "pack", pack);
        sp->packs = (uint8_t)((pack[1] ? 1 : 0) | (pack[0] ? 2 : 0));
    }
    lua_pop(L, 1);

    if (get(L, "split")) {
        int v[SP_NSPLIT];
        int n = enum_list(L, "space", "split", sp_split_parse, sp_split_name, v);
        for (int i = 0; i < n; i++)
            sp->split[i] = (sp_split)v[i];
        sp->nsplit = n;
    }
    lua_pop(L, 1);

    if (get(L, "micro"))
        read_micro(L, s);
    lua_pop(L, 1);

    if (get(L, "constraint")) {
        if (lua_type(L, -1) != LUA_TFUNCTION)
            ls_fail(L, "space", "'constraint' must be a function");
        lua_Debug ar;
        lua_pushvalue(L, -1);
        lua_getinfo(L, ">S", &ar);
        if (ar.linedefined > 0)
            snprintf(s->constraint_where, LS_WHERE_MAX, "%s:%d", ar.short_src, ar.linedefined);
        else
            memcpy(s->constraint_where, where, sizeof where);
        s->constraint_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    } else {
        lua_pop(L, 1);
    }

    s->have_space = true;
    memcpy(s->space_where, where, sizeof where);
    return 0;
}

/* ---- tune ---- */

/* Replaces the owned string *slot by a copy of v. */
static bool set_str(const char **slot, const char *v)
{
    char *copy = NULL;
    if (v) {
        copy = malloc(strlen(v) + 1);
        if (!copy)
            return false;
        strcpy(copy, v);
    }
    free((char *)*slot);
    *slot = copy;
    return true;
}

static const char *first_or(const char *const *list, const char *dflt, const char *fallback)
{
    if (dflt)
        return dflt;
    return list && list[0] ? list[0] : fallback;
}

/* Frees the tune strings of s and sets the defaults; false when out of memory. */
bool ls_tune_reset(ls_script *s)
{
    ls_tune *t = &s->tune;
    const char *path = s->path ? s->path : "script.lua";
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 4 && strcmp(base + len - 4, ".lua") == 0)
        len -= 4;
    size_t room = len + sizeof "results/-table.csv";
    char *results = malloc(room), *table = malloc(room);
    bool ok = results && table;
    if (ok) {
        snprintf(results, room, "results/%.*s.csv", (int)len, base);
        snprintf(table, room, "results/%.*s-table.csv", (int)len, base);
    }
    free((char *)t->results);
    free((char *)t->table);
    t->results = results;
    t->table = table;
    ok = set_str(&t->measure, first_or(s->opts.measures, s->opts.default_measure, "model")) && ok;
    ok = set_str(&t->search, first_or(s->opts.searches, s->opts.default_search, "model")) && ok;
    ok = set_str(&t->command, NULL) && ok;
    s->measure_given = false;
    t->budget = 32;
    t->seed = 1;
    t->timeout = 60;
    t->verify = 1;
    t->calibrate = -1;
    t->final = 1;
    t->script_timeout = 60;
    t->constraint_timeout = 60;
    return ok;
}

/* Checks name against the names the engine passed (ls_options): the DSL
 * keeps no list of its own. "command" alone is not a measure: it needs its
 * template ({command = ...}). */
static void check_name(lua_State *L, const char *what, const char *name,
                       const char *const *names)
{
    char list[256];
    if (!in_list(names, name) || strcmp(name, "command") == 0)
        ls_fail(L, "tune", "%s '%.60s' is not one of %s", what, name, join(names, list, sizeof list));
}

static void read_measure(lua_State *L, ls_script *s)
{
    char list[256];
    int idx = lua_gettop(L);
    if (lua_type(L, idx) == LUA_TSTRING) {
        const char *m = lua_tostring(L, idx);
        check_name(L, "measure", m, s->opts.measures);
        if (!set_str(&s->tune.measure, m))
            luaL_error(L, "not enough memory");
        s->measure_given = true;
        return;
    }
    if (!lua_istable(L, idx))
        ls_fail(L, "tune", "'measure' must be a string or a table {command = ...}");
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        char d[64];
        if (lua_type(L, -1) != LUA_TSTRING || strcmp(lua_tostring(L, -1), "command") != 0) {
            static const char *const keys[] = {"measure.command"};
            char dotted[128];
            if (lua_type(L, -1) != LUA_TSTRING)
                ls_fail(L, "tune", "unexpected key %s in 'measure' (write name = value)",
                        ls_describe(L, -1, d, sizeof d));
            snprintf(dotted, sizeof dotted, "measure.%.100s", lua_tostring(L, -1));
            const char *hint = ls_suggest(dotted, keys, 1);
            if (hint)
                ls_fail(L, "tune", "unknown key '%s' (did you mean '%s'?)", dotted, hint);
            ls_fail(L, "tune", "unknown key '%s'", dotted);
        }
    }
    int type = lua_getfield(L, idx, "command");
    if (type == LUA_TNIL)
        ls_fail(L, "tune", "'measure.command' is missing");
    if (type != LUA_TSTRING || lua_rawlen(L, -1) == 0)
        ls_fail(L, "tune", "'measure.command' must be a non-empty string");
    if (!in_list(s->opts.measures, "command"))
        ls_fail(L, "tune", "measure {command = ...} is not available (available: %s)",
                join(s->opts.measures, list, sizeof list));
    if (s->opts.safe)
        ls_fail(L, "tune", "measure {command = ...} runs a shell command: --safe forbids it");
    if (!set_str(&s->tune.command, lua_tostring(L, -1)) || !set_str(&s->tune.measure, "command"))
        luaL_error(L, "not enough memory");
    s->measure_given = true;
    lua_pop(L, 1);
}

static void read_path(lua_State *L, const char *key, const char **slot)
{
    if (lua_type(L, -1) != LUA_TSTRING || lua_rawlen(L, -1) == 0)
        ls_fail(L, "tune", "'%s' must be a non-empty string", key);
    if (!set_str(slot, lua_tostring(L, -1)))
        luaL_error(L, "not enough memory");
}

static int l_tune(lua_State *L)
{
    static const char *const keys[] = {"measure", "search",         "budget",
                                       "results", "table",          "seed",
                                       "timeout", "script_timeout", "constraint_timeout",
                                       "verify",  "calibrate",      "final",
                                       NULL};
    ls_script *s = ls_script_of(L);
    char where[LS_WHERE_MAX];
    begin_once(L, "tune", s->have_tune, s->tune_where, where);
    check_keys(L, "tune", keys);
    if (!ls_tune_reset(s))
        return luaL_error(L, "not enough memory");
    ls_tune *t = &s->tune;

    if (get(L, "measure"))
        read_measure(L, s);
    lua_pop(L, 1);

    if (get(L, "search")) {
        if (lua_type(L, -1) != LUA_TSTRING)
            ls_fail(L, "tune", "'search' must be a string");
        check_name(L, "search", lua_tostring(L, -1), s->opts.searches);
        if (!set_str(&t->search, lua_tostring(L, -1)))
            return luaL_error(L, "not enough memory");
    }
    lua_pop(L, 1);

    if (get(L, "budget"))
        t->budget = (int)top_positive(L, "tune", "budget", 1000000000);
    lua_pop(L, 1);

    if (get(L, "seed")) {
        lua_Integer v;
        if (!ls_get_int(L, -1, &v) || v < 0)
            ls_fail(L, "tune", "'seed' must be a non-negative integer");
        t->seed = (unsigned long)v;
    }
    lua_pop(L, 1);

    /* Seconds: per candidate, and the time limits of the script file and of
     * all constraint calls (which take effect at once). */
    static const char *const seconds[] = {"timeout", "script_timeout", "constraint_timeout"};
    double *slot[] = {&t->timeout, &t->script_timeout, &t->constraint_timeout};
    for (int i = 0; i < 3; i++) {
        if (get(L, seconds[i])) {
            double v = lua_type(L, -1) == LUA_TNUMBER ? (double)lua_tonumber(L, -1) : NAN;
            if (!(v > 0) || !isfinite(v))
                ls_fail(L, "tune", "'%s' must be a positive number", seconds[i]);
            *slot[i] = v;
        }
        lua_pop(L, 1);
    }

    /* Switches: calibrate is -1 (the backend decides) unless the script says. */
    static const char *const switches[] = {"verify", "calibrate", "final"};
    int *flag[] = {&t->verify, &t->calibrate, &t->final};
    for (int i = 0; i < 3; i++) {
        if (get(L, switches[i])) {
            if (lua_type(L, -1) != LUA_TBOOLEAN)
                ls_fail(L, "tune", "'%s' must be true or false", switches[i]);
            *flag[i] = lua_toboolean(L, -1);
        }
        lua_pop(L, 1);
    }

    if (get(L, "results"))
        read_path(L, "results", &t->results);
    lua_pop(L, 1);
    if (get(L, "table"))
        read_path(L, "table", &t->table);
    lua_pop(L, 1);

    s->have_tune = true;
    memcpy(s->tune_where, where, sizeof where);
    return 0;
}

/* ---- the guard of every declaration ---- */

/* Runs the declaration in upvalue 1 (named by upvalue 2) on the arguments
 * when declarations are allowed: while the script file runs (not from the
 * constraint, called during tuning), not in a __gc finalizer, and not inside
 * another declaration (from a metamethod of its table). Once the script has
 * returned, nothing can change what it declared. */
static int declare(lua_State *L)
{
    ls_script *s = ls_script_of(L);
    const char *fn = lua_touserdata(L, lua_upvalueindex(2));
    if (ls_in_finalizer(L))
        ls_fail(L, fn, "declarations are not allowed in a __gc finalizer (it runs whenever the "
                "garbage collector decides)");
    if (s->phase == LS_CONSTRAINT)
        ls_fail(L, fn, "declarations are only allowed while the script runs; the constraint (%s) "
                "is called during tuning", s->constraint_where);
    if (s->phase != LS_SCRIPT)
        ls_fail(L, fn, "declarations are only allowed while the script runs");
    if (s->declaring)
        ls_fail(L, fn, "called while %s {} reads its table (declarations do not nest)",
                s->declaring);
    s->declaring = fn;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    s->declaring = NULL;
    if (status == LUA_ERRMEM) { /* one line naming the place, as ls_run_file's */
        char msg[LS_ERR_MAX];
        ls_memory_error(s, msg, sizeof msg);
        ls_raise(L, "", msg);
    }
    return status == LUA_OK ? lua_gettop(L) : lua_error(L); /* the body's results */
}

/* Global `name`: the declaration body (upvalue 1 of body: arg) behind declare. */
static void install(lua_State *L, const char *name, lua_CFunction body, int arg)
{
    lua_pushinteger(L, arg);
    lua_pushcclosure(L, body, 1);
    lua_pushlightuserdata(L, (void *)name); /* static: lives as long as the program */
    lua_pushcclosure(L, declare, 2);
    lua_setglobal(L, name);
}

/* Installs target, a declaration per op (matmul, ...), space, tune and the
 * DSL error metatable. */
void ls_dsl_install(lua_State *L)
{
    luaL_newmetatable(L, LS_DSL_ERROR);
    lua_pushcfunction(L, dsl_error_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
    install(L, "target", l_target, 0);
    for (int op = 0; sp_op_name(op); op++)
        install(L, sp_op_name(op), l_op, op);
    install(L, "space", l_space, 0);
    install(L, "tune", l_tune, 0);
}
