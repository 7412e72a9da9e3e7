/* compile.c — the host harness's build step: kernels compiled into shared
 * objects in parallel batches (one compiler per thread) next to the runner. */
#define _GNU_SOURCE /* strdup */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "codegen.h"
#include "internal.h"

#define COMPILE_TIMEOUT 300.0
enum { TU_JOBS = 8 }; /* jobs per translation unit */

/* Numbers work files: unique within the process (with the pid, across processes). */
static atomic_uint_fast64_t counter;

/* The compiler command: $CC split at blanks (e.g. "ccache gcc"), else cc. */
typedef struct {
    char *text;
    char *argv[16];
    int argc;
} compiler;

static bool compiler_init(compiler *c)
{
    const char *cc = getenv("CC");
    c->text = strdup(cc && strspn(cc, " \t") < strlen(cc) ? cc : "cc");
    if (!c->text)
        return false;
    c->argc = 0;
    for (char *s = c->text; *s && c->argc < 15;) {
        s += strspn(s, " \t");
        if (!*s)
            break;
        c->argv[c->argc++] = s;
        s += strcspn(s, " \t");
        if (*s)
            *s++ = '\0';
    }
    return true;
}

/* One compiler run: a translation unit of jobs[first..first+count) (the
 * runner program when runner is set) into a shared object (or executable). */
typedef struct {
    size_t first, count;
    bool runner;
    char src[4096], out[4096];
    char log[4096]; /* the head of its stderr */
    size_t loglen;
    int spawn_error;
    bool timed_out, ok;
} unit;

/* Writes text (n pieces) to a new file path; false with errno set. */
static bool write_file(const char *path, const char *const *text, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        errno = e;
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++)
        ok = fputs(text[i], f) >= 0 && fputc('\n', f) != EOF;
    int e = errno;
    if (fclose(f) && ok) {
        ok = false;
        e = errno;
    }
    errno = e;
    return ok;
}

/* The kernels' threads are the runner's pool (cg_host_pool_source), as a
 * library of kernels runs them: the runner exports nt_lib_parallel (linked with
 * -rdynamic), the kernels call it (cg_host_pool_use(true): declared weak). */
#define RUNNER_POOL "#define NT_LIB_POOL_API /* exported to the kernels */"

/* Names u's files in workdir (unique) and writes its source; false with the
 * reason in u->log. */
static bool unit_prepare(unit *u, const char *workdir, const hs_job *jobs)
{
    unsigned long long id = (unsigned long long)atomic_fetch_add(&counter, 1);
    const char *kind = u->runner ? "runner" : u->count == 1 ? "job" : "tu";
    snprintf(u->src, sizeof u->src, "%s/nt_host_%ld_%llu_%s.c", workdir, (long)getpid(), id, kind);
    snprintf(u->out, sizeof u->out, "%s/nt_host_%ld_%llu_%s%s", workdir, (long)getpid(), id, kind,
             u->runner ? "" : ".so");
    bool ok;
    if (u->runner) {
        const char *text[] = {hs_runner_source, RUNNER_POOL, cg_host_pool_source()};
        ok = write_file(u->src, text, 3);
    } else {
        const char **text = malloc((u->count + 1) * sizeof *text);
        if (!text) {
            errno = ENOMEM;
            ok = false;
        } else {
            text[0] = cg_host_pool_use(true);
            for (size_t i = 0; i < u->count; i++)
                text[i + 1] = jobs[u->first + i].source;
            ok = write_file(u->src, text, u->count + 1);
            free(text);
        }
    }
    if (!ok)
        u->loglen = (size_t)snprintf(u->log, sizeof u->log, "cannot write '%s': %s", u->src,
                                     strerror(errno));
    return ok;
}

/* Runs the compiler on u (stdin and stdout /dev/null, the head of stderr
 * into u->log), in its own process group, killed at COMPILE_TIMEOUT. */
static void unit_compile(unit *u, const compiler *cc)
{
    const char *tail_kernel[] = {"-O3", "-march=native", "-fopenmp", "-shared", "-fPIC",
                                 "-Wl,-z,defs", "-o", u->out, u->src, "-lm", NULL};
    const char *tail_runner[] = {"-O3",  "-march=native", "-pthread", "-rdynamic", "-o",
                                 u->out, u->src,           "-ldl",     "-lm",       NULL};
    const char *const *tail = u->runner ? tail_runner : tail_kernel;
    const char *argv[32];
    int argc = 0;
    for (int i = 0; i < cc->argc; i++)
        argv[argc++] = cc->argv[i];
    for (int i = 0; tail[i]; i++)
        argv[argc++] = tail[i];
    argv[argc] = NULL;
    bs_spawn_opts o = {.argv = argv, .io = {BS_NULL, BS_NULL, BS_PIPE}, .group = true};
    bs_result *r = malloc(sizeof *r);
    if (!r) {
        u->spawn_error = ENOMEM;
        return;
    }
    bs_run(&o, COMPILE_TIMEOUT, r);
    u->spawn_error = r->spawn_error;
    u->timed_out = r->timed_out;
    u->ok = !r->spawn_error && !r->timed_out && r->exited && r->code == 0;
    u->loglen = (size_t)snprintf(u->log, sizeof u->log, "%s", r->err);
    free(r);
}

