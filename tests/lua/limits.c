/* limits.c — hostile scripts: declarations after the top level,
 * time and memory limits, error objects, integer edges and list limits, --safe. */
#define _XOPEN_SOURCE 700
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "script.h"

static const char *const measures[] = {"model", "command", NULL};
static const char *const searches[] = {"model", "exhaustive", NULL};
static const ls_options opts = {.measures = measures, .default_measure = "model",
                                .searches = searches, .default_search = "model"};
static const ls_options opts_safe = {.measures = measures, .default_measure = "model",
                                     .searches = searches, .default_search = "model",
                                     .safe = true};
static const ls_options opts_small = {.measures = measures, .default_measure = "model",
                                      .searches = searches, .default_search = "model",
                                      .memory_limit = 32 << 20};

static char tmpdir[] = "/tmp/npu-tune-limits-XXXXXX";
static char err[LS_ERR_MAX];

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!CHECK(f != NULL))
        return;
    fputs(text, f);
    fclose(f);
}

/* Writes text to tmpdir/name and runs it by relative name with o; the open
 * script on success (caller closes), else NULL with the message in err. */
static ls_script *open_text(const ls_options *o, const char *name, const char *text)
{
    write_file(name, text);
    ls_script *s = ls_open(o);
    if (!CHECK(s != NULL))
        return NULL;
    CHECK(chdir(tmpdir) == 0);
    if (!ls_run_file(s, name, err, sizeof err)) {
        ls_close(s);
        return NULL;
    }
    return s;
}

static bool run_text(const ls_options *o, const char *text)
{
    ls_script *s = open_text(o, "bad.lua", text);
    ls_close(s);
    return s != NULL;
}

/* A bad script: must fail with exactly `want` (the whole message). */
#define BAD(o, text, want) bad_at((o), (text), (want), __LINE__)
/* A bad script whose message must start with `want`. */
#define BAD_START(o, text, want) bad_start_at((o), (text), (want), __LINE__)
#define GOOD(o, text) good_at((o), (text), __LINE__)

static void bad_at(const ls_options *o, const char *text, const char *want, int line)
{
    if (run_text(o, text))
        check_at(0, "script should fail", __FILE__, line);
    else
        check_str(err, want, "err", __FILE__, line);
}

static void bad_start_at(const ls_options *o, const char *text, const char *want, int line)
{
    if (run_text(o, text)) {
        check_at(0, "script should fail", __FILE__, line);
        return;
    }
    bool ok = strncmp(err, want, strlen(want)) == 0;
    if (!ok)
        fprintf(stderr, "%s:%d: err is\n  \"%s\"\nexpected it to start with\n  \"%s\"\n", __FILE__,
                line, err, want);
    check_at(ok, "err starts with want", __FILE__, line);
}

static void good_at(const ls_options *o, const char *text, int line)
{
    bool ok = run_text(o, text);
    if (!ok)
        fprintf(stderr, "%s:%d: %s\n", __FILE__, line, err);
    check_at(ok, "script should run", __FILE__, line);
}

/* A script whose first constraint call must fail with exactly `want`;
 * returns it open (caller closes) for more checks, NULL if it did not run. */
#define CONSTRAINT_FAILS(o, text, want) constraint_fails_at((o), (text), (want), __LINE__)

/* A legal config of the 64x64x64 problem. */
static const sp_config cfg = {.m = 64, .n = 64, .k = 64, .cores = 1, .strategy = SP_OS,
                              .split = SP_SPLIT_M};

static ls_script *constraint_fails_at(const ls_options *o, const char *text, const char *want,
                                      int line)
{
    ls_script *s = open_text(o, "c.lua", text);
    if (!check_at(s != NULL, "script runs", __FILE__, line)) {
        fprintf(stderr, "%s\n", err);
        return NULL;
    }
    check_int(ls_constraint(s, ls_problem(s, 0), &cfg, err, sizeof err), -1, "ls_constraint",
              __FILE__, line);
    check_str(err, want, "err", __FILE__, line);
    return s;
}

#define T "target \"ascend910\"\n"
#define MM "matmul { name = \"x\", shapes = { {64, 64, 64} } }\n"


