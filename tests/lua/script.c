/* script.c — tests of the Lua script module: good scripts come back as
 * the right structs, bad ones fail with their exact one-line messages. */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "script.h"

static const char *const measures[] = {"model", NULL};
static const char *const measures_cmd[] = {"model", "command", NULL};
static const char *const searches[] = {"model", "exhaustive", NULL};
static const ls_options opts = {.measures = measures, .default_measure = "model",
                                .searches = searches, .default_search = "model"};
static const ls_options opts_cmd = {.measures = measures_cmd, .default_measure = "model",
                                    .searches = searches, .default_search = "model"};
/* The CLI's tuning run: the simulator unless the script says otherwise. */
static const char *const measures_sim[] = {"model", "sim", "command", NULL};
static const ls_options opts_sim = {.measures = measures_sim, .default_measure = "sim",
                                    .searches = searches, .default_search = "model"};

static char tmpdir[] = "/tmp/npu-tune-script-XXXXXX";
static char err[LS_ERR_MAX];

/* Runs fixture `name` from tests/scripts (relative path, so messages are
 * "name:line: ..."); NULL (and err set) on failure. */
static ls_script *run_fixture(const char *name)
{
    ls_script *s = ls_open(&opts);
    if (!CHECK(s != NULL))
        return NULL;
    if (!CHECK(chdir(NPU_TUNE_SCRIPTS_DIR) == 0) || !ls_run_file(s, name, err, sizeof err)) {
        ls_close(s);
        return NULL;
    }
    return s;
}

/* Writes text to tmpdir/name and runs it by relative name with o; returns
 * whether it ran; err holds the message. */
static bool run_text(const ls_options *o, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!CHECK(f != NULL))
        return false;
    fputs(text, f);
    fclose(f);
    ls_script *s = ls_open(o);
    CHECK(s != NULL);
    CHECK(chdir(tmpdir) == 0);
    bool ok = ls_run_file(s, name, err, sizeof err);
    ls_close(s);
    remove(path);
    return ok;
}

/* A bad script: must fail with exactly `want`. */
#define BAD(text, want) bad_at(&opts, (text), (want), __LINE__)
#define BAD_WITH(o, text, want) bad_at((o), (text), (want), __LINE__)

static void bad_at(const ls_options *o, const char *text, const char *want, int line)
{
    if (run_text(o, "bad.lua", text)) {
        check_at(0, "script should fail", __FILE__, line);
        return;
    }
    check_str(err, want, "err", __FILE__, line);
}

static void test_bert(void)
{
    ls_script *s = run_fixture("bert.lua");
    if (!CHECK(s != NULL)) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    const sp_target *t = ls_target(s);
    CHECK_STR(t->name, "ascend910");
    CHECK_INT(t->cores, 32);
    CHECK_INT(ls_nproblems(s), 3);
    static const int64_t shapes[3][3] = {{512, 768, 768}, {512, 3072, 768}, {512, 768, 3072}};
    for (size_t i = 0; i < 3; i++) {
        const sp_problem *p = ls_problem(s, i);
        CHECK_STR(p->name, "bert");
        CHECK_INT(p->dtype, SP_FP16);
        CHECK_INT(p->M, shapes[i][0]);
        CHECK_INT(p->N, shapes[i][1]);
        CHECK_INT(p->K, shapes[i][2]);
        CHECK_INT(p->batch, 1);
        CHECK_STR(ls_problem_where(s, i), "bert.lua:5");
    }
    CHECK_STR(ls_problem_where(s, 3), "");
    const sp_space *sp = ls_space(s);
    CHECK(sp->strategy[SP_IS] && sp->strategy[SP_WS] && sp->strategy[SP_OS]);
    CHECK_INT(sp->m.n, 32);
    CHECK_INT(sp->m.v[0], 16);
    CHECK_INT(sp->m.v[31], 512);
    CHECK_INT(sp->n.n, 192);
    CHECK_INT(sp->n.v[191], 3072);
    CHECK_INT(sp->k.n, 192);
    CHECK(sp->double_buffer[0] && sp->double_buffer[1]);
    CHECK_INT(sp->cores.n, 1);
    CHECK_INT(sp->cores.v[0], 1);
    CHECK_INT(sp->nsplit, 1);
    CHECK_INT(sp->split[0], SP_SPLIT_M);
    CHECK(!ls_has_constraint(s));
    const ls_tune *tu = ls_tune_get(s);
    CHECK_STR(tu->measure, "model");
    CHECK(tu->command == NULL);
    CHECK_STR(tu->search, "model");
    CHECK_INT(tu->budget, 32);
    CHECK_STR(tu->results, "results/bert.csv");
    CHECK_STR(tu->table, "results/bert-table.csv");
    CHECK_INT(tu->seed, 1);
    CHECK_DBL(tu->timeout, 60);
    CHECK(tu->verify);
    CHECK_INT(tu->calibrate, -1); /* not said: the backend's default */
    CHECK_INT(tu->final, 1);
    CHECK_STR(ls_where(s, "target"), "bert.lua:3");
    CHECK_STR(ls_where(s, "matmul"), "bert.lua:5");
    CHECK_STR(ls_where(s, "space"), "bert.lua:11");
    CHECK_STR(ls_where(s, "tune"), "bert.lua:22");
    CHECK_STR(ls_where(s, "constraint"), "");
    CHECK_STR(ls_where(s, "nothing"), "");
    ls_close(s);
}

