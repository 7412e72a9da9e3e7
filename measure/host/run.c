/* run.c — the host CPU harness: verifies and times compiled kernels, each in
 * its own runner, or a few finalists side by side in one. */
#define _GNU_SOURCE /* strsignal, strdup, sched_getcpu */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "base.h"
#include "internal.h"

/* Timing policy (see hs_run): warm-up until WARMUP_RUNS runs or
 * WARMUP_SECONDS of kernel time; then samples until the 95% confidence
 * interval of the mean of the non-outlier samples is within CI_TARGET of that
 * mean (at least MIN_SAMPLES), or MAX_SAMPLES, or MAX_KERNEL_SECONDS of timed
 * kernel time, or half the job's timeout has passed. */
enum { WARMUP_RUNS = 3, MIN_SAMPLES = 5, MAX_SAMPLES = HS_FINAL_ROUNDS };
#define WARMUP_SECONDS 0.05
#define MAX_KERNEL_SECONDS 2.0
#define CI_TARGET 0.02

/* The final (hs_final): rounds in which each kernel in turn runs a
 * burst of consecutive calls (until FINAL_BURST_SECONDS of kernel time or
 * FINAL_BURST_CALLS, at least FINAL_BURST_MIN) whose median call is its
 * sample: each is timed warm, as in the search and the bench, while drift
 * reaches all alike. FINAL_WARMUP untimed rounds, then rounds until
 * FINAL_MIN_ROUNDS and FINAL_SECONDS of kernel time over all, or
 * MAX_SAMPLES rounds, or half the time allowed. hs_final_with may choose
 * other rounds, seconds and bursts (FINAL_BURST_CALLS and MAX_SAMPLES stay
 * the caps). */
enum { FINAL_WARMUP = 1, FINAL_MIN_ROUNDS = 11, FINAL_BURST_CALLS = 64, FINAL_BURST_MIN = 3 };
#define FINAL_SECONDS 0.5
#define FINAL_BURST_SECONDS 0.02

/* Busy (hs_busy): while timed, the runner's threads spent at least
 * BUSY_SHARE of their time (timed wall time x threads), and BUSY_SECONDS at
 * least, runnable but waiting for a CPU (another task had it). On a quiet
 * machine a 2-thread kernel on 2 cores waits up to ~15% of the wall time in
 * all (~8% of its thread time: whatever else wakes up takes a core); one whose
 * thread shares a core with another process waits a scheduler slice
 * (milliseconds) at every join, ~100% of the wall time, and its median can
 * be 1000x off. */
#define BUSY_SHARE 0.25
#define BUSY_SECONDS 1e-3

bool hs_busy(double waited, double thread_seconds)
{
    return waited >= BUSY_SECONDS && waited >= BUSY_SHARE * thread_seconds;
}

