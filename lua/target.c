/* target.c — target tables <-> sp_target through one table of field
 * descriptors, and the built-in targets embedded from targets.lua. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "internal.h"

extern const char ls_targets_lua[];
extern const size_t ls_targets_lua_len;

typedef enum { F_NAME, F_INT, F_I64, F_NUM } field_type;

typedef struct {
    const char *name; /* dotted: "gm_l1.bandwidth" */
    field_type type;
    size_t off;       /* in sp_target */
} field;

#define OFF(m) offsetof(sp_target, m)
#define MACS(d) (OFF(macs) + (size_t)(d) * sizeof(double))
#define BUF(b) (OFF(buf_bytes) + (size_t)(b) * sizeof(int64_t))
#define ALIGN(b) (OFF(buf_align) + (size_t)(b) * sizeof(int))
#define PATH(p, m) (OFF(path) + (size_t)(p) * sizeof(sp_copy_path) + offsetof(sp_copy_path, m))

/* Every field of a target table, in the order "missing" is reported. */
static const field fields[] = {
    {"name", F_NAME, OFF(name)},
    {"cores", F_INT, OFF(cores)},
    {"clock_mhz", F_NUM, OFF(clock_mhz)},
    {"macs.fp16", F_NUM, MACS(SP_FP16)},
    {"macs.int8", F_NUM, MACS(SP_INT8)},
    {"l1", F_I64, BUF(SP_L1)},
    {"l0a", F_I64, BUF(SP_L0A)},
    {"l0b", F_I64, BUF(SP_L0B)},
    {"l0c", F_I64, BUF(SP_L0C)},
    {"ub", F_I64, BUF(SP_UB)},
    {"align.l1", F_INT, ALIGN(SP_L1)},
    {"align.l0a", F_INT, ALIGN(SP_L0A)},
    {"align.l0b", F_INT, ALIGN(SP_L0B)},
    {"align.l0c", F_INT, ALIGN(SP_L0C)},
    {"align.ub", F_INT, ALIGN(SP_UB)},
    {"gm_l1.bandwidth", F_NUM, PATH(SP_GM_L1, bandwidth)},
    {"gm_l1.latency", F_NUM, PATH(SP_GM_L1, latency)},
    {"l1_l0a.bandwidth", F_NUM, PATH(SP_L1_L0A, bandwidth)},
    {"l1_l0a.latency", F_NUM, PATH(SP_L1_L0A, latency)},
    {"l1_l0b.bandwidth", F_NUM, PATH(SP_L1_L0B, bandwidth)},
    {"l1_l0b.latency", F_NUM, PATH(SP_L1_L0B, latency)},
    {"l0c_ub.bandwidth", F_NUM, PATH(SP_L0C_UB, bandwidth)},
    {"l0c_ub.latency", F_NUM, PATH(SP_L0C_UB, latency)},
    {"ub_gm.bandwidth", F_NUM, PATH(SP_UB_GM, bandwidth)},
    {"ub_gm.latency", F_NUM, PATH(SP_UB_GM, latency)},
    {"gm_bandwidth", F_NUM, OFF(gm_bandwidth)},
    {"events", F_INT, OFF(events)},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

/* Field and group names ("macs", "gm_l1", ...) that can follow prefix
 * (NULL for the top level), as full dotted names, for suggestions. */
static size_t names_under(const char *prefix, const char **out, char groups[][32])
{
    size_t n = 0, plen = prefix ? strlen(prefix) : 0;
    for (size_t i = 0; i < NFIELDS; i++) {
        const char *f = fields[i].name;
        if (prefix && !(strncmp(f, prefix, plen) == 0 && f[plen] == '.'))
            continue;
        const char *rest = prefix ? f + plen + 1 : f;
        const char *dot = strchr(rest, '.');
        if (!dot) {
            out[n++] = f;
            continue;
        }
        /* A group: list it once. */
        int glen = (int)(dot - f);
        snprintf(groups[i], sizeof groups[i], "%.*s", glen, f);
        bool dup = false;
        for (size_t j = 0; j < n; j++)
            dup |= strcmp(out[j], groups[i]) == 0;
        if (!dup)
            out[n++] = groups[i];
    }
    return n;
}

static bool is_group(const char *dotted)
{
    size_t len = strlen(dotted);
    for (size_t i = 0; i < NFIELDS; i++)
        if (strncmp(fields[i].name, dotted, len) == 0 && fields[i].name[len] == '.')
            return true;
    return false;
}

/* Stores the value at the top of the stack into field f of t. */
static bool store(lua_State *L, const field *f, sp_target *t, char *err, size_t errlen)
{
    char *p = (char *)t + f->off;
    lua_Integer i;
    switch (f->type) {
    case F_NAME: {
        size_t len;
        if (lua_type(L, -1) != LUA_TSTRING) {
            snprintf(err, errlen, "field '%s' must be a string", f->name);
            return false;
        }
        const char *s = lua_tolstring(L, -1, &len);
        bool ok = len >= 1 && len <= 40;
        for (size_t k = 0; ok && k < len; k++)
            ok = (s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= 'a' && s[k] <= 'z') ||
                 (s[k] >= '0' && s[k] <= '9') || s[k] == '_' || s[k] == '.' || s[k] == '-';
        if (!ok) {
            snprintf(err, errlen,
                     "name '%.60s' must be 1 to 40 characters from A-Z a-z 0-9 _ . -", s);
            return false;
        }
        snprintf(p, SP_NAME_MAX, "%s", s);
        return true;
    }
    case F_INT:
        if (!ls_get_int(L, -1, &i) || i < -2147483647 || i > 2147483647) {
            snprintf(err, errlen, "field '%s' must be an integer", f->name);
            return false;
        }
        *(int *)(void *)p = (int)i;
        return true;
    case F_I64:
        if (!ls_get_int(L, -1, &i)) {
            snprintf(err, errlen, "field '%s' must be an integer", f->name);
            return false;
        }
        *(int64_t *)(void *)p = (int64_t)i;
        return true;
    case F_NUM:
        if (lua_type(L, -1) != LUA_TNUMBER || !isfinite((double)lua_tonumber(L, -1))) {
            snprintf(err, errlen, "field '%s' must be a number", f->name);
            return false;
        }
        *(double *)(void *)p = (double)lua_tonumber(L, -1);
        return true;
    }
    return false;
}

/* Walks the table at idx whose fields are named under prefix. */
static bool read_level(lua_State *L, int idx, const char *prefix, const char *skip,
                       sp_target *t, bool *seen, char *err, size_t errlen)
{
    int top = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        char dotted[128], d[64];
        if (lua_type(L, -2) != LUA_TSTRING) {
            snprintf(err, errlen, "unexpected key %s%s%s (write name = value)",
                     ls_describe(L, -2, d, sizeof d), prefix ? " in " : "", prefix ? prefix : "");
            lua_settop(L, top);
            return false;
        }
        const char *key = lua_tostring(L, -2);
        if (!prefix && skip && strcmp(key, skip) == 0) {
            lua_pop(L, 1);
            continue;
        }
        snprintf(dotted, sizeof dotted, "%s%s%.60s", prefix ? prefix : "", prefix ? "." : "", key);
        size_t i = 0;
        while (i < NFIELDS && strcmp(fields[i].name, dotted) != 0)
            i++;
        bool ok;
        if (i < NFIELDS) {
            ok = store(L, &fields[i], t, err, errlen);
            seen[i] = true;
        } else if (is_group(dotted)) {
            ok = lua_istable(L, -1);
            if (!ok)
                snprintf(err, errlen, "field '%s' must be a table", dotted);
            else
                ok = read_level(L, lua_gettop(L), dotted, NULL, t, seen, err, errlen);
        } else {
            const char *cands[NFIELDS];
            char groups[NFIELDS][32];
            size_t n = names_under(prefix, cands, groups);
            const char *hint = ls_suggest(dotted, cands, n);
            if (hint)
                snprintf(err, errlen, "unknown field '%s' (did you mean '%s'?)", dotted, hint);
            else
                snprintf(err, errlen, "unknown field '%s'", dotted);
            ok = false;
        }
        if (!ok) {
            lua_settop(L, top);
            return false;
        }
        lua_pop(L, 1);
    }
    return true;
}

