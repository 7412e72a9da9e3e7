/* command.c — the "command" backend with a stand-in board (tests/board.sh):
 * times and units parsed, failures and timeouts as statuses, no process left, parallel
 * use, the final's rounds, the winner verified on the C the board returns (a cheating
 * board loses). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "check.h"
#include "codegen.h"
#include "fixtures.h"
#include "measure.h"
#include "sim.h"
#include "procs.h"

#ifndef BOARD_SH
#define BOARD_SH "tests/board.sh"
#endif
#ifndef NPU_TUNE_BIN_PATH
#define NPU_TUNE_BIN_PATH ""
#endif

ms_backend *ms_command_open(const ms_settings *s, char *err, size_t errlen);

static char work[64];      /* scratch directory of this run */
static char kernels[128];  /* the backend's work directory */
static char modefile[128]; /* the board mode the template reads */
static char patfile[128];  /* the cheat mode's pattern the template reads */

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Files in dir (not . and ..). */
static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

/* Bytes of the kernel text of candidate c (what the board measures). */
static long kernel_size(const sp_target *t, const sp_problem *p, const sp_candidate *c)
{
    cg_kernel k;
    char err[256];
    if (!cg_generate(t, p, &c->config, &k, err, sizeof err))
        return -1;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cg_print(f, &k);
    fclose(f);
    free(text);
    cg_kernel_free(&k);
    return (long)len;
}

/* A backend for command; it verifies when the command names {output}. */
static ms_backend *open_board(const char *command, double timeout)
{
    ms_settings s = {.command = command, .timeout = timeout, .workdir = kernels,
                     .no_verify = strstr(command, "{output}") == NULL};
    char err[512];
    ms_backend *b = ms_command_open(&s, err, sizeof err);
    if (!b)
        fprintf(stderr, "ms_command_open: %s\n", err);
    CHECK(b != NULL);
    return b;
}

/* The board script with the mode from modefile: one backend, many modes. */
static char board_cmd[512];

static void set_mode(const char *mode)
{
    char text[64];
    snprintf(text, sizeof text, "%s\n", mode);
    write_text(modefile, text);
}

/* The config line of c's kernel up to its double_buffer: the cheat's pattern. */
static void config_pattern(const sp_candidate *c, char *out, size_t len)
{
    const sp_config *g = &c->config;
    snprintf(out, len, "%s m=%d n=%d k=%d double_buffer=%d", sp_strategy_name(g->strategy), g->m,
             g->n, g->k, g->double_buffer);
}

static void open_errors(void)
{
    char err[512];
    ms_settings s = {.command = "", .timeout = 1};
    CHECK(ms_command_open(NULL, err, sizeof err) == NULL);
    CHECK_STR(err, "measure 'command' needs a command template");
    CHECK(ms_command_open(&s, err, sizeof err) == NULL);
    CHECK_STR(err, "measure 'command' needs a command template");
    s.command = "run-on-board --shape {shape}";
    CHECK(ms_command_open(&s, err, sizeof err) == NULL);
    CHECK_STR(err, "measure.command 'run-on-board --shape {shape}' has no {kernel} placeholder "
                   "for the kernel file");
    /* Without {output} the winner cannot be verified: unless the script says
     * the board cannot return C (verify = false), an error. */
    s.command = "run-on-board {kernel}";
    CHECK(ms_command_open(&s, err, sizeof err) == NULL);
    CHECK_STR(err, "measure.command 'run-on-board {kernel}' has no {output} placeholder, so the "
                   "winner cannot be verified: add {output} (the board writes C there) or set "
                   "tune { verify = false }");
    s.no_verify = true;
    s.workdir = kernels;
    ms_backend *b = ms_command_open(&s, err, sizeof err);
    CHECK(b != NULL && b->verify == NULL);
    ms_close(b);
    s.command = "run-on-board {kernel} {output}";
    b = ms_command_open(&s, err, sizeof err);
    CHECK(b != NULL && b->verify == NULL);
    ms_close(b);
    s.no_verify = false;
    b = ms_command_open(&s, err, sizeof err);
    CHECK(b != NULL && b->verify != NULL);
    ms_close(b);
    s.no_verify = true;
    s.workdir = NULL;
    char blocked[200];
    snprintf(blocked, sizeof blocked, "%s/file", work);
    write_text(blocked, "x");
    snprintf(blocked, sizeof blocked, "%s/file/kernels", work);
    s.command = "cat {kernel}";
    s.workdir = blocked;
    CHECK(ms_command_open(&s, err, sizeof err) == NULL);
    char want[300];
    snprintf(want, sizeof want, "measure.command: cannot create directory '%s/file': Not a directory",
             work);
    CHECK_STR(err, want);
}