/* Compiles units u[0..n), at most par (<= MAX_PAR) at a time. */
enum { MAX_PAR = 64 };

static void compile_all(unit **u, size_t n, const compiler *cc, size_t par)
{
#pragma omp parallel for schedule(dynamic, 1) num_threads((int)par) if (n > 1)
    for (size_t i = 0; i < n; i++)
        unit_compile(u[i], cc);
}

/* Why u failed, in one line: the compiler's first line with "error:" or
 * "undefined reference" (a leading workdir/ cut), else its first line. */
static void unit_why(const unit *u, const char *workdir, const char *cc, char *out, size_t len)
{
    if (u->spawn_error) {
        snprintf(out, len, "cannot run the compiler '%s': %s", cc, strerror(u->spawn_error));
        return;
    }
    if (u->timed_out) {
        snprintf(out, len, "the compiler timed out after %g s", COMPILE_TIMEOUT);
        return;
    }
    const char *pick = NULL, *first = NULL;
    for (const char *s = u->log; *s && !pick;) {
        size_t n = strcspn(s, "\n");
        bool blank = strspn(s, " \t") >= n;
        if (!blank && !first)
            first = s;
        const char *e = strstr(s, "error:"), *undef = strstr(s, "undefined reference");
        if (!blank && ((e && e < s + n) || (undef && undef < s + n)))
            pick = s;
        s += n + (s[n] == '\n');
    }
    if (!pick)
        pick = first;
    if (!pick) {
        snprintf(out, len, "the compiler failed without a message");
        return;
    }
    size_t wl = strlen(workdir);
    if (strncmp(pick, workdir, wl) == 0 && pick[wl] == '/')
        pick += wl + 1;
    int n = (int)strcspn(pick, "\n");
    snprintf(out, len, "%.*s", n, pick);
}

/* ---- a build ---- */

struct hs_build {
    unit *units; /* units[0] is the runner */
    size_t nu;
    size_t *home; /* per job: the unit it is loaded from */
    char workdir[4096];
    compiler cc;
};

hs_build *hs_build_jobs(const hs_job *jobs, size_t n, const char *workdir, char *err,
                        size_t errlen)
{
    size_t ntu = (n + TU_JOBS - 1) / TU_JOBS, cap = ntu + n + 1;
    hs_build *b = calloc(1, sizeof *b);
    unit **batch = calloc(cap, sizeof *batch);
    if (b) {
        b->units = calloc(cap, sizeof *b->units);
        b->home = calloc(n ? n : 1, sizeof *b->home);
    }
    if (!b || !batch || !b->units || !b->home || !compiler_init(&b->cc)) {
        if (b)
            free(b->units), free(b->home);
        free(b), free(batch);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(b->workdir, sizeof b->workdir, "%s", workdir);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t par = cores > 0 ? (size_t)(cores < MAX_PAR ? cores : MAX_PAR) : 1;

    /* Round 1: the runner and the jobs in units of TU_JOBS. */
    unit *units = b->units;
    size_t nu = 0, nb = 0;
    units[nu++].runner = true;
    for (size_t i = 0; i < n; i += TU_JOBS) {
        unit *u = &units[nu++];
        u->first = i;
        u->count = n - i < TU_JOBS ? n - i : TU_JOBS;
    }
    for (size_t i = 0; i < nu; i++) {
        if (unit_prepare(&units[i], workdir, jobs))
            batch[nb++] = &units[i];
    }
    compile_all(batch, nb, &b->cc, par);

    /* Round 2: the jobs of a failed unit one per unit, so that one bad
     * kernel does not sink its neighbours. */
    size_t round1 = nu;
    nb = 0;
    for (size_t i = 1; i < round1; i++) {
        unit *u = &units[i];
        for (size_t k = 0; k < u->count; k++)
            b->home[u->first + k] = i;
        if (u->ok || u->count == 1 || u->spawn_error)
            continue;
        for (size_t k = 0; k < u->count; k++) {
            unit *s = &units[nu++];
            s->first = u->first + k;
            s->count = 1;
            b->home[s->first] = (size_t)(s - units);
            if (unit_prepare(s, workdir, jobs))
                batch[nb++] = s;
        }
    }
    compile_all(batch, nb, &b->cc, par);
    b->nu = nu;
    free(batch);
    return b;
}

const char *hs_build_runner(const hs_build *b, char *why, size_t len)
{
    const unit *run = &b->units[0];
    if (run->ok)
        return run->out;
    char reason[512];
    unit_why(run, b->workdir, b->cc.argv[0], reason, sizeof reason);
    snprintf(why, len, "cannot build the timing runner: %.250s", reason);
    return NULL;
}

const char *hs_build_object(const hs_build *b, size_t i, char *why, size_t len)
{
    const unit *u = &b->units[b->home[i]];
    if (u->ok)
        return u->out;
    unit_why(u, b->workdir, b->cc.argv[0], why, len);
    return NULL;
}

void hs_build_free(hs_build *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->nu; i++) {
        unit *u = &b->units[i];
        unlink(u->out);
        if (u->ok || (!u->runner && u->count != 1))
            unlink(u->src);
    }
    free(b->units), free(b->home), free(b->cc.text), free(b);
}
