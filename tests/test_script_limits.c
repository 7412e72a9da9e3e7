/* test_script_limits.c — hostile scripts (issue 22): integer edges and list limits. */
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
#define GOOD(o, text) good_at((o), (text), __LINE__)

static void bad_at(const ls_options *o, const char *text, const char *want, int line)
{
    if (run_text(o, text))
        check_at(0, "script should fail", __FILE__, line);
    else
        check_str(err, want, "err", __FILE__, line);
}

static void good_at(const ls_options *o, const char *text, int line)
{
    bool ok = run_text(o, text);
    if (!ok)
        fprintf(stderr, "%s:%d: %s\n", __FILE__, line, err);
    check_at(ok, "script should run", __FILE__, line);
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

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    integer_edges();
    static const char *const names[] = {"bad.lua", "late.lua", "t.lua", "c.lua", "e.lua", "inc.lua"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        remove(path);
    }
    rmdir(tmpdir);
    return CHECK_DONE();
}
