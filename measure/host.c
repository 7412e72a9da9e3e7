/* host.c — the host CPU harness: compiles generated C kernels into shared
 * objects (batched, in parallel), then verifies and times each one in isolation. */
#define _GNU_SOURCE /* pipe2, SOCK_CLOEXEC (POSIX.1-2024) */
#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host_internal.h"
#include "measure.h"

extern char **environ;

/* Compilation: jobs per translation unit, and how long one compiler run may take. */
enum { TU_JOBS = 8 };
#define COMPILE_TIMEOUT 300.0

/* Timing policy (see ms_host_run): warm-up until WARMUP_RUNS runs or
 * WARMUP_SECONDS of kernel time; then samples until the 95% confidence
 * interval of the mean of the non-outlier samples is within CI_TARGET of that
 * mean (at least MIN_SAMPLES), or MAX_SAMPLES, or MAX_KERNEL_SECONDS of timed
 * kernel time, or half the job's timeout has passed. */
enum { WARMUP_RUNS = 3, MIN_SAMPLES = 5, MAX_SAMPLES = 200 };
#define WARMUP_SECONDS 0.05
#define MAX_KERNEL_SECONDS 2.0
#define CI_TARGET 0.02

/* Numbers work files: unique within the process (with the pid, across processes). */
static atomic_uint_fast64_t counter;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void set_detail(ms_measurement *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_detail(ms_measurement *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->detail, sizeof m->detail, fmt, ap);
    va_end(ap);
}

/* "SIGSEGV (Segmentation fault)" for the signals a kernel dies of. */
static void signal_text(int sig, char *out, size_t len)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
                 {SIGILL, "SIGILL"},   {SIGABRT, "SIGABRT"}, {SIGTRAP, "SIGTRAP"},
                 {SIGSYS, "SIGSYS"},   {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"},
                 {SIGINT, "SIGINT"},   {SIGHUP, "SIGHUP"},   {SIGQUIT, "SIGQUIT"},
                 {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGXCPU, "SIGXCPU"},
                 {SIGXFSZ, "SIGXFSZ"}, {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].sig == sig) {
            snprintf(out, len, "%s (%s)", names[i].name, strsignal(sig));
            return;
        }
    snprintf(out, len, "signal %d (%s)", sig, strsignal(sig));
}

/* mkdir -p dir; false with a reason in err. */
static bool make_dirs(const char *dir, char *err, size_t errlen)
{
    char *d = strdup(dir);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    bool ok = true;
    size_t n = strlen(d);
    for (size_t i = 1; ok && i <= n; i++) {
        if (d[i] != '/' && d[i] != '\0')
            continue;
        char saved = d[i];
        d[i] = '\0';
        struct stat s;
        if (mkdir(d, 0777) && errno != EEXIST) {
            snprintf(err, errlen, "cannot create directory '%s': %s", d, strerror(errno));
            ok = false;
        } else if (stat(d, &s) || !S_ISDIR(s.st_mode)) {
            snprintf(err, errlen, "cannot create directory '%s': %s", d, strerror(ENOTDIR));
            ok = false;
        }
        d[i] = saved;
    }
    free(d);
    return ok;
}

/* ---- child processes ---- */

/* Spawn attributes shared by every child: its own process group (so a
 * timeout kills everything it started), default signals, nothing blocked. */
static void child_attr(posix_spawnattr_t *at)
{
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_init(at);
    posix_spawnattr_setsigmask(at, &none);
    posix_spawnattr_setsigdefault(at, &all);
    posix_spawnattr_setpgroup(at, 0);
    posix_spawnattr_setflags(at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                     POSIX_SPAWN_SETSIGDEF);
}

/* Reaps child pid once it has exited, first killing whatever it left in its
 * process group (the leader stays a zombie until then, so the group id
 * cannot be reused). Waits until deadline; false (nothing reaped) if the
 * child is still running then. */
static bool reap_by(pid_t pid, double deadline, int *status)
{
    for (int tick = 1;; tick = tick < 32 ? tick * 2 : tick) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        int rc = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
        if ((rc == 0 && si.si_pid == pid) || (rc < 0 && errno == ECHILD))
            break;
        if (now() >= deadline)
            return false;
        sleep_ms(tick);
    }
    kill(-pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    return true;
}