/* Reads the fields present in the table at idx into *t; with complete, a
 * missing field is an error. Messages go to err, nothing is raised. */
bool ls_target_read(lua_State *L, int idx, sp_target *t, bool complete, const char *skip,
                    char *err, size_t errlen)
{
    bool seen[NFIELDS] = {false};
    if (!read_level(L, lua_absindex(L, idx), NULL, skip, t, seen, err, errlen))
        return false;
    for (size_t i = 0; complete && i < NFIELDS; i++)
        if (!seen[i]) {
            snprintf(err, errlen, "field '%s' is missing", fields[i].name);
            return false;
        }
    return true;
}

/* Runs the embedded targets.lua and keeps its table in the registry. */
bool ls_targets_load(lua_State *L, char *err, size_t errlen)
{
    if (luaL_loadbufferx(L, ls_targets_lua, ls_targets_lua_len, "=targets.lua", "t") != LUA_OK) {
        snprintf(err, errlen, "built-in targets: %s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return false;
    }
    /* Its environment: KiB and MiB, the rest read through from _G. */
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, 1024);
    lua_setfield(L, -2, "KiB");
    lua_pushinteger(L, 1024 * 1024);
    lua_setfield(L, -2, "MiB");
    lua_createtable(L, 0, 1);
    lua_pushglobaltable(L);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_setupvalue(L, -2, 1);
    if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
        snprintf(err, errlen, "built-in targets: %s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return false;
    }
    if (!lua_istable(L, -1)) {
        snprintf(err, errlen, "built-in targets: targets.lua must return a table");
        lua_pop(L, 1);
        return false;
    }
    lua_setfield(L, LUA_REGISTRYINDEX, LS_TARGETS);
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted, comma-separated keys of the registry's target table into buf. */
static void known_names(lua_State *L, char *buf, size_t len)
{
    const char *names[64];
    size_t n = 0, used = 0;
    buf[0] = '\0';
    lua_getfield(L, LUA_REGISTRYINDEX, LS_TARGETS);
    if (lua_istable(L, -1)) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_pop(L, 1);
            /* Keys stay alive in the table while it is on the stack. */
            if (lua_type(L, -1) == LUA_TSTRING && n < 64)
                names[n++] = lua_tostring(L, -1);
        }
        qsort(names, n, sizeof *names, cmp_str);
        for (size_t i = 0; i < n && used < len; i++) {
            int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
            if (w < 0)
                break;
            used += (size_t)w;
        }
    }
    lua_pop(L, 1);
}

