/* cpu.c — the script layer on CPU targets: the built-in "host" from a fake
 * provider, CPU target tables, fp32, micro-tiles, measure defaults; exact one-line errors. */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "script.h"

#define KiB 1024
#define MiB (1024 * 1024)

static const char *const measures[] = {"model", "sim", "host", NULL};
static const char *const searches[] = {"model", "exhaustive", NULL};
/* The CLI's tuning run: "sim" unless the script says otherwise. */
static const ls_options opts = {.measures = measures, .default_measure = "sim",
                                .searches = searches, .default_search = "model"};
/* `npu-tune model`-like: the model is the default measure. */
static const ls_options opts_model = {.measures = measures, .default_measure = "model",
                                      .searches = searches, .default_search = "model"};

static char tmpdir[] = "/tmp/npu-tune-script-cpu-XXXXXX";
static char err[LS_ERR_MAX];

/* ---- host providers ---- */

static int host_calls;

/* Fixed figures: an AVX-512-like 8-core machine. */
static sp_target fake_figures(void)
{
    sp_target t = {
        .name = "host", .kind = SP_CPU, .cores = 8, .clock_mhz = 3200,
        .cpu = {.simd_floats = 16, .vregs = 32, .fma_units = 2, .load_ports = 2,
                .cache = {[SP_CL1] = 48 * KiB, [SP_CL2] = 2 * MiB, [SP_CL3] = 32 * MiB},
                .bw_l2 = 64, .bw_l3 = 32, .bw_mem = 16, .bw_mem_shared = 40},
    };
    return t;
}

static bool fake_host(sp_target *out, char *e, size_t elen)
{
    (void)e, (void)elen;
    host_calls++;
    *out = fake_figures();
    return true;
}

static bool failing_host(sp_target *out, char *e, size_t elen)
{
    (void)out;
    snprintf(e, elen, "cannot read /proc/cpuinfo: Permission denied");
    return false;
}

static bool invalid_host(sp_target *out, char *e, size_t elen)
{
    (void)e, (void)elen;
    *out = fake_figures();
    out->cpu.vregs = 2;
    return true;
}

/* ---- running scripts (as script.c) ---- */

/* Writes text to tmpdir/name and runs it with o; on success the script is
 * returned open (caller closes), else NULL with err set. */
static ls_script *open_text(const ls_options *o, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (!CHECK(f != NULL))
        return NULL;
    fputs(text, f);
    fclose(f);
    ls_script *s = ls_open(o);
    CHECK(s != NULL);
    CHECK(chdir(tmpdir) == 0);
    bool ok = ls_run_file(s, name, err, sizeof err);
    remove(path);
    if (!ok) {
        ls_close(s);
        return NULL;
    }
    return s;
}

#define GOOD(o, text) good_at((o), (text), __LINE__)

static ls_script *good_at(const ls_options *o, const char *text, int line)
{
    ls_script *s = open_text(o, "good.lua", text);
    if (!s)
        fprintf(stderr, "%s:%d: script failed: %s\n", __FILE__, line, err);
    check_at(s != NULL, "script runs", __FILE__, line);
    return s;
}

/* A bad script: must fail with exactly `want`. */
#define BAD(text, want) bad_at(&opts, (text), (want), __LINE__)
#define BAD_WITH(o, text, want) bad_at((o), (text), (want), __LINE__)

static void bad_at(const ls_options *o, const char *text, const char *want, int line)
{
    ls_script *s = open_text(o, "bad.lua", text);
    if (s) {
        ls_close(s);
        check_at(0, "script should fail", __FILE__, line);
        return;
    }
    check_str(err, want, "err", __FILE__, line);
}

#define H "target \"host\"\n"
#define T910 "target \"ascend910\"\n"
#define MM "matmul { name = \"x\", shapes = { {64, 64, 64} } }\n"

