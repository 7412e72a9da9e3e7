/* values.c — the value helpers of the DSL (multiples, powers_of_two, range,
 * KiB, MiB) and the conversion of Lua lists into search axes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <lauxlib.h>
#include <lua.h>

#include "internal.h"

#define MAX_ITEMS SP_VALUE_MAX   /* helpers refuse to build longer lists, DSL keys to read them */

/* Integral number at idx (2^10 counts, "16" does not) into *out. */
bool ls_get_int(lua_State *L, int idx, lua_Integer *out)
{
    if (lua_type(L, idx) != LUA_TNUMBER)
        return false;
    if (lua_isinteger(L, idx)) {
        *out = lua_tointeger(L, idx);
        return true;
    }
    lua_Number x = lua_tonumber(L, idx);
    /* Within +-2^62 every float with an integral value converts exactly. */
    if (!(x == floor(x)) || !(fabs(x) <= 4611686018427387904.0))
        return false;
    *out = (lua_Integer)x;
    return true;
}

/* The value at idx as messages show it: -16, 1.5, 'abc', a table. */
const char *ls_describe(lua_State *L, int idx, char *buf, size_t len)
{
    lua_Integer i;
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
        if (ls_get_int(L, idx, &i))
            snprintf(buf, len, "%lld", (long long)i);
        else
            snprintf(buf, len, "%.14g", (double)lua_tonumber(L, idx));
        break;
    case LUA_TSTRING:
        snprintf(buf, len, "'%.40s'", lua_tostring(L, idx));
        break;
    case LUA_TBOOLEAN:
        snprintf(buf, len, "%s", lua_toboolean(L, idx) ? "true" : "false");
        break;
    case LUA_TNIL:
        snprintf(buf, len, "nil");
        break;
    default:
        snprintf(buf, len, "a %s", luaL_typename(L, idx));
        break;
    }
    return buf;
}

/* Positive integer argument `arg` (1-based) named `name`, or a DSL error. */
static lua_Integer arg_positive(lua_State *L, int arg, const char *fn, const char *name)
{
    lua_Integer v;
    if (!ls_get_int(L, arg, &v) || v < 1)
        ls_fail(L, fn, "%s must be a positive integer", name);
    return v;
}

static lua_Integer arg_integer(lua_State *L, int arg, const char *fn, const char *name)
{
    lua_Integer v;
    if (!ls_get_int(L, arg, &v))
        ls_fail(L, fn, "%s must be an integer", name);
    return v;
}

/* Number of items first, first + step, ..., <= last (step > 0, first <=
 * last), computed without overflow; MAX_ITEMS + 1 stands for any more. */
static lua_Unsigned sequence_count(lua_Integer first, lua_Integer last, lua_Integer step)
{
    /* last - first is below 2^64 but (last - first) / 1 + 1 may not be */
    lua_Unsigned steps = ((lua_Unsigned)last - (lua_Unsigned)first) / (lua_Unsigned)step;
    return steps < MAX_ITEMS ? steps + 1 : MAX_ITEMS + 1;
}