/* Marks m busy (hs_busy) and says so at the end of m->detail. */
static void mark_busy(ms_measurement *m, double waited, double thread_seconds)
{
    m->busy = hs_busy(waited, thread_seconds);
    size_t used = strlen(m->detail);
    if (m->busy && used < sizeof m->detail)
        snprintf(m->detail + used, sizeof m->detail - used,
                 "; busy: its threads waited %.3g s for a CPU in %.3g thread-seconds of timed calls",
                 waited, thread_seconds);
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
        double left = deadline - bs_now();
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

/* *acc += w: seconds threads waited for a CPU, where -1 (not known) in
 * either makes and keeps *acc -1. */
static void add_waited(double *acc, double w) { *acc = w >= 0 && *acc >= 0 ? *acc + w : -1; }

/* Asks the runner for one timed call of its kernel k: its seconds (> 0)
 * into *t, the seconds its threads waited for a CPU added to *waited (which
 * becomes and stays -1 once one is not known) and its thread-seconds (t x
 * threads) to *tsec. 1, 0 (runner gone or said something else; line holds
 * it) or -1 (deadline). */
static int one_run(line_reader *r, int k, double deadline, double *t, double *waited,
                   double *tsec, char *line, size_t len)
{
    unsigned char cmd = (unsigned char)k;
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
    if (end == line + 2 || !(*t > 0))
        return 0;
    char *at = end;
    double w = strtod(at, &end);
    if (end == at)
        return 0;
    at = end;
    long threads = strtol(at, &end, 10);
    if (end == at || *end || threads < 1)
        return 0;
    add_waited(waited, w);
    *tsec += *t * (double)threads;
    return 1;
}

/* The runner's verdict on a kernel: 1 for "V" (verified); 0 for "E why"
 * (crash when memory ran out, else illegal) or "W why" (wrong), with m set;
 * -1 for anything else. */
static int verdict(const char *line, ms_measurement *m)
{
    if (line[0] == 'V')
        return 1;
    if ((line[0] != 'E' && line[0] != 'W') || line[1] != ' ')
        return -1;
    m->status = line[0] == 'W' ? MS_WRONG : strstr(line, "out of memory") ? MS_CRASH : MS_ILLEGAL;
    ms_set_detail(m, "%s", line + 2);
    return 0;
}

/* The home CPU (hs_home_cpu): -2 until chosen, -1 for none. */
static atomic_int home = -2;

/* See host.h. */
int hs_home_cpu(void)
{
    int cpu = atomic_load(&home);
    if (cpu != -2)
        return cpu;
    int here = sched_getcpu();
    atomic_compare_exchange_strong(&home, &cpu, here >= 0 ? here : -1);
    return atomic_load(&home);
}

/* After a timing on CPU cpu (-1: not pinned) that measurement m ended: a busy
 * one there ends the pinning for the run (another process has that CPU, which
 * the scheduler would have let the runner leave). */
static void unpin_if_busy(int cpu, const ms_measurement *m)
{
    if (cpu >= 0 && m->busy)
        atomic_store(&home, -1);
}

/* The CPU a runner of jobs[0..k) is pinned to: the home CPU when every one
 * runs on one thread, else -1 (its threads go where the scheduler puts them). */
static int runner_cpu(const hs_job *const *jobs, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (jobs[i]->threads != 1)
            return -1;
    return k ? hs_home_cpu() : -1;
}

/* Starts the runner on kernels so[0..k) (symbols sym[0..k), k <= 64) for
 * problem p, pinned to CPU cpu unless it is negative: true with its pid and
 * the parent's end of its socket in *fd; false with the reason in why. */
static bool runner_start(const char *runner, const char *const *so, const char *const *sym,
                         size_t k, const sp_problem *p, int cpu, pid_t *pid, int *fd, char *why,
                         size_t len)
{
    if (!sp_cpu_computes(p->dtype)) {
        snprintf(why, len, "the host runs fp32, bf16 and fp16 kernels, not %s",
                 sp_dtype_name(p->dtype) ? sp_dtype_name(p->dtype) : "this dtype");
        return false;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        snprintf(why, len, "cannot make a socket for the runner: %s", strerror(errno));
        return false;
    }
    char dims[4][24];
    snprintf(dims[0], sizeof dims[0], "%lld", (long long)p->M);
    snprintf(dims[1], sizeof dims[1], "%lld", (long long)p->N);
    snprintf(dims[2], sizeof dims[2], "%lld", (long long)p->K);
    snprintf(dims[3], sizeof dims[3], "%lld", (long long)(p->batch > 0 ? p->batch : 1));
    char pin[24];
    snprintf(pin, sizeof pin, "-c%d", cpu);
    char *argv[7 + 2 * 64 + 1];
    int argc = 0;
    argv[argc++] = (char *)runner;
    if (cpu >= 0)
        argv[argc++] = pin;
    for (int d = 0; d < 4; d++)
        argv[argc++] = dims[d];
    argv[argc++] = (char *)sp_dtype_name(p->dtype); /* fp32, or bf16 / fp16 storage */
    for (size_t i = 0; i < k && i < 64; i++) {
        argv[argc++] = (char *)so[i];
        argv[argc++] = (char *)sym[i];
    }
    argv[argc] = NULL;
    /* the socket is its stdin; in its own process group, killed whole */
    bs_spawn_opts o = {.argv = (const char *const *)argv, .io = {BS_FD, BS_NULL, BS_NULL},
                       .fd = {sv[1]}, .group = true};
    bs_child child;
    int rc = bs_spawn(&o, &child);
    close(sv[1]);
    if (rc) {
        close(sv[0]);
        snprintf(why, len, "cannot run the runner '%s': %s", runner, strerror(rc));
        return false;
    }
    *pid = child.pid;
    *fd = sv[0];
    return true;
}

/* Runs job j (compiled into so) in a fresh runner: verifies, then times it. */
static void run_job(const char *runner, const char *so, const hs_job *j, double timeout,
                    double *samples, double *scratch, double *in, ms_measurement *m)
{
    m->status = MS_CRASH;
    pid_t pid;
    line_reader r = {.fd = -1};
    double start = bs_now(), deadline = start + timeout;
    int cpu = runner_cpu(&j, 1);
    if (!runner_start(runner, &so, &j->symbol, 1, j->problem, cpu, &pid, &r.fd, m->detail,
                      sizeof m->detail))
        return;
    char line[512];
    const char *phase = "verifying";
    int got = read_line(&r, deadline, line, sizeof line), n = 0;
    int v = got == 1 ? verdict(line, m) : -1;
    bool done = v == 0; /* the runner's answer is final (m set) */
    if (v == 1) {
        phase = "warming up";
        double t = 0, warm = 0, budget = start + timeout / 2;
        double waited = 0, tsec = 0;
        for (int w = 0; got == 1 && w < WARMUP_RUNS && warm < WARMUP_SECONDS && bs_now() < budget; w++)
            if ((got = one_run(&r, 0, deadline, &t, &waited, &tsec, line, sizeof line)) == 1)
                warm += t;
        waited = tsec = 0; /* over the timed calls only */
        phase = "timing";
        double kernel = 0, rel = 0;
        int outliers = 0;
        const char *cap = NULL;
        while (got == 1) {
            if ((got = one_run(&r, 0, deadline, &t, &waited, &tsec, line, sizeof line)) != 1)
                break;
            samples[n++] = t;
            kernel += t;
            if (n < MIN_SAMPLES && bs_now() < budget)
                continue;
            rel = summarise(samples, n, scratch, in, m, &outliers);
            if (rel <= CI_TARGET && n >= MIN_SAMPLES)
                break;
            if (n >= MAX_SAMPLES)
                cap = "the sample cap";
            else if (kernel >= MAX_KERNEL_SECONDS && n >= MIN_SAMPLES)
                cap = "the kernel-time cap";
            else if (bs_now() >= budget)
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
            mark_busy(m, waited, tsec);
            unpin_if_busy(cpu, m);
            done = true;
        }
    }
    if (done) {
        char q = 'q';
        send(r.fd, &q, 1, MSG_NOSIGNAL);
    }
    close(r.fd);
    int status = 0;
    if (got == -1 || !bs_reap_by(pid, done ? bs_now() + 5 : deadline, &status)) {
        bs_kill_and_reap(pid);
        if (!done || got == -1) {
            m->status = MS_TIMEOUT;
            if (n)
                ms_set_detail(m, "timed out after %g s while %s (after %d sample%s)", timeout, phase, n,
                           n == 1 ? "" : "s");
            else
                ms_set_detail(m, "timed out after %g s while %s", timeout, phase);
        }
        return;
    }
    if (done)
        return;
    m->status = MS_CRASH;
    if (WIFSIGNALED(status)) {
        char sig[96];
        signal_text(WTERMSIG(status), sig, sizeof sig);
        ms_set_detail(m, "killed by %s while %s", sig, phase);
    } else if (got == 1)
        ms_set_detail(m, "unexpected answer from the runner while %s: '%.200s'", phase, line);
    else
        ms_set_detail(m, "exited with status %d while %s", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                   phase);
}

/* What hs_run and hs_final do first: out[0..n) reset (status
 * crash), the work directory made, nsamples doubles for *samples and the
 * jobs compiled into *b. False with err set; true with *b NULL when n is 0. */
static bool begin(const hs_job *jobs, size_t n, const char *workdir, size_t nsamples,
                  ms_measurement *out, double **samples, hs_build **b, char *err, size_t errlen)
{
    *samples = NULL;
    *b = NULL;
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].status = MS_CRASH;
    }
    if (!workdir || !*workdir) {
        snprintf(err, errlen, "no work directory for host kernels");
        return false;
    }
    if (!bs_mkdirs(workdir, err, errlen))
        return false;
    if (n == 0)
        return true;
    *samples = malloc(nsamples * sizeof **samples);
    *b = *samples ? hs_build_jobs(jobs, n, workdir, err, errlen) : NULL;
    if (!*b) {
        free(*samples);
        snprintf(err, errlen, "out of memory");
        return false;
    }
    return true;
}