/* Before any provider, and with providers that fail: no target. */
static void test_no_host(void)
{
    BAD(H MM, "bad.lua:1: target: unknown target 'host' (known: ascend310, ascend910, ascend910b)");
    ls_set_host(failing_host);
    BAD(H MM, "bad.lua:1: target: cannot read /proc/cpuinfo: Permission denied");
    BAD("target { base = \"host\", cores = 2 }\n" MM,
        "bad.lua:1: target: cannot read /proc/cpuinfo: Permission denied");
    /* Detected figures are checked like any table. */
    ls_set_host(invalid_host);
    BAD(H MM, "bad.lua:1: target: target 'host': field 'vregs' must be an integer from 3 to 256");
    ls_set_host(fake_host);
}

static void test_host(void)
{
    sp_target want = fake_figures();
    ls_script *s = GOOD(&opts, H MM);
    if (s) {
        const sp_target *t = ls_target(s);
        CHECK_INT(t->kind, SP_CPU);
        CHECK_STR(t->name, "host");
        CHECK(memcmp(t, &want, sizeof want) == 0);
        /* fp32 by default on a CPU; no micro axis; measured on the host. */
        CHECK_INT(ls_problem(s, 0)->dtype, SP_FP32);
        CHECK_INT(ls_space(s)->nmicro, 0);
        CHECK(ls_space(s)->micro == NULL);
        CHECK_STR(ls_tune_get(s)->measure, "host");
        ls_close(s);
    }
    sp_target b;
    CHECK(ls_builtin_target("host", &b, err, sizeof err));
    CHECK(memcmp(&b, &want, sizeof want) == 0);
    CHECK_STR(ls_builtin_names(), "ascend310, ascend910, ascend910b, host");
    BAD("target \"ascend999\"\n" MM,
        "bad.lua:1: target: unknown target 'ascend999' (known: ascend310, ascend910, ascend910b, "
        "host)");
    BAD("target { base = \"ascend999\" }\n" MM,
        "bad.lua:1: target: unknown target 'ascend999' (known: ascend310, ascend910, ascend910b, "
        "host)");
    CHECK(!ls_builtin_target("ascend999", &b, err, sizeof err));
    CHECK_STR(err, "unknown target 'ascend999' (known: ascend310, ascend910, ascend910b, host)");
    /* The NPU built-ins are untouched. */
    CHECK(ls_builtin_target("ascend910", &b, err, sizeof err));
    CHECK_INT(b.kind, SP_NPU);
}