/* Pushes the list of `count` items first, first + step, ... */
static void push_sequence(lua_State *L, lua_Integer first, lua_Integer step, lua_Unsigned count)
{
    lua_createtable(L, (int)count, 0);
    for (lua_Unsigned i = 0; i < count; i++) {
        lua_pushinteger(L, (lua_Integer)((lua_Unsigned)first + i * (lua_Unsigned)step));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static int l_multiples(lua_State *L)
{
    lua_Integer step = arg_positive(L, 1, "multiples", "step");
    lua_Integer max = arg_positive(L, 2, "multiples", "max");
    if (step > max)
        ls_fail(L, "multiples", "step (%lld) is greater than max (%lld)",
                (long long)step, (long long)max);
    lua_Unsigned count = sequence_count(step, max, step);
    if (count > MAX_ITEMS)
        ls_fail(L, "multiples", "too many items (more than %d)", MAX_ITEMS);
    push_sequence(L, step, step, count);
    return 1;
}

static int l_powers_of_two(lua_State *L)
{
    lua_Integer lo = arg_positive(L, 1, "powers_of_two", "lo");
    lua_Integer hi = arg_positive(L, 2, "powers_of_two", "hi");
    if (lo > hi)
        ls_fail(L, "powers_of_two", "lo (%lld) is greater than hi (%lld)",
                (long long)lo, (long long)hi);
    lua_newtable(L);
    int n = 0;
    for (int e = 0; e < 63; e++) {
        lua_Integer p = (lua_Integer)1 << e;
        if (p > hi)
            break;
        if (p >= lo) {
            lua_pushinteger(L, p);
            lua_rawseti(L, -2, ++n);
        }
    }
    if (n == 0)
        ls_fail(L, "powers_of_two", "no power of two in [%lld, %lld]",
                (long long)lo, (long long)hi);
    return 1;
}

static int l_range(lua_State *L)
{
    lua_Integer lo = arg_integer(L, 1, "range", "lo");
    lua_Integer hi = arg_integer(L, 2, "range", "hi");
    lua_Integer step = lua_isnoneornil(L, 3) ? 1 : arg_positive(L, 3, "range", "step");
    if (lo > hi)
        ls_fail(L, "range", "lo (%lld) is greater than hi (%lld)", (long long)lo, (long long)hi);
    lua_Unsigned count = sequence_count(lo, hi, step);
    if (count > MAX_ITEMS)
        ls_fail(L, "range", "too many items (more than %d)", MAX_ITEMS);
    push_sequence(L, lo, step, count);
    return 1;
}

/* Installs multiples, powers_of_two, range, KiB and MiB as globals. */
void ls_values_install(lua_State *L)
{
    lua_pushcfunction(L, l_multiples);
    lua_setglobal(L, "multiples");
    lua_pushcfunction(L, l_powers_of_two);
    lua_setglobal(L, "powers_of_two");
    lua_pushcfunction(L, l_range);
    lua_setglobal(L, "range");
    lua_pushinteger(L, 1024);
    lua_setglobal(L, "KiB");
    lua_pushinteger(L, 1024 * 1024);
    lua_setglobal(L, "MiB");
}

/* Frees an axis and leaves it empty. */
void ls_axis_free(sp_axis *a)
{
    free(a->v);
    a->v = NULL;
    a->n = 0;
}

/* Checks item i (value on the top of the stack) of list `key`. */
static int32_t axis_item(lua_State *L, const char *fn, const char *key, size_t i)
{
    lua_Integer v;
    char d[64];
    if (!ls_get_int(L, -1, &v) || v < 1)
        ls_fail(L, fn, "'%s' must hold positive integers (item %zu is %s)", key, i,
                ls_describe(L, -1, d, sizeof d));
    if (v > SP_VALUE_MAX)
        ls_fail(L, fn, "'%s' must hold integers <= %d (item %zu is %lld)", key, SP_VALUE_MAX,
                i, (long long)v);
    return (int32_t)v;
}

/* Length of the list at idx; a DSL error if it has keys other than 1..n
 * or more than MAX_ITEMS items. */
size_t ls_list_len(lua_State *L, int idx, const char *fn, const char *key)
{
    idx = lua_absindex(L, idx);
    size_t n = (size_t)lua_rawlen(L, idx);
    if (n > MAX_ITEMS)
        ls_fail(L, fn, "'%s' has more than %d items", key, MAX_ITEMS);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_Integer i;
        lua_pop(L, 1);
        if (!ls_get_int(L, -1, &i) || i < 1 || (lua_Unsigned)i > n) {
            char d[64];
            ls_fail(L, fn, "'%s' must be a list (found key %s)", key,
                    ls_describe(L, -1, d, sizeof d));
        }
    }
    return n;
}

/* An integer or list of integers in [1, 2^20] at idx into *out, sorted
 * and distinct; DSL errors name fn and key. */
void ls_axis_read(lua_State *L, int idx, const char *fn, const char *key, sp_axis *out)
{
    idx = lua_absindex(L, idx);
    ls_axis_free(out);
    if (lua_type(L, idx) == LUA_TNUMBER) {
        lua_pushvalue(L, idx);
        int32_t v = axis_item(L, fn, key, 1);
        lua_pop(L, 1);
        out->v = malloc(sizeof *out->v);
        if (!out->v)
            luaL_error(L, "not enough memory");
        out->v[0] = v;
        out->n = 1;
        return;
    }
    if (!lua_istable(L, idx))
        ls_fail(L, fn, "'%s' must be an integer or a list of integers", key);
    size_t n = ls_list_len(L, idx, fn, key);
    if (n == 0)
        ls_fail(L, fn, "'%s' is empty", key);
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i);
        axis_item(L, fn, key, i);
        lua_pop(L, 1);
    }
    /* Everything is valid: nothing below can raise before out owns v. */
    out->v = malloc(n * sizeof *out->v);
    if (!out->v)
        luaL_error(L, "not enough memory");
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, (lua_Integer)i);
        out->v[i - 1] = (int32_t)lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    out->n = n;
    sp_axis_normalise(out);
}