static void test_derived(void)
{
    ls_script *s = run_fixture("derived.lua");
    if (!CHECK(s != NULL)) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    sp_target base;
    CHECK(ls_builtin_target("ascend910", &base, err, sizeof err));
    const sp_target *t = ls_target(s);
    CHECK_STR(t->name, "ascend910-custom");
    CHECK_INT(t->cores, 8);
    CHECK_INT(t->buf_bytes[SP_L1], 512 * 1024);
    CHECK_INT(t->buf_bytes[SP_L0A], 64 * 1024);
    CHECK_DBL(t->path[SP_GM_L1].bandwidth, 32);
    CHECK_DBL(t->path[SP_GM_L1].latency, 200);
    CHECK_DBL(t->macs[SP_FP16], 4096);
    CHECK_DBL(t->macs[SP_INT8], 4096);
    /* Everything not overridden is the base's. */
    sp_target want = base;
    snprintf(want.name, sizeof want.name, "ascend910-custom");
    want.cores = 8;
    want.buf_bytes[SP_L1] = 512 * 1024;
    want.path[SP_GM_L1].bandwidth = 32;
    want.macs[SP_INT8] = 4096;
    CHECK(memcmp(&want, t, sizeof want) == 0);
    ls_close(s);

    /* An explicit name wins. */
    CHECK(run_text(&opts, "named.lua",
                   "target { base = \"ascend310\", name = \"my310\", events = 4 }\n"
                   "matmul { name = \"x\", shapes = { {16, 16, 16} } }\n"));
}

static void test_scratch(void)
{
    ls_script *s = run_fixture("scratch.lua");
    if (!CHECK(s != NULL)) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    const sp_target *t = ls_target(s);
    CHECK_STR(t->name, "mynpu");
    CHECK_INT(t->cores, 4);
    CHECK_DBL(t->clock_mhz, 1500);
    CHECK_DBL(t->macs[SP_FP16], 1024);
    CHECK_DBL(t->macs[SP_INT8], 2048);
    static const int64_t bytes[SP_NBUF] = {2 << 20, 32 << 10, 32 << 10, 128 << 10, 128 << 10};
    static const int align[SP_NBUF] = {32, 512, 512, 512, 32};
    for (int b = 0; b < SP_NBUF; b++) {
        CHECK_INT(t->buf_bytes[b], bytes[b]);
        CHECK_INT(t->buf_align[b], align[b]);
    }
    static const double bw[SP_NPATH] = {128, 256, 128, 128, 64.5};
    static const double lat[SP_NPATH] = {300, 8, 8, 8, 300};
    for (int p = 0; p < SP_NPATH; p++) {
        CHECK_DBL(t->path[p].bandwidth, bw[p]);
        CHECK_DBL(t->path[p].latency, lat[p]);
    }
    CHECK_DBL(t->gm_bandwidth, 400);
    CHECK_INT(t->events, 16);
    CHECK_INT(ls_nproblems(s), 1);
    const sp_problem *p = ls_problem(s, 0);
    CHECK_STR(p->name, "small");
    CHECK_INT(p->dtype, SP_INT8);
    CHECK_INT(p->M, 64);
    CHECK_INT(p->N, 128);
    CHECK_INT(p->K, 256);
    CHECK_INT(p->batch, 3);
    ls_close(s);
}