/* Item 3: helpers at the integer limits, lists with stated limits. */
static void integer_edges(void)
{
    BAD(&opts, T MM "local m = range(math.mininteger, math.maxinteger)\n",
        "bad.lua:3: range: too many items (more than 1048576)");
    BAD(&opts, T MM "local m = range(-1, math.maxinteger)\n",
        "bad.lua:3: range: too many items (more than 1048576)");
    BAD(&opts, T MM "local m = multiples(1, math.maxinteger)\n",
        "bad.lua:3: multiples: too many items (more than 1048576)");
    GOOD(&opts, T MM "local r = range(math.mininteger, math.maxinteger, math.maxinteger)\n"
                     "assert(#r == 3 and r[1] == math.mininteger and r[2] == -1 and\n"
                     "       r[3] == math.maxinteger - 1)\n"
                     "r = range(math.maxinteger - 2, math.maxinteger)\n"
                     "assert(#r == 3 and r[3] == math.maxinteger)\n"
                     "r = range(math.mininteger, math.mininteger + 1)\n"
                     "assert(#r == 2 and r[1] == math.mininteger)\n"
                     "r = range(1, 10, math.maxinteger)\n"
                     "assert(#r == 1 and r[1] == 1)\n"
                     "r = multiples(math.maxinteger, math.maxinteger)\n"
                     "assert(#r == 1 and r[1] == math.maxinteger)\n"
                     "assert(#powers_of_two(1, math.maxinteger) == 63)\n"
                     "assert(#range(1, 1048576) == 1048576)\n");
    BAD(&opts, T MM "local m = range(1, 10, -1)\n", "bad.lua:3: range: step must be a positive integer");
    BAD(&opts, T MM "local m = range(1, 10, 0)\n", "bad.lua:3: range: step must be a positive integer");
    BAD(&opts, T MM "local m = range(1, 0/0)\n", "bad.lua:3: range: hi must be an integer");
    BAD(&opts, T MM "local m = range(-math.huge, 1)\n", "bad.lua:3: range: lo must be an integer");
    BAD(&opts, T MM "local m = range(1, 2^70)\n", "bad.lua:3: range: hi must be an integer");
    BAD(&opts, T MM "local m = multiples(16, math.huge)\n",
        "bad.lua:3: multiples: max must be a positive integer");
    BAD(&opts, T MM "local m = powers_of_two(0.5, 4)\n",
        "bad.lua:3: powers_of_two: lo must be a positive integer");
    BAD(&opts, T MM "space { m = range(math.maxinteger - 1, math.maxinteger) }\n",
        "bad.lua:3: space: 'm' must hold integers <= 1048576 (item 1 is 9223372036854775806)");
    BAD(&opts, T MM "space { cores = 2^62 }\n",
        "bad.lua:3: space: 'cores' must hold integers <= 1048576 (item 1 is 4611686018427387904)");

    /* Every list is at most 1048576 items long ... */
    BAD(&opts, T MM "local t = {}\nfor i = 1, 1048577 do t[i] = 16 end\nspace { m = t }\n",
        "bad.lua:5: space: 'm' has more than 1048576 items");
    BAD(&opts, T MM "local t = {}\nfor i = 1, 1048577 do t[i] = \"6x16\" end\nspace { micro = t }\n",
        "bad.lua:5: space: 'micro' has more than 1048576 items");
    BAD(&opts, T MM "local t = {}\nfor i = 1, 1048577 do t[i] = \"OS\" end\nspace { strategy = t }\n",
        "bad.lua:5: space: 'strategy' has more than 1048576 items");
    GOOD(&opts, T MM "local t = {}\nfor i = 1, 1048576 do t[i] = i end\nspace { cores = t }\n");
    /* ... and a script declares at most 10000 problems. */
    BAD(&opts, T "local s = {}\nfor i = 1, 10001 do s[i] = { 16, 16, i } end\n"
                 "matmul { name = \"x\", shapes = s }\n",
        "bad.lua:4: matmul: 'shapes' would make 10001 problems; a script declares at most 10000");
    BAD(&opts, T "local s = {}\nfor i = 1, 5000 do s[i] = { 16, 16, i } end\n"
                 "matmul { name = \"x\", shapes = s }\nmatmul { name = \"y\", shapes = s }\n"
                 "matmul { name = \"z\", shapes = { {1, 1, 1} } }\n",
        "bad.lua:6: matmul: 'shapes' would make 10001 problems; a script declares at most 10000");
    GOOD(&opts, T "local s = {}\nfor i = 1, 10000 do s[i] = { 16, 16, i } end\n"
                  "matmul { name = \"x\", shapes = s }\n");
}

