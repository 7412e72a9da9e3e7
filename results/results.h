/* results.h — the files a run leaves behind: the measurement journal (CSV, a
 * row appended and flushed per measurement) and the tuning table (CSV, whole). */
#ifndef NPU_TUNE_RESULTS_H
#define NPU_TUNE_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "space.h"

/* The interface: exported, where the library's other symbols are hidden (cmake/library.cmake). */
#pragma GCC visibility push(default)

/* One row of either file: a measured candidate of a problem on a target. */
typedef struct {
    const sp_problem *problem;
    const char *target;
    const sp_candidate *cand;
    const char *backend;
    const char *status;   /* "ok", "wrong", ... */
    double measured;      /* in unit; ignored unless status is "ok" */
    const char *unit;     /* "cycles" or "s" */
    const char *round;    /* journal: "search" (NULL), "final" (side by side) or "verify" */
    bool verified;        /* table: its result was checked against a reference */
    const char *node;     /* journal: the machine that measured it (NULL: not known) */
} rs_row;

/* What a journal or table belongs to. A journal is resumed only when the
 * target, space and measure signatures all match. */
typedef struct {
    char version[16];          /* npu-tune version that wrote it */
    char script[256];          /* the script, as given on the command line */
    char target[SP_NAME_MAX];  /* target name */
    char target_sig[17];       /* 16 hex digits: hash of the target's figures */
    char space_sig[17];        /* 16 hex digits: hash of problems + space */
    char measure[32];          /* backend name */
    char kernel_sig[17];       /* 16 hex digits: hash of the generated kernels, one per kind
                                * of code the run's candidates generate (host), or "" */
    char clock_mhz[32];        /* the target's clock as the run had it ("%.17g"; a CPU's is
                                * measured at each run and not signed), or "": a resumed
                                * run keeps the first one's, calibrate starts from it */
} rs_signature;

/* A measurement found in a journal, or an entry of a tuning table. */
typedef struct {
    sp_problem problem;
    char target[SP_NAME_MAX];
    sp_config config;
    char status[16];   /* "ok", "wrong", "timeout", "crash", "illegal" */
    double measured;   /* meaningful when status is "ok"; journal: the search's figure
                        * where a final measured the config again (rs_journal_read
                        * without search_figures: the final's) */
    double final;      /* journal: the figure of its last final row (round "final") when
                        * that was ok, which a failed verification keeps; NaN if none or
                        * it failed; table: NaN */
    long final_line;   /* journal: the line of its last final row, ok or not (the
                        * finalists' order); 0 if none */
    char verdict[16];  /* journal: the status of its last verify row ("" if none): with
                        * search_figures it replaces no ok row but stands here */
    char unit[8];      /* "cycles" or "s" */
    char round[8];     /* journal: "search", "final" or "verify"; table: "" */
    int verified;      /* table: 1 checked against a reference, 0 not, -1 not known
                        * (format 1 tables did not say) */
    char backend[32];  /* journal: the backend that measured it; table: "" */
    double load_elems; /* journal: the model's load volume and estimated cycles; */
    double est_cycles; /* 0 where the row has none (an illegal candidate); table: 0 */
    char node[64];     /* journal: the machine that measured it; "" not known (older
                        * journals have no node column) */
    long line;         /* the line of its file it was read from */
} rs_entry;

/* The measurements of a journal, looked up by (problem, config). */
typedef struct rs_cache rs_cache;

/* The entry for problem p (name, op, M, N, K, batch, dtype) and config c, or NULL. */
const rs_entry *rs_cache_find(const rs_cache *c, const sp_problem *p, const sp_config *cfg);
size_t rs_cache_size(const rs_cache *c);
/* Entry i (i < rs_cache_size) in the order its key was first seen. */
const rs_entry *rs_cache_entry(const rs_cache *c, size_t i);
/* Whether e's verification failed (rs_entry.verdict: a status other than ok). */
bool rs_verdict_failed(const rs_entry *e);
/* Gives every entry whose verification failed (rs_entry.verdict) that
 * status: a wrong kernel's figure is no measurement of its config, so the
 * model is not judged or fitted against it. */
void rs_cache_apply_verdicts(rs_cache *c);
void rs_cache_free(rs_cache *c);

typedef struct rs_journal rs_journal;