static void test_helpers(void)
{
    ls_script *s = run_fixture("helpers.lua");
    if (!CHECK(s != NULL)) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    const sp_space *sp = ls_space(s);
    CHECK(!sp->strategy[SP_IS] && !sp->strategy[SP_WS] && sp->strategy[SP_OS]);
    static const int32_t m[] = {16, 32, 64, 128, 256}, n[] = {32, 64, 96}, k[] = {16, 32, 64};
    CHECK_INT(sp->m.n, 5);
    for (size_t i = 0; i < 5 && i < sp->m.n; i++)
        CHECK_INT(sp->m.v[i], m[i]);
    CHECK_INT(sp->n.n, 3);
    for (size_t i = 0; i < 3 && i < sp->n.n; i++)
        CHECK_INT(sp->n.v[i], n[i]);
    CHECK_INT(sp->k.n, 3);
    for (size_t i = 0; i < 3 && i < sp->k.n; i++)
        CHECK_INT(sp->k.v[i], k[i]);
    CHECK(!sp->double_buffer[0] && sp->double_buffer[1]);
    CHECK_INT(sp->cores.n, 1);
    CHECK_INT(sp->cores.v[0], 2);
    CHECK_INT(sp->nsplit, 2);
    CHECK_INT(sp->split[0], SP_SPLIT_MN);
    CHECK_INT(sp->split[1], SP_SPLIT_N);
    CHECK_STR(ls_target(s)->name, "ascend910b");
    ls_close(s);
}

static void test_defaults(void)
{
    ls_script *s = run_fixture("defaults.lua");
    if (!CHECK(s != NULL)) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK_INT(ls_nproblems(s), 3);
    const sp_problem *p = ls_problem(s, 0);
    CHECK_STR(p->name, "qkv");
    CHECK_INT(p->dtype, SP_INT8);
    CHECK_INT(p->M, 64);
    CHECK_INT(p->batch, 2);
    p = ls_problem(s, 1);
    CHECK_STR(p->name, "qkv");
    CHECK_INT(p->M, 32);
    CHECK_INT(p->K, 32);
    CHECK_INT(p->batch, 4);
    p = ls_problem(s, 2);
    CHECK_STR(p->name, "one");
    CHECK_INT(p->dtype, SP_FP16);
    CHECK_INT(p->N, 128);
    CHECK_INT(p->batch, 1);
    CHECK_STR(ls_problem_where(s, 1), "defaults.lua:5");
    CHECK_STR(ls_problem_where(s, 2), "defaults.lua:12");

    const sp_space *sp = ls_space(s);
    CHECK(sp->strategy[SP_IS] && sp->strategy[SP_WS] && sp->strategy[SP_OS]);
    CHECK_INT(sp->m.n, 0);
    CHECK_INT(sp->n.n, 0);
    CHECK_INT(sp->k.n, 0);
    CHECK(sp->double_buffer[0] && !sp->double_buffer[1]);
    CHECK_INT(sp->cores.n, 1);
    CHECK_INT(sp->cores.v[0], 1);
    CHECK_INT(sp->nsplit, 1);
    CHECK_INT(sp->split[0], SP_SPLIT_M);
    CHECK(!ls_has_constraint(s));
    CHECK_STR(ls_where(s, "space"), "");
    CHECK_STR(ls_where(s, "tune"), "");

    const ls_tune *tu = ls_tune_get(s);
    CHECK_STR(tu->measure, "model");
    CHECK_STR(tu->search, "model");
    CHECK(tu->command == NULL);
    CHECK_INT(tu->budget, 32);
    CHECK_STR(tu->results, "results/defaults.csv");
    CHECK_STR(tu->table, "results/defaults-table.csv");
    CHECK_INT(tu->seed, 1);
    CHECK_DBL(tu->timeout, 60);
    ls_close(s);

    /* The default search comes from the options; a command measure. */
    static const ls_options o = {.measures = measures_cmd, .default_measure = "model",
                                 .searches = searches, .default_search = "exhaustive"};
    s = ls_open(&o);
    CHECK(chdir(tmpdir) == 0);
    FILE *f = fopen("cmd.lua", "w");
    CHECK(f != NULL);
    if (f) {
        fputs("target \"ascend910\"\nmatmul { name = \"c\", shapes = {{16, 16, 16}} }\n"
              "tune { measure = { command = \"./run {kernel}\" }, results = \"out.csv\",\n"
              "       verify = false, calibrate = false, final = false }\n",
              f);
        fclose(f);
    }
    CHECK(ls_run_file(s, "cmd.lua", err, sizeof err));
    tu = ls_tune_get(s);
    CHECK_STR(tu->measure, "command");
    CHECK_STR(tu->command, "./run {kernel}");
    CHECK_STR(tu->search, "exhaustive");
    CHECK_STR(tu->results, "out.csv");
    CHECK_STR(tu->table, "results/cmd-table.csv");
    CHECK(!tu->verify);
    CHECK_INT(tu->calibrate, 0);
    CHECK_INT(tu->final, 0);
    CHECK_STR(ls_where(s, "tune"), "cmd.lua:3");
    ls_close(s);
    remove("cmd.lua");
}