/* One run of a command whose output is `text`; returns the backend's unit. */
static const char *parse_one(const char *text, ms_measurement *m, const sp_target *t,
                             const sp_problem *p, const sp_candidate *c)
{
    static char unit[16];
    char out[200], cmd[300];
    snprintf(out, sizeof out, "%s/output.txt", work);
    write_text(out, text);
    snprintf(cmd, sizeof cmd, "cat '%s' # {kernel}", out);
    ms_backend *b = open_board(cmd, 5);
    memset(m, 0, sizeof *m);
    if (b) {
        b->measure(b, t, p, c, m);
        snprintf(unit, sizeof unit, "%s", b->unit);
        ms_close(b);
    }
    return unit;
}

static void parsing(const sp_target *t, const sp_problem *p, const sp_candidate *c)
{
    static const struct {
        const char *text;
        double value;
        const char *unit;
    } good[] = {
        {"12 ms\n", 0.012, "s"},
        {"warming up\nrun 3 of 3\n  kernel time = 3.5us.  \n\n\n", 3.5e-6, "s"},
        {"1e-3\n", 1e-3, "s"},
        {"t: 2.5E+2 ns", 2.5e-7, "s"},
        {"elapsed 0.25 s\n", 0.25, "s"},
        {"99580 cycles\n", 99580, "cycles"},
        {"cycles: 4096cycles.\n", 4096, "cycles"},
        {"latency 7 \xC2\xB5s\n", 7e-6, "s"},
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        ms_measurement m;
        const char *unit = parse_one(good[i].text, &m, t, p, c);
        if (!CHECK_INT(m.status, MS_OK))
            fprintf(stderr, "  output %zu: %s\n", i, m.detail);
        CHECK(fabs(m.value - good[i].value) <= 1e-12 * good[i].value);
        CHECK_STR(unit, good[i].unit);
    }
    static const char *const bad[] = {"all done\n", "", "12 widgets\n", "5 ms left over\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ms_measurement m;
        parse_one(bad[i], &m, t, p, c);
        CHECK_INT(m.status, MS_CRASH);
        char want[200];
        size_t n = strcspn(bad[i], "\n");
        snprintf(want, sizeof want, "cannot parse a time from the command's output: '%.*s'; kernel kept: ",
                 (int)n, bad[i]);
        CHECK_PREFIX(m.detail, want);
        const char *path = strstr(m.detail, "kernel kept: ");
        if (CHECK(path != NULL)) {
            CHECK(access(path + strlen("kernel kept: "), R_OK) == 0);
            unlink(path + strlen("kernel kept: "));
        }
    }
    /* a time of zero is no measurement (a journal refuses an ok row without
     * a positive figure) */
    static const char *const zero[] = {"0 ms\n", "took 0.0 cycles\n"};
    for (size_t i = 0; i < sizeof zero / sizeof *zero; i++) {
        ms_measurement m;
        parse_one(zero[i], &m, t, p, c);
        CHECK_INT(m.status, MS_CRASH);
        char want[200];
        snprintf(want, sizeof want, "the command printed a time that is not positive: '%.*s'",
                 (int)strcspn(zero[i], "\n"), zero[i]);
        CHECK_PREFIX(m.detail, want);
        const char *path = strstr(m.detail, "kernel kept: ");
        if (CHECK(path != NULL))
            unlink(path + strlen("kernel kept: "));
    }
}

