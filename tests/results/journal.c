/* journal.c — the results journal: sidecar and header of a new journal,
 * resume into the cache, torn last lines, refusing foreign or malformed files and
 * rows, one process per journal (its lock), journals that are not files,
 * journals from before the op column, and the pack column. */
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "files.h"
#include "fixtures.h"
#include "results.h"

static char dir[] = "/tmp/npu-tune-journal-XXXXXX";
static char err[1024];

static const char header[] =
    "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,"
    "load_volume_elems,est_cycles,backend,status,measured,unit,micro,round,op,shape,node\n";

static void put(const char *path, const char *text, const char *mode)
{
    put_mode(path, text, mode);
}

static const char *at(const char *name)
{
    return path_in(dir, name);
}

static rs_signature signature(void)
{
    rs_signature s = {.version = "0.1.0", .script = "examples/bert.lua", .target = "ascend910",
                      .target_sig = "1a2b3c4d5e6f7081", .space_sig = "0011223344556677",
                      .measure = "sim"};
    return s;
}

static sp_problem problem(void)
{
    sp_problem p = fx_problem(100, 50, 40, 2, SP_FP16);
    strcpy(p.name, "tiny");
    return p;
}

static sp_candidate candidate(int m)
{
    sp_candidate c = {.config = {.m = m, .n = 32, .k = 16, .cores = 1, .strategy = SP_OS,
                                 .double_buffer = 1, .split = SP_SPLIT_M},
                      .fig = {.load_elems = 46080, .est_cycles = 1234.4}};
    return c;
}

/* Opens and immediately closes path; returns the cache (caller frees). */
static rs_cache *reopen(const char *path, const rs_signature *sig)
{
    rs_cache *c = NULL;
    rs_journal *j = rs_journal_open(path, sig, &c, err, sizeof err);
    if (!j) {
        CHECK(c == NULL);
        return NULL;
    }
    CHECK(rs_journal_close(j, err, sizeof err));
    return c;
}

