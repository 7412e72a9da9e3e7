/* libs.c — the Lua libraries a script gets: all of them (a script is code, like
 * a Makefile), or with --safe only base, string, table and math. */
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "internal.h"

/* What --safe withholds (the libraries, and base's functions that read
 * files), named in its error message. */
static const char *const withheld[] = {"io",       "os",      "package",   "require", "debug",
                                       "dofile",   "loadfile", "coroutine", "utf8",    NULL};

/* __index of _G under --safe: reading a withheld name is an error saying
 * why; any other missing global is nil, as always. */
static int safe_index(lua_State *L)
{
    const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    for (const char *const *w = withheld; k && *w; w++)
        if (strcmp(*w, k) == 0)
            ls_fail(L, NULL, "'%s' is not available with --safe (scripts get only the base, "
                    "string, table and math libraries)", k);
    return 0;
}

/* load(chunk [, name [, mode [, env]]]) of text only, whatever the mode:
 * a binary chunk skips the compiler's checks. Calls base's load (upvalue 1). */
static int load_text(lua_State *L)
{
    if (lua_gettop(L) < 3)
        lua_settop(L, 3); /* an absent env stays absent: load tells nil from none */
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

void ls_libs_open(lua_State *L, bool safe)
{
    if (!safe) {
        luaL_openlibs(L);
        return;
    }
    static const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},
                                    {LUA_STRLIBNAME, luaopen_string},
                                    {LUA_TABLIBNAME, luaopen_table},
                                    {LUA_MATHLIBNAME, luaopen_math}};
    for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
        luaL_requiref(L, libs[i].name, libs[i].func, 1);
        lua_pop(L, 1);
    }
    lua_pushglobaltable(L);
    lua_pushnil(L);
    lua_setfield(L, -2, "dofile");
    lua_pushnil(L);
    lua_setfield(L, -2, "loadfile");
    lua_getfield(L, -1, "load");
    lua_pushcclosure(L, load_text, 1);
    lua_setfield(L, -2, "load");
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, safe_index);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_pop(L, 1);
}