static void statuses(const sp_target *t, const sp_problem *p, const sp_candidate *c)
{
    long size = kernel_size(t, p, c);
    ms_backend *b = open_board(board_cmd, 0.4);
    if (!b)
        return;
    CHECK_STR(b->unit, "s");
    ms_measurement m = {0};

    /* A time in us: converted to seconds, the kernel file removed. */
    set_mode("bytes");
    b->measure(b, t, p, c, &m);
    CHECK_INT(m.status, MS_OK);
    CHECK(fabs(m.value - size * 1e-6) < 1e-15);
    CHECK_INT(m.nsamples, 1);
    CHECK_STR(b->unit, "s");
    CHECK_INT(count_files(kernels), 0);

    /* The run is in seconds now: a board printing cycles is an error. */
    set_mode("cycles");
    memset(&m, 0, sizeof m);
    b->measure(b, t, p, c, &m);
    CHECK_INT(m.status, MS_CRASH);
    char want[400];
    snprintf(want, sizeof want, "mixed units: printed '%ld cycles' (cycles) but this run measures in s; kernel kept: ", size);
    CHECK_PREFIX(m.detail, want);
    CHECK_INT(count_files(kernels), 1);

    /* A failing board: crash with its first stderr line; the kernel kept. */
    set_mode("fail");
    memset(&m, 0, sizeof m);
    b->measure(b, t, p, c, &m);
    CHECK_INT(m.status, MS_CRASH);
    const char *fail = "exited with status 1: board: device /dev/npu0 not found; kernel kept: ";
    CHECK_PREFIX(m.detail, fail);
    const char *kept = strstr(m.detail, kernels);
    CHECK(kept && access(kept, R_OK) == 0);
    CHECK_INT(count_files(kernels), 2);

    /* A board that hangs: timeout, and its whole process group is gone. */
    char pidfile[200], cmd[800];
    snprintf(pidfile, sizeof pidfile, "%s/pids", work);
    snprintf(cmd, sizeof cmd, "sh '%s' hang {kernel} '%s'", BOARD_SH, pidfile);
    ms_backend *h = open_board(cmd, 0.3);
    if (h) {
        double t0 = bs_now();
        memset(&m, 0, sizeof m);
        h->measure(h, t, p, c, &m);
        double took = bs_now() - t0;
        CHECK_INT(m.status, MS_TIMEOUT);
        CHECK_PREFIX(m.detail, "timed out after 0.3 s; kernel kept: ");
        CHECK(took >= 0.3 && took < 3);
        long shell = 0, child = 0;
        FILE *f = fopen(pidfile, "r");
        CHECK(f && fscanf(f, "%ld %ld", &shell, &child) == 2);
        if (f)
            fclose(f);
        CHECK(shell > 0 && process_gone(shell));
        CHECK(child > 0 && process_gone(child));
        ms_close(h);
    }

    /* A board that leaves a child running (holding stdout): measured, and
     * the child is killed rather than waited for. */
    snprintf(cmd, sizeof cmd, "sh '%s' leftover {kernel} '%s'", BOARD_SH, pidfile);
    ms_backend *l = open_board(cmd, 10);
    if (l) {
        double t0 = bs_now();
        memset(&m, 0, sizeof m);
        l->measure(l, t, p, c, &m);
        CHECK_INT(m.status, MS_OK);
        CHECK(fabs(m.value - 1.5e-3) < 1e-15);
        CHECK(bs_now() - t0 < 3);
        long child = 0;
        FILE *f = fopen(pidfile, "r");
        CHECK(f && fscanf(f, "%ld", &child) == 1);
        if (f)
            fclose(f);
        CHECK(child > 0 && process_gone(child));
        ms_close(l);
    }

    /* An illegal config never reaches the board. */
    sp_candidate big = *c;
    big.config.m = 4096;
    memset(&m, 0, sizeof m);
    b->measure(b, t, p, &big, &m);
    CHECK_INT(m.status, MS_ILLEGAL);
    CHECK_INT(count_files(kernels), 3);
    ms_close(b);
    char rm[300];
    snprintf(rm, sizeof rm, "rm -f '%s'/*", kernels);
    CHECK_INT(system(rm), 0);
}

/* The value of the little-endian fp16 at p (normal numbers and zeros). */
static double fp16_at(const unsigned char *p)
{
    unsigned h = p[0] | (unsigned)p[1] << 8, e = h >> 10 & 0x1f;
    double v = e ? ldexp(1 + (h & 0x3ff) / 1024.0, (int)e - 15) : 0;
    return h & 0x8000 ? -v : v;
}

/* Placeholders: a work directory whose name needs quoting, {M} ... {target},
 * {inputs} (a file of the functional inputs, A then B, fp16 little-endian)
 * and {output} (a path beside the kernel); no file is left. */
