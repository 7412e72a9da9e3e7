/* bench_host_anchor.c — a sample of host configs timed so that the machine's drift cannot
 * rank it: each config side by side with one anchor config of its shape, round by round. */
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
 * final (11): the anchor cancels what the rounds would average away. The
 * anchor runs ANCHORS times in a round, its copies spread over the round's
 * order (which turns by one each round), so every config runs near one;
 * its time in a round is the geometric mean of theirs. A config's figure is
 * the median over the rounds of its time over the anchor's in the same
 * round (PAIRED; else its median time over the anchor's median). Measured
 * on 512x3072x768, the mean Spearman of three runs' figures for the same
 * 150 configs taken pairwise, 7 rounds: 0.78 with one anchor and the ratio
 * of medians; 0.87 paired with one anchor; 0.91 paired with two (a group
 * more per shape: ~10% more time; paired with one anchor and 8 rounds, as
 * long: 0.88). 200x1000x64: 0.99 with each. A group with timings on a busy
 * machine, or whose anchor's time is off (see measure_shape), is timed
 * again, TRIES times at most. */
enum { ROUNDS = 7, TRIES = 3, ANCHORS = 2, PAIRED = 1 };
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
            "usage: bench_host_anchor [--group N] [--rounds R] [--anchors A] [--figure F]\n"
            "                         [--rounds-csv ROUNDS.csv] DRAW.csv OUT.csv\n"
            "  times DRAW.csv's configs (a journal's ok rows, e.g. a random draw with the model\n"
            "  backend) on this host, per shape in groups of N - A configs side by side with A\n"
            "  copies of the anchor (the config of median estimate), N from A + 1 to %d\n"
            "  (default), A 1 or 2 (default %d), R rounds each (default %d); writes the new\n"
            "  journal OUT.csv: a config's time is its ratio to the anchor of its group times\n"
            "  the anchor's median time over the shape's groups; the ratio F is 'paired' (the\n"
            "  median over the rounds of the ratio in each round) or 'medians' (of the median\n"
            "  times; default %s); ROUNDS.csv (new) gets every kept round's times\n",
            HS_FINAL_MAX, ANCHORS, ROUNDS, PAIRED ? "paired" : "medians");
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

/* How the groups are timed: their size, the anchor's copies, the figure, hs_final's rounds. */
typedef struct {
    int group, anchors;
    bool paired;
    hs_final_opts o;
} protocol;

/* A group's timing as kept: its k jobs' rows (at: the anchor's for its copies)
 * and their samples of each round (round_s of hs_final_opts). */
typedef struct {
    size_t k, at[HS_FINAL_MAX];
    int rounds;
    double s[HS_FINAL_MAX * HS_FINAL_ROUNDS];
} group_rounds;

/* Group g of one shape: up to pr->group - pr->anchors of the rows other than
 * rows[anchor] in their order, with pr->anchors copies of the anchor spread
 * over them, the first copy first (copies alone when the anchor is the only
 * row); their kernels into jobs (syms: the symbols) and their rows into at. A
 * config that generates no kernel gets status illegal and is left out.
 * Returns how many jobs. */
static size_t group_jobs(const rs_entry *const *rows, size_t n, size_t anchor, const protocol *pr,
                         size_t g, ms_status *status, hs_job *jobs, char (*syms)[16], size_t *at)
{
    size_t per = (size_t)(pr->group - pr->anchors), others[HS_FINAL_MAX], m = 0;
    for (size_t q = 0; q < per && g * per + q < n - 1; q++) {
        size_t o = g * per + q;
        others[m++] = o < anchor ? o : o + 1;
    }
    size_t total = m + (size_t)pr->anchors, k = 0, next = 0, copy = 0;
    char why[512], cfg[96];
    for (size_t q = 0; q < total; q++) {
        bool is_anchor = copy < (size_t)pr->anchors && q == copy * total / (size_t)pr->anchors;
        size_t i = is_anchor ? anchor : others[next++];
        copy += is_anchor;
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
        jobs[k] = (hs_job){.source = text, .symbol = syms[k], .problem = &rows[i]->problem,
                           .threads = rows[i]->config.cores};
        at[k++] = i;
    }
    return k;
}

