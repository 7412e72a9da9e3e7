/* table.c — the tuning table: exact bytes with its target's figures, strict reading
 * of malformed or foreign tables (formats 1 and 2 too), picking an entry for a shape,
 * and the generated C header compiled. */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "fixtures.h"
#include "results.h"

static char dir[] = "/tmp/npu-tune-table-XXXXXX";
static char err[1024];

static const char sigline[] =
    "# npu-tune table 5 version=0.1.0 target=ascend910 target_sig=1a2b3c4d5e6f7081 "
    "space_sig=0011223344556677 measure=sim script=my scripts/bert.lua\n";
static const char header[] =
    "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,measured,unit,micro,"
    "verified,op,shape\n";
/* Format 3, as tables were written before the op column. */
static const char sigline3[] =
    "# npu-tune table 3 version=0.1.0 target=ascend910 target_sig=1a2b3c4d5e6f7081 "
    "space_sig=0011223344556677 measure=sim script=my scripts/bert.lua\n";
/* Line 2 of formats 3 and 4: the figures of fx_ascend910. */
static const char targetline[] =
    "# target ascend910 kind=npu cores=32 clock_mhz=1000 macs.fp16=4096 macs.int8=8192 "
    "macs.fp32=0 macs.bf16=0 l1=1048576 l0a=65536 l0b=65536 l0c=262144 ub=262144 align.l1=32 "
    "align.l0a=512 align.l0b=512 align.l0c=512 align.ub=32 gm_l1.bandwidth=64 "
    "gm_l1.latency=200 l1_l0a.bandwidth=512 l1_l0a.latency=16 l1_l0b.bandwidth=256 "
    "l1_l0b.latency=16 l0c_ub.bandwidth=256 l0c_ub.latency=16 ub_gm.bandwidth=64 "
    "ub_gm.latency=200 gm_bandwidth=1200 events=8\n";
/* Format 2, as tables were written before the target's figures. */
static const char sigline2[] =
    "# npu-tune table 2 version=0.1.0 target=ascend910 target_sig=1a2b3c4d5e6f7081 "
    "space_sig=0011223344556677 measure=sim script=my scripts/bert.lua\n";
/* The columns of formats 3 and 2. */
static const char header3[] =
    "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,measured,unit,micro,"
    "verified\n";
/* Format 1, as tables were written before the verified column. */
static const char sigline1[] =
    "# npu-tune table 1 version=0.1.0 target=ascend910 target_sig=1a2b3c4d5e6f7081 "
    "space_sig=0011223344556677 measure=sim script=my scripts/bert.lua\n";
static const char header1[] =
    "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,measured,unit,micro\n";

static void put(const char *path, const char *text)
{
    put_mode(path, text, "w");
}

static const char *at(const char *name)
{
    return path_in(dir, name);
}

static rs_signature signature(void)
{
    rs_signature s = {.version = "0.1.0", .script = "my scripts/bert.lua", .target = "ascend910",
                      .target_sig = "1a2b3c4d5e6f7081", .space_sig = "0011223344556677",
                      .measure = "sim"};
    return s;
}

/* A table entry as run.c would write it. */
typedef struct {
    sp_problem p;
    sp_candidate c;
    const char *target;
    double measured;
    const char *unit;
} spec;

static rs_row row_of(const spec *s)
{
    rs_row r = {&s->p, s->target, &s->c, "sim", "ok", s->measured, s->unit, NULL, true, NULL};
    return r;
}

static spec make(const char *name, long M, long N, long K, long batch, sp_dtype d, int strategy,
                 int m, int n, int k, int db, int cores, int split, double measured)
{
    spec s = {.p = fx_problem(M, N, K, batch, d),
              .c = {.config = {.m = m, .n = n, .k = k, .cores = cores,
                               .strategy = (uint8_t)strategy, .double_buffer = (uint8_t)db,
                               .split = (uint8_t)split}},
              .target = "ascend910", .measured = measured, .unit = "cycles"};
    snprintf(s.p.name, sizeof s.p.name, "%s", name);
    return s;
}

/* Entries of several dtypes, batches, strategies and splits, each legal for
 * its own shape on ascend910. */
#define NSPEC 7
static spec all[NSPEC];

static void build_specs(void)
{
    all[0] = make("bert", 512, 768, 768, 1, SP_FP16, SP_OS, 128, 128, 64, 1, 1, SP_SPLIT_M, 81920);
    all[1] = make("bert", 512, 3072, 768, 1, SP_FP16, SP_WS, 32, 32, 768, 0, 8, SP_SPLIT_N, 155648);
    all[2] = make("attn", 256, 256, 64, 12, SP_FP16, SP_IS, 64, 64, 64, 1, 4, SP_SPLIT_MN, 20480);
    all[3] = make("q8", 1024, 1024, 1024, 1, SP_INT8, SP_OS, 128, 128, 128, 1, 32, SP_SPLIT_MN, 9216);
    all[4] = make("q8", 64, 64, 96, 2, SP_INT8, SP_OS, 32, 32, 32, 0, 2, SP_SPLIT_M, 777);
    all[5] = make("tiny", 100, 50, 40, 2, SP_FP16, SP_OS, 32, 32, 16, 1, 1, SP_SPLIT_M, 4321);
    all[6] = make("secs", 300, 200, 100, 3, SP_FP16, SP_OS, 48, 64, 32, 0, 2, SP_SPLIT_N, 0.000123456789);
    all[6].unit = "s";
    sp_target t = fx_ascend910();
    for (int i = 0; i < NSPEC; i++)
        if (!CHECK_INT(sp_check(&t, &all[i].p, &all[i].c.config), 0))
            fprintf(stderr, "  spec %d is illegal for its own shape\n", i);
}

