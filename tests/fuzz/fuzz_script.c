/* fuzz_script.c — libFuzzer harness of the Lua DSL loader (lua/): the input is a
 * tuning script, run from a file as `npu-tune SCRIPT.lua` runs it; what loads is
 * read back and its constraint called. Each input runs as under --safe, with
 * the time and memory limits lowered (FZ_SECONDS, FZ_MEMORY). */
#define _POSIX_C_SOURCE 200809L
#include "fuzz.h"

#include <lauxlib.h>
#include <lua.h>

#include "internal.h"
#include "measure.h"
#include "search.h"

/* Each input's Lua: one second for the script file and for the constraint
 * calls (whatever the script's tune {} says), 64 MiB. */
#define FZ_SECONDS 1.0
#define FZ_MEMORY ((size_t)64 << 20)

/* --safe keeps the shell, files and modules away (the fuzzer would run what
 * it writes); Lua's pattern matcher goes too: its backtracking runs in C,
 * where the time limit's count hook cannot stop it. */
static void no_patterns(lua_State *L)
{
    static const char *const patterns[] = {"find", "match", "gmatch", "gsub"};
    lua_getglobal(L, "string");
    for (size_t i = 0; i < sizeof patterns / sizeof *patterns; i++) {
        lua_pushnil(L);
        lua_setfield(L, -2, patterns[i]);
    }
    lua_pop(L, 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fz_path(0, "script.lua");
    fz_write(path, data, size);
    ls_options lo = {.measures = ms_backend_names, .default_measure = "sim",
                     .searches = tn_search_names, .default_search = "model",
                     .safe = true, .memory_limit = FZ_MEMORY, .time_cap = FZ_SECONDS};
    ls_script *s = ls_open(&lo);
    FZ_CHECK(s != NULL);
    no_patterns(s->L);

    char err[LS_ERR_MAX];
    if (!ls_run_file(s, path, err, sizeof err)) {
        FZ_CHECK(err[0] != '\0');
        ls_close(s);
        return 0;
    }
    const sp_target *t = ls_target(s);
    FZ_CHECK(t->name[0] != '\0');
    const ls_tune *tu = ls_tune_get(s);
    FZ_CHECK(tu->measure && tu->search && tu->results && tu->table && tu->budget >= 1);
    size_t np = ls_nproblems(s);
    FZ_CHECK(np >= 1);
    for (size_t i = 0; i < np; i++) {
        /* a copy: the constraint below runs Lua */
        sp_problem p = *ls_problem(s, i);
        FZ_CHECK(p.M >= 1 && p.N >= 1 && p.K >= 1 && p.batch >= 1);
        FZ_CHECK(ls_problem_where(s, i)[0] != '\0');
        const sp_space *sp = ls_space(s);
        sp_config c = {.m = 16, .n = 16, .k = 16, .cores = 1, .strategy = SP_OS};
        if (sp->m.n)
            c.m = sp->m.v[0];
        if (ls_has_constraint(s) && ls_constraint(s, &p, &c, err, sizeof err) < 0)
            FZ_CHECK(err[0] != '\0');
    }
    ls_close(s);
    return 0;
}