static void placeholders(const sp_target *t, const sp_problem *p, const sp_candidate *c)
{
    char dir[200], cmd[600], out[200], copy[200];
    snprintf(dir, sizeof dir, "%s/it's a dir", work);
    snprintf(out, sizeof out, "%s/args.txt", work);
    snprintf(copy, sizeof copy, "%s/inputs.bin", work);
    snprintf(cmd, sizeof cmd,
             "echo {M} {N} {K} {batch} {shape} {target} {kernel} {inputs} {output} > '%s'; "
             "cp {inputs} '%s'; awk 'END { print NR \" cycles\" }' {kernel}",
             out, copy);
    ms_settings s = {.command = cmd, .timeout = 5, .workdir = dir};
    char err[512];
    ms_backend *b = ms_command_open(&s, err, sizeof err);
    CHECK(b != NULL);
    if (!b)
        return;
    ms_measurement m = {0};
    b->measure(b, t, p, c, &m);
    CHECK_INT(m.status, MS_OK);
    CHECK(m.value > 10);
    CHECK_STR(b->unit, "cycles");
    FILE *f = fopen(out, "r");
    char line[600] = "";
    CHECK(f && fgets(line, sizeof line, f));
    if (f)
        fclose(f);
    char want[600];
    snprintf(want, sizeof want, "%lld %lld %lld %lld %lldx%lldx%lld %s %s/%s_", (long long)p->M,
             (long long)p->N, (long long)p->K, (long long)p->batch, (long long)p->M,
             (long long)p->N, (long long)p->K, t->name, dir, p->name);
    CHECK_PREFIX(line, want);
    /* KERNEL.npu KERNEL.inputs KERNEL.out */
    char *kernel = line + strlen(want) - strlen(dir) - strlen(p->name) - 2, *npu = strstr(line, ".npu ");
    if (CHECK(npu != NULL)) {
        char names[700];
        snprintf(names, sizeof names, "%.*s.npu %.*s.inputs %.*s.out\n", (int)(npu - kernel),
                 kernel, (int)(npu - kernel), kernel, (int)(npu - kernel), kernel);
        CHECK_STR(kernel, names);
    }
    CHECK_INT(count_files(dir), 0);
    ms_close(b);
    CHECK(rmdir(dir) == 0);
    /* The inputs: what the simulator's functional mode computes on. */
    int8_t *in = sim_inputs(p, SIM_SEED);
    size_t n = (size_t)(p->M * p->K + p->K * p->N);
    unsigned char *bytes = malloc(2 * n + 1);
    f = fopen(copy, "rb");
    CHECK(f && bytes && fread(bytes, 1, 2 * n + 1, f) == 2 * n);
    size_t same = 0;
    for (size_t i = 0; f && in && bytes && i < n; i++)
        same += fp16_at(bytes + 2 * i) == in[i];
    CHECK_INT(same, n);
    if (f)
        fclose(f);
    free(bytes);
    free(in);
}

/* Many candidates measured in parallel: each gets its own kernel's figure. */
static void parallel(const sp_target *t, const sp_problem *p, const sp_candidate *c, size_t n)
{
    ms_backend *b = open_board(board_cmd, 20);
    if (!b)
        return;
    set_mode("cycles");
    ms_measurement *m = calloc(n, sizeof *m), *again = calloc(n, sizeof *again);
    omp_set_num_threads(8);
    ms_measure_all(b, t, p, c, n, m, NULL, NULL);
    ms_measure_all(b, t, p, c, n, again, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        CHECK_INT(m[i].status, MS_OK);
        CHECK_DBL(m[i].value, (double)kernel_size(t, p, &c[i]));
        CHECK_DBL(again[i].value, m[i].value);
    }
    CHECK_STR(b->unit, "cycles");
    CHECK_INT(count_files(kernels), 0);
    free(m);
    free(again);
    ms_close(b);
}

/* Line i (0-based) of file path, without its newline, into out ("" past the end). */
static void line_of(const char *path, int i, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    out[0] = '\0';
    for (int k = 0; f && k <= i && fgets(out, (int)len, f); k++)
        if (k < i)
            out[0] = '\0';
    if (f)
        fclose(f);
    out[strcspn(out, "\n")] = '\0';
}

/* The final: rounds of one run per candidate, one at a time, the order rotated
 * each round, each figure the median of its runs; a run that fails ends its
 * candidate's final with that failure. */