/* Kills child pid's whole process group and reaps it. */
static void kill_and_reap(pid_t pid)
{
    kill(-pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
}

/* ---- compiling ---- */

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
    pid_t pid;
    int errfd; /* the compiler's stderr while it runs, else -1 */
    double deadline;
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

/* Names u's files in workdir (unique) and writes its source; false with the
 * reason in u->log. */
static bool unit_prepare(unit *u, const char *workdir, const ms_host_job *jobs)
{
    unsigned long long id = (unsigned long long)atomic_fetch_add(&counter, 1);
    const char *kind = u->runner ? "runner" : u->count == 1 ? "job" : "tu";
    snprintf(u->src, sizeof u->src, "%s/nt_host_%ld_%llu_%s.c", workdir, (long)getpid(), id, kind);
    snprintf(u->out, sizeof u->out, "%s/nt_host_%ld_%llu_%s%s", workdir, (long)getpid(), id, kind,
             u->runner ? "" : ".so");
    bool ok;
    if (u->runner) {
        const char *text[] = {host_runner_source};
        ok = write_file(u->src, text, 1);
    } else {
        const char **text = malloc(u->count * sizeof *text);
        if (!text) {
            errno = ENOMEM;
            ok = false;
        } else {
            for (size_t i = 0; i < u->count; i++)
                text[i] = jobs[u->first + i].source;
            ok = write_file(u->src, text, u->count);
            free(text);
        }
    }
    if (!ok)
        u->loglen = (size_t)snprintf(u->log, sizeof u->log, "cannot write '%s': %s", u->src,
                                     strerror(errno));
    return ok;
}

/* Starts the compiler on u (stderr captured, stdin and stdout /dev/null). */
static void unit_start(unit *u, const compiler *cc)
{
    u->errfd = -1;
    const char *tail_kernel[] = {"-O3", "-march=native", "-fopenmp", "-shared", "-fPIC",
                                 "-Wl,-z,defs", "-o", u->out, u->src, "-lm", NULL};
    const char *tail_runner[] = {"-O3", "-march=native", "-o", u->out, u->src, "-ldl", "-lm", NULL};
    const char *const *tail = u->runner ? tail_runner : tail_kernel;
    char *argv[32];
    int argc = 0;
    for (int i = 0; i < cc->argc; i++)
        argv[argc++] = cc->argv[i];
    for (int i = 0; tail[i]; i++)
        argv[argc++] = (char *)tail[i];
    argv[argc] = NULL;
    int p[2];
    if (pipe2(p, O_CLOEXEC)) {
        u->spawn_error = errno;
        return;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, p[1], 2);
    child_attr(&at);
    int rc = posix_spawnp(&u->pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(p[1]);
    if (rc) {
        u->spawn_error = rc;
        close(p[0]);
        return;
    }
    u->errfd = p[0];
    u->deadline = now() + COMPILE_TIMEOUT;
}

/* Reads what u's compiler wrote to stderr (keeping the head); at end of
 * file reaps the compiler and records whether it succeeded. */
static void unit_drain(unit *u)
{
    char chunk[4096];
    ssize_t n = read(u->errfd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n > 0) {
        size_t room = sizeof u->log - 1 - u->loglen, k = (size_t)n < room ? (size_t)n : room;
        memcpy(u->log + u->loglen, chunk, k);
        u->loglen += k;
        u->log[u->loglen] = '\0';
        return;
    }
    close(u->errfd);
    u->errfd = -1;
    int status = 0;
    if (!reap_by(u->pid, u->timed_out ? now() + 5 : u->deadline, &status)) {
        u->timed_out = true;
        kill_and_reap(u->pid);
        return;
    }
    u->ok = !u->timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Compiles units u[0..n), at most par (<= MAX_PAR) at a time. */
enum { MAX_PAR = 64 };

static void compile_all(unit **u, size_t n, const compiler *cc, size_t par)
{
    struct pollfd fds[MAX_PAR];
    unit *live[MAX_PAR];
    size_t next = 0;
    size_t running = 0;
    while (next < n || running > 0) {
        while (running < par && next < n) {
            unit_start(u[next], cc);
            if (u[next]->errfd >= 0)
                live[running++] = u[next];
            next++;
        }
        if (running == 0)
            continue;
        double t = now(), first = live[0]->deadline;
        for (size_t i = 0; i < running; i++) {
            fds[i] = (struct pollfd){live[i]->errfd, POLLIN, 0};
            if (live[i]->deadline < first)
                first = live[i]->deadline;
        }
        int wait = (int)((first - t) * 1000) + 1;
        int ready = poll(fds, running, wait < 1 ? 1 : wait > 1000 ? 1000 : wait);
        for (size_t i = 0; ready > 0 && i < running; i++)
            if (fds[i].revents)
                unit_drain(live[i]);
        t = now();
        for (size_t i = 0; i < running; i++)
            if (live[i]->errfd >= 0 && t >= live[i]->deadline && !live[i]->timed_out) {
                live[i]->timed_out = true;
                kill(-live[i]->pid, SIGKILL);
            }
        size_t kept = 0;
        for (size_t i = 0; i < running; i++)
            if (live[i]->errfd >= 0)
                live[kept++] = live[i];
        running = kept;
    }
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

/* ---- running one kernel ---- */

/* Lines from the runner's socket. */
typedef struct {
    int fd;
    char buf[1024];
    size_t len;
} line_reader;

/* The next line (without '\n') into line: 1, 0 at end of file (or an error),
 * -1 when deadline passed first. */
static int read_line(line_reader *r, double deadline, char *line, size_t len)
{
    for (;;) {
        char *nl = memchr(r->buf, '\n', r->len);
        if (nl) {
            size_t n = (size_t)(nl - r->buf);
            snprintf(line, len, "%.*s", (int)n, r->buf);
            memmove(r->buf, nl + 1, r->len - n - 1);
            r->len -= n + 1;
            return 1;
        }
        if (r->len == sizeof r->buf) /* an overlong line: drop it */
            r->len = 0;
        double left = deadline - now();
        if (left <= 0)
            return -1;
        struct pollfd p = {r->fd, POLLIN, 0};
        int ready = poll(&p, 1, (int)(left * 1000) + 1);
        if (ready < 0 && errno != EINTR)
            return 0;
        if (ready <= 0)
            continue;
        ssize_t n = recv(r->fd, r->buf + r->len, sizeof r->buf - r->len, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            return 0;
        r->len += (size_t)n;
    }
}

/* Splits samples s[0..n) (unchanged) into the ones inside the Tukey fences
 * [Q1 - 1.5 IQR, Q3 + 1.5 IQR] (into in, returns how many); sorted is scratch. */
static int inliers(const double *s, int n, double *sorted, double *in)
{
    memcpy(sorted, s, (size_t)n * sizeof *s);
    gsl_sort(sorted, 1, (size_t)n);
    double q1 = gsl_stats_quantile_from_sorted_data(sorted, 1, (size_t)n, 0.25);
    double q3 = gsl_stats_quantile_from_sorted_data(sorted, 1, (size_t)n, 0.75);
    double lo = q1 - 1.5 * (q3 - q1), hi = q3 + 1.5 * (q3 - q1);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (s[i] >= lo && s[i] <= hi)
            in[k++] = s[i];
    return k;
}

/* Fills m from samples s[0..n): value (median), nsamples over all samples;
 * mean, stddev and the confidence interval over the inliers only. Returns
 * the interval's half width relative to the inliers' mean; *outliers set. */
static double summarise(const double *s, int n, double *scratch, double *in, ms_measurement *m,
                        int *outliers)
{
    int k = inliers(s, n, scratch, in);
    *outliers = n - k;
    ms_measurement all = {0}, part = {0};
    memcpy(scratch, s, (size_t)n * sizeof *s);
    ms_summarise(scratch, n, &all);
    ms_summarise(in, k, &part);
    m->value = all.value;
    m->nsamples = n;
    m->mean = part.mean;
    m->stddev = part.stddev;
    m->ci_lo = part.ci_lo;
    m->ci_hi = part.ci_hi;
    return part.mean > 0 ? (part.ci_hi - part.ci_lo) / 2 / part.mean : HUGE_VAL;
}

/* Asks the runner for one timed run: its seconds into *t. 1, 0 (runner
 * gone or said something else; line holds it) or -1 (deadline). */
static int one_run(line_reader *r, double deadline, double *t, char *line, size_t len)
{
    char cmd = 'r';
    while (send(r->fd, &cmd, 1, MSG_NOSIGNAL) < 0)
        if (errno != EINTR)
            return 0;
    int got = read_line(r, deadline, line, len);
    if (got != 1)
        return got;
    char *end;
    if (line[0] != 'S' || line[1] != ' ')
        return 0;
    *t = strtod(line + 2, &end);
    return end != line + 2 && *t >= 0 ? 1 : 0;
}

/* Runs job j (compiled into so) in a fresh runner: verifies, then times it. */
static void run_job(const char *runner, const char *so, const ms_host_job *j, double timeout,
                    double *samples, double *scratch, double *in, ms_measurement *m)
{
    m->status = MS_CRASH;
    const sp_problem *p = j->problem;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        set_detail(m, "cannot make a socket for the runner: %s", strerror(errno));
        return;
    }
    char dims[4][24];
    snprintf(dims[0], sizeof dims[0], "%lld", (long long)p->M);
    snprintf(dims[1], sizeof dims[1], "%lld", (long long)p->N);
    snprintf(dims[2], sizeof dims[2], "%lld", (long long)p->K);
    snprintf(dims[3], sizeof dims[3], "%lld", (long long)(p->batch > 0 ? p->batch : 1));
    char *argv[] = {(char *)runner, (char *)so, (char *)j->symbol, dims[0], dims[1], dims[2],
                    dims[3], (char *)(p->dtype == SP_BF16 ? "bf16" : "fp32"), NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    child_attr(&at);
    pid_t pid;
    double start = now(), deadline = start + timeout;
    int rc = posix_spawn(&pid, runner, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(sv[1]);
    if (rc) {
        close(sv[0]);
        set_detail(m, "cannot run the runner '%s': %s", runner, strerror(rc));
        return;
    }
    line_reader r = {.fd = sv[0]};
    char line[512];
    const char *phase = "verifying";
    int got = read_line(&r, deadline, line, sizeof line), n = 0;
    bool done = false; /* the runner's answer is final (m set) */
    if (got == 1 && line[0] == 'E') {
        m->status = strstr(line, "out of memory") ? MS_CRASH : MS_ILLEGAL;
        set_detail(m, "%s", line + 2);
        done = true;
    } else if (got == 1 && line[0] == 'W') {
        m->status = MS_WRONG;
        set_detail(m, "%s", line + 2);
        done = true;
    } else if (got == 1 && line[0] == 'V') {
        phase = "warming up";
        double t = 0, warm = 0, budget = start + timeout / 2;
        for (int w = 0; got == 1 && w < WARMUP_RUNS && warm < WARMUP_SECONDS && now() < budget; w++)
            if ((got = one_run(&r, deadline, &t, line, sizeof line)) == 1)
                warm += t;
        phase = "timing";
        double kernel = 0, rel = 0;
        int outliers = 0;
        const char *cap = NULL;
        while (got == 1) {
            if ((got = one_run(&r, deadline, &t, line, sizeof line)) != 1)
                break;
            samples[n++] = t;
            kernel += t;
            if (n < MIN_SAMPLES && now() < budget)
                continue;
            rel = summarise(samples, n, scratch, in, m, &outliers);
            if (rel <= CI_TARGET && n >= MIN_SAMPLES)
                break;
            if (n >= MAX_SAMPLES)
                cap = "the sample cap";
            else if (kernel >= MAX_KERNEL_SECONDS && n >= MIN_SAMPLES)
                cap = "the kernel-time cap";
            else if (now() >= budget)
                cap = "half the timeout";
            if (cap)
                break;
        }
        if (got == 1) {
            m->status = MS_OK;
            int w = snprintf(m->detail, sizeof m->detail, "%d sample%s, %d outlier%s, CI +-%.1f%%",
                             n, n == 1 ? "" : "s", outliers, outliers == 1 ? "" : "s", rel * 100);
            if (cap && w > 0 && (size_t)w < sizeof m->detail)
                snprintf(m->detail + w, sizeof m->detail - (size_t)w, " (stopped at %s)", cap);
            done = true;
        }
    }
    if (done) {
        char q = 'q';
        send(sv[0], &q, 1, MSG_NOSIGNAL);
    }
    close(sv[0]);
    int status = 0;
    if (got == -1 || !reap_by(pid, done ? now() + 5 : deadline, &status)) {
        kill_and_reap(pid);
        if (!done || got == -1) {
            m->status = MS_TIMEOUT;
            if (n)
                set_detail(m, "timed out after %g s while %s (after %d sample%s)", timeout, phase, n,
                           n == 1 ? "" : "s");
            else
                set_detail(m, "timed out after %g s while %s", timeout, phase);
        }
        return;
    }
    if (done)
        return;
    m->status = MS_CRASH;
    if (WIFSIGNALED(status)) {
        char sig[96];
        signal_text(WTERMSIG(status), sig, sizeof sig);
        set_detail(m, "killed by %s while %s", sig, phase);
    } else if (got == 1)
        set_detail(m, "unexpected answer from the runner while %s: '%.200s'", phase, line);
    else
        set_detail(m, "exited with status %d while %s", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                   phase);
}

/* ---- the harness ---- */

/* See measure.h. Timing policy: runs until WARMUP_RUNS or WARMUP_SECONDS of
 * warm-up, then samples (one kernel call each, batch calls for batch > 1)
 * until the Student-t 95% interval of the mean of the samples inside the
 * Tukey fences is within CI_TARGET of that mean, with MIN_SAMPLES at least and
 * caps of MAX_SAMPLES, MAX_KERNEL_SECONDS of timed kernel time and half the
 * timeout. value = median of all samples (seconds, whole batch); mean,
 * stddev and the interval over the non-outliers; detail reports
 * "12 samples, 1 outlier, CI +-0.8%". The timeout (60 s if not positive)
 * covers one runner from start to exit. Kernels are compiled with $CC (split
 * at blanks) or cc, adding -Wl,-z,defs -lm so an undefined reference fails at
 * compile time, where it can be pinned on its job. */
bool ms_host_run(const ms_host_job *jobs, size_t n, const char *workdir, double timeout,
                 ms_measurement *out, ms_done_fn done, void *ctx, char *err, size_t errlen)
{
    if (errlen)
        err[0] = '\0';
    if (timeout <= 0)
        timeout = 60;
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].status = MS_CRASH;
    }
    if (!workdir || !*workdir) {
        snprintf(err, errlen, "no work directory for host kernels");
        return false;
    }
    if (!make_dirs(workdir, err, errlen))
        return false;
    if (n == 0)
        return true;
    compiler cc;
    size_t ntu = (n + TU_JOBS - 1) / TU_JOBS, cap = ntu + n + 1;
    unit *units = calloc(cap, sizeof *units);
    unit **batch = calloc(cap, sizeof *batch);
    size_t *home = calloc(n, sizeof *home); /* the unit each job is loaded from */
    double *samples = malloc(3 * MAX_SAMPLES * sizeof *samples);
    if (!units || !batch || !home || !samples || !compiler_init(&cc)) {
        free(units), free(batch), free(home), free(samples);
        snprintf(err, errlen, "out of memory");
        return false;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t par = cores > 0 ? (size_t)(cores < MAX_PAR ? cores : MAX_PAR) : 1;

    /* Round 1: the runner and the jobs in units of TU_JOBS. */
    size_t nu = 0, nb = 0;
    unit *run = &units[nu++];
    run->runner = true;
    for (size_t i = 0; i < n; i += TU_JOBS) {
        unit *u = &units[nu++];
        u->first = i;
        u->count = n - i < TU_JOBS ? n - i : TU_JOBS;
    }
    for (size_t i = 0; i < nu; i++) {
        units[i].errfd = -1;
        if (unit_prepare(&units[i], workdir, jobs))
            batch[nb++] = &units[i];
    }
    compile_all(batch, nb, &cc, par);

    /* Round 2: the jobs of a failed unit one per unit, so that one bad
     * kernel does not sink its neighbours. */
    size_t round1 = nu;
    nb = 0;
    for (size_t i = 1; i < round1; i++) {
        unit *u = &units[i];
        for (size_t k = 0; k < u->count; k++)
            home[u->first + k] = i;
        if (u->ok || u->count == 1 || u->spawn_error)
            continue;
        for (size_t k = 0; k < u->count; k++) {
            unit *s = &units[nu++];
            s->first = u->first + k;
            s->count = 1;
            s->errfd = -1;
            home[s->first] = (size_t)(s - units);
            if (unit_prepare(s, workdir, jobs))
                batch[nb++] = s;
        }
    }
    compile_all(batch, nb, &cc, par);

    /* Run: one job at a time. */
    char why[sizeof out->detail];
    for (size_t i = 0; i < n; i++) {
        unit *u = &units[home[i]];
        if (!u->ok) {
            unit_why(u, workdir, cc.argv[0], why, sizeof why);
            out[i].status = MS_ILLEGAL;
            snprintf(out[i].detail, sizeof out[i].detail, "%s", why);
        } else if (!run->ok) {
            unit_why(run, workdir, cc.argv[0], why, sizeof why);
            out[i].status = MS_CRASH;
            snprintf(out[i].detail, sizeof out[i].detail, "cannot build the timing runner: %.250s",
                     why);
        } else
            run_job(run->out, u->out, &jobs[i], timeout, samples, samples + MAX_SAMPLES,
                    samples + 2 * MAX_SAMPLES, &out[i]);
        if (done)
            done(ctx, i, &out[i]);
    }

    /* Tidy up: keep only the sources of jobs that failed to compile alone. */
    for (size_t i = 0; i < nu; i++) {
        unit *u = &units[i];
        unlink(u->out);
        if (u->ok || (!u->runner && u->count != 1))
            unlink(u->src);
    }
    free(units), free(batch), free(home), free(samples), free(cc.text);
    return true;
}