/* Built-in target `name` from the registry of L, read and checked. */
bool ls_builtin_read(lua_State *L, const char *name, sp_target *out, char *err, size_t errlen)
{
    int top = lua_gettop(L);
    lua_getfield(L, LUA_REGISTRYINDEX, LS_TARGETS);
    if (!lua_istable(L, -1) || lua_getfield(L, -1, name) != LUA_TTABLE) {
        char known[256];
        lua_settop(L, top);
        known_names(L, known, sizeof known);
        snprintf(err, errlen, "unknown target '%.60s' (known: %s)", name, known);
        return false;
    }
    sp_target t;
    memset(&t, 0, sizeof t);
    char msg[LS_ERR_MAX];
    bool ok = ls_target_read(L, -1, &t, true, NULL, msg, sizeof msg);
    lua_pop(L, 2);
    if (!ok) {
        snprintf(err, errlen, "built-in target '%.60s': %s", name, msg);
        return false;
    }
    if (!sp_target_check(&t, err, errlen))
        return false;
    *out = t;
    return true;
}

static int open_libs(lua_State *L)
{
    luaL_openlibs(L);
    return 0;
}

/* Runs f on a private interpreter holding the built-in targets. */
static bool with_builtins(bool (*f)(lua_State *, void *), void *arg, char *err, size_t errlen)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    lua_pushcfunction(L, open_libs);
    bool ok = lua_pcall(L, 0, 0, 0) == LUA_OK;
    if (!ok)
        snprintf(err, errlen, "out of memory");
    ok = ok && ls_targets_load(L, err, errlen) && f(L, arg);
    lua_close(L);
    return ok;
}

typedef struct {
    const char *name;
    sp_target *out;
    char *err;
    size_t errlen;
} builtin_req;

static bool do_builtin(lua_State *L, void *arg)
{
    builtin_req *r = arg;
    return ls_builtin_read(L, r->name, r->out, r->err, r->errlen);
}

/* Loads built-in target `name` into *out via a private interpreter. */
bool ls_builtin_target(const char *name, sp_target *out, char *err, size_t errlen)
{
    builtin_req r = {name, out, err, errlen};
    return with_builtins(do_builtin, &r, err, errlen);
}

static char names_cache[256];

static bool do_names(lua_State *L, void *arg)
{
    (void)arg;
    known_names(L, names_cache, sizeof names_cache);
    return true;
}

/* "ascend310, ascend910, ascend910b": computed once from targets.lua. */
const char *ls_builtin_names(void)
{
    if (!names_cache[0]) {
        char err[LS_ERR_MAX];
        with_builtins(do_names, NULL, err, sizeof err);
    }
    return names_cache;
}
