/* limits.c — what a script may take: memory through a counting allocator,
 * time through an instruction-count hook that reads a monotonic clock. */
#include <stdio.h>
#include <stdlib.h>

#include <lua.h>

#include "base.h"
#include "internal.h"

/* The hook runs every LS_HOOK_COUNT instructions: one clock read per some
 * tens of microseconds of Lua. */
#define LS_HOOK_COUNT 10000

static size_t memory_limit(const ls_script *s)
{
    return s->opts.memory_limit ? s->opts.memory_limit : LS_MEMORY_LIMIT;
}

/* lua_Alloc: realloc and free, refusing to grow beyond the limit. (For a
 * new block ptr is NULL and osize says what Lua builds, not a size.) */
static void *allocate(void *ud, void *ptr, size_t osize, size_t nsize)
{
    ls_script *s = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        s->mem_used -= old;
        return NULL;
    }
    if (nsize > old && nsize - old > memory_limit(s) - s->mem_used) {
        /* The last refusal before the error: Lua retries once after an
         * emergency collection. */
        if (s->L && s->phase != LS_IDLE && !ls_where_from(s->L, 0, s->mem_where))
            s->mem_where[0] = '\0';
        s->mem_hit = true;
        return NULL;
    }
    void *p = realloc(ptr, nsize);
    if (p)
        s->mem_used = s->mem_used - old + nsize;
    return p;
}

ls_script *ls_script_of(lua_State *L)
{
    void *ud;
    lua_getallocf(L, &ud);
    return ud;
}

/* Seconds the running phase has taken (all constraint calls together). */
static double spent(const ls_script *s)
{
    return bs_now() - s->clock_start + (s->phase == LS_CONSTRAINT ? s->constraint_spent : 0);
}

static double time_limit(const ls_script *s)
{
    double t = s->phase == LS_CONSTRAINT ? s->tune.constraint_timeout : s->tune.script_timeout;
    return s->opts.time_cap > 0 && s->opts.time_cap < t ? s->opts.time_cap : t;
}

/* The count hook: past the phase's limit, raises "file:line: the script ran
 * for more than 60 s (...)" where the code was; from then on at every
 * instruction, so that a script catching the error cannot go on. */
static void hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    ls_script *s = ls_script_of(L);
    if (s->phase == LS_IDLE || spent(s) <= time_limit(s))
        return;
    s->expired = true;
    lua_sethook(L, hook, LUA_MASKCOUNT, 1);
    if (L != s->L) /* a coroutine: its resumer too */
        lua_sethook(s->L, hook, LUA_MASKCOUNT, 1);
    char where[LS_WHERE_MAX], msg[256];
    if (!ls_where_from(L, 0, where))
        snprintf(where, sizeof where, "%s", s->path ? s->path : "");
    if (s->phase == LS_CONSTRAINT)
        snprintf(msg, sizeof msg, "the constraint ran for more than %g s in all (tune { "
                 "constraint_timeout = ... } raises the limit)", time_limit(s));
    else
        snprintf(msg, sizeof msg, "the script ran for more than %g s (tune { script_timeout "
                 "= ... } raises the limit)", time_limit(s));
    ls_raise(L, where, msg);
}

lua_State *ls_state_new(ls_script *s)
{
    lua_State *L = lua_newstate(allocate, s);
    /* Threads the script creates inherit the hook. */
    if (L)
        lua_sethook(L, hook, LUA_MASKCOUNT, LS_HOOK_COUNT);
    return L;
}

void ls_phase_begin(ls_script *s, ls_phase p)
{
    s->phase = p;
    s->clock_start = bs_now();
    s->late[0] = '\0';
    s->mem_hit = false;
    s->mem_where[0] = '\0';
    /* The hook's count carries over from call to call (so that many short
     * constraint calls are timed too); only an expired phase changes it, and
     * a constraint phase already out of time stops at its first instruction. */
    bool out = p == LS_CONSTRAINT && s->constraint_spent > time_limit(s);
    if (out || s->expired)
        lua_sethook(s->L, hook, LUA_MASKCOUNT, out ? 1 : LS_HOOK_COUNT);
    s->expired = out;
}

void ls_phase_end(ls_script *s)
{
    if (s->phase == LS_CONSTRAINT)
        s->constraint_spent += bs_now() - s->clock_start;
    s->phase = LS_IDLE;
}

void ls_memory_error(const ls_script *s, char *buf, size_t len)
{
    const char *where = s->mem_where[0] ? s->mem_where : s->path ? s->path : "";
    size_t limit = memory_limit(s);
    char most[64] = "";
    if (s->mem_hit && limit % (1u << 30) == 0)
        snprintf(most, sizeof most, " (a script may use at most %zu GiB)", limit >> 30);
    else if (s->mem_hit)
        snprintf(most, sizeof most, " (a script may use at most %zu MiB)", (limit + (1u << 20) - 1) >> 20);
    snprintf(buf, len, "%s%snot enough memory%s", where, where[0] ? ": " : "", most);
}
