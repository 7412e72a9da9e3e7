/* backend_command.c — the "command" backend: writes each candidate's kernel to a file,
 * runs the user's command template on it (a board) and parses the time it prints;
 * the winner's run also returns C, checked against the exact reference. */
#define _GNU_SOURCE /* strsignal, strdup */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"
#include "internal.h"
#include "sim.h"

/* Units of a run: decided by the first time parsed, then fixed. */
enum { UNIT_UNDECIDED, UNIT_SECONDS, UNIT_CYCLES };

typedef struct {
    char *command;  /* the template */
    char *workdir;
    double timeout; /* seconds */
    atomic_int unit;
    bool inputs;    /* the template names {inputs} */
} state;

/* Numbers kernel files: unique within the process (with the pid, across
 * processes; a name left by an earlier process is skipped). */
static atomic_uint_fast64_t counter;

/* ---- a growing string (bs_buf) ---- */

static void puts_(bs_buf *b, const char *s) { bs_buf_add(b, s, strlen(s)); }

/* Appends s as one shell word: bare when it has only safe characters, else
 * in single quotes (a quote inside becomes '\''). */
static void put_quoted(bs_buf *b, const char *s)
{
    bool bare = *s != '\0';
    for (const char *p = s; *p && bare; p++)
        bare = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
               (*p >= '0' && *p <= '9') || strchr("_-./+:,=@%", *p);
    if (bare) {
        puts_(b, s);
        return;
    }
    bs_buf_add(b, "'", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            puts_(b, "'\\''");
        else
            bs_buf_add(b, p, 1);
    }
    bs_buf_add(b, "'", 1);
}

/* ---- the template ---- */

/* The files of one run: the kernel, the inputs ({inputs}) and C ({output}:
 * c_bytes of c_elem). */
typedef struct {
    char kernel[4096], inputs[4096], output[4096];
    size_t c_bytes;
    int c_elem;
} files;

/* The command for one candidate: {kernel}, {inputs}, {output} (quoted paths),
 * {M} {N} {K} {batch}, {shape} (MxNxK) and {target} (quoted) replaced; other
 * braces are kept, so awk '{print $1}' in a template works. NULL when memory
 * ran out. */