/* Item 1: after the top level returned, every declaration is an error and
 * nothing the script declared moves or changes. */
static void late_declarations(void)
{
    /* A constraint that declares problems: the problem array stays where it
     * is (the caller holds pointers into it: ASan would see the realloc). */
    ls_script *s = open_text(&opts, "late.lua",
                             T MM
                             "local shapes = {}\n"
                             "for i = 1, 100 do shapes[i] = { 16, 16, 16 } end\n"
                             "space { constraint = function(c)\n"
                             "  matmul { name = \"y\", shapes = shapes }\n"
                             "  return true\n"
                             "end }\n");
    if (CHECK(s != NULL)) {
        const sp_problem *p = ls_problem(s, 0);
        CHECK_INT(ls_constraint(s, p, &cfg, err, sizeof err), -1);
        CHECK_STR(err, "late.lua:6: matmul: declarations are only allowed while the script runs; "
                       "the constraint (late.lua:5) is called during tuning");
        CHECK_INT(ls_nproblems(s), 1);
        CHECK_STR(p->name, "x");
        CHECK(ls_problem(s, 0) == p);
        ls_close(s);
    }

    /* tune from a constraint would bypass the checks of measure and target. */
    s = open_text(&opts, "late.lua",
                  T MM "space { constraint = function(c)\n"
                       "  if c.m == 64 then tune { measure = \"host\" } end\n"
                       "  return true\n"
                       "end }\n");
    if (CHECK(s != NULL)) {
        sp_config c = cfg;
        c.m = 32;
        CHECK_INT(ls_constraint(s, ls_problem(s, 0), &c, err, sizeof err), 1);
        CHECK_INT(ls_constraint(s, ls_problem(s, 0), &cfg, err, sizeof err), -1);
        CHECK_STR(err, "late.lua:4: tune: declarations are only allowed while the script runs; "
                       "the constraint (late.lua:3) is called during tuning");
        CHECK_STR(ls_tune_get(s)->measure, "model");
        ls_close(s);
    }

    /* Caught by the constraint itself: nothing changed, the call goes on. */
    s = open_text(&opts, "late.lua",
                  T MM "space { constraint = function(c)\n"
                       "  return not pcall(space, {})\n"
                       "end }\n");
    if (CHECK(s != NULL)) {
        CHECK_INT(ls_constraint(s, ls_problem(s, 0), &cfg, err, sizeof err), 1);
        CHECK(ls_has_constraint(s));
        ls_close(s);
    }

    /* A __gc finalizer runs whenever the collector decides: never a
     * declaration, even while the script runs (Lua would swallow the error,
     * so the run reports it). */
    BAD(&opts,
        T MM "setmetatable({}, { __gc = function()\n"
             "  matmul { name = \"y\", shapes = { {16, 16, 16} } }\n"
             "end })\n"
             "collectgarbage()\n",
        "bad.lua:4: matmul: declarations are not allowed in a __gc finalizer (it runs "
        "whenever the garbage collector decides)");
    /* ... garbage the script left behind is collected before the run ends. */
    BAD(&opts,
        T MM "setmetatable({}, { __gc = function()\n"
             "  target \"ascend310\"\n"
             "end })\n",
        "bad.lua:4: target: declarations are not allowed in a __gc finalizer (it runs "
        "whenever the garbage collector decides)");
    /* ... during the constraint phase: that call fails. */
    s = CONSTRAINT_FAILS(&opts,
                         T MM "local keep = setmetatable({}, { __gc = function()\n"
                              "  tune { budget = 3 }\n"
                              "end })\n"
                              "space { constraint = function(c)\n"
                              "  keep = nil\n"
                              "  collectgarbage()\n"
                              "  return true\n"
                              "end }\n",
                         "c.lua:4: tune: declarations are not allowed in a __gc finalizer (it "
                         "runs whenever the garbage collector decides)");
    if (s)
        CHECK_INT(ls_tune_get(s)->budget, 32);
    ls_close(s);
    /* ... when the interpreter closes: refused, nothing to report, no crash. */
    s = open_text(&opts, "late.lua",
                  T MM "keep = setmetatable({}, { __gc = function()\n"
                       "  matmul { name = \"y\", shapes = { {16, 16, 16} } }\n"
                       "end })\n");
    if (CHECK(s != NULL)) {
        CHECK_INT(ls_nproblems(s), 1);
        ls_close(s);
    }

    /* A declaration inside another (a metamethod of its table). */
    BAD(&opts,
        T MM "space(setmetatable({}, { __index = function(t, k)\n"
             "  if k == \"m\" then matmul { name = \"y\", shapes = { {16, 16, 16} } } end\n"
             "end }))\n",
        "bad.lua:4: matmul: called while space {} reads its table (declarations do not nest)");
}