/* Opens the journal at path for appending. A new journal gets its sidecar
 * (path + ".sig") and the CSV header. An existing one is resumed: its
 * sidecar must match sig (else an error naming the field that differs and
 * both values), its header must be the journal header, every complete row
 * must parse and be of sig's target and backend, and the ok rows of one
 * unit (else "PATH:LINE: ..."); a torn last line (no newline, from a kill)
 * is dropped and cut off the file. *cache receives the rows read (an empty
 * cache for a new journal), as rs_journal_read with search_figures reads
 * them: a resumed search hears the figures the search heard, and the
 * final's figures are beside them (rs_entry.final). NULL with a one-line
 * reason otherwise; nothing is used from a journal that failed to read, and
 * a journal this call created is removed again. The journal is locked until
 * it is closed (or the process dies): another process's open fails (see
 * rs_journal_opts). A path that is not a regular file (bs_written_through:
 * /dev/null, a FIFO) gets the header and the rows only: no sidecar, no
 * resume, no lock. */
rs_journal *rs_journal_open(const char *path, const rs_signature *sig, rs_cache **cache,
                            char *err, size_t errlen);

/* What rs_journal_open_with does beyond rs_journal_open. */
typedef struct {
    bool wait;    /* another process holds the journal: wait until it is done */
    const sp_problem *const *problems; /* the run's: a row of any other problem (name, op, */
    size_t nproblems;                  /* shape, batch, dtype) is refused; NULL: any */
    long holder;  /* out: when the open failed because another process holds the
                   * journal (and not `wait`), its pid; else 0 */
    bool pack;    /* the run has no-pack configs: a new journal gets the pack column
                   * (without it, it has the columns of before that family) */
} rs_journal_opts;

/* rs_journal_open with options (o may be NULL): "PATH is in use by another
 * npu-tune run (pid N)" when another process holds it and not o->wait. */
rs_journal *rs_journal_open_with(const char *path, const rs_signature *sig,
                                 rs_journal_opts *o, rs_cache **cache, char *err,
                                 size_t errlen);

/* The unit of the ok rows the journal was resumed with ("" if none) and in
 * *line (may be NULL) the line of the first of them. */
const char *rs_journal_unit(const rs_journal *j, long *line);

/* Reads a whole journal to look at it, not to resume it: no sidecar is
 * needed, no lock taken, nothing written (a run may be appending to it).
 * The header must be the journal's, every complete row must parse and the
 * ok rows be of one unit ("PATH:LINE: ..."); a torn last line is dropped.
 * Each (problem, config) is kept once (a journal is of one target and
 * backend), with its last row (a failed verification replaces the ok
 * row; a failed final does not); with search_figures, as a resumed run
 * reads it, neither a final's re-measurement nor a verification replaces
 * the search's row, so that every config's figure comes from one protocol
 * and a replayed search hears what the search heard. Either way a final's
 * figure is also in rs_entry.final, a verification's status in
 * rs_entry.verdict. *cache receives the rows; NULL with a one-line reason
 * otherwise. */
bool rs_journal_read(const char *path, bool search_figures, rs_cache **cache, char *err,
                     size_t errlen);

/* Reads the sidecar of the journal at path (path + ".sig"): what it was
 * measured for. False with "cannot open 'PATH.sig': ..." or "PATH.sig:LINE:
 * ..." in err. */
bool rs_journal_signature(const char *path, rs_signature *sig, char *err, size_t errlen);

/* Appends one row and flushes it to the OS. False with a reason in err.
 * Not thread-safe: callers serialise. */
bool rs_journal_append(rs_journal *j, const rs_row *row, char *err, size_t errlen);

/* Closes the journal (releasing its lock); false (reason in err) if the
 * last writes failed. */
bool rs_journal_close(rs_journal *j, char *err, size_t errlen);

/* A tuning table as read: its signature line, its rows, and the targets it
 * describes (formats 3 and 4: a "# target NAME key=value ..." line each). */
typedef struct {
    rs_signature sig;
    rs_entry *e;
    size_t n;
    sp_target target;   /* its figures (line 2), when has_target */
    bool has_target;    /* false in formats 1 and 2: their rows name built-in targets */
} rs_table;

/* Writes the table (a "# npu-tune table 5 ..." signature line, a "# target"
 * line of t's figures, the CSV header, the rows) to a temporary file and
 * renames it over path. Rows that are not status ok, not all of one unit or
 * of another target than t (and sig's) are refused (nothing written). */
bool rs_table_write(const char *path, const rs_signature *sig, const sp_target *t,
                    const rs_row *rows, size_t n, char *err, size_t errlen);

/* Reads a whole table into *t (free it with rs_table_free), of format 4, 3
 * (without the op column: the default op), 2 (without the target line
 * either) or 1 (without verified either: -1). On any error ("PATH:LINE: ...":
 * not a table, foreign version, wrong columns, a malformed row or target
 * line, a target described twice, a row of a target the table does not
 * describe) returns false and *t holds nothing. */
bool rs_table_read(const char *path, rs_table *t, char *err, size_t errlen);