static char *expand(const char *tmpl, const files *fs, const sp_target *t, const sp_problem *p)
{
    static const char *const names[] = {"{kernel}", "{M}",      "{N}",      "{K}",     "{batch}",
                                        "{shape}",  "{target}", "{inputs}", "{output}"};
    enum { NNAMES = sizeof names / sizeof *names };
    bs_buf b = {0};
    char num[96];
    for (const char *s = tmpl; *s;) {
        int which = -1;
        for (int i = 0; *s == '{' && i < NNAMES && which < 0; i++)
            if (strncmp(s, names[i], strlen(names[i])) == 0)
                which = i;
        if (which < 0) {
            bs_buf_add(&b, s++, 1);
            continue;
        }
        num[0] = '\0';
        switch (which) {
        case 0: put_quoted(&b, fs->kernel); break;
        case 1: snprintf(num, sizeof num, "%lld", (long long)p->M); break;
        case 2: snprintf(num, sizeof num, "%lld", (long long)p->N); break;
        case 3: snprintf(num, sizeof num, "%lld", (long long)p->K); break;
        case 4: snprintf(num, sizeof num, "%lld", (long long)p->batch); break;
        case 5:
            snprintf(num, sizeof num, "%lldx%lldx%lld", (long long)p->M, (long long)p->N,
                     (long long)p->K);
            break;
        case 6: put_quoted(&b, t->name); break;
        case 7: put_quoted(&b, fs->inputs); break;
        case 8: put_quoted(&b, fs->output); break;
        }
        puts_(&b, num);
        s += strlen(names[which]);
    }
    if (b.oom || !b.s) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* ---- the time it printed ---- */

/* The last non-empty line of text (trimmed) into line. */
static void last_line(const char *text, char *line, size_t len)
{
    size_t end = strlen(text);
    while (end > 0 && strchr(" \t\r\n\f\v", text[end - 1]))
        end--;
    size_t start = end;
    while (start > 0 && text[start - 1] != '\n')
        start--;
    while (start < end && (text[start] == ' ' || text[start] == '\t'))
        start++;
    snprintf(line, len, "%.*s", (int)(end - start), text + start);
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* The last number of line and its unit: seconds (s, ms, us, µs, ns or no
 * unit, converted to seconds) or cycles (kept). False if there is no
 * number or an unknown word follows it. */
static bool parse_time(const char *line, double *value, int *unit)
{
    const char *num = NULL, *num_end = NULL;
    for (const char *p = line; *p;) {
        if (is_digit(*p) || (*p == '.' && is_digit(p[1]))) {
            const char *q = p;
            while (is_digit(*q))
                q++;
            if (*q == '.')
                for (q++; is_digit(*q);)
                    q++;
            if ((*q == 'e' || *q == 'E') &&
                (is_digit(q[1]) || ((q[1] == '+' || q[1] == '-') && is_digit(q[2])))) {
                for (q += 2; is_digit(*q);)
                    q++;
            }
            num = p;
            num_end = q;
            p = q;
        } else
            p++;
    }
    if (!num)
        return false;
    char digits[64];
    if ((size_t)(num_end - num) >= sizeof digits)
        return false;
    memcpy(digits, num, (size_t)(num_end - num));
    digits[num_end - num] = '\0';
    double v = strtod(digits, NULL);
    if (!isfinite(v))
        return false;
    const char *u = num_end;
    while (*u == ' ' || *u == '\t')
        u++;
    const char *w = u;
    if ((unsigned char)w[0] == 0xC2 && (unsigned char)w[1] == 0xB5) /* µ */
        w += 2;
    while (is_alpha(*w))
        w++;
    size_t n = (size_t)(w - u);
    static const struct {
        const char *name;
        double scale;
        int unit;
    } units[] = {{"", 1, UNIT_SECONDS},       {"s", 1, UNIT_SECONDS},
                 {"ms", 1e-3, UNIT_SECONDS},  {"us", 1e-6, UNIT_SECONDS},
                 {"\xC2\xB5s", 1e-6, UNIT_SECONDS}, {"ns", 1e-9, UNIT_SECONDS},
                 {"cycles", 1, UNIT_CYCLES},  {"cycle", 1, UNIT_CYCLES}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strlen(units[i].name) == n && strncmp(u, units[i].name, n) == 0) {
            /* after the unit: nothing but spaces and punctuation */
            for (const char *p = w; *p; p++)
                if (is_alpha(*p) || is_digit(*p))
                    return false;
            *value = v * units[i].scale;
            *unit = units[i].unit;
            return true;
        }
    return false;
}

/* ---- the backend ---- */

static const char *unit_name(int u) { return u == UNIT_CYCLES ? "cycles" : "s"; }

/* A file name part: the problem name with anything odd replaced by '_'. */
static void safe_name(const char *s, char *out, size_t len)
{
    size_t i = 0;
    for (; s[i] && i + 1 < len; i++)
        out[i] = is_alpha(s[i]) || is_digit(s[i]) || s[i] == '-' || s[i] == '.' ? s[i] : '_';
    out[i] = '\0';
}

/* Writes kernel k of candidate config g into a new file of the work directory,
 * its path into fs->kernel and the paths beside it into fs->inputs and
 * fs->output (not created). False with a reason in out->detail. */
static bool write_kernel(state *st, const sp_problem *p, const sp_config *g, const cg_kernel *k,
                         files *fs, ms_measurement *out)
{
    char name[SP_NAME_MAX];
    safe_name(p->name, name, sizeof name);
    int fd = -1, w = -1;
    char *path = fs->kernel;
    size_t len = sizeof fs->kernel;
    for (int attempt = 0; fd < 0 && attempt < 1000; attempt++) {
        unsigned long long id = (unsigned long long)atomic_fetch_add(&counter, 1);
        w = snprintf(path, len, "%s/%s_%lldx%lldx%lld_%s_%dx%dx%d_db%d_c%d_%s_%ld_%llu",
                     st->workdir, name, (long long)p->M, (long long)p->N, (long long)p->K,
                     sp_strategy_name(g->strategy), g->m, g->n, g->k, g->double_buffer,
                     g->cores, sp_split_name(g->split), (long)getpid(), id);
        if (w < 0 || (size_t)w + sizeof ".inputs" > len) {
            errno = ENAMETOOLONG;
            break;
        }
        memcpy(fs->inputs, path, (size_t)w);
        memcpy(fs->output, path, (size_t)w);
        strcpy(fs->inputs + w, ".inputs");
        strcpy(fs->output + w, ".out");
        strcpy(path + w, ".npu");
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    bool ok = f && cg_print(f, k);
    int e = errno;
    if (f && fclose(f) && ok) {
        ok = false;
        e = errno;
    } else if (!f && fd >= 0)
        close(fd);
    if (!ok) {
        out->status = MS_CRASH;
        ms_set_detail(out, "cannot write kernel '%s': %s", path, strerror(e));
        if (fd >= 0)
            unlink(path);
    }
    return ok;
}

/* Writes the functional inputs in (sim_inputs) as kernel k's GM A and B
 * bytes to path. False with a reason in out->detail. */
static bool write_inputs(const cg_kernel *k, const int8_t *in, const char *path,
                         ms_measurement *out)
{
    size_t len = 0;
    uint8_t *bytes = sim_input_bytes(k, in, &len);
    int fd = bytes ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    int e = bytes ? errno : ENOMEM;
    bool ok = fd >= 0;
    for (size_t done = 0; ok && done < len;) {
        ssize_t n = write(fd, bytes + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        e = errno;
        done += ok ? (size_t)n : 0;
    }
    if (fd >= 0 && close(fd) && ok) {
        ok = false;
        e = errno;
    }
    free(bytes);
    if (!ok) {
        out->status = MS_CRASH;
        ms_set_detail(out, "cannot write the inputs '%s': %s", path, strerror(e));
    }
    return ok;
}

/* The first non-empty line of text, at most max characters. */
static void first_line(const char *text, char *line, size_t len, int max)
{
    text += strspn(text, " \t\r\n");
    int n = (int)strcspn(text, "\r\n");
    snprintf(line, len, "%.*s", n < max ? n : max, text);
}

/* Runs the command on candidate c: its kernel written (and the inputs in,
 * or new ones, when the template names {inputs}), {output} named but not
 * created. Returns the result with fs set, or NULL with out->status and
 * detail set and no file left. */
static bs_result *board_run(state *st, const sp_target *t, const sp_problem *p,
                             const sp_candidate *c, const int8_t *in, files *fs,
                             ms_measurement *out)
{
    cg_kernel k;
    if (!ms_generate(t, p, c, &k, out))
        return NULL;
    const cg_buf *cu = &k.tensors[2];
    fs->c_bytes = (size_t)cu->rows * (size_t)cu->cols * (size_t)cg_elem_size(cu->elem);
    fs->c_elem = cu->elem;
    if (!write_kernel(st, p, &c->config, &k, fs, out)) {
        cg_kernel_free(&k);
        return NULL;
    }
    int8_t *own = st->inputs && !in ? sim_inputs(p, SIM_SEED) : NULL;
    bool ok = !st->inputs || ((in || own) && write_inputs(&k, in ? in : own, fs->inputs, out));
    free(own);
    cg_kernel_free(&k);
    char *cmd = ok ? expand(st->command, fs, t, p) : NULL;
    bs_result *r = cmd ? malloc(sizeof *r) : NULL;
    if (!r) {
        if (ok || !out->detail[0]) {
            out->status = MS_CRASH;
            ms_set_detail(out, "out of memory");
        }
        free(cmd);
        unlink(fs->inputs);
        unlink(fs->kernel);
        return NULL;
    }
    unlink(fs->output);
    /* in its own process group: the timeout kills whatever the command started */
    bs_spawn_opts o = {.shell = cmd, .io = {BS_NULL, BS_PIPE, BS_PIPE}, .group = true};
    bs_run(&o, st->timeout, r);
    free(cmd);
    unlink(fs->inputs);
    return r;
}

/* Why run r failed (out->status crash or timeout, false), or true when the
 * command exited 0. */
static bool run_ok(const state *st, const bs_result *r, char *why, size_t len,
                   ms_measurement *out)
{
    char line[200];
    out->status = MS_CRASH;
    if (r->spawn_error) {
        snprintf(why, len, "cannot run /bin/sh: %s", strerror(r->spawn_error));
    } else if (r->timed_out) {
        out->status = MS_TIMEOUT;
        snprintf(why, len, "timed out after %g s", st->timeout);
    } else if (!r->exited) {
        snprintf(why, len, "killed by signal %d (%s)", r->signal, strsignal(r->signal));
    } else if (r->code != 0) {
        first_line(r->err, line, sizeof line, 160);
        snprintf(why, len, "exited with status %d%s%s", r->code, *line ? ": " : "", line);
    } else {
        return true;
    }
    return false;
}

/* One run of candidate c: its time into *value (out ok), or out's status and
 * detail say why not; the kernel file is kept only for a failed run. */
static bool timed_run(ms_backend *b, const sp_target *t, const sp_problem *p,
                      const sp_candidate *c, ms_measurement *out, double *value)
{
    state *st = b->state;
    files fs;
    bs_result *r = board_run(st, t, p, c, NULL, &fs, out);
    if (!r)
        return false;
    unlink(fs.output); /* C is checked for the winner only (cmd_verify) */
    char line[200], why[256];
    int unit = UNIT_UNDECIDED;
    if (run_ok(st, r, why, sizeof why, out)) {
        last_line(r->out, line, sizeof line);
        if (!parse_time(line, value, &unit)) {
            snprintf(why, sizeof why, "cannot parse a time from the command's output: '%s'",
                     line);
        } else if (!(*value > 0)) {
            snprintf(why, sizeof why, "the command printed a time that is not positive: '%s'",
                     line);
        } else {
            int expected = UNIT_UNDECIDED;
            if (atomic_compare_exchange_strong(&st->unit, &expected, unit) || expected == unit)
                b->unit = unit_name(unit); /* before this answer is journaled */
            else {
                snprintf(why, sizeof why, "mixed units: printed '%.60s' (%s) but this run measures in %s",
                         line, unit_name(unit), unit_name(expected));
                unit = UNIT_UNDECIDED;
            }
            if (unit != UNIT_UNDECIDED) {
                out->status = MS_OK;
                out->detail[0] = '\0';
            }
        }
    }
    free(r);
    if (out->status == MS_OK)
        unlink(fs.kernel);
    else
        ms_set_detail(out, "%s; kernel kept: %s", why, fs.kernel);
    return out->status == MS_OK;
}

static void cmd_measure(ms_backend *b, const sp_target *t, const sp_problem *p,
                        const sp_candidate *c, ms_measurement *out)
{
    double value;
    if (timed_run(b, t, p, c, out, &value))
        ms_summarise(&value, 1, out);
}

/* The final's rounds: each runs every finalist once, one after another. */
enum { CMD_FINAL_ROUNDS = 3 };

/* The final: candidates c[0..n) run in CMD_FINAL_ROUNDS rounds, one at a time,
 * each round in another order (rotated by one), so that the board's drift
 * between the search's runs does not pick the winner; each figure is the
 * median of its rounds. A candidate whose run fails keeps that failure and
 * runs no more. */
static void cmd_final(ms_backend *b, const sp_target *t, const sp_problem *p,
                      const sp_candidate *c, size_t n, ms_measurement *out)
{
    double (*v)[CMD_FINAL_ROUNDS] = calloc(n ? n : 1, sizeof *v);
    bool *failed = calloc(n ? n : 1, sizeof *failed);
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        if (!v || !failed) {
            out[i].status = MS_CRASH;
            ms_set_detail(&out[i], "out of memory for the final");
        }
    }
    for (int r = 0; r < CMD_FINAL_ROUNDS && v && failed; r++)
        for (size_t j = 0; j < n; j++) {
            size_t i = (j + (size_t)r) % n;
            if (!failed[i])
                failed[i] = !timed_run(b, t, p, &c[i], &out[i], &v[i][r]);
        }
    for (size_t i = 0; i < n && v && failed; i++)
        if (!failed[i]) {
            ms_summarise(v[i], CMD_FINAL_ROUNDS, &out[i]);
            ms_set_detail(&out[i], "final: %d rounds, one run each, alternating with %zu other%s",
                          CMD_FINAL_ROUNDS, n - 1, n == 2 ? "" : "s");
        }
    free(v);
    free(failed);
}

/* C from the board's {output} file into a new buffer of want bytes (host
 * byte order); NULL with why set when it is missing or of another size. */
static uint8_t *read_output(const char *path, size_t want, char *why, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, len, "the command wrote no C to {output} ('%.200s': %s)", path,
                 strerror(errno));
        return NULL;
    }
    struct stat sb;
    uint8_t *c = NULL;
    size_t got = 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size == want &&
        (c = malloc(want + 1)))
        while (got < want) {
            ssize_t n = read(fd, c + got, want - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += (size_t)n;
        }
    close(fd);
    if (got == want)
        return c;
    free(c);
    snprintf(why, len, "the command wrote %lld bytes of C to {output}, expected %zu",
             (long long)sb.st_size, want);
    return NULL;
}

/* Runs the command once more with {output} (and {inputs}) and compares the C
 * it returns with the exact reference: a wrong C makes out wrong, a failed
 * run crash or timeout; an ok out stays as it is. */
static void cmd_verify(ms_backend *b, const sp_target *t, const sp_problem *p,
                       const sp_candidate *c, ms_measurement *out)
{
    state *st = b->state;
    ms_measurement m = {0};
    files fs;
    int8_t *in = sim_inputs(p, SIM_SEED);
    bs_result *r = in ? board_run(st, t, p, c, in, &fs, &m) : NULL;
    char why[sizeof m.detail];
    uint8_t *got = NULL;
    if (!in) {
        m.status = MS_CRASH;
        ms_set_detail(&m, "out of memory for the inputs");
    } else if (!r) {
        /* m says why; no file left */
    } else if (!run_ok(st, r, why, sizeof why, &m)) {
        ms_set_detail(&m, "the verifying run %s; kernel kept: %s", why, fs.kernel);
    } else if (!(got = read_output(fs.output, fs.c_bytes, why, sizeof why))) {
        m.status = MS_WRONG; /* no C, or C of another size */
        ms_set_detail(&m, "%s; kernel kept: %s", why, fs.kernel);
    } else {
        sim_le_bytes(got, fs.c_bytes, 4);
        int64_t wrong = sim_compare(p, in, fs.c_elem, got, NULL, why, sizeof why);
        m.status = wrong == 0 ? MS_OK : wrong > 0 ? MS_WRONG : MS_CRASH;
        ms_set_detail(&m, "%s%s; kernel kept: %s", wrong > 0 ? "the board's C: " : "",
                      wrong > 0 ? why : "out of memory comparing C", fs.kernel);
    }
    if (r)
        unlink(fs.output);
    if (m.status == MS_OK) {
        unlink(fs.kernel);
    } else {
        out->status = m.status;
        memcpy(out->detail, m.detail, sizeof out->detail);
    }
    free(got);
    free(r);
    free(in);
}

/* The command backend learns its unit from the first answer, or here; the
 * others measure in theirs. */
bool ms_backend_fix_unit(ms_backend *b, const char *unit)
{
    int u = strcmp(unit, "cycles") == 0 ? UNIT_CYCLES : strcmp(unit, "s") == 0 ? UNIT_SECONDS
                                                                                : UNIT_UNDECIDED;
    if (b->measure != cmd_measure)
        return strcmp(b->unit, unit) == 0;
    state *st = b->state;
    int expected = UNIT_UNDECIDED;
    if (u == UNIT_UNDECIDED ||
        (!atomic_compare_exchange_strong(&st->unit, &expected, u) && expected != u))
        return false;
    b->unit = unit_name(u);
    return true;
}

static void cmd_close(ms_backend *b)
{
    if (!b)
        return;
    state *st = b->state;
    if (st) {
        free(st->command);
        free(st->workdir);
        free(st);
    }
    free(b);
}

/* Opens the command backend: s->command is the template (it must contain
 * {kernel}, and {output} unless s->no_verify), s->timeout the seconds per
 * candidate (60 when not positive), s->workdir where kernel files go ($TMPDIR
 * or /tmp when NULL; created). The unit is "s" until the first time parsed:
 * a run whose command prints cycles measures in "cycles" from then on (see
 * README). It verifies (cmd_verify) unless s->no_verify. */
ms_backend *ms_command_open(const ms_settings *s, char *err, size_t errlen)
{
    if (!s || !s->command || !*s->command) {
        snprintf(err, errlen, "measure 'command' needs a command template");
        return NULL;
    }
    if (!strstr(s->command, "{kernel}")) {
        snprintf(err, errlen, "measure.command '%s' has no {kernel} placeholder for the kernel file",
                 s->command);
        return NULL;
    }
    if (!s->no_verify && !strstr(s->command, "{output}")) {
        snprintf(err, errlen,
                 "measure.command '%s' has no {output} placeholder, so the winner cannot be "
                 "verified: add {output} (the board writes C there) or set tune { verify = false }",
                 s->command);
        return NULL;
    }
    const char *dir = s->workdir && *s->workdir ? s->workdir : getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    char why[512];
    if (!bs_mkdirs(dir, why, sizeof why)) {
        snprintf(err, errlen, "measure.command: %s", why);
        return NULL;
    }
    ms_backend *b = calloc(1, sizeof *b);
    state *st = calloc(1, sizeof *st);
    if (b && st) {
        st->command = strdup(s->command);
        st->workdir = strdup(dir);
    }
    if (!b || !st || !st->command || !st->workdir) {
        if (st) {
            free(st->command);
            free(st->workdir);
        }
        free(st);
        free(b);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    st->timeout = s->timeout > 0 ? s->timeout : 60;
    st->inputs = strstr(s->command, "{inputs}") != NULL;
    atomic_init(&st->unit, UNIT_UNDECIDED);
    *b = (ms_backend){.unit = "s", .parallel = true, .hardware = true,
                      .measure = cmd_measure, .final = cmd_final,
                      .verify = s->no_verify ? NULL : cmd_verify, .close = cmd_close, .state = st};
    return b;
}