/* ---- the harness ---- */

/* See host.h. Timing policy: runs until WARMUP_RUNS or WARMUP_SECONDS of
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
bool hs_run(const hs_job *jobs, size_t n, const char *workdir, double timeout,
            ms_measurement *out, ms_done_fn done, void *ctx, char *err, size_t errlen)
{
    if (errlen)
        err[0] = '\0';
    if (timeout <= 0)
        timeout = 60;
    double *samples;
    hs_build *b;
    if (!begin(jobs, n, workdir, 3 * MAX_SAMPLES, out, &samples, &b, err, errlen))
        return false;
    if (!b)
        return true;

    /* Run: one job at a time. */
    char why[sizeof out->detail];
    const char *runner = hs_build_runner(b, why, sizeof why);
    for (size_t i = 0; i < n; i++) {
        const char *so = hs_build_object(b, i, out[i].detail, sizeof out[i].detail);
        if (!so)
            out[i].status = MS_ILLEGAL;
        else if (!runner) {
            out[i].status = MS_CRASH;
            snprintf(out[i].detail, sizeof out[i].detail, "%s", why);
        } else
            run_job(runner, so, &jobs[i], timeout, samples, samples + MAX_SAMPLES,
                    samples + 2 * MAX_SAMPLES, &out[i]);
        if (done)
            done(ctx, i, &out[i]);
    }
    hs_build_free(b);
    free(samples);
    return true;
}