/* jobs[0..k) timed side by side (hs_final_with) into out, their rounds into
 * round_s; timed again, up to TRIES times in all, while any of their timings
 * was taken on a busy machine (another process had the CPU: a load that
 * comes and goes slows some of the group and not the anchor alike), keeping
 * the try with the fewest. Returns how many of out's timings were busy. */
static size_t time_group(const hs_job *jobs, size_t k, const hs_final_opts *o,
                         ms_measurement *out, double *round_s)
{
    size_t least = SIZE_MAX;
    static double got_s[HS_FINAL_MAX * HS_FINAL_ROUNDS];
    hs_final_opts with = *o;
    with.round_s = got_s;
    for (int t = 0; t < TRIES && least > 0; t++) {
        ms_measurement got[HS_FINAL_MAX];
        char workdir[] = "/tmp/nt_bench_anchor_XXXXXX", err[256];
        if (!mkdtemp(workdir))
            fail("cannot make a work directory in /tmp");
        bool ran = hs_final_with(jobs, k, workdir, TIMEOUT, &with, got, err, sizeof err);
        rmdir(workdir);
        if (!ran)
            fail(err);
        size_t busy = 0;
        for (size_t j = 0; j < k; j++)
            busy += got[j].status == MS_OK && got[j].busy;
        if (busy < least) {
            least = busy;
            memcpy(out, got, k * sizeof *out);
            memcpy(round_s, got_s, k * HS_FINAL_ROUNDS * sizeof *round_s);
        }
    }
    return least;
}

/* Group g of a shape (group_jobs) timed (time_group) into *gr: status[i] and
 * ratio[i] (over the anchor's time, as pr->paired says) of its rows. The
 * anchor's time in a round is the geometric mean of its copies'. Returns the
 * anchor's time: its median over the rounds. */
static double run_group(const rs_entry *const *rows, size_t n, size_t anchor, const protocol *pr,
                        size_t g, ms_status *status, double *ratio, group_rounds *gr,
                        size_t *busy)
{
    hs_job jobs[HS_FINAL_MAX];
    char syms[HS_FINAL_MAX][16], cfg[96];
    ms_measurement out[HS_FINAL_MAX];
    gr->k = group_jobs(rows, n, anchor, pr, g, status, jobs, syms, gr->at);
    *busy += time_group(jobs, gr->k, &pr->o, out, gr->s);
    for (size_t j = 0; j < gr->k; j++)
        free((char *)jobs[j].source);
    for (size_t j = 0; j < gr->k; j++)
        if (gr->at[j] == anchor && out[j].status != MS_OK) {
            char msg[1024];
            snprintf(msg, sizeof msg, "the anchor '%s' did not measure: %s: %s",
                     config_text(&rows[anchor]->config, cfg, sizeof cfg),
                     ms_status_name(out[j].status), out[j].detail);
            fail(msg);
        }
    gr->rounds = out[0].nsamples;
    double ref[HS_FINAL_ROUNDS], q[HS_FINAL_ROUNDS];
    for (int r = 0; r < gr->rounds; r++) {
        double logs = 0;
        for (size_t j = 0; j < gr->k; j++)
            if (gr->at[j] == anchor)
                logs += log(gr->s[j * HS_FINAL_ROUNDS + (size_t)r]) / pr->anchors;
        ref[r] = q[r] = exp(logs);
    }
    double anchor_time = bench_sorted_median(q, (size_t)gr->rounds);
    for (size_t j = 0; j < gr->k; j++) {
        status[gr->at[j]] = out[j].status;
        if (out[j].status != MS_OK)
            continue;
        for (int r = 0; r < gr->rounds; r++)
            q[r] = gr->s[j * HS_FINAL_ROUNDS + (size_t)r] / ref[r];
        ratio[gr->at[j]] = pr->paired ? bench_sorted_median(q, (size_t)gr->rounds)
                                      : out[j].value / anchor_time;
    }
    return anchor_time;
}

