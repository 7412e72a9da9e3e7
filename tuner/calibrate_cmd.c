/* calibrate_cmd.c — `npu-tune calibrate JOURNAL.csv... [-o TARGET.lua]`: the
 * model's figures fitted to the journals' measurements (results/calibrate.c). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "results.h"
#include "script.h"
#include "tuner.h"

static const char usage_text[] =
    "usage: npu-tune calibrate JOURNAL.csv... [-o TARGET.lua] [--target T] [--name NAME]\n"
    "                          [--fit FIGURE,...] [--holdout F] [--holdout-shapes]\n"
    "                          [--seed S] [--iterations N] [--prior SD] [--relative]\n"
    "  fits the model's rates and latencies to the journals' ok measurements (one target\n"
    "  and backend) and prints each figure with its 95% interval and the model's accuracy\n"
    "  on held-out rows before and after; -o writes the fitted target for `target \"FILE\"`\n"
    "  -o TARGET.lua      write the fitted target there (nothing when the fit fails)\n"
    "  --target T         the figures to start from: a built-in target or a target file\n"
    "                     (default: the journals' target, which must have their signature)\n"
    "  --name NAME        the fitted target's name (default: TARGET-calibrated)\n"
    "  --fit F,...        fit exactly these figures, each to be identifiable (default: those\n"
    "                     the rows pin down; the others are kept and named)\n"
    "  --holdout F        the share of rows held out to judge the fit (default 0.25; 0: none,\n"
    "                     judged on the fitted rows)\n"
    "  --holdout-shapes   hold out that share of whole shapes instead of rows\n"
    "  --seed S           which rows or shapes are held out (default 1)\n"
    "  --iterations N     the fit's iterations at most (default 100)\n"
    "  --prior SD         hold each figure near its start: a log-normal prior of this sd\n"
    "                     (of the natural log; 0.5: a factor of 1.65), weighed against rows\n"
    "                     that scatter by 3%; few rows then move the figures little (a run's\n"
    "                     tune { calibrate = true } refits with 0.5; default 0: none)\n"
    "  --relative         fit how each shape's configs rank, not the shape's level: each\n"
    "                     row's log(estimate/measured) counts less its shape's mean, so a\n"
    "                     shape the model misses as a whole (or measured while the machine\n"
    "                     ran slower) does not pull the figures; the clock is kept\n";

static int usage(const char *why) { return tn_usage("calibrate", usage_text, why); }

/* What the journals share: the first ok row's target, backend and unit. */
typedef struct {
    char target[SP_NAME_MAX], backend[32], unit[8];
    const char *path;
} origin;

/* Reads journal i's origin; false with the reason in err. Its rows are kept
 * in *cache. */
static bool origin_of(const char *path, rs_cache **cache, origin *o, char *err, size_t errlen)
{
    if (!rs_journal_read(path, true, cache, err, errlen))
        return false;
    rs_cache_apply_verdicts(*cache);
    memset(o, 0, sizeof *o);
    o->path = path;
    for (size_t i = 0; i < rs_cache_size(*cache); i++) {
        const rs_entry *e = rs_cache_entry(*cache, i);
        if (!o->target[0]) {
            snprintf(o->target, sizeof o->target, "%s", e->target);
            snprintf(o->backend, sizeof o->backend, "%s", e->backend);
        }
        if (strcmp(e->status, "ok") == 0) {
            snprintf(o->unit, sizeof o->unit, "%s", e->unit);
            break;
        }
    }
    return true;
}

/* The start target: --target, else the journals' own, signed as they were,
 * with the clock the run had (a CPU's is measured at each run, so that two
 * calls on one journal would start, and end, apart). */
static bool start_target(const char *given, const origin *o, sp_target *t, char *err,
                         size_t errlen)
{
    char why[1024];
    if (!ls_builtin_target(given ? given : o->target, t, why, sizeof why)) {
        if (given)
            snprintf(err, errlen, "--target: %s", why);
        else
            snprintf(err, errlen, "%s was measured on target %s: %s; give its figures with "
                     "--target FILE.lua", o->path, o->target, why);
        return false;
    }
    if (given)
        return true;
    char sigpath[4096];
    snprintf(sigpath, sizeof sigpath, "%s.sig", o->path);
    if (access(sigpath, F_OK) != 0) /* no sidecar: nothing to check against */
        return true;
    rs_signature sig;
    if (!rs_journal_signature(o->path, &sig, err, errlen))
        return false;
    char text[SP_SIGNATURE_MAX], hex[17];
    bs_hash_hex(text, sp_target_signature(t, text), hex);
    if (strcmp(hex, sig.target_sig) != 0) {
        snprintf(err, errlen, "%s was measured on target %s signed %s, the target %s here is "
                 "signed %s (other figures): give the one it was measured on with --target "
                 "FILE.lua", o->path, sig.target, sig.target_sig, t->name, hex);
        return false;
    }
    if (!sig.clock_mhz[0]) /* written before the sidecar had it */
        return true;
    char *end;
    errno = 0;
    double mhz = strtod(sig.clock_mhz, &end);
    if (errno || *end || !(mhz >= 1 && mhz <= 1e5)) {
        snprintf(err, errlen, "%s.sig: clock_mhz '%s' is not a clock in MHz (1 to 100000)",
                 o->path, sig.clock_mhz);
        return false;
    }
    t->clock_mhz = mhz;
    return true;
}