static void new_and_resume(void)
{
    const char *path = at("a/b/bert.csv"), *sigpath = at("a/b/bert.csv.sig");
    rs_signature sig = signature();
    rs_cache *c = NULL;
    rs_journal *j = rs_journal_open(path, &sig, &c, err, sizeof err);
    CHECK(j != NULL && c != NULL);
    CHECK_INT(rs_cache_size(c), 0);
    CHECK_STR(slurp(sigpath), "version=0.1.0\nscript=examples/bert.lua\ntarget=ascend910\n"
                              "target_sig=1a2b3c4d5e6f7081\nspace_sig=0011223344556677\n"
                              "measure=sim\n");
    CHECK_STR(slurp(path), header);
    sp_problem p = problem();
    sp_candidate c32 = candidate(32), c48 = candidate(48), c64 = candidate(64);
    rs_row ok = {&p, "ascend910", &c32, "sim", "ok", 1234.4, "cycles", NULL, false, "node-1"};
    rs_row wrong = {&p, "ascend910", &c48, "sim", "wrong", 0.5, "s", NULL, false, NULL}; /* unit: ignored */
    CHECK(rs_journal_append(j, &ok, err, sizeof err));
    CHECK(rs_journal_append(j, &wrong, err, sizeof err));
    CHECK(rs_journal_close(j, err, sizeof err));
    rs_cache_free(c);
    char want[8192];
    snprintf(want, sizeof want, "%s%s", header,
             "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234.4,sim,ok,1234.4,cycles,,search,matmul,100x50x40 b2,node-1\n"
             "tiny,100,50,40,2,fp16,ascend910,OS,48,32,16,1,1,M,46080,1234.4,sim,wrong,,s,,search,matmul,100x50x40 b2,\n");
    CHECK_STR(slurp(path), want);

    /* Resume: the rows come back; a different version is fine. */
    strcpy(sig.version, "0.2.0");
    c = NULL;
    j = rs_journal_open(path, &sig, &c, err, sizeof err);
    CHECK(j != NULL);
    CHECK_INT(rs_cache_size(c), 2);
    const rs_entry *e = rs_cache_find(c, &p, &c32.config);
    CHECK(e != NULL);
    if (e) {
        CHECK_STR(e->problem.name, "tiny");
        CHECK_INT(e->problem.M, 100);
        CHECK_INT(e->problem.N, 50);
        CHECK_INT(e->problem.K, 40);
        CHECK_INT(e->problem.batch, 2);
        CHECK_INT(e->problem.dtype, SP_FP16);
        CHECK_STR(e->target, "ascend910");
        CHECK(sp_cmp_config(&e->config, &c32.config) == 0);
        CHECK_STR(e->status, "ok");
        CHECK_DBL(e->measured, 1234.4);
        CHECK_STR(e->unit, "cycles");
        CHECK_STR(e->node, "node-1");
    }
    e = rs_cache_find(c, &p, &c48.config);
    if (CHECK(e != NULL)) {
        CHECK_STR(e->status, "wrong");
        CHECK_STR(e->unit, "s");
        CHECK_STR(e->node, "");
    }
    CHECK(rs_cache_find(c, &p, &c64.config) == NULL);
    sp_problem other = fx_problem(100, 50, 40, 3, SP_FP16);
    strcpy(other.name, "tiny");
    CHECK(rs_cache_find(c, &other, &c32.config) == NULL);
    other = p;
    strcpy(other.name, "tinx");
    CHECK(rs_cache_find(c, &other, &c32.config) == NULL);
    rs_cache_free(c);

    /* A final's row of the same candidate (side by side) goes beside the
     * search's figure, which a resumed search hears again; values read back
     * exactly. */
    rs_row again = ok;
    again.measured = 1.0 / 3.0;
    again.round = "final";
    CHECK(rs_journal_append(j, &again, err, sizeof err));
    CHECK(rs_journal_close(j, err, sizeof err));
    CHECK_HAS(slurp(path), ",sim,ok,0.3333333333333333,cycles,,final,matmul,100x50x40 b2,node-1\n");
    c = reopen(path, &sig);
    CHECK_INT(rs_cache_size(c), 2);
    e = rs_cache_find(c, &p, &c32.config);
    if (CHECK(e != NULL)) {
        CHECK_STR(e->round, "search");
        CHECK_DBL(e->measured, 1234.4);
        CHECK_DBL(e->final, 1.0 / 3.0);
        CHECK_INT(e->final_line, 4);
    }
    e = rs_cache_find(c, &p, &c48.config);
    if (CHECK(e != NULL)) {
        CHECK(isnan(e->final));
        CHECK_INT(e->final_line, 0);
    }
    rs_cache_free(c);

    /* A failed verification: a resumed run (search_figures) keeps the
     * search's row, the final's figure and the verdict beside it; read to
     * look at, the verification's row replaces the search's. A failed final
     * replaces neither, and leaves its line without a figure. */
    rs_row failed = ok;
    failed.status = "wrong";
    failed.round = "verify";
    CHECK((j = rs_journal_open(path, &sig, &c, err, sizeof err)) != NULL);
    rs_cache_free(c);
    CHECK(j && rs_journal_append(j, &failed, err, sizeof err));
    CHECK(rs_journal_close(j, err, sizeof err));
    c = reopen(path, &sig);
    CHECK_INT(rs_cache_size(c), 2);
    e = rs_cache_find(c, &p, &c32.config);
    if (CHECK(e != NULL)) {
        CHECK_STR(e->status, "ok");
        CHECK_STR(e->round, "search");
        CHECK_DBL(e->measured, 1234.4);
        CHECK_STR(e->verdict, "wrong");
        CHECK_DBL(e->final, 1.0 / 3.0);
        CHECK_INT(e->final_line, 4);
    }
    e = rs_cache_find(c, &p, &c48.config);
    if (CHECK(e != NULL))
        CHECK_STR(e->verdict, "");
    rs_cache_free(c);
    CHECK(rs_journal_read(path, false, &c, err, sizeof err));
    if (CHECK((e = rs_cache_find(c, &p, &c32.config)) != NULL)) {
        CHECK_STR(e->status, "wrong");
        CHECK_STR(e->round, "verify");
        CHECK_STR(e->verdict, "wrong");
        CHECK_DBL(e->final, 1.0 / 3.0);
    }
    rs_cache_free(c);
    sp_candidate c80 = candidate(80);
    rs_row kept = ok, lost = ok;
    kept.cand = lost.cand = &c80;
    lost.status = "timeout";
    lost.round = "final";
    CHECK((j = rs_journal_open(path, &sig, &c, err, sizeof err)) != NULL);
    rs_cache_free(c);
    CHECK(j && rs_journal_append(j, &kept, err, sizeof err));
    CHECK(j && rs_journal_append(j, &lost, err, sizeof err));
    CHECK(rs_journal_close(j, err, sizeof err));
    for (int figures = 0; figures < 2; figures++) {
        CHECK(rs_journal_read(path, figures, &c, err, sizeof err));
        if (CHECK((e = rs_cache_find(c, &p, &c80.config)) != NULL)) {
            CHECK_STR(e->status, "ok");
            CHECK_STR(e->round, "search");
            CHECK(isnan(e->final));
            CHECK_INT(e->final_line, 7);
        }
        rs_cache_free(c);
    }

    /* A torn last line (a kill mid-write) is dropped and cut off; appending
     * then continues on a clean line. */
    char before[4096];
    snprintf(before, sizeof before, "%s", slurp(path));
    put(path, "tiny,100,50,40,2,fp16,ascend910,OS,64,32,16,1,1,M,46080,12", "a");
    c = NULL;
    j = rs_journal_open(path, &sig, &c, err, sizeof err);
    CHECK(j != NULL && rs_cache_size(c) == 3);
    CHECK(rs_cache_find(c, &p, &c64.config) == NULL);
    CHECK_STR(slurp(path), before);
    rs_row third = {&p, "ascend910", &c64, "sim", "timeout", 0, "cycles", NULL, false, NULL};
    c64.fig.est_cycles = NAN; /* figures of a candidate the model could not rate */
    CHECK(j && rs_journal_append(j, &third, err, sizeof err));
    CHECK(rs_journal_close(j, err, sizeof err));
    rs_cache_free(c);
    snprintf(want, sizeof want, "%s%s", before,
             "tiny,100,50,40,2,fp16,ascend910,OS,64,32,16,1,1,M,46080,,sim,timeout,,cycles,,search,matmul,100x50x40 b2,\n");
    CHECK_STR(slurp(path), want);
    c = reopen(path, &sig);
    CHECK_INT(rs_cache_size(c), 4);
    e = rs_cache_find(c, &p, &c64.config);
    if (CHECK(e != NULL))
        CHECK_STR(e->status, "timeout");
    rs_cache_free(c);
}

/* Each foreign field is refused with its own message; nothing is returned. */
/* Reopening path under `other` is refused with "PATH <why>: move it away
 * or choose another results path". */
static void refused(const char *path, const rs_signature *other, const char *why)
{
    CHECK(reopen(path, other) == NULL);
    char want[1024];
    snprintf(want, sizeof want, "%s %s: move it away or choose another results path", path, why);
    CHECK_STR(err, want);
}