static void test_derived(void)
{
    ls_script *s = GOOD(&opts, "target { base = \"host\", l2 = 1 * MiB }\n" MM);
    if (s) {
        sp_target want = fake_figures();
        snprintf(want.name, sizeof want.name, "host-custom");
        want.cpu.cache[SP_CL2] = 1 * MiB;
        CHECK(memcmp(ls_target(s), &want, sizeof want) == 0);
        CHECK_STR(ls_tune_get(s)->measure, "host");
        ls_close(s);
    }
    /* A group is overridden field by field; an explicit name; the kind
     * may be restated. */
    s = GOOD(&opts, "target { base = \"host\", name = \"small\", kind = \"cpu\", cores = 2,\n"
                    "  l1 = 32 * KiB, l3 = 0, vregs = 16, simd_floats = 8,\n"
                    "  bandwidth = { mem = 8 } }\n" MM);
    if (s) {
        sp_target want = fake_figures();
        snprintf(want.name, sizeof want.name, "small");
        want.cores = 2;
        want.cpu.cache[SP_CL1] = 32 * KiB;
        want.cpu.cache[SP_CL3] = 0;
        want.cpu.vregs = 16;
        want.cpu.simd_floats = 8;
        want.cpu.bw_mem = 8;
        /* The name array keeps the tail of "host-custom" after "small\0". */
        CHECK_STR(ls_target(s)->name, "small");
        memcpy(want.name, ls_target(s)->name, sizeof want.name);
        CHECK(memcmp(ls_target(s), &want, sizeof want) == 0);
        CHECK_STR(ls_where(s, "target"), "good.lua:1");
        ls_close(s);
    }
    BAD("target { base = \"host\", vregs = 2 }\n" MM,
        "bad.lua:1: target 'host-custom': field 'vregs' must be an integer from 3 to 256");
    BAD("target { base = \"host\", simd_floats = 12 }\n" MM,
        "bad.lua:1: target 'host-custom': field 'simd_floats' must be a power of two from 1 to 64");
    BAD("target { base = \"host\", l1 = 512 }\n" MM,
        "bad.lua:1: target 'host-custom': field 'l1' must be at least 1024 bytes");
    BAD("target { base = \"host\", bandwidth = { l3 = 0 } }\n" MM,
        "bad.lua:1: target 'host-custom': field 'bandwidth.l3' must be positive");
    BAD("target { base = \"host\", vreg = 8 }\n" MM,
        "bad.lua:1: target: unknown field 'vreg' (did you mean 'vregs'?)");
    BAD("target { base = \"host\", bandwidth = { mme = 1 } }\n" MM,
        "bad.lua:1: target: unknown field 'bandwidth.mme' (did you mean 'bandwidth.mem'?)");
    BAD("target { base = \"host\", bandwidth = 8 }\n" MM,
        "bad.lua:1: target: field 'bandwidth' must be a table");
    BAD("target { base = \"host\", vregs = 1.5 }\n" MM,
        "bad.lua:1: target: field 'vregs' must be an integer");
    /* Fields of the other kind. */
    BAD("target { base = \"host\", l0a = 64 * KiB }\n" MM,
        "bad.lua:1: target: field 'l0a' does not apply to cpu targets");
    BAD("target { base = \"host\", gm_l1 = { bandwidth = 1 } }\n" MM,
        "bad.lua:1: target: field 'gm_l1' does not apply to cpu targets");
    BAD("target { base = \"host\", macs = { fp32 = 1 } }\n" MM,
        "bad.lua:1: target: field 'macs' does not apply to cpu targets");
    BAD("target { base = \"host\", events = 8 }\n" MM,
        "bad.lua:1: target: field 'events' does not apply to cpu targets");
    BAD("target { base = \"ascend910\", vregs = 32 }\n" MM,
        "bad.lua:1: target: field 'vregs' does not apply to npu targets");
    BAD("target { base = \"ascend910\", bandwidth = { l2 = 1 } }\n" MM,
        "bad.lua:1: target: field 'bandwidth' does not apply to npu targets");
    /* The kind of a derived target is the base's. */
    BAD("target { base = \"host\", kind = \"npu\" }\n" MM,
        "bad.lua:1: target: field 'kind' cannot change the kind of the base target (cpu)");
    BAD("target { base = \"ascend910\", kind = \"cpu\" }\n" MM,
        "bad.lua:1: target: field 'kind' cannot change the kind of the base target (npu)");
    BAD("target { base = \"host\", kind = \"gpu\" }\n" MM,
        "bad.lua:1: target: field 'kind' must be \"npu\" or \"cpu\"");
}

/* A complete from-scratch CPU table without `without` (one field). */
static void cpu_scratch(char *buf, size_t len, const char *without, const char *extra)
{
    static const char *const lines[] = {
        "name = \"mycpu\"", "kind = \"cpu\"", "cores = 4", "clock_mhz = 2500",
        "simd_floats = 8", "vregs = 16", "fma_units = 2", "load_ports = 2",
        "l1 = 32 * KiB", "l2 = MiB", "l3 = 16 * MiB",
        "bandwidth = { l2 = 32, l3 = 16, mem = 8, mem_shared = 20 }"};
    size_t used = (size_t)snprintf(buf, len, "target {\n");
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        if (strncmp(lines[i], without, strlen(without)) != 0)
            used += (size_t)snprintf(buf + used, len - used, "  %s,\n", lines[i]);
    if (extra)
        used += (size_t)snprintf(buf + used, len - used, "  %s,\n", extra);
    snprintf(buf + used, len - used, "}\nmatmul { name = \"x\", shapes = { {16, 16, 16} } }\n");
}