/* Every ok row of the journals must be legal on the start target. */
static bool legal_rows(rs_cache *const *caches, const char *const *paths, size_t n,
                       const sp_target *t, char *err, size_t errlen)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < rs_cache_size(caches[j]); i++) {
            const rs_entry *e = rs_cache_entry(caches[j], i);
            char why[512];
            if (strcmp(e->status, "ok") != 0 || sp_check(t, &e->problem, &e->config) == 0)
                continue;
            sp_explain_line(t, &e->problem, &e->config, why, sizeof why);
            snprintf(err, errlen, "%s:%ld: the config is not legal on target %s: %s", paths[j],
                     e->line, t->name, why);
            return false;
        }
    return true;
}

/* Splits "a,b,c" (modified) into names[0..*n). */
static bool split_names(char *s, const char **names, size_t *n)
{
    *n = 0;
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (*n == RS_FIT_MAX)
            return false;
        names[(*n)++] = tok;
    }
    return *n > 0;
}

/* How much worse the fit may rank the held-out rows than the start before
 * calibrate warns: below, the difference is that of a few rows' order. */
#define RANK_SLACK 0.02

static void fidelity_line(const char *what, const rs_fidelity *f)
{
    char sp[16] = "-", kt[16] = "-";
    if (isfinite(f->spearman))
        snprintf(sp, sizeof sp, "%.4f", f->spearman);
    if (isfinite(f->kendall))
        snprintf(kt, sizeof kt, "%.4f", f->kendall);
    printf("  %-8s %8s %8s %8.2f%% %8.2f%% %8.2f%% %7.3f\n", what, sp, kt, 100 * f->regret,
           100 * f->error_median, 100 * f->error_p90, f->bias);
}

/* Whether sp_target_fields[field] is among list[0..n). */
static bool listed(const int *list, size_t n, int field)
{
    for (size_t j = 0; j < n; j++)
        if (list[j] == field)
            return true;
    return false;
}

static void print_fit(const rs_fit *fit, const sp_target *start, const origin *o, size_t njournals,
                      const rs_fit_opts *opts)
{
    printf("calibrated %s from %zu row%s of %zu shape%s in %zu journal%s (%s, %s): fitted %zu%s, "
           "held out %zu%s\n",
           start->name, fit->rows, fit->rows == 1 ? "" : "s", fit->shapes,
           fit->shapes == 1 ? "" : "s", njournals, njournals == 1 ? "" : "s", o->backend, o->unit,
           fit->fit_rows, opts->relative ? " relative to each shape's level" : "", fit->held_rows,
           fit->held_rows ? (opts->by_shape ? " (whole shapes)" : "") : "");
    printf("\n  %-22s %12s %12s   %s\n", "figure", "start", "fitted", "95% interval");
    for (size_t j = 0; j < fit->nfig; j++) {
        const rs_fit_figure *f = &fit->fig[j];
        printf("  %-22s %12.6g %12.6g   %.6g to %.6g\n", sp_target_fields[f->field].name,
               f->start, f->value, f->lo, f->hi);
    }
    size_t shown = 0;
    for (size_t j = 0; j < fit->nkept; j++) {
        int f = fit->kept[j];
        if (listed(fit->lowered, fit->nlowered, f) || listed(fit->past, fit->npast, f))
            continue;
        printf("%s %s", shown++ ? "," : "  kept as they are (the rows do not pin them down):",
               sp_target_fields[f].name);
    }
    if (shown)
        printf("\n");
    for (size_t j = 0; j < fit->npast; j++)
        if (!listed(fit->lowered, fit->nlowered, fit->past[j]))
            printf("  %s kept as it is: the rows put it past %s\n",
                   sp_target_fields[fit->past[j]].name, sp_target_fields[fit->past_of[j]].name);
    for (size_t j = 0; j < fit->nlowered; j++)
        printf("  %s lowered to %.6g: no faster than the fitted %s\n",
               sp_target_fields[fit->lowered[j]].name,
               sp_target_figure(&fit->target, fit->lowered[j]),
               sp_target_fields[fit->lowered_by[j]].name);
    printf("\n  converged in %zu iterations; weighted rms of log(estimate/measured)%s on the "
           "fitted rows: %.4f before, %.4f after\n", fit->iterations,
           opts->relative ? " less its shape's mean" : "", fit->rms_before, fit->rms_after);
    printf("\n  %s rows (%zu):\n", fit->in_sample ? "the fitted" : "held-out",
           fit->in_sample ? fit->fit_rows : fit->held_rows);
    printf("  %-8s %8s %8s %9s %9s %9s %7s\n", "", "spearman", "kendall", "regret", "err_med",
           "err_p90", "bias");
    fidelity_line("start", &fit->before);
    fidelity_line("fitted", &fit->after);
}