/* Frees what a table read owns and empties it. */
void rs_table_free(rs_table *t);

/* The figures the table gives for target `name`, or NULL (formats 1 and 2:
 * the built-in target of that name is meant). */
const sp_target *rs_table_target(const rs_table *t, const char *name);

/* Writes a self-contained C header for the table's entries: a static const
 * array and npu_tune_lookup(M, N, K, batch, dtype) with exact match first,
 * then the nearest entry whose config is legal for the shape, then a
 * default entry (see results/header.c for the rules); its comment names the
 * signature and the targets' figures. False if writing failed. */
bool rs_header_write(FILE *f, const rs_table *t);

/* The table entry to use for problem p on target t (same target name, op
 * and dtype): exact shape, else the nearest entry whose config sp_check accepts
 * for p (distance as the header's lookup). NULL if none; *exact tells which. */
const rs_entry *rs_table_pick(const rs_entry *e, size_t n, const sp_target *t,
                              const sp_problem *p, bool *exact);

/* The plots rs_plot draws: name i ("measured_vs_model", ...) and what it
 * shows; NULL past the last. */
const char *rs_plot_name(int i);
const char *rs_plot_what(int i);

/* Renders the plots of a results journal with gnuplot into dir (PNG and
 * SVG): measured vs model estimate, best per strategy per shape, and the
 * measured tile plane of the best strategy. False with a reason (e.g.
 * "gnuplot not found; install the gnuplot package") otherwise. */
bool rs_plot(const char *journal, const char *dir, char *err, size_t errlen);

/* ---- the model against the measurements (fidelity.c) ---- */

/* How many top-k rs_fidelity.recall holds: k = 1, 5, 10. */
enum { RS_NRECALL = 3 };

/* How well the model's estimates rank and predict a set of measured configs. */
typedef struct {
    size_t rows;          /* configs measured ok, each once */
    double spearman;      /* Spearman's rho of estimate and measurement (NaN: undefined) */
    double kendall;       /* Kendall's tau-b, ties counted as neither (NaN: undefined) */
    double regret;        /* the model's first pick measured over the best measured, - 1 */
    double best_rank;     /* the best measured's place in the model's order, 1 = first */
    double recall[RS_NRECALL]; /* the best within the model's first 1, 5, 10: 1 or 0 */
    double error_median;  /* median and 90th percentile of |estimate/measured - 1| */
    double error_p90;
    double bias;          /* median estimate/measured: > 1, the model over-charges */
} rs_fidelity;

/* The ok rows of one problem (name, shape, batch, dtype) on one target and
 * backend, across the journals read. */
typedef struct {
    sp_problem problem;
    char target[SP_NAME_MAX];
    char backend[32];
    char unit[8];
    bool by_load;       /* estimate = load volume: a row has no est_cycles */
    double scale;       /* measured units per estimate unit in errors and bias */
    rs_fidelity fig;
    size_t first;         /* its rows: the report's rows[first .. first + fig.rows) */
    const rs_entry *pick; /* the model's first pick among the rows */
    const rs_entry *best; /* the best measured */
} rs_report_group;

/* The factor an estimate is scaled by where its unit is not the measurement's
 * (seconds against est_cycles, or the load volume): one per target, backend,
 * unit and estimate, the median measured/estimate of its rows. */
typedef struct {
    char target[SP_NAME_MAX];
    char backend[32];
    char unit[8];
    bool by_load;
    bool fitted;        /* false: cycles against est_cycles, scale 1 */
    double scale;
    size_t rows;
} rs_report_scale;

/* The bias and error of the rows that share one value of a config axis. */
typedef struct {
    const char *axis;   /* "cores", "strategy", "split", "double_buffer", "micro",
                         * "pack" (in a report with a no-pack row) */
    char value[24];
    size_t rows;
    double bias, error_median;
} rs_report_bias;

typedef struct {
    rs_report_group *group;  /* in the order first met in the journals */
    size_t ngroups;
    rs_fidelity all;         /* rows summed; spearman, kendall, regret and recall the mean
                              * over the groups; best_rank NaN; errors and bias of every row */
    rs_report_scale *scale;  /* by target, backend, unit, estimate */
    size_t nscales;
    rs_report_bias *bias;    /* by axis, then value */
    size_t nbias;
    rs_entry *rows;          /* the rows the groups point into */
    size_t nrows;
} rs_report;

/* Reads the journals paths[0..n) (rs_journal_read, the search's figures)
 * and sets the model's estimate (est_cycles; the load volume in a group
 * where a row has none) against their ok rows: a config in two journals
 * counts once, with the later journal's row. The model's order is by
 * estimate, ties to the lower load volume, then the earlier row. False with a one-line reason:
 * a journal's, "PATH:LINE: ..." for a row of another unit than its group's
 * or an ok row without the model's figures, or no ok row at all. */