static void test_scratch(void)
{
    char buf[2048];
    cpu_scratch(buf, sizeof buf, "nothing", NULL);
    ls_script *s = GOOD(&opts, buf);
    if (s) {
        sp_target want = {
            .name = "mycpu", .kind = SP_CPU, .cores = 4, .clock_mhz = 2500,
            .cpu = {.simd_floats = 8, .vregs = 16, .fma_units = 2, .load_ports = 2,
                    .cache = {[SP_CL1] = 32 * KiB, [SP_CL2] = MiB, [SP_CL3] = 16 * MiB},
                    .bw_l2 = 32, .bw_l3 = 16, .bw_mem = 8, .bw_mem_shared = 20},
        };
        CHECK(memcmp(ls_target(s), &want, sizeof want) == 0);
        CHECK_INT(ls_problem(s, 0)->dtype, SP_FP32);
        CHECK_STR(ls_tune_get(s)->measure, "host");
        ls_close(s);
    }
    /* fork_join is optional (0: threads start and join for free) */
    cpu_scratch(buf, sizeof buf, "nothing", "fork_join = 8000");
    if ((s = GOOD(&opts, buf))) {
        CHECK_DBL(ls_target(s)->cpu.fork_join, 8000);
        ls_close(s);
    }
    cpu_scratch(buf, sizeof buf, "nothing", "fork_join = -5");
    BAD(buf, "bad.lua:1: target 'mycpu': field 'fork_join' must be a cycle count from 0 to 1e9");
    cpu_scratch(buf, sizeof buf, "vregs", NULL);
    BAD(buf, "bad.lua:1: target: field 'vregs' is missing");
    cpu_scratch(buf, sizeof buf, "name", NULL);
    BAD(buf, "bad.lua:1: target: field 'name' is missing");
    cpu_scratch(buf, sizeof buf, "l3", NULL);
    BAD(buf, "bad.lua:1: target: field 'l3' is missing");
    cpu_scratch(buf, sizeof buf, "bandwidth", NULL);
    BAD(buf, "bad.lua:1: target: field 'bandwidth.l2' is missing");
    cpu_scratch(buf, sizeof buf, "nothing", "l0a = 64 * KiB");
    BAD(buf, "bad.lua:1: target: field 'l0a' does not apply to cpu targets");
    cpu_scratch(buf, sizeof buf, "nothing", "align = { l1 = 32 }");
    BAD(buf, "bad.lua:1: target: field 'align' does not apply to cpu targets");
    cpu_scratch(buf, sizeof buf, "kind", "kind = \"gpu\"");
    BAD(buf, "bad.lua:1: target: field 'kind' must be \"npu\" or \"cpu\"");
    cpu_scratch(buf, sizeof buf, "kind", "kind = 1");
    BAD(buf, "bad.lua:1: target: field 'kind' must be \"npu\" or \"cpu\"");
    /* Without a kind a table is an NPU's, and CPU fields are foreign. */
    BAD("target { name = \"x\", vregs = 16 }\n" MM,
        "bad.lua:1: target: field 'vregs' does not apply to npu targets");
}

static void test_dtype(void)
{
    ls_script *s = GOOD(&opts, H "matmul { name = \"x\", shapes = { {64, 64, 64}, {8, 8, 8, 2} } }\n"
                               "matmul { name = \"y\", dtype = \"fp32\", shapes = { 1, 2, 3 } }\n");
    if (s) {
        CHECK_INT(ls_nproblems(s), 3);
        for (size_t i = 0; i < ls_nproblems(s); i++)
            CHECK_INT(ls_problem(s, i)->dtype, SP_FP32);
        ls_close(s);
    }
    s = GOOD(&opts, H "matmul { name = \"x\", dtype = \"fp16\", shapes = { {64, 64, 64} } }\n");
    if (s) { /* fp16 storage */
        CHECK_INT(ls_problem(s, 0)->dtype, SP_FP16);
        ls_close(s);
    }
    BAD(H MM "matmul { name = \"y\", dtype = \"int8\", shapes = { {64, 64, 64} } }\n",
        "bad.lua:3: matmul: dtype 'int8' does not run on target 'host' (cpu: computes fp16, fp32, bf16)");
    /* The dtype is judged against the target whatever the order. */
    BAD("matmul { name = \"x\", dtype = \"int8\", shapes = { {64, 64, 64} } }\n" H,
        "bad.lua:1: matmul: dtype 'int8' does not run on target 'host' (cpu: computes fp16, fp32, bf16)");
    /* An NPU target still defaults to fp16. */
    s = GOOD(&opts, T910 MM);
    if (s) {
        CHECK_INT(ls_problem(s, 0)->dtype, SP_FP16);
        ls_close(s);
    }
}