/* Item 2: bounded time (an instruction-count hook) and memory. */
static void limits(void)
{
    BAD(&opts, T MM "tune { script_timeout = 0.2 }\nwhile true do end\n",
        "bad.lua:4: the script ran for more than 0.2 s (tune { script_timeout = ... } raises "
        "the limit)");
    /* Catching the error does not help: past the limit every instruction raises. */
    BAD(&opts,
        T MM "tune { script_timeout = 0.2 }\n"
             "local function spin() while true do end end\n"
             "while true do pcall(spin) end\n",
        "bad.lua:5: the script ran for more than 0.2 s (tune { script_timeout = ... } raises "
        "the limit)");
    /* ... nor does a coroutine. */
    BAD(&opts,
        T MM "tune { script_timeout = 0.2 }\n"
             "while true do coroutine.resume(coroutine.create(function() while true do end end)) end\n",
        "bad.lua:4: the script ran for more than 0.2 s (tune { script_timeout = ... } raises "
        "the limit)");
    BAD(&opts, T MM "tune { script_timeout = 0 }\n",
        "bad.lua:3: tune: 'script_timeout' must be a positive number");
    BAD(&opts, T MM "tune { constraint_timeout = 0/0 }\n",
        "bad.lua:3: tune: 'constraint_timeout' must be a positive number");
    BAD(&opts, T MM "tune { script_timout = 1 }\n",
        "bad.lua:3: tune: unknown key 'script_timout' (did you mean 'script_timeout'?)");

    ls_script *s = open_text(&opts, "t.lua", T MM);
    if (CHECK(s != NULL)) {
        CHECK_DBL(ls_tune_get(s)->script_timeout, 60);
        CHECK_DBL(ls_tune_get(s)->constraint_timeout, 60);
        ls_close(s);
    }

    /* The constraint phase: one endless call ... */
    s = CONSTRAINT_FAILS(&opts,
                         T MM "tune { constraint_timeout = 0.2 }\n"
                              "space { constraint = function(c)\n"
                              "  while true do end\n"
                              "end }\n",
                         "c.lua:5: the constraint ran for more than 0.2 s in all (tune { "
                         "constraint_timeout = ... } raises the limit)");
    /* the phase is over: later calls fail at once */
    if (s)
        CHECK_INT(ls_constraint(s, ls_problem(s, 0), &cfg, err, sizeof err), -1);
    ls_close(s);
    /* ... or many calls that are slow together (each takes 0.05 s of CPU):
     * without a limit on all calls together, the 200 calls would pass. */
    s = open_text(&opts, "t.lua",
                  T MM "tune { constraint_timeout = 0.3 }\n"
                       "space { constraint = function(c) local t = os.clock() "
                       "while os.clock() - t < 0.05 do end return true end }\n");
    if (CHECK(s != NULL)) {
        int r = 1, calls = 0;
        while (r == 1 && calls < 200) {
            r = ls_constraint(s, ls_problem(s, 0), &cfg, err, sizeof err);
            calls++;
        }
        CHECK_INT(r, -1);
        CHECK_STR(err, "t.lua:4: the constraint ran for more than 0.3 s in all (tune { "
                       "constraint_timeout = ... } raises the limit)");
        ls_close(s);
    }
    /* Memory: the allocation that went beyond the limit names its line. */
    BAD(&opts_small, T MM "local t = {}\nfor i = 1, 1e9 do t[i] = i end\n",
        "bad.lua:4: not enough memory (a script may use at most 32 MiB)");
    BAD(&opts_small, T MM "local s = string.rep(\"x\", 1 << 30)\n",
        "bad.lua:3: not enough memory (a script may use at most 32 MiB)");
    /* ... in a constraint too. */
    ls_close(CONSTRAINT_FAILS(&opts_small,
                              T MM "space { constraint = function(c)\n"
                                   "  local t = {}\n"
                                   "  for i = 1, 1e9 do t[i] = { i } end\n"
                                   "end }\n",
                              "c.lua:5: not enough memory (a script may use at most 32 MiB)"));
}