static bool write_specs(const char *path, const spec *s, size_t n)
{
    rs_row rows[16];
    for (size_t i = 0; i < n; i++)
        rows[i] = row_of(&s[i]);
    rs_signature sig = signature();
    sp_target t = fx_ascend910();
    return rs_table_write(path, &sig, &t, rows, n, err, sizeof err);
}

/* Whether a temporary file ("*.tmp.*") is left in dir/t. */
static bool leftover_tmp(void)
{
    return any_file(at("t/*.tmp.*"));
}

static void round_trip(void)
{
    char path[512]; /* at() reuses its buffers */
    snprintf(path, sizeof path, "%s", at("t/bert-table.csv"));
    CHECK(write_specs(path, all, 2));
    char want[4096];
    snprintf(want, sizeof want, "%s%s%s%s", sigline, targetline, header,
             "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,M,81920,cycles,,1,matmul,512x768x768\n"
             "bert,512,3072,768,1,fp16,ascend910,WS,32,32,768,0,8,N,155648,cycles,,1,matmul,512x3072x768\n");
    CHECK_STR(slurp(path), want);
    /* A table holds one unit: the rows in cycles and one in s are refused,
     * the table left as it was. */
    CHECK(!write_specs(path, all, NSPEC));
    char msg[1024];
    snprintf(msg, sizeof msg,
             "cannot write '%s': row 7 (problem 'secs') is in s, row 1 in cycles; a table "
             "holds one unit",
             path);
    CHECK_STR(err, msg);
    CHECK_STR(slurp(path), want);
    /* Rewriting (all in s) replaces the whole file and leaves no temporary behind. */
    spec secs[NSPEC];
    for (int i = 0; i < NSPEC; i++)
        secs[i] = all[i], secs[i].unit = "s";
    CHECK(write_specs(path, secs, NSPEC));
    CHECK(!leftover_tmp());

    rs_table tab;
    CHECK(rs_table_read(path, &tab, err, sizeof err));
    const rs_signature sig = tab.sig;
    const rs_entry *e = tab.e;
    size_t n = tab.n;
    CHECK_INT(n, NSPEC);
    CHECK(tab.has_target);
    sp_target t910 = fx_ascend910();
    char why[256] = "";
    if (!CHECK(rs_table_target(&tab, "ascend910") &&
               sp_target_same(rs_table_target(&tab, "ascend910"), &t910, why, sizeof why)))
        fprintf(stderr, "  %s\n", why);
    CHECK(rs_table_target(&tab, "ascend910b") == NULL);
    CHECK_STR(sig.version, "0.1.0");
    CHECK_STR(sig.script, "my scripts/bert.lua");
    CHECK_STR(sig.target, "ascend910");
    CHECK_STR(sig.target_sig, "1a2b3c4d5e6f7081");
    CHECK_STR(sig.space_sig, "0011223344556677");
    CHECK_STR(sig.measure, "sim");
    for (size_t i = 0; e && i < n && i < NSPEC; i++) {
        const spec *s = &secs[i];
        CHECK_STR(e[i].problem.name, s->p.name);
        CHECK(e[i].problem.M == s->p.M && e[i].problem.N == s->p.N &&
              e[i].problem.K == s->p.K && e[i].problem.batch == s->p.batch &&
              e[i].problem.dtype == s->p.dtype);
        CHECK_STR(e[i].target, "ascend910");
        CHECK(sp_cmp_config(&e[i].config, &s->c.config) == 0);
        CHECK_STR(e[i].status, "ok");
        CHECK_DBL(e[i].measured, s->measured);
        CHECK_STR(e[i].unit, s->unit);
        CHECK_INT(e[i].verified, 1);
    }
    rs_table_free(&tab);
    CHECK(tab.e == NULL && tab.n == 0 && !tab.has_target);

    /* An empty table is a table, and describes its target. */
    CHECK(write_specs(at("empty.csv"), all, 0));
    CHECK(rs_table_read(at("empty.csv"), &tab, err, sizeof err));
    CHECK_INT(tab.n, 0);
    CHECK(tab.has_target);
    rs_table_free(&tab);

    /* A CPU target's table: its figures read back exactly (a measured clock). */
    sp_target cpu = {.name = "host-custom", .kind = SP_CPU, .cores = 2,
                     .clock_mhz = 2893.4567812, .cpu = {.simd_floats = 16, .vregs = 32,
                     .fma_units = 2, .load_ports = 2, .cache = {48 * KiB, 1 * MiB, 0},
                     .bw_l2 = 64, .bw_l3 = 32, .bw_mem = 16, .bw_mem_shared = 24,
                     .fork_join = 10000}};
    spec host = make("sgemm", 512, 768, 768, 1, SP_FP32, SP_WS, 144, 64, 768, 0, 1,
                     SP_SPLIT_M, 0.00123);
    host.target = "host-custom";
    host.unit = "s";
    host.c.config.mr = 8, host.c.config.nr = 48;
    rs_row hr = row_of(&host);
    rs_signature hs = signature();
    strcpy(hs.target, "host-custom");
    strcpy(hs.measure, "host");
    CHECK(rs_table_write(at("host.csv"), &hs, &cpu, &hr, 1, err, sizeof err));
    CHECK_HAS(slurp(at("host.csv")),
              "\n# target host-custom kind=cpu cores=2 clock_mhz=2893.4567812 simd_floats=16 "
              "vregs=32 fma_units=2 load_ports=2 l1=49152 l2=1048576 l3=0 bandwidth.l2=64 "
              "bandwidth.l3=32 bandwidth.mem=16 bandwidth.mem_shared=24 fork_join=10000 "
              "load_stall=0 prefetch_stall=0 l1_ways=0 alias_stall=0 pack_stall=0 stride_stall=0\n"
              "problem,");
    if (CHECK(rs_table_read(at("host.csv"), &tab, err, sizeof err))) {
        CHECK(rs_table_target(&tab, "host-custom") &&
              sp_target_same(rs_table_target(&tab, "host-custom"), &cpu, NULL, 0));
        CHECK_INT(tab.e[0].config.nr, 48);
        CHECK_INT(tab.e[0].config.nopack, 0);
        rs_table_free(&tab);
    }
    /* a table of packing configs only is written in format 5 (as before the
     * no-pack family); one with a no-pack entry in format 6, with the pack
     * column */
    CHECK_PREFIX(slurp(at("host.csv")), "# npu-tune table 5 ");
    spec small = make("small", 64, 64, 64, 1, SP_FP32, SP_OS, 6, 64, 64, 0, 1, SP_SPLIT_M, 2e-6);
    small.target = "host-custom";
    small.unit = "s";
    small.c.config.mr = 6, small.c.config.nr = 32, small.c.config.nopack = 1;
    rs_row two[] = {hr, row_of(&small)};
    CHECK(rs_table_write(at("nopack.csv"), &hs, &cpu, two, 2, err, sizeof err));
    const char *text = slurp(at("nopack.csv"));
    CHECK_PREFIX(text, "# npu-tune table 6 ");
    CHECK_HAS(text, "\nproblem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,"
                    "measured,unit,micro,verified,op,shape,pack\n"
                    "sgemm,512,768,768,1,fp32,host-custom,WS,144,64,768,0,1,M,0.00123,s,8x48,1,"
                    "matmul,512x768x768,1\n"
                    "small,64,64,64,1,fp32,host-custom,OS,6,64,64,0,1,M,2e-06,s,6x32,1,matmul,"
                    "64x64x64,0\n");
    if (CHECK(rs_table_read(at("nopack.csv"), &tab, err, sizeof err))) {
        CHECK_INT(tab.n, 2);
        CHECK_INT(tab.e[0].config.nopack, 0);
        CHECK_INT(tab.e[1].config.nopack, 1);
        CHECK_INT(tab.e[1].config.mr, 6);
        rs_table_free(&tab);
    }

    /* Only measured rows belong in a table. */
    rs_row bad = row_of(&all[0]);
    bad.status = "wrong";
    rs_signature s = signature();
    CHECK(!rs_table_write(path, &s, &t910, &bad, 1, err, sizeof err));
    snprintf(msg, sizeof msg,
             "cannot write '%s': row 1 (problem 'bert') is not a measured config (status "
             "wrong); a table holds only status-ok rows",
             path);
    CHECK_STR(err, msg);
    strcpy(s.target, "ascend 910");
    strcpy(t910.name, s.target);
    bad.status = "ok";
    CHECK(!rs_table_write(path, &s, &t910, &bad, 1, err, sizeof err));
    snprintf(msg, sizeof msg, "cannot write '%s': the target 'ascend 910' has white space", path);
    CHECK_STR(err, msg);
    /* One target: the signature's, the figures' and every row's. */
    s = signature();
    strcpy(t910.name, "ascend910b");
    CHECK(!rs_table_write(path, &s, &t910, &bad, 1, err, sizeof err));
    snprintf(msg, sizeof msg,
             "cannot write '%s': the signature's target 'ascend910' is not 'ascend910b'", path);
    CHECK_STR(err, msg);
    strcpy(t910.name, "ascend910");
    bad.target = "ascend910b";
    CHECK(!rs_table_write(path, &s, &t910, &bad, 1, err, sizeof err));
    snprintf(msg, sizeof msg,
             "cannot write '%s': row 1 (problem 'bert') is of target 'ascend910b', the table's "
             "is 'ascend910'",
             path);
    CHECK_STR(err, msg);
    /* A directory that cannot be made: one line naming it. */
    put(at("plain"), "x");
    char blocked[600];
    snprintf(blocked, sizeof blocked, "%s/sub/table.csv", at("plain"));
    CHECK(!write_specs(blocked, all, 1));
    snprintf(msg, sizeof msg, "cannot create directory '%s': Not a directory", at("plain"));
    CHECK_STR(err, msg);
    /* The failed writes left the previous table in place. */
    CHECK(rs_table_read(path, &tab, err, sizeof err));
    CHECK_INT(tab.n, NSPEC);
    rs_table_free(&tab);
}