/* |log(a / b)|: how far apart two times are. */
static double apart(double a, double b)
{
    return fabs(log(a / b));
}

/* One shape's configs rows[0..n) measured in groups beside rows[anchor]:
 * status[i], and ratio[i] its time over the anchor's in its group (the
 * anchor's: 1); the anchor's time in each group into anchor_s and the kept
 * timing of each group into gr (one a group; room for n). A group whose
 * anchor was more than ANCHOR_OFF off its median over the groups (something
 * slowed the anchor and not the group alike, or the group and not the
 * anchor) is timed again, TRIES times in all, keeping the try whose anchor
 * was closest. Returns the groups; *busy counts the timings taken on a busy
 * machine that were kept, *off the groups whose anchor stayed off. */
static size_t measure_shape(const rs_entry *const *rows, size_t n, size_t anchor,
                            const protocol *pr, ms_status *status, double *ratio,
                            double *anchor_s, group_rounds *gr, size_t *busy, size_t *off)
{
    size_t per = (size_t)(pr->group - pr->anchors);
    size_t groups = n < 2 ? 1 : (n - 1 + per - 1) / per;
    for (size_t g = 0; g < groups; g++)
        anchor_s[g] = run_group(rows, n, anchor, pr, g, status, ratio, &gr[g], busy);
    double *sorted = malloc(groups * sizeof *sorted), *again = malloc(n * sizeof *again);
    ms_status *st = malloc(n * sizeof *st);
    group_rounds *try = malloc(sizeof *try);
    if (!sorted || !again || !st || !try)
        fail("out of memory");
    memcpy(sorted, anchor_s, groups * sizeof *sorted);
    double med = bench_sorted_median(sorted, groups);
    for (size_t g = 0; g < groups; g++) {
        for (int t = 1; t < TRIES && apart(anchor_s[g], med) > log1p(ANCHOR_OFF); t++) {
            size_t b = 0;
            double a = run_group(rows, n, anchor, pr, g, st, again, try, &b);
            if (apart(a, med) >= apart(anchor_s[g], med))
                continue;
            anchor_s[g] = a;
            *busy += b;
            gr[g] = *try;
            for (size_t j = 0; j < try->k; j++)
                status[try->at[j]] = st[try->at[j]], ratio[try->at[j]] = again[try->at[j]];
        }
        *off += apart(anchor_s[g], med) > log1p(ANCHOR_OFF);
    }
    free(sorted), free(again), free(st), free(try);
    ratio[anchor] = 1;
    return groups;
}

/* Whether a file can be made at path: it is not empty and its directory
 * exists and is writable. */
static bool can_create(const char *path)
{
    char dir[4096];
    if (!*path || snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return false;
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir) /* "/name": the root */
        dir[1] = '\0';
    else
        *slash = '\0';
    return access(dir, W_OK | X_OK) == 0;
}

/* Every kept round of a shape's groups gr[0..groups) as CSV lines into f:
 * the shape, the config's row among the shape's (0: its first), the group,
 * the job's index in it (0: the anchor's first copy; the order of the jobs
 * turns by one each round, the untimed first round included), whether it is
 * the anchor, the round, the sample's seconds. */
static void write_rounds(FILE *f, const char *shape, const group_rounds *gr, size_t groups,
                         size_t anchor)
{
    for (size_t g = 0; g < groups; g++)
        for (size_t j = 0; j < gr[g].k; j++)
            for (int r = 0; r < gr[g].rounds; r++) {
                double v = gr[g].s[j * HS_FINAL_ROUNDS + (size_t)r];
                if (!isnan(v))
                    fprintf(f, "%s,%zu,%zu,%zu,%d,%d,%.9g\n", shape, gr[g].at[j], g, j,
                            gr[g].at[j] == anchor, r, v);
            }
}