static void finals(const sp_target *t, const sp_problem *p, const sp_candidate *c)
{
    char dir[160], cmd[512], log[192], pat[96], line[256], want[256];
    snprintf(dir, sizeof dir, "%s/rounds", work);
    snprintf(log, sizeof log, "%s/log", dir);
    CHECK_INT(mkdir(dir, 0700), 0);
    snprintf(cmd, sizeof cmd, "sh '%s' rounds {kernel} '%s' \"$(cat '%s/pattern')\"", BOARD_SH,
             dir, dir);
    snprintf(line, sizeof line, "%s/pattern", dir);
    write_text(line, "");
    ms_backend *b = open_board(cmd, 20);
    if (!b)
        return;
    CHECK(b->final != NULL);
    ms_measurement m = {0}, out[3];
    b->measure(b, t, p, &c[0], &m); /* c[0]'s first run: 10 */
    CHECK_INT(m.status, MS_OK);
    CHECK_DBL(m.value, 10);
    b->final(b, t, p, c, 3, out);
    for (int i = 0; i < 3; i++) {
        CHECK_INT(out[i].status, MS_OK);
        CHECK_INT(out[i].nsamples, 3);
        CHECK_DBL(out[i].value, i == 0 ? 30 : 20); /* runs 2-4 of c[0], 1-3 of the others */
        CHECK_HAS(out[i].detail, "final: 3 rounds, one run each, alternating with 2 others");
    }
    /* rounds 0,1,2 / 1,2,0 / 2,0,1 after the first measurement */
    static const int order[9] = {0, 1, 2, 1, 2, 0, 2, 0, 1};
    for (int k = 0; k < 9; k++) {
        line_of(log, k + 1, line, sizeof line);
        config_pattern(&c[order[k]], pat, sizeof pat);
        snprintf(want, sizeof want, "config %s", pat);
        CHECK(strncmp(line, want, strlen(want)) == 0);
    }
    line_of(log, 10, line, sizeof line);
    CHECK_STR(line, "");

    /* c[1] now fails (its fourth run, in round 0): it runs no more, the others go on */
    CHECK_INT(unlink(log), 0);
    config_pattern(&c[1], pat, sizeof pat);
    snprintf(line, sizeof line, "%s/pattern", dir);
    write_text(line, pat);
    b->final(b, t, p, c, 3, out);
    CHECK_INT(out[0].status, MS_OK);
    CHECK_DBL(out[0].value, 60); /* runs 5-7 */
    CHECK_INT(out[1].status, MS_CRASH);
    CHECK_HAS(out[1].detail, "exited with status 1: board: lost the kernel; kernel kept: ");
    CHECK_INT(out[2].status, MS_OK);
    CHECK_DBL(out[2].value, 50);
    line_of(log, 6, line, sizeof line);
    CHECK(line[0] != '\0');
    line_of(log, 7, line, sizeof line);
    CHECK_STR(line, ""); /* 3 + 2 + 2 runs */
    const char *kept = strstr(out[1].detail, "kernel kept: ");
    CHECK(kept && unlink(kept + strlen("kernel kept: ")) == 0);
    CHECK_INT(count_files(kernels), 0);
    ms_close(b);
}

/* The npu-tune binary ($NPU_TUNE_BIN, else the build's), exported for the
 * sim board; NULL (and a line saying what is skipped) when there is none. */
static const char *tune_bin(const char *what)
{
    const char *bin = getenv("NPU_TUNE_BIN");
    if (!bin || !*bin)
        bin = NPU_TUNE_BIN_PATH;
    if (!CHECK(*bin && access(bin, X_OK) == 0)) { /* built with this test: never skipped */
        fprintf(stderr, "%s needs the npu-tune binary (set NPU_TUNE_BIN)\n", what);
        return NULL;
    }
    setenv("NPU_TUNE_BIN", bin, 1);
    return bin;
}

/* The real thing: the board runs `npu-tune sim` on the kernel file; each
 * candidate's C, returned through {output}, passes verification. */
