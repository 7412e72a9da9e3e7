/* target_file.c — targets in files of their own: what ls_target_write writes,
 * `target "X.lua"` and ls_builtin_target read back exactly; hostile files. */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "files.h"
#include "script.h"

static const char *const measures[] = {"model", "sim", NULL};
static const char *const searches[] = {"model", NULL};
static const ls_options opts = {.measures = measures, .default_measure = "model",
                                .searches = searches, .default_search = "model"};

static char dir[] = "/tmp/npu-tune-target-file-XXXXXX";
static char err[LS_ERR_MAX];

/* Runs a script of `text` and copies its target into *t; false with err. */
static bool script_target(const char *text, sp_target *t)
{
    const char *path = path_in(dir, "s.lua");
    put_mode(path, text, "w");
    ls_script *s = ls_open(&opts);
    bool ok = ls_run_file(s, path, err, sizeof err);
    if (ok)
        *t = *ls_target(s);
    ls_close(s);
    return ok;
}

/* A script whose target is `target "FILE"`, FILE in the scratch directory. */
static bool load(const char *file, sp_target *t)
{
    char text[1024];
    snprintf(text, sizeof text, "target \"%s\"\nmatmul { name = \"p\", shapes = {{64, 64, 64}} }\n",
             path_in(dir, file));
    return script_target(text, t);
}

static void round_trip(void)
{
    sp_target t, back;
    CHECK(ls_builtin_target("ascend910", &t, err, sizeof err));
    /* figures that only read back exactly when written in full */
    snprintf(t.name, sizeof t.name, "ascend910-calibrated");
    t.path[SP_GM_L1].bandwidth = 61.234567890123456;
    t.path[SP_UB_GM].latency = 1.0 / 3.0;
    t.gm_bandwidth = 1e-3 * 987654.321;
    t.clock_mhz = 1234.5;
    const char *notes[SP_TARGET_NFIELDS] = {0};
    notes[18] = "fitted: default 64";
    const char *path = path_in(dir, "t.lua");
    CHECK(ls_target_write(path, &t, "written by a test\nsecond line", notes, err, sizeof err));
    const char *text = slurp(path);
    CHECK_PREFIX(text, "-- written by a test\n-- second line\nreturn {\n");
    CHECK_HAS(text, "  gm_l1 = {\n    bandwidth = 61.23456789012346,  -- fitted: default 64\n");
    CHECK(load("t.lua", &back));
    char why[256] = "";
    CHECK(sp_target_same(&back, &t, why, sizeof why));
    if (why[0])
        printf("differs: %s\n", why);
    /* the commands' --target PATH */
    memset(&back, 0, sizeof back);
    CHECK(ls_builtin_target(path, &back, err, sizeof err));
    CHECK(sp_target_same(&back, &t, NULL, 0));

    /* a CPU target, fork_join and all */
    sp_target c = {.name = "cpu-x", .kind = SP_CPU, .cores = 4, .clock_mhz = 2900.5,
                   .cpu = {.simd_floats = 8, .vregs = 16, .fma_units = 2, .load_ports = 2,
                           .cache = {32768, 1 << 20, 16 << 20}, .bw_l2 = 48.5, .bw_l3 = 20.25,
                           .bw_mem = 9.125, .bw_mem_shared = 30, .fork_join = 4321.5}};
    CHECK(ls_target_write(path_in(dir, "c.lua"), &c, NULL, NULL, err, sizeof err));
    CHECK(load("c.lua", &back));
    CHECK(sp_target_same(&back, &c, why, sizeof why));
    CHECK(!strstr(slurp(path_in(dir, "c.lua")), "gm_l1"));

    /* a script derives from a file like from a built-in */
    char s[1024];
    snprintf(s, sizeof s,
             "target { base = \"%s\", cores = 8 }\nmatmul { name = \"p\", shapes = {{64, 64, 64}} }\n",
             path);
    CHECK(script_target(s, &back));
    CHECK_STR(back.name, "t-custom");
    CHECK_INT(back.cores, 8);
    CHECK_DBL(back.path[SP_GM_L1].bandwidth, t.path[SP_GM_L1].bandwidth);
    /* a derived name keeps to the 40 characters a script's own name may have */
    const char *stem = "a_calibration_of_the_board_in_the_lab_rack_7";
    char file[64];
    snprintf(file, sizeof file, "%s.lua", stem);
    CHECK(ls_target_write(path_in(dir, file), &t, NULL, NULL, err, sizeof err));
    snprintf(s, sizeof s,
             "target { base = \"%s\" }\nmatmul { name = \"p\", shapes = {{64, 64, 64}} }\n",
             path_in(dir, file));
    CHECK(script_target(s, &back));
    CHECK_STR(back.name, "a_calibration_of_the_board_in_the-custom");
    CHECK_INT((int)strlen(back.name), 40);

    /* an invalid target is not written, and nothing is left */
    t.cores = 0;
    CHECK(!ls_target_write(path_in(dir, "bad.lua"), &t, NULL, NULL, err, sizeof err));
    CHECK_HAS(err, "field 'cores' must be a positive integer");
    CHECK(!any_file(path_in(dir, "bad.lua*")));
}

/* A file of `text`, loaded by a script: the script's error. */
static void refused(const char *text, const char *why)
{
    put_mode(path_in(dir, "h.lua"), text, "w");
    sp_target t;
    CHECK(!load("h.lua", &t));
    CHECK_HAS(err, why);
}

static void hostile(void)
{
    sp_target t;
    CHECK(!load("missing.lua", &t));
    CHECK_HAS(err, "s.lua:1: target: cannot open '");
    CHECK_HAS(err, "missing.lua': No such file or directory");
    refused("return 42\n", "h.lua: must return a target table");
    refused("return {\n  name = \n", "h.lua:3:");
    refused("while true do end\n", "runs too long for a target description");
    refused("return { base = \"ascend910\", cores = \"many\" }\n",
            "h.lua: field 'cores' must be an integer");
    refused("return { base = \"ascend910\", cores = 0 }\n",
            "field 'cores' must be a positive integer");
    refused("return { name = \"x\" }\n", "h.lua: field 'cores' is missing");
    /* no library: a description, not a program */
    refused("return io.open('/etc/passwd')\n", "attempt to index a nil value");
    /* no chains of files, no cycles */
    char text[600];
    snprintf(text, sizeof text, "return { base = \"%s\" }\n", path_in(dir, "h.lua"));
    refused(text, "'base' of a target file must be a built-in target");
    /* too large */
    FILE *f = fopen(path_in(dir, "h.lua"), "w");
    CHECK(f != NULL);
    for (int i = 0; f && i < 80000; i++)
        fputs("-- padding line\n", f);
    if (f)
        fclose(f);
    CHECK(!load("h.lua", &t));
    CHECK_HAS(err, "too large for a target description");
    /* a directory */
    CHECK(mkdir(path_in(dir, "d.lua"), 0700) == 0);
    CHECK(!ls_builtin_target(path_in(dir, "d.lua"), &t, err, sizeof err));
    CHECK_HAS(err, "d.lua': Is a directory");
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    round_trip();
    hostile();
    remove_tree(dir);
    return CHECK_DONE();
}