/* Verifies kernels so[0..k) in one runner, then times the verified ones
 * in rounds of bursts, round-robin (each round starting one kernel later),
 * into out[at[i]]. The
 * runner's samples go to samples[i * MAX_SAMPLES ..], scratch after them. */
static void side_by_side(const char *runner, const char *const *so, const char *const *sym,
                         const size_t *at, size_t k, const sp_problem *p, int cpu,
                         double timeout, const hs_final_opts *o, double *samples,
                         ms_measurement *out)
{
    double *scratch = samples + k * MAX_SAMPLES, *in = scratch + MAX_SAMPLES;
    double start = bs_now(), deadline = start + timeout, budget = start + timeout / 2;
    pid_t pid;
    line_reader r = {.fd = -1};
    char why[sizeof out->detail];
    if (!runner_start(runner, so, sym, k, p, cpu, &pid, &r.fd, why, sizeof why)) {
        for (size_t i = 0; i < k; i++)
            snprintf(out[at[i]].detail, sizeof out[at[i]].detail, "%s", why);
        return;
    }
    char line[512];
    bool live[HS_FINAL_MAX] = {false};
    size_t heard = 0, nlive = 0;
    int got = 1;
    for (; heard < k && (got = read_line(&r, deadline, line, sizeof line)) == 1; heard++) {
        int v = verdict(line, &out[at[heard]]);
        if (v < 0) {
            got = 0;
            break;
        }
        live[heard] = v == 1;
        nlive += v == 1;
    }
    const char *phase = "verifying";
    int rounds = 0, outliers = 0;
    double kernel = 0, spent[HS_FINAL_MAX] = {0}; /* timed thread-seconds per kernel */
    double waited[HS_FINAL_MAX] = {0};
    for (int round = 0; got == 1 && nlive > 0; round++) {
        phase = "timing";
        for (size_t q = 0; q < k && got == 1; q++) {
            size_t i = (q + (size_t)round) % k;
            double burst[FINAL_BURST_CALLS], sum = 0;
            double wait = 0, tsec = 0;
            int calls = 0;
            while (live[i] && calls < FINAL_BURST_CALLS &&
                   (calls < o->burst_calls || sum < o->burst_seconds) &&
                   (got = one_run(&r, (int)i, deadline, &burst[calls], &wait, &tsec, line,
                                  sizeof line)) == 1)
                sum += burst[calls++];
            if (calls && got == 1 && round >= FINAL_WARMUP) {
                gsl_sort(burst, 1, (size_t)calls);
                samples[i * MAX_SAMPLES + (size_t)rounds] =
                    gsl_stats_median_from_sorted_data(burst, 1, (size_t)calls);
                kernel += sum;
                spent[i] += tsec;
                add_waited(&waited[i], wait);
            }
        }
        rounds += got == 1 && round >= FINAL_WARMUP;
        if (rounds >= MAX_SAMPLES || (rounds >= o->rounds && kernel >= o->seconds) ||
            (rounds >= 1 && bs_now() >= budget))
            break;
    }
    bool done = got == 1;
    if (done) {
        char q = 'q';
        send(r.fd, &q, 1, MSG_NOSIGNAL);
    }
    close(r.fd);
    int status = 0;
    bool reaped = got != -1 && bs_reap_by(pid, done ? bs_now() + 5 : deadline, &status);
    if (!reaped)
        bs_kill_and_reap(pid);
    if (done || !reaped) /* a runner that answered everything is done, however it exits */
        status = 0;
    for (size_t i = 0; i < k; i++) {
        ms_measurement *m = &out[at[i]];
        if (i < heard && !live[i])
            continue; /* wrong or not loaded: set above */
        if (done) {
            if (o->round_s)
                memcpy(o->round_s + at[i] * HS_FINAL_ROUNDS, samples + i * MAX_SAMPLES,
                       (size_t)rounds * sizeof *samples);
            double rel = summarise(samples + i * MAX_SAMPLES, rounds, scratch, in, m, &outliers);
            m->status = MS_OK;
            ms_set_detail(m, "final: %d samples side by side with %zu other%s, %d outlier%s, CI +-%.1f%%",
                       rounds, nlive - 1, nlive == 2 ? "" : "s", outliers, outliers == 1 ? "" : "s",
                       rel * 100);
            mark_busy(m, waited[i], spent[i]);
            unpin_if_busy(cpu, m);
        } else if (!reaped) {
            m->status = MS_TIMEOUT;
            ms_set_detail(m, "the final's runner timed out after %g s while %s", timeout, phase);
        } else {
            char sig[96] = "";
            if (WIFSIGNALED(status))
                signal_text(WTERMSIG(status), sig, sizeof sig);
            m->status = MS_CRASH;
            ms_set_detail(m, "the final's runner %s%s while %s", *sig ? "was killed by " : "failed",
                       sig, phase);
        }
    }
}