/* Item 9: whatever the script raises, the first line names the file. */
static void error_objects(void)
{
    BAD_START(&opts, T MM "error(nil)\n", "bad.lua:3: (error object is a nil value)\nstack traceback:");
    BAD_START(&opts, T MM "error({})\n", "bad.lua:3: (error object is a table value)\nstack traceback:");
    BAD_START(&opts, T MM "error(true)\n", "bad.lua:3: (error object is a boolean value)\nstack traceback:");
    BAD_START(&opts, T MM "error(setmetatable({}, { __tostring = function() return \"mine\" end }))\n",
              "bad.lua:3: mine\nstack traceback:");
    BAD_START(&opts, T MM "error(\"plain\", 0)\n", "bad.lua:3: plain\nstack traceback:");
    BAD_START(&opts, T MM "error(42)\n", "bad.lua:3: 42\nstack traceback:");
    /* A message that has its place keeps it. */
    BAD_START(&opts, T MM "error(\"x\")\n", "bad.lua:3: x\nstack traceback:");
    ls_script *s = open_text(&opts, "e.lua",
                             T MM "space { constraint = function(c)\n  error(nil)\nend }\n");
    if (CHECK(s != NULL)) {
        CHECK_INT(ls_constraint(s, ls_problem(s, 0), &cfg, err, sizeof err), -1);
        const char *want = "e.lua:4: (error object is a nil value)\nstack traceback:";
        CHECK_PREFIX(err, want);
    }
    ls_close(s);
}

/* --safe: only base, string, table and math; no file system, no shell. */
static void safe(void)
{
    write_file("inc.lua", "return 42\n");
    /* Without --safe a script is code like a Makefile. */
    GOOD(&opts, T MM "local f = assert(io.open(\"inc.lua\"))\n"
                     "assert(f:read(\"a\") == \"return 42\\n\")\n"
                     "f:close()\n"
                     "assert(os.execute(\"true\"))\n"
                     "assert(require(\"string\") == string)\n"
                     "assert(dofile(\"inc.lua\") == 42)\n"
                     "assert(loadfile(\"inc.lua\")() == 42)\n"
                     "assert(load(string.dump(function() return 7 end))() == 7)\n"
                     "tune { measure = { command = \"./board {kernel}\" } }\n");
    /* Each withheld name is an error saying why, where it is read. */
    static const struct { const char *code, *name; } withheld[] = {
        {"local f = io.open(\"inc.lua\")", "io"},  {"os.execute(\"true\")", "os"},
        {"local m = require(\"string\")", "require"}, {"dofile(\"inc.lua\")", "dofile"},
        {"loadfile(\"inc.lua\")", "loadfile"},    {"local d = debug.getinfo(1)", "debug"},
        {"local p = package", "package"}};
    for (size_t i = 0; i < sizeof withheld / sizeof *withheld; i++) {
        char text[256], want[256];
        snprintf(text, sizeof text, T MM "%s\n", withheld[i].code);
        snprintf(want, sizeof want, "bad.lua:3: '%s' is not available with --safe (scripts get only "
                 "the base, string, table and math libraries)", withheld[i].name);
        BAD(&opts_safe, text, want);
    }
    /* Text chunks load, binary ones do not; other globals read as nil. */
    GOOD(&opts_safe, T MM "assert(load(\"return 1 + 1\")() == 2)\n"
                          "assert(load(\"return x\", \"c\", \"t\", { x = 5 })() == 5)\n"
                          "local f, e = load(string.dump(function() return 7 end))\n"
                          "assert(f == nil and e:find(\"binary\"))\n"
                          "f, e = load(string.dump(function() return 7 end), \"b\", \"b\")\n"
                          "assert(f == nil)\n"
                          "assert(undefined_global == nil)\n"
                          "assert(string.rep(\"a\", 3) == \"aaa\" and math.max(1, 2) == 2)\n"
                          "assert(table.concat({ 1, 2 }, \",\") == \"1,2\")\n"
                          "collectgarbage()\n");
    BAD(&opts_safe, T MM "tune { measure = { command = \"./board {kernel}\" } }\n",
        "bad.lua:3: tune: measure {command = ...} runs a shell command: --safe forbids it");
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    integer_edges();
    late_declarations();
    limits();
    error_objects();
    safe();
    static const char *const names[] = {"bad.lua", "late.lua", "t.lua", "c.lua", "e.lua", "inc.lua"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        remove(path);
    }
    rmdir(tmpdir);
    return CHECK_DONE();
}
