/* target_file.c — a target in a file of its own: `target "X.lua"` (and --target
 * X.lua) reads the table the file returns; calibrate writes such files. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>

#include "base.h"
#include "internal.h"

/* A target description is a table, not a program: this many bytes and Lua
 * instructions at most. */
#define FILE_MAX (1 << 20)
#define STEPS_MAX 1000000
#define HOOK_EVERY 1000

bool ls_target_path(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".lua") == 0;
}

static int steps_left;

static void step_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    if ((steps_left -= HOOK_EVERY) < 0)
        luaL_error(L, "runs too long for a target description");
}

/* Runs the chunk on top of the stack in an environment of KiB and MiB only,
 * under the instruction cap; leaves its first result (or the error) on top. */
static int run_chunk(lua_State *L)
{
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, 1024);
    lua_setfield(L, -2, "KiB");
    lua_pushinteger(L, 1024 * 1024);
    lua_setfield(L, -2, "MiB");
    lua_setupvalue(L, -2, 1);
    lua_Hook old = lua_gethook(L);
    int mask = lua_gethookmask(L), count = lua_gethookcount(L);
    steps_left = STEPS_MAX;
    lua_sethook(L, step_hook, LUA_MASKCOUNT, HOOK_EVERY);
    int status = lua_pcall(L, 0, 1, 0);
    lua_sethook(L, old, mask, count);
    return status;
}

bool ls_target_file_read(lua_State *L, const char *path, sp_target *out, char *err,
                         size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return false;
    }
    bool ok = bs_read_all(fd, &buf, &len);
    int e = errno;
    close(fd);
    if (!ok) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(e));
        return false;
    }
    if (len > FILE_MAX) {
        free(buf);
        snprintf(err, errlen, "'%s' is %zu bytes: too large for a target description", path,
                 len);
        return false;
    }
    int top = lua_gettop(L);
    lua_pushfstring(L, "@%s", path);
    int status = luaL_loadbufferx(L, buf, len, lua_tostring(L, -1), "t");
    free(buf);
    if (status == LUA_OK)
        status = run_chunk(L);
    if (status != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        snprintf(err, errlen, "%s", m ? m : "error without a message");
        lua_settop(L, top);
        return false;
    }
    if (!lua_istable(L, -1)) {
        snprintf(err, errlen, "%s: must return a target table (return { name = ..., ... })",
                 path);
        lua_settop(L, top);
        return false;
    }
    char msg[LS_ERR_MAX];
    ok = ls_target_table(L, -1, out, msg, sizeof msg) && sp_target_check(out, msg, sizeof msg);
    lua_settop(L, top);
    if (!ok)
        snprintf(err, errlen, "%s: %s", path, msg);
    return ok;
}

/* ---- writing ---- */

typedef struct {
    const sp_target *t;
    const char *comment;
    const char *const *notes;
} text;

/* The part of a field's name before its dot, or "" (length in *n). */
static const char *group_of(const char *name, size_t *n)
{
    const char *dot = strchr(name, '.');
    *n = dot ? (size_t)(dot - name) : 0;
    return name;
}

/* The value of field f of t as Lua text. */
static void value(const sp_target *t, const sp_target_field *f, char *buf, size_t len)
{
    const char *p = (const char *)t + f->off;
    switch (f->type) {
    case SP_FIELD_NAME: snprintf(buf, len, "\"%s\"", t->name); return;
    case SP_FIELD_KIND: snprintf(buf, len, "\"%s\"", sp_kind_name(t->kind)); return;
    case SP_FIELD_INT: snprintf(buf, len, "%d", *(const int *)(const void *)p); return;
    case SP_FIELD_I64: snprintf(buf, len, "%lld", (long long)*(const int64_t *)(const void *)p);
        return;
    default: bs_csv_number(buf, len, *(const double *)(const void *)p); return;
    }
}

static void note(FILE *f, const text *x, size_t i)
{
    if (x->notes && x->notes[i])
        fprintf(f, "  -- %s", x->notes[i]);
    fputc('\n', f);
}

static bool write_text(FILE *f, void *ctx)
{
    const text *x = ctx;
    unsigned kind = 1u << x->t->kind;
    for (const char *c = x->comment; c && *c;) {
        size_t n = strcspn(c, "\n");
        fprintf(f, "-- %.*s\n", (int)n, c);
        c += n + (c[n] == '\n');
    }
    fprintf(f, "return {\n");
    for (size_t i = 0; i < SP_TARGET_NFIELDS; i++) {
        const sp_target_field *fi = &sp_target_fields[i];
        size_t glen;
        const char *g = group_of(fi->name, &glen);
        char v[80];
        if (!(fi->kinds & kind))
            continue;
        if (!glen) {
            value(x->t, fi, v, sizeof v);
            fprintf(f, "  %s = %s,", fi->name, v);
            note(f, x, i);
            continue;
        }
        bool done = false; /* the group was written with an earlier field */
        for (size_t j = 0; j < i && !done; j++)
            done = (sp_target_fields[j].kinds & kind) &&
                   strncmp(sp_target_fields[j].name, g, glen + 1) == 0;
        if (done)
            continue;
        fprintf(f, "  %.*s = {\n", (int)glen, g);
        for (size_t j = i; j < SP_TARGET_NFIELDS; j++) {
            const sp_target_field *fj = &sp_target_fields[j];
            if ((fj->kinds & kind) && strncmp(fj->name, g, glen + 1) == 0) {
                value(x->t, fj, v, sizeof v);
                fprintf(f, "    %s = %s,", fj->name + glen + 1, v);
                note(f, x, j);
            }
        }
        fprintf(f, "  },\n");
    }
    fprintf(f, "}\n");
    return true;
}

bool ls_target_write(const char *path, const sp_target *t, const char *comment,
                     const char *const *notes, char *err, size_t errlen)
{
    if (!sp_target_check(t, err, errlen))
        return false;
    text x = {t, comment, notes};
    return bs_write_atomic(path, write_text, &x, err, errlen);
}