static void simulated(const sp_target *t, const sp_problem *p, const sp_candidate *c, size_t n)
{
    if (!tune_bin("the simulated board"))
        return;
    ms_backend *b = open_board(board_cmd, 60);
    if (!b)
        return;
    set_mode("sim");
    ms_measurement *m = calloc(n, sizeof *m);
    ms_measure_all(b, t, p, c, n, m, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        if (!CHECK_INT(m[i].status, MS_OK))
            fprintf(stderr, "  candidate %zu: %s\n", i, m[i].detail);
        cg_kernel k;
        char err[256];
        sim_result r;
        sim_options o = {.seed = 1};
        CHECK(cg_generate(t, p, &c[i].config, &k, err, sizeof err));
        CHECK(sim_run(t, &k, &o, &r));
        CHECK_DBL(m[i].value, r.cycles);
        sim_result_free(&r);
        cg_kernel_free(&k);
        ms_measurement before = m[i];
        b->verify(b, t, p, &c[i], &m[i]);
        if (!CHECK_INT(m[i].status, MS_OK))
            fprintf(stderr, "  candidate %zu: %s\n", i, m[i].detail);
        CHECK(memcmp(&before, &m[i], sizeof before) == 0);
    }
    CHECK_STR(b->unit, "cycles");
    CHECK_INT(count_files(kernels), 0);
    free(m);
    ms_close(b);
}

/* Verification of a winner by what the board returns: a board that skips the
 * mmad instructions (fewer cycles, wrong C), returns no C or too little, or
 * fails, turns the measurement wrong or crash and keeps the kernel. */
static void verifying(const sp_target *t, const sp_problem *p, const sp_candidate *c)
{
    if (!tune_bin("verification"))
        return;
    ms_backend *b = open_board(board_cmd, 60);
    if (!b)
        return;
    char pattern[128];
    config_pattern(c, pattern, sizeof pattern);
    write_text(patfile, pattern);
    static const struct {
        const char *mode;
        ms_status want;
        const char *detail;
    } cases[] = {
        {"cheat", MS_WRONG, "the board's C: C[0][0] = 0.011489, expected -115 (65536 of 65536 "
                            "elements wrong); kernel kept: "},
        {"noc", MS_WRONG, "the command wrote no C to {output} ('"},
        {"shortc", MS_WRONG, "the command wrote 10 bytes of C to {output}, expected 262144; "
                             "kernel kept: "},
        {"fail", MS_CRASH, "the verifying run exited with status 1: board: device /dev/npu0 not "
                           "found; kernel kept: "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        set_mode(cases[i].mode);
        ms_measurement m = {.status = MS_OK, .value = 12};
        b->verify(b, t, p, c, &m);
        CHECK_INT(m.status, cases[i].want);
        if (!CHECK_PREFIX(m.detail, cases[i].detail))
            fprintf(stderr, "  %s: %s\n", cases[i].mode, m.detail);
        const char *kept = strstr(m.detail, "kernel kept: ");
        if (CHECK(kept != NULL)) {
            CHECK(access(kept + 13, R_OK) == 0);
            unlink(kept + 13);
        }
        CHECK_INT(count_files(kernels), 0); /* no inputs or C left either */
    }
    /* The cheat measures faster than the honest kernel: why it needs checking. */
    ms_measurement honest = {0}, cheat = {0};
    set_mode("sim");
    b->measure(b, t, p, c, &honest);
    set_mode("cheat");
    b->measure(b, t, p, c, &cheat);
    CHECK_INT(honest.status, MS_OK);
    CHECK_INT(cheat.status, MS_OK);
    CHECK(cheat.value < honest.value);
    CHECK_INT(count_files(kernels), 0);
    ms_close(b);
}

/* The lines of the work directory's file name that contain text, joined. */
static void grep_file(const char *name, const char *text, char *out, size_t len)
{
    char path[200], line[512];
    snprintf(path, sizeof path, "%s/%s", work, name);
    FILE *f = fopen(path, "r");
    out[0] = '\0';
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, text) && strlen(out) + strlen(line) < len)
            strcat(out, line);
    if (f)
        fclose(f);
}

/* `npu-tune sim KERNEL --output C`, what the sim board runs: C of the
 * functional inputs, little-endian fp32, equal to the reference; written
 * even when wrong unless --check; never over the kernel. */