static void test_constraint(void)
{
    ls_script *s = run_fixture("constraint.lua");
    if (!CHECK(s != NULL)) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK(ls_has_constraint(s));
    CHECK_STR(ls_where(s, "constraint"), "constraint.lua:8");
    CHECK_STR(ls_where(s, "space"), "constraint.lua:5");
    const ls_tune *tu = ls_tune_get(s);
    CHECK_INT(tu->budget, 8);
    CHECK_INT(tu->seed, 7);
    CHECK_DBL(tu->timeout, 2.5);
    const sp_problem *p = ls_problem(s, 0);
    sp_config c = {.m = 64, .n = 64, .k = 256, .cores = 1, .strategy = SP_OS,
                   .double_buffer = 1, .split = SP_SPLIT_M};
    CHECK_INT(ls_constraint(s, p, &c, err, sizeof err), 1);
    c.n = 32;
    CHECK_INT(ls_constraint(s, p, &c, err, sizeof err), 0);
    c.n = 64;
    c.strategy = SP_IS;
    CHECK_INT(ls_constraint(s, p, &c, err, sizeof err), 0);
    c.strategy = SP_WS;
    c.double_buffer = 0;
    CHECK_INT(ls_constraint(s, p, &c, err, sizeof err), 1);
    /* Many calls: the table is reused, the stack stays balanced. */
    long kept = 0;
    for (int i = 0; i < 20000; i++) {
        c.m = 16 * (1 + i % 32);
        c.n = 16 * (1 + (i / 32) % 32);
        kept += ls_constraint(s, p, &c, err, sizeof err);
    }
    CHECK_INT(kept, 20000 / 32);
    ls_close(s);

    s = run_fixture("constraint_error.lua");
    if (!CHECK(s != NULL)) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    p = ls_problem(s, 0);
    c.m = 128;
    CHECK_INT(ls_constraint(s, p, &c, err, sizeof err), 1);
    c.m = 512;
    CHECK_INT(ls_constraint(s, p, &c, err, sizeof err), -1);
    const char *want = "constraint_error.lua:8: tile too large: 512\nstack traceback:";
    CHECK_PREFIX(err, want);
    CHECK_HAS(err, "constraint_error.lua:8: in function");
    c.m = 16;
    CHECK_INT(ls_constraint(s, p, &c, err, sizeof err), 1);
    ls_close(s);

    /* No constraint: everything is kept. */
    s = run_fixture("bert.lua");
    if (CHECK(s != NULL))
        CHECK_INT(ls_constraint(s, ls_problem(s, 0), &c, err, sizeof err), 1);
    ls_close(s);
}

static void test_builtins(void)
{
    CHECK_STR(ls_builtin_names(), "ascend310, ascend910, ascend910b");
    sp_target t;
    CHECK(ls_builtin_target("ascend910", &t, err, sizeof err));
    CHECK_STR(t.name, "ascend910");
    CHECK(t.cores == 32 && t.clock_mhz == 1000 && t.macs[SP_FP16] == 4096 &&
          t.macs[SP_INT8] == 8192);
    CHECK(t.buf_bytes[SP_L1] == 1 << 20 && t.buf_bytes[SP_L0A] == 64 << 10 &&
          t.buf_bytes[SP_L0B] == 64 << 10 && t.buf_bytes[SP_L0C] == 256 << 10 &&
          t.buf_bytes[SP_UB] == 256 << 10);
    CHECK(t.buf_align[SP_L1] == 32 && t.buf_align[SP_L0A] == 512 && t.buf_align[SP_L0B] == 512 &&
          t.buf_align[SP_L0C] == 512 && t.buf_align[SP_UB] == 32);
    CHECK(t.path[SP_GM_L1].bandwidth == 64 && t.path[SP_GM_L1].latency == 200);
    CHECK(t.path[SP_L1_L0A].bandwidth == 512 && t.path[SP_L1_L0A].latency == 16);
    CHECK(t.path[SP_L1_L0B].bandwidth == 256 && t.path[SP_L1_L0B].latency == 16);
    CHECK(t.path[SP_L0C_UB].bandwidth == 256 && t.path[SP_L0C_UB].latency == 16);
    CHECK(t.path[SP_UB_GM].bandwidth == 64 && t.path[SP_UB_GM].latency == 200);
    CHECK(t.gm_bandwidth == 1200 && t.events == 8);

    sp_target b;
    CHECK(ls_builtin_target("ascend910b", &b, err, sizeof err));
    CHECK_STR(b.name, "ascend910b");
    CHECK(b.cores == 24 && b.clock_mhz == 1800 && b.buf_bytes[SP_L1] == 512 << 10 &&
          b.buf_bytes[SP_L0C] == 128 << 10 && b.buf_bytes[SP_UB] == 192 << 10 &&
          b.gm_bandwidth == 833);
    CHECK(b.macs[SP_FP16] == 4096 && b.buf_bytes[SP_L0A] == 64 << 10 &&
          b.path[SP_L1_L0A].bandwidth == 512 && b.events == 8);

    CHECK(ls_builtin_target("ascend310", &b, err, sizeof err));
    CHECK_STR(b.name, "ascend310");
    CHECK(b.cores == 2 && b.clock_mhz == 1000 && b.buf_bytes[SP_L1] == 1 << 20 &&
          b.buf_bytes[SP_L0C] == 256 << 10 && b.buf_bytes[SP_UB] == 248 << 10 &&
          b.gm_bandwidth == 67 && b.events == 8 && b.macs[SP_FP16] == 4096);

    CHECK(!ls_builtin_target("ascend999", &b, err, sizeof err));
    CHECK_STR(err, "unknown target 'ascend999' (known: ascend310, ascend910, ascend910b)");
}

