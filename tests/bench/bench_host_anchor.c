/* bench_host_anchor.c — a sample of host configs timed so that the machine's drift cannot
 * rank it: each config side by side with one anchor config of its shape, its figure the ratio. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "base.h"
#include "codegen.h"
#include "host.h"
#include "results.h"
#include "rounds.h"

#define WHO "bench_host_anchor"

/* How each group is timed (hs_final_with): ROUNDS rounds of bursts of at
 * least 3 calls and 20 ms (hs_final's bursts), fewer rounds than a tuner's
 * final (11): the anchor cancels what the rounds would average away. A
 * group with timings on a busy machine, or whose anchor's time is off (see
 * measure_shape), is timed again, TRIES times at most. */
enum { ROUNDS = 7, TRIES = 3 };
#define ANCHOR_OFF 0.10 /* a group whose anchor's time is off its median by more: timed again */
#define TIMEOUT 60.0 /* seconds allowed per kernel of a group */

static void fail(const char *what)
{
    fprintf(stderr, WHO ": %s\n", what);
    exit(1);
}

static int usage(void)
{
    fprintf(stderr,
            "usage: bench_host_anchor [--group N] [--rounds R] DRAW.csv OUT.csv\n"
            "  times DRAW.csv's configs (a journal's ok rows, e.g. a random draw with the model\n"
            "  backend) on this host, per shape in groups of N - 1 configs side by side with the\n"
            "  anchor (the config of median estimate), N from 2 to %d (default), R rounds each\n"
            "  (default %d); writes the new journal OUT.csv: a config's time is its ratio to the\n"
            "  anchor of its group times the anchor's median time over the shape's groups\n",
            HS_FINAL_MAX, ROUNDS);
    return 2;
}

/* "WS 240 128 384 0 1 M 14x32", as bench_host_configs reads a config. */
static const char *config_text(const sp_config *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s %d %d %d %d %d %s %dx%d", sp_strategy_name(c->strategy), c->m, c->n,
             c->k, c->double_buffer, c->cores, sp_split_name(c->split), c->mr, c->nr);
    return buf;
}

/* The ok search rows of problem p in c, in the journal's order, into out. */
static size_t rows_of(const rs_cache *c, const rs_entry *p, const rs_entry **out)
{
    size_t n = 0;
    for (size_t i = 0; i < rs_cache_size(c); i++) {
        const rs_entry *e = rs_cache_entry(c, i);
        if (sp_problem_cmp(&e->problem, &p->problem, true) == 0 && strcmp(e->status, "ok") == 0 &&
            strcmp(e->round, "search") == 0)
            out[n++] = e;
    }
    return n;
}

/* The anchor of rows[0..n) (n > 0): the row of the lower median estimate, a
 * typical config of the sample. */
static size_t anchor_of(const rs_entry *const *rows, size_t n)
{
    double *est = malloc(n * sizeof *est);
    size_t *order = malloc(n * sizeof *order);
    if (!est || !order)
        fail("out of memory");
    for (size_t i = 0; i < n; i++)
        est[i] = rows[i]->est_cycles;
    gsl_sort_index(order, est, 1, n);
    size_t a = order[(n - 1) / 2];
    free(est), free(order);
    return a;
}

/* Group g of one shape: rows[anchor] first, then up to group - 1 of the others in
 * their order (the anchor alone when it is the only row); their kernels into
 * jobs (syms: the symbols) and their rows into at. A config that generates no
 * kernel gets status illegal and is left out. Returns how many jobs. */
static size_t group_jobs(const rs_entry *const *rows, size_t n, size_t anchor, int group,
                         size_t g, ms_status *status, hs_job *jobs, char (*syms)[16], size_t *at)
{
    size_t k = 0, per = (size_t)group - 1;
    char why[512], cfg[96];
    for (size_t q = 0; q <= per; q++) {
        size_t o = g * per + q - 1; /* among the others; q = 0: the anchor */
        size_t i = q == 0 ? anchor : o < anchor ? o : o + 1;
        if (q > 0 && o >= n - 1)
            break;
        snprintf(syms[k], sizeof syms[k], "nt_anchor%zu", k);
        char *text = cg_host_text(&rows[i]->config, rows[i]->problem.dtype, syms[k], why,
                                  sizeof why);
        if (!text && i == anchor) {
            char msg[1024];
            snprintf(msg, sizeof msg, "cannot generate the anchor '%s': %s",
                     config_text(&rows[i]->config, cfg, sizeof cfg), why);
            fail(msg);
        }
        if (!text) {
            status[i] = MS_ILLEGAL;
            continue;
        }
        jobs[k] = (hs_job){.source = text, .symbol = syms[k], .problem = &rows[i]->problem};
        at[k++] = i;
    }
    return k;
}

/* jobs[0..k) timed side by side (hs_final_with) into out; timed again, up to
 * TRIES times in all, while any of their timings was taken on a busy machine
 * (another process had the CPU: a load that comes and goes slows some of the
 * group and not the anchor alike), keeping the try with the fewest. Returns
 * how many of out's timings were busy. */