static void sim_output(const sp_target *t, const sp_problem *p, const sp_candidate *c)
{
    const char *bin = tune_bin("sim --output");
    cg_kernel k;
    char err[256], cmd[1200], path[200], cpath[200];
    if (!bin || !CHECK(cg_generate(t, p, &c->config, &k, err, sizeof err)))
        return;
    snprintf(path, sizeof path, "%s/k.npu", work);
    snprintf(cpath, sizeof cpath, "%s/c.bin", work);
    FILE *f = fopen(path, "w");
    CHECK(f && cg_print(f, &k));
    if (f)
        fclose(f);
    snprintf(cmd, sizeof cmd, "'%s' sim '%s' --output '%s' >/dev/null", bin, path, cpath);
    CHECK_INT(system(cmd), 0);
    size_t n = (size_t)(p->M * p->N) * 4;
    uint8_t *got = malloc(n + 1);
    int8_t *in = sim_inputs(p, SIM_SEED);
    f = fopen(cpath, "rb");
    CHECK(f && got && fread(got, 1, n + 1, f) == n);
    if (f)
        fclose(f);
    CHECK(in && got && sim_compare(p, in, CG_FP32, got, NULL, err, sizeof err) == 0);
    free(got);
    free(in);
    cg_kernel_free(&k);
    /* the output is not the kernel */
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' sim k.npu --check --output ./k.npu 2>err.txt", work,
             bin);
    CHECK_INT(WEXITSTATUS(system(cmd)), 1);
    grep_file("err.txt", "", err, sizeof err);
    CHECK_STR(err, "npu-tune: output './k.npu' is the kernel k.npu; choose another path\n");
    /* a kernel without its mmads: C wrong, written; an error with --check */
    snprintf(cmd, sizeof cmd, "cd '%s' && grep -v ' mmad ' k.npu > cheat.npu && "
             "'%s' sim cheat.npu --output c2.bin > out.txt", work, bin);
    CHECK_INT(system(cmd), 0);
    grep_file("out.txt", "check:", err, sizeof err);
    CHECK_STR(err, "check: wrong, C[0][0] = 0.011489, expected -115 (65536 of 65536 elements "
                   "wrong)\n");
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' sim cheat.npu --check --output c3.bin 2>/dev/null",
             work, bin);
    CHECK_INT(WEXITSTATUS(system(cmd)), 1);
    snprintf(cpath, sizeof cpath, "%s/c2.bin", work);
    CHECK(access(cpath, R_OK) == 0);
    snprintf(cpath, sizeof cpath, "%s/c3.bin", work);
    CHECK(access(cpath, F_OK) != 0);
}

/* Runs `npu-tune SCRIPT` in the work directory on script text (written to
 * s.lua; the run's files under out/, removed first unless resuming); its exit
 * status, and its standard error in err. */
static int tune(const char *bin, const char *text, bool resume, char *err, size_t errlen)
{
    char path[200], cmd[800];
    snprintf(path, sizeof path, "%s/s.lua", work);
    write_text(path, text);
    snprintf(cmd, sizeof cmd, "cd '%s' && %s'%s' --quiet s.lua >/dev/null 2>err.txt", work,
             resume ? "" : "rm -rf out && ", bin);
    int rc = system(cmd);
    snprintf(path, sizeof path, "%s/err.txt", work);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(err, 1, errlen - 1, f) : 0;
    err[n] = '\0';
    if (f)
        fclose(f);
    return rc == -1 || !WIFEXITED(rc) ? -1 : WEXITSTATUS(rc);
}

/* A tuning run on the board: a board that cheats on the best config (no
 * mmad: 13085 instead of 13597 cycles) wins the search and the final (the
 * runner-up beside it), fails verification
 * (journaled, round verify), and the next best is verified and enters the
 * table; a resumed run agrees. A board declared unverifiable (verify =
 * false) leaves rows that say so; one that is neither is refused. */
