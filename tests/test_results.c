/* test_results.c — the journal and table files (exact bytes, atomic replace,
 * unwritable paths) and the GSL sample statistics of a measurement. */
#define _XOPEN_SOURCE 700
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fixtures.h"
#include "measure.h"
#include "results.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void files(void)
{
    char dir[] = "/tmp/npu-tune-results-XXXXXX", path[256], table[256], err[512];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/a/b/journal.csv", dir);
    snprintf(table, sizeof table, "%s/a/table.csv", dir);
    sp_problem p = fx_problem(100, 50, 40, 2, SP_FP16);
    strcpy(p.name, "tiny");
    sp_candidate c = {.config = {.m = 32, .n = 32, .k = 16, .cores = 1, .strategy = SP_OS,
                                 .double_buffer = 1, .split = SP_SPLIT_M},
                      .fig = {.load_elems = 46080, .est_cycles = 1234.4}};
    rs_row ok = {&p, "ascend910", &c, "model", "ok", 1234.4, "cycles"};
    rs_row wrong = {&p, "ascend910", &c, "host", "wrong", 0.5, "s"};
    rs_journal *j = rs_journal_create(path, err, sizeof err);
    CHECK(j != NULL);
    CHECK(rs_journal_append(j, &ok, err, sizeof err));
    CHECK(rs_journal_append(j, &wrong, err, sizeof err));
    CHECK(rs_journal_close(j, err, sizeof err));
    CHECK_STR(slurp(path),
              "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,"
              "load_volume_elems,est_cycles,backend,status,measured,unit\n"
              "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,model,ok,1234,cycles\n"
              "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,46080,1234,host,wrong,,s\n");
    rs_row secs = ok;
    secs.unit = "s";
    secs.measured = 0.000123456789;
    rs_row rows[] = {ok, secs};
    CHECK(rs_table_write(table, rows, 2, err, sizeof err));
    CHECK_STR(slurp(table),
              "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,measured,unit\n"
              "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,1234,cycles\n"
              "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,0.000123456789,s\n");
    /* Rewriting replaces the whole file and leaves no temporary behind. */
    CHECK(rs_table_write(table, rows, 1, err, sizeof err));
    CHECK_STR(slurp(table),
              "problem,M,N,K,batch,dtype,target,strategy,m,n,k,double_buffer,cores,split,measured,unit\n"
              "tiny,100,50,40,2,fp16,ascend910,OS,32,32,16,1,1,M,1234,cycles\n");
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", table, (long)getpid());
    CHECK(access(tmp, F_OK) != 0);
    /* A path under a regular file cannot be created: one-line reason. */
    char blocked[300];
    snprintf(blocked, sizeof blocked, "%s/journal.csv/x.csv", path);
    CHECK(rs_journal_create(blocked, err, sizeof err) == NULL);
    char want[400];
    snprintf(want, sizeof want, "cannot create directory '%s': Not a directory", path);
    CHECK_STR(err, want);
    CHECK(!rs_table_write(blocked, rows, 1, err, sizeof err));
    CHECK_STR(err, want);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static void stats(void)
{
    double s[] = {12, 10, 11, 13, 100};
    ms_measurement m = {0};
    ms_summarise(s, 5, &m);
    CHECK(m.value == 12);
    CHECK(fabs(m.mean - 29.2) < 1e-12);
    CHECK(m.ci_lo < m.mean && m.mean < m.ci_hi);
    /* t(0.975, 4) = 2.776445; sd = 39.5878... */
    CHECK(fabs((m.ci_hi - m.mean) - 2.776445105 * m.stddev / sqrt(5.0)) < 1e-6);
    double one = 7;
    ms_summarise(&one, 1, &m);
    CHECK(m.value == 7 && m.ci_lo == 7 && m.ci_hi == 7 && m.nsamples == 1);
    CHECK_STR(ms_status_name(MS_TIMEOUT), "timeout");
}

static void model_backend(void)
{
    char err[256];
    ms_backend *b = ms_open("model", err, sizeof err);
    CHECK(b != NULL);
    CHECK(ms_open("host", err, sizeof err) == NULL);
    CHECK_STR(err, "measurement backend 'host' is not available in this build");
    ms_backend *sim = ms_open("sim", err, sizeof err);
    CHECK(sim != NULL && strcmp(sim->unit, "cycles") == 0 && sim->verify != NULL);
    ms_close(sim);
    sp_target t = fx_ascend910();
    sp_problem p = fx_problem(512, 768, 768, 1, SP_FP16);
    sp_candidate c[2] = {{.config = {.m = 256, .n = 256, .k = 128, .cores = 1, .strategy = SP_OS}},
                         {.config = {.m = 512, .n = 16, .k = 128, .cores = 1, .strategy = SP_OS}}};
    ms_measurement m[2];
    ms_measure_all(b, &t, &p, c, 2, m);
    sp_figures f;
    sp_model(&t, &p, &c[0].config, &f);
    CHECK(m[0].status == MS_OK && m[0].value == f.est_cycles);
    CHECK(m[1].status == MS_ILLEGAL);
    CHECK_STR(m[1].detail, "L0A overflows: A-tile 512x128 fp16 needs 131072 bytes, L0A has 65536\n");
    ms_close(b);
}

int main(void)
{
    gsl_set_error_handler_off();
    files();
    stats();
    model_backend();
    return CHECK_DONE();
}