/* Reads text as a table; "" on success, else the message without the path. */
static const char *read_text(const char *text)
{
    const char *path = at("bad.csv");
    put(path, text);
    rs_table t;
    memset(&t, 0x5a, sizeof t);
    static char result[1200];
    bool ok = rs_table_read(path, &t, err, sizeof err);
    if (ok) {
        rs_table_free(&t);
        return "";
    }
    CHECK(t.e == NULL && !t.has_target);
    CHECK_INT(t.n, 0);
    CHECK(!t.has_target);
    snprintf(result, sizeof result, "%s",
             strncmp(err, path, strlen(path)) == 0 ? err + strlen(path) : err);
    return result;
}

static void malformed(void)
{
    char text[4096];
    const char *row = "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,M,81920,cycles,,0\n";
    snprintf(text, sizeof text, "%s%s", header3, row);
    CHECK_STR(read_text(text), ":1: not an npu-tune table (no '# npu-tune table' line)");
    CHECK_STR(read_text(""), ":1: not an npu-tune table (no '# npu-tune table' line)");
    CHECK_STR(read_text("# npu-tune tablet 1\n"), ":1: not an npu-tune table (no '# npu-tune table' line)");
    snprintf(text, sizeof text, "# npu-tune table 7 version=9.0\n%s%s", header, row);
    CHECK_STR(read_text(text), ":1: table format 7 is not supported (this build reads 1 to 6)");
    snprintf(text, sizeof text, "# npu-tune table 2 version=0.1.0 oops\n%s%s", header3, row);
    CHECK_STR(read_text(text), ":1: 'oops' in the signature is not key=value");
    snprintf(text, sizeof text, "%sproblem,M,N,K,batch,dtype,target,strategy,m,n,k,cores,split,measured,unit\n%s",
             sigline2, row);
    CHECK_STR(read_text(text), ":2: columns are not the tuning table's");
    snprintf(text, sizeof text, "%s", sigline2);
    CHECK_STR(read_text(text), ":2: columns are not the tuning table's");
    /* Format 2 has no target line. */
    snprintf(text, sizeof text, "%s%s%s%s", sigline2, targetline, header3, row);
    CHECK_STR(read_text(text), ":2: columns are not the tuning table's");
    snprintf(text, sizeof text, "%s%s%s%s", sigline2, header3, row,
             "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,K,81920,cycles,,0\n");
    CHECK_STR(read_text(text), ":4: field 'split' is not M, N or MN: 'K'");
    snprintf(text, sizeof text, "%s%s%s%s", sigline2, header3, row,
             "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,M,,cycles,,0\n");
    CHECK_STR(read_text(text), ":4: field 'measured' is empty");
    snprintf(text, sizeof text, "%s%s%s%s", sigline2, header3, row,
             "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,M,81920,cycles,,0,extra\n");
    CHECK_STR(read_text(text), ":4: 19 fields, expected 18");
    snprintf(text, sizeof text, "%s%s%s%s", sigline2, header3, row,
             "bert,512,768,768,1,fp32,host,OS,128,128,64,1,1,M,0.5,s,6x300,1\n");
    CHECK_STR(read_text(text), ":4: field 'micro' is out of range: '300'");
    /* Truncated: the last row has no newline. */
    snprintf(text, sizeof text, "%s%s%s%s", sigline2, header3, row, "bert,512,768,768,1,fp16,asc");
    CHECK_STR(read_text(text), ":4: the last line is cut off (no newline at its end)");
    snprintf(text, sizeof text, "%s%s%s", sigline2, header3, row);
    CHECK_STR(read_text(text), "");
    /* The verified column: 0 or 1; format 1 tables have none (read as -1). */
    snprintf(text, sizeof text, "%s%s%s%s", sigline2, header3, row,
             "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,M,81920,cycles,,2\n");
    CHECK_STR(read_text(text), ":4: field 'verified' is not 0 or 1: '2'");
    snprintf(text, sizeof text, "%s%s%s%s", sigline2, header3, row,
             "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,M,81920,cycles,,\n");
    CHECK_STR(read_text(text), ":4: field 'verified' is empty");
    snprintf(text, sizeof text, "%s%s%s", sigline2, header1,
             "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,M,81920,cycles,\n");
    CHECK_STR(read_text(text), ":2: columns are not the tuning table's");
    snprintf(text, sizeof text, "%s%s%s", sigline1, header3, row);
    CHECK_STR(read_text(text), ":2: columns are not the tuning table's");
    snprintf(text, sizeof text, "%s%s%s", sigline1, header1,
             "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,M,81920,cycles,\n"
             "q8,64,64,96,2,int8,ascend910,OS,32,32,32,0,2,M,777,cycles,\n");
    put(at("old.csv"), text);
    rs_table old;
    if (CHECK(rs_table_read(at("old.csv"), &old, err, sizeof err)) && CHECK_INT(old.n, 2)) {
        CHECK_INT(old.e[0].verified, -1);
        CHECK_INT(old.e[1].verified, -1);
        CHECK_DBL(old.e[1].measured, 777);
        CHECK_INT(old.e[1].problem.batch, 2);
        CHECK_INT(old.e[1].problem.op, sp_op_parse("matmul"));
        CHECK(!old.has_target); /* its rows name a built-in target */
        CHECK(rs_table_target(&old, "ascend910") == NULL);
    }
    rs_table_free(&old);
    /* Format 2 reads the same, with its verified column. */
    snprintf(text, sizeof text, "%s%s%s", sigline2, header3, row);
    put(at("old.csv"), text);
    if (CHECK(rs_table_read(at("old.csv"), &old, err, sizeof err)) && CHECK_INT(old.n, 1)) {
        CHECK_INT(old.e[0].verified, 0);
        CHECK_INT(old.e[0].line, 3);
        CHECK_INT(old.e[0].problem.op, sp_op_parse("matmul"));
        CHECK(!old.has_target);
    }
    rs_table_free(&old);
    /* Format 3 (before the op column): its target line, rows of the default op. */
    snprintf(text, sizeof text, "%s%s%s%s", sigline3, targetline, header3,
             "q8,64,64,96,2,int8,ascend910,OS,32,32,32,0,2,M,777,cycles,,1\n");
    put(at("old.csv"), text);
    if (CHECK(rs_table_read(at("old.csv"), &old, err, sizeof err)) && CHECK_INT(old.n, 1)) {
        CHECK_INT(old.e[0].verified, 1);
        CHECK_INT(old.e[0].problem.op, sp_op_parse("matmul"));
        CHECK_INT(old.e[0].problem.K, 96);
        CHECK(old.has_target);
        char shape[SP_SHAPE_MAX];
        sp_problem_shape(&old.e[0].problem, shape, sizeof shape);
        CHECK_STR(shape, "64x64x96 b2"); /* the dimensions, from the GEMM view */
    }
    rs_table_free(&old);
    /* Format 4 (before the shape column): the op's dimensions from the GEMM view. */
    snprintf(text, sizeof text,
             "# npu-tune table 4 version=0.1.0 target=ascend910 target_sig=1a2b3c4d5e6f7081 "
             "space_sig=0011223344556677 measure=sim script=my scripts/bert.lua\n%s%s%s",
             targetline, "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,"
                         "split,measured,unit,micro,verified,op\n",
             "q8,64,80,96,3,int8,ascend910,OS,32,32,32,0,2,M,777,cycles,,1,matmul\n");
    put(at("old.csv"), text);
    if (CHECK(rs_table_read(at("old.csv"), &old, err, sizeof err)) && CHECK_INT(old.n, 1)) {
        sp_problem want = old.e[0].problem;
        int64_t dims[] = {64, 80, 96, 3};
        sp_problem_set(&want, 0, dims);
        CHECK(sp_problem_same_shape(&old.e[0].problem, &want));
    }
    rs_table_free(&old);
    /* Format 5: the op column holds an op of the registry, the shape column
     * its own dimensions; the columns are the format's, not the other's. */
    const char *row4 = "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,M,81920,cycles,,0,matmul,512x768x768\n";
    snprintf(text, sizeof text, "%s%s%s%s", sigline, targetline, header, row4);
    CHECK_STR(read_text(text), "");
    snprintf(text, sizeof text, "%s%s%s%s%s", sigline, targetline, header, row4,
             "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,M,81920,cycles,,1,conv,512x768x768\n");
    CHECK_STR(read_text(text), ":5: field 'op' is not matmul: 'conv'");
    snprintf(text, sizeof text, "%s%s%s%s%s", sigline, targetline, header, row4,
             "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,M,81920,cycles,,1,matmul\n");
    CHECK_STR(read_text(text), ":5: 19 fields, expected 20");
    snprintf(text, sizeof text, "%s%s%s%s%s", sigline, targetline, header, row4,
             "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,M,81920,cycles,,1,matmul,"
             "512x768x769\n");
    CHECK_STR(read_text(text), ":5: field 'shape' '512x768x769' computes as 512x768x769 batch 1, "
                               "not as the row's 512x768x768 batch 1");
    snprintf(text, sizeof text, "%s%s%s%s", sigline, targetline, header3, row);
    CHECK_STR(read_text(text), ":3: columns are not the tuning table's");
    snprintf(text, sizeof text, "%s%s%s%s", sigline3, targetline, header, row4);
    CHECK_STR(read_text(text), ":3: columns are not the tuning table's");

    rs_table missing;
    char want[700];
    CHECK(!rs_table_read(at("missing.csv"), &missing, err, sizeof err));
    snprintf(want, sizeof want, "cannot open '%s': No such file or directory", at("missing.csv"));
    CHECK_STR(err, want);
}