/* The micro axis of `text`'s space as "6x64 14x32" into buf. */
static const char *micro_of(const char *text, char *buf, size_t len)
{
    ls_script *s = open_text(&opts, "micro.lua", text);
    if (!s) {
        snprintf(buf, len, "error: %.200s", err);
        return buf;
    }
    const sp_space *sp = ls_space(s);
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sp->nmicro && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%dx%d", i ? " " : "",
                                 sp->micro[i].mr, sp->micro[i].nr);
    ls_close(s);
    return buf;
}

#define MICRO_BAD(value, want) \
    BAD(H MM "space { micro = " value " }\n", "bad.lua:3: space: " want)

static void test_micro(void)
{
    char buf[256];
    CHECK_STR(micro_of(H MM "space { micro = \"6x64\" }\n", buf, sizeof buf), "6x64");
    CHECK_STR(micro_of(H MM "space { micro = {14, 32} }\n", buf, sizeof buf), "14x32");
    CHECK_STR(micro_of(H MM "space { micro = { \"6x64\", {14, 32}, \"6x64\", \"4x16\", {14, 32} } }\n",
                       buf, sizeof buf),
              "6x64 14x32 4x16");
    CHECK_STR(micro_of(H MM "space { micro = { {6, 64} } }\n", buf, sizeof buf), "6x64");
    CHECK_STR(micro_of(H MM "space { micro = { \"1x16\", \"30x16\" } }\n", buf, sizeof buf),
              "1x16 30x16");
    /* A pair of floats with integral values counts. */
    CHECK_STR(micro_of(H MM "space { micro = { 6.0, 2^6 } }\n", buf, sizeof buf), "6x64");
    CHECK_STR(micro_of(H MM "space { m = 96 }\n", buf, sizeof buf), "");
    /* "auto": the table's tiles for the register file, in vectors of its width */
    CHECK_STR(micro_of(H MM "space { micro = \"auto\" }\n", buf, sizeof buf),
              "6x64 8x48 12x32 14x32");
#define CPU(vregs, w) "target { base = \"host\", vregs = " #vregs ", simd_floats = " #w " }\n"
    CHECK_STR(micro_of(CPU(16, 8) MM "space { micro = \"auto\" }\n", buf, sizeof buf),
              "6x16 4x24 5x16 3x24");
    CHECK_STR(micro_of(CPU(16, 4) MM "space { micro = \"auto\" }\n", buf, sizeof buf),
              "6x8 4x12 5x8 3x12");
    CHECK_STR(micro_of(CPU(24, 16) MM "space { micro = \"auto\" }\n", buf, sizeof buf),
              "6x32 4x48 5x32 3x48");
    /* fewer registers than any row of the table: the generator's default tile */
    CHECK_STR(micro_of(CPU(8, 8) MM "space { micro = \"auto\" }\n", buf, sizeof buf), "2x16");
    /* 64-float vectors: 4 of them are more columns (256) than a tile has */
    CHECK_STR(micro_of(CPU(32, 64) MM "space { micro = \"auto\" }\n", buf, sizeof buf),
              "8x192 12x128 14x128");
#undef CPU
    /* target returns the target's fields, groups as tables: a script can pick its tiles */
    ls_script *s = GOOD(&opts, "local t = target \"host\"\n"
                               "assert(t.name == 'host' and t.kind == 'cpu' and t.cores == 8)\n"
                               "assert(t.simd_floats == 16 and t.vregs == 32 and t.l2 == 2 * MiB)\n"
                               "assert(t.bandwidth.l2 == 64 and t.bandwidth.mem_shared == 40)\n"
                               "assert(math.type(t.vregs) == 'integer')\n" MM
                               "space { micro = t.vregs >= 32 and '6x64' or '6x16' }\n");
    if (s) {
        CHECK_INT(ls_space(s)->micro[0].nr, 64);
        ls_close(s);
    }
    s = GOOD(&opts, "local t = target { base = 'host', name = 'h2', vregs = 16 }\n"
                    "assert(t.name == 'h2' and t.vregs == 16 and t.clock_mhz == 3200)\n" MM);
    if (s)
        ls_close(s);
    s = GOOD(&opts, "local t = target 'ascend910'\n"
                    "assert(t.kind == 'npu' and t.cores == 32 and t.simd_floats == nil)\n" MM);
    if (s)
        ls_close(s);
    BAD(MM "space { micro = \"auto\" }\n",
        "bad.lua:2: space: 'micro = \"auto\"' takes the tiles of the target: declare the target "
        "before the space");
    BAD(T910 MM "space { micro = \"auto\" }\n",
        "bad.lua:3: space: 'micro' is a register micro-tile of cpu targets; target 'ascend910' is "
        "an npu");

    MICRO_BAD("\"6y64\"",
              "'micro' must be a micro-tile \"MRxNR\" (e.g. \"6x64\") or a list of them");
    MICRO_BAD("\"0x64\"",
              "'micro' must be a micro-tile \"MRxNR\" (e.g. \"6x64\") or a list of them");
    MICRO_BAD("\"300x16\"",
              "'micro' must be a micro-tile \"MRxNR\" (e.g. \"6x64\") or a list of them");
    MICRO_BAD("\"6x64x2\"",
              "'micro' must be a micro-tile \"MRxNR\" (e.g. \"6x64\") or a list of them");
    MICRO_BAD("\"6x\"",
              "'micro' must be a micro-tile \"MRxNR\" (e.g. \"6x64\") or a list of them");
    MICRO_BAD("6", "'micro' must be a micro-tile \"MRxNR\" (e.g. \"6x64\") or a list of them");
    MICRO_BAD("true", "'micro' must be a micro-tile \"MRxNR\" (e.g. \"6x64\") or a list of them");
    MICRO_BAD("{6}", "'micro' item 1 is not a micro-tile \"MRxNR\" with 1 <= MR, NR <= 255");
    MICRO_BAD("{6, 64, 2}", "'micro' item 1 is not a micro-tile \"MRxNR\" with 1 <= MR, NR <= 255");
    MICRO_BAD("{6, 64.5}", "'micro' item 1 is not a micro-tile \"MRxNR\" with 1 <= MR, NR <= 255");
    MICRO_BAD("{0, 64}", "'micro' item 1 is not a micro-tile \"MRxNR\" with 1 <= MR, NR <= 255");
    MICRO_BAD("{ \"6x64\", \"300x16\" }",
              "'micro' item 2 is not a micro-tile \"MRxNR\" with 1 <= MR, NR <= 255");
    MICRO_BAD("{ \"6x64\", {6, 256} }",
              "'micro' item 2 is not a micro-tile \"MRxNR\" with 1 <= MR, NR <= 255");
    MICRO_BAD("{ \"6x64\", \"0x64\" }",
              "'micro' item 2 is not a micro-tile \"MRxNR\" with 1 <= MR, NR <= 255");
    MICRO_BAD("{}", "'micro' is empty");
    MICRO_BAD("{ \"6x64\", x = 1 }", "'micro' must be a list (found key 'x')");

    /* Tiles must fit the target's registers and vector width. */
    MICRO_BAD("\"7x64\"",
              "micro-tile 7x64 needs 28 accumulators + 4 B vectors + 1 broadcast = 33 "
              "vector registers, 'host' has 32");
    MICRO_BAD("{ \"6x64\", \"15x32\" }",
              "micro-tile 15x32 needs 30 accumulators + 2 B vectors + 1 broadcast = 33 "
              "vector registers, 'host' has 32");
    MICRO_BAD("\"6x24\"", "micro-tile 6x24: nr must be a positive multiple of the 16-float vector of 'host'");
    BAD("target { base = \"host\", vregs = 16, simd_floats = 8 }\n" MM
        "space { micro = \"6x64\" }\n",
        "bad.lua:3: space: micro-tile 6x64 needs 48 accumulators + 8 B vectors + 1 broadcast = "
        "57 vector registers, 'host-custom' has 16");
    /* A space declared before the target is judged once the script ran. */
    BAD("space { micro = \"7x64\" }\n" H MM,
        "bad.lua:1: space: micro-tile 7x64 needs 28 accumulators + 4 B vectors + 1 broadcast = "
        "33 vector registers, 'host' has 32");
    /* NPUs have no micro-tile. */
    BAD(T910 MM "space { micro = \"6x64\" }\n",
        "bad.lua:3: space: 'micro' is a register micro-tile of cpu targets; target 'ascend910' "
        "is an npu");
}