static void foreign(void)
{
    const char *path = at("foreign.csv");
    rs_signature sig = signature();
    rs_cache *c = reopen(path, &sig);
    CHECK(c != NULL);
    rs_cache_free(c);

    rs_signature other = sig;
    strcpy(other.target, "ascend910b");
    strcpy(other.target_sig, "3c4d5e6f70819203");
    refused(path, &other,
            "was written for target ascend910 (signature 1a2b3c4d5e6f7081), this run is "
            "ascend910b (3c4d5e6f70819203)");

    other = sig; /* same name, other figures */
    strcpy(other.target_sig, "3c4d5e6f70819203");
    refused(path, &other,
            "was written for target ascend910 (signature 1a2b3c4d5e6f7081), this run is "
            "ascend910 (3c4d5e6f70819203)");

    other = sig;
    strcpy(other.space_sig, "8899aabbccddeeff");
    strcpy(other.script, "other.lua");
    refused(path, &other,
            "was written for other problems or another space (signature 0011223344556677, "
            "script examples/bert.lua), this run's are 8899aabbccddeeff (script other.lua)");

    other = sig;
    strcpy(other.measure, "model");
    refused(path, &other, "was written with measure sim, this run uses model");
    /* Kernels from another generator: a journal without the field (an NPU
     * run's, or one written before it existed) is not resumed by a run that
     * has one, nor one with another. */
    other = sig;
    strcpy(other.kernel_sig, "0f1e2d3c4b5a6978");
    refused(path, &other,
            "was written with other generated kernels (signature none), this build generates "
            "0f1e2d3c4b5a6978");
    const char *kpath = at("kernels.csv");
    c = reopen(kpath, &other);
    CHECK(c != NULL);
    rs_cache_free(c);
    char kside[600];
    snprintf(kside, sizeof kside, "%s.sig", kpath);
    CHECK_HAS(slurp(kside), "\nkernel_sig=0f1e2d3c4b5a6978\n");
    char sigpath[600];
    snprintf(sigpath, sizeof sigpath, "%s.sig", path);
    CHECK_HAS(slurp(sigpath), "space_sig=");
    CHECK(strstr(slurp(sigpath), "kernel_sig") == NULL);
    rs_signature newer = other;
    strcpy(newer.kernel_sig, "1f1e2d3c4b5a6978");
    CHECK(reopen(kpath, &newer) == NULL);
    CHECK_HAS(err, "(signature 0f1e2d3c4b5a6978), this build generates 1f1e2d3c4b5a6978");
    /* The refused journal is untouched. */
    CHECK_STR(slurp(path), header);

    /* No sidecar: unknown origin. */
    char want[1024];
    CHECK(unlink(sigpath) == 0);
    CHECK(reopen(path, &sig) == NULL);
    snprintf(want, sizeof want,
             "%s: no %s beside it; not resuming a journal of unknown origin", path, sigpath);
    CHECK_STR(err, want);

    /* A sidecar lacking a field, or with a line that is not key=value. */
    put(sigpath, "version=0.1.0\ntarget=ascend910\ntarget_sig=1a2b3c4d5e6f7081\nmeasure=sim\n", "w");
    CHECK(reopen(path, &sig) == NULL);
    snprintf(want, sizeof want, "%s: no 'space_sig' line", sigpath);
    CHECK_STR(err, want);
    put(sigpath, "version=0.1.0\nnonsense\n", "w");
    CHECK(reopen(path, &sig) == NULL);
    snprintf(want, sizeof want, "%s:2: not a key=value line", sigpath);
    CHECK_STR(err, want);
}

/* Writes a journal with its sidecar by hand and tries to resume it with
 * options o (may be NULL): "ok ROWS" or the error after the path. */
static const char *resume_with(const char *name, const char *text, rs_journal_opts *o)
{
    const char *path = at(name);
    char sigpath[600];
    snprintf(sigpath, sizeof sigpath, "%s.sig", path);
    put(sigpath, "version=0.1.0\nscript=examples/bert.lua\ntarget=ascend910\n"
                 "target_sig=1a2b3c4d5e6f7081\nspace_sig=0011223344556677\nmeasure=sim\n", "w");
    put(path, text, "w");
    rs_signature sig = signature();
    rs_cache *c = NULL;
    rs_journal *j = rs_journal_open_with(path, &sig, o, &c, err, sizeof err);
    if (j)
        CHECK(rs_journal_close(j, err, sizeof err));
    size_t n = rs_cache_size(c);
    rs_cache_free(c);
    static char result[1200];
    if (c)
        snprintf(result, sizeof result, "ok %zu", n);
    else
        snprintf(result, sizeof result, "%s", err + strlen(path));
    return result;
}

static const char *resume_text(const char *name, const char *text)
{
    return resume_with(name, text, NULL);
}

/* Rows of another target, backend, unit or problem are refused, the file
 * untouched: the sidecar does not cover what a row says. */
static void foreign_rows(void)
{
    const char *row = "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n";
    struct {
        const char *row, *msg;
    } bad[] = {
        {"tiny,100,50,40,2,fp16,ascend310,OS,48,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: row is for target ascend310, this run is for ascend910"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,48,32,16,1,1,M,46080,1234,host,ok,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: row was measured with host, this run measures with sim"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,48,32,16,1,1,M,46080,1234,sim,ok,0.5,s,,final,matmul,100x50x40 b2,\n",
         ":3: row is in s, line 2 is in cycles; a journal holds one unit"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,48,32,16,1,1,M,46080,1234,sim,crash,,s,,search,matmul,100x50x40 b2,\n",
         NULL}, /* a failed row's unit says nothing */
        {"tiny,100,50,40,2,int8,ascend910,OS,48,32,32,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: row is for tiny 100x50x40 b2 in int8, this run tunes it in fp16"},
        {"tiny,100,50,40,1,fp16,ascend910,OS,48,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40,\n",
         ":3: row is for tiny 100x50x40, which this run does not tune"},
        {"tinx,100,50,40,2,fp16,ascend910,OS,48,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: row is for tinx 100x50x40 b2, which this run does not tune"},
    };
    sp_problem p = problem(), q = fx_problem(64, 64, 64, 1, SP_INT8);
    strcpy(q.name, "other");
    const sp_problem *run[] = {&q, &p};
    rs_journal_opts o = {.problems = run, .nproblems = 2};
    char text[4096], kept[4096];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s%s%s", header, row, bad[i].row);
        CHECK_STR(resume_with("rows.csv", text, &o), bad[i].msg ? bad[i].msg : "ok 2");
        snprintf(kept, sizeof kept, "%s", slurp(at("rows.csv")));
        CHECK_STR(kept, text);
    }
    /* Without the run's problems, only target, backend and unit are checked. */
    snprintf(text, sizeof text, "%s%s%s", header, row, bad[6].row);
    CHECK_STR(resume_text("rows.csv", text), "ok 2");
    /* The unit of the ok rows is the journal's. */
    rs_signature sig = signature();
    rs_cache *c = NULL;
    snprintf(text, sizeof text, "%s%s%s", header,
             "tiny,100,50,40,2,fp16,ascend910,OS,48,32,16,1,1,M,46080,1234,sim,timeout,,s,,search,matmul,100x50x40 b2,\n",
             row);
    put(at("rows.csv"), text, "w");
    rs_journal *j = rs_journal_open_with(at("rows.csv"), &sig, &o, &c, err, sizeof err);
    CHECK(j != NULL);
    long line = 0;
    if (j) {
        CHECK_STR(rs_journal_unit(j, &line), "cycles");
        CHECK_INT(line, 3);
        CHECK(rs_journal_close(j, err, sizeof err));
    }
    rs_cache_free(c);
    j = rs_journal_open(at("unit.csv"), &sig, &c, err, sizeof err);
    CHECK(j != NULL);
    if (j) {
        CHECK_STR(rs_journal_unit(j, NULL), "");
        CHECK(rs_journal_close(j, err, sizeof err));
    }
    rs_cache_free(c);
}