/* A complete from-scratch target table without `without` (one field). */
static void scratch_without(char *buf, size_t len, const char *without)
{
    static const char *const lines[] = {
        "name = \"npu\"", "cores = 1", "clock_mhz = 1000",
        "macs = { fp16 = 1, int8 = 1 }", "l1 = MiB", "l0a = 64 * KiB", "l0b = 64 * KiB",
        "l0c = 64 * KiB", "ub = 64 * KiB",
        "align = { l1 = 32, l0a = 512, l0b = 512, l0c = 512, ub = 32 }",
        "gm_l1 = { bandwidth = 1, latency = 1 }", "l1_l0a = { bandwidth = 1, latency = 1 }",
        "l1_l0b = { bandwidth = 1, latency = 1 }", "l0c_ub = { bandwidth = 1, latency = 1 }",
        "ub_gm = { bandwidth = 1, latency = 1 }", "gm_bandwidth = 1", "events = 1"};
    size_t used = (size_t)snprintf(buf, len, "target {\n");
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        if (strncmp(lines[i], without, strlen(without)) != 0)
            used += (size_t)snprintf(buf + used, len - used, "  %s,\n", lines[i]);
    snprintf(buf + used, len - used, "}\nmatmul { name = \"x\", shapes = { {16, 16, 16} } }\n");
}

#define T "target \"ascend910\"\n"
#define MM "matmul { name = \"x\", shapes = { {64, 64, 64} } }\n"