/* The pack axis of `text`'s space (its packs bits), or -1 if the script fails. */
static int packs_of(const char *text)
{
    ls_script *s = open_text(&opts, "pack.lua", text);
    if (!s)
        return -1;
    int packs = ls_space(s)->packs;
    ls_close(s);
    return packs;
}

#define PACK_BAD(value, want) BAD(H MM "space { pack = " value " }\n", "bad.lua:3: space: " want)

/* pack = true (packing, the default), false (the no-pack family) or both. */
static void test_pack(void)
{
    CHECK_INT(packs_of(H MM "space { m = 96 }\n"), 0); /* packing only */
    CHECK_INT(packs_of(H MM), 0);
    CHECK_INT(packs_of(H MM "space { pack = true }\n"), 1);
    CHECK_INT(packs_of(H MM "space { pack = false }\n"), 2);
    CHECK_INT(packs_of(H MM "space { pack = { true, false } }\n"), 3);
    CHECK_INT(packs_of(H MM "space { pack = { false, false } }\n"), 2);
    PACK_BAD("1", "'pack' must be a boolean or a list of booleans");
    PACK_BAD("\"off\"", "'pack' must be a boolean or a list of booleans");
    PACK_BAD("{}", "'pack' is empty");
    PACK_BAD("{ true, 0 }", "'pack' must hold booleans (item 2 is 0)");
    /* NPUs have no such family; asking for packing alone is no question */
    BAD(T910 MM "space { pack = { true, false } }\n",
        "bad.lua:3: space: 'pack = false' (the no-pack family) is a kernel of cpu targets; "
        "target 'ascend910' is an npu");
    ls_script *s = GOOD(&opts, T910 MM "space { pack = true }\n");
    if (s)
        ls_close(s);
    /* a constraint sees c.pack */
    s = GOOD(&opts, H MM "space { pack = { true, false }, constraint = function(c) return c.pack end }\n");
    if (s) {
        sp_config c = {.m = 96, .n = 512, .k = 256, .cores = 1, .strategy = SP_OS,
                       .split = SP_SPLIT_M, .mr = 6, .nr = 64};
        CHECK_INT(ls_constraint(s, ls_problem(s, 0), &c, err, sizeof err), 1);
        c.nopack = 1;
        CHECK_INT(ls_constraint(s, ls_problem(s, 0), &c, err, sizeof err), 0);
        ls_close(s);
    }
}