static void malformed(void)
{
    const char *row = "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n";
    char text[4096];
    CHECK_STR(resume_text("cols.csv", "problem,M,N,K\ntiny,1,2,3\n"),
              ":1: columns are not the npu-tune journal's");
    /* A text file without a newline that is not a journal header. */
    CHECK_STR(resume_text("notes.csv", "my notes"), ":1: columns are not the npu-tune journal's");
    CHECK_STR(slurp(at("notes.csv")), "my notes");

    struct {
        const char *row, *msg;
    } bad[] = {
        {"tiny,100,50,40,2,fp16,ascend910,OS,x,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'm' is not an integer: 'x'"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234\n",
         ":3: 19 fields, expected 25"},
        {"tiny,100,50,40,2,fp64,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'dtype' is not fp16, int8, fp32 or bf16: 'fp64'"},
        {"tiny,100,50,40,2,fp32,host,OS,32,32,16,1,1,M,46080,1234,host,ok,1234,s,6y64,search,matmul,100x50x40 b2,\n",
         ":3: field 'micro' is not a micro-tile MRxNR: '6y64'"},
        {"tiny,100,50,40,2,fp32,host,OS,32,32,16,1,1,M,46080,1234,host,ok,1234,s,6x0,search,matmul,100x50x40 b2,\n",
         ":3: field 'micro' is out of range: '0'"},
        {"tiny,100,50,40,2,fp16,ascend910,XS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'strategy' is not IS, WS or OS: 'XS'"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,2,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'double_buffer' is not 0 or 1: '2'"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,0,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'cores' is out of range: '0'"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,K,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'split' is not M, N or MN: 'K'"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'measured' is empty"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,12ab,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'measured' is not a number: '12ab'"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'status' is empty"},
        {",100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'problem' is empty"},
        {"tiny,-100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,-100x50x40 b2,\n",
         ":3: field 'M' is not an integer: '-100'"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,semi,matmul,100x50x40 b2,\n",
         ":3: field 'round' is not search, final or verify: 'semi'"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,0,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'measured' of an ok row is not positive: '0'"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,-1e-3,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'measured' of an ok row is not positive: '-1e-3'"},
        {"my net,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'problem' is not a name of 1 to 40 characters from A-Z a-z 0-9 _ . -: 'my net'"},
        {"tiny,100,50,4000000000,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x4000000000 b2,\n",
         ":3: field 'K' is out of range: '4000000000'"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,2097152,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'n' is out of range: '2097152'"},
        {"\n", ":3: empty line"},
        /* what no row written holds (the next append would fail) */
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cyc\rles,,search,matmul,100x50x40 b2,\n",
         ":3: field 'unit' has a quote or a line break"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(text, sizeof text, "%s%s%s%s", header, row, bad[i].row, row);
        CHECK_STR(resume_text("bad.csv", text), bad[i].msg);
    }
    /* Failed rows may leave measured empty; ok rows of it load. */
    snprintf(text, sizeof text, "%s%s%s", header, row,
             "tiny,100,50,40,2,fp16,ascend910,OS,48,32,16,1,1,M,46080,1234,sim,crash,,cycles,,search,matmul,100x50x40 b2,\n");
    CHECK_STR(resume_text("good.csv", text), "ok 2");
    /* Only a torn row after the header: kept header, no rows. */
    snprintf(text, sizeof text, "%stiny,100,5", header);
    CHECK_STR(resume_text("torn.csv", text), "ok 0");
    CHECK_STR(slurp(at("torn.csv")), header);
}

/* Empty journals and torn headers (a kill right after creating the file)
 * start afresh, sidecar included. */
static void fresh(void)
{
    rs_signature sig = signature();
    const char *texts[] = {"", "problem,M,N,K,ba"};
    for (int i = 0; i < 2; i++) {
        const char *path = at("empty.csv");
        char sigpath[600];
        snprintf(sigpath, sizeof sigpath, "%s.sig", path);
        unlink(sigpath);
        put(path, texts[i], "w");
        rs_cache *c = reopen(path, &sig);
        CHECK(c != NULL);
        CHECK_INT(rs_cache_size(c), 0);
        rs_cache_free(c);
        CHECK_STR(slurp(path), header);
        CHECK(access(sigpath, F_OK) == 0);
    }
}

static void unwritable(void)
{
    const char *file = at("plain");
    put(file, "x", "w");
    char path[600], want[700];
    snprintf(path, sizeof path, "%s/journal.csv", file);
    rs_signature sig = signature();
    CHECK(reopen(path, &sig) == NULL);
    snprintf(want, sizeof want, "cannot open '%s': Not a directory", path);
    CHECK_STR(err, want);

    /* A value the CSV cannot hold is refused before anything is written. */
    const char *jpath = at("names.csv");
    rs_cache *c;
    rs_journal *j = rs_journal_open(jpath, &sig, &c, err, sizeof err);
    CHECK(j != NULL);
    sp_problem p = problem();
    strcpy(p.name, "a,b");
    sp_candidate cand = candidate(32);
    rs_row row = {&p, "ascend910", &cand, "sim", "ok", 1, "cycles", NULL, false, NULL};
    CHECK(!rs_journal_append(j, &row, err, sizeof err));
    CHECK_STR(err, "cannot write a row of problem 'a,b': its problem name 'a,b' is empty or has "
                   "a comma, quote or line break");
    CHECK(rs_journal_close(j, err, sizeof err));
    rs_cache_free(c);
    CHECK_STR(slurp(jpath), header);
}

/* Many rows: the cache grows and every row is found again. */
static void many(void)
{
    const char *path = at("many.csv");
    rs_signature sig = signature();
    rs_cache *c;
    rs_journal *j = rs_journal_open(path, &sig, &c, err, sizeof err);
    CHECK(j != NULL);
    rs_cache_free(c);
    sp_problem p = problem();
    int n = 0;
    for (int m = 16; m <= 512; m += 16)
        for (int k = 16; k <= 512; k += 16, n++) {
            sp_candidate cand = candidate(m);
            cand.config.k = k;
            rs_row row = {&p, "ascend910", &cand, "sim", "ok", m * 1000.0 + k, "cycles", NULL, false, NULL};
            if (!rs_journal_append(j, &row, err, sizeof err))
                CHECK(false);
        }
    CHECK(rs_journal_close(j, err, sizeof err));
    c = reopen(path, &sig);
    CHECK_INT(rs_cache_size(c), n);
    int found = 0;
    for (int m = 16; m <= 512; m += 16)
        for (int k = 16; k <= 512; k += 16) {
            sp_candidate cand = candidate(m);
            cand.config.k = k;
            const rs_entry *e = rs_cache_find(c, &p, &cand.config);
            found += e && e->measured == m * 1000.0 + k;
        }
    CHECK_INT(found, n);
    rs_cache_free(c);
}

/* One process per journal: another's open fails naming the holder, or with
 * `wait` blocks until the holder closes it; a killed holder's lock is gone. */
static void locked(void)
{
    const char *path = at("locked.csv");
    rs_signature sig = signature();
    rs_cache *c = NULL;
    rs_journal *j = rs_journal_open(path, &sig, &c, err, sizeof err);
    CHECK(j != NULL);
    rs_cache_free(c);
    sp_problem p = problem();
    sp_candidate c32 = candidate(32), c48 = candidate(48);
    rs_row row = {&p, "ascend910", &c32, "sim", "ok", 1000, "cycles", NULL, false, NULL};
    CHECK(j && rs_journal_append(j, &row, err, sizeof err));
    int ready[2];
    CHECK(pipe(ready) == 0);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) { /* exit status: 0 as expected, 1 + step otherwise */
        char want[1024];
        snprintf(want, sizeof want, "%s is in use by another npu-tune run (pid %ld)", path,
                 (long)getppid());
        rs_journal_opts o = {0};
        rs_cache *cc = NULL;
        if (rs_journal_open_with(path, &sig, &o, &cc, err, sizeof err) || strcmp(err, want) ||
            o.holder != (long)getppid() || cc)
            _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(2);
        o.wait = true;
        rs_journal *w = rs_journal_open_with(path, &sig, &o, &cc, err, sizeof err);
        _exit(!w ? 3 : rs_cache_size(cc) != 2 ? 4 : o.holder != 0 ? 5 : 0);
    }
    char x;
    CHECK_INT(read(ready[0], &x, 1), 1);
    rs_row second = {&p, "ascend910", &c48, "sim", "ok", 900, "cycles", NULL, false, NULL};
    CHECK(j && rs_journal_append(j, &second, err, sizeof err)); /* still held: the waiter sees it */
    CHECK(rs_journal_close(j, err, sizeof err));
    int status = -1;
    CHECK_INT(waitpid(child, &status, 0), child);
    CHECK_INT(WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status), 0);
    close(ready[0]);
    close(ready[1]);

    /* kill -9 of the holder: the kernel drops its lock. */
    CHECK(pipe(ready) == 0);
    fflush(NULL);
    if ((child = fork()) == 0) {
        rs_cache *cc = NULL;
        if (!rs_journal_open(path, &sig, &cc, err, sizeof err) || write(ready[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    CHECK_INT(read(ready[0], &x, 1), 1);
    rs_journal_opts o = {0};
    CHECK(rs_journal_open_with(path, &sig, &o, &c, err, sizeof err) == NULL);
    CHECK_INT(o.holder, child);
    kill(child, SIGKILL);
    CHECK_INT(waitpid(child, &status, 0), child);
    j = rs_journal_open_with(path, &sig, &o, &c, err, sizeof err);
    CHECK(j != NULL);
    CHECK_INT(rs_cache_size(c), 2);
    CHECK_INT(o.holder, 0);
    if (j)
        CHECK(rs_journal_close(j, err, sizeof err));
    rs_cache_free(c);
    close(ready[0]);
    close(ready[1]);
}

/* A sidecar an editor saved with CRLF line ends resumes. */
static void crlf(void)
{
    const char *path = at("crlf.csv");
    char sigpath[600];
    snprintf(sigpath, sizeof sigpath, "%s.sig", path);
    put(sigpath, "version=0.1.0\r\nscript=examples/bert.lua\r\ntarget=ascend910\r\n"
                 "target_sig=1a2b3c4d5e6f7081\r\nspace_sig=0011223344556677\r\nmeasure=sim\r\n", "w");
    put(path, header, "w");
    rs_signature sig = signature();
    rs_cache *c = reopen(path, &sig);
    CHECK(c != NULL);
    rs_cache_free(c);
}

/* A journal that is not a regular file gets the header and the rows, no
 * sidecar, and is not locked (two runs may share /dev/null). */
static void through(void)
{
    const char *path = at("null.csv");
    char sigpath[600];
    snprintf(sigpath, sizeof sigpath, "%s.sig", path);
    CHECK(symlink("/dev/null", path) == 0);
    rs_signature sig = signature();
    rs_cache *c1 = NULL, *c2 = NULL;
    rs_journal *a = rs_journal_open(path, &sig, &c1, err, sizeof err);
    rs_journal *b = rs_journal_open("/dev/null", &sig, &c2, err, sizeof err);
    CHECK(a != NULL && b != NULL);
    CHECK_INT(rs_cache_size(c1), 0);
    sp_problem p = problem();
    sp_candidate c32 = candidate(32);
    rs_row row = {&p, "ascend910", &c32, "sim", "ok", 1000, "cycles", NULL, false, NULL};
    CHECK(a && rs_journal_append(a, &row, err, sizeof err));
    CHECK(rs_journal_close(a, err, sizeof err));
    CHECK(rs_journal_close(b, err, sizeof err));
    rs_cache_free(c1);
    rs_cache_free(c2);
    CHECK(access(sigpath, F_OK) != 0);

    /* A FIFO: what its reader gets is the journal. */
    const char *fifo = at("fifo.csv");
    CHECK(mkfifo(fifo, 0666) == 0);
    int got[2];
    CHECK(pipe(got) == 0);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) { /* the reader: passes on what it reads */
        close(got[0]);
        int fd = open(fifo, O_RDONLY);
        char buf[4096];
        ssize_t n;
        while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
            if (write(got[1], buf, (size_t)n) != n)
                _exit(1);
        _exit(fd < 0);
    }
    close(got[1]);
    a = rs_journal_open(fifo, &sig, &c1, err, sizeof err);
    CHECK(a != NULL);
    CHECK(a && rs_journal_append(a, &row, err, sizeof err));
    CHECK(rs_journal_close(a, err, sizeof err));
    rs_cache_free(c1);
    char text[4096] = "";
    size_t len = 0;
    for (ssize_t n; len + 1 < sizeof text && (n = read(got[0], text + len, sizeof text - 1 - len)) > 0;)
        len += (size_t)n;
    text[len] = '\0';
    close(got[0]);
    int status;
    CHECK_INT(waitpid(child, &status, 0), child);
    CHECK(WIFEXITED(status));
    CHECK_INT(WEXITSTATUS(status), 0);
    char want[4096];
    snprintf(want, sizeof want, "%s%s", header,
             "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234.4,sim,ok,1000,cycles,,search,matmul,100x50x40 b2,\n");
    CHECK_STR(text, want);
    snprintf(sigpath, sizeof sigpath, "%s.sig", fifo);
    CHECK(access(sigpath, F_OK) != 0);
}

/* rs_journal_read: the rows of any target and backend, each config once with
 * its last row (or its search figure) and the model's figures; no sidecar,
 * lock or write; the errors name the file and line. */
static void read_whole(void)
{
    const char *path = at("read/j.csv");
    char text[4096];
    snprintf(text, sizeof text, "%s%s", header,
             "a,64,64,64,1,fp16,ascend310,OS,32,32,64,0,1,M,16384,900.5,sim,ok,1000,cycles,,search,matmul,64x64x64,\n"
             "a,64,64,64,1,fp16,ascend310,OS,64,32,64,0,1,M,12288,,sim,ok,800,cycles,,search,matmul,64x64x64,\n"
             "b,64,64,64,1,fp32,host,WS,64,64,64,1,2,N,8192,700,host,crash,,cycles,6x16,search,matmul,64x64x64,\n"
             "a,64,64,64,1,fp16,ascend310,OS,32,32,64,0,1,M,16384,900.5,sim,ok,950,cycles,,final,matmul,64x64x64,\n"
             "a,64,64,64,1,fp16,ascend310,OS,64,32,64,0,1,M,12288,,sim,wrong,,cycles,,verify,matmul,64x64x64,\n"
             "a,64,64,64,1,fp16,ascend310,IS,16,16,64,0,1,M,1,2,sim,ok,3"); /* torn */
    CHECK(mkdir(at("read"), 0755) == 0);
    put(path, text, "w");
    rs_cache *c = NULL;
    if (CHECK(rs_journal_read(path, false, &c, err, sizeof err))) {
        CHECK_INT(rs_cache_size(c), 3);
        const rs_entry *e = rs_cache_entry(c, 0);
        if (CHECK(e != NULL)) { /* the final's figure replaced the search's */
            CHECK_STR(e->round, "final");
            CHECK_DBL(e->measured, 950);
            CHECK_DBL(e->final, 950);
            CHECK_DBL(e->est_cycles, 900.5);
            CHECK_DBL(e->load_elems, 16384);
            CHECK_INT(e->line, 5);
        }
        if (CHECK((e = rs_cache_entry(c, 1)) != NULL)) { /* a failed verification */
            CHECK_STR(e->status, "wrong");
            CHECK_DBL(e->est_cycles, 0);
            CHECK(isnan(e->final));
        }
        if (CHECK((e = rs_cache_entry(c, 2)) != NULL)) {
            CHECK_STR(e->target, "host");
            CHECK_STR(e->backend, "host");
            CHECK_INT(e->config.mr, 6);
        }
        CHECK(rs_cache_entry(c, 3) == NULL);
    }
    rs_cache_free(c);
    /* the search's figures: neither the final's row nor the failed
     * verification replaces it; the verdict stands beside */
    if (CHECK(rs_journal_read(path, true, &c, err, sizeof err))) {
        CHECK_INT(rs_cache_size(c), 3);
        const rs_entry *e = rs_cache_entry(c, 0);
        if (CHECK(e != NULL)) { /* and the final's beside it */
            CHECK_STR(e->round, "search");
            CHECK_DBL(e->measured, 1000);
            CHECK_DBL(e->final, 950);
            CHECK_INT(e->final_line, 5);
        }
        if (CHECK((e = rs_cache_entry(c, 1)) != NULL)) {
            CHECK_STR(e->status, "ok");
            CHECK_DBL(e->measured, 800);
            CHECK_STR(e->verdict, "wrong");
        }
        rs_cache_apply_verdicts(c); /* as the report and calibrate read it */
        CHECK_STR(rs_cache_entry(c, 0)->status, "ok");
        CHECK_STR(rs_cache_entry(c, 1)->status, "wrong");
    }
    rs_cache_free(c);
    CHECK_STR(slurp(path), text); /* nothing cut, nothing written beside it */
    CHECK(access(at("read/j.csv.sig"), F_OK) != 0);

    /* A journal another process holds can be read. */
    int fd = open(at("read/held.csv"), O_RDWR | O_CREAT, 0644);
    CHECK(fd >= 0 && write(fd, header, strlen(header)) == (ssize_t)strlen(header));
    struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    CHECK(fcntl(fd, F_SETLK, &lk) == 0);
    CHECK(rs_journal_read(at("read/held.csv"), false, &c, err, sizeof err));
    CHECK_INT(rs_cache_size(c), 0);
    rs_cache_free(c);
    close(fd);

    struct {
        const char *name, *text, *why; /* why: after "PATH" */
    } bad[] = {
        {"empty.csv", "", ": empty file, not an npu-tune journal"},
        {"torn_head.csv", "problem,M,N", ":1: columns are not the npu-tune journal's"},
        {"foreign.csv", "a,b,c\n", ":1: columns are not the npu-tune journal's"},
        {"short.csv", "a,64,64,64,1,fp16,t,OS,32,32,64,0,1,M,1,2,sim,ok,5,cycles\n",
         ":2: 20 fields, expected 25"},
        {"badest.csv", "a,64,64,64,1,fp16,t,OS,32,32,64,0,1,M,1,x,sim,ok,5,cycles,,search,matmul,64x64x64,\n",
         ":2: field 'est_cycles' is not a number: 'x'"},
        {"units.csv",
         "a,64,64,64,1,fp16,t,OS,32,32,64,0,1,M,1,2,sim,ok,5,cycles,,search,matmul,64x64x64,\n"
         "a,64,64,64,1,fp16,t,OS,64,32,64,0,1,M,1,2,sim,ok,5,s,,search,matmul,64x64x64,\n",
         ":3: row is in s, line 2 is in cycles; a journal holds one unit"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char p[1024], want[1200];
        snprintf(p, sizeof p, "%s/read/%s", dir, bad[i].name);
        snprintf(text, sizeof text, "%s%s", i < 3 ? "" : header, bad[i].text);
        put(p, text, "w");
        c = NULL;
        CHECK(!rs_journal_read(p, false, &c, err, sizeof err));
        CHECK(c == NULL);
        snprintf(want, sizeof want, "%s%s", p, bad[i].why);
        CHECK_STR(err, want);
    }
    CHECK(!rs_journal_read(at("read/missing.csv"), false, &c, err, sizeof err));
    char want[1200];
    snprintf(want, sizeof want, "cannot open '%s': No such file or directory", at("read/missing.csv"));
    CHECK_STR(err, want);
    CHECK(!rs_journal_read(at("read"), false, &c, err, sizeof err));
    snprintf(want, sizeof want, "cannot read '%s': Is a directory", at("read"));
    CHECK_STR(err, want);
}

/* A journal from before ops (no op column) resumes: its rows are of the
 * default op, and the rows appended to it keep its columns; a journal with
 * the column refuses an unknown op, and a row's op is part of its key. */
static void before_ops(void)
{
    static const char old_header[] =
        "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,"
        "load_volume_elems,est_cycles,backend,status,measured,unit,micro,round\n";
    const char *old_row =
        "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234.4,sim,ok,1234.4,cycles,,search\n";
    char text[4096];
    snprintf(text, sizeof text, "%s%s", old_header, old_row);
    CHECK_STR(resume_text("old.csv", text), "ok 1");
    rs_signature sig = signature();
    rs_cache *c = NULL;
    rs_journal *j = rs_journal_open(at("old.csv"), &sig, &c, err, sizeof err);
    sp_problem p = problem();
    sp_candidate c32 = candidate(32), c48 = candidate(48);
    const rs_entry *e = rs_cache_find(c, &p, &c32.config);
    if (CHECK(e != NULL))
        CHECK_INT(e->problem.op, sp_op_parse("matmul"));
    sp_problem other = p;
    other.op = 1; /* another op: not this row */
    CHECK(rs_cache_find(c, &other, &c32.config) == NULL);
    rs_row row = {&p, "ascend910", &c48, "sim", "ok", 999, "cycles", NULL, false, NULL};
    CHECK(j && rs_journal_append(j, &row, err, sizeof err));
    CHECK(j && rs_journal_close(j, err, sizeof err));
    rs_cache_free(c);
    snprintf(text, sizeof text, "%s%s%s", old_header, old_row,
             "tiny,100,50,40,2,fp16,ascend910,OS,48,32,16,1,1,M,46080,1234.4,sim,ok,999,cycles,,search\n");
    CHECK_STR(slurp(at("old.csv")), text);
    c = reopen(at("old.csv"), &sig);
    CHECK_INT(rs_cache_size(c), 2);
    rs_cache_free(c);
    /* read whole too (report, plot) */
    c = NULL;
    if (CHECK(rs_journal_read(at("old.csv"), false, &c, err, sizeof err)) &&
        CHECK_INT(rs_cache_size(c), 2))
        CHECK_INT(rs_cache_entry(c, 1)->problem.op, sp_op_parse("matmul"));
    rs_cache_free(c);

    /* The columns of one layout or the other, not a mix. */
    snprintf(text, sizeof text, "%s%s", old_header,
             "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,\n");
    CHECK_STR(resume_text("mixed.csv", text), ":2: 25 fields, expected 22");
    snprintf(text, sizeof text, "%s%s", header, old_row);
    CHECK_STR(resume_text("mixed.csv", text), ":2: 22 fields, expected 25");
    const char *bad[][2] = {
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,conv,100x50x40 b2,\n",
         ":2: field 'op' is not matmul: 'conv'"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,,100x50x40 b2,\n",
         ":2: field 'op' is not matmul: ''"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,,\n",
         ":2: field 'shape' is empty"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50,\n",
         ":2: field 'shape' is not a matmul shape MxNxK: '100x50'"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b0,\n",
         ":2: field 'shape' is not a matmul shape MxNxK: '100x50x40 b0'"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40,\n",
         ":2: field 'shape' '100x50x40' computes as 100x50x40 batch 1, not as the row's 100x50x40 batch 2"},
        {"tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,50x100x40 b2,\n",
         ":2: field 'shape' '50x100x40 b2' computes as 50x100x40 batch 2, not as the row's 100x50x40 batch 2"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, "%s%s", header, bad[i][0]);
        CHECK_STR(resume_text("op.csv", text), bad[i][1]);
    }
    /* A journal from before shapes (an op column, no shape) resumes the same
     * way: its rows' dimensions come from their GEMM view. */
    static const char op_header[] =
        "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,"
        "load_volume_elems,est_cycles,backend,status,measured,unit,micro,round,op\n";
    snprintf(text, sizeof text, "%s%s", op_header,
             "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul\n");
    CHECK_STR(resume_text("op4.csv", text), "ok 1");
    c = NULL;
    if (CHECK(rs_journal_read(at("op4.csv"), false, &c, err, sizeof err)) &&
        CHECK_INT(rs_cache_size(c), 1))
        CHECK(sp_problem_same_shape(&rs_cache_entry(c, 0)->problem, &p));
    rs_cache_free(c);
    /* One from before nodes (op and shape, no node column) resumes too, and
     * the rows appended to it keep its columns. */
    static const char shape_header[] =
        "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,"
        "load_volume_elems,est_cycles,backend,status,measured,unit,micro,round,op,shape\n";
    const char *shape_row = "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234.4,sim,ok,"
                            "1234.4,cycles,,search,matmul,100x50x40 b2\n";
    snprintf(text, sizeof text, "%s%s", shape_header, shape_row);
    CHECK_STR(resume_text("shape.csv", text), "ok 1");
    c = NULL;
    j = rs_journal_open(at("shape.csv"), &sig, &c, err, sizeof err);
    row.node = "node-2";
    CHECK(j && rs_journal_append(j, &row, err, sizeof err));
    CHECK(j && rs_journal_close(j, err, sizeof err));
    rs_cache_free(c);
    snprintf(text, sizeof text, "%s%s%s", shape_header, shape_row,
             "tiny,100,50,40,2,fp16,ascend910,OS,48,32,16,1,1,M,46080,1234.4,sim,ok,999,cycles,,"
             "search,matmul,100x50x40 b2\n");
    CHECK_STR(slurp(at("shape.csv")), text);
    /* a node that the CSV cannot hold is refused */
    j = rs_journal_open(at("shape.csv"), &sig, &c, err, sizeof err);
    row.node = "a,b";
    CHECK(j && !rs_journal_append(j, &row, err, sizeof err));
    CHECK_HAS(err, "its node 'a,b' is empty or has a comma");
    CHECK(j && rs_journal_close(j, err, sizeof err));
    rs_cache_free(c);
    /* a header cut inside the op column is not a journal's */
    CHECK_STR(resume_text("cut.csv", "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,"
                                     "cores,split,load_volume_elems,est_cycles,backend,status,"
                                     "measured,unit,micro,round,o\n"),
              ":1: columns are not the npu-tune journal's");
}

/* The pack column: a journal gets it when its run has no-pack configs (the
 * rows of packing configs say 1, those without a micro-tile nothing), one
 * without it cannot take a no-pack row, and both read back. */
static void pack_column(void)
{
    const char *path = at("pack.csv");
    rs_signature sig = signature();
    rs_journal_opts o = {.pack = true};
    rs_cache *c = NULL;
    rs_journal *j = rs_journal_open_with(path, &sig, &o, &c, err, sizeof err);
    if (!CHECK(j != NULL))
        return;
    rs_cache_free(c);
    sp_problem p = fx_problem(64, 64, 64, 1, SP_FP32);
    strcpy(p.name, "small");
    sp_candidate packed = {.config = {.m = 6, .n = 64, .k = 64, .cores = 1, .strategy = SP_OS,
                                      .split = SP_SPLIT_M, .mr = 6, .nr = 32},
                           .fig = {.load_elems = 4096, .est_cycles = 900}};
    sp_candidate direct = packed, npu = candidate(32);
    direct.config.nopack = 1;
    sp_problem q = problem();
    rs_row rows[] = {{&p, "ascend910", &packed, "sim", "ok", 1000, "cycles", NULL, false, NULL},
                     {&p, "ascend910", &direct, "sim", "ok", 800, "cycles", NULL, false, NULL},
                     {&q, "ascend910", &npu, "sim", "ok", 1234, "cycles", NULL, false, NULL}};
    for (size_t i = 0; i < 3; i++)
        CHECK(rs_journal_append(j, &rows[i], err, sizeof err));
    CHECK(rs_journal_close(j, err, sizeof err));
    char want[4096];
    snprintf(want, sizeof want, "%.*s,pack\n%s", (int)strlen(header) - 1, header,
             "small,64,64,64,1,fp32,ascend910,OS,6,64,64,0,1,M,4096,900,sim,ok,1000,cycles,6x32,search,matmul,64x64x64,,1\n"
             "small,64,64,64,1,fp32,ascend910,OS,6,64,64,0,1,M,4096,900,sim,ok,800,cycles,6x32,search,matmul,64x64x64,,0\n"
             "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234.4,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,,\n");
    CHECK_STR(slurp(path), want);
    c = reopen(path, &sig);
    CHECK_INT(rs_cache_size(c), 3);
    const rs_entry *e = rs_cache_find(c, &p, &direct.config);
    if (CHECK(e != NULL)) {
        CHECK_INT(e->config.nopack, 1);
        CHECK_DBL(e->measured, 800);
    }
    e = rs_cache_find(c, &p, &packed.config);
    if (CHECK(e != NULL))
        CHECK_DBL(e->measured, 1000);
    rs_cache_free(c);

    /* without the column (a run of packing configs only): as before it */
    const char *old = at("nopack-old.csv");
    j = rs_journal_open(old, &sig, &c, err, sizeof err);
    if (!CHECK(j != NULL))
        return;
    rs_cache_free(c);
    CHECK(rs_journal_append(j, &rows[0], err, sizeof err));
    CHECK(!rs_journal_append(j, &rows[1], err, sizeof err));
    CHECK_HAS(err, "cannot write a no-pack config of problem 'small' to '");
    CHECK_HAS(err, "': it has no pack column");
    CHECK(rs_journal_close(j, err, sizeof err));
    snprintf(want, sizeof want, "%s%s", header,
             "small,64,64,64,1,fp32,ascend910,OS,6,64,64,0,1,M,4096,900,sim,ok,1000,cycles,6x32,search,matmul,64x64x64,\n");
    CHECK_STR(slurp(old), want);

    /* a pack value that is not 0 or 1, or 0 without a micro-tile */
    char text[2048];
    snprintf(text, sizeof text, "%.*s,pack\n%s", (int)strlen(header) - 1, header,
             "small,64,64,64,1,fp32,ascend910,OS,6,64,64,0,1,M,4096,900,sim,ok,1000,cycles,6x32,search,matmul,64x64x64,,2\n");
    CHECK_STR(resume_text("pack-bad.csv", text), ":2: field 'pack' is not 0 or 1: '2'");
    snprintf(text, sizeof text, "%.*s,pack\n%s", (int)strlen(header) - 1, header,
             "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,sim,ok,1234,cycles,,search,matmul,100x50x40 b2,,0\n");
    CHECK_STR(resume_text("pack-npu.csv", text),
              ":2: field 'pack' is 0 (no packing) for a config without a micro-tile");
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    new_and_resume();
    foreign();
    malformed();
    foreign_rows();
    locked();
    crlf();
    through();
    fresh();
    unwritable();
    many();
    read_whole();
    before_ops();
    pack_column();
    remove_tree(dir);
    return CHECK_DONE();
}