static size_t time_group(const hs_job *jobs, size_t k, const hs_final_opts *o,
                         ms_measurement *out)
{
    size_t least = SIZE_MAX;
    for (int t = 0; t < TRIES && least > 0; t++) {
        ms_measurement got[HS_FINAL_MAX];
        char workdir[] = "/tmp/nt_bench_anchor_XXXXXX", err[256];
        if (!mkdtemp(workdir))
            fail("cannot make a work directory in /tmp");
        bool ran = hs_final_with(jobs, k, workdir, TIMEOUT, o, got, err, sizeof err);
        rmdir(workdir);
        if (!ran)
            fail(err);
        size_t busy = 0;
        for (size_t j = 0; j < k; j++)
            busy += got[j].status == MS_OK && got[j].busy;
        if (busy < least) {
            least = busy;
            memcpy(out, got, k * sizeof *out);
        }
    }
    return least;
}

/* Group g of a shape (group_jobs) timed (time_group): status[i] and ratio[i]
 * (over the anchor's time) of its rows, which go to at (room for
 * HS_FINAL_MAX); *k how many. Returns the anchor's time. */
static double run_group(const rs_entry *const *rows, size_t n, size_t anchor, int group, size_t g,
                        const hs_final_opts *o, ms_status *status, double *ratio, size_t *at,
                        size_t *k, size_t *busy)
{
    hs_job jobs[HS_FINAL_MAX];
    char syms[HS_FINAL_MAX][16], cfg[96];
    ms_measurement out[HS_FINAL_MAX];
    *k = group_jobs(rows, n, anchor, group, g, status, jobs, syms, at);
    *busy += time_group(jobs, *k, o, out);
    for (size_t j = 0; j < *k; j++)
        free((char *)jobs[j].source);
    if (out[0].status != MS_OK) {
        char msg[1024];
        snprintf(msg, sizeof msg, "the anchor '%s' did not measure: %s: %s",
                 config_text(&rows[anchor]->config, cfg, sizeof cfg),
                 ms_status_name(out[0].status), out[0].detail);
        fail(msg);
    }
    for (size_t j = 0; j < *k; j++) {
        status[at[j]] = out[j].status;
        ratio[at[j]] = out[j].value / out[0].value;
    }
    return out[0].value;
}

/* |log(a / b)|: how far apart two times are. */
static double apart(double a, double b)
{
    return fabs(log(a / b));
}

/* One shape's configs rows[0..n) measured in groups beside rows[anchor]:
 * status[i], and ratio[i] its time over the anchor's in its group (the
 * anchor's: 1); the anchor's time in each group into anchor_s (one a
 * group; room for n). A group whose anchor was more than ANCHOR_OFF off its
 * median over the groups (something slowed the anchor and not the group
 * alike, or the group and not the anchor) is timed again, TRIES times in
 * all, keeping the try whose anchor was closest. Returns the groups; *busy
 * counts the timings taken on a busy machine that were kept, *off the
 * groups whose anchor stayed off. */
static size_t measure_shape(const rs_entry *const *rows, size_t n, size_t anchor, int group,
                            const hs_final_opts *o, ms_status *status, double *ratio,
                            double *anchor_s, size_t *busy, size_t *off)
{
    size_t groups = n < 2 ? 1 : (n - 1 + (size_t)group - 2) / ((size_t)group - 1);
    size_t at[HS_FINAL_MAX], k;
    for (size_t g = 0; g < groups; g++)
        anchor_s[g] = run_group(rows, n, anchor, group, g, o, status, ratio, at, &k, busy);
    double *sorted = malloc(groups * sizeof *sorted), *again = malloc(n * sizeof *again);
    ms_status *st = malloc(n * sizeof *st);
    if (!sorted || !again || !st)
        fail("out of memory");
    memcpy(sorted, anchor_s, groups * sizeof *sorted);
    double med = bench_sorted_median(sorted, groups);
    for (size_t g = 0; g < groups; g++) {
        for (int t = 1; t < TRIES && apart(anchor_s[g], med) > log1p(ANCHOR_OFF); t++) {
            size_t b = 0;
            double a = run_group(rows, n, anchor, group, g, o, st, again, at, &k, &b);
            if (apart(a, med) >= apart(anchor_s[g], med))
                continue;
            anchor_s[g] = a;
            *busy += b;
            for (size_t j = 0; j < k; j++)
                status[at[j]] = st[at[j]], ratio[at[j]] = again[at[j]];
        }
        *off += apart(anchor_s[g], med) > log1p(ANCHOR_OFF);
    }
    free(sorted), free(again), free(st);
    ratio[anchor] = 1;
    return groups;
}

/* A positive integer option's value in [lo, hi], else usage. */
static bool int_arg(const char *s, int lo, int hi, int *v)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end || x < lo || x > hi)
        return false;
    *v = (int)x;
    return true;
}