static void test_measure(void)
{
    /* Not given: the host on a CPU (default "sim" or not); the options'
     * default on an NPU. */
    static const char *const scripts[] = {(H MM), (H MM "tune { budget = 4 }\n"),
                                          ("target { base = \"host\", cores = 2 }\n" MM)};
    for (int i = 0; i < 3; i++) {
        ls_script *s = GOOD(&opts, scripts[i]);
        if (s) {
            CHECK_STR(ls_tune_get(s)->measure, "host");
            ls_close(s);
        }
    }
    ls_script *s = GOOD(&opts, T910 MM);
    if (s) {
        CHECK_STR(ls_tune_get(s)->measure, "sim");
        ls_close(s);
    }
    /* The model needs no hardware: it stays the default where it is one,
     * and can be asked for on either kind. */
    s = GOOD(&opts_model, H MM);
    if (s) {
        CHECK_STR(ls_tune_get(s)->measure, "model");
        ls_close(s);
    }
    s = GOOD(&opts, H MM "tune { measure = \"model\" }\n");
    if (s) {
        CHECK_STR(ls_tune_get(s)->measure, "model");
        ls_close(s);
    }
    s = GOOD(&opts, H MM "tune { measure = \"host\" }\n");
    if (s) {
        CHECK_STR(ls_tune_get(s)->measure, "host");
        ls_close(s);
    }
    /* A backend of the other kind. */
    BAD(H MM "tune { measure = \"sim\" }\n",
        "bad.lua:3: tune: measure 'sim' simulates npu targets; target 'host' is a cpu (use "
        "measure = \"host\")");
    BAD(T910 MM "tune { measure = \"host\" }\n",
        "bad.lua:3: tune: measure 'host' runs kernels on the host cpu; target 'ascend910' is an "
        "npu (use target \"host\", or measure = \"sim\")");
    BAD_WITH(&opts_model, T910 MM "\ntune { measure = \"host\", budget = 2 }\n",
             "bad.lua:4: tune: measure 'host' runs kernels on the host cpu; target 'ascend910' is "
             "an npu (use target \"host\", or measure = \"sim\")");
}