/* Format 3: the target line, read as strictly as a script's target. */
static void figures(void)
{
    char text[8192];
    const char *row = "bert,512,768,768,1,fp16,ascend910,OS,128,128,64,1,1,M,81920,cycles,,0\n";
    snprintf(text, sizeof text, "%s%s%s%s", sigline3, targetline, header3, row);
    CHECK_STR(read_text(text), "");
    rs_table t;
    if (CHECK(rs_table_read(at("bad.csv"), &t, err, sizeof err))) {
        CHECK_INT(t.e[0].line, 4);
        rs_table_free(&t);
    }
    /* The table's target must be described, once, under its own name. */
    snprintf(text, sizeof text, "%s%s%s", sigline3, header3, row);
    CHECK_STR(read_text(text), ":2: no '# target ascend910' line before the columns");
    snprintf(text, sizeof text, "%s%s%s%s%s", sigline3, targetline, targetline, header3, row);
    CHECK_STR(read_text(text), ":3: target 'ascend910' is described twice (first at line 2)");
    snprintf(text, sizeof text,
             "# npu-tune table 3 version=0.1.0 measure=sim script=s.lua\n%s%s%s", targetline,
             header3, row);
    CHECK_STR(read_text(text), ":1: the signature names no target");
    /* hostile target lines: the text of targetline with one word replaced */
    static const char *const edits[][3] = {
        {"ascend910 kind", "ascend910b kind",
         ":2: target 'ascend910b' is not the table's, 'ascend910' (line 1)"},
        {" cores=32 ", " cores=lots ",
         ":2: target 'ascend910': field 'cores' must be an integer from -2147483647 to "
         "2147483647, not 'lots'"},
        {" cores=32 ", " cores=32 cores=32 ", ":2: target 'ascend910': field 'cores' given twice"},
        {" cores=32 ", " cors=32 ", ":2: target 'ascend910': unknown field 'cors'"},
        {" cores=32 ", " ", ":2: target 'ascend910': field 'cores' is missing"},
        {" cores=32 ", " cores=0 ",
         ":2: target 'ascend910': field 'cores' must be a positive integer"},
        {" l1=1048576 ", " l1=18446744073709551616 ",
         ":2: target 'ascend910': field 'l1' must be a 64-bit integer, not "
         "'18446744073709551616'"},
        {" clock_mhz=1000 ", " clock_mhz=1e400 ",
         ":2: target 'ascend910': field 'clock_mhz' must be a finite number, not '1e400'"},
        {" clock_mhz=1000 ", " clock_mhz=nan ",
         ":2: target 'ascend910': field 'clock_mhz' must be a finite number, not 'nan'"},
        {" kind=npu ", " kind=cpu ",
         ":2: target 'ascend910': field 'macs.fp16' does not apply to cpu targets"},
        {" events=8", " events=8 vregs=4",
         ":2: target 'ascend910': field 'vregs' does not apply to npu targets"},
        {" events=8", " events=8\r",
         ":2: target 'ascend910': field 'events' must be an integer from -2147483647 to "
         "2147483647, not '8?'"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        char line[2048];
        const char *at = strstr(targetline, edits[i][0]);
        if (!CHECK(at != NULL))
            continue;
        snprintf(line, sizeof line, "%.*s%s%s", (int)(at - targetline), targetline, edits[i][1],
                 at + strlen(edits[i][0]));
        snprintf(text, sizeof text, "%s%s%s%s", sigline3, line, header3, row);
        if (!CHECK_STR(read_text(text), edits[i][2]))
            fprintf(stderr, "  (edit %zu)\n", i);
    }
    /* more words than a target has fields */
    char many[4096];
    snprintf(many, sizeof many, "%.*s", (int)strlen(targetline) - 1, targetline);
    for (int i = 0; i < 20; i++)
        strcat(many, " x=1");
    strcat(many, "\n");
    snprintf(text, sizeof text, "%s%s%s%s", sigline3, many, header3, row);
    char want[64];
    snprintf(want, sizeof want, ":2: more than %d figures on the target line", SP_TARGET_NFIELDS - 1);
    CHECK_STR(read_text(text), want);
    /* a target line after the columns is a malformed row */
    snprintf(text, sizeof text, "%s%s%s%s%s", sigline3, targetline, header3, row, targetline);
    CHECK_PREFIX(read_text(text), ":5: ");
}

/* The expected choice of a lookup: rs_table_pick, else the default entry
 * (the first of the dtype, else entry 0). */
static int expected(const rs_entry *e, size_t n, const sp_target *t, const sp_problem *p)
{
    bool exact;
    const rs_entry *r = rs_table_pick(e, n, t, p, &exact);
    if (r)
        return (int)(r - e);
    for (size_t i = 0; i < n; i++)
        if (e[i].problem.dtype == p->dtype)
            return (int)i;
    return 0;
}

static void pick(void)
{
    sp_target t = fx_ascend910();
    rs_entry e[NSPEC + 2];
    for (int i = 0; i < NSPEC; i++) {
        e[i] = (rs_entry){.problem = all[i].p, .config = all[i].c.config, .status = "ok",
                          .measured = all[i].measured};
        strcpy(e[i].target, "ascend910");
    }
    /* Same shape as entry 0 but another target, and a near int8 shape. */
    e[NSPEC] = e[0];
    strcpy(e[NSPEC].target, "ascend310");
    e[NSPEC + 1] = e[3];
    strcpy(e[NSPEC + 1].target, "ascend310");
    size_t n = NSPEC + 2;
    bool exact;

    for (int i = 0; i < NSPEC; i++) {
        const rs_entry *r = rs_table_pick(e, n, &t, &all[i].p, &exact);
        CHECK(r == &e[i] && exact);
    }
    sp_target t310 = t;
    strcpy(t310.name, "ascend310");
    CHECK(rs_table_pick(e, n, &t310, &all[0].p, &exact) == &e[NSPEC] && exact);

    /* Nearest legal: K 1024 rules out WS/IS (k must be K); entry 0 is nearer
     * than entry 5. */
    sp_problem p = fx_problem(512, 768, 1024, 1, SP_FP16);
    CHECK(rs_table_pick(e, n, &t, &p, &exact) == &e[0] && !exact);
    /* 64x64x64 x12: entry 2 (same K, batch) is illegal (no 2x2 grid over
     * 1x1 tiles), entry 0's tile is too big: entry 5. */
    p = fx_problem(64, 64, 64, 12, SP_FP16);
    CHECK_INT(sp_check(&t, &p, &e[2].config), SP_BAD_SPLIT);
    CHECK(rs_table_pick(e, n, &t, &p, &exact) == &e[5] && !exact);
    /* Split N over 8 cores needs 8 n-tiles: 112/32 = 4 are too few; entry
     * 0's n = 128 exceeds 112: the far entry 6 is the nearest legal one. */
    p = fx_problem(512, 100, 768, 1, SP_FP16);
    CHECK_INT(sp_check(&t, &p, &e[1].config), SP_BAD_SPLIT);
    CHECK_INT(sp_check(&t, &p, &e[0].config), SP_BAD_DIM);
    CHECK(rs_table_pick(e, n, &t, &p, &exact) == &e[6]);
    /* Another dtype is never taken: int8 queries only see int8 entries. */
    p = fx_problem(512, 768, 768, 1, SP_INT8);
    const rs_entry *r = rs_table_pick(e, n, &t, &p, &exact);
    CHECK(r && r->problem.dtype == SP_INT8 && !exact);
    /* Another op is never taken, not even its exact shape. */
    p = all[0].p;
    p.op = 1;
    CHECK(rs_table_pick(e, n, &t, &p, &exact) == NULL && !exact);
    /* Nothing legal: NULL. */
    p = fx_problem(16, 16, 32, 1, SP_INT8);
    CHECK(rs_table_pick(e, n, &t, &p, &exact) == NULL && !exact);
    /* Another target's table has nothing for this one. */
    sp_target other = t;
    strcpy(other.name, "ascend910b");
    CHECK(rs_table_pick(e, n, &other, &all[0].p, &exact) == NULL);
    CHECK(rs_table_pick(e, 0, &t, &all[0].p, &exact) == NULL);
    /* Ties go to the earlier entry. */
    rs_entry twin[2] = {e[5], e[5]};
    twin[1].problem.M = 200; /* ratio 2 above vs 2 below */
    twin[0].problem.M = 50;
    twin[0].config.m = twin[1].config.m = 16;
    p = fx_problem(100, 50, 40, 2, SP_FP16);
    CHECK(rs_table_pick(twin, 2, &t, &p, &exact) == &twin[0]);
}

/* The compiler of the header test: cc builds and runs, c++ and clang check. */
static const char *compiler = "cc";

static bool have(const char *tool)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    return system(cmd) == 0;
}