/* See host.h. The time allowed is timeout per job, for the one runner. */
bool hs_final(const hs_job *jobs, size_t n, const char *workdir, double timeout,
              ms_measurement *out, char *err, size_t errlen)
{
    return hs_final_with(jobs, n, workdir, timeout, NULL, out, err, errlen);
}

/* See host.h. */
bool hs_final_with(const hs_job *jobs, size_t n, const char *workdir, double timeout,
                   const hs_final_opts *opts, ms_measurement *out, char *err, size_t errlen)
{
    if (errlen)
        err[0] = '\0';
    if (timeout <= 0)
        timeout = 60;
    hs_final_opts o = {FINAL_MIN_ROUNDS, FINAL_SECONDS, FINAL_BURST_MIN, FINAL_BURST_SECONDS,
                       opts ? opts->round_s : NULL};
    if (opts && opts->rounds > 0) /* at most MAX_SAMPLES rounds are kept */
        o.rounds = opts->rounds < MAX_SAMPLES ? opts->rounds : MAX_SAMPLES;
    if (opts && opts->seconds > 0)
        o.seconds = opts->seconds;
    if (opts && opts->burst_calls > 0)
        o.burst_calls = opts->burst_calls < FINAL_BURST_CALLS ? opts->burst_calls : FINAL_BURST_CALLS;
    if (opts && opts->burst_seconds > 0)
        o.burst_seconds = opts->burst_seconds;
    if (n > HS_FINAL_MAX) { /* out untouched */
        snprintf(err, errlen, "a final takes at most %d kernels, not %zu", HS_FINAL_MAX, n);
        return false;
    }
    for (size_t i = 0; o.round_s && i < n * HS_FINAL_ROUNDS; i++)
        o.round_s[i] = NAN;
    double *samples;
    hs_build *b;
    if (!begin(jobs, n, workdir, (n + 2) * MAX_SAMPLES, out, &samples, &b, err, errlen))
        return false;
    if (!b)
        return true;
    char why[sizeof out->detail];
    const char *runner = hs_build_runner(b, why, sizeof why);
    const char *so[HS_FINAL_MAX], *sym[HS_FINAL_MAX];
    const hs_job *run[HS_FINAL_MAX];
    size_t at[HS_FINAL_MAX], k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *o = hs_build_object(b, i, out[i].detail, sizeof out[i].detail);
        if (!o)
            out[i].status = MS_ILLEGAL;
        else if (!runner)
            snprintf(out[i].detail, sizeof out[i].detail, "%s", why);
        else {
            so[k] = o;
            sym[k] = jobs[i].symbol;
            run[k] = &jobs[i];
            at[k++] = i;
        }
    }
    if (k)
        side_by_side(runner, so, sym, at, k, jobs[at[0]].problem, runner_cpu(run, k),
                     timeout * (double)k, &o, samples, out);
    hs_build_free(b);
    free(samples);
    return true;
}