bool rs_report_read(const char *const *paths, size_t n, rs_report *r, char *err, size_t errlen);
/* The same of rows[0..n) in memory, as read from one journal named `what`
 * in messages, their est_cycles (and load_elems) the estimates to judge. */
bool rs_report_rows(const rs_entry *rows, size_t n, const char *what, rs_report *r, char *err,
                    size_t errlen);
void rs_report_free(rs_report *r);

/* ---- the model's figures fitted to measurements (calibrate.c) ---- */

enum {
    RS_FIT_MAX = 24,            /* figures a fit may move, at most */
    RS_FIT_ITERATIONS = 100,    /* the fit's iterations unless told */
    RS_FIT_ROWS_PER_FIGURE = 2, /* rows fitted per figure fitted, at least */
};
/* The sd of a row's log(estimate/measured) that a prior is weighed against:
 * measurement noise and the model's own error, as on the host. */
#define RS_FIT_NOISE 0.03

/* What rs_calibrate fits and how. */
typedef struct {
    const char *const *fields; /* the figures to fit (sp_target_fields names, each one of
                                * rs_fit_free's), every one to be identifiable; NULL: those
                                * of the target's kind the rows pin down, the rest kept */
    size_t nfields;
    double holdout;            /* the share of rows (or shapes) held out, 0 to below 1 */
    bool by_shape;             /* hold out whole shapes (at least one) */
    unsigned long seed;        /* which: a gsl mt19937 seeded with it */
    size_t iterations;         /* at most (0: RS_FIT_ITERATIONS) */
    double prior;              /* > 0: each figure's prior is log-normal around its start
                                * with this sd (of the natural log), against rows whose
                                * log residuals scatter by RS_FIT_NOISE: the fit is the
                                * posterior's mode, which few rows move little; 0: none */
    bool relative;             /* fit each shape's ranking, not its level: a shape's
                                * residuals count less their mean */
} rs_fit_opts;

/* One fitted figure: where it started, where it ended, its 95% interval. */
typedef struct {
    int field;                 /* index into sp_target_fields */
    double start, value, lo, hi;
} rs_fit_figure;

typedef struct {
    sp_target target;          /* the start with the fitted figures */
    rs_fit_figure fig[RS_FIT_MAX];
    size_t nfig;
    int kept[RS_FIT_MAX];      /* free figures not fitted (fields NULL only): not
                                * identifiable, or past (below); left as they were unless
                                * lowered (below) */
    size_t nkept;
    int past[RS_FIT_MAX];      /* of them, those the fit put past a figure they must not
                                * pass (a farther level's rate faster than a nearer one's):
                                * past_of[i] */
    int past_of[RS_FIT_MAX];
    size_t npast;
    int lowered[RS_FIT_MAX];   /* figures not fitted, lowered to the rate of a fitted figure
                                * (lowered_by[i]) that they would pass, directly or through
                                * another lowered figure */
    int lowered_by[RS_FIT_MAX];
    size_t nlowered;
    size_t rows, shapes, fit_rows, held_rows;
    size_t iterations;
    double rms_before, rms_after; /* weighted rms of log(estimate/measured), fitted rows */
    rs_fidelity before, after; /* the start's and the fit's estimates against the held-out
                                * rows (all rows when none is held out: in_sample) */
    bool in_sample;
} rs_fit;

/* The i-th figure a fit may move ("clock_mhz", "gm_l1.bandwidth", ...: the
 * model's rates and latencies, and the clock when rows are in seconds), NULL
 * past the last. */
const char *rs_fit_free(int i);

/* The model's estimate of row e on target t, in e's unit (cycles, or
 * seconds at t's clock). */
double rs_fit_estimate(const sp_target *t, const rs_entry *e);

/* Fits the free figures of start to the ok rows[0..n) (one unit; their
 * configs legal on start) by weighted nonlinear least squares on
 * log(estimate/measured), each figure in log space within a millionfold of
 * its start, each shape weighing alike; held-out rows are left out of the
 * fit and judge it (rs_report's figures, before and after). False with one
 * line in err: too few rows for the figures, a figure not identifiable
 * (named), no convergence within the iterations, a fitted target that
 * sp_target_check refuses. *out is filled either way as far as it got. */
bool rs_calibrate(const sp_target *start, const rs_entry *rows, size_t n, const rs_fit_opts *o,
                  rs_fit *out, char *err, size_t errlen);

#pragma GCC visibility pop

#endif