static void test_constraint(void)
{
    ls_script *s = GOOD(&opts, H MM
                        "space { micro = { \"6x64\", \"4x16\" },\n"
                        "  constraint = function(c)\n"
                        "    return c.mr * c.nr >= 96 and c.dtype == \"fp32\" and c.nr % 16 == 0\n"
                        "  end }\n");
    if (!s)
        return;
    CHECK(ls_has_constraint(s));
    CHECK_STR(ls_where(s, "constraint"), "good.lua:4");
    const sp_problem *p = ls_problem(s, 0);
    sp_config c = {.m = 96, .n = 512, .k = 256, .cores = 1, .strategy = SP_OS,
                   .split = SP_SPLIT_M, .mr = 6, .nr = 64};
    CHECK_INT(ls_constraint(s, p, &c, err, sizeof err), 1);
    c.mr = 4, c.nr = 16;
    CHECK_INT(ls_constraint(s, p, &c, err, sizeof err), 0);
    c.mr = 6, c.nr = 16;
    CHECK_INT(ls_constraint(s, p, &c, err, sizeof err), 1);
    c.mr = 12, c.nr = 8;
    CHECK_INT(ls_constraint(s, p, &c, err, sizeof err), 0);
    /* The table is reused: each call sees its own mr and nr. */
    long kept = 0;
    for (int i = 0; i < 1000; i++) {
        c.mr = (uint8_t)(1 + i % 10);
        c.nr = (uint8_t)(16 * (1 + (i / 10) % 4));
        kept += ls_constraint(s, p, &c, err, sizeof err);
    }
    /* mr * nr >= 96 of mr 1..10 x nr 16, 32, 48, 64: 5 + 8 + 9 + 9 = 31 of 40. */
    CHECK_INT(kept, 31 * 25);
    ls_close(s);

    /* On an NPU they are 0. */
    s = GOOD(&opts, T910 MM "space { constraint = function(c) return c.mr == 0 and c.nr == 0 end }\n");
    if (s) {
        sp_config n = {.m = 64, .n = 64, .k = 64, .cores = 1, .strategy = SP_OS};
        CHECK_INT(ls_constraint(s, ls_problem(s, 0), &n, err, sizeof err), 1);
        ls_close(s);
    }
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_no_host();
    test_host();
    test_derived();
    test_scratch();
    test_dtype();
    test_micro();
    test_pack();
    test_measure();
    test_constraint();
    /* The provider ran once, however many scripts named the host. */
    CHECK_INT(host_calls, 1);
    rmdir(tmpdir);
    return CHECK_DONE();
}