/* The target file's comment and the fitted figures' notes. */
static bool write_target(const char *path, const rs_fit *fit, const sp_target *start,
                         char *const *journals, size_t n, char *err, size_t errlen)
{
    char comment[1024], notes[2 * RS_FIT_MAX][128];
    const char *note[SP_TARGET_NFIELDS] = {0};
    int w = snprintf(comment, sizeof comment,
                     "%s: %s with its rates fitted by npu-tune calibrate to %zu rows of",
                     fit->target.name, start->name, fit->fit_rows);
    for (size_t i = 0; i < n && w > 0 && (size_t)w < sizeof comment; i++)
        w += snprintf(comment + w, sizeof comment - (size_t)w, " %s", journals[i]);
    for (size_t j = 0; j < fit->nfig; j++) {
        const rs_fit_figure *f = &fit->fig[j];
        snprintf(notes[j], sizeof notes[j], "fitted: start %.6g, 95%% interval %.6g to %.6g",
                 f->start, f->lo, f->hi);
        note[f->field] = notes[j];
    }
    for (size_t j = 0; j < fit->nlowered; j++) {
        snprintf(notes[fit->nfig + j], sizeof notes[0], "lowered from %.6g: no faster than %s",
                 sp_target_figure(start, fit->lowered[j]),
                 sp_target_fields[fit->lowered_by[j]].name);
        note[fit->lowered[j]] = notes[fit->nfig + j];
    }
    return ls_target_write(path, &fit->target, comment, note, err, errlen);
}