typedef struct {
    long M, N, K, batch;
    const char *dtype;
} query;

static int run(const char *cmd)
{
    int rc = system(cmd);
    if (rc != 0)
        fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
    return rc;
}

/* Writes the header of e[0..n) and a program checking every lookup of q
 * against want; compiles it with cc (and C++) and runs it. */
static void compile_and_run(const char *name, rs_entry *e, size_t n, const query *q,
                            const int *want, size_t nq)
{
    char hpath[600], cpath[600], bin[600], cmd[4096];
    snprintf(hpath, sizeof hpath, "%s/%s.h", dir, name);
    snprintf(cpath, sizeof cpath, "%s/%s.c", dir, name);
    snprintf(bin, sizeof bin, "%s/%s", dir, name);
    FILE *f = fopen(hpath, "w");
    sp_target t = fx_ascend910();
    rs_table tab = {.sig = signature(), .e = e, .n = n, .target = t, .has_target = true};
    strcpy(tab.sig.script, "odd */ name\nhere.lua");
    CHECK(f && rs_header_write(f, &tab));
    if (f)
        fclose(f);
    /* its comment gives the target's figures, in lines of at most 90 columns */
    const char *h = slurp(hpath);
    CHECK_HAS(h, "\n * Its figures: kind=npu cores=32 clock_mhz=1000 macs.fp16=4096 ");
    CHECK_HAS(h, " events=8\n * Self-contained");
    for (const char *l = h; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, " *  ", 4) == 0 && strstr(l, "=") && !CHECK((strchr(l, '\n') - l) <= 90))
            break;
    f = fopen(cpath, "w");
    if (!CHECK(f != NULL))
        return;
    fprintf(f, "#include <stdio.h>\n#include <string.h>\n#include \"%s.h\"\n\n", name);
    fprintf(f, "static const struct { long M, N, K, batch; const char *dtype; int want; } q[] = {\n");
    for (size_t i = 0; i < nq; i++)
        fprintf(f, "    {%ld, %ld, %ld, %ld, \"%s\", %d},\n", q[i].M, q[i].N, q[i].K, q[i].batch,
                q[i].dtype, want[i]);
    if (!nq)
        fprintf(f, "    {0, 0, 0, 0, \"\", 0},\n");
    fprintf(f, "};\n\nint main(void)\n{\n    int bad = 0;\n    size_t i = 0;\n    (void)i;\n    (void)q;\n");
    if (n == 0)
        fprintf(f, "    if (npu_tune_table_size != 0 || npu_tune_lookup(1, 1, 1, 1, \"fp16\"))\n"
                   "        bad = 1;\n");
    if (nq)
        fprintf(f, "    for (i = 0; i < %zu; i++) {\n"
               "        const npu_tune_entry *r = npu_tune_lookup(q[i].M, q[i].N, q[i].K, q[i].batch, q[i].dtype);\n"
               "        long got = r ? (long)(r - npu_tune_table) : -1;\n"
               "        if (got != q[i].want) {\n"
               "            printf(\"query %%lu (%%ldx%%ldx%%ld x%%ld %%s): entry %%ld, expected %%d\\n\",\n"
               "                   (unsigned long)i, q[i].M, q[i].N, q[i].K, q[i].batch, q[i].dtype, got, q[i].want);\n"
               "            bad = 1;\n"
               "        }\n"
               "    }\n",
            nq);
    /* Every field of every entry. */
    for (size_t i = 0; i < n; i++) {
        const sp_problem *p = &e[i].problem;
        const sp_config *c = &e[i].config;
        fprintf(f,
                "    {\n        const npu_tune_entry *e = &npu_tune_table[%zu];\n"
                "        if (strcmp(e->problem, \"%s\") || e->M != %lld || e->N != %lld || e->K != %lld ||\n"
                "            e->batch != %lld || strcmp(e->dtype, \"%s\") || strcmp(e->target, \"%s\") ||\n"
                "            strcmp(e->strategy, \"%s\") || e->m != %d || e->n != %d || e->k != %d ||\n"
                "            e->double_buffer != %d || e->cores != %d || strcmp(e->split, \"%s\") ||\n"
                "            e->measured != %.17g || strcmp(e->unit, \"%s\") || e->verified != %d ||\n"
                "            strcmp(e->op, \"%s\")) {\n"
                "            printf(\"entry %zu differs\\n\");\n            bad = 1;\n        }\n    }\n",
                i, p->name, (long long)p->M, (long long)p->N, (long long)p->K,
                (long long)p->batch, sp_dtype_name(p->dtype), e[i].target,
                sp_strategy_name(c->strategy), c->m, c->n, c->k, c->double_buffer, c->cores,
                sp_split_name(c->split), e[i].measured, e[i].unit, e[i].verified,
                sp_op_name(p->op), i);
    }
    fprintf(f, "    return bad;\n}\n");
    fclose(f);
    if (strcmp(compiler, "cc") == 0) {
        snprintf(cmd, sizeof cmd,
                 "cc -std=c11 -Wall -Wextra -Werror -pedantic -I'%s' '%s' -o '%s' && '%s'", dir,
                 cpath, bin, bin);
        CHECK_INT(run(cmd), 0);
        /* Including it without using anything draws no warning either. */
        char only[600];
        snprintf(only, sizeof only, "%s/%s_only.c", dir, name);
        if ((f = fopen(only, "w"))) {
            fprintf(f, "#include \"%s.h\"\nint main(void) { return 0; }\n", name);
            fclose(f);
        }
        snprintf(cmd, sizeof cmd,
                 "cc -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I'%s' '%s'", dir, only);
        CHECK_INT(run(cmd), 0);
    }
    if (strcmp(compiler, "c++") == 0) {
        snprintf(cmd, sizeof cmd,
                 "c++ -x c++ -std=c++11 -Wall -Wextra -Werror -pedantic -fsyntax-only '%s'",
                 cpath);
        CHECK_INT(run(cmd), 0);
    }
    if (strcmp(compiler, "clang") == 0) {
        snprintf(cmd, sizeof cmd,
                 "clang -std=c11 -Wall -Wextra -Werror -pedantic -fsyntax-only -I'%s' '%s'", dir,
                 cpath);
        CHECK_INT(run(cmd), 0);
    }
}