int main(int argc, char **argv)
{
    int group = HS_FINAL_MAX, rounds = ROUNDS, a = 1;
    for (; a + 1 < argc && strncmp(argv[a], "--", 2) == 0; a += 2)
        if (!(strcmp(argv[a], "--group") == 0 && int_arg(argv[a + 1], 2, HS_FINAL_MAX, &group)) &&
            !(strcmp(argv[a], "--rounds") == 0 && int_arg(argv[a + 1], 1, 200, &rounds)))
            return usage();
    if (argc - a != 2)
        return usage();
    const char *draw_path = argv[a], *out_path = argv[a + 1];
    gsl_set_error_handler_off();
    char err[1024];
    rs_cache *draw;
    rs_signature sig;
    if (!rs_journal_read(draw_path, true, &draw, err, sizeof err) ||
        !rs_journal_signature(draw_path, &sig, err, sizeof err))
        fail(err);
    snprintf(sig.measure, sizeof sig.measure, "host"); /* the draw's, timed on this host */
    if (access(out_path, F_OK) == 0) {
        snprintf(err, sizeof err, "'%s' exists: remove it (and its .sig) first", out_path);
        fail(err);
    }
    size_t n = rs_cache_size(draw);
    const rs_entry **rows = malloc((n ? n : 1) * sizeof *rows);
    ms_status *status = malloc((n ? n : 1) * sizeof *status);
    double *ratio = malloc((n ? n : 1) * sizeof *ratio), *ref = malloc((n ? n : 1) * sizeof *ref),
           *anchor_s = malloc((n ? n : 1) * sizeof *anchor_s);
    size_t *anchor = malloc((n ? n : 1) * sizeof *anchor), busy = 0, off = 0;
    if (!rows || !status || !ratio || !ref || !anchor_s || !anchor)
        fail("out of memory");
    hs_final_opts o = {.rounds = rounds};
    /* Every shape measured first, then the journal written: a failure or a kill
     * leaves no half of it. rows[] holds the shapes one after the other. */
    size_t shapes = 0, used = 0, start[64], count[64];
    for (size_t i = 0; i < n; i++) {
        const rs_entry *p = rs_cache_entry(draw, i);
        bool seen = false;
        for (size_t s = 0; s < shapes && !seen; s++)
            seen = sp_problem_cmp(&rows[start[s]]->problem, &p->problem, true) == 0;
        size_t m = seen ? 0 : rows_of(draw, p, rows + used);
        if (m == 0)
            continue;
        if (shapes == sizeof start / sizeof *start)
            fail("more than 64 shapes");
        start[shapes] = used, count[shapes] = m;
        double t0 = bs_now();
        anchor[shapes] = used + anchor_of(rows + used, m);
        size_t g = measure_shape(rows + used, m, anchor[shapes] - used, group, &o, status + used,
                                 ratio + used, anchor_s, &busy, &off);
        char shape[SP_SHAPE_MAX], cfg[96];
        sp_problem_shape(&p->problem, shape, sizeof shape);
        ref[shapes] = bench_sorted_median(anchor_s, g); /* sorted: the first is the fastest */
        printf("%-16s %zu configs in %zu group%s beside the anchor %s: its time %.4g s, over the "
               "groups %.3f to %.3f of that (%.0f s)\n",
               shape, m, g, g == 1 ? "" : "s",
               config_text(&rows[anchor[shapes]]->config, cfg, sizeof cfg), ref[shapes],
               anchor_s[0] / ref[shapes], anchor_s[g - 1] / ref[shapes], bs_now() - t0);
        fflush(stdout);
        used += m, shapes++;
    }
    if (busy)
        fprintf(stderr, WHO ": warning: %zu of %zu timings were taken on a busy machine (the "
                "kernel's threads waited for a CPU) in %d tries of their group; their ratios may "
                "be far off\n", busy, used, TRIES);
    if (off)
        fprintf(stderr, WHO ": warning: in %zu group%s the anchor's time stayed more than %.0f%% "
                "off its median over its shape's groups in %d tries: something slowed the group "
                "unevenly; their ratios may be off\n", off, off == 1 ? "" : "s", 100 * ANCHOR_OFF,
                TRIES);
    rs_cache *old;
    rs_journal *j = rs_journal_open(out_path, &sig, &old, err, sizeof err);
    if (!j)
        fail(err);
    rs_cache_free(old);
    for (size_t s = 0; s < shapes; s++)
        for (size_t i = start[s]; i < start[s] + count[s]; i++) {
            const rs_entry *e = rows[i];
            sp_candidate cand = {.config = e->config,
                                 .fig = {.load_elems = e->load_elems, .est_cycles = e->est_cycles}};
            rs_row row = {.problem = &e->problem, .target = e->target, .cand = &cand,
                          .backend = "host", .status = ms_status_name(status[i]),
                          .measured = status[i] == MS_OK ? ratio[i] * ref[s] : 0, .unit = "s",
                          .round = "search", .node = *e->node ? e->node : NULL};
            if (!rs_journal_append(j, &row, err, sizeof err))
                fail(err);
        }
    if (!rs_journal_close(j, err, sizeof err))
        fail(err);
    free(rows), free(status), free(ratio), free(ref), free(anchor_s), free(anchor);
    rs_cache_free(draw);
    return 0;
}