/* npu-tune calibrate JOURNAL.csv... [options] */
int tn_calibrate(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"target", required_argument, 0, 't'},
        {"name", required_argument, 0, 'n'},   {"fit", required_argument, 0, 'f'},
        {"holdout", required_argument, 0, 'H'}, {"holdout-shapes", no_argument, 0, 'S'},
        {"seed", required_argument, 0, 's'},   {"iterations", required_argument, 0, 'i'},
        {"prior", required_argument, 0, 'p'},  {"relative", no_argument, 0, 'R'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    rs_fit_opts fo = {.holdout = 0.25, .seed = 1};
    const char *output = NULL, *target = NULL, *name = NULL, *fields[RS_FIT_MAX];
    char why[256], *end;
    int o;
    opterr = 0;
    optind = 1;
    while ((o = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (o) {
        case 'o': output = optarg; break;
        case 't': target = optarg; break;
        case 'n': name = optarg; break;
        case 'f':
            if (!split_names(optarg, fields, &fo.nfields))
                return usage("--fit takes 1 to 24 figures, comma-separated");
            fo.fields = fields;
            break;
        case 'H':
        case 'p': {
            errno = 0;
            double v = strtod(optarg, &end);
            bool bad = errno || *end || end == optarg ||
                       !(o == 'H' ? v >= 0 && v < 1 : v >= 0 && v <= 100);
            if (bad) {
                snprintf(why, sizeof why, "%s '%s' must be %s", o == 'H' ? "--holdout" : "--prior",
                         optarg, o == 'H' ? "a share from 0 to below 1" : "an sd from 0 to 100");
                return usage(why);
            }
            *(o == 'H' ? &fo.holdout : &fo.prior) = v;
            break;
        }
        case 'S': fo.by_shape = true; break;
        case 'R': fo.relative = true; break;
        case 's':
        case 'i': {
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            bool bad = errno || *end || end == optarg || *optarg == '-' ||
                       (o == 'i' && (v < 1 || v > 100000));
            if (bad) {
                snprintf(why, sizeof why, "%s '%s' must be %s", o == 's' ? "--seed" : "--iterations",
                         optarg, o == 's' ? "a non-negative integer" : "an integer from 1 to 100000");
                return usage(why);
            }
            if (o == 's')
                fo.seed = (unsigned long)v;
            else
                fo.iterations = (size_t)v;
            break;
        }
        case 'h': return usage(NULL);
        default:
            snprintf(why, sizeof why, "unknown or incomplete option '%s'", argv[optind - 1]);
            return usage(why);
        }
    }
    if (optind >= argc)
        return usage("a JOURNAL.csv is required");
    if (fo.by_shape && fo.holdout == 0)
        return usage("--holdout-shapes needs a share above 0 (--holdout)");
    if (name && !sp_label_ok(name, strlen(name)))
        return usage("--name must be 1 to 40 characters from A-Z a-z 0-9 _ . -");
    if (output && !ls_target_path(output))
        return usage("-o must name a target file ending in .lua (scripts load it by that)");

    size_t n = (size_t)(argc - optind);
    char *const *paths = argv + optind;
    char err[LS_ERR_MAX] = "";
    int rc = TN_ERROR;
    bs_file *files = calloc(n + 2, sizeof *files);
    rs_cache **caches = calloc(n, sizeof *caches);
    origin *org = calloc(n, sizeof *org);
    rs_report r = {0};
    if (!files || !caches || !org) {
        snprintf(err, sizeof err, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n; i++)
        files[i] = (bs_file){"journal", paths[i], false};
    files[n] = (bs_file){"target", target && ls_target_path(target) ? target : NULL, false};
    files[n + 1] = (bs_file){"output", output, true};
    if (!bs_paths_distinct(files, n + 2, err, sizeof err))
        goto fail;
    for (size_t i = 0; i < n; i++) {
        if (!origin_of(paths[i], &caches[i], &org[i], err, sizeof err))
            goto fail;
        const origin *a = &org[0], *b = &org[i];
        if (i && b->target[0] && a->target[0] &&
            (strcmp(a->target, b->target) || strcmp(a->backend, b->backend) ||
             (a->unit[0] && b->unit[0] && strcmp(a->unit, b->unit)))) {
            snprintf(err, sizeof err, "%s is of target %s measured with %s in %s, %s of target "
                     "%s with %s in %s: calibrate the journals of one target and backend "
                     "together", a->path, a->target, a->backend, a->unit[0] ? a->unit : "-",
                     b->path, b->target, b->backend, b->unit[0] ? b->unit : "-");
            goto fail;
        }
        if (!org[0].target[0])
            org[0] = org[i]; /* the first journal with a row speaks for them */
    }
    sp_target start;
    if (!org[0].target[0]) {
        snprintf(err, sizeof err, "no measurements in %s%s", paths[0],
                 n > 1 ? " and the other journals" : "");
        goto fail;
    }
    if (!start_target(target, &org[0], &start, err, sizeof err) ||
        !legal_rows(caches, (const char *const *)paths, n, &start, err, sizeof err) ||
        !rs_report_read((const char *const *)paths, n, &r, err, sizeof err))
        goto fail;
    rs_fit fit;
    if (!rs_calibrate(&start, r.rows, r.nrows, &fo, &fit, err, sizeof err))
        goto fail;
    if (name)
        snprintf(fit.target.name, sizeof fit.target.name, "%s", name);
    else if (strlen(start.name) < 11 || strcmp(start.name + strlen(start.name) - 11, "-calibrated"))
        snprintf(fit.target.name, sizeof fit.target.name, "%.29s-calibrated", start.name);
    print_fit(&fit, &start, &org[0], n, &fo);
    /* a fit that closes the gap on its rows but ranks the others worse has
     * followed what the rows do not share: noise, or drift between them */
    if (!fit.in_sample && fit.after.spearman < fit.before.spearman - RANK_SLACK)
        tn_error("warning: calibrate: the fitted figures rank the %zu held-out rows worse than "
                 "the start's (spearman %.4f against %.4f): the fit follows what the rows do "
                 "not share, such as noise or drift between measurements",
                 fit.held_rows, fit.after.spearman, fit.before.spearman);
    if (output) {
        if (!write_target(output, &fit, &start, paths, n, err, sizeof err))
            goto fail;
        printf("\nwrote target %s to %s (a script loads it with: target \"%s\")\n",
               fit.target.name, output, output);
    }
    rc = TN_OK;
    goto done;
fail:
    tn_error("calibrate: %s", err);
done:
    rs_report_free(&r);
    for (size_t i = 0; caches && i < n; i++)
        rs_cache_free(caches[i]);
    free(caches), free(org), free(files);
    return rc;
}