static void test_bad(void)
{
    /* keys */
    BAD(T MM "space { strateg = { \"IS\" } }\n",
        "bad.lua:3: space: unknown key 'strateg' (did you mean 'strategy'?)");
    BAD(T MM "space { colour = 1, zz = 2 }\n", "bad.lua:3: space: unknown key 'colour'");
    BAD(T MM "tune { budgte = 4 }\n", "bad.lua:3: tune: unknown key 'budgte' (did you mean 'budget'?)");
    BAD(T "matmul { nmae = \"x\" }\n", "bad.lua:2: matmul: unknown key 'nmae' (did you mean 'name'?)");
    BAD(T MM "space { \"IS\" }\n", "bad.lua:3: space: unexpected key 1 (write name = value)");
    BAD(T MM "space \"IS\"\n", "bad.lua:3: space: argument must be a table");
    BAD(T MM "space({}, {})\n", "bad.lua:3: space: expected one argument, got 2");

    /* types and enumerations */
    BAD(T "matmul { name = \"x\", shapes = { {1, 1, 1} }, dtype = 16 }\n",
        "bad.lua:2: matmul: 'dtype' must be a string");
    BAD(T "matmul { name = \"x\", shapes = { {1, 1, 1} }, dtype = \"fp64\" }\n",
        "bad.lua:2: matmul: dtype 'fp64' is not one of fp16, int8, fp32, bf16");
    BAD(T "matmul { name = \"x\", shapes = { {1, 1, 1} }, dtype = \"fp32\" }\n",
        "bad.lua:2: matmul: dtype 'fp32' does not run on target 'ascend910' (npu: computes "
        "fp16, int8)");
    BAD(T "matmul { name = \"a b\", shapes = { {1, 1, 1} } }\n",
        "bad.lua:2: matmul: name 'a b' must be 1 to 40 characters from A-Z a-z 0-9 _ . -");
    BAD(T "matmul { shapes = { {1, 1, 1} } }\n", "bad.lua:2: matmul: 'name' is missing");
    BAD(T "matmul { name = \"x\" }\n", "bad.lua:2: matmul: 'shapes' is missing");
    BAD(T "matmul { name = \"x\", shapes = {} }\n", "bad.lua:2: matmul: 'shapes' is empty");
    BAD(T "matmul { name = \"x\", shapes = { {1, 2, 3}, {1, 2} } }\n",
        "bad.lua:2: matmul: shape 2 must be {M, N, K} or {M, N, K, batch} of positive integers");
    BAD(T "matmul { name = \"x\", shapes = { {1, 0, 3} } }\n",
        "bad.lua:2: matmul: shape 1 must be {M, N, K} or {M, N, K, batch} of positive integers");
    BAD(T "matmul { name = \"x\", shapes = { {1, 2, 3}, {1, 2, 3, 4, 5} } }\n",
        "bad.lua:2: matmul: shape 2 must be {M, N, K} or {M, N, K, batch} of positive integers");
    BAD(T "matmul { name = \"x\", shapes = { {4194304, 2, 3} } }\n",
        "bad.lua:2: matmul: shape 1: 4194304 is larger than the largest dimension 1048576");
    BAD(T "matmul { name = \"x\", shapes = { {1, 2, 3} }, batch = 0 }\n",
        "bad.lua:2: matmul: 'batch' must be a positive integer");
    BAD(T MM "space { strategy = { \"IS\", \"XS\" } }\n",
        "bad.lua:3: space: strategy 'XS' is not one of IS, WS, OS");
    BAD(T MM "space { strategy = 3 }\n",
        "bad.lua:3: space: 'strategy' must be a string or a list of strings");
    BAD(T MM "space { split = \"K\" }\n", "bad.lua:3: space: split 'K' is not one of M, N, MN");
    BAD(T MM "space { split = { \"M\", 2 } }\n",
        "bad.lua:3: space: 'split' must hold strings (item 2 is 2)");
    BAD(T MM "space { double_buffer = { false, 1 } }\n",
        "bad.lua:3: space: 'double_buffer' must hold booleans (item 2 is 1)");
    BAD(T MM "space { double_buffer = \"on\" }\n",
        "bad.lua:3: space: 'double_buffer' must be a boolean or a list of booleans");
    BAD(T MM "space { constraint = 1 }\n", "bad.lua:3: space: 'constraint' must be a function");

    /* lists */
    BAD(T MM "space { m = {} }\n", "bad.lua:3: space: 'm' is empty");
    BAD(T MM "space { strategy = {} }\n", "bad.lua:3: space: 'strategy' is empty");
    BAD(T MM "space { m = { 16, 32, -16 } }\n",
        "bad.lua:3: space: 'm' must hold positive integers (item 3 is -16)");
    BAD(T MM "space { n = { 16, 1.5 } }\n",
        "bad.lua:3: space: 'n' must hold positive integers (item 2 is 1.5)");
    BAD(T MM "space { k = { 16, \"32\" } }\n",
        "bad.lua:3: space: 'k' must hold positive integers (item 2 is '32')");
    BAD(T MM "space { cores = 0 }\n",
        "bad.lua:3: space: 'cores' must hold positive integers (item 1 is 0)");
    BAD(T MM "space { m = { 2097152 } }\n",
        "bad.lua:3: space: 'm' must hold integers <= 1048576 (item 1 is 2097152)");
    BAD(T MM "space { m = { 16, x = 32 } }\n", "bad.lua:3: space: 'm' must be a list (found key 'x')");
    BAD(T MM "space { m = \"16\" }\n",
        "bad.lua:3: space: 'm' must be an integer or a list of integers");

    /* helpers */
    BAD(T MM "space {\n  m = multiples(0, 512),\n}\n",
        "bad.lua:4: multiples: step must be a positive integer");
    BAD(T MM "local m = multiples(16, -1)\n", "bad.lua:3: multiples: max must be a positive integer");
    BAD(T MM "local m = multiples(32, 16)\n", "bad.lua:3: multiples: step (32) is greater than max (16)");
    BAD(T MM "local m = powers_of_two(5, 7)\n", "bad.lua:3: powers_of_two: no power of two in [5, 7]");
    BAD(T MM "local m = powers_of_two(8, 4)\n",
        "bad.lua:3: powers_of_two: lo (8) is greater than hi (4)");
    BAD(T MM "local m = range(1, 10, 0)\n", "bad.lua:3: range: step must be a positive integer");
    BAD(T MM "local m = range(1.5, 10)\n", "bad.lua:3: range: lo must be an integer");
    BAD(T MM "local m = range(1, 1 << 40)\n", "bad.lua:3: range: too many items (more than 1048576)");

    /* targets */
    BAD("target \"ascend999\"\n" MM,
        "bad.lua:1: target: unknown target 'ascend999' (known: ascend310, ascend910, ascend910b)");
    BAD("target { base = \"ascend999\" }\n" MM,
        "bad.lua:1: target: unknown target 'ascend999' (known: ascend310, ascend910, ascend910b)");
    BAD("target(910)\n" MM, "bad.lua:1: target: argument must be a string or a table");
    BAD("target { base = \"ascend910\", l0d = 1 }\n" MM,
        "bad.lua:1: target: unknown field 'l0d' (did you mean 'l0a'?)");
    BAD("target { base = \"ascend910\", gm_l1 = { bandwdth = 1 } }\n" MM,
        "bad.lua:1: target: unknown field 'gm_l1.bandwdth' (did you mean 'gm_l1.bandwidth'?)");
    BAD("target { base = \"ascend910\", cores = \"8\" }\n" MM,
        "bad.lua:1: target: field 'cores' must be an integer");
    BAD("target { base = \"ascend910\", clock_mhz = true }\n" MM,
        "bad.lua:1: target: field 'clock_mhz' must be a number");
    BAD("target { base = \"ascend910\", align = 32 }\n" MM,
        "bad.lua:1: target: field 'align' must be a table");
    BAD("target { base = \"ascend910\", l0a = 100 }\n" MM,
        "bad.lua:1: target 'ascend910-custom': field 'l0a' (100 bytes) is not a multiple of its "
        "alignment 512");
    BAD("target { base = \"ascend910\", cores = 0, name = \"zero\" }\n" MM,
        "bad.lua:1: target 'zero': field 'cores' must be a positive integer");
    char buf[2048];
    scratch_without(buf, sizeof buf, "l0c =");
    BAD(buf, "bad.lua:1: target: field 'l0c' is missing");
    scratch_without(buf, sizeof buf, "name =");
    BAD(buf, "bad.lua:1: target: field 'name' is missing");
    scratch_without(buf, sizeof buf, "ub_gm =");
    BAD(buf, "bad.lua:1: target: field 'ub_gm.bandwidth' is missing");
    scratch_without(buf, sizeof buf, "nothing");
    CHECK(run_text(&opts, "full.lua", buf));

    /* declarations */
    BAD(MM, "bad.lua: no target declared (add e.g. target \"ascend910\")");
    BAD(T, "bad.lua: no matmul declared");
    BAD(T MM "space { }\nspace { m = 16 }\n", "bad.lua:4: space: declared twice (first at bad.lua:3)");
    BAD(T T MM, "bad.lua:2: target: declared twice (first at bad.lua:1)");
    BAD(T MM "tune { }\n\ntune { }\n", "bad.lua:5: tune: declared twice (first at bad.lua:3)");

    /* tune */
    BAD(T MM "tune { measure = \"sim\" }\n",
        "bad.lua:3: tune: measure 'sim' is not one of model");
    BAD(T MM "tune { measure = \"foo\" }\n",
        "bad.lua:3: tune: measure 'foo' is not one of model");
    BAD(T MM "tune { measure = { command = \"./run\" } }\n",
        "bad.lua:3: tune: measure {command = ...} is not available (available: model)");
    BAD_WITH(&opts_cmd, T MM "tune { measure = \"host\" }\n",
             "bad.lua:3: tune: measure 'host' is not one of model, {command = ...}");
    BAD_WITH(&opts_cmd, T MM "tune { measure = { comand = \"./run\" } }\n",
             "bad.lua:3: tune: unknown key 'measure.comand' (did you mean 'measure.command'?)");
    BAD_WITH(&opts_cmd, T MM "tune { measure = { command = \"\" } }\n",
             "bad.lua:3: tune: 'measure.command' must be a non-empty string");
    BAD(T MM "tune { search = \"greedy\" }\n",
        "bad.lua:3: tune: search 'greedy' is not one of model, exhaustive");
    BAD(T MM "tune { search = \"anneal\" }\n",
        "bad.lua:3: tune: search 'anneal' is not one of model, exhaustive");
    BAD(T MM "tune { budget = 0 }\n", "bad.lua:3: tune: 'budget' must be a positive integer");
    BAD(T MM "tune { budget = 2.5 }\n", "bad.lua:3: tune: 'budget' must be a positive integer");
    BAD(T MM "tune { seed = -1 }\n", "bad.lua:3: tune: 'seed' must be a non-negative integer");
    BAD(T MM "tune { timeout = 0 }\n", "bad.lua:3: tune: 'timeout' must be a positive number");
    BAD(T MM "tune { verify = \"no\" }\n", "bad.lua:3: tune: 'verify' must be true or false");
    BAD(T MM "tune { calibrate = 1 }\n", "bad.lua:3: tune: 'calibrate' must be true or false");
    BAD(T MM "tune { final = 0 }\n", "bad.lua:3: tune: 'final' must be true or false");
    BAD(T MM "tune { results = 5 }\n", "bad.lua:3: tune: 'results' must be a non-empty string");

    /* Lua errors */
    BAD(T "matmul {\n", "bad.lua:3: unexpected symbol near <eof>");
    BAD(T "matmul { name = \"x\"\n", "bad.lua:3: '}' expected (to close '{' at line 2) near <eof>");
    BAD("cannot open('x')\n" , "bad.lua:1: syntax error near 'open'");
    CHECK(!run_text(&opts, "bad.lua", T MM "local x = nil\nx.y = 1\n"));
    const char *want = "bad.lua:4: attempt to index a nil value (local 'x')\nstack traceback:";
    CHECK_PREFIX(err, want);
    CHECK(!run_text(&opts, "bad.lua", T "foo()\n" MM));
    want = "bad.lua:2: attempt to call a nil value (global 'foo')\nstack traceback:";
    CHECK_PREFIX(err, want);
    CHECK(!run_text(&opts, "bad.lua", T MM "error(\"x\")\n"));
    want = "bad.lua:3: x\nstack traceback:";
    CHECK_PREFIX(err, want);
    CHECK(!run_text(&opts, "bad.lua", T MM "error({})\n"));
    want = "bad.lua:3: (error object is a table value)\nstack traceback:";
    CHECK_PREFIX(err, want);
    /* A DSL error deep in user code still points at the calling line. */
    BAD(T MM "local function f()\n  space { m = {} }\nend\nf()\n", "bad.lua:4: space: 'm' is empty");
    /* A DSL error caught by the script itself does not count. */
    CHECK(run_text(&opts, "caught.lua",
                   T MM "assert(not pcall(space, { m = {} }))\nspace { m = 16 }\n"));

    /* missing file */
    ls_script *s = ls_open(&opts);
    CHECK(!ls_run_file(s, "/nonexistent/nope.lua", err, sizeof err));
    CHECK_STR(err, "cannot open '/nonexistent/nope.lua': No such file or directory");
    CHECK(!ls_run_file(s, tmpdir, err, sizeof err));
    char dir[300];
    snprintf(dir, sizeof dir, "cannot read '%s': Is a directory", tmpdir);
    CHECK_STR(err, dir);
    ls_close(s);
}

