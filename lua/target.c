/* target.c — target tables <-> sp_target through space's table of target
 * fields, and the built-in targets embedded from targets.lua. */
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

/* Every kind of target, as a mask of sp_target_field.kinds. */
#define ANY_KIND (~0u)

/* "\"npu\" or \"cpu\"": what a table's kind may be. */
static const char *kind_names(char *buf, size_t len)
{
    return sp_names_quoted(sp_kind_name, ", ", " or ", buf, len);
}

/* The fields of a target table: space's one table of them (space/figures.c). */
static const sp_target_field *const fields = sp_target_fields;
enum { NFIELDS = SP_TARGET_NFIELDS };

/* Field and group names ("macs", "gm_l1", ...) that can follow prefix
 * (NULL for the top level), as full dotted names, for suggestions. */
static size_t names_under(const char *prefix, unsigned kind, const char **out,
                          char groups[][32])
{
    size_t n = 0, plen = prefix ? strlen(prefix) : 0;
    for (size_t i = 0; i < NFIELDS; i++) {
        const char *f = fields[i].name;
        if (!(fields[i].kinds & kind))
            continue;
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

static bool is_group(const char *dotted, unsigned kind)
{
    size_t len = strlen(dotted);
    for (size_t i = 0; i < NFIELDS; i++)
        if ((fields[i].kinds & kind) && strncmp(fields[i].name, dotted, len) == 0 && fields[i].name[len] == '.')
            return true;
    return false;
}

/* Stores the value at the top of the stack into field f of t. */
static bool store(lua_State *L, const sp_target_field *f, sp_target *t, char *err, size_t errlen)
{
    char *p = (char *)t + f->off;
    lua_Integer i;
    switch (f->type) {
    case SP_FIELD_NAME: {
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
    case SP_FIELD_KIND: {
        int k = lua_type(L, -1) == LUA_TSTRING ? sp_kind_parse(lua_tostring(L, -1)) : -1;
        if (k < 0) {
            char names[64];
            snprintf(err, errlen, "field 'kind' must be %s", kind_names(names, sizeof names));
            return false;
        }
        *(uint8_t *)p = (uint8_t)k;
        return true;
    }
    case SP_FIELD_INT:
        if (!ls_get_int(L, -1, &i) || i < -2147483647 || i > 2147483647) {
            snprintf(err, errlen, "field '%s' must be an integer", f->name);
            return false;
        }
        *(int *)(void *)p = (int)i;
        return true;
    case SP_FIELD_I64:
        if (!ls_get_int(L, -1, &i)) {
            snprintf(err, errlen, "field '%s' must be an integer", f->name);
            return false;
        }
        *(int64_t *)(void *)p = (int64_t)i;
        return true;
    case SP_FIELD_NUM:
        if (lua_type(L, -1) != LUA_TNUMBER || !isfinite((double)lua_tonumber(L, -1))) {
            snprintf(err, errlen, "field '%s' must be a number", f->name);
            return false;
        }
        *(double *)(void *)p = (double)lua_tonumber(L, -1);
        return true;
    }
    return false;
}

/* Walks the table at idx whose fields (of kind k) are named under prefix. */
static bool read_level(lua_State *L, int idx, const char *prefix, const char *skip, int k,
                       sp_target *t, bool *seen, char *err, size_t errlen)
{
    unsigned kind = 1u << k;
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
        while (i < NFIELDS && !(strcmp(fields[i].name, dotted) == 0 && (fields[i].kinds & kind)))
            i++;
        bool foreign = is_group(dotted, ANY_KIND); /* a field of the other kind? */
        for (size_t j = 0; j < NFIELDS; j++)
            foreign |= strcmp(fields[j].name, dotted) == 0;
        bool ok;
        if (i < NFIELDS) {
            ok = store(L, &fields[i], t, err, errlen);
            seen[i] = true;
        } else if (is_group(dotted, kind)) {
            ok = lua_istable(L, -1);
            if (!ok)
                snprintf(err, errlen, "field '%s' must be a table", dotted);
            else
                ok = read_level(L, lua_gettop(L), dotted, NULL, k, t, seen, err, errlen);
        } else if (foreign) {
            snprintf(err, errlen, "field '%s' does not apply to %s targets", dotted,
                     sp_kind_name(k));
            ok = false;
        } else {
            const char *cands[NFIELDS];
            char groups[NFIELDS][32];
            size_t n = names_under(prefix, kind, cands, groups);
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
    /* The kind decides which fields exist: the table's own `kind`, else the
     * kind of the target being overridden, else the registry's first (an
     * NPU, as a target with no kind is). */
    idx = lua_absindex(L, idx);
    int k = complete ? 0 : t->kind;
    int type = lua_getfield(L, idx, "kind");
    int given = type == LUA_TSTRING ? sp_kind_parse(lua_tostring(L, -1)) : -1;
    lua_pop(L, 1);
    /* Judged before the other fields, whose meaning depends on it (and
     * which lua_next visits in no fixed order). */
    if (type != LUA_TNIL && given < 0) {
        char names[64];
        snprintf(err, errlen, "field 'kind' must be %s", kind_names(names, sizeof names));
        return false;
    }
    if (!complete && given >= 0 && given != k) {
        snprintf(err, errlen, "field 'kind' cannot change the kind of the base target (%s)",
                 sp_kind_name(k));
        return false;
    }
    if (given >= 0)
        k = given;
    unsigned kind = 1u << k;
    if (!read_level(L, idx, NULL, skip, k, t, seen, err, errlen))
        return false;
    for (size_t i = 0; complete && i < NFIELDS; i++)
        if (!seen[i] && !fields[i].optional && (fields[i].kinds & kind)) {
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

static ls_host_fn host_fn;

void ls_set_host(ls_host_fn fn) { host_fn = fn; }

/* The host target, detected on first use and remembered. */
static bool host_target(sp_target *out, char *err, size_t errlen)
{
    static sp_target host;
    static bool have;
    if (!have) {
        memset(&host, 0, sizeof host);
        if (!host_fn(&host, err, errlen))
            return false;
        if (!sp_target_check(&host, err, errlen))
            return false;
        have = true;
    }
    *out = host;
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
            if (lua_type(L, -1) == LUA_TSTRING && n < 63)
                names[n++] = lua_tostring(L, -1);
        }
        if (host_fn)
            names[n++] = "host";
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
    if (host_fn && strcmp(name, "host") == 0)
        return host_target(out, err, errlen);
    if (ls_target_path(name))
        return ls_target_file_read(L, name, out, err, errlen);
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

/* Whether target tables are being read inside a target file (whose base
 * may not be another file: no chains, no cycles). */
static int in_file;

bool ls_target_table(lua_State *L, int idx, sp_target *out, char *err, size_t errlen)
{
    sp_target t;
    memset(&t, 0, sizeof t);
    idx = lua_absindex(L, idx);
    bool ok;
    int base_type = lua_getfield(L, idx, "base");
    if (base_type == LUA_TNIL) {
        ok = ls_target_read(L, idx, &t, true, NULL, err, errlen);
    } else if (base_type != LUA_TSTRING) {
        snprintf(err, errlen, "'base' must be a string");
        ok = false;
    } else {
        const char *base = lua_tostring(L, -1);
        ok = !(in_file && ls_target_path(base));
        if (!ok)
            snprintf(err, errlen, "'base' of a target file must be a built-in target, not '%.60s'",
                     base);
        in_file++;
        ok = ok && ls_builtin_read(L, base, &t, err, errlen);
        in_file--;
        if (ok) {
            /* a file's name without its directory and .lua */
            const char *slash = strrchr(base, '/');
            const char *stem = slash ? slash + 1 : base;
            int n = ls_target_path(stem) ? (int)strlen(stem) - 4 : (int)strlen(stem);
            /* within the 40 characters a script's own name may have */
            snprintf(t.name, sizeof t.name, "%.*s-custom", n > 33 ? 33 : n, stem);
            ok = ls_target_read(L, idx, &t, false, "base", err, errlen);
        }
    }
    lua_pop(L, 1);
    if (ok)
        *out = t;
    return ok;
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