static void tuning(void)
{
    const char *bin = tune_bin("the tuning runs");
    if (!bin)
        return;
    static const char script[] =
        "target \"ascend910\"\n"
        "matmul { name = \"cmd\", shapes = { {256, 256, 256} }, dtype = \"fp16\" }\n"
        "space { strategy = { \"OS\" }, m = { 64, 128 }, n = { 64, 128 }, k = { 64, 128 } }\n"
        "tune { measure = { command = \"sh '%s' %s {kernel} %s\" }, search = \"exhaustive\",\n"
        "       budget = 16, results = \"out/j.csv\", table = \"out/t.csv\"%s }\n";
    char text[2048], err[2048], got[2048];
    snprintf(text, sizeof text, script, BOARD_SH, "cheat", "{output} 'OS m=128 n=128 k=128'", "");
    for (int resume = 0; resume < 2; resume++) {
        if (!CHECK_INT(tune(bin, text, resume, err, sizeof err), 0))
            fprintf(stderr, "%s", err);
        grep_file("out/j.csv", "OS,128,128,128,", got, sizeof got);
        char host[256] = "", want[2048]; /* the node column: this machine */
        gethostname(host, sizeof host - 1);
        snprintf(want, sizeof want,
                 "cmd,256,256,256,1,fp16,ascend910,OS,128,128,128,0,1,M,262144,13624,command,"
                 "ok,13085,cycles,,search,matmul,256x256x256,%s\n"
                 "cmd,256,256,256,1,fp16,ascend910,OS,128,128,128,0,1,M,262144,13624,command,"
                 "ok,13085,cycles,,final,matmul,256x256x256,%s\n"
                 "cmd,256,256,256,1,fp16,ascend910,OS,128,128,128,0,1,M,262144,13624,command,"
                 "wrong,,cycles,,verify,matmul,256x256x256,%s\n",
                 host, host, host);
        CHECK_STR(got, want);
        /* (the resumed run knows the failure from the journal) */
        CHECK(resume || strstr(err, "warning: cmd: the best candidate failed verification "
                                    "(wrong): the board's C: C[0][0] = 0.011489, expected -115 "
                                    "(65536 of 65536 elements wrong)") != NULL);
        grep_file("out/t.csv", "cmd,", got, sizeof got);
        CHECK_STR(got, "cmd,256,256,256,1,fp16,ascend910,OS,128,128,64,0,1,M,16509,cycles,,1,matmul,256x256x256\n");
    }
    /* A board that cannot return C, declared so: measured, not verified. */
    snprintf(text, sizeof text, script, BOARD_SH, "sim", "", ", verify = false");
    CHECK_INT(tune(bin, text, false, err, sizeof err), 0);
    grep_file("out/t.csv", "cmd,", got, sizeof got);
    CHECK_STR(got, "cmd,256,256,256,1,fp16,ascend910,OS,128,128,128,0,1,M,13597,cycles,,0,matmul,256x256x256\n");
    grep_file("out/j.csv", ",verify", got, sizeof got);
    CHECK_STR(got, "");
    /* ... and not declared: refused before anything runs. */
    snprintf(text, sizeof text, script, BOARD_SH, "sim", "", "");
    CHECK_INT(tune(bin, text, false, err, sizeof err), 1);
    char want[1024];
    snprintf(want, sizeof want,
             "npu-tune: measure.command 'sh '%s' sim {kernel} ' has no {output} placeholder, so "
             "the winner cannot be verified: add {output} (the board writes C there) or set "
             "tune { verify = false }\n",
             BOARD_SH);
    CHECK_STR(err, want);
}

int main(void)
{
    strcpy(work, "/tmp/npu-tune-command-XXXXXX");
    if (!mkdtemp(work)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(kernels, sizeof kernels, "%s/kernels", work);
    snprintf(modefile, sizeof modefile, "%s/mode", work);
    snprintf(patfile, sizeof patfile, "%s/pattern", work);
    write_text(patfile, "none");
    snprintf(board_cmd, sizeof board_cmd, "sh '%s' \"$(cat '%s')\" {kernel} {output} \"$(cat '%s')\"",
             BOARD_SH, modefile, patfile);

    sp_target t = fx_ascend910();
    sp_problem p = fx_problem(256, 256, 256, 1, SP_FP16);
    strcpy(p.name, "cmd");
    int32_t one = 1;
    sp_split split = SP_SPLIT_M;
    sp_space s = fx_space(1, 1, &one, 1, &split, 1);
    enum { NCAND = 16 };
    sp_candidate c[NCAND];
    size_t n = sp_rank_top(&t, &p, &s, SP_BY_TIME, NCAND, c, NULL);
    sp_space_free(&s);
    CHECK_INT(n, NCAND);

    open_errors();
    parsing(&t, &p, &c[0]);
    statuses(&t, &p, &c[0]);
    placeholders(&t, &p, &c[1]);
    parallel(&t, &p, c, n);
    finals(&t, &p, c);
    simulated(&t, &p, c, n);
    verifying(&t, &p, &c[0]);
    sim_output(&t, &p, &c[0]);
    tuning();

    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf '%s'", work);
    CHECK_INT(system(rm), 0);
    return CHECK_DONE();
}