/* A small deterministic generator for the random fallback queries. */
static unsigned long lcg(unsigned long *s)
{
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    return (*s >> 33) & 0x7fffffffUL;
}

/* The header compiled by `compiler` (the tests table_header_cc, _cxx and
 * _clang); 77 (skipped) where it is not on PATH. */
static int header_round_trip(void)
{
    if (!have(compiler)) {
        printf("skipped: no %s on PATH\n", compiler);
        return 77;
    }
    sp_target t = fx_ascend910();
    rs_entry e[NSPEC];
    for (int i = 0; i < NSPEC; i++) {
        e[i] = (rs_entry){.problem = all[i].p, .config = all[i].c.config, .status = "ok",
                          .measured = all[i].measured, .verified = i % 3 - 1};
        strcpy(e[i].target, "ascend910");
        snprintf(e[i].unit, sizeof e[i].unit, "%s", all[i].unit);
    }
    enum { NQ = 300 };
    static query q[NQ];
    static int want[NQ];
    size_t nq = 0;
    /* Every entry exactly. */
    for (int i = 0; i < NSPEC; i++) {
        const sp_problem *p = &e[i].problem;
        q[nq] = (query){p->M, p->N, p->K, p->batch, sp_dtype_name(p->dtype)};
        want[nq++] = i;
    }
    /* Worked fallbacks: nearest legal, illegal skipped, nothing legal
     * (default: first of the dtype), unknown dtype (entry 0), bad dims. */
    const query fixed[] = {{512, 768, 1024, 1, "fp16"}, {64, 64, 64, 12, "fp16"},
                           {512, 100, 768, 1, "fp16"},  {2000, 1000, 500, 1, "int8"},
                           {16, 16, 32, 1, "int8"},     {512, 768, 768, 1, "bf16"},
                           {0, 768, 768, 1, "int8"}};
    const int fixed_want[] = {0, 5, 6, -1, 3, 0, 3};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        q[nq] = fixed[i];
        if (fixed_want[i] >= 0 && fixed[i].M > 0 && sp_dtype_parse(fixed[i].dtype) >= 0) {
            sp_problem p = fx_problem(fixed[i].M, fixed[i].N, fixed[i].K, fixed[i].batch,
                                      (sp_dtype)sp_dtype_parse(fixed[i].dtype));
            CHECK_INT(expected(e, NSPEC, &t, &p), fixed_want[i]);
        }
        if (fixed_want[i] >= 0) {
            want[nq++] = fixed_want[i];
        } else {
            sp_problem p = fx_problem(fixed[i].M, fixed[i].N, fixed[i].K, fixed[i].batch,
                                      (sp_dtype)sp_dtype_parse(fixed[i].dtype));
            want[nq++] = expected(e, NSPEC, &t, &p);
        }
    }
    /* Random shapes: the header agrees with rs_table_pick's choice. */
    unsigned long seed = 12345;
    while (nq < NQ) {
        long M = 1 + (long)(lcg(&seed) % 2048), N = 1 + (long)(lcg(&seed) % 4096);
        long K = 1 + (long)(lcg(&seed) % 2048), batch = 1 + (long)(lcg(&seed) % 16);
        sp_dtype d = lcg(&seed) % 3 ? SP_FP16 : SP_INT8;
        sp_problem p = fx_problem(M, N, K, batch, d);
        q[nq] = (query){M, N, K, batch, sp_dtype_name(d)};
        want[nq++] = expected(e, NSPEC, &t, &p);
    }
    compile_and_run("npu_tune_table", e, NSPEC, q, want, nq);
    compile_and_run("npu_tune_empty", e, 0, q, want, 0);
    return CHECK_DONE();
}

/* No argument: the table library; --header CC: the C header it exports,
 * compiled by CC (cc, c++ or clang). */
int main(int argc, char **argv)
{
    if (!mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    build_specs();
    int rc;
    if (argc > 2 && strcmp(argv[1], "--header") == 0) {
        compiler = argv[2];
        rc = header_round_trip();
    } else {
        round_trip();
        malformed();
        figures();
        pick();
        rc = CHECK_DONE();
    }
    remove_tree(dir);
    return rc;
}