/* An NPU whose cube has an fp32 or bf16 rate computes them for the model,
 * but NPU kernels (and the simulator that runs them) take fp16 and int8: a
 * script with a measure that runs kernels is refused at its matmul. */
static void test_npu_dtypes(void)
{
#define WIDE "target { base = \"ascend910\", name = \"wide\", macs = { fp32 = 1024, bf16 = 2048 } }\n"
#define MM_OF(d) "matmul { name = \"x\", dtype = \"" d "\", shapes = { {64, 64, 64} } }\n"
    BAD_WITH(&opts_sim, WIDE MM_OF("fp32"),
             "bad.lua:2: matmul: dtype 'fp32' runs on target 'wide' under measure = \"model\" "
             "only: npu kernels take fp16, int8");
    BAD_WITH(&opts_sim, WIDE MM_OF("bf16") "tune { measure = \"sim\" }\n",
             "bad.lua:2: matmul: dtype 'bf16' runs on target 'wide' under measure = \"model\" "
             "only: npu kernels take fp16, int8");
    BAD_WITH(&opts_sim, WIDE "tune { measure = { command = \"./board {kernel}\" } }\n" MM_OF("fp32"),
             "bad.lua:3: matmul: dtype 'fp32' runs on target 'wide' under measure = \"model\" "
             "only: npu kernels take fp16, int8");
    CHECK(run_text(&opts_sim, "wide.lua", WIDE MM_OF("fp32") "tune { measure = \"model\" }\n"));
    CHECK(run_text(&opts, "wide.lua", WIDE MM_OF("bf16"))); /* the model by default */
    CHECK(run_text(&opts_sim, "wide.lua", WIDE MM_OF("int8")));
#undef WIDE
#undef MM_OF
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_builtins();
    test_bert();
    test_derived();
    test_scratch();
    test_helpers();
    test_defaults();
    test_constraint();
    test_bad();
    test_npu_dtypes();
    rmdir(tmpdir);
    return CHECK_DONE();
}