/* bs_write_atomic's writer of a text held in memory. */
static bool write_text(FILE *f, void *ctx)
{
    return fputs(ctx, f) >= 0;
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
    protocol pr = {.group = HS_FINAL_MAX, .anchors = ANCHORS, .paired = PAIRED,
                   .o = {.rounds = ROUNDS}};
    const char *rounds_path = NULL;
    int a = 1;
    for (; a + 1 < argc && strncmp(argv[a], "--", 2) == 0; a += 2) {
        const char *opt = argv[a], *v = argv[a + 1];
        if (strcmp(opt, "--figure") == 0 && (strcmp(v, "paired") == 0 || strcmp(v, "medians") == 0))
            pr.paired = strcmp(v, "paired") == 0;
        else if (strcmp(opt, "--rounds-csv") == 0)
            rounds_path = v;
        else if (!(strcmp(opt, "--group") == 0 && int_arg(v, 2, HS_FINAL_MAX, &pr.group)) &&
                 !(strcmp(opt, "--rounds") == 0 && int_arg(v, 1, HS_FINAL_ROUNDS, &pr.o.rounds)) &&
                 !(strcmp(opt, "--anchors") == 0 && int_arg(v, 1, 2, &pr.anchors)))
            return usage();
    }
    if (argc - a != 2 || pr.group <= pr.anchors)
        return usage();
    const char *draw_path = argv[a], *out_path = argv[a + 1];
    gsl_set_error_handler_off();
    char err[1024];
    bs_file files[] = {{"draw", draw_path, false}, {"journal", out_path, true},
                       {"rounds file", rounds_path, true}};
    if (!bs_paths_distinct(files, 3, err, sizeof err))
        fail(err);
    if (rounds_path && access(rounds_path, F_OK) == 0) {
        snprintf(err, sizeof err, "'%s' exists: remove it first", rounds_path);
        fail(err);
    }
    if (rounds_path && !can_create(rounds_path)) {
        snprintf(err, sizeof err, "cannot write '%s': its directory is missing or read-only",
                 rounds_path);
        fail(err);
    }
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
    /* a shape's groups: ceil((rows - 1) / configs per group) at most */
    group_rounds *gr = malloc((n / (size_t)(pr.group - pr.anchors) + 2) * sizeof *gr);
    char *text = NULL;
    size_t text_len = 0;
    FILE *rounds_f = rounds_path ? open_memstream(&text, &text_len) : NULL;
    if (!rows || !status || !ratio || !ref || !anchor_s || !anchor || !gr ||
        (rounds_path && !rounds_f))
        fail("out of memory");
    if (rounds_f)
        fputs("shape,row,group,job,anchor,round,seconds\n", rounds_f);
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
        size_t g = measure_shape(rows + used, m, anchor[shapes] - used, &pr, status + used,
                                 ratio + used, anchor_s, gr, &busy, &off);
        char shape[SP_SHAPE_MAX], cfg[96];
        sp_problem_shape(&p->problem, shape, sizeof shape);
        if (rounds_f)
            write_rounds(rounds_f, shape, gr, g, anchor[shapes] - used);
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
    /* the rounds first: a journal is left only beside its rounds */
    if (rounds_f && fclose(rounds_f))
        fail("out of memory");
    if (rounds_f && !bs_write_atomic(rounds_path, write_text, text, err, sizeof err))
        fail(err);
    rs_cache *old;
    rs_journal_opts jo = {0}; /* the pack column when a row needs it */
    for (size_t i = 0; i < used; i++)
        jo.pack |= rows[i]->config.nopack;
    rs_journal *j = rs_journal_open_with(out_path, &sig, &jo, &old, err, sizeof err);
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
    free(text), free(gr);
    free(rows), free(status), free(ratio), free(ref), free(anchor_s), free(anchor);
    rs_cache_free(draw);
    return 0;
}
